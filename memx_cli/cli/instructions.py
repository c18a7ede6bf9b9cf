"""`memx import` of Markdown and agent instruction files: the printing half (the
command itself is in transfer.py, which sends Markdown paths here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import counted, emit_json, one_line


def import_markdown(state: State, paths: list[Path], raw: bool, dry_run: bool,
                    as_json: bool) -> None:
    from memx_cli.operations.instructions import import_instructions
    from memx_cli.operations.write import ace_enabled

    memx = state.memx()  # the role (MEMX_ROLE) and its grants, as for JSON imports
    repo = memx.repo
    check = None
    if memx.role is not None:
        guard = memx.guard()

        def check(c: Any) -> None:
            guard.require_write(c.domain, f"importing a {c.kind}", kind=c.kind)

    found, results = import_instructions(repo, paths, dry_run=dry_run,
                                         raw=not ace_enabled(repo, raw), check=check)
    fresh = [c for c in found if not c.present]
    if as_json:
        emit_json({"dry_run": dry_run, "items": [
            {"file": c.path, "line": c.item.line, "kind": c.kind, "domain": c.domain,
             "tags": list(c.tags), "block": c.item.kind, "content": c.item.text,
             "present": c.present} for c in found],
            "results": [{"id": r.memory.id, "action": r.action, "other": r.other,
                         "message": r.message} for r in results]})
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
