"""Masking by shape, not by hopeful words (issue 26): a value is left as it is only when
the WHOLE value is a placeholder (your_api_key_here, xxxx, sk-xxxx, <token>, ${VAR},
changeme); a real key that merely holds "example", "your_", "xxxx", "..." or ends in
"-here" is masked wherever it is written. Random parts come from a fixed seed."""

from __future__ import annotations

import random
import string

import pytest

from memx_cli.privacy import default

RNG = random.Random(20261206)


def rand(n: int) -> str:
    return "".join(RNG.choice(string.ascii_letters + string.digits) for _ in range(n))


# Real values that hold a placeholder's word somewhere inside.
HOLDING = [f"EXAMPLE{rand(14)}", f"your_{rand(14)}", f"xxxx{rand(14)}", f"{rand(8)}...{rand(8)}",
           f"{rand(14)}-here", f"...{rand(14)}", f"***{rand(12)}", f"{rand(10)}_example_{rand(6)}"]
# The contexts a value is written in: an assignment, a JSON member, a command-line
# option, a password handed to a tool, prose.
CONTEXTS = ["DB_PASSWORD={}", 'export API_TOKEN="{}"', '{{"client_secret": "{}"}}',
            "deploy --api-key {}", "mysql -u admin -p{} prod", "the admin password is {}"]


@pytest.mark.parametrize("value", HOLDING)
@pytest.mark.parametrize("context", CONTEXTS)
def test_a_value_holding_a_placeholder_word_is_masked(value: str, context: str) -> None:
    out = default().sanitize(context.format(value))
    assert value not in out and "[REDACTED:" in out, out


WHOLE = ["your_api_key_here", "YOUR_API_KEY_HERE", "xxxxxxxxxxxxxxxx", "sk-xxxxxxxx",
         "<token>", "${DB_PASSWORD}", "changeme", "insert-token-here",
         "REPLACE_WITH_YOUR_SECRET", "xxxx-xxxx-xxxx-xxxx", "{{ api_key }}", "..."]


@pytest.mark.parametrize("value", WHOLE)
@pytest.mark.parametrize("context", CONTEXTS[:4])
def test_a_whole_placeholder_stays(value: str, context: str) -> None:
    line = context.format(value)
    assert default().sanitize(line) == line


KEY = rand(19)
# A secret inside quoting layers: shell quotes joined around an escaped one, a command
# two shells deep, a JSON string inside a JSON string, YAML's doubled quote, a shell's
# escaped space. Each kept the secret (or its tail) in clear.
LAYERED = [
    ("export DB_PASSWORD='ab'\\''" + KEY + "'", "export DB_PASSWORD='[REDACTED:password]'"),
    ('sh -c "bash -c \\"export API_TOKEN=\\\\\\"' + KEY + '\\\\\\"\\""',
     'sh -c "bash -c \\"export API_TOKEN=\\\\\\"[REDACTED:password]\\\\\\"\\""'),
    ('{"input": "{\\"command\\": \\"export API_TOKEN=\\\\\\"' + KEY + '\\\\\\"\\"}"}',
     '{"input": "{\\"command\\": \\"export API_TOKEN=\\\\\\"[REDACTED:password]\\\\\\"\\"}"}'),
    ("docker run -e 'PASSWORD=pre'\"'\"'" + KEY + "' img",
     "docker run -e 'PASSWORD=[REDACTED:password]' img"),
    ("password: 'it''s" + KEY + "'", "password: '[REDACTED:password]'"),
    ("TOKEN=ab\\ " + KEY, "TOKEN=[REDACTED:password]"),
]


@pytest.mark.parametrize(("line", "masked"), LAYERED)
def test_a_secret_inside_quoting_layers_is_masked_whole(line: str, masked: str) -> None:
    assert default().sanitize(line) == masked


@pytest.mark.parametrize("line", [
    '{"command": "grep -r \\"password\\" src/ && echo \\"done\\""}',
    "echo 'it'\\''s fine' && git commit -m \"fix: \\\"quoted\\\" title\"",
    'path: "C:\\\\tools\\\\bin" and a regex "\\\\d+\\\\.\\\\d+"',
])
def test_quoting_layers_without_a_secret_are_left_as_they_are(line: str) -> None:
    assert default().sanitize(line) == line
