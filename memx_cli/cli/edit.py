from __future__ import annotations

import os

import click

from memx_cli.cli import State


@click.command("edit")
@click.argument("memory_id", metavar="ID")
@click.pass_obj
def edit_cmd(state: State, memory_id: str) -> None:
    """Open the memory whose id starts with ID in $VISUAL / $EDITOR.

    The edited file is validated when the editor exits. An invalid edit is refused:
    the memory file is left as it was and your edited text is kept in .memx/local/
    so nothing you typed is lost.
    """
    from memx_cli.errors import InvalidMemoryError
    from memx_cli.fsutil import atomic_write
    from memx_cli.store.memory import dump

    memx = state.memx()
    store, original = memx.editable(memory_id)
    draft = store.local_dir / "edits" / f"{original.id}.yaml"
    atomic_write(draft, dump(original))
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    click.edit(filename=str(draft), editor=editor)
    try:
        edited = memx.apply_edit(store, original, draft.read_bytes())
    except InvalidMemoryError as exc:
        raise InvalidMemoryError(
            f"edit refused, memory unchanged: {exc} (your text is in {store.display(draft)})"
        ) from None
    draft.unlink()
    click.echo("No changes." if edited is None else f"Updated {original.id}")
