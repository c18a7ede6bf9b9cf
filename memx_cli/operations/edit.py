"""Change and delete memories by hand: the verbs behind ``memx edit`` and ``memx rm``."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memx_cli.clock import now_iso
from memx_cli.curator.links import Dependant, dependants, repair
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
    return remove_memories(repo, [prefix], relink)[0]


def remove_memories(repo: Repo, prefixes: Sequence[str], relink: bool = False) -> list[Removal]:
    """Delete the memory files ``prefixes`` name, as ``remove_memory`` one: every id is
    resolved and every link checked before the first file goes, so an unknown id or a
    link without ``relink`` removes nothing. Links among the memories removed together
    need no mending (an id named twice is removed once)."""
    targets: dict[str, Store] = {}
    for prefix in prefixes:
        store, memory_id = resolve(repo.stores(), prefix)
        targets.setdefault(memory_id, store)
    if not relink:
        for memory_id in targets:
            found = _outside(repo, memory_id, targets)
            if found:
                listed = ", ".join(f"{d.memory.id} ({d.relation})" for d in found)
                raise LinkedMemoryError(
                    f"{memory_id} is linked from {listed}; pass --relink to mend their links "
                    "and remove it, or settle it first with memx resolve")
    done = []
    for memory_id, store in targets.items():
        try:
            mem: Memory | None = store.read_file(store.path_for(memory_id))
        except InvalidMemoryError:
            mem = None
        found = _outside(repo, memory_id, targets) if relink else []
        mended = repair(found, memory_id, mem)
        done.append(Removal(mem, store.remove(memory_id),
                            [(m, d.relation) for m, d in zip(mended, found)]))
    return done


def _outside(repo: Repo, memory_id: str, removed: Collection[str]) -> list[Dependant]:
    """The memories that link to ``memory_id`` and are not ``removed`` with it."""
    return [d for d in dependants(repo, memory_id) if d.memory.id not in removed]


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
    return draft_of(store, original.id, memfmt.dump(original))  # stored, so masked


def draft_of(store: Store, memory_id: str, data: bytes) -> Path:
    """``new_draft`` holding ``data``, the file's bytes as they are."""
    import os

    folder = store.local_dir / "edits"
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(1, 10_000):
        path = folder / (f"{memory_id}.yaml" if number == 1 else f"{memory_id}.{number}.yaml")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        return path
    raise MemxError(f"{store.display(folder)} holds too many drafts of {memory_id}; "
                    "remove the old ones")


def keep_draft(draft: Path, text: bytes) -> None:
    """Keep a refused edit for the user, its secrets masked (it sits in .memx/local/)."""
    write_text(draft, mask(text.decode("utf-8", "replace")))


@dataclass(frozen=True)
class Broken:
    """A memory file that does not parse, as ``memx edit`` opens it to be mended."""
    store: Store
    memory_id: str
    data: bytes     # the file's bytes when it was read
    problem: str    # why it does not parse, as memx validate says it


def broken(repo: Repo, prefix: str) -> Broken | None:
    """The memory file ``prefix`` names when it does not parse and can be mended in an
    editor; None when it parses, or when an editor is no help: a file a newer memx wrote
    (this one would drop what it does not know), too large, or not a regular file."""
    from memx_cli.errors import SchemaTooNewError
    from memx_cli.safeyaml import read_regular
    from memx_cli.store.files import MAX_FILE_BYTES

    store, memory_id = resolve(repo.stores(), prefix)
    path = store.path_for(memory_id)
    try:
        data = read_regular(path, MAX_FILE_BYTES, follow=False)
    except OSError:
        return None  # the ordinary read says what is wrong
    try:
        store.read_file(path, data)
    except SchemaTooNewError:
        return None
    except InvalidMemoryError as exc:
        return Broken(store, memory_id, data, str(exc))
    return None


def mend(found: Broken, text: bytes) -> Edited:
    """Write ``text`` over a broken memory file once it is a valid memory of the same id,
    masked like every write. Raises InvalidMemoryError when it is still not one, and
    ConcurrentChangeError when the file changed since it was read (nothing written)."""
    store, path = found.store, found.store.path_for(found.memory_id)
    mended = memfmt.load(text, store.display(path))
    if mended.id != found.memory_id:
        raise InvalidMemoryError(
            f"{store.display(path)}: the id must stay {found.memory_id}, the file's name")
    masked = store.write_over_broken(found.data, mended)
    kinds = new_kinds(memfmt.dump(mended).decode("utf-8"), memfmt.dump(masked).decode("utf-8"))
    return Edited(masked, tuple(kinds))
