"""Settling a conflict (SPEC 3.2, `memx resolve`): keep one, supersede, or mark the pair
as not a conflict. Every outcome is a change to the two memory files (written under one
lock when they share a store); nothing is deleted."""

from __future__ import annotations

from dataclasses import dataclass

from memx_cli.clock import now_iso
from memx_cli.curator.review import ignore_pair
from memx_cli.errors import MemxError
from memx_cli.store.files import Store
from memx_cli.store.memory import Memory
from memx_cli.store.queries import find
from memx_cli.store.repo import Repo


@dataclass(frozen=True)
class Resolution:
    action: str                       # "supersedes" or "not a conflict"
    pairs: list[tuple[str, str]]      # (winner or first, loser or second)
    memories: list[Memory]            # every memory written


def _unlink(mem: Memory, other: str) -> Memory:
    return mem.replace(conflicts_with=tuple(i for i in mem.conflicts_with if i != other))


def _write(changed: dict[str, tuple[Store, Memory]], originals: dict[str, Memory]) -> list[Memory]:
    """Write every memory that differs from what was read, one lock per store; a change
    another process made since the read is merged in (issue 14: no lost update)."""
    by_store: dict[int, tuple[Store, list[Memory]]] = {}
    for memory_id, (store, mem) in changed.items():
        if mem != originals[memory_id]:
            by_store.setdefault(id(store), (store, []))[1].append(mem)
    written = []
    for store, group in by_store.values():
        with store.lock():
            written += [store.write_over(originals[mem.id], mem) for mem in group]
    return written


def _supersede(changed: dict[str, tuple[Store, Memory]], old_id: str, new_id: str,
               stamp: str) -> None:
    old_store, old = changed[old_id]
    new_store, new = changed[new_id]
    if old.superseded_by and old.superseded_by != new.id:
        raise MemxError(f"{old.id} is already superseded by {old.superseded_by}")
    changed[old_id] = (old_store, _unlink(old, new.id).replace(superseded_by=new.id,
                                                               updated_at=stamp))
    supersedes = new.supersedes + (() if old.id in new.supersedes else (old.id,))
    changed[new_id] = (new_store, _unlink(new, old.id).replace(supersedes=supersedes,
                                                               updated_at=stamp))


def resolve(repo: Repo, memory_id: str | None = None, *, keep: str | None = None,
            supersede: str | None = None, by: str | None = None, not_conflict: bool = False,
            other: str | None = None) -> Resolution:
    modes = [keep is not None, supersede is not None or by is not None, not_conflict]
    if sum(modes) != 1:
        raise MemxError("choose one: --keep ID, --supersede OLD --by NEW, or --not-conflict")
    if (supersede is None) != (by is None):
        raise MemxError("--supersede OLD needs --by NEW (and --by needs --supersede)")
    if memory_id is None and supersede is None:
        raise MemxError("name the memory: memx resolve ID ...")
    changed: dict[str, tuple[Store, Memory]] = {}
    originals: dict[str, Memory] = {}

    def load(prefix: str) -> Memory:
        store, mem = find(repo, prefix)
        originals.setdefault(mem.id, mem)
        changed.setdefault(mem.id, (store, mem))
        return changed[mem.id][1]

    target = load(memory_id) if memory_id is not None else None
    stamp = now_iso()
    if supersede is not None and by is not None:
        old, new = load(supersede), load(by)
        if old.id == new.id:
            raise MemxError("a memory cannot supersede itself")
        if target is not None and target.id not in (old.id, new.id):
            raise MemxError(f"{target.id} is neither {old.id} nor {new.id}")
        _supersede(changed, old.id, new.id, stamp)
        return Resolution("supersedes", [(new.id, old.id)], _write(changed, originals))
    assert target is not None
    if keep is not None:
        kept = load(keep)
        losers = [target.id] if kept.id != target.id else list(target.conflicts_with)
        if not losers:
            raise MemxError(f"{target.id} has no recorded conflicts; to retire another "
                            "memory use --supersede OLD --by NEW")
        for loser in losers:
            load(loser)
            _supersede(changed, loser, kept.id, stamp)
        return Resolution("supersedes", [(kept.id, loser) for loser in losers],
                          _write(changed, originals))
    partners = [load(other).id] if other is not None else list(target.conflicts_with)
    if not partners:
        raise MemxError(f"{target.id} has no recorded conflicts; name the other memory "
                        "with --with ID")
    store = changed[target.id][0]
    for partner in partners:
        load(partner)
        for a, b in ((target.id, partner), (partner, target.id)):
            owner, mem = changed[a]
            if b in mem.conflicts_with:
                changed[a] = (owner, _unlink(mem, b).replace(updated_at=stamp))
        ignore_pair(store, target.id, partner)
    return Resolution("not a conflict", [(target.id, p) for p in partners],
                      _write(changed, originals))
