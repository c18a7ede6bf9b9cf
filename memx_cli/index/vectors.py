"""The usearch vector index (layer L4, SPEC 9): a main graph plus a small delta segment.

The main file ``vectors.usearch`` is searched through a memory-mapped view and never
modified in place. An update writes only the delta file ``vectors.delta`` (issue 15:
one added memory rewrote the whole main file, 275 ms at 100k): the vectors added or
changed since the main file was built, and the keys whose main-file vector is stale
(removed or replaced). A search asks the graph, drops the stale keys, searches the
delta exactly (brute force over a few thousand rows at most) and merges by score.

Compaction folds the delta into a new main file (built and saved to a temporary file
without the store lock, then renamed under it) and then removes the delta, or rebases
the delta that updates grew meanwhile onto the new file. Applying a delta to a main
file that already holds it changes nothing, so a process killed between the steps
loses nothing, and a reader that read the delta just before a compaction and the new
main file after it still answers correctly. Both files are caches: the YAML files stay
the truth.
"""

from __future__ import annotations

import contextlib
import math
import os
import struct
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from memx_cli.fsutil import replacing

DTYPE = "f16"
# Rows (changed vectors plus stale keys) the delta is meant to stay under: a search scans
# it exactly (2k x 256 halves: ~0.1 ms), and each update rewrites it (1 MB at this size).
# The fold happens off the request path (``COMPACT_AT``, issue 29: the command whose
# update crossed this limit folded in the foreground, 1.38 s at 100k); an update folds
# itself only past HARD_LIMIT times this, when no background fold could keep up.
DELTA_LIMIT = 2048
HARD_LIMIT = 4
# Rows past which the delta is folded off the request path: by the memx server when it
# is idle, else by a detached worker (index/fold.py), and at the end of `memx reindex`.
# Below it, rewriting the main file (~0.3-1.4 s at 100k) costs more than the delta's
# exact search ever will.
COMPACT_AT = 256
# Up to this many vectors the main file is searched exactly too (~0.2 ms): a graph search
# is approximate, and two graphs of the same vectors built in another order can disagree
# on the last places of a top 10; below this size nothing does.
EXACT_BELOW = 4096
# Normalised vectors a long-lived process keeps per pair of files (~1 KB each at 256
# dimensions), as the text index keeps decoded documents.
CACHED_VECTORS = 4096
MAGIC = b"memx-vector-delta-1\n"
HEADER = struct.Struct("<QQQ")  # rows, dimensions, stale keys


