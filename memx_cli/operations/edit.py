"""Change and delete memories by hand: the verbs behind ``memx edit`` and ``memx rm``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memx_cli.clock import now_iso
from memx_cli.curator.links import dependants, repair
from memx_cli.errors import InvalidMemoryError, LinkedMemoryError, MemxError
from memx_cli.fsutil import write_text
from memx_cli.privacy import mask, new_kinds
from memx_cli.store import memory as memfmt
from memx_cli.store.files import Store, resolve
from memx_cli.store.memory import Memory
from memx_cli.store.repo import Repo


@dataclass(frozen=True)
class Removal:
    memory: Memory | None           # None: the file did not parse
    path: Path
    relinked: list[tuple[Memory, str]] = field(default_factory=list)  # (mended, relation)


def remove_memory(repo: Repo, prefix: str, relink: bool = False) -> Removal:
    """Delete one memory file (git keeps its history). A broken file can be removed too.

    A memory other memories link to (a supersede chain, a recorded conflict) is only
    removed with ``relink``, which mends their links first (curator.links.unlinked);
    otherwise LinkedMemoryError names them and nothing changes.
    """
    store, memory_id = resolve(repo.stores(), prefix)
    try:
        mem: Memory | None = store.read_file(store.path_for(memory_id))
    except InvalidMemoryError:
        mem = None
    found = dependants(repo, memory_id)
    if found and not relink:
        listed = ", ".join(f"{d.memory.id} ({d.relation})" for d in found)
        raise LinkedMemoryError(
            f"{memory_id} is linked from {listed}; pass --relink to mend their links and "
            f"remove it, or settle it first with memx resolve")
    mended = repair(found, memory_id, mem)
    path = store.remove(memory_id)
    return Removal(mem, path, [(m, d.relation) for m, d in zip(mended, found)])


def remove(repo: Repo, prefix: str, relink: bool = False) -> tuple[Memory | None, Path]:
    """``remove_memory`` as (memory, path)."""
    done = remove_memory(repo, prefix, relink)
    return done.memory, done.path


@dataclass(frozen=True)
class Edited:
    memory: Memory  # as stored: masked
    masked: tuple[str, ...]  # kinds of the secrets the privacy gate took out of the edit


def apply_edit(store: Store, original: Memory, new_text: bytes) -> Edited | None:
    """Check an edited file and write it, masked; None when nothing changed.

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
    # The editor may have been open for minutes: a Curator merge or a vote made
    # meanwhile is merged in, or the edit is refused (issue 14). The store's privacy
    # gate masks what it writes.
    written = store.write_over(original, edited)
    masked = store.masker(edited)  # the same mask again, to say what it did
    kinds = new_kinds(memfmt.dump(edited).decode("utf-8"), memfmt.dump(masked).decode("utf-8"))
    return Edited(written, tuple(kinds))


def new_draft(store: Store, original: Memory) -> Path:
    """A draft file of its own for one edit session, holding ``original``: ``ID.yaml``
    in ``local/edits/``, or ``ID.2.yaml``, ``ID.3.yaml``... when it is taken. A refused
    edit kept earlier, or an edit of the same memory open in another terminal, is never
    overwritten."""
    import os

    folder = store.local_dir / "edits"
    folder.mkdir(parents=True, exist_ok=True)
    data = memfmt.dump(original)  # already stored, already masked
    for number in range(1, 10_000):
        path = folder / (f"{original.id}.yaml" if number == 1 else f"{original.id}.{number}.yaml")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        return path
    raise MemxError(f"{store.display(folder)} holds too many drafts of {original.id}; "
                    "remove the old ones")


def keep_draft(draft: Path, text: bytes) -> None:
    """Keep a refused edit for the user, its secrets masked (it sits in .memx/local/)."""
    write_text(draft, mask(text.decode("utf-8", "replace")))
