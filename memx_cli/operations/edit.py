"""Change and delete memories by hand: the verbs behind ``memx edit`` and ``memx rm``."""

from __future__ import annotations

from pathlib import Path

from memx_cli.clock import now_iso
from memx_cli.errors import InvalidMemoryError
from memx_cli.store import memory as memfmt
from memx_cli.store.files import Store, resolve
from memx_cli.store.memory import Memory
from memx_cli.store.repo import Repo


def remove(repo: Repo, prefix: str) -> tuple[Memory | None, Path]:
    """Delete one memory file (git keeps its history). A broken file can be removed too."""
    store, memory_id = resolve(repo.stores(), prefix)
    try:
        mem: Memory | None = store.read_file(store.path_for(memory_id))
    except InvalidMemoryError:
        mem = None
    return mem, store.remove(memory_id)


def apply_edit(store: Store, original: Memory, new_text: bytes) -> Memory | None:
    """Check an edited file and write it; None when nothing changed.

    Raises InvalidMemoryError (the original file untouched) when the edit is not valid.
    """
    if new_text == memfmt.dump(original):
        return None
    edited = memfmt.load(new_text, store.display(store.path_for(original.id)))
    if edited.id != original.id:
        raise InvalidMemoryError(f"the id cannot be changed by an edit (was {original.id})")
    if edited == original:
        return None
    if edited.updated_at == original.updated_at:
        edited = edited.replace(updated_at=now_iso())
    store.write(edited)
    return edited