class Delta:
    """The vectors (float16, as in the main file) changed since the main file was built,
    and the stale keys of the main file."""

    def __init__(self, ndim: int, keys: Any = None, vectors: Any = None,
                 stale: Any = None):
        import numpy as np

        self.ndim = ndim
        self.keys = keys if keys is not None else np.zeros(0, dtype=np.uint64)
        self.vectors = (vectors if vectors is not None
                        else np.zeros((0, ndim), dtype=np.float16))
        self.stale = stale if stale is not None else np.zeros(0, dtype=np.uint64)
        self._rows = {int(k): row for row, k in enumerate(self.keys)}
        self._stale = {int(k) for k in self.stale}

    def __len__(self) -> int:
        return len(self.keys)

    def size(self) -> int:
        return len(self.keys) + len(self.stale)

    def hides(self, key: int) -> bool:
        """Whether the main file's vector for ``key`` must not be used."""
        return key in self._stale or key in self._rows

    def row(self, key: int) -> int | None:
        return self._rows.get(key)

    def changed(self, remove: Sequence[int], keys: Sequence[int], vectors: Any,
                in_main: Any) -> Delta:
        """This delta with ``remove`` removed and ``keys``/``vectors`` added or replaced."""
        import numpy as np

        gone = {int(k) for k in remove} | {int(k) for k in keys}
        kept = [row for row, k in enumerate(self.keys) if int(k) not in gone]
        new_keys = np.concatenate([self.keys[kept], np.asarray(keys, dtype=np.uint64)])
        added = (np.asarray(vectors, dtype=np.float16).reshape(len(keys), self.ndim)
                 if len(keys) else np.zeros((0, self.ndim), dtype=np.float16))
        new_vectors = np.concatenate([self.vectors[kept].reshape(len(kept), self.ndim), added])
        stale = self._stale | {k for k in gone if in_main(k)}
        return Delta(self.ndim, new_keys, new_vectors,
                     np.asarray(sorted(stale), dtype=np.uint64))

    def same(self, other: Delta) -> bool:
        import numpy as np

        return (self.ndim == other.ndim and np.array_equal(self.keys, other.keys)
                and np.array_equal(self.stale, other.stale)
                and np.array_equal(self.vectors, other.vectors))

    def grew_into(self, later: Delta) -> bool:
        """Whether ``later`` can be this delta changed by updates (stale keys only
        accumulate until a fold), so that ``later.rebased(self)`` is right."""
        return later.ndim == self.ndim and self._stale <= later._stale

    def rebased(self, folded: Delta, in_main: Callable[[int], bool] | None = None) -> Delta:
        """This delta, grown by updates from ``folded`` while ``folded`` was folded into
        a new main file (the old one plus ``folded``). Without ``in_main``: a delta right
        over the old main file and the new one alike (the keys ``folded`` added and this
        one lost are stale too). With ``in_main`` (membership in the new main file): only
        what the new main file lacks, the vectors it holds as they are left out."""
        import numpy as np

        stale = self._stale | {int(k) for k in folded.keys if int(k) not in self._rows}
        if in_main is None:
            return Delta(self.ndim, self.keys, self.vectors,
                         np.asarray(sorted(stale), dtype=np.uint64))
        held = set()
        for key, row in self._rows.items():
            old = folded.row(key)
            if old is not None and np.array_equal(folded.vectors[old], self.vectors[row]):
                held.add(key)
        kept = [row for row, k in enumerate(self.keys) if int(k) not in held]
        stale = {k for k in (stale | set(self._rows)) - held if in_main(k)}
        return Delta(self.ndim, self.keys[kept],
                     self.vectors[kept].reshape(len(kept), self.ndim),
                     np.asarray(sorted(stale), dtype=np.uint64))

    def save(self, path: Path) -> None:
        with replacing(path, durable=False) as tmp, open(tmp, "wb") as handle:
            handle.write(MAGIC + HEADER.pack(len(self.keys), self.ndim, len(self.stale)))
            for array in (self.keys, self.stale, self.vectors):
                handle.write(array.tobytes())

    @classmethod
    def load(cls, path: Path) -> Delta | None:
        """The delta, or None when there is none; ValueError when it is damaged."""
        import numpy as np

        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        head = len(MAGIC) + HEADER.size
        if not data.startswith(MAGIC) or len(data) < head:
            raise ValueError(f"{path.name}: not a vector delta")
        rows, ndim, stale = HEADER.unpack_from(data, len(MAGIC))
        if len(data) != head + 8 * (rows + stale) + 2 * rows * ndim or not ndim:
            raise ValueError(f"{path.name}: truncated vector delta")
        keys = np.frombuffer(data, np.uint64, rows, head)
        stale_keys = np.frombuffer(data, np.uint64, stale, head + 8 * rows)
        vectors = np.frombuffer(data, np.float16, rows * ndim,
                                head + 8 * (rows + stale)).reshape(rows, ndim)
        return cls(ndim, keys, vectors, stale_keys)


