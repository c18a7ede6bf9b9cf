"""Path arguments read as `memx -C PATH` says: "as if memx was started in PATH".

A relative path given with -C names a file under that directory, as with `git -C`; the
commands that resolved theirs against the process's own directory (import, ingest,
validate's existence check) read another file than the ones that used -C (anchor,
run, export --output).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from memx_cli.command.base import State


def from_start(value: str, ctx: click.Context | None) -> str:
    """``value`` joined to -C's directory when it is relative and -C moved the start;
    ``-`` (standard input) and every path without -C as given."""
    state = ctx.find_object(State) if ctx is not None else None
    if state is None or value in ("", "-") or os.path.isabs(value) or state.cwd == Path.cwd():
        return value
    return os.path.join(state.cwd, value)


class StartPath(click.Path):
    """``click.Path`` on the path as -C reads it (its checks included)."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            value = from_start(value, ctx)
        return super().convert(value, param, ctx)
