"""The usearch vector index (layer L4, SPEC 9).

Searches open the saved file as a memory-mapped view; updates load a private copy,
change it and save it to a temporary file that replaces the old one by rename, so a
view another process holds is never modified underneath it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memx_cli.fsutil import replacing

DTYPE = "f16"


class VectorIndex:
    def __init__(self, path: Path):
        self.path = path
        self._view: Any = None

    def exists(self) -> bool:
        return self.path.is_file()

    def _empty(self, ndim: int) -> Any:
        from usearch.index import Index

        return Index(ndim=ndim, metric="cos", dtype=DTYPE)

    def update(self, ndim: int, remove: Sequence[int], keys: Sequence[int], vectors: Any,
               rebuild: bool = False) -> None:
        """Remove ``remove``, add ``keys``/``vectors``; write atomically."""
        import numpy as np
        from usearch.index import Index

        index = None
        if not rebuild and self.exists():
            index = Index.restore(str(self.path), view=False)
            if index is None or index.ndim != ndim:
                index = None
        if index is None:
            index = self._empty(ndim)
        if len(remove):
            present = [k for k in remove if k in index]
            if present:
                index.remove(np.asarray(present, dtype=np.uint64))
        if len(keys):
            index.add(np.asarray(keys, dtype=np.uint64), np.asarray(vectors, dtype=np.float32))
        with replacing(self.path, durable=False) as tmp:
            index.save(str(tmp))
        self._view = None

    def refresh(self) -> None:
        """Map the file anew at the next search (another process replaced it)."""
        self._view = None

    def view(self) -> Any:
        from usearch.index import Index

        if self._view is None:
            self._view = Index.restore(str(self.path), view=True)
            if self._view is None:
                raise ValueError(f"{self.path}: not a usearch index")
        return self._view

    def search(self, query: Any, count: int) -> dict[int, float]:
        """Cosine similarity per key for the ``count`` nearest vectors."""
        index = self.view()
        if len(index) == 0:
            return {}
        matches = index.search(query, min(count, len(index)))
        return {int(k): 1.0 - float(d) for k, d in zip(matches.keys, matches.distances)}

    def similarities(self, query: Any, keys: Sequence[int]) -> dict[int, float]:
        """Exact cosine similarity of ``query`` to the stored vectors of ``keys``."""
        import numpy as np

        index = self.view()
        wanted = [k for k in keys if k in index]
        if not wanted:
            return {}
        vectors = np.asarray(index.get(np.asarray(wanted, dtype=np.uint64), dtype=np.float32))
        vectors = vectors.reshape(len(wanted), -1)
        norms = np.linalg.norm(vectors, axis=1)
        norms[norms == 0] = 1.0
        sims = (vectors @ np.asarray(query, dtype=np.float32)) / norms
        return {k: float(s) for k, s in zip(wanted, sims)}