class VectorIndex:
    def __init__(self, path: Path):
        self.path = path
        self.delta_path = path.with_name(path.stem + ".delta")
        self._view: Any = None
        self._view_identity: tuple[int, int, int] | None = None
        self._delta: Delta | None = None
        # Set by an update that left the delta at COMPACT_AT rows or more: the caller
        # has it folded in the background (index/fold.py).
        self.fold_wanted = False
        self._loaded = False
        # The normalised vectors ``get`` read from the files loaded now (see _kept).
        self._normalised: tuple[Any, Delta | None, dict[int, Any]] | None = None

    def exists(self) -> bool:
        return self.path.is_file()

    def _empty(self, ndim: int) -> Any:
        from memx_cli.index.usearch_import import load

        return load().Index(ndim=ndim, metric="cos", dtype=DTYPE)

    def refresh(self) -> None:
        """Read the files anew at the next search (another process replaced them)."""
        self._view = None
        self._delta = None
        self._loaded = False

    def _load(self) -> tuple[Any, Delta | None]:
        # The delta before the main file: a compaction between the two reads leaves a
        # delta that the new main file holds already, which is harmless.
        if not self._loaded:
            self._delta = Delta.load(self.delta_path)
            self._loaded = True
        return self.view(), self._delta

    def view(self) -> Any:
        """The main graph, memory-mapped."""
        from memx_cli.index.usearch_import import load

        if self._view is None:
            # Taken before the file is opened: a file replaced in between shows as
            # replaced at the next update (one more open), never the reverse.
            self._view_identity = _identity(self.path)
            self._view = load().Index.restore(str(self.path), view=True)
            if self._view is None:
                raise ValueError(f"{self.path}: not a usearch index")
        return self._view

    def replaced(self) -> bool:
        """Whether another file took the place of the main file this view opened (a
        stat; False when no view is open)."""
        return self._view is not None and _identity(self.path) != self._view_identity

    def check(self) -> None:
        """Open both files (ValueError/OSError when one is damaged)."""
        view, delta = self._load()
        if delta is not None and delta.ndim != view.ndim:
            raise ValueError(f"{self.delta_path.name}: {delta.ndim} dimensions, "
                             f"the main index {view.ndim}")

    # ------------------------------------------------------------ updating

    def update(self, ndim: int, remove: Sequence[int], keys: Sequence[int], vectors: Any,
               rebuild: bool = False) -> None:
        """Remove ``remove``, add ``keys``/``vectors`` (normalised); write atomically.

        A change goes to the delta (``fold_wanted`` says when it should be folded in the
        background); a rebuild, a first build or a delta past ``HARD_LIMIT`` times
        ``DELTA_LIMIT`` writes a new main file."""
        if rebuild or not self.exists():
            self._write_main(ndim, None, None, keys, vectors)
            return
        # The delta is read again (another process may have written it since); the main
        # graph only when another file replaced it (it is never changed in place): at
        # 100k, opening the view again cost ~10 ms after the Curator's search (issue 29).
        if self.replaced():
            self._view = None
        self._delta, self._loaded = None, False
        view, delta = self._load()
        if view.ndim != ndim:
            self._write_main(ndim, None, None, keys, vectors)
            return
        delta = (delta or Delta(ndim)).changed(remove, keys, vectors,
                                               lambda k: k in view)
        if delta.size() > DELTA_LIMIT * HARD_LIMIT:
            self._write_main(ndim, view, delta, [], None)
        else:
            delta.save(self.delta_path)
            self.fold_wanted = delta.size() >= min(COMPACT_AT, DELTA_LIMIT + 1)
            self._delta, self._loaded = delta, True  # the graph stands as it was
            return
        self.refresh()

    def compact(self, lock: Callable[[], AbstractContextManager[Any]],
                at_least: int = 1) -> bool:
        """Fold the delta into a new main file when it has ``at_least`` rows; False when
        there was nothing (or too little) to fold, or the files changed under it.

        The new main file is built and saved without ``lock`` (the store lock: a write
        waited for the whole fold, 0.3-1.4 s at 100k, issue 29); the lock is taken only
        to swap it in, once the main file is seen unchanged. A delta that writes grew
        meanwhile is rebased onto the new main file (``Delta.rebased``) rather than folded
        again; a main file replaced meanwhile (a rebuild, another fold) leaves this fold
        unused. A process killed at any point leaves a main file and a delta that
        together hold every change."""
        self.refresh()
        before = _identity(self.path)
        if before is None or not self.delta_path.exists():
            return False
        view, delta = self._load()
        if delta is None or delta.size() < at_least:
            return False
        folded = self._folded(view.ndim, delta, [], None)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            folded.save(str(tmp))
            with lock():
                self.refresh()
                if _identity(self.path) != before:
                    return False
                now = Delta.load(self.delta_path)
                if now is None or not delta.grew_into(now):
                    return False
                if now.same(delta):
                    os.replace(tmp, self.path)
                    with contextlib.suppress(FileNotFoundError):
                        self.delta_path.unlink()
                    return True
                # ``now`` described the old main file: first a delta right for both
                # (a reader may pair it with either), then the new main file, then the
                # delta pruned to what the new main file lacks
                now.rebased(delta).save(self.delta_path)
                os.replace(tmp, self.path)
                pruned = now.rebased(delta, lambda k: k in folded)
                if pruned.size():
                    pruned.save(self.delta_path)
                else:
                    self.delta_path.unlink()
                return True
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            self.refresh()

    def _write_main(self, ndim: int, base: Any, delta: Delta | None,
                    keys: Sequence[int], vectors: Any) -> None:
        """A new main file: ``base`` (a view) with ``delta`` applied, plus ``keys``."""
        if base is None:
            # Without a base, a delta left behind describes another main file.
            with contextlib.suppress(FileNotFoundError):
                self.delta_path.unlink()
        index = self._folded(ndim, delta if base is not None else None, keys, vectors,
                             base is not None)
        with replacing(self.path, durable=False) as tmp:
            index.save(str(tmp))
        with contextlib.suppress(FileNotFoundError):
            self.delta_path.unlink()
        self.refresh()

    def _folded(self, ndim: int, delta: Delta | None, keys: Sequence[int], vectors: Any,
                base: bool = True) -> Any:
        """The main file's graph (an empty one without ``base``) in memory, with
        ``delta`` applied and ``keys``/``vectors`` added."""
        import numpy as np

        from memx_cli.index.usearch_import import load

        index: Any
        if base:
            index = load().Index.restore(str(self.path), view=False)
            if index is None:
                raise ValueError(f"{self.path}: not a usearch index")
        else:
            index = self._empty(ndim)
        if delta is not None:
            stale = [int(k) for k in delta.stale] + [int(k) for k in delta.keys]
            present = [k for k in stale if k in index]
            if present:
                index.remove(np.asarray(present, dtype=np.uint64))
            if len(delta):
                index.add(delta.keys, delta.vectors)
        if len(keys):
            index.add(np.asarray(keys, dtype=np.uint64), np.asarray(vectors, dtype=np.float32))
        return index

    def new_graph(self, ndim: int) -> Graph:
        """An empty graph to fill in batches, then ``save_graph`` (a full rebuild)."""
        return Graph(self._empty(ndim))

    def save_graph(self, graph: Graph) -> None:
        """Replace the main file with ``graph``; any delta described the old one."""
        with contextlib.suppress(FileNotFoundError):
            self.delta_path.unlink()
        with replacing(self.path, durable=False) as tmp:
            graph.index.save(str(tmp))
        self.refresh()

    # ------------------------------------------------------------ reading

    def count(self) -> int:
        """How many memories have a vector (stale keys are all in the main file)."""
        view, delta = self._load()
        if delta is None:
            return len(view)
        return len(view) - sum(1 for k in delta.stale if int(k) in view) + len(delta)

    def search(self, query: Any, count: int) -> dict[int, float]:
        """Cosine similarity per key for the ``count`` nearest vectors."""
        return self.search_many([query], count)[0]

    def search_many(self, queries: Any, count: int) -> list[dict[int, float]]:
        """``search`` for each of ``queries`` (one batch through the graph)."""
        import numpy as np

        from memx_cli.index.usearch_import import load

        usearch = load()
        MetricKind, exact_search = usearch.MetricKind, usearch.search

        view, delta = self._load()
        queries = np.asarray(queries, dtype=np.float32).reshape(len(queries), -1)
        results: list[dict[int, float]] = [{} for _ in range(len(queries))]
        # Stale keys (removed or changed: every changed key the graph holds) may take
        # places of the graph's answer: ask for that many more.
        hidden = len(delta.stale) if delta is not None else 0
        wanted = min(count + hidden, len(view))
        if wanted:
            found: Any = view.search(queries, wanted, exact=len(view) <= EXACT_BELOW)
            for row, keys, dist in _answers(found, len(queries)):
                for k, d in zip(keys, dist):
                    if delta is None or not delta.hides(int(k)):
                        results[row][int(k)] = 1.0 - float(d)
        if delta is not None and len(delta):
            # Exact search over the delta, with usearch's own kernel: the same scores a
            # graph holding these vectors gives.
            near: Any = exact_search(delta.vectors, queries.astype(np.float16),
                                min(count, len(delta)), MetricKind.Cos, exact=True)
            for row, rows, dist in _answers(near, len(queries)):
                for r, d in zip(rows, dist):
                    results[row][int(delta.keys[int(r)])] = 1.0 - float(d)
        return [dict(sorted(r.items(), key=lambda kv: -kv[1])[:count]) for r in results]

    def get(self, keys: Sequence[int]) -> dict[int, Any]:
        """The stored vectors of ``keys`` (those present), normalised, as float32: those
        of the delta first, then the main file's, each in the order of ``keys``. Read
        only: the arrays are kept for the next call until the files change (issue 29: a
        warm search's candidates are often the last search's)."""
        import numpy as np

        view, delta = self._load()
        kept = self._kept(view, delta)
        in_delta: list[int] = []
        from_main: list[int] = []
        for key in keys:
            if delta is not None and delta.row(key) is not None:
                in_delta.append(key)
            elif delta is None or not delta.hides(key):
                from_main.append(key)
        fresh: dict[int, Any] = {}
        if delta is not None:
            for key in in_delta:
                if key not in kept:
                    fresh[key] = np.asarray(delta.vectors[delta.row(key)], dtype=np.float32)
        unread = [k for k in dict.fromkeys(from_main) if k not in kept]
        if unread:
            # One membership call for all (issue 15: ``key in view`` per key cost ~10 us
            # each in usearch's Python wrapper, 0.5 ms of a warm search).
            present = view.contains(np.asarray(unread, dtype=np.uint64))
            unread = [k for k, here in zip(unread, present) if here]
        if unread:
            rows = np.asarray(view.get(np.asarray(unread, dtype=np.uint64),
                                       dtype=np.float32)).reshape(len(unread), -1)
            fresh.update(zip(unread, rows))
        for key, vector in fresh.items():
            # np.linalg.norm's own arithmetic (float32 dot, correctly rounded square
            # root) without its per-call checks: a tenth of a warm search's vector work.
            norm = math.sqrt(float(vector.dot(vector)))
            vector = vector / norm if norm else vector.copy()
            vector.setflags(write=False)
            fresh[key] = vector
        out: dict[int, Any] = {}
        for key in in_delta + from_main:
            vector = fresh.get(key)
            if vector is None:
                vector = kept.get(key)
            if vector is not None and key not in out:
                out[key] = vector
        for key, vector in fresh.items():  # kept for the next call, the oldest dropped
            if len(kept) >= CACHED_VECTORS:
                del kept[next(iter(kept))]
            kept[key] = vector
        return out

    def _kept(self, view: Any, delta: Delta | None) -> dict[int, Any]:
        """The normalised vectors read from these files (``get``), emptied when another
        main file or delta is read."""
        cached = self._normalised
        if cached is None or cached[0] is not view or cached[1] is not delta:
            cached = self._normalised = (view, delta, {})
        return cached[2]

    def sample(self, size: int) -> Any:
        """Up to ``size`` stored vectors spread evenly over the store, as one normalised
        float32 matrix (issue 25: the cosines a query has with memories picked without
        regard to it are its baseline of unrelated text). Kept until the files change."""
        import numpy as np

        view, delta = self._load()
        cached = getattr(self, "_sample", None)
        if cached is not None and cached[0] is view and cached[1] is delta:
            return cached[2]
        # Every key once, in order, then each step-th: sorted in numpy (a Python set and
        # sort of 100k keys were 45 ms of a cold hybrid search at 100k; issue 29).
        keys = np.asarray(view.keys, dtype=np.uint64)
        if delta is not None and len(delta.keys):
            keys = np.concatenate([keys, np.asarray(delta.keys, dtype=np.uint64)])
        keys = np.sort(keys)
        if len(keys) > 1:
            keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
        step = max(len(keys) // size, 1)
        rows = list(self.get([int(k) for k in keys[::step][:size]]).values())
        matrix = np.vstack(rows) if rows else np.zeros((0, view.ndim), dtype=np.float32)
        self._sample = (view, delta, matrix)
        return matrix

    def similarities(self, query: Any, keys: Sequence[int]) -> dict[int, float]:
        """Exact cosine similarity of ``query`` to the stored vectors of ``keys``."""
        import numpy as np

        query = np.asarray(query, dtype=np.float32)
        return {k: float(v @ query) for k, v in self.get(keys).items()}


class Graph:
    """A vector graph being built in memory."""

    def __init__(self, index: Any):
        self.index = index

    def add(self, keys: Sequence[int], vectors: Any) -> None:
        import numpy as np

        self.index.add(np.asarray(keys, dtype=np.uint64), vectors)


def _answers(found: Any, queries: int) -> Iterator[tuple[int, Any, Any]]:
    """(query row, keys, distances) of a usearch answer, one query's or a batch's."""
    many = getattr(found, "counts", None) is not None
    for row in range(queries):
        keys = found.keys[row] if many else found.keys
        dist = found.distances[row] if many else found.distances
        valid = found.counts[row] if many else len(found.keys)
        yield row, keys[:valid], dist[:valid]


def _identity(path: Path) -> tuple[int, int, int] | None:
    """What tells one main file from the one that replaces it (None: there is none)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size
