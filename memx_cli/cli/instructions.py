"""`memx import` of Markdown and agent instruction files: the printing half (the
command itself is in transfer.py, which sends Markdown paths here)."""

from __future__ import annotations

from pathlib import Path

import click

from memx_cli.cli import State
from memx_cli.cli._output import counted, emit_json, one_line
from memx_cli.jsonout import instructions_json


def import_markdown(state: State, paths: list[Path], raw: bool, dry_run: bool,
                    as_json: bool) -> None:
    # the role (MEMX_ROLE) and its grants, as for JSON imports
    found, results = state.memx().import_instructions(paths, raw=raw, dry_run=dry_run)
    fresh = [c for c in found if not c.present]
    if as_json:
        emit_json(instructions_json(found, results, dry_run))
        return
    policies = sum(c.kind == "policy" for c in fresh)
    present = len(found) - len(fresh)
    more = f", {present} already imported" if present else ""
    if dry_run:
        click.echo(f"Dry run: {len(fresh)} new items ({counted(policies, 'policy', 'policies')}, "
                   f"{counted(len(fresh) - policies, 'fact')}){more}; nothing written")
        for c in found:
            mark = "=" if c.present else "+"
            where = f"{c.path}:{c.item.line}"
            label = f"[{c.domain}]" if c.domain else ""
            click.echo(f"{mark} {c.kind:<6} {where:<28} {label} {one_line(c.item.text, 70)}")
        return
    if not fresh:
        click.echo(f"Nothing new to import ({present} items already imported)")
        return
    written = [r for r in results if r.action not in ("merged into", "skipped")]
    click.echo(f"Imported {counted(len(written), 'memory', 'memories')} "
               f"({counted(policies, 'policy', 'policies')}, {counted(len(fresh) - policies, 'fact')}){more}")
    for r in results:
        if r.action != "added":
            click.echo(f"  {r.message}: {one_line(r.memory.content, 60)}")
