"""Which memory files changed since a searcher last synced a store: file-system events,
not stat scans (issue 15).

A ``Root`` is one watched store directory (``.memx/``, the global store, a source's
store) and its journal: an event for a memory file (``memories/ID.yaml``,
``archive/ID.yaml``: created, closed after writing, moved from or to, deleted) notes that
id. ``Watched`` is what a long-lived ``Searcher`` asks before syncing each store:
nothing changed since its last sync -> no check at all; only files it can name -> the
index re-reads just those (``StoreIndex.sync(known=...)``: their stat and manifest rows,
as after memx's own writes); anything else -> the full check (a stat of every file). The
watcher cannot vouch for, and so leaves to the full check: an event for a folder (a
folder made, moved or removed in the store: a checkout, a restore), more than
``MAX_KNOWN`` changed files since the searcher's last sync, a mark not back in time
(below), events the kernel dropped (its queue overflowed), and a store seen for the
first time or watched anew. Files in the memory folders that are no memory files (an
editor's swap and backup files, dot files, other names) are what the full check skips
too: they wake nothing.

Two watchers fill the journal. On Linux, freshness/drain.py reads inotify when a request
settles (no thread, no mark). Elsewhere, or with ``MEMX_WATCH=observer``, the
``Watcher`` here: watchdog's observer, each store watched recursively. Its events
arrive on watchdog's threads a moment after the write, so ``settle`` writes a mark file
of this process inside each store and waits for the mark's own event: one watch
delivers its events in order, so every earlier write has been counted by then. A mark
that does not come back in time counts as a change (a full sync, never a stale answer).
A store that cannot be watched falls back to the time-based re-check.
"""
from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from watchdog.events import FileSystemEventHandler

from memx_cli.freshness import ByTime

if TYPE_CHECKING:
    from memx_cli.freshness.drain import Drain
    from memx_cli.index import StoreIndex, SyncReport
    from memx_cli.index.sync import Aside

log = logging.getLogger("memx.server")

WATCHED = ("memories", "archive")
# The store's index folder: removed or moved (rm -r .memx/cache, a restore), the index a
# searcher holds open is no longer the store's: a full check re-reads its state. Its
# creation is no change (the first index build makes it).
INDEX_FOLDER = "cache"
# How long a search waits for its mark's event before it syncs the store anyway (the
# event takes well under a millisecond; a loaded machine can take far longer).
SETTLE_SECONDS = 0.2
# Changed memory files a searcher re-reads one by one; past this many since its last
# sync it scans instead. One named file costs two stats, a manifest row and a parse
# (~0.1-0.2 ms); a scan costs ~6 us a file, so at 512 the named files cost about what a
# scan of a 10k store does, and a bulk change (a checkout, an import) takes the scan
# whose cost it would reach anyway. It also bounds the journal (ids kept per store).
MAX_KNOWN = 512
# A store that could not be watched (the per-user inotify instances or watches ran out)
# is re-checked by time meanwhile, and its watch tried again this long after the failure.
RETRY_WATCH_SECONDS = 30.0
# watchdog logs a lost-events warning on these loggers when the kernel's queue overflowed
_OVERFLOW_LOGGERS = ("watchdog.observers.inotify_c", "watchdog.observers.inotify")


_EPOCHS = itertools.count(1)


def memory_id(name: str) -> str | None:
    """The id of a memory file's name, None for a name the full check skips."""
    return name[:-5] if name[:1] != "." and name.endswith(".yaml") and len(name) > 5 else None


