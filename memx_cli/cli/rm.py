from __future__ import annotations

import sys

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json, one_line


@click.command("rm")
@click.argument("memory_id", metavar="ID")
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--json", "as_json", is_flag=True, help="Print what was removed as JSON.")
@click.pass_obj
def rm_cmd(state: State, memory_id: str, yes: bool, as_json: bool) -> None:
    """Delete the memory whose id starts with ID (git history keeps the file).

    Asks first unless -y is given.
    """
    from memx_cli.errors import InvalidMemoryError, MemxError
    from memx_cli.store.files import resolve

    memx = state.memx()
    repo = memx.repo
    if not yes:
        if not sys.stdin.isatty():
            raise MemxError("not deleting without confirmation: stdin is not a terminal; pass -y")
        store, full_id = resolve(repo.stores(), memory_id)
        try:
            what = repr(one_line(store.read_file(store.path_for(full_id)).content, 60))
        except InvalidMemoryError:
            what = "(a file that does not parse)"
        click.confirm(f"Delete {full_id}: {what}?", abort=True)
    _mem, path = memx.remove(memory_id)
    shown = repo.store.display(path)
    if as_json:
        emit_json({"removed": {"id": path.stem, "path": shown}})
    else:
        click.echo(f"Removed {path.stem} ({shown})")
