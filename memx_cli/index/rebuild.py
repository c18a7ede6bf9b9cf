"""The full rebuild of a store's indexes, streamed in batches (issue 15).

Files are read, parsed, indexed and embedded a batch at a time, through one text-index
writer and one growing vector graph; a memory without neighbours is dropped as soon as
its batch is done. Memories of a source group (a session, a commit, a CI run) wait
until every file was read, since their context text and vectors mix in their
neighbours', wherever those sit in the store; then they go in batches of whole groups.
Before this, the rebuild held every parsed memory, a second copy of every document
read back from the text index and three full float32 matrices at once (1.2 GB at 100k).
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from memx_cli.errors import InvalidMemoryError
from memx_cli.index.documents import build_documents, embed_documents
from memx_cli.index.keys import source_group
from memx_cli.index.lexical import IndexDoc, LexicalIndex
from memx_cli.index.manifest import FileState
from memx_cli.index.scan import Seen
from memx_cli.index.vectors import VectorIndex
from memx_cli.store.files import Store
from memx_cli.store.memory import Memory
from memx_cli.store.safeyaml import read_regular

# Memories per batch: large enough that the encoder and the graph work on full arrays,
# small enough that a batch's documents stay a few megabytes.
BATCH = 2000
# From this many files the parsing runs in worker processes beside the indexing.
PARALLEL_FROM = 20000
PARSERS = 2
AHEAD = 3

Progress = Callable[[int, int], None]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:20]


@dataclass
class Rebuilt:
    files: dict[str, FileState] = field(default_factory=dict)
    vectors: bool = False


def rebuild(store: Store, seen: dict[str, Seen], lexical: LexicalIndex,
            vectors: VectorIndex, encoder: Any, progress: Progress | None) -> Rebuilt:
    """Index every file of ``seen`` into the empty ``lexical`` (and ``vectors`` when
    ``encoder`` is given); returns the manifest entries."""
    out = Rebuilt()
    graph = vectors.new_graph(encoder.dim) if encoder is not None else None
    grouped: dict[str, bytes] = {}
    total = len(seen)
    with lexical.writer() as add:
        def index(docs: list[IndexDoc]) -> None:
            add(docs)
            if graph is not None and docs:
                keys = [d.key for d in docs]
                graph.add(keys, embed_documents(encoder, docs))

        done = 0
        for parsed in _parsed(store, seen):
            memories: dict[str, Memory] = {}
            for memory_id, state, mem in parsed:
                out.files[memory_id] = state
                if mem is None:
                    continue
                if state.group is None:
                    memories[memory_id] = mem
                else:  # pickled: a third of the size of the object (issue 15: 1M)
                    grouped[memory_id] = pickle.dumps(mem, pickle.HIGHEST_PROTOCOL)
            index(build_documents(store, memories, memories, out.files, {}))
            done += len(parsed)
            if progress is not None:
                progress(done, total)
        for members in _group_batches(grouped, out.files):
            ids = [i for group_ids in members.values() for i in group_ids]
            memories = {i: pickle.loads(grouped.pop(i)) for i in ids}
            index(build_documents(store, ids, memories, out.files, members))
    if graph is not None:
        vectors.save_graph(graph)
        out.vectors = True
    return out


Parsed = list[tuple[str, FileState, Memory | None]]
_store: Store | None = None  # the store a forked parser reads (set before the fork)


def _parse(batch: list[tuple[str, Seen]]) -> Parsed:
    """Read and parse the files of ``batch``: manifest entry, and the memory if valid."""
    store = _store
    assert store is not None
    out: Parsed = []
    for memory_id, (mtime_ns, size, archived) in batch:
        path = store.path_for(memory_id, archived)
        try:
            data = read_regular(path)  # swapped for a FIFO since the scan: never block
        except OSError:
            continue
        try:
            mem = store.read_file(path, data)
        except InvalidMemoryError as exc:
            out.append((memory_id, FileState(mtime_ns, size, "!" + str(exc), archived, None),
                        None))
            continue
        out.append((memory_id, FileState(mtime_ns, size, digest(data), archived,
                                         source_group(mem.source)), mem))
    return out


def _idle_cores() -> int:
    """Cores no other process is using now: on a busy machine the workers only add their
    pickling to the work (measured at 100k with a load of 13 on 2 cores: 54 s of CPU
    and 142 s against 39 s and 92 s in this process alone)."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return 1
    return max(0, int((os.cpu_count() or 1) - load))


def _parsed(store: Store, seen: dict[str, Seen]) -> Iterator[Parsed]:
    """The files of ``seen`` parsed, a batch at a time in id order. Large stores are
    parsed by worker processes on idle cores (forked: no start-up cost but the fork
    itself) while this one indexes; at most ``AHEAD`` batches wait, so memory stays
    bounded."""
    global _store
    items = sorted(seen.items())
    batches = [items[i:i + BATCH] for i in range(0, len(items), BATCH)]
    _store = store
    workers = min(PARSERS, _idle_cores(), len(batches) - 1)
    if len(items) < PARALLEL_FROM or workers < 1 or not hasattr(os, "fork"):
        for batch in batches:
            yield _parse(batch)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        waiting = [pool.submit(_parse, batch) for batch in batches[:AHEAD]]
        for at in range(len(batches)):
            parsed = waiting.pop(0).result()
            if at + AHEAD < len(batches):
                waiting.append(pool.submit(_parse, batches[at + AHEAD]))
            yield parsed


def _group_batches(grouped: dict[str, bytes],
                   files: dict[str, FileState]) -> Iterator[dict[str, list[str]]]:
    """Whole groups, about ``BATCH`` memories at a time."""
    by_group: dict[str, list[str]] = {}
    for memory_id in grouped:
        group = files[memory_id].group
        if group is not None:
            by_group.setdefault(group, []).append(memory_id)
    batch: dict[str, list[str]] = {}
    count = 0
    for group, ids in by_group.items():
        batch[group] = ids
        count += len(ids)
        if count >= BATCH:
            yield batch
            batch, count = {}, 0
    if batch:
        yield batch
