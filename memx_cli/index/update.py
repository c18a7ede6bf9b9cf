"""What an index update must do: compare memory files with the manifest's rows and
plan which memories to index again (SPEC 9, issue 15).

A full comparison looks at every scanned file; an update after memx's own writes looks
at the written ids only, and reads from the manifest just their rows and those of their
source groups, so its cost follows the change, not the store.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from memx_cli.errors import InvalidMemoryError
from memx_cli.freshness.scan import Seen
from memx_cli.index.keys import source_group
from memx_cli.index.manifest import FileState, Manifest
from memx_cli.safeyaml import read_regular
from memx_cli.store.files import Store, Written
from memx_cli.store.memory import Memory

Progress = Callable[[int, int], None]
# The memories of some ids as the index holds them (documents.stored_memories).
Indexed = Callable[[Collection[str]], Mapping[str, Memory]]
# Their times (created_at) only (documents.stored_times).
Dated = Callable[[Collection[str]], Mapping[str, str]]


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:20]


@dataclass
class Plan:
    """The outcome of a comparison: rows to write, ids to drop, what to index again."""

    upserts: dict[str, FileState] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    changed: set[str] = field(default_factory=set)
    added: int = 0  # changed files indexed now and not before (new, or mended)
    broken: int = 0  # changed files that do not parse: a problem, neither added nor changed
    memories: dict[str, Memory] = field(default_factory=dict)
    states: dict[str, FileState] = field(default_factory=dict)  # every id to index
    members: dict[str, list[str]] = field(default_factory=dict)  # group -> ids
    # What to index again: the changed memories and the neighbours whose context they
    # change (issue 29: not a whole session for one turn added to it).
    reindex: set[str] = field(default_factory=set)
    # Members' times (created_at) taken from the index's documents, for the order only.
    times: dict[str, str] = field(default_factory=dict)


def compare(store: Store, manifest: Manifest, seen: dict[str, Seen],
            only: Collection[str] | None, progress: Progress | None,
            written: Mapping[str, Written] | None = None,
            indexed: Indexed | None = None, dated: Dated | None = None) -> Plan:
    """Compare ``seen`` (or its ids in ``only``) with the manifest; read and parse the
    files whose stat and then content changed. ``written``: what this process just
    wrote, taken as it is (no read, no parse) while the file is still that write.
    ``indexed``: the memories of unchanged files as the index holds them, for the
    neighbours of a changed one (else their files are read)."""
    plan = Plan()
    gone: set[str] = set()
    if only is None:
        # Whole rows only for what differs from the scan: building one per memory
        # costs more than the comparison.
        known = manifest.stats()
        only = [i for i, now in seen.items() if known.get(i) != now]
        gone = known.keys() - seen.keys()
    old_files = manifest.rows([*only, *gone])
    candidates = [*only, *gone]
    total = len(candidates)
    for done, memory_id in enumerate(candidates, 1):
        old = old_files.get(memory_id)
        now = seen.get(memory_id)
        if now is None:
            if old is not None:
                plan.removed.add(memory_id)
            continue
        mtime_ns, size, archived = now
        if (old is not None and old.mtime_ns == mtime_ns and old.size == size
                and old.archived == archived):
            plan.states[memory_id] = old
            continue
        path = store.path_for(memory_id, archived)
        mine = _still(written.get(memory_id) if written else None, path, now)
        unreadable: InvalidMemoryError | None = None
        try:
            # A FIFO swapped in since the scan must never block.
            data = mine.data if mine is not None else read_regular(path, follow=False)
        except FileNotFoundError:
            if old is not None:
                plan.removed.add(memory_id)
            continue
        except OSError as exc:  # a link, a FIFO, over the size limit: a problem to tell
            data, unreadable = b"", store.unreadable(path, exc)
        digest = _digest(data)
        if (unreadable is None and old is not None and old.digest == digest
                and old.archived == archived):
            state = FileState(mtime_ns, size, digest, archived, old.group, old.created)
            plan.states[memory_id] = plan.upserts[memory_id] = state
            continue
        try:
            if unreadable is not None:
                raise unreadable
            mem = mine.memory if mine is not None else store.read_file(path, data)
            state = file_state(mtime_ns, size, digest, archived, mem)
            plan.memories[memory_id] = mem
        except InvalidMemoryError as exc:
            state = FileState(mtime_ns, size, "!" + str(exc), archived, None)
        plan.states[memory_id] = plan.upserts[memory_id] = state
        plan.changed.add(memory_id)
        if memory_id not in plan.memories:
            plan.broken += 1
        elif old is None or old.digest.startswith("!"):
            plan.added += 1
        if progress is not None:
            progress(done, total)
    _plan_groups(store, manifest, plan, old_files, indexed, dated)
    return plan


def file_state(mtime_ns: int, size: int, digest: str, archived: bool,
               mem: Memory) -> FileState:
    """The row of a memory file that parsed: its group, and its time when in one."""
    group = source_group(mem.source)
    return FileState(mtime_ns, size, digest, archived, group,
                     mem.created_at if group is not None else None)


def _still(mine: Written | None, path: Path, now: Seen) -> Written | None:
    """``mine`` when the file at ``path`` is still the one this process wrote (same
    inode, time and size as right after the write, and as the scan saw it)."""
    if mine is None or now[2] or (mine.mtime_ns, mine.size) != now[:2]:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return mine if (st.st_ino, st.st_mtime_ns, st.st_size) == mine[2:] else None


def _plan_groups(store: Store, manifest: Manifest, plan: Plan,
                 old_files: dict[str, FileState], indexed: Indexed | None = None,
                 dated: Dated | None = None) -> None:
    """Neighbours of a changed memory get new context text (and vectors): the changed
    memories are indexed again with the neighbours whose context window moved
    (``_near_changes``), not whole groups. Unchanged members are taken from ``dated``
    and ``indexed`` (the index holds them as their manifest rows say), and read from
    their files only when it has not them."""
    moved = plan.changed | plan.removed
    groups = {old_files[i].group for i in moved if i in old_files}
    groups |= {plan.states[i].group for i in plan.changed}
    groups.discard(None)
    rows = manifest.members(g for g in groups if g is not None) if groups else {}
    before = dict(rows)  # the groups' members as the index has them
    for memory_id in moved:
        rows.pop(memory_id, None)  # as they are now, below
    for memory_id in plan.changed:
        state = plan.states[memory_id]
        if state.group in groups and not state.digest.startswith("!"):
            rows[memory_id] = state
    for memory_id, state in rows.items():
        plan.members.setdefault(state.group or "", []).append(memory_id)
        plan.states.setdefault(memory_id, state)
    members = [i for i in sorted(plan.changed | rows.keys())
               if not plan.states[i].digest.startswith("!")]
    # The group's order needs each member's time, its documents the memories of the
    # changed ones and of their neighbours: the times of the others come from their
    # manifest rows (the files are the ones indexed), else from the index's documents
    # (issue 29: not a check of every member of a long session, nor a fetch of its
    # stored documents).
    for memory_id in members:
        created = rows[memory_id].created if memory_id in rows else None
        if created and memory_id not in plan.memories:
            plan.times[memory_id] = created
    undated = [i for i in members if i not in plan.memories and i not in plan.times]
    if dated is not None and undated:
        plan.times.update(dated(undated))
    _load(store, plan, [i for i in members if i not in plan.times], indexed)
    plan.reindex = plan.changed | _near_changes(plan, before, moved, indexed)
    _load(store, plan, _windows(plan), indexed)


def _load(store: Store, plan: Plan, ids: Collection[str], indexed: Indexed | None) -> None:
    """The memories of ``ids`` the plan lacks: from ``indexed``, else their files."""
    wanted = [i for i in ids if i not in plan.memories]
    if wanted and indexed is not None:
        plan.memories.update(indexed(wanted))
    for memory_id in wanted:
        state = plan.states[memory_id]
        if memory_id not in plan.memories:
            with contextlib.suppress(InvalidMemoryError, OSError):
                plan.memories[memory_id] = store.read_file(
                    store.path_for(memory_id, state.archived))


def _windows(plan: Plan) -> set[str]:
    """The members within ``CONTEXT_WINDOW`` of a memory to index again: the memories
    its document's context is made of."""
    from memx_cli.index.documents import CONTEXT_WINDOW, order_key

    found: set[str] = set()
    for member_ids in plan.members.values():
        order = sorted(member_ids, key=order_key(plan.memories, plan.times))
        for at, memory_id in enumerate(order):
            if memory_id in plan.reindex:
                found.update(order[max(0, at - CONTEXT_WINDOW):at + CONTEXT_WINDOW + 1])
    return found


