"""The watcher without marks or threads (issue 15): inotify read at settle time.

The kernel queues an inotify event inside the syscall that makes it (the close after
writing, the rename, the unlink, the mkdir), before that syscall returns. So when a
request settles, every write completed before it is either counted already or waiting
in the descriptor's queue, and reading the queue until it is empty (it never blocks) is
an exact barrier: no mark file, no thread, no wait. ``Drain`` keeps the journal model of
freshness/journal.py (``Root``: epochs, the journal of ids, ``unknown``, ``since``) and is
read by the same ``Watched``.

Only what is needed is watched, each folder on its own (not recursively):

- the store directory: ``memories/`` or ``archive/`` made, moved or removed (a checkout,
  a restore) is an unknown change, and the folder is watched anew; ``cache/`` (the
  index) moved or removed is an unknown change too; the store itself
  removed or moved: the root is gone (a new watch, a new epoch, when it is back);
- ``memories/`` and ``archive/``: a file created, closed after writing, moved from or
  to, deleted. A memory file's event names its id; a folder's event is unknown.

Writes to ``local/`` (the recall log on every search), ``cache/`` and the index folders
make no event at all. An overflowed queue (IN_Q_OVERFLOW) makes every root an unknown
change (a full check). Where inotify is missing or cannot start, ``open_watcher`` gives
watchdog's observer with marks (freshness/journal.py ``Watcher``); ``MEMX_WATCH=observer``
chooses that one here too (for tests and diagnosis).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable

from memx_cli.freshness import inotify as kernel
from memx_cli.freshness.journal import INDEX_FOLDER, WATCHED, Root, Roots, Watcher, memory_id

log = logging.getLogger("memx.server")

# On the store directory: a child made, moved or removed (only memories/ and archive/
# are looked at), the directory itself removed or moved.
ROOT_MASK = (kernel.IN_CREATE | kernel.IN_DELETE | kernel.IN_MOVED_FROM | kernel.IN_MOVED_TO
             | kernel.IN_DELETE_SELF | kernel.IN_MOVE_SELF | kernel.IN_ONLYDIR)
# On memories/ and archive/: not "modified" (each write) nor attribute changes: a file
# counts once it is closed after writing, and a touch changes no memory's content.
FOLDER_MASK = ROOT_MASK | kernel.IN_CLOSE_WRITE
_SELF = kernel.IN_DELETE_SELF | kernel.IN_MOVE_SELF | kernel.IN_UNMOUNT
# A child of the store removed, moved away or moved in (not made: the first index build
# makes cache/, and its searcher's check already reads it)
_GONE = kernel.IN_DELETE | kernel.IN_MOVED_FROM | kernel.IN_MOVED_TO


def open_watcher() -> Drain | Watcher:
    """The drained inotify watcher, or watchdog's observer with marks where inotify is
    missing or cannot start, or when ``MEMX_WATCH=observer`` asks for it."""
    if os.environ.get("MEMX_WATCH", "").strip().lower() != "observer":
        try:
            return Drain()
        except OSError as exc:
            log.info(f"inotify unavailable ({exc}); watching with watchdog's observer")
    return Watcher()


class Drain(Roots):
    """Every store directory one process watches, on one inotify descriptor read at
    settle time. Thread-safe: one drain at a time, under ``_lock``, so a settler that
    waited for another's drain then drains what came after its own moment."""

    kind = "inotify"

    def __init__(self) -> None:
        self._fd: kernel.Inotify | None = kernel.Inotify()
        self.roots: dict[str, Root] = {}
        self._lock = threading.Lock()
        # watch descriptor -> the (root, folder) it is for; folder None: the store itself
        self._wds: dict[int, list[tuple[Root, str | None]]] = {}
        # and back: each root's folder -> its watch descriptor
        self._held: dict[Root, dict[str | None, int]] = {}
        self._failed: dict[str, float] = {}
        self.late = 0  # marks not back in time: none here (`memx server status`)
        self.overflows = 0  # the kernel's queue overflowed (each a full check of all)
        self.events = 0  # events read

    def _can_watch(self) -> bool:
        return self._fd is not None

    def _start_watch(self, root: Root) -> None:
        self._held[root] = {}
        self._add(root, None)  # the store itself: raises when it cannot be watched
        for folder in WATCHED:
            self._add(root, folder)

    def _end_watch(self, root: Root) -> None:
        self._unwatch(root)

    def settle(self, roots: Iterable[Root] = (), timeout: float | None = None) -> None:
        """Count every event queued before now (of every root: one descriptor)."""
        with self._lock:
            self._drain()

    def lost(self) -> None:
        """Events were dropped: every root checks in full once."""
        with self._lock:
            self._lost()

    def forget(self, keep: set[str]) -> None:
        """Stop watching every root not in ``keep`` (their searchers were dropped)."""
        with self._lock:
            for key in [k for k in self.roots if k not in keep]:
                self._unwatch(self.roots.pop(key))

    def stop(self) -> None:
        with self._lock:
            for root in self.roots.values():
                self._unwatch(root)
            self.roots.clear()
            if self._fd is not None:
                self._fd.close()
                self._fd = None

    # ------------------------------------------------------------------ under _lock

    def _drain(self) -> None:
        if self._fd is None:
            return
        try:
            self.apply(self._fd.read())
        except Exception as exc:  # events read but not counted: vouch for nothing
            log.warning(f"reading the inotify queue failed ({exc}); checking in full")
            self._lost()

    def apply(self, events: Iterable[tuple[int, int, int, bytes]]) -> None:
        """Count events as read from the descriptor (``inotify.parse``), in order; the
        caller holds the lock (``settle``) or owns the watcher (a test)."""
        for wd, mask, _, name in events:
            self.events += 1
            if mask & kernel.IN_Q_OVERFLOW:
                self.overflows += 1
                log.info("the inotify queue overflowed; checking every store in full")
                self._lost()
                continue
            for root, folder in list(self._wds.get(wd, ())):
                if mask & kernel.IN_IGNORED:  # the kernel dropped the watch
                    self._forget_wd(wd)
                    root.changed(None, gone=folder is None)
                elif folder is None:
                    self._store_event(root, mask, os.fsdecode(name))
                elif mask & (_SELF | kernel.IN_ISDIR):
                    root.changed(None)  # (moved away: the store's event re-watches it)
                else:
                    found = memory_id(os.fsdecode(name))
                    if found is not None:
                        root.changed(found)

    def _store_event(self, root: Root, mask: int, name: str) -> None:
        if mask & _SELF:
            root.changed(None, gone=True)
        elif name in WATCHED:  # memories/ or archive/ made, moved or removed
            root.changed(None)
            self._add(root, name)
        elif name == INDEX_FOLDER and mask & _GONE:  # the index folder removed or moved
            root.changed(None)

    def _add(self, root: Root, folder: str | None) -> None:
        """Watch the store (folder None; errors raised) or one of its folders, anew: a
        folder that is not there now is watched once the store's event says it is."""
        assert self._fd is not None
        path = root.path if folder is None else os.path.join(root.path, folder)
        try:
            wd = self._fd.add_watch(path, ROOT_MASK if folder is None else FOLDER_MASK)
        except OSError as exc:
            if folder is None:
                raise
            wd = None
            if not isinstance(exc, FileNotFoundError | NotADirectoryError):
                # the folder's events cannot be heard: the store is re-checked by time
                log.warning(f"cannot watch {path} ({exc}); re-checking it by time instead")
                root.markable = False
        held = self._held.setdefault(root, {})
        old = held.pop(folder, None)
        if old is not None and old != wd:  # (the same folder still: its watch stays)
            self._drop(old, root)
        if wd is not None:
            held[folder] = wd
            if old != wd:
                self._wds.setdefault(wd, []).append((root, folder))

    def _drop(self, wd: int, root: Root) -> None:
        entries = [e for e in self._wds.get(wd, ()) if e[0] is not root]
        if entries:
            self._wds[wd] = entries  # the same folder under another root's path
        else:
            self._wds.pop(wd, None)
            if self._fd is not None:
                self._fd.rm_watch(wd)

    def _forget_wd(self, wd: int) -> None:
        for root, folder in self._wds.pop(wd, ()):
            held = self._held.get(root, {})
            if held.get(folder) == wd:
                del held[folder]

    def _unwatch(self, root: Root) -> None:
        for wd in list(self._held.pop(root, {}).values()):
            self._drop(wd, root)

    def watches(self, root: Root) -> dict[str | None, int]:
        """The folders of ``root`` watched now (None: the store itself), each with its
        watch descriptor."""
        with self._lock:
            return dict(self._held.get(root, {}))

    def _lost(self) -> None:
        for root in self.roots.values():
            root.lost()

