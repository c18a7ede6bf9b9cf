"""Crash-safe file writes and the cross-process writer lock (SPEC 2, SPEC 10)."""

from __future__ import annotations

import contextlib
import errno
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from memx_cli.errors import LockTimeoutError

# SPEC 9: a second writer waits briefly instead of failing (hooks must not break git).
LOCK_WAIT_SECONDS = 30.0


def atomic_write(path: Path, data: bytes, durable: bool = True) -> None:
    """Write ``data`` so that ``path`` holds either the old or the new bytes, never a mix.

    ``durable=False`` skips the fsyncs: still never a torn file, but a power cut may
    lose the change. For per-clone statistics and caches, not for memories.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    if durable:
        _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


_held: dict[str, int] = {}  # lock path -> how deep this process holds it
_threads: dict[str, threading.RLock] = {}
_guard = threading.Lock()


@contextlib.contextmanager
def locked(lock_path: Path, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``lock_path`` (created if needed).

    Re-entrant within a process (a Curator that holds the store lock may update the
    index, which takes it too); threads of one process take turns; other processes wait
    up to ``wait`` seconds, then get a LockTimeoutError.
    """
    key = str(lock_path)
    with _guard:
        thread_lock = _threads.setdefault(key, threading.RLock())
    if not thread_lock.acquire(timeout=wait):
        raise LockTimeoutError(f"another memx thread has held {lock_path} for {wait:.0f}s; "
                               "try again when it has finished")
    try:
        if _held.get(key):
            _held[key] += 1
            try:
                yield
            finally:
                _held[key] -= 1
            return
        with _flock(lock_path, wait):
            _held[key] = 1
            try:
                yield
            finally:
                _held[key] = 0
    finally:
        thread_lock.release()


@contextlib.contextmanager
def _flock(lock_path: Path, wait: float) -> Iterator[None]:
    import fcntl

    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait
        delay = 0.005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    raise LockTimeoutError(
                        f"another memx process has held {lock_path} for {wait:.0f}s; "
                        "try again when it has finished"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