class Root:
    """One watched store directory and what its events said."""

    def __init__(self, path: str):
        self.path = path
        self.prefix = path.rstrip(os.sep) + os.sep
        # (epoch, count): a directory watched again (after it vanished) never looks
        # unchanged to a searcher that synced it under the earlier watch
        self.epoch = next(_EPOCHS)
        self.changes = 0  # events counted so far: the journal's sequence number
        # id -> the sequence number of its latest event, oldest first; ``unknown``: the
        # latest event the watcher cannot name files for; ``dropped``: the latest event
        # of an id that no longer fits the journal
        self.journal: OrderedDict[str, int] = OrderedDict()
        self.unknown = 0
        self.dropped = 0
        self.memories = os.path.join(path, "memories")
        self.archive = os.path.join(path, "archive")
        # ids whose file has more than one name: an edit through a name outside the
        # watched folders (a hard link) makes no event here, so each check re-stats them
        self.linked: set[str] = set()
        self.alive = True
        # False once the watcher cannot vouch for the store (the observer's mark cannot
        # be written: a read-only store; a folder inotify cannot watch): the
        # time-based re-check
        self.markable = True
        # Mark N is the file "<prefix>N": an event names the mark it is about, so the
        # several events one file creation makes (created, closed) are not miscounted.
        self.mark_prefix = os.path.join(path, "local", f"server-watch-{os.getpid()}-")
        self.marks_sent = 0
        self.marks_seen = 0
        self.cond = threading.Condition()

    def event(self, src: str, dest: str | None, directory: bool = False) -> None:
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
                self.changed(None, gone=not os.path.isdir(self.path))
            elif path.startswith(self.prefix):
                top = path[len(self.prefix):].split(os.sep, 1)[0]
                if top in WATCHED:
                    self._memory_event(path, directory)
                elif top == INDEX_FOLDER and path == self.prefix + INDEX_FOLDER:
                    self.changed(None)

    def _memory_event(self, path: str, directory: bool) -> None:
        """A path under memories/ or archive/: the id of a memory file, nothing for a
        file the full check skips, unknown for a folder."""
        folder, name = os.path.split(path)
        if directory or folder not in (self.memories, self.archive):
            if directory or path in (self.memories, self.archive):
                self.changed(None)
            return  # a file in a sub-folder: no memory file (the scan skips folders)
        found = memory_id(name)
        if found is not None:
            self.changed(found)

    def changed(self, memory_id: str | None, gone: bool = False) -> None:
        """Note an event: for the file of ``memory_id``, or (None) one the watcher
        cannot name files for."""
        with self.cond:
            self.changes += 1
            if memory_id is None:
                self.unknown = self.changes
            else:
                self.journal[memory_id] = self.changes
                self.journal.move_to_end(memory_id)
                if len(self.journal) > MAX_KNOWN:
                    self.dropped = self.journal.popitem(last=False)[1]
            if gone:
                self.alive = False

    def since(self, seen: int) -> frozenset[str] | None:
        """The ids of the memory files changed after event number ``seen``, or None when
        the watcher cannot name them all (or they are more than MAX_KNOWN)."""
        with self.cond:
            if self.unknown > seen or self.dropped > seen:
                return None
            ids = []
            for memory_id, number in reversed(self.journal.items()):
                if number <= seen:
                    break
                ids.append(memory_id)
                if len(ids) > MAX_KNOWN:
                    return None
            return frozenset(ids)

    def lost(self) -> None:
        """Events were dropped: nothing the journal says can be vouched for."""
        self.changed(None)

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


class Roots:
    """The store directories a watcher watches, by path: the observer below and
    freshness/drain.py's inotify reader, each with its own three methods at the end."""

    roots: dict[str, Root]
    _failed: dict[str, float]  # store -> when watching it last failed (monotonic)
    _lock: threading.Lock

    def root(self, path: Path) -> Root | None:
        """The watched root for a store directory (watched from now on), or None when it
        does not exist or cannot be watched."""
        key = str(path)
        with self._lock:
            root = self.roots.get(key)
            if root is not None:
                if root.alive:
                    return root
                self._end_watch(self.roots.pop(key))
            failed = self._failed.get(key)
            if (not self._can_watch() or not path.is_dir() or (
                    failed is not None and time.monotonic() - failed < RETRY_WATCH_SECONDS)):
                return None
            root = Root(key)
            try:
                self._start_watch(root)
            except OSError as exc:  # inotify limits, a vanished directory
                self._failed[key] = time.monotonic()
                log.warning(f"cannot watch {key} ({exc}); re-checking it by time instead, "
                            f"and trying again in {RETRY_WATCH_SECONDS:.0f} s")
                return None
            if self._failed.pop(key, None) is not None:
                log.info(f"watching {key} again")
            self.roots[key] = root
            return root

    def unwatched(self) -> list[str]:
        """The stores re-checked by time because watching them failed (tried again
        RETRY_WATCH_SECONDS after each failure)."""
        with self._lock:
            return sorted(self._failed)

    def _can_watch(self) -> bool: raise NotImplementedError
    def _start_watch(self, root: Root) -> None: raise NotImplementedError  # OSError: cannot
    def _end_watch(self, root: Root) -> None: raise NotImplementedError


