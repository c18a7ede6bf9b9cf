"""PrivacySanitizer: every secret kind masked with a typed placeholder, ordinary developer
text untouched, Luhn-checked card numbers, custom patterns, fail closed on every ACE write.

The secret samples are generated here, from a fixed seed, in each provider's real format:
no secret-shaped literal is committed (push protection and secret scanners would object).
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from pathlib import Path

import pytest

from memx_cli.privacy.patterns import Pattern
from memx_cli.privacy.sanitizer import SanitizeError, Sanitizer

from .conftest import Memx

RNG = random.Random(20261101)
UP, LOW, DIG = string.ascii_uppercase, string.ascii_lowercase, string.digits
ALNUM = UP + LOW + DIG
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def rand(n: int, alphabet: str = ALNUM) -> str:
    # letters and digits both present, as in real generated keys
    while True:
        value = "".join(RNG.choice(alphabet) for _ in range(n))
        if (any(c.isdigit() for c in value) or not set(alphabet) & set(DIG)) and \
                (any(c.isupper() for c in value) or not set(alphabet) & set(UP)):
            return value


def luhn_complete(prefix: str, length: int) -> str:
    body = prefix + "".join(RNG.choice(DIG) for _ in range(length - len(prefix) - 1))
    for check in DIG:
        digits = [int(c) for c in body + check]
        total = sum(d if i % 2 == 0 else (d * 2 - 9 if d > 4 else d * 2)
                    for i, d in enumerate(reversed(digits)))
        if total % 10 == 0:
            return body + check
    raise AssertionError


def cn_id() -> str:
    body = "110105" + "19880315" + "".join(RNG.choice(DIG) for _ in range(3))
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return body + "10X98765432"[sum(int(c) * w for c, w in zip(body, weights)) % 11]


def fr_nir() -> str:
    body = "1" + "85" + "05" + "78" + "006" + "084"
    return f"{body}{97 - int(body) % 97:02d}"


def jwt() -> str:
    def part(data: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")
    return (part({"alg": "HS256", "typ": "JWT"}) + "." +
            part({"sub": rand(12), "iat": 1767225600, "scope": "read:orders"}) + "." + rand(43, URLSAFE))


def pem(kind: str) -> str:
    lines = "\n".join(rand(64, B64) for _ in range(6))
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{lines}\n-----END {kind}PRIVATE KEY-----"


def secret_samples() -> list[tuple[str, str, str]]:
    """(kind, secret, line containing it)."""
    s: list[tuple[str, str, str]] = []

    def add(kind: str, secret: str, line: str) -> None:
        s.append((kind, secret, line.format(secret)))

    add("aws_access_key", "AKIA" + rand(16, UP + DIG), "export AWS_ACCESS_KEY_ID={}")
    add("aws_access_key", "ASIA" + rand(16, UP + DIG), '"AccessKeyId": "{}",')
    add("aws_secret_key", rand(40, B64), "aws_secret_access_key = {}")
    add("aws_secret_key", rand(40, B64), "AWS_SECRET_ACCESS_KEY={}")
    add("github_token", "ghp_" + rand(36), "git clone https://x:{}@github.com/acme/app.git")
    add("github_token", "gho_" + rand(36), "GITHUB_TOKEN={} gh pr list")
    add("github_token", "github_pat_" + rand(22) + "_" + rand(59), "token: {}")
    add("gitlab_token", "glpat-" + rand(20, URLSAFE), "curl --header 'PRIVATE-TOKEN: {}' https://gitlab.com/api")
    add("slack_token", f"xoxb-{rand(12, DIG)}-{rand(13, DIG)}-{rand(24)}", "SLACK_BOT_TOKEN={}")
    add("slack_token", f"xoxp-{rand(12, DIG)}-{rand(12, DIG)}-{rand(13, DIG)}-{rand(32, HEX)}",
        "the user token {} was pasted in chat")
    add("slack_webhook", f"https://hooks.slack.com/services/T{rand(8, UP + DIG)}/B{rand(10, UP + DIG)}/{rand(24)}",
        "notify: {}")
    add("stripe_key", "sk_live_" + rand(24), "STRIPE_SECRET_KEY={}")
    add("stripe_key", "rk_test_" + rand(24), "stripe.api_key = '{}'")
    add("stripe_key", "whsec_" + rand(32), "webhook signing secret {}")
    add("openai_key", "sk-proj-" + rand(48, URLSAFE) + "T3BlbkFJ" + rand(48, URLSAFE), "OPENAI_API_KEY={}")
    add("openai_key", "sk-" + rand(48), "openai.api_key = \"{}\"")
    add("anthropic_key", "sk-ant-api03-" + rand(93, URLSAFE) + "AA", "ANTHROPIC_API_KEY={}")
    add("google_api_key", "AIza" + rand(35, URLSAFE), "https://maps.googleapis.com/maps/api/geocode/json?key={}")
    add("google_oauth", "ya29." + rand(60, URLSAFE), "Authorization header was {}")
    add("groq_key", "gsk_" + rand(52), "GROQ_API_KEY={}")
    add("huggingface_token", "hf_" + rand(34), "huggingface-cli login --token {}")
    add("npm_token", "npm_" + rand(36), "//npm.registry.example/:_authToken={}")
    add("pypi_token", "pypi-AgEIcHlwaS5vcmc" + rand(60, URLSAFE), "TWINE_PASSWORD={}")
    add("sendgrid_key", f"SG.{rand(22, URLSAFE)}.{rand(43, URLSAFE)}", "SENDGRID_API_KEY={}")
    add("twilio_key", "SK" + rand(32, HEX), "twilio api key {}")
    add("mailgun_key", "key-" + rand(32, HEX), "MAILGUN_KEY {}")
    add("azure_key", rand(86, B64) + "==",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={};EndpointSuffix=core.windows.net")
    add("digitalocean_token", "dop_v1_" + rand(64, HEX), "doctl auth init -t {}")
    add("shopify_token", "shpat_" + rand(32, HEX), "X-Shopify-Access-Token: {}")
    add("telegram_token", rand(9, DIG) + ":AA" + rand(33, URLSAFE), "bot = Bot('{}')")
    add("api_token", "dapi" + rand(32, HEX), "DATABRICKS_TOKEN={}")
    add("api_token", "hvs." + rand(90, URLSAFE), "vault login {}")
    add("jwt", jwt(), "Cookie: session={}")
    add("bearer_token", rand(40, URLSAFE), "curl -H 'Authorization: Bearer {}' https://api.acme.dev/v1")
    add("private_key", pem("RSA "), "key file contents:\n{}\nend")
    add("private_key", pem("OPENSSH "), "{}")
    add("private_key", pem("EC "), "ssh key: {}")
    add("password", rand(16), "DATABASE_URL=postgres://app:{}@db.internal:5432/app")
    add("password", rand(14), "mongodb+srv://admin:{}@cluster0.ab1cd.mongodb.net/prod")
    add("password", rand(20), "REDIS_URL=redis://:{}@cache:6379/0")
    add("password", rand(12), "amqp://worker:{}@rabbit:5672/jobs")
    add("password", rand(12), "DB_PASSWORD={}")
    add("password", rand(12), '{{"username": "svc", "password": "{}"}}')
    add("password", rand(24), "  api_key: {}")
    add("password", rand(12), "mysql --user=root --password={} shop")
    add("password", rand(10), "数据库密码是 {}")
    add("email", f"{rand(6, LOW)}.{rand(7, LOW)}@acme-corp.com", "ping {} about the rollout")
    add("phone", "+1 415 555 " + rand(4, DIG), "on-call phone {}")
    add("phone", "139" + rand(8, DIG), "联系电话 {}")
    add("phone", "06 12 34 " + rand(2, DIG) + " " + rand(2, DIG), "mon numéro : {}")
    add("phone", "010-" + rand(4, DIG) + "-" + rand(4, DIG), "연락처 {}")
    add("card_number", luhn_complete("4", 16), "charged card {} twice")
    mc = luhn_complete("53", 16)
    add("card_number", " ".join(mc[i:i + 4] for i in range(0, 16, 4)), "test with {} please")
    amex = luhn_complete("37", 15)
    add("card_number", f"{amex[:4]}-{amex[4:10]}-{amex[10:]}", "amex {}")
    add("national_id", f"{RNG.randint(100, 665)}-{RNG.randint(10, 99)}-{RNG.randint(1000, 9999)}", "SSN {} on file")
    add("national_id", cn_id(), "身份证号 {}")
    add("national_id", fr_nir(), "NIR {}")
    add("national_id", "900101-1" + rand(6, DIG), "주민등록번호 {}")
    add("user", "jdupont", "File \"/home/{}/src/app/main.py\", line 3")
    add("user", "mei.lin", "/Users/{}/Library/Caches/pip")
    add("user", "rkumar", r"C:\Users\{}\AppData\Local\Temp\build.log")
    return s


ORDINARY = [
    "git remote add origin git@github.com:acme/shop.git",
    "git clone https://github.com/acme/shop.git && cd shop",
    "commit 3f2a9c1e4b7d8f0a1c2e3d4b5a6f7e8d9c0b1a2f (HEAD -> main, origin/main)",
    "Merge: 1a2b3c4 5d6e7f8",
    "request id 123e4567-e89b-12d3-a456-426614174000 took 231 ms",
    "upgrade requests to 2.31.0 and urllib3 to 2.2.1",
    "the dev server listens on localhost:8080 and the API on 127.0.0.1:5000",
    "FROM python:3.11-slim@sha256:2b7d1d5a1e0b5c3f4a6e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a",
    "npm install lodash@4.17.21 @types/node@20.11.5",
    "uses: actions/checkout@v4",
    "2026-11-01T12:00:00Z INFO worker started pid=4182",
    "FAILED tests/test_api.py::test_login - AssertionError: 401 != 200",
    "=== 1 failed, 41 passed in 3.21s ===",
    "The password prompt appears twice when the keychain is locked.",
    "token = request.headers.get(\"X-Token\")",
    "password: string",
    "secret_key = settings.SECRET_KEY",
    "api_key = os.environ[\"API_KEY\"]",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "DB_PASSWORD=${DB_PASSWORD}",
    "max_tokens=4096, temperature=0.2",
    "arn:aws:iam::123456789012:role/deploy-role",
    "s3://acme-artifacts/builds/2026/11/01/app.tar.gz",
    "SELECT id, email FROM users WHERE created_at > now() - interval '7 days';",
    "color: #1e90ff; margin: 0 auto;",
    "kubectl -n prod rollout status deployment/api-7f9c8d6b5-x2k4p",
    "pip install 'numpy>=1.24,<3' 'pandas~=2.2'",
    "Version 1.2.3-beta.4+build.567 is out",
    "build 20240115103000 finished",
    "order number 4111111111111112 does not pass the Luhn check",
    "Process exited with code 137 after 3600 s",
    "cd ~/projects/app && make test",
    "/home/runner/work/shop/shop/tests/test_api.py:42: AssertionError",
    "/usr/local/lib/python3.11/site-packages/yaml/__init__.py",
    "http://localhost:3000/api/v1/orders?page=2&limit=50",
    "ssh deploy@10.0.4.12 'sudo systemctl restart api'",
    "Use sk-learn? No: the package is scikit-learn.",
    "把连接池大小从 10 改成 50，压测通过。",
    "ワーカー数を 4 から 8 に変更した。",
    "nginx의 worker_connections 설정을 1024에서 4096으로 변경했다.",
    "J'ai passé WORKERS de 2 à 8 sur le serveur.",
    "Co-authored-by: see CONTRIBUTING.md",
    "sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709 matches",
    "python -m pytest -q tests -k 'not slow' -n 4",
]


@pytest.fixture(scope="module")
def sanitizer() -> Sanitizer:
    return Sanitizer()


def test_corpus_sizes() -> None:
    assert len(secret_samples()) >= 40
    assert len(ORDINARY) >= 40
    assert len({kind for kind, _, _ in secret_samples()}) >= 30


@pytest.mark.parametrize(("kind", "secret", "line"), secret_samples(),
                         ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(secret_samples())])
def test_every_secret_is_masked_with_its_kind(sanitizer: Sanitizer, kind: str, secret: str,
                                              line: str) -> None:
    out = sanitizer.sanitize(line)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out, out


@pytest.mark.parametrize("line", ORDINARY)
def test_ordinary_developer_text_passes_unchanged(sanitizer: Sanitizer, line: str) -> None:
    assert sanitizer.sanitize(line) == line


def test_masking_is_idempotent_and_keeps_the_context(sanitizer: Sanitizer) -> None:
    line = "DATABASE_URL=postgres://app:hunter2hunter2@db:5432/app and mail ops@acme.io"
    once = sanitizer.sanitize(line)
    assert once == ("DATABASE_URL=postgres://app:[REDACTED:password]@db:5432/app "
                    "and mail [REDACTED:email]")
    assert sanitizer.sanitize(once) == once


def test_an_unterminated_private_key_is_masked_to_the_end(sanitizer: Sanitizer) -> None:
    text = "here:\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nabc"
    assert sanitizer.sanitize(text) == "here:\n[REDACTED:private_key]"


def test_custom_patterns_are_masked_under_their_name() -> None:
    custom = Sanitizer([{"name": "employee_id", "pattern": r"\bEMP-\d{6}\b"},
                        {"name": "ticket", "pattern": r"internal ticket (\d+)"}])
    assert custom.sanitize("ask EMP-123456 about internal ticket 991") == \
        "ask [REDACTED:employee_id] about internal ticket [REDACTED:ticket]"


def _broken() -> Sanitizer:
    def boom(match: re.Match[str]) -> bool:
        raise RuntimeError("boom")
    broken = Sanitizer()
    broken.patterns = (Pattern("x", re.compile("l"), 0, boom),)
    return broken


def test_a_failing_pattern_fails_closed() -> None:
    with pytest.raises(SanitizeError, match=r"^could not sanitize the text \(RuntimeError: boom\); "
                                            r"nothing stored$"):
        _broken().sanitize("hello")


# ---------------------------------------------------------------- on the write path


def test_memx_add_masks_secrets_and_raw_does_not(memx: Memx, repo: Path) -> None:
    key = "AKIA" + rand(16, UP + DIG)
    mid = memx.ok("add", f"deploy uses {key} from ops@acme.io").strip()
    stored = (repo / ".memx" / "memories" / f"{mid}.yaml").read_text()
    assert key not in stored and "ops@acme.io" not in stored
    assert "deploy uses [REDACTED:aws_access_key] from [REDACTED:email]" in stored
    raw = memx.ok("add", "--raw", f"raw {key}").strip()
    assert key in (repo / ".memx" / "memories" / f"{raw}.yaml").read_text()


def test_ace_off_in_config_stores_verbatim(memx: Memx, repo: Path) -> None:
    memx.ok("config", "set", "ace.enabled", "false")
    key = "ghp_" + rand(36)
    mid = memx.ok("add", f"token {key}").strip()
    assert key in (repo / ".memx" / "memories" / f"{mid}.yaml").read_text()


def _on_a_thread(call: object) -> object:
    """What ``call()`` returns or raises, run on a thread of its own (the memx server's
    requests and memx mcp's tools run there, where no timer signal arrives)."""
    import threading

    got: list[object] = []

    def run() -> None:
        try:
            got.append(call())  # type: ignore[operator]
        except Exception as exc:  # handed back to the test
            got.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(120)  # bounds a hang only
    assert not worker.is_alive() and len(got) == 1
    return got[0]


@pytest.mark.parametrize("pattern", [r"(a|a)+$", r"\w+\w+$", r"(a?a)+$"])
def test_a_backtracking_custom_pattern_is_stopped_off_the_main_thread(pattern: str) -> None:
    from memx_cli.errors import EXIT_PATTERN_TIME
    from memx_cli.privacy.sanitizer import PatternTimeError

    slow = Sanitizer([{"name": "slow", "pattern": pattern}])
    outcome = _on_a_thread(lambda: slow.sanitize("a" * 5000 + "!"))
    assert isinstance(outcome, PatternTimeError)
    assert outcome.exit_code == EXIT_PATTERN_TIME == 4
    assert str(outcome).startswith("the custom pattern 'slow' (ace.reflector.custom_patterns) "
                                   "ran over 2 s on this text, so nothing was stored")
    # control: the next text through the same sanitizer, short enough, is masked as on
    # the main thread (a new child runs it)
    assert "[REDACTED:slow]" in _on_a_thread(lambda: slow.sanitize("b aaaa"))  # type: ignore[operator]
    assert _on_a_thread(lambda: slow.sanitize("b aaaa")) == slow.sanitize("b aaaa")


def test_a_custom_pattern_masks_alike_on_any_thread() -> None:
    items = [{"name": "employee_id", "pattern": r"\bEMP-\d{6}\b"},
             {"name": "ticket", "pattern": r"ticket=(\w+)"},
             {"name": "codename", "pattern": r"(?i)project\s+(kestrel|osprey)"},
             {"name": "maybe", "pattern": r"q?"}]
    custom = Sanitizer(items)
    texts = ["ask EMP-123456 about ticket=ab12 and Project Kestrel",
             "ticket=[REDACTED:x] stays", "émoji 🎉 EMP-654321 \ud800 then project osprey",
             "", "nothing here\nacross lines EMP-000001"]
    for text in texts:
        here = custom.sanitize(text)
        assert _on_a_thread(lambda t=text: custom.sanitize(t)) == here  # type: ignore[misc]
    named = Sanitizer(items[:3])  # (without the one that matches the empty string)
    assert _on_a_thread(lambda: named.sanitize(texts[0])) == (
        "ask [REDACTED:employee_id] about ticket=[REDACTED:ticket] and Project "
        "[REDACTED:codename]")


def test_custom_patterns_from_config_apply_to_add(memx: Memx, repo: Path) -> None:
    (repo / ".memx" / "config.yaml").write_text(
        "ace:\n  reflector:\n    custom_patterns:\n      - {name: employee_id, pattern: 'EMP-\\d{6}'}\n")
    mid = memx.ok("add", "ask EMP-123456").strip()
    assert "ask [REDACTED:employee_id]" in (repo / ".memx" / "memories" / f"{mid}.yaml").read_text()


def test_a_bad_custom_pattern_is_a_config_error(memx: Memx) -> None:
    result = memx("config", "set", "ace.reflector.custom_patterns", "[{name: x, pattern: '(('}]")
    assert result.code == 2
    assert result.err.startswith("memx: error: configuration key 'ace.reflector.custom_patterns': "
                                 "pattern 'x' is not a regular expression (missing ), unterminated")


def test_sanitizer_failure_on_add_stores_nothing(memx: Memx, repo: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli.privacy import sanitizer as module

    monkeypatch.setattr(module, "cached", lambda custom: _broken())
    result = memx("add", "hello")
    assert (result.code, result.err) == (
        3, "memx: error: could not sanitize the text (RuntimeError: boom); nothing stored\n")
    assert list((repo / ".memx" / "memories").iterdir()) == []


def test_a_guarded_pattern_is_compiled_when_its_guard_first_lets_text_in() -> None:
    """Issue 29: a fresh process that sanitizes text passing no guard compiles none of
    the guarded patterns; text that passes one is masked as before (the phrase pattern,
    compiled then, is the one its check recognises)."""
    import subprocess
    import sys

    code = ("from memx_cli.privacy.patterns import PATTERNS\n"
            "from memx_cli.privacy.deferred import Deferred\n"
            "from memx_cli.privacy.sanitizer import Sanitizer\n"
            "def compiled():\n"
            "    return sum(p.regex._compiled is not None for p in PATTERNS\n"
            "               if isinstance(p.regex, Deferred))\n"
            "s = Sanitizer()\n"
            "print(s.sanitize('Prefer uv over poetry in this repository'), compiled())\n"
            "print(s.sanitize('the token abcd is rotated; token Zq8xW3vR7tY2uP9s was leaked'),"
            " compiled() > 0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["Prefer uv over poetry in this repository 0",
                   "the token abcd is rotated; token [REDACTED:password] was leaked True"]


# Numbers that logs print in a phone number's shape, and the phone numbers next to them
# (memx_cli/privacy/phone.py): each line is masked exactly where a phone number stands.
PHONE_SHAPED_NOT_PHONES = [
    # Go's monotonic clock reading in a time.Time string (a buildkit lock message)
    "locked for 77.7ms (since 2025-11-07 22:19:52.009739444 +0000 UTC m=+25.738448103)",
    "offset +0.123456789 from the reference clock",
    # CI run and job ids as path segments, bare and inside key=value and parentheses
    "builder-id=https://github.com/acme/shop/actions/runs/19182754211 --tag x",
    "- **GitHub:** https://github.com/acme/shop/actions/runs/18603721483",
    "(https://ci.example.org/acme/shop/-/jobs/13912345678/raw)",
    "see run #18603721483 for the first red build",
]
PHONES_IN_LOG_CONTEXT = [
    ("on-call phone +1 415 555 0134", "on-call phone [REDACTED:phone]"),
    ("whois Phone: +1.4155550134", "whois Phone: [REDACTED:phone]"),
    ("page +44 20 7946 0958 (UTC m=+25.7)", "page [REDACTED:phone] (UTC m=+25.7)"),
    ("phone=+33 6 12 34 56 78", "phone=[REDACTED:phone]"),
    ("+257 22 12 34 56 in Bujumbura", "[REDACTED:phone] in Bujumbura"),
    ("联系电话 13912345678", "联系电话 [REDACTED:phone]"),
    # a phone number in a URL: a host's own path, a query value, a + number, dashes
    ("https://wa.me/13912345678", "https://wa.me/[REDACTED:phone]"),
    ("https://example.com/call?to=13912345678", "https://example.com/call?to=[REDACTED:phone]"),
    ("https://example.com/contact/+14155550134", "https://example.com/contact/[REDACTED:phone]"),
    ("https://example.com/a/issues/415-555-0134", "https://example.com/a/issues/[REDACTED:phone]"),
    # a path that is no URL, and a run number next to a phone number
    ("/runs/18603721483 on disk", "/runs/[REDACTED:phone] on disk"),
    ("run #18603721483 paged 13912345678", "run #18603721483 paged [REDACTED:phone]"),
]


@pytest.mark.parametrize("line", PHONE_SHAPED_NOT_PHONES)
def test_timings_and_ids_shaped_like_phone_numbers_are_kept(line: str) -> None:
    assert Sanitizer().sanitize(line) == line


@pytest.mark.parametrize(("line", "masked"), PHONES_IN_LOG_CONTEXT)
def test_phone_numbers_next_to_those_shapes_are_still_masked(line: str, masked: str) -> None:
    assert Sanitizer().sanitize(line) == masked
