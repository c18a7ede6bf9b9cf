"""Listing and settling conflicts (SPEC 3.2: `memx conflicts`, `memx resolve`).

``conflicts`` reports the conflicts recorded in the files and scans for contradictions
nobody recorded yet (memories written with ACE off, edited by hand or arriving through
git). The scan takes candidate pairs from the store's vector index (each memory's
nearest neighbours) rather than comparing every pair; without the model it pairs
memories that share words.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from memx_cli.curator import Settings, close_enough, comparable, load_similarity
from memx_cli.curator.contradiction import detect
from memx_cli.curator.similarity import Entry, Pool, Similarity
from memx_cli.fsutil import atomic_write
from memx_cli.store.files import Store
from memx_cli.store.memory import Memory, Problem
from memx_cli.store.queries import load_visible
from memx_cli.store.repo import Repo

NEIGHBOURS = 8
IGNORED_FILE = "not-conflicts.json"  # pairs marked "not a conflict", per clone (local/)


@dataclass(frozen=True)
class ConflictPair:
    older: Memory
    newer: Memory
    similarity: float | None
    why: str
    recorded: bool
    suggestion: str


def ignored_pairs(store: Store) -> set[tuple[str, str]]:
    try:
        data = json.loads((store.local_dir / IGNORED_FILE).read_bytes())
        return {(str(a), str(b)) for a, b in data}
    except (OSError, ValueError, TypeError):
        return set()


def ignore_pair(store: Store, a: str, b: str) -> None:
    with store.lock():
        pairs = ignored_pairs(store) | {tuple(sorted((a, b)))}  # type: ignore[arg-type]
        atomic_write(store.local_dir / IGNORED_FILE, json.dumps(sorted(pairs)).encode())


def _linked(a: Memory, b: Memory) -> bool:
    return (b.id in a.conflicts_with or a.id in b.conflicts_with or b.id in a.supersedes
            or a.id in b.supersedes or a.superseded_by == b.id or b.superseded_by == a.id)


def _suggest(older: Memory, newer: Memory, clear: bool) -> str:
    if clear:
        return f"memx resolve {newer.id} --supersede {older.id} --by {newer.id}"
    return (f"memx resolve {older.id} --keep {newer.id} (or --keep {older.id}, "
            f"or --not-conflict --with {newer.id})")


def _pair(a: Memory, b: Memory, sim: float | None, recorded: bool) -> ConflictPair | None:
    older, newer = sorted((a, b), key=lambda m: (m.created_at, m.id))
    found = detect(older.content, newer.content)
    if found is None and not recorded:
        return None
    why = found.why if found is not None else "recorded when the newer one was written"
    return ConflictPair(older, newer, sim, why, recorded,
                        _suggest(older, newer, found is not None and found.clear))


def _candidates(store: Store, entries: list[Entry], similarity: Similarity,
                spec: str | None) -> set[tuple[str, str]]:
    """Pairs of ids worth checking: vector-index neighbours, or shared words."""
    pairs: set[tuple[str, str]] = set()
    if similarity.encoder is not None:
        import numpy as np

        from memx_cli.index import StoreIndex, memory_key

        index = StoreIndex(store, spec)
        if index.sync(want_vectors=True).vectors and index.vectors.exists() and entries:
            by_key = {memory_key(e.memory.id): e.memory.id for e in entries}
            stored = index.vectors.get(list(by_key))
            if stored:
                keys = list(stored)
                found = index.vectors.search_many(np.stack([stored[k] for k in keys]),
                                                  NEIGHBOURS + 1)
                for key, near in zip(keys, found):
                    for neighbour in near:
                        if neighbour in by_key and neighbour != key:
                            pair = sorted((by_key[key], by_key[neighbour]))
                            pairs.add((pair[0], pair[1]))
                return pairs
    pool = Pool(Similarity(None))
    for entry in entries:
        for other, _ in pool.nearest(Entry(entry.memory, entry.words), 0.0, NEIGHBOURS,
                                     keep=lambda e: True):
            pair = sorted((entry.memory.id, other.memory.id))
            pairs.add((pair[0], pair[1]))
        pool.add(Entry(entry.memory, entry.words))
    return pairs


Progress = Callable[[str, int, int], None]


def conflicts(repo: Repo, scan: bool = True) -> tuple[list[ConflictPair], list[Problem]]:
    """Recorded conflicts, then (``scan``) contradictions found among similar memories."""
    problems, pairs = iter_conflicts(repo, scan)
    result = sorted(pairs, key=lambda p: (not p.recorded, p.older.id, p.newer.id))
    return result, problems


def iter_conflicts(repo: Repo, scan: bool = True, progress: Progress | None = None
                   ) -> tuple[list[Problem], Iterator[ConflictPair]]:
    """The files' problems, and the conflicts as they are found: the recorded ones first,
    then (``scan``) contradictions among similar memories, checked candidate pair by
    candidate pair (``progress("checking", done, total)``), so a caller can show the first
    ones while a large store is still being read."""
    found, problems = load_visible(repo)
    return problems, _found(repo, found, scan, progress)


def _found(repo: Repo, found: list[tuple[Store, Memory]], scan: bool,
           progress: Progress | None) -> Iterator[ConflictPair]:
    similarity = load_similarity(repo)
    settings = Settings.from_config(repo.config)
    by_id = {m.id: m for _, m in found}
    entries = {e.memory.id: e for e in similarity.entries([m for _, m in found])}
    recorded: list[ConflictPair] = []
    seen: set[tuple[str, str]] = set()
    for mem in by_id.values():
        for other_id in mem.conflicts_with:
            key = tuple(sorted((mem.id, other_id)))
            if other_id in by_id and key not in seen:
                seen.add(key)  # type: ignore[arg-type]
                sim = similarity.score(entries[mem.id], entries[other_id])
                pair = _pair(mem, by_id[other_id], sim, recorded=True)
                if pair is not None:
                    recorded.append(pair)
    yield from sorted(recorded, key=lambda p: (p.older.id, p.newer.id))
    if not scan:
        return
    spec = repo.config["embedding.model"]
    for store in repo.stores():
        live = [entries[m.id] for s, m in found if s is store and not m.superseded_by]
        skip = ignored_pairs(store)
        candidates = sorted(_candidates(store, live, similarity, spec))
        for done, (a_id, b_id) in enumerate(candidates, 1):
            if progress is not None:
                progress("checking similar pairs", done, len(candidates))
            a, b = by_id[a_id], by_id[b_id]
            if (a_id, b_id) in skip or not comparable(a, b) or _linked(a, b):
                continue
            sim = similarity.score(entries[a_id], entries[b_id])
            if sim >= settings.band[0] or close_enough(a.content, b.content):
                pair = _pair(a, b, sim, recorded=False)
                if pair is not None:
                    yield pair


def cause(pair: ConflictPair) -> str:
    """What a group of conflicts has in common: the reason without its two values
    (``different values for "timeout"``)."""
    return pair.why.split(": ", 1)[0]