class Watcher(Roots):
    """All the store directories one process watches, on one watchdog observer (where
    inotify cannot be read at settle time: freshness/drain.py ``open_watcher``)."""

    kind = "observer"

    def __init__(self) -> None:
        self.roots: dict[str, Root] = {}
        self._observer: Any = None
        self._scheduled: dict[Root, Any] = {}  # root -> its watch on the observer
        self._failed: dict[str, float] = {}
        self._lock = threading.Lock()
        self._overflow = _Overflow(self)
        self.late = 0  # marks not back in time (each a full check)
        self.overflows = 0  # the kernel dropped events (each a full check of all)

    def _can_watch(self) -> bool:
        return True

    def _start_watch(self, root: Root) -> None:
        self._scheduled[root] = self._start().schedule(
            _Handler(root), root.path, recursive=True, event_filter=_event_types())

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
                root.lost()  # not sure: a full check
                if target is not None:
                    self.late += 1
                    log.info(f"the watch mark of {root.path} was not back in time; "
                             "checking its files in full")

    def forget(self, keep: set[str]) -> None:
        """Stop watching every root not in ``keep`` (their searchers were dropped)."""
        with self._lock:
            for key in [k for k in self.roots if k not in keep]:
                self._unschedule(self.roots.pop(key))

    def _unschedule(self, root: Root) -> None:
        root.close()
        scheduled = self._scheduled.pop(root, None)
        if self._observer is not None and scheduled is not None:
            try:
                self._observer.unschedule(scheduled)
            except (KeyError, OSError):
                pass

    _end_watch = _unschedule

    def lost(self) -> None:
        """The kernel dropped events (watchdog said so): every root scans once."""
        with self._lock:
            self.overflows += 1
            roots = list(self.roots.values())
        for root in roots:
            root.lost()

    def stop(self) -> None:
        with self._lock:
            for root in self.roots.values():
                root.close()
            if self._observer is not None:
                self._observer.stop()
                self._observer.join(timeout=2)
                self._observer = None
                self._overflow.remove()
            self.roots.clear()
            self._scheduled.clear()

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
            self._overflow.add()
            self._observer.start()
        return self._observer


