from __future__ import annotations

import sys

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json


@click.command("import")
@click.argument("file", type=click.File("rb"))
@click.option("--raw", is_flag=True, help="ACE off: store contents verbatim, with no "
              "extraction, no dedup and NO secret sanitizing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def import_cmd(state: State, file: object, raw: bool, as_json: bool) -> None:
    """Import memories from FILE (- for standard input): a JSON array of objects, an
    object {"memories": [...]}, or JSONL (one object per line).

    Each object needs "content"; "tags", "source", "created_at", "kind", "scope",
    "domain", "topic", "veracity", "tools", "entities", "section", "type" and "id" are
    optional. "source" is kept verbatim. Every record is checked before anything is
    written; a record whose id already exists is skipped. Without --raw each record goes
    through the curator like `memx add`: duplicates are merged, contradictions recorded.
    """
    from memx_cli.cli._output import one_line
    from memx_cli.operations.write import ace_enabled

    memx = state.memx()
    results, skipped = memx.import_records(file, raw=not ace_enabled(memx.repo, raw))
    # New files: added, or added with a supersede / conflict link to an existing memory.
    written = [r for r in results if r.action not in ("merged into", "skipped")]
    if as_json:
        emit_json({"imported": [r.memory.id for r in written], "skipped": skipped,
                   "results": [{"id": r.memory.id, "action": r.action, "other": r.other,
                                "message": r.message} for r in results]})
        return
    more = f", {skipped} already present" if skipped else ""
    folded = len(results) - len(written)
    more += f", {folded} folded into existing memories" if folded else ""
    click.echo(f"Imported {len(written)} memories{more}")
    for r in results:
        if r.action != "added":
            click.echo(f"  {r.message}: {one_line(r.memory.content, 60)}")


@click.command("export")
@click.option("--format", "fmt", type=click.Choice(["json", "jsonl", "markdown"]),
              default="json", show_default=True, help="Output format.")
@click.option("--include-archived", is_flag=True, help="Also export archived memories.")
@click.pass_obj
def export_cmd(state: State, fmt: str, include_archived: bool) -> None:
    """Write every memory this repository sees to standard output.

    JSON is {"memories": [...]}; `memx import` reads all three machine formats back.
    """
    from memx_cli.cli._output import warn_problems
    from memx_cli.operations.transfer import export_text

    memories, problems = state.memx().export(include_archived)
    warn_problems(problems)
    for chunk in export_text(memories, fmt):
        sys.stdout.write(chunk)
