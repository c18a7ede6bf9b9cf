"""Listing and settling conflicts (SPEC 3.2: `memx conflicts`, `memx resolve`).

``conflicts`` reports the conflicts recorded in the files and scans for contradictions
nobody recorded yet (memories written with ACE off, edited by hand or arriving through
git). The scan takes candidate pairs from the store's vector index (each memory's
nearest neighbours) rather than comparing every pair; without the model it pairs
memories that share words.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memx_cli.clock import parse_timestamp
from memx_cli.curator import Settings, close_enough, comparable, load_similarity
from memx_cli.curator.contradiction import detect
from memx_cli.curator.similarity import Entry, Pool, Similarity
from memx_cli.fsutil import atomic_write
from memx_cli.store.files import Store
from memx_cli.store.memory import Memory
from memx_cli.store.repo import Repo

if TYPE_CHECKING:
    from memx_cli.index import StoreIndex
    from memx_cli.index.listing import Entry as Listed

NEIGHBOURS = 8
# Memories searched (or, without vectors, candidate pairs checked) before the first
# check; each next block is twice as large (issue 27: the first line soon at 5k)
FIRST_BLOCK = 64
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


def _by_change(a: Memory, b: Memory, recorded: bool) -> tuple[Memory, Memory]:
    """The older and the newer version: the one changed last is newer.

    A merge's conflict copy holds the other side's text as it was at its created_at; the
    memory it was copied from holds this side's, changed last at its updated_at (the merge
    keeps the later of the two sides' times: equal, the copy's edit was the later one). A
    conflict the Curator recorded is older and newer as written (recording it stamps the
    older one's updated_at). Other pairs go by updated_at (an edit, a restatement)."""
    from memx_cli.store.ids import is_copy_of

    for copy, original in ((a, b), (b, a)):
        if recorded and is_copy_of(copy, original):
            later = parse_timestamp(original.updated_at) > parse_timestamp(copy.created_at)
            return (copy, original) if later else (original, copy)
    if recorded:
        older, newer = sorted((a, b), key=lambda m: (parse_timestamp(m.created_at), m.id))
    else:
        older, newer = sorted((a, b), key=lambda m: (parse_timestamp(m.updated_at),
                                                     parse_timestamp(m.created_at), m.id))
    return older, newer


def _pair(a: Memory, b: Memory, sim: float | None, recorded: bool) -> ConflictPair | None:
    older, newer = _by_change(a, b, recorded)
    found = detect(older.content, newer.content)
    if found is None and not recorded:
        return None
    why = found.why if found is not None else "recorded when the newer one was written"
    return ConflictPair(older, newer, sim, why, recorded,
                        _suggest(older, newer, found is not None and found.clear))


class _Entries:
    """The memories as the Curator compares them, made when first needed, a batch at a
    time: the first pairs of a large store are shown before every memory is embedded
    (the model embeds a text alike alone or in a batch)."""

    def __init__(self, similarity: Similarity, by_id: _Known):
        self.similarity = similarity
        self.by_id = by_id
        self._made: dict[str, Entry] = {}

    def prepare(self, ids: Iterable[str]) -> None:
        missing = list(dict.fromkeys(i for i in ids if i not in self._made))
        if missing:
            made = self.similarity.entries([self.by_id[i] for i in missing])
            self._made.update(zip(missing, made))

    def __getitem__(self, memory_id: str) -> Entry:
        if memory_id not in self._made:
            self.prepare([memory_id])
        return self._made[memory_id]


def _candidates(store: Store, entries: list[Entry], similarity: Similarity,
                spec: str | None) -> set[tuple[str, str]]:
    """Pairs of ids worth checking: vector-index neighbours, or shared words."""
    if similarity.encoder is not None:
        from memx_cli.index import StoreIndex

        index = StoreIndex(store, spec)
        pairs: set[tuple[str, str]] = set()
        searched = False
        for listed, held in _neighbours(index, index.sync(want_vectors=True).vectors,
                                        [e.memory.id for e in entries]):
            searched = searched or held
            pairs.update(pair for own in listed for pair in own)
        if searched:
            return pairs
    return _sharing_words(entries)


def _neighbours(index: StoreIndex, vectors: bool, ids: list[str]
                ) -> Iterator[tuple[list[list[tuple[str, str]]], bool]]:
    """Candidate pairs of ``ids``: each one's nearest neighbours among them in the vector
    index. The memories are searched in id order, a block at a time (the first of
    ``FIRST_BLOCK``, each next one twice as large), so that the first pairs are checked
    before the rest are searched (issue 27: the search of all 5k memories cost 0.5 s of
    CPU before the first line). Yields per block each memory's pairs not listed before
    (a pair is listed where its first memory to name the other is searched, the other
    in id order), and whether the index held a vector of any of them."""
    import numpy as np

    from memx_cli.index import memory_key

    if not (vectors and index.vectors.exists() and ids):
        return
    by_key = {memory_key(i): i for i in ids}
    order = sorted(ids)
    seen: set[tuple[str, str]] = set()
    start, size = 0, FIRST_BLOCK
    while start < len(order):
        block = order[start:start + size]
        stored = index.vectors.get([memory_key(i) for i in block])
        keys = [k for k in map(memory_key, block) if k in stored]
        found = (index.vectors.search_many(np.stack([stored[k] for k in keys]),
                                           NEIGHBOURS + 1) if keys else [])
        near = dict(zip(keys, found))
        listed: list[list[tuple[str, str]]] = []
        for memory_id in block:
            key = memory_key(memory_id)
            own: list[tuple[str, str]] = []
            for other in sorted(by_key[n] for n in near.get(key, ()) if n in by_key and n != key):
                pair = (memory_id, other) if memory_id < other else (other, memory_id)
                if pair not in seen:
                    seen.add(pair)
                    own.append(pair)
            listed.append(own)
        yield listed, bool(keys)
        start, size = start + size, size * 2


def _sharing_words(entries: list[Entry]) -> set[tuple[str, str]]:
    """Pairs of memories that share words (without the model)."""
    pairs: set[tuple[str, str]] = set()
    pool = Pool(Similarity(None))
    for entry in entries:
        for other, _ in pool.nearest(Entry(entry.memory, entry.words), 0.0, NEIGHBOURS,
                                     keep=lambda e: True):
            pair = sorted((entry.memory.id, other.memory.id))
            pairs.add((pair[0], pair[1]))
        pool.add(Entry(entry.memory, entry.words))
    return pairs


Progress = Callable[[str, int, int], None]


@dataclass
class _Read:
    """A store's index, synced before its memories were read from it."""

    index: StoreIndex
    vectors: bool  # the vectors are current


def conflicts(repo: Repo, scan: bool = True) -> tuple[list[ConflictPair], list[str]]:
    """Recorded conflicts, then (``scan``) contradictions found among similar memories."""
    problems, pairs = iter_conflicts(repo, scan)
    result = sorted(pairs, key=lambda p: (not p.recorded, p.older.id, p.newer.id))
    return result, problems


def iter_conflicts(repo: Repo, scan: bool = True, progress: Progress | None = None
                   ) -> tuple[list[str], Iterator[ConflictPair]]:
    """The files' problems, and the conflicts as they are found: the recorded ones first,
    then (``scan``) contradictions among similar memories, checked candidate pair by
    candidate pair (``progress("checking", done, total)``), so a caller can show the first
    ones while a large store is still being read."""
    similarity = load_similarity(repo)
    found, problems, indexes = _visible(repo, scan, scan and similarity.encoder is not None)
    return problems, _found(repo, found, indexes, similarity, scan, progress)


class _Known:
    """The memories a scan sees, by id. Every memory's links are read; the Memory of a
    stored document is made only when a pair needs it (issue 27: making all 5k cost 40 ms
    of CPU before the first line)."""

    def __init__(self) -> None:
        self._items: dict[str, Memory | Listed] = {}
        self.stores: list[tuple[Store, str]] = []  # each memory's store, stores in order

    def add(self, store: Store, item: Memory | Listed) -> None:
        memory_id = item.id if isinstance(item, Memory) else str(item.doc["id"])
        self._items[memory_id] = item
        self.stores.append((store, memory_id))

    def __contains__(self, memory_id: str) -> bool:
        return memory_id in self._items

    def __getitem__(self, memory_id: str) -> Memory:
        item = self._items[memory_id]
        if not isinstance(item, Memory):  # kept as made: a pair's check asks again and again
            item = self._items[memory_id] = item.memory
        return item

    def ids(self) -> list[str]:
        return list(self._items)

    def superseded(self, memory_id: str) -> bool:
        item = self._items[memory_id]
        return bool(item.superseded_by if isinstance(item, Memory)
                    else item.doc.get("superseded_by"))

    def conflicts_with(self, memory_id: str) -> list[str]:
        item = self._items[memory_id]
        return list(item.conflicts_with if isinstance(item, Memory)
                    else item.doc.get("conflicts_with") or ())


def _visible(repo: Repo, scan: bool, want_vectors: bool
             ) -> tuple[_Known, list[str], dict[Path, _Read]]:
    """Every memory the repository sees, and the problems of the files. A scan syncs each
    store's index (it needs the vectors), and the memories are then read from the text
    index's stored documents instead of parsing every file again (issue 27: 2.5 s of
    the first line at 5k); without a scan, only an index that exists is used. A store
    whose index does not match its folder is read from the files."""
    from memx_cli.index import StoreIndex
    from memx_cli.index.listing import stored

    spec = repo.config["embedding.model"]
    found = _Known()
    problems: list[str] = []
    indexes: dict[Path, _Read] = {}
    for store in repo.stores():
        index = StoreIndex(store, spec)
        listed: tuple[Sequence[Memory | Listed], list[str]] | None = None
        if scan or index.state_path.exists():
            report = index.sync(want_vectors=want_vectors)
            indexes[store.root] = _Read(index, report.vectors)
            listed = stored(index)
        if listed is None:
            loaded = store.load_all()
            listed = loaded.memories, [str(p) for p in loaded.problems]
        for item in listed[0]:
            found.add(store, item)
        problems.extend(listed[1])
    return found, problems, indexes


def _found(repo: Repo, by_id: _Known, indexes: dict[Path, _Read],
           similarity: Similarity, scan: bool, progress: Progress | None
           ) -> Iterator[ConflictPair]:
    settings = Settings.from_config(repo.config)
    entries = _Entries(similarity, by_id)
    recorded: list[ConflictPair] = []
    seen: set[tuple[str, str]] = set()
    for mem_id in by_id.ids():
        for other_id in by_id.conflicts_with(mem_id):
            key = tuple(sorted((mem_id, other_id)))
            if other_id in by_id and key not in seen:
                seen.add(key)  # type: ignore[arg-type]
                sim = similarity.score(entries[mem_id], entries[other_id])
                pair = _pair(by_id[mem_id], by_id[other_id], sim, recorded=True)
                if pair is not None:
                    recorded.append(pair)
    yield from sorted(recorded, key=lambda p: (p.older.id, p.newer.id))
    if not scan:
        return
    for store in repo.stores():
        live = [i for s, i in by_id.stores if s is store and not by_id.superseded(i)]
        check = _Checker(by_id, entries, similarity, settings, ignored_pairs(store))
        read = indexes.get(store.root)
        searched = False
        if similarity.encoder is not None and read is not None:
            done = 0
            for listed, held in _neighbours(read.index, read.vectors, live):
                searched = searched or held
                check.prepare([p for own in listed for p in own])
                for own in listed:
                    yield from check.block(own)
                    done += 1
                    if progress is not None:
                        progress("checking similar memories", done, len(live))
        if searched:
            continue
        # Without vectors: memories that share words, in id order, checked a block at a time
        entries.prepare(live)
        candidates = sorted(_sharing_words([entries[i] for i in live]))
        start, size = 0, FIRST_BLOCK
        while start < len(candidates):
            yield from check.block(candidates[start:start + size])
            start, size = start + size, size * 2
            if progress is not None:
                progress("checking similar pairs", min(start, len(candidates)),
                         len(candidates))


class _Checker:
    """Checks candidate pairs of one store for a contradiction, a block at a time: the
    memories of a block's pairs are embedded at once (the model embeds a text alike alone
    or in a batch)."""

    def __init__(self, by_id: _Known, entries: _Entries, similarity: Similarity,
                 settings: Settings, skip: set[tuple[str, str]]):
        self.by_id, self.entries, self.similarity = by_id, entries, similarity
        self.settings, self.skip = settings, skip

    def _checked(self, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        by_id = self.by_id
        return [(a, b) for a, b in pairs if (a, b) not in self.skip
                and comparable(by_id[a], by_id[b]) and not _linked(by_id[a], by_id[b])]

    def prepare(self, pairs: list[tuple[str, str]]) -> None:
        """Embed the memories of ``pairs`` that are to be checked, in one batch."""
        self.entries.prepare(i for pair in self._checked(pairs) for i in pair)

    def block(self, pairs: list[tuple[str, str]]) -> Iterator[ConflictPair]:
        """The contradictions among ``pairs`` (their memories embedded at once)."""
        by_id = self.by_id
        checked = self._checked(pairs)
        self.entries.prepare(i for pair in checked for i in pair)
        for a_id, b_id in checked:
            a, b = by_id[a_id], by_id[b_id]
            sim = self.similarity.score(self.entries[a_id], self.entries[b_id])
            if sim >= self.settings.band[0] or close_enough(a.content, b.content):
                pair = _pair(a, b, sim, recorded=False)
                if pair is not None:
                    yield pair


def cause(pair: ConflictPair) -> str:
    """What a group of conflicts has in common: the reason without its two values
    (``different values for "timeout"``)."""
    return pair.why.split(": ", 1)[0]