class Watched:
    """A Searcher's view of the watcher (its ``Freshness``, memx_cli/freshness): for each
    store, the watch (epoch) and event number its index was last synced at. A store the
    watcher cannot vouch for is checked as without a watcher (``ByTime``)."""

    def __init__(self, watcher: Watcher | Drain,
                 resumed: MutableMapping[str, tuple[int, int]] | None = None,
                 trust_first: bool = False):
        self.watcher = watcher
        self.synced: dict[str, tuple[int, int]] = {}
        self.unwatched = ByTime()
        # The memx server's (issue 29): a large store's first open trusts its index as
        # the last check or write left it (``StoreIndex.open_trusted``); the full check
        # it skipped waits in ``unverified`` for ``verify``, which the server calls once
        # the answer is sent. Each store is trusted once per searcher.
        self.trust_first = trust_first
        self.trusted: set[str] = set()
        self.unverified: dict[str, _Verification] = {}
        # Where earlier searchers of this process left their stores (the memx server's
        # dropped searchers, issue 29): a store's first check here starts from there,
        # as if this searcher had made that check (the index on disk is what it left).
        self.resumed = resumed if resumed is not None else {}

    def settle(self, indexes: Iterable[StoreIndex]) -> None:
        roots = [self.watcher.root(index.store.root) for index in indexes]
        self.watcher.settle(r for r in roots if r is not None)

    def open(self, index: StoreIndex, want_vectors: bool) -> SyncReport:
        """``index.open_for_search`` with what the watcher knows (after ``settle``):
        no check when nothing changed, the changed files only when it can name them, a
        full check otherwise; the time-based re-check for a store it cannot watch. A
        finished look of a trusted first open is left to ``verify`` (the host calls it
        once the answer is sent): its take-in commits the text index (~130 ms at 100k
        memories), which a search does not wait for; the search answers as those before
        the look ended did, on the index's word plus every change the watcher named (a
        memory the caller wrote among them)."""
        return self._checked(index, lambda **how: index.open_for_search(want_vectors, **how),
                             lambda: self.unwatched.open(index, want_vectors),
                             lambda: index.open_trusted(want_vectors), want_vectors,
                             take=False)

    def sync(self, index: StoreIndex, **options: Any) -> SyncReport:
        """``index.sync(**options)`` likewise (the write path's check, after ``settle``);
        a store it cannot watch is checked in full, as is one whose first open was
        trusted and not yet verified (a write never builds on that trust)."""
        pending = self.unverified.get(str(index.store.root))
        if pending is not None and (pending.thread is None or pending.thread.is_alive()):
            self._unverify(str(index.store.root))  # (a finished look is taken in first)
        return self._checked(index, lambda **how: index.sync(**options, **how),
                             lambda: self.unwatched.sync(index, **options))

    def verify(self) -> bool:
        """The full check of each store whose first open was trusted (``trust_first``),
        off the request path: its look at every file runs on a thread of its own
        (``StoreIndex.look_aside``: at 1M memories a stat of every file takes seconds,
        longer than a command waits for the server), and the next call here (after the
        host's next answer, or in its quiet second) or a write's check of the store takes
        in what it found (a file written in place while no watcher watched), from which
        on the watcher's journal follows the store; a search does not (``open``). Until
        then nothing of the look is recorded: a process ended before the take-in leaves
        the state as it was, and the next start's look finds the file again. True when
        no store is left to check."""
        for path, pending in list(self.unverified.items()):
            if pending.thread is None:
                self._start(path, pending)
            elif not pending.thread.is_alive():
                self._take(path)
        return not self.unverified

    def _start(self, path: str, pending: _Verification) -> None:
        self.settle([pending.index])
        root = self.watcher.root(pending.index.store.root)
        if root is None or not root.markable:
            self._unverify(path)  # the next check is the time-based one, in full
            return
        # taken before the look: whatever changes after it is in the journal
        pending.position = (root.epoch, root.changes)

        def look() -> None:
            try:
                aside = pending.index.look_aside()
                if aside.linked is None:
                    aside.linked = _linked(root)
                pending.aside = aside
            except Exception as exc:  # the store's next check is then in full
                log.warning(f"checking {path} in full failed: {exc}")

        pending.thread = threading.Thread(target=look, name="memx-verify", daemon=True)
        pending.thread.start()

    def _take(self, path: str) -> None:
        """Take in a finished look aside (the index's full check with it); when the index
        moved meanwhile (a write), the look starts again."""
        pending = self.unverified[path]
        aside = pending.aside
        if aside is None or pending.position is None:
            self._unverify(path)  # it failed: the next check is in full
            return
        if pending.index.saved_state() != aside.state:
            self.unverified[path] = _Verification(pending.index, pending.want_vectors)
            return
        del self.unverified[path]
        pending.index.open_for_search(pending.want_vectors, aside=aside)
        self.synced[path] = pending.position
        root = self.watcher.root(pending.index.store.root)
        if root is not None:
            root.linked = set(aside.linked or ())

    def _unverify(self, path: str) -> None:
        """Forget where a trusted first open left a store: its next check is in full."""
        self.unverified.pop(path, None)
        self.synced.pop(path, None)

    def _checked(self, index: StoreIndex, check: Callable[..., SyncReport],
                 unwatched: Callable[[], SyncReport],
                 trusted: Callable[[], SyncReport | None] | None = None,
                 want_vectors: bool = False, take: bool = True) -> SyncReport:
        root = self.watcher.root(index.store.root)
        if root is None or not root.markable:
            return unwatched()
        pending = self.unverified.get(root.path)
        if (take and pending is not None and pending.thread is not None
                and not pending.thread.is_alive()):
            self._take(root.path)  # what the full check found comes before a write's check
        # taken before the check: a change during it is seen by the next one
        now = (root.epoch, root.changes)
        last = self.synced.get(root.path)
        if last is None:
            last = self.resumed.pop(root.path, None)
        if (last is None and trusted is not None and self.trust_first
                and root.path not in self.trusted):
            self.trusted.add(root.path)
            report = trusted()
            if report is not None:  # later checks follow the watcher from here
                self.synced[root.path] = now
                self.unverified[root.path] = _Verification(index, want_vectors)
                return report
        known = root.since(last[1]) if last is not None and last[0] == root.epoch else None
        if known is not None and root.linked:
            known = known | root.linked
        scans = index.scans
        report = check(known=known) if known is not None else check()
        self.synced[root.path] = now  # only once the check is through
        if known is None and index.scans > scans:
            root.linked = set(index.linked)  # the check's scan saw every file's links
        else:
            _note_links(root, known)
        return report


