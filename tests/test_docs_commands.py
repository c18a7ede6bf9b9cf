"""Every `memx` command and option named in README.md and docs/ exists (issue 27: the
docs named `memx list --domain` and other things the code does not have).

Each inline code span that starts with ``memx `` and each line of a code block that does
is read as a command line: the words that name a (sub)command are walked down the real
click tree, then every ``--option`` that follows must be one of that command's options
(or the global ones). A placeholder in capitals, ``...`` or ``|`` ends nothing: the
alternatives are checked one by one."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_SPAN = re.compile(r"`(memx [^`\n]+)`")
_BLOCK_LINE = re.compile(r"^\s*(?:\$ )?(memx [^#\n]*)")
_OPTION = re.compile(r"--[a-z][a-z0-9-]*")


def mentions(text: str) -> list[str]:
    found = [m.group(1) for m in _SPAN.finditer(text)]
    inside = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            inside = not inside
            continue
        match = _BLOCK_LINE.match(line) if inside else None
        if match:
            found.append(match.group(1))
    return found


def problems(line: str) -> list[str]:
    """What in one command line names nothing memx has."""
    from memx_cli.cli import cli

    ctx = click.Context(cli, info_name="memx")
    command: click.Command = cli
    words = line.split()[1:]
    allowed = {o for p in cli.params for o in getattr(p, "opts", [])}
    at = 0
    while isinstance(command, click.Group) and at < len(words):
        word = words[at]
        if word.startswith("-"):
            if word in ("-C", "-v"):
                at += 2 if word == "-C" else 1
                continue
            break
        sub = command.get_command(ctx, word)
        if sub is None:
            if re.fullmatch(r"[a-z][a-z-]+", word) and command is cli:
                return [f"no command {word!r}"]
            break
        ctx = click.Context(sub, info_name=word, parent=ctx)
        command = sub
        at += 1
    own = {o for p in command.params for o in [*getattr(p, "opts", []),
                                               *getattr(p, "secondary_opts", [])]}
    missing = []
    for word in words[at:]:
        if word == "--":
            break  # what follows belongs to another program (memx run -- pytest -x)
        for option in _OPTION.findall(word.split("=")[0]):
            if option not in own | allowed | {"--help"}:
                missing.append(f"{' '.join(words[:at]) or 'memx'} has no option {option}")
    return missing


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_command_and_option_the_docs_name_exists(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    bad = [f"{page.name}: `{line}`: {why}" for line in mentions(text) for why in problems(line)]
    assert bad == []


def test_the_check_finds_a_missing_option_and_command() -> None:
    assert problems("memx list --domain conventions") == ["list has no option --domain"]
    assert problems("memx frobnicate now") == ["no command 'frobnicate'"]
    assert problems("memx server status --json") == []
    assert problems("memx run -- pytest --lf") == []
    assert problems("memx feedback ID --helpful|--harmful") == []
