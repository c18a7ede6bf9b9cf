"""Folding the vector delta into the main vector file, and merging the full-text index's
segments, off the request path (issue 29).

An update adds changed vectors to the small delta file (index/vectors.py); folding the
delta into the HNSW main file rewrites that file (1.38 s at 100k memories). The command
whose write crossed the threshold used to pay for it. Now the fold runs where no command
waits: in the memx server when it is idle (``StoreIndex.compact``, server/daemon.py),
and without the server in a detached worker process started here, as the post-commit
hook's background run is: its own session, no terminal, no pipes back. The worker builds
the new main file without the store lock and takes it only to swap the file in
(``VectorIndex.compact``), so a write that comes while it folds waits milliseconds, not
the fold; readers never wait (files are replaced by rename). The segments' merge holds
the store lock (tantivy has one writer at a time): a write that comes during it waits for
it (~0.5 s at 10k memories, far less at 100k, whose small segments merge among themselves)
where before every eighth write paid it.

``python -m memx_cli.index.fold STORE_ROOT`` is the worker.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

from memx_cli.errors import LockTimeoutError
from memx_cli.fsutil import locked
from memx_cli.store.files import Store

# The memx server sets this False: it folds the deltas of its warm stores when idle.
detached = True
LOCK_NAME = "fold.lock"


def _lock(store: Store) -> Path:
    return store.cache_dir / LOCK_NAME


def running(store: Store) -> bool:
    """Whether a worker is folding ``store`` now (it holds the fold lock)."""
    try:
        with locked(_lock(store), wait=0):
            return False
    except LockTimeoutError:
        return True


def request(store: Store) -> bool:
    """Start a detached worker that folds ``store``'s vector delta, unless the memx
    server does that here or a worker is at it already; True when one was started."""
    if not detached or running(store):
        return False
    try:
        subprocess.Popen([sys.executable, "-m", "memx_cli.index.fold", str(store.root)],
                         cwd=store.root, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True)
    except OSError:
        return False  # the delta keeps growing; the update folds past its hard limit
    return True


def run(root: Path) -> bool:
    """The worker: fold the delta of the store at ``root`` (whatever its size: it was
    asked for), the store lock held only for the swap; False when another worker holds
    the fold or the files changed under it."""
    from memx_cli.index.lexical import LexicalIndex
    from memx_cli.index.vectors import VectorIndex

    store = Store(root, "project")
    try:
        with locked(_lock(store), wait=0):
            # The same files StoreIndex keeps (sync.py), as StoreIndex.compact does.
            merged = LexicalIndex(store.cache_dir / "lexical").merge(store.lock)
            folded = VectorIndex(store.cache_dir / "vectors.usearch").compact(store.lock, 1)
            return merged or folded
    except LockTimeoutError:
        return False


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not os.path.isdir(argv[0]):
        return 2
    with contextlib.suppress(AttributeError, OSError):
        os.nice(10)  # background work on a machine someone is using
    try:
        run(Path(argv[0]))
    except Exception:  # a cache: the next worker, `memx reindex` or the server retries
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