def verify_trusted(freshness: object, where: object) -> bool:
    """``Watched.verify`` of a long-lived searcher's freshness, for its two hosts (the memx
    server, `memx mcp`): called once an answer is sent and when idle, it begins the
    full check a trusted first open put off, or takes in what that check found. A
    failure is logged, never raised (the store's next check is then in full). True
    when no store of it waits for that check."""
    if not isinstance(freshness, Watched) or not freshness.unverified:
        return True
    try:
        return freshness.verify()
    except Exception as exc:  # never end the host
        log.warning(f"checking {where} in full failed: {exc}")
        return False


class _Verification:
    """A store's full check after a trusted first open: its index, whether vectors were
    wanted, and once started the journal's position before it, its thread and what the
    thread's look found."""

    def __init__(self, index: StoreIndex, want_vectors: bool):
        self.index = index
        self.want_vectors = want_vectors
        self.position: tuple[int, int] | None = None
        self.thread: threading.Thread | None = None
        self.aside: Aside | None = None


def _linked(root: Root) -> set[str]:
    """The ids of the memory files with more than one name (a stat of every file)."""
    linked = set()
    for folder in (root.archive, root.memories):
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                found = memory_id(entry.name)
                try:
                    if found is not None and entry.stat().st_nlink > 1:
                        linked.add(found)
                except OSError:
                    continue
    return linked


def _note_links(root: Root, ids: Iterable[str] | None) -> None:
    """Update ``root.linked`` after a check: every memory file after a full check
    (``ids`` None; one more stat a file, as rare as the full check), else the files of
    ``ids``. A hard link made after the store's last full check, to a file that had no
    event since, makes no event (the kernel reports a link count change to no folder):
    it is noticed at the next full check."""
    if ids is None:
        root.linked = _linked(root)
        return
    for found in ids:
        links = 0
        for folder in (root.memories, root.archive):
            try:
                links = max(links, os.stat(os.path.join(folder, f"{found}.yaml")).st_nlink)
            except OSError:
                continue
        if links > 1:
            root.linked.add(found)
        else:
            root.linked.discard(found)


def _event_types() -> list[Any]:
    from watchdog import events as ev

    # Not opened / closed-without-writing: reading the files (a sync) would echo back.
    # Not modified (each write) either: a write counts once its file is closed after
    # writing, so appends through a descriptor kept open (the recall log, an SQLite
    # journal) never wake this thread; the kernel mask then also leaves out attribute
    # changes (a touch), which change no memory's content.
    return [ev.FileCreatedEvent, ev.FileDeletedEvent, ev.FileMovedEvent, ev.FileClosedEvent,
            ev.DirCreatedEvent, ev.DirDeletedEvent, ev.DirMovedEvent]


class _Handler(FileSystemEventHandler):
    def __init__(self, root: Root):
        super().__init__()
        self.root = root

    def dispatch(self, event: Any) -> None:
        dest = getattr(event, "dest_path", None) or None
        if event.event_type == "created" and os.path.basename(
                os.fsdecode(event.src_path)) == INDEX_FOLDER:
            return  # the first index build (see INDEX_FOLDER)
        self.root.event(os.fsdecode(event.src_path), os.fsdecode(dest) if dest else None,
                        bool(event.is_directory))


class _Overflow(logging.Handler):
    """Hears watchdog's warning that the kernel's event queue overflowed (events were
    lost, and watchdog tells its handlers nothing else) and makes every root scan."""

    def __init__(self, watcher: Watcher):
        super().__init__(logging.WARNING)
        self.watcher = watcher

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.watcher.lost()

    def add(self) -> None:
        for name in _OVERFLOW_LOGGERS:
            logger = logging.getLogger(name)
            if logger.getEffectiveLevel() > logging.WARNING:
                logger.setLevel(logging.WARNING)  # else the warning is never made
            logger.addHandler(self)

    def remove(self) -> None:
        for name in _OVERFLOW_LOGGERS:
            logging.getLogger(name).removeHandler(self)
