from __future__ import annotations

from typing import Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json, one_line, read_text_arg


@click.command("remember")
@click.argument("text")
@click.option("--session", metavar="NAME", help="The session saying it (default: "
              "$MEMX_SESSION, else 'cli').")
@click.option("--mark", is_flag=True, help="Promote it at the next consolidate even if it "
              "does not recur.")
@click.option("--json", "as_json", is_flag=True, help='Print {"remembered": {...}}.')
@click.pass_obj
def remember_cmd(state: State, text: str, session: str | None, mark: bool,
                 as_json: bool) -> None:
    """Keep TEXT for this session in .memx/local/ (never committed; - reads stdin).

    `memx consolidate` promotes it to a fact once it recurs (remembered in two or more
    sessions) or when it is marked.
    """
    from memx_cli.jsonout import item_json

    item = state.memx(session=session).remember(read_text_arg(text), mark)
    if as_json:
        emit_json({"remembered": item_json(item)})
    else:
        click.echo(f"{item.id}  seen {item.count}x in {len(item.sessions)} session(s)"
                   f"{', marked' if item.marked else ''}")


@click.command("consolidate")
@click.option("--dry-run", is_flag=True, help="Show what would change; change nothing.")
@click.option("--json", "as_json", is_flag=True, help='Print {"consolidated": {...}}.')
@click.pass_obj
def consolidate_cmd(state: State, dry_run: bool, as_json: bool) -> None:
    """Promote recurring or marked session items to facts, merge near-duplicate facts
    (the other one is superseded, never deleted) and prune stale session items."""
    from memx_cli.operations.session import consolidation_json

    report = state.memx().consolidate(dry_run=dry_run)
    if as_json:
        emit_json({"consolidated": consolidation_json(report)})
        return
    verb = "would " if dry_run else ""
    written: list[Any] = list(report.written) or [None] * len(report.promote)
    for item, result in zip(report.promote, written):
        how = f" -> {result.memory.id} ({result.message})" if result is not None else ""
        click.echo(f"{verb}promote: {one_line(item.text, 60)}{how}")
    for kept, gone in report.merged:
        click.echo(f"{verb}merge: {gone} into {kept}")
    click.echo(f"{len(report.promote)} promoted, {len(report.merged)} merged, "
               f"{len(report.pruned)} pruned, {report.kept} session item(s) kept"
               + (" (dry run)" if dry_run else ""))
