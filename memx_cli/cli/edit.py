from __future__ import annotations

import os
from typing import Any

import click

from memx_cli.cli import State


@click.command("edit")
@click.argument("memory_id", metavar="ID")
@click.pass_obj
def edit_cmd(state: State, memory_id: str) -> None:
    """Open the memory whose id starts with ID in $VISUAL / $EDITOR.

    The edited file is validated when the editor exits, and secrets in it are masked
    like on every write (standard error names their kinds). An invalid edit is refused:
    the memory file is left as it was and your edited text is kept (masked) in
    .memx/local/edits/ so nothing you typed is lost; each edit has a draft of its own,
    so a later edit, or one open in another terminal, never overwrites it.
    A change made to the memory while the editor was open (a vote, a merge) is kept;
    if it changed a field you changed too, the edit is refused the same way.
    """
    memx = state.memx()
    original, edited = edit_in_editor(memx, memory_id)
    click.echo("No changes." if edited is None else f"Updated {original.id}")


def edit_in_editor(memx: Any, memory_id: str) -> tuple[Any, Any]:
    """The memory in $VISUAL / $EDITOR, validated and masked as every write is;
    (original, edited or None). Also `memx review --edit`'s path."""
    from memx_cli.errors import InvalidMemoryError, MemxError
    from memx_cli.operations.edit import keep_draft, new_draft
    from memx_cli.store.merge3 import ConcurrentChangeError

    store, original = memx.editable(memory_id)
    draft = new_draft(store, original)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        click.edit(filename=str(draft), editor=editor)
    except KeyboardInterrupt:
        draft.unlink(missing_ok=True)  # the memory is untouched; no draft to keep
        raise
    except click.ClickException as exc:  # could not start, or exited non-zero: an abort
        draft.unlink(missing_ok=True)
        why = (f"cannot run the editor {editor!r} (set VISUAL or EDITOR)"
               if isinstance(exc.__cause__, OSError)
               else f"the editor {editor!r} exited with an error")
        raise MemxError(f"{why}; memory unchanged") from None
    text = draft.read_bytes()
    try:
        edited = memx.apply_edit(store, original, text)
    except (InvalidMemoryError, ConcurrentChangeError) as exc:
        keep_draft(draft, text)
        raise type(exc)(
            f"edit refused, memory unchanged: {exc} (your text is in {store.display(draft)})"
        ) from None
    draft.unlink()
    if edited is not None and edited.masked:
        count = len(edited.masked)
        click.echo(f"memx: masked {count} secret{'s' if count > 1 else ''} in the edit: "
                   f"{', '.join(sorted(set(edited.masked)))}", err=True)
    return original, edited
