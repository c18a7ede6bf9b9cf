"""Which stores changed since a searcher last synced them: file-system events, not stat
scans (issue 15).

A ``Watcher`` watches each store directory (``.memx/``, the global store, a source's
store) recursively with watchdog (inotify on Linux). An event under ``memories/`` or
``archive/`` (created, written, closed after writing, moved, deleted, attributes) bumps
that store's change count. ``Freshness`` is what a long-lived ``Searcher`` asks before
syncing each store: no change since its last sync -> skip the scan entirely; a change ->
the index's own incremental sync, once.

Events arrive on the watcher's thread a moment after the write. So that a search right
after a write (an editor's save, ``open(path, "w")``) sees it, ``settle`` writes a mark
file of this process inside each store and waits for the mark's own event: inotify
delivers one instance's events in order, so every earlier write has been counted by
then. A mark that does not come back in time counts as a change (a full sync, never a
stale answer). A store that cannot be watched falls back to the time-based re-check.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEventHandler

log = logging.getLogger("memx.server")

WATCHED = ("memories", "archive")
# How long a search waits for its mark's event before it syncs the store anyway (the
# event takes well under a millisecond; a loaded machine can take far longer).
SETTLE_SECONDS = 0.2
# A store that cannot be watched is re-checked like this (generator/search.py).
UNWATCHED_MAX_AGE = 1.0


_EPOCHS = itertools.count(1)


class Root:
    """One watched store directory and what its events said."""

    def __init__(self, path: str):
        self.path = path
        self.prefix = path.rstrip(os.sep) + os.sep
        # (epoch, count): a directory watched again (after it vanished) never looks
        # unchanged to a searcher that synced it under the earlier watch
        self.epoch = next(_EPOCHS)
        self.changes = 0
        self.alive = True
        # False once the mark cannot be written (a read-only store): then the
        # time-based re-check, since settle could not vouch for it
        self.markable = True
        # Mark N is the file "<prefix>N": an event names the mark it is about, so the
        # several events one file creation makes (created, closed) are not miscounted.
        self.mark_prefix = os.path.join(path, "local", f"server-watch-{os.getpid()}-")
        self.marks_sent = 0
        self.marks_seen = 0
        self.cond = threading.Condition()
        self.watch: Any = None

    def event(self, src: str, dest: str | None) -> None:
        for path in (src, dest):
            if not path:
                continue
            if path.startswith(self.mark_prefix):
                try:
                    number = int(path[len(self.mark_prefix):])
                except ValueError:
                    continue
                with self.cond:
                    if number > self.marks_seen:
                        self.marks_seen = number
                        self.cond.notify_all()
                continue
            if path == self.path or path == self.prefix:
                self.changed(gone=not os.path.isdir(self.path))
            elif path.startswith(self.prefix):
                top = path[len(self.prefix):].split(os.sep, 1)[0]
                if top in WATCHED:
                    self.changed()

    def changed(self, gone: bool = False) -> None:
        with self.cond:
            self.changes += 1
            if gone:
                self.alive = False

    def send_mark(self) -> int | None:
        """Create this process's next mark (and drop the previous one); the number to
        wait for, or None when it cannot be written."""
        with self.cond:
            number = self.marks_sent + 1
        try:
            os.makedirs(os.path.dirname(self.mark_prefix), exist_ok=True)
            os.close(os.open(f"{self.mark_prefix}{number}", os.O_WRONLY | os.O_CREAT, 0o600))
        except OSError:
            self.markable = False
            return None
        with self.cond:
            self.marks_sent = number
        self._drop_mark(number - 1)
        return number

    def _drop_mark(self, number: int) -> None:
        if number > 0:
            try:
                os.unlink(f"{self.mark_prefix}{number}")
            except OSError:
                pass

    def close(self) -> None:
        self._drop_mark(self.marks_sent)


class Watcher:
    """All the store directories one process watches, on one watchdog observer."""

    def __init__(self) -> None:
        self.roots: dict[str, Root] = {}
        self._observer: Any = None
        self._failed: set[str] = set()
        self._lock = threading.Lock()

    def root(self, path: Path) -> Root | None:
        """The watched root for a store directory (watched from now on), or None when it
        does not exist or cannot be watched."""
        key = str(path)
        with self._lock:
            root = self.roots.get(key)
            if root is not None:
                if root.alive:
                    return root
                self._unschedule(self.roots.pop(key))
            if key in self._failed or not path.is_dir():
                return None
            root = Root(key)
            try:
                root.watch = self._start().schedule(_Handler(root), key, recursive=True,
                                                    event_filter=_event_types())
            except OSError as exc:  # inotify limits, a vanished directory
                self._failed.add(key)
                log.warning(f"cannot watch {key} ({exc}); re-checking it by time instead")
                return None
            self.roots[key] = root
            return root

    def settle(self, roots: Iterable[Root], timeout: float | None = None) -> None:
        """Wait until every event written before now has been counted (see above); a
        mark not back within ``timeout`` (default SETTLE_SECONDS) counts as a change."""
        waiting = [(root, root.send_mark()) for root in roots]
        deadline = time.monotonic() + (SETTLE_SECONDS if timeout is None else timeout)
        for root, target in waiting:
            with root.cond:
                while target is not None and root.marks_seen < target:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    root.cond.wait(left)
                if target is None or root.marks_seen < target:
                    root.changes += 1  # not sure: sync

    def forget(self, keep: set[str]) -> None:
        """Stop watching every root not in ``keep`` (their searchers were dropped)."""
        with self._lock:
            for key in [k for k in self.roots if k not in keep]:
                self._unschedule(self.roots.pop(key))

    def _unschedule(self, root: Root) -> None:
        root.close()
        if self._observer is not None and root.watch is not None:
            try:
                self._observer.unschedule(root.watch)
            except (KeyError, OSError):
                pass

    def stop(self) -> None:
        with self._lock:
            for root in self.roots.values():
                root.close()
            if self._observer is not None:
                self._observer.stop()
                self._observer.join(timeout=2)
                self._observer = None
            self.roots.clear()

    def _start(self) -> Any:
        if self._observer is None:
            import warnings

            from watchdog.observers import Observer

            # watchdog notes a directory re-created under a recursive watch (tantivy's
            # lexical/ after a rebuild) as a RuntimeWarning; the watch stays correct
            warnings.filterwarnings("ignore", message="Callback with id",
                                    category=RuntimeWarning)
            self._observer = Observer()
            self._observer.daemon = True
            self._observer.start()
        return self._observer


class Freshness:
    """A Searcher's view of the watcher (``Searcher.watch``): for each store, the change
    count its index was last synced at."""

    def __init__(self, watcher: Watcher):
        self.watcher = watcher
        self.synced: dict[str, tuple[int, int]] = {}

    def settle(self, indexes: Iterable[Any]) -> None:
        roots = [self.watcher.root(index.store.root) for index in indexes]
        self.watcher.settle(r for r in roots if r is not None)

    def max_age(self, index: Any) -> float:
        """inf: nothing changed since the last sync, skip the scan; 0: sync now."""
        root = self.watcher.root(index.store.root)
        if root is None or not root.markable:
            return UNWATCHED_MAX_AGE
        now = (root.epoch, root.changes)
        if self.synced.get(root.path) == now:
            return math.inf
        # recorded before the sync: a change during it is seen by the next search
        self.synced[root.path] = now
        return 0.0


def _event_types() -> list[Any]:
    from watchdog import events as ev

    # Not opened / closed-without-writing: reading the files (a sync) would echo back.
    return [ev.FileCreatedEvent, ev.FileModifiedEvent, ev.FileDeletedEvent,
            ev.FileMovedEvent, ev.FileClosedEvent, ev.FileAttribEvent, ev.DirCreatedEvent,
            ev.DirDeletedEvent, ev.DirMovedEvent]


class _Handler(FileSystemEventHandler):
    def __init__(self, root: Root):
        super().__init__()
        self.root = root

    def dispatch(self, event: Any) -> None:
        dest = getattr(event, "dest_path", None) or None
        self.root.event(os.fsdecode(event.src_path), os.fsdecode(dest) if dest else None)
