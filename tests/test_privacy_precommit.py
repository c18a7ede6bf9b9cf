"""The pre-commit secret check (`memx hooks check --secrets`, what the pre-commit hook
runs on staged memory files) catches keys that hold a placeholder's word (issue 26: one
passed the check and was exported to AGENTS.md) in every way YAML and the text inside it
can write them: plain, quoted, block styles, folded over lines, escapes, base64."""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from memx_cli.store import memory as memfmt
from memx_cli.store.records import build

from .conftest import Memx

RNG = random.Random(20261207)
BODY = "".join(RNG.choice(string.ascii_letters + string.digits) for _ in range(18))
KEYS = [f"EXAMPLE{BODY}", f"your_{BODY}", f"xxxx{BODY}", f"{BODY[:9]}...{BODY[9:]}",
        f"{BODY}-here"]


def _dump(content: str, style: str | None = None, width: int = 4096) -> str:
    text = yaml.dump(content, default_style=style, width=width, allow_unicode=True)
    return text.removesuffix("...\n").rstrip("\n")  # a bare scalar's document end


def _style(style: str | None, width: int = 4096) -> Callable[[str], str]:
    return lambda content: _dump(content, style, width)


def _escaped(content: str) -> str:  # every character after the = as a \x or \u escape
    head, _, value = content.partition("=")
    return '"' + head + "=" + "".join(f"\\x{ord(c):02x}" if i % 2 else f"\\u{ord(c):04x}"
                                      for i, c in enumerate(value)) + '"'


ENCODINGS: dict[str, Callable[[str], str]] = {
    "plain": _style(None), "single": _style("'"), "double": _style('"'),
    "literal": lambda c: "|-\n  " + c, "folded": lambda c: ">-\n  " + c,
    "plain folded": _style(None, 20), "double folded": _style('"', 20),
    "single folded": _style("'", 20), "escapes": _escaped,
    "line continuation": lambda c: '"' + c[:-8] + '\\\n  ' + c[-8:] + '"',
    "base64": lambda c: base64.b64encode(c.encode()).decode(),
    "json in text": lambda c: _dump(json.dumps({"command": c})),
    "shell quoted": lambda c: _dump("sh -c " + json.dumps(c)),
}


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_the_check_finds_a_key_holding_a_placeholder_word(memx: Memx, repo: Path, key: str,
                                                          encoding: str) -> None:
    mem = build("x", raw=True)
    content = ENCODINGS[encoding](f"deploy with API_TOKEN={key}")
    text = memfmt.dump(mem).decode().replace("content: x", "content: " + content)
    path = repo / ".memx" / "memories" / f"{mem.id}.yaml"
    path.write_text(text)
    assert yaml.safe_load(text)["content"]  # still a memory file
    result = memx("hooks", "check", "--secrets", str(path))
    assert result.code == 1, (text, result.err)
    assert key not in result.err
