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

    A memory file that does not parse (a hand edit gone wrong, a conflict resolved by
    hand) opens as it is, and is written back once it is a valid memory of the same id.
    """
    memx = state.memx()
    found = memx.mendable(memory_id)
    if found is not None:
        mend_in_editor(found)
        return
    original, edited = edit_in_editor(memx, memory_id)
    click.echo("No changes." if edited is None else f"Updated {original.id}")


def _run_editor(draft: Any) -> None:
    """Open ``draft`` in $VISUAL / $EDITOR; an editor that cannot start or fails is an
    abort that leaves the memory unchanged and takes the draft away."""
    from memx_cli.errors import MemxError

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


def _refused(exc: Exception, draft: Any, text: bytes, store: Any) -> Exception:
    """The error of an edit refused: the memory unchanged, the user's text kept."""
    from memx_cli.operations.edit import keep_draft

    keep_draft(draft, text)
    return type(exc)(
        f"edit refused, memory unchanged: {exc} (your text is in {store.display(draft)})")


def mend_in_editor(found: Any) -> None:
    """A memory file that does not parse (a hand edit gone wrong, a conflict resolved by
    hand) opened as it is; written back once it is a valid memory of the same id."""
    from memx_cli.errors import InvalidMemoryError
    from memx_cli.operations.edit import draft_of, mend
    from memx_cli.store.merge3 import ConcurrentChangeError

    click.echo(f"memx: {found.problem}; opening the file as it is to mend it", err=True)
    draft = draft_of(found.store, found.memory_id, found.data)
    _run_editor(draft)
    text = draft.read_bytes()
    if text == found.data:
        draft.unlink()
        raise InvalidMemoryError(f"{found.problem}; the file is unchanged, still not valid")
    try:
        mended = mend(found, text)
    except (InvalidMemoryError, ConcurrentChangeError) as exc:
        raise _refused(exc, draft, text, found.store) from None
    draft.unlink()
    if mended.masked:
        _say_masked(mended.masked)
    click.echo(f"Mended {found.memory_id}: a valid memory again")


def _say_masked(kinds: tuple[str, ...]) -> None:
    count = len(kinds)
    click.echo(f"memx: masked {count} secret{'s' if count > 1 else ''} in the edit: "
               f"{', '.join(sorted(set(kinds)))}", err=True)


def edit_in_editor(memx: Any, memory_id: str) -> tuple[Any, Any]:
    """The memory in $VISUAL / $EDITOR, validated and masked as every write is;
    (original, edited or None). Also `memx review --edit`'s path."""
    from memx_cli.errors import InvalidMemoryError
    from memx_cli.operations.edit import new_draft
    from memx_cli.store.merge3 import ConcurrentChangeError

    store, original = memx.editable(memory_id)
    draft = new_draft(store, original)
    _run_editor(draft)
    text = draft.read_bytes()
    try:
        edited = memx.apply_edit(store, original, text)
    except (InvalidMemoryError, ConcurrentChangeError) as exc:
        raise _refused(exc, draft, text, store) from None
    draft.unlink()
    if edited is not None and edited.masked:
        _say_masked(edited.masked)
    return original, edited
