from __future__ import annotations

import click

from . import State
from ._output import emit_json, memory_json


@click.command("show")
@click.argument("memory_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the memory as JSON.")
@click.pass_obj
def show_cmd(state: State, memory_id: str, as_json: bool) -> None:
    """Show the memory whose id starts with ID, as stored in its file."""
    from ..manage import find

    store, mem = find(state.repo(), memory_id)
    path = store.path_for(mem.id)
    if as_json:
        emit_json({"memory": memory_json(mem), "path": store.display(path)})
        return
    click.echo(f"# {store.display(path)}")
    click.echo(path.read_text(encoding="utf-8"), nl=False)
