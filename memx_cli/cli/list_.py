from __future__ import annotations

import click

from memx_cli.cli import State
from memx_cli.cli._output import (
    emit_json,
    link_marks,
    summary,
    terminal_width,
    warn_problems,
)
from memx_cli.jsonout import memory_json


@click.command("list")
@click.option("--kind", type=click.Choice(["fact", "policy"]), help="Only this kind.")
@click.option("--scope", help="Only this scope (global, project, workspace:NAME).")
@click.option("--tag", "tags", multiple=True, metavar="TAG",
              help="Only memories with this tag (repeatable: all must match).")
@click.option("--section", help="Only this section (commands, debugging, ...).")
@click.option("--json", "as_json", is_flag=True, help='Print {"memories": [...]} as JSON.')
@click.pass_obj
def list_cmd(state: State, kind: str | None, scope: str | None, tags: tuple[str, ...],
             section: str | None, as_json: bool) -> None:
    """List the memories this repository sees (its own and your global ones), oldest first.

    A memory the Curator linked to others says so: (superseded by ID), (supersedes ID),
    (conflicts with ID), the first 3 ids of a kind and a count of the rest.

    Files that cannot be read are reported on stderr and skipped.
    """
    from memx_cli.store.ids import abbreviate

    found, chosen, problems = state.memx().memories(kind=kind, scope=scope, tags=tags,
                                                    section=section)
    warn_problems(problems)
    if as_json:
        emit_json({"memories": [memory_json(m) for m in chosen]})
        return
    short = abbreviate(found)
    width = terminal_width()  # once: 10k lines asked for it 10k times (issue 15)
    # ids are as short as they can be, so their lengths differ: pad them to one column
    pad = max((len(short[mem.id]) for mem in chosen), default=0)
    lines = [summary(mem, short[mem.id].ljust(pad),
                     link_marks(mem.supersedes, mem.superseded_by, mem.conflicts_with, short),
                     width)
             for mem in chosen]
    if lines:
        click.echo("\n".join(lines))
    if not chosen and not problems:
        click.echo("No memories." if not found else "No memories match.", err=True)
