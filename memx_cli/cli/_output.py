"""Shared output helpers: JSON shapes and one-line memory summaries."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import click

from memx_cli.store.memory import Memory, Problem


def counted(count: int, one: str, many: str | None = None) -> str:
    """"1 memory", "2 memories": a count with its noun in the right number."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def emit_json(payload: dict[str, Any]) -> None:
    """Every JSON output is an object with a top-level key, so it can grow."""
    click.echo(json.dumps(payload, ensure_ascii=False, indent=2))


def emit_json_rows(payload: dict[str, Any], key: str, rows: Iterable[Any]) -> None:
    """``emit_json`` of ``payload`` with its ``key`` set to ``rows``, the same text, written a
    row at a time: a list as long as a history is never held whole, nor its JSON."""
    text = json.dumps({**payload, key: []}, ensure_ascii=False, indent=2)
    head, tail = text.split(f"\n  {json.dumps(key, ensure_ascii=False)}: []", 1)
    click.echo(f"{head}\n  {json.dumps(key, ensure_ascii=False)}: [", nl=False)
    first = True
    for row in rows:
        lines = json.dumps(row, ensure_ascii=False, indent=2).split("\n")
        click.echo(("\n" if first else ",\n") + "\n".join("    " + line for line in lines),
                   nl=False)
        first = False
    click.echo("]" if first else "\n  ]", nl=False)
    click.echo(tail)


def one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(width - 1, 1)] + "…"


def terminal_width() -> int:
    return shutil.get_terminal_size((100, 20)).columns


def summary(mem: Memory, short_id: str, marks: str = "", width: int | None = None) -> str:
    """One line for ``mem``, cut to ``width`` (the terminal's when not given: a caller
    printing many lines asks once, not per line)."""
    tags = f" [{', '.join(mem.tags)}]" if mem.tags else ""
    head = f"{short_id}  {mem.kind:<6} {mem.scope:<8}"
    width = terminal_width() if width is None else width
    room = max(width - len(head) - len(tags) - len(marks) - 2, 20)
    return f"{head} {one_line(mem.content, room)}{tags}{marks}"


def link_marks(supersedes: Sequence[str], superseded_by: str | None,
               conflicts_with: Sequence[str], short: Mapping[str, str]) -> str:
    """" (superseded by ID)", " (supersedes ID)", " (conflicts with ID)": the Curator's
    links of one memory, ids as ``short`` abbreviates them (issue 12)."""
    def ids(many: Sequence[str]) -> str:
        return ", ".join(short.get(i, i) for i in many)

    marks = [f"superseded by {ids([superseded_by])}"] if superseded_by else []
    marks += [f"supersedes {ids(supersedes)}"] if supersedes else []
    marks += [f"conflicts with {ids(conflicts_with)}"] if conflicts_with else []
    return "".join(f" ({m})" for m in marks)


def warn_problems(problems: Iterable[Problem | str], what: str = "skipped") -> None:
    for problem in problems:
        click.echo(f"memx: warning: {problem} ({what})", err=True)


def read_text_arg(value: str) -> str:
    """A TEXT argument, or standard input when it is ``-``; refuses binary input."""
    if value != "-":
        return value
    data = sys.stdin.buffer.read()
    if b"\x00" in data:
        raise click.UsageError("standard input is binary, not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise click.UsageError("standard input is not UTF-8 text") from None
