from __future__ import annotations

import sys

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json, one_line
from memx_cli.store.memory import Memory


@click.command("rm")
@click.argument("memory_ids", metavar="ID...", nargs=-1, required=True)
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--relink", is_flag=True,
              help="Also mend the links of memories that point at one (supersede chain, "
                   "conflicts); without it such a memory is not removed.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"removed": [{"id", "path"}]}; a memory whose links to another '
                   'were mended also carries "relinked", a list of the memories it mended, '
                   'each with its "id" and what it linked to before ("was").')
@click.pass_obj
def rm_cmd(state: State, memory_ids: tuple[str, ...], yes: bool, relink: bool,
           as_json: bool) -> None:
    """Delete the memories whose ids start with each ID (git history keeps the files).

    Every ID is resolved first: an unknown or ambiguous one removes nothing. Asks first
    unless -y is given. A memory that others link to (it superseded or was superseded by
    one, or conflicts with one) is refused with the list of those memories, and nothing
    is removed, unless --relink: then the older memory of a chain points at the newer
    one, the newer supersedes what the removed one superseded, and recorded conflicts
    are dropped. Links among the memories removed together need no --relink.
    """
    from memx_cli.errors import InvalidMemoryError, MemxError
    from memx_cli.store.files import resolve

    memx = state.memx()
    repo = memx.repo
    if not yes:
        if not sys.stdin.isatty():
            raise MemxError("not deleting without confirmation: stdin is not a terminal; pass -y")
        shown = []
        for store, full_id in dict.fromkeys(resolve(repo.stores(), i) for i in memory_ids):
            try:
                what = repr(one_line(store.read_file(store.path_for(full_id)).content, 60))
            except InvalidMemoryError:
                what = "(a file that does not parse)"
            shown.append(f"{full_id}: {what}")
        if len(shown) > 1:
            click.echo("\n".join(shown))
        click.confirm(f"Delete {shown[0]}?" if len(shown) == 1 else
                      f"Delete these {len(shown)} memories?", abort=True)
    done = memx.remove_memories(memory_ids, relink)
    if as_json:
        removed = []
        for one in done:
            entry: dict[str, object] = {"id": one.path.stem, "path": repo.store.display(one.path)}
            if one.relinked:
                entry["relinked"] = [{"id": m.id, "was": how} for m, how in one.relinked]
            removed.append(entry)
        emit_json({"removed": removed})
        return
    for one in done:
        for mem, how in one.relinked:
            click.echo(f"Relinked {_mended(mem, how, one.path.stem)}")
        click.echo(f"Removed {one.path.stem} ({repo.store.display(one.path)})")


def _mended(mem: Memory, how: str, removed: str) -> str:
    if how == "superseded by it":
        now = f"superseded by {mem.superseded_by}" if mem.superseded_by else "current again"
        return f"{mem.id}: was superseded by {removed}, now {now}"
    if how == "supersedes it":
        return f"{mem.id}: no longer supersedes {removed}"
    return f"{mem.id}: no longer conflicts with {removed}"
