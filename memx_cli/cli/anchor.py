from __future__ import annotations

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json


@click.command("anchor")
@click.argument("memory_id", metavar="ID")
@click.argument("paths", nargs=-1, required=True, metavar="PATH[:START[-END]]...")
@click.option("--json", "as_json", is_flag=True, help='Print {"id", "added": [...]} as JSON.')
@click.pass_obj
def anchor_cmd(state: State, memory_id: str, paths: tuple[str, ...], as_json: bool) -> None:
    """Anchor memory ID to files of the repository, or to lines of them.

    PATH is relative to the current directory; PATH:12 anchors line 12 and
    PATH:12-30 lines 12 to 30. Searches then check that the passage is still there
    (verified), has changed (stale) or cannot be checked (unverifiable). Paths outside
    the repository, or through a symlink leading out of it, are refused.
    """
    from memx_cli.anchors.anchor import label
    from memx_cli.store.ids import abbreviate

    memx = state.memx()
    repo = memx.repo
    mem, added = memx.attach_anchors(memory_id, paths, state.cwd)
    short = abbreviate(p.stem for store in repo.stores() for p in store.files())[mem.id]
    if as_json:
        emit_json({"id": mem.id, "added": [a.to_dict() for a in added],
                   "anchors": [a.to_dict() for a in mem.anchors]})
        return
    if not added:
        click.echo(f"{short}: already anchored there; nothing changed")
    for anchor in added:
        click.echo(f"{short}: anchored to {label(anchor.path, anchor.start_line, anchor.end_line)}")
