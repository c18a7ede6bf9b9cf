"""The links the Curator writes between memories (supersedes, superseded_by,
conflicts_with): who points at a memory, mending them when it is removed, and links that
point at nothing (issue 12: `memx rm` never leaves a dangling link, `memx validate`
reports one)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from memx_cli.clock import now_iso
from memx_cli.errors import InvalidMemoryError
from memx_cli.store.files import Store
from memx_cli.store.memory import Memory
from memx_cli.store.repo import Repo


@dataclass(frozen=True)
class Dependant:
    """A memory that points at another one."""

    store: Store
    memory: Memory
    archived: bool
    relation: str  # "superseded by it", "supersedes it" or "conflicts with it"


def every_memory(repo: Repo) -> Iterator[tuple[Store, Memory, bool]]:
    """Each readable memory of every visible store, archived ones too."""
    for store in repo.stores():
        for archived in (False, True):
            for path in store.files(archived):
                try:
                    yield store, store.read_file(path), archived
                except InvalidMemoryError:
                    continue  # `memx validate` reports broken files


def relation(mem: Memory, target: str) -> str | None:
    if mem.superseded_by == target:
        return "superseded by it"
    if target in mem.supersedes:
        return "supersedes it"
    if target in mem.conflicts_with:
        return "conflicts with it"
    return None


def dependants(repo: Repo, target: str) -> list[Dependant]:
    """Memories that link to ``target`` (not counting ``target`` itself)."""
    found = []
    for store, mem, archived in every_memory(repo):
        said = relation(mem, target) if mem.id != target else None
        if said is not None:
            found.append(Dependant(store, mem, archived, said))
    return found


def unlinked(mem: Memory, removed: str, removed_memory: Memory | None) -> Memory:
    """``mem`` with its links to the removed memory mended: an older memory that it
    superseded is superseded by what superseded it (or is current again); a newer one
    supersedes what it superseded; a conflict with it is dropped."""
    gone = removed_memory
    successor = gone.superseded_by if gone is not None and gone.superseded_by != mem.id else None
    superseded_by = successor if mem.superseded_by == removed else mem.superseded_by
    supersedes: list[str] = []
    for older in mem.supersedes:
        if older != removed:
            supersedes.append(older)
        elif gone is not None:
            supersedes.extend(i for i in gone.supersedes if i != mem.id)
    return mem.replace(
        superseded_by=superseded_by,
        supersedes=tuple(dict.fromkeys(supersedes)),
        conflicts_with=tuple(i for i in mem.conflicts_with if i != removed),
        updated_at=now_iso(),
    )


def repair(found: list[Dependant], removed: str, removed_memory: Memory | None) -> list[Memory]:
    """Write every dependant with its links to ``removed`` mended; returns them."""
    written = []
    for dep in found:
        fixed = unlinked(dep.memory, removed, removed_memory)
        dep.store.write(fixed, archived=dep.archived)
        written.append(fixed)
    return written


def dangling(repo: Repo) -> list[tuple[Store, Memory, bool, str, str]]:
    """(store, memory, archived, field, id) for each link to a memory that no visible
    store holds, in memories/ or archive/."""
    known: set[str] = set()
    linked = []
    for store, mem, archived in every_memory(repo):
        known.add(mem.id)
        linked.append((store, mem, archived))
    found = []
    for store, mem, archived in linked:
        pairs = [("superseded_by", mem.superseded_by)] if mem.superseded_by else []
        pairs += [("supersedes", i) for i in mem.supersedes]
        pairs += [("conflicts_with", i) for i in mem.conflicts_with]
        found += [(store, mem, archived, field, i) for field, i in pairs if i not in known]
    return found
