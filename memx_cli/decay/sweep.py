"""The decay sweep (SPEC 3.3): archive the memories the forgetting curve has let go.

``sweep`` computes every memory's weight (its type's curve, its recalls in this clone,
``valid_until``) and moves the ones under ``ace.decay.archive_threshold`` from
``memories/`` to ``archive/``; ``restore`` moves one back. Nothing is ever deleted: the
copy is written (atomically) before the original is removed, under the store lock, so
a crash leaves the memory in one place or both, never in neither. Both are ordinary
file changes to review and commit.

Policies are not swept: they are rules every agent gets, not facts that fade.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memx_cli.clock import now, now_iso
from memx_cli.decay.curve import DecayCurves, age_days, is_expired
from memx_cli.errors import AmbiguousIdError, NotFoundError, shown
from memx_cli.fsutil import atomic_write, fsync_dir
from memx_cli.store import recall
from memx_cli.store.files import Store
from memx_cli.store.ids import normalize_prefix
from memx_cli.store.memory import Memory, Problem, dump
from memx_cli.store.repo import Repo


@dataclass(frozen=True)
class Weighed:
    """One memory's place on its forgetting curve."""

    memory: Memory
    store: Store
    weight: float
    age_days: float
    recalls: int
    expired: bool

    @property
    def reason(self) -> str:
        if self.expired:
            return f"expired (valid_until {self.memory.valid_until})"
        return (f"weight {self.weight:.3f} after {self.age_days:.0f} days, "
                f"{self.recalls} recall{'s' if self.recalls != 1 else ''}")


@dataclass(frozen=True)
class SweepReport:
    threshold: float
    checked: int
    moved: list[Weighed]
    dry_run: bool
    problems: list[Problem]


def weigh_store(store: Store, curves: DecayCurves) -> tuple[list[Weighed], list[Problem]]:
    """Every live memory of ``store`` with its current weight."""
    moment = now()
    recalls = recall.load(store)
    loaded = store.load_all()
    found = []
    for mem in loaded.memories:
        record = {"updated_at": mem.updated_at, "created_at": mem.created_at,
                  "valid_until": mem.valid_until}
        age = age_days(record, moment)
        count = recalls.get(mem.id, (0, ""))[0]
        expired = is_expired(record, moment)
        weight = curves.weight(mem.memory_type, age, count, expired)
        found.append(Weighed(mem, store, weight, age, count, expired))
    return found, loaded.problems


def weigh(repo: Repo) -> tuple[list[Weighed], list[Problem]]:
    curves = DecayCurves.from_config(repo.config)
    everything: list[Weighed] = []
    problems: list[Problem] = []
    for store in repo.stores():
        found, bad = weigh_store(store, curves)
        everything.extend(found)
        problems.extend(bad)
    return everything, problems


def _move(source: Path, target: Path) -> None:
    """One rename: at every moment exactly one of the two files exists (a copy, then
    a removal, left a memory both archived and live when killed between; issue 14)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)
    fsync_dir(target.parent)
    fsync_dir(source.parent)


def sweep(repo: Repo, dry_run: bool = False) -> SweepReport:
    repo.require_store()
    threshold = float(repo.config["ace.decay.archive_threshold"])
    weighed, problems = weigh(repo)
    due = [w for w in weighed if w.memory.kind != "policy"
           and (w.expired or w.weight < threshold)]
    due.sort(key=lambda w: (w.weight, w.memory.id))
    if not dry_run:
        for item in due:
            store = item.store
            with store.lock():
                source = store.path_for(item.memory.id)
                if source.exists():
                    _move(source, store.path_for(item.memory.id, archived=True))
    return SweepReport(threshold, len(weighed), due, dry_run, problems)


def resolve_archived(repo: Repo, prefix: str) -> tuple[Store, str]:
    key = normalize_prefix(prefix)
    found = [(s, i) for s in repo.stores()
             for i in s.matching_ids(key, archived=True)] if key else []
    if not found:
        raise NotFoundError(f"no archived memory matches {shown(prefix)}; see memx sweep --dry-run "
                            "and .memx/archive/")
    if len(found) > 1:
        raise AmbiguousIdError(f"id prefix {shown(prefix)} matches {len(found)} archived memories; "
                               "type more characters")
    return found[0]


def restore(repo: Repo, prefix: str) -> tuple[Memory, Path]:
    """Move an archived memory back to ``memories/``. Its ``updated_at`` becomes now, so
    it starts its forgetting curve again instead of being swept at the next run; a
    ``valid_until`` that has passed is dropped, or the memory would stay hidden from
    search and be archived again by the next sweep (restoring it says it holds again)."""
    repo.require_store()
    store, memory_id = resolve_archived(repo, prefix)
    source = store.path_for(memory_id, archived=True)
    mem = store.read_file(source)
    target = store.path_for(memory_id)
    moment = now()
    until = mem.valid_until if not is_expired({"valid_until": mem.valid_until}, moment) else None
    revived = mem.replace(updated_at=now_iso(), valid_until=until)
    with store.lock():
        # Renewed in place, then moved in one rename: never both archived and live.
        atomic_write(source, dump(revived), tmp_dir=store.tmp_dir)
        _move(source, target)
    return revived, target
