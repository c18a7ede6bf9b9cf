"""Shared output helpers: JSON shapes and one-line memory summaries."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

import click

from memx_cli.command.base import emit_json, json_text, link_marks, one_line, terminal_width
from memx_cli.store.memory import Memory, Problem

__all__ = ["counted", "emit_json", "emit_json_rows", "link_marks", "one_line", "read_text_arg",
           "summary", "terminal_width", "warn_problems"]


def counted(count: int, one: str, many: str | None = None) -> str:
    """"1 memory", "2 memories": a count with its noun in the right number."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def emit_json_rows(payload: dict[str, Any], key: str, rows: Iterable[Any]) -> None:
    """``emit_json`` of ``payload`` with its ``key`` set to ``rows``, the same text, written a
    row at a time: a list as long as a history is never held whole, nor its JSON."""
    text = json_text({**payload, key: []}, indent=2)
    head, tail = text.split(f"\n  {json_text(key)}: []", 1)
    click.echo(f"{head}\n  {json_text(key)}: [", nl=False)
    first = True
    for row in rows:
        lines = json_text(row, indent=2).split("\n")
        click.echo(("\n" if first else ",\n") + "\n".join("    " + line for line in lines),
                   nl=False)
        first = False
    click.echo("]" if first else "\n  ]", nl=False)
    click.echo(tail)


def short_ids(repo: Any, ids: Iterable[str]) -> dict[str, str]:
    """The shortest prefix of each of ``ids`` that no other memory of the stores ``repo``
    sees shares, so ``memx show`` and ``memx review --accept`` take it as printed (ids made
    in one burst, as an ingest's, can share their first 12 characters)."""
    from memx_cli.store.ids import abbreviate

    wanted = list(ids)
    known = [memory_id for store in repo.stores() for memory_id in store.ids()]
    return abbreviate([*known, *wanted], wanted=wanted)


def summary(mem: Memory, short_id: str, marks: str = "", width: int | None = None) -> str:
    """One line for ``mem``, cut to ``width`` (the terminal's when not given: a caller
    printing many lines asks once, not per line)."""
    tags = f" [{', '.join(mem.tags)}]" if mem.tags else ""
    head = f"{short_id}  {mem.kind:<6} {mem.scope:<8}"
    width = terminal_width() if width is None else width
    room = max(width - len(head) - len(tags) - len(marks) - 2, 20)
    return f"{head} {one_line(mem.content, room)}{tags}{marks}"


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