def _near_changes(plan: Plan, before: dict[str, FileState], moved: set[str],
                  indexed: Indexed | None) -> set[str]:
    """The unchanged members whose indexed context a change alters: those within
    ``CONTEXT_WINDOW`` of a changed memory in their group's new order, or of a changed
    or removed one in its old order (where the index has its old version). Any other
    member's window holds the same unchanged memories before and after, so its document
    stays as it is. A group whose old order is not known is taken whole."""
    from memx_cli.index.documents import CONTEXT_WINDOW, order_key

    olds = [i for i in moved if i in before]
    old_versions = indexed(olds) if olds and indexed is not None else {}
    near: set[str] = set()
    for group, member_ids in plan.members.items():
        old_ids = [i for i, row in before.items() if row.group == group]
        if any(i in moved and i not in old_versions for i in old_ids):
            near.update(member_ids)  # a changed member's old place is unknown
            continue
        was = {**plan.memories, **{i: old_versions[i] for i in old_ids if i in moved}}
        times = {i: t for i, t in plan.times.items() if i not in moved}
        found: set[str] = set()
        for order, changed in ((sorted(member_ids, key=order_key(plan.memories, plan.times)),
                                plan.changed),
                               (sorted(old_ids, key=order_key(was, times)), moved)):
            for at, memory_id in enumerate(order):
                if memory_id in changed:
                    found.update(order[max(0, at - CONTEXT_WINDOW):at + CONTEXT_WINDOW + 1])
        near |= found & set(member_ids)
    return near - plan.changed
