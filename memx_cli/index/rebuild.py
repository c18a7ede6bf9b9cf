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
import itertools
import os
import pickle
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from memx_cli.errors import InvalidMemoryError
from memx_cli.freshness.scan import Seen
from memx_cli.index.documents import build_documents, embed_documents
from memx_cli.index.lexical import IndexDoc, LexicalIndex
from memx_cli.index.manifest import FileState
from memx_cli.index.update import file_state
from memx_cli.index.vectors import VectorIndex
from memx_cli.safeyaml import read_regular
from memx_cli.store.files import Store
from memx_cli.store.memory import Memory

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
    memories: int = 0  # files indexed (a file that does not parse is recorded, not indexed)
    vectors: bool = False


def rebuild(store: Store, seen: dict[str, Seen], lexical: LexicalIndex,
            vectors: VectorIndex, encoder: Any, progress: Progress | None,
            record: Callable[[dict[str, FileState]], None]) -> Rebuilt:
    """Index every file of ``seen`` into the empty ``lexical`` (and ``vectors`` when
    ``encoder`` is given). The manifest entries go to ``record`` a batch at a time:
    kept until the end they were ~220 MB at 1M (issue 15)."""
    out = Rebuilt()
    waiting: dict[str, FileState] = {}  # the entries of the grouped memories
    graph = vectors.new_graph(encoder.dim) if encoder is not None else None
    total = len(seen)
    with _Spill(store) as grouped, lexical.writer(wait=True) as add:
        def index(docs: list[IndexDoc]) -> None:
            add(docs)
            if graph is not None and docs:
                keys = [d.key for d in docs]
                graph.add(keys, embed_documents(encoder, docs))

        done = 0
        for parsed in _parsed(store, seen):
            memories: dict[str, Memory] = {}
            states = {memory_id: state for memory_id, state, _ in parsed}
            for memory_id, state, mem in parsed:
                if mem is None:
                    continue
                if state.group is None:
                    memories[memory_id] = mem
                else:
                    grouped.put(memory_id, mem)
                    waiting[memory_id] = state
            index(build_documents(store, memories, memories, states, {}))
            record(states)
            out.memories += sum(mem is not None for _, _, mem in parsed)
            done += len(parsed)
            if progress is not None:
                progress(done, total)
        for members in _group_batches(grouped.ids(), waiting):
            ids = [i for group_ids in members.values() for i in group_ids]
            memories = {i: grouped.get(i) for i in ids}
            index(build_documents(store, ids, memories, waiting, members))
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
            data = read_regular(path, follow=False)  # a FIFO or a link since the scan
            mem = store.read_file(path, data)
        except FileNotFoundError:
            continue  # removed since the scan
        except OSError as exc:  # a link, a FIFO, over the size limit: a problem to tell
            problem = store.unreadable(path, exc)
            out.append((memory_id, FileState(mtime_ns, size, "!" + str(problem), archived,
                                             None), None))
            continue
        except InvalidMemoryError as exc:
            out.append((memory_id, FileState(mtime_ns, size, "!" + str(exc), archived, None),
                        None))
            continue
        out.append((memory_id, file_state(mtime_ns, size, digest(data), archived, mem), mem))
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
    ids = sorted(seen)  # ids only: (id, stat) pairs of all were 60 MB at 1M (issue 15)
    count = (len(ids) + BATCH - 1) // BATCH
    batches = ([(i, seen[i]) for i in ids[at * BATCH:(at + 1) * BATCH]] for at in range(count))
    _store = store
    workers = min(PARSERS, _idle_cores(), count - 1)
    # Forked only on Linux: macOS's system libraries are not safe in a forked child of
    # a process with threads (the indexes' native libraries start some).
    if len(ids) < PARALLEL_FROM or workers < 1 or not sys.platform.startswith("linux"):
        for batch in batches:
            yield _parse(batch)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        waiting = [pool.submit(_parse, batch) for batch in itertools.islice(batches, AHEAD)]
        while waiting:
            parsed = waiting.pop(0).result()
            for batch in itertools.islice(batches, 1):
                waiting.append(pool.submit(_parse, batch))
            yield parsed


class _Spill:
    """Memories of source groups, waiting on disk until every file was read: pickled
    into an unnamed temporary file under the store's cache (gone when closed, killed
    or not), with only their offsets in memory. Kept in memory they were ~230 MB of
    the 1.7 GB peak of a rebuild at 1M (issue 15)."""

    def __init__(self, store: Store):
        self._dir = store.cache_dir
        self._at: dict[str, int] = {}
        self._end = 0
        self._file: Any = None

    def __enter__(self) -> _Spill:
        import tempfile

        self._dir.mkdir(parents=True, exist_ok=True)
        self._file = tempfile.TemporaryFile(dir=self._dir)
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()

    def put(self, memory_id: str, mem: Memory) -> None:
        data = pickle.dumps(mem, pickle.HIGHEST_PROTOCOL)
        self._file.write(len(data).to_bytes(4, "little") + data)
        self._at[memory_id] = self._end
        self._end += 4 + len(data)

    def ids(self) -> Iterator[str]:
        return iter(self._at)

    def get(self, memory_id: str) -> Memory:
        self._file.flush()  # written through the buffer, read past it
        fd, at = self._file.fileno(), self._at[memory_id]
        size = int.from_bytes(os.pread(fd, 4, at), "little")
        mem: Memory = pickle.loads(os.pread(fd, size, at + 4))
        return mem


def _group_batches(grouped: Iterator[str],
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
