"""Secrets the phrase and key-name rules missed on a second blind check (privacy/
phrases.py, keys.py, sanitizer.py): a verb phrase between the noun and its value, a long
qualifier, a password's noun right before its value, OTP and recovery seeds, a key name
in a subscript, and a token masked only in part. Random values come from a fixed seed."""

from __future__ import annotations

import random
import string

import pytest

from memx_cli.privacy.sanitizer import Sanitizer

RNG = random.Random(20261202)


def rand(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


KEY = rand(32, "0123456789abcdef")
SEED = rand(16, string.ascii_uppercase + "234567")
HEAD, TAIL = rand(22), rand(43)


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        ("The Grafana admin password got reset to Xv7pQ2mLw9 by the chart",
         "The Grafana admin password got reset to [REDACTED:password] by the chart"),
        ("Le mot de passe du compte de service de la prod est Brume2025x",
         "Le mot de passe du compte de service de la prod est [REDACTED:password]"),
        ("Office wifi: passphrase lantern-harbor-quiet-77",
         "Office wifi: passphrase [REDACTED:password]"),
        ("The TOTP secret for the deploy bot is " + SEED,
         "The TOTP secret for the deploy bot is [REDACTED:password]"),
        ("settings['API_SECRET'] = '" + KEY + "'",
         "settings['API_SECRET'] = '[REDACTED:password]'"),
        ('ENV["DEPLOY_TOKEN"] = "' + KEY + '"', 'ENV["DEPLOY_TOKEN"] = "[REDACTED:password]"'),
    ],
)
def test_masked(line: str, masked: str) -> None:
    assert Sanitizer().sanitize(line) == masked


def test_a_token_masked_in_part_is_masked_whole() -> None:
    # an unknown vendor's dotted token whose last segment alone was found
    out = Sanitizer().sanitize(f"mail relay key: SG.{HEAD}.{TAIL}")
    assert HEAD not in out and TAIL not in out
    assert out.startswith("mail relay key: [REDACTED:")


@pytest.mark.parametrize(
    "line",
    [
        "vault kv get -field=password secret/db/prod",
        "The password reset flow sends a one-time link",
        "Password managers are allowed on work laptops",
        "Seed the database with make seed before the e2e run",
        "settings['PASSWORD_MIN_LENGTH'] = 12",
        "mysql -uroot -p",
        # an edit shown after the file it changed: a file's name is not a setting's
        "edited types/next-auth.d.ts: `declare module 'next-auth' { interface Session { } }`",
    ],
)
def test_unchanged(line: str) -> None:
    assert Sanitizer().sanitize(line) == line


def test_short_glued_prefixes_stay() -> None:
    assert Sanitizer().sanitize("mysql -uroot -pQ7vLm2Xw") == "mysql -uroot -p[REDACTED:password]"
