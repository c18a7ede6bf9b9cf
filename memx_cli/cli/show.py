from __future__ import annotations

from typing import Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json, one_line
from memx_cli.jsonout import memory_json


@click.command("show")
@click.argument("memory_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the memory as JSON.")
@click.pass_obj
def show_cmd(state: State, memory_id: str, as_json: bool) -> None:
    """Show the memory whose id starts with ID, as stored in its file (archived ones
    too); then, as comment lines, the supersede chain it belongs to (oldest first) and
    what it conflicts with."""
    from memx_cli.curator.history import history
    from memx_cli.decay.sweep import resolve_archived
    from memx_cli.errors import NotFoundError

    memx = state.memx()
    repo = memx.repo
    try:
        store, mem = memx.get(memory_id)
        path = store.path_for(mem.id)
    except NotFoundError as missing:
        try:
            store, full_id = resolve_archived(repo, memory_id)
        except NotFoundError:
            raise missing from None
        path = store.path_for(full_id, archived=True)
        mem = store.read_file(path)
        memx.require_read(mem)
    past = history(repo, mem)
    if as_json:
        emit_json({"memory": memory_json(mem), "path": store.display(path),
                   "chain": [link.id for link in past.chain],
                   "conflicts": [link.id for link in past.conflicts]})
        return
    click.echo(f"# {store.display(path)}")
    click.echo(path.read_text(encoding="utf-8"), nl=False)
    _print_history(past, mem.id)


def _print_history(past: Any, shown: str) -> None:
    if past.empty:
        return
    if len(past.chain) > 1:
        click.echo("# supersede chain, oldest first:")
        for link in past.chain:
            click.echo(f"#   {_describe(link)}{'  (this memory)' if link.id == shown else ''}"
                       f"{'  (current)' if link is past.chain[-1] else ''}")
    if past.conflicts:
        click.echo("# conflicts with:")
        for link in past.conflicts:
            click.echo(f"#   {_describe(link)}")


def _describe(link: Any) -> str:
    if link.memory is None:
        return f"{link.id}  (missing)"
    where = "  (archived)" if link.archived else ""
    return f"{link.id}  {one_line(link.memory.content, 60)}{where}"
