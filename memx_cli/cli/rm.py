from __future__ import annotations

import sys

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json, one_line
from memx_cli.store.memory import Memory


@click.command("rm")
@click.argument("memory_id", metavar="ID")
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--relink", is_flag=True,
              help="Also mend the links of memories that point at it (supersede chain, "
                   "conflicts); without it such a memory is not removed.")
@click.option("--json", "as_json", is_flag=True, help="Print what was removed as JSON.")
@click.pass_obj
def rm_cmd(state: State, memory_id: str, yes: bool, relink: bool, as_json: bool) -> None:
    """Delete the memory whose id starts with ID (git history keeps the file).

    Asks first unless -y is given. A memory that others link to (it superseded or was
    superseded by one, or conflicts with one) is refused with the list of those memories,
    unless --relink: then the older memory of a chain points at the newer one, the newer
    supersedes what the removed one superseded, and recorded conflicts are dropped.
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
    done = memx.remove_memory(memory_id, relink)
    path = done.path
    shown = repo.store.display(path)
    if as_json:
        data: dict[str, object] = {"removed": {"id": path.stem, "path": shown}}
        if done.relinked:
            data["relinked"] = [{"id": m.id, "was": how} for m, how in done.relinked]
        emit_json(data)
        return
    for mem, how in done.relinked:
        click.echo(f"Relinked {_mended(mem, how, path.stem)}")
    click.echo(f"Removed {path.stem} ({shown})")


def _mended(mem: Memory, how: str, removed: str) -> str:
    if how == "superseded by it":
        now = f"superseded by {mem.superseded_by}" if mem.superseded_by else "current again"
        return f"{mem.id}: was superseded by {removed}, now {now}"
    if how == "supersedes it":
        return f"{mem.id}: no longer supersedes {removed}"
    return f"{mem.id}: no longer conflicts with {removed}"
