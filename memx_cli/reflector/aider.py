"""aider chat histories (``.aider.chat.history.md``) → turns (issue 24).

The file is Markdown that aider appends to as the chat goes: a session opens with
``# aider chat started at <time>``; what the user typed is on lines starting ``#### ``
(aider's own commands among them: ``#### /code``, ``#### /model …``); aider's notes
(token counts, "Applied edit to …", commits, lint output, shell commands it offers to run
and the user's y/n) are on lines starting ``> ``; everything else is the model's reply.

- the user's lines become one user turn, without aider's commands;
- aider's notes become a tool result: output, never anyone's statement;
- the model's reply becomes an assistant turn without its fenced code: the code is what
  it writes (a shell ``echo "Error: …"`` is not an error anyone saw), and the file is kept
  in git anyway.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from memx_cli.reflector.turn import Turn, clip

HEADER = "# aider chat started at"
COMMAND = re.compile(r"^/[a-z][\w-]*(?:\s|$)")  # /code, /ask, /model …: said to aider
FENCE = re.compile(r"^\s*(?:```|~~~)")
MAX_BLOCK_LINES = 400


def starts(line: str) -> bool:
    """Whether a history's first non-blank line is aider's."""
    return line.startswith(HEADER)


def turns(lines: Iterable[tuple[int, str]]) -> Iterator[Turn]:
    kind, start = "", 0
    block: list[str] = []
    for number, raw in lines:
        line = raw.rstrip()
        found = _kind(line, kind)
        if block and (found != kind or len(block) >= MAX_BLOCK_LINES):
            turn = _turn(kind, start, number - 1, block)
            if turn is not None:
                yield turn
            block = []
        if not block:
            start = number
        kind = found
        block.append(line)
    if block:
        turn = _turn(kind, start, start + len(block) - 1, block)
        if turn is not None:
            yield turn


def _kind(line: str, current: str) -> str:
    if line.startswith(HEADER):
        return "header"
    if line.startswith("####"):
        return "user"
    if line == ">" or line.startswith("> "):
        return "note"
    if not line.strip():
        return current or "assistant"  # a blank line belongs to the block it is in
    if current == "note":
        return "note"  # aider prefixes only the first line of a multi-line command it shows
    return "assistant"


def _turn(kind: str, start: int, end: int, block: list[str]) -> Turn | None:
    if kind == "user":
        said = [ln[4:].strip() for ln in block]
        text = "\n".join(ln for ln in said if not COMMAND.match(ln)).strip()
        return Turn(start, "user", clip(text), end=end) if text else None
    if kind == "note":
        text = "\n".join(ln[2:] for ln in block).strip()
        return Turn(start, "tool", clip(text), "tool_result", end=end) if text else None
    if kind == "assistant":
        text = _prose(block)
        return Turn(start, "assistant", clip(text), end=end) if text else None
    return None


def _prose(block: list[str]) -> str:
    """The reply without its fenced code blocks."""
    kept: list[str] = []
    fenced = False
    for line in block:
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(line)
    return "\n".join(kept).strip()
