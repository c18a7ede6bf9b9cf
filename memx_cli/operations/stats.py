"""``memx stats``: what the memory holds and how it is ageing (SPEC 3.3, SPEC 7)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from memx_cli.decay.sweep import weigh
from memx_cli.operations.feedback import harmful_heavy
from memx_cli.store import recall
from memx_cli.store.memory import Memory, Problem
from memx_cli.store.repo import Repo

# Weight histogram bins: [low, high), the last one closed at 1.0.
BINS = ((0.0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 1.0))
TOP = 5


@dataclass(frozen=True)
class Recalled:
    memory: Memory
    count: int
    last: str


@dataclass
class Stats:
    total: int = 0
    archived: int = 0
    by: dict[str, dict[str, int]] = field(default_factory=dict)  # kind, scope, section, ...
    histogram: list[tuple[str, int]] = field(default_factory=list)
    due: int = 0              # under the archive threshold now: the next sweep moves them
    threshold: float = 0.0
    conflicts: int = 0        # open conflict pairs recorded in the files
    superseded: int = 0
    harmful: list[Memory] = field(default_factory=list)
    top_recalled: list[Recalled] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _count(values: list[str | None]) -> dict[str, int]:
    counts = Counter(v or "(none)" for v in values)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _bin(weight: float) -> int:
    for number, (low, high) in enumerate(BINS):
        if low <= weight < high:
            return number
    return len(BINS) - 1


def collect(repo: Repo) -> Stats:
    repo.require_store()
    weighed, problems = weigh(repo)
    memories = [w.memory for w in weighed]
    stats = Stats(total=len(memories), problems=problems)
    stats.threshold = float(repo.config["ace.decay.archive_threshold"])
    stats.archived = sum(len(s.files(archived=True)) for s in repo.stores())
    stats.by = {
        "kind": _count([m.kind for m in memories]),
        "scope": _count([m.scope for m in memories]),
        "section": _count([m.section for m in memories]),
        "type": _count([m.type for m in memories]),
        "memory_type": _count([m.memory_type for m in memories]),
    }
    bins = [0] * len(BINS)
    for item in weighed:
        bins[_bin(item.weight)] += 1
    stats.histogram = [(f"{low:.1f}-{high:.1f}", n) for (low, high), n in zip(BINS, bins)]
    stats.due = sum(1 for w in weighed if w.memory.kind != "policy"
                    and (w.expired or w.weight < stats.threshold))
    ids = {m.id for m in memories}
    pairs = {tuple(sorted((m.id, other))) for m in memories for other in m.conflicts_with
             if other in ids}
    stats.conflicts = len(pairs)
    stats.superseded = sum(1 for m in memories if m.superseded_by)
    stats.harmful = sorted((m for m in memories if harmful_heavy(m)),
                           key=lambda m: (-m.feedback.get("harmful", 0), m.id))
    by_id = {m.id: m for m in memories}
    recalled = []
    for store in repo.stores():
        for memory_id, (count, last) in recall.load(store).items():
            if memory_id in by_id and count > 0:
                recalled.append(Recalled(by_id[memory_id], count, last))
    recalled.sort(key=lambda r: (-r.count, r.memory.id))
    stats.top_recalled = recalled[:TOP]
    return stats
