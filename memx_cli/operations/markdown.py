"""Markdown split into the items `memx import` turns into memories (issue 18).

One item per top-level list item (its nested items and continuation lines included), per
paragraph, per table and per fenced code block; a code block right after an item that
introduces it ("Run the tests with:") is kept whole inside that item. Each item carries
the line it starts on and the headings above it. YAML front matter (Cursor ``.mdc``,
Windsurf rules) is read separately; HTML comments, horizontal rules and CLAUDE.md
``@path`` imports are not items.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_LIST = re.compile(r"^( *)([-*+]|\d{1,3}[.)])\s+(.*)$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_RULE = re.compile(r"^ {0,3}([-*_])( *\1){2,} *$")
_IMPORT = re.compile(r"^@\S+$")  # CLAUDE.md: "@docs/style.md" pulls in another file


@dataclass(frozen=True)
class Item:
    line: int  # 1-based line of the file where the item starts
    kind: str  # "bullet", "paragraph", "table" or "code"
    text: str
    headings: tuple[str, ...]
    levels: tuple[int, ...] = ()  # each heading's level (1 for "#")


def front_matter(text: str) -> tuple[dict[str, Any], str, int]:
    """(front matter, the rest, lines the front matter took) for text starting ``---``."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, text, 0
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            from memx_cli import safeyaml

            try:  # a committed instruction file: bounded like every YAML memx reads
                data = safeyaml.loads("".join(lines[1:end]))
            except safeyaml.YamlInputError:
                data = None
            return (data if isinstance(data, dict) else {}), "".join(lines[end + 1:]), end + 1
    return {}, text, 0


def _strip_comments(lines: list[str]) -> list[str]:
    out, inside = [], False
    for line in lines:
        if inside:
            if "-->" in line:
                inside = False
            out.append("")
            continue
        if line.lstrip().startswith("<!--"):
            inside = "-->" not in line
            out.append("")
            continue
        out.append(line)
    return out


def items(text: str, first_line: int = 1) -> list[Item]:
    lines = _strip_comments(text.splitlines())
    found: list[Item] = []
    headings: list[tuple[int, str]] = []
    current: list[str] = []
    start, kind = 0, ""
    fence: str | None = None

    def flush() -> None:
        nonlocal current, kind
        body = "\n".join(current).strip("\n")
        if body.strip():
            found.append(Item(start + first_line, kind, body, tuple(h for _, h in headings),
                              tuple(level for level, _ in headings)))
        current, kind = [], ""

    for number, line in enumerate(lines):
        if fence is not None:
            current.append(line)
            if line.strip().startswith(fence):
                fence = None
                if kind == "code":
                    flush()
            continue
        opening = _FENCE.match(line)
        if opening:
            fence = opening.group(1)
            said = [c for c in current if c.strip()]
            introduced = kind in ("bullet", "paragraph") and bool(said) and \
                said[-1].rstrip().endswith(":")
            if not introduced and not (kind == "bullet" and line.startswith(" ")):
                flush()
                start, kind = number, "code"
            current.append(line)
            continue
        if not line.strip():
            if kind == "bullet" or (kind == "paragraph" and current[-1].rstrip().endswith(":")):
                current.append("")  # a code block may follow that belongs to it
            elif kind in ("paragraph", "table"):
                flush()
            continue
        if kind == "paragraph" and current[-1] == "":
            flush()
        heading = _HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            headings = [h for h in headings if h[0] < level] + [(level, heading.group(2))]
            continue
        if _RULE.match(line) or _IMPORT.match(line.strip()):
            flush()
            continue
        listed = _LIST.match(line)
        if listed and not listed.group(1):
            flush()
            start, kind = number, "bullet"
            current.append(listed.group(3))
            continue
        if kind == "bullet" and (line.startswith(" ") or line.startswith("\t")
                                 or (current and current[-1] != "")):
            current.append(line.strip() if not listed else line.rstrip())
            continue
        if line.lstrip().startswith("|"):
            if kind != "table":
                flush()
                start, kind = number, "table"
            current.append(line.rstrip())
            continue
        if kind != "paragraph":
            flush()
            start, kind = number, "paragraph"
        current.append(line.strip())
    flush()
    return [_tidy(i) for i in found]


def _tidy(item: Item) -> Item:
    lines = item.text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    # A blank line kept inside a bullet only matters before more of it; squeeze runs.
    out: list[str] = []
    for line in lines:
        if line == "" and out and out[-1] == "":
            continue
        out.append(line)
    return Item(item.line, item.kind, "\n".join(out), item.headings, item.levels)
