"""Recall statistics for a long-lived process (the MCP server, the memx server): the same
files and locks as ``recall`` (read its docstring first), kept open between searches.

A one-shot command reads the table and the whole log once, which is all it ever does.
A server searches again and again, and each search both reads the statistics of its
candidates and appends its results (issue 15: at an agent's pace this was a share of
every request, the log re-parsed whole up to ``COMPACT_BYTES``). ``LiveRecalls`` keeps,
per store:

- the log open: an append is one locked write, no path lookups, no directory check;
- the table's bytes, read again only when its identity (inode, size, change time) differs;
- the log's entries the table does not hold, folded into counts, reading only the bytes
  appended since the last search; a new generation (a compaction) starts over.

Every read still happens under the log's shared lock, as in ``recall.counts``, so the
table and the log are one consistent pair, and the answers are the same as those of
``recall.counts`` at that moment (tests/test_recall_live.py checks both ways).
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memx_cli.store import recall
from memx_cli.store.files import Store
from memx_cli.store.ledger import MARK_PEEK, lock, unlock


@dataclass
class _Log:
    """One store's open log and what has been read of it and of its table."""

    fd: int
    table_id: tuple[int, int, int] | None = None
    table: Any = b""  # bytes or a read-only mmap of the table
    generation: str = ""
    read_to: int = 0  # the log's bytes folded into ``extra`` end here
    extra: recall.Stats = field(default_factory=dict)


class LiveRecalls:
    """``recall.record`` and ``recall.counts`` for a process that searches many times."""

    def __init__(self) -> None:
        self._logs: dict[str, _Log] = {}

    def record(self, store: Store, ids: Iterable[str]) -> None:
        """Count one recall for each id, as ``recall.record`` does."""
        line = recall.line(ids)
        if line is None:
            return
        log = self._open(store)
        assert log is not None  # created when missing
        lock(log.fd, exclusive=True)
        try:
            recall.ledger(store).append_locked(log.fd, line, recall.COMPACT_BYTES,
                                               recall.folder(store))
        finally:
            unlock(log.fd)

    def counts(self, store: Store, ids: Iterable[str]) -> recall.Stats:
        """The statistics of ``ids`` (those ever recalled), as ``recall.counts``."""
        wanted = set(ids)
        if not wanted:
            return {}
        log = self._open(store, create=False)
        if log is None:  # no log yet, or not ours to write: read it the one-shot way
            return recall.counts(store, wanted)
        lock(log.fd, exclusive=False)
        try:
            self._catch_up(store, log)
        finally:
            unlock(log.fd)
        found = {i: row for i in wanted if (row := recall._lookup(log.table, i)) is not None}
        for memory_id in wanted & log.extra.keys():
            count, last = log.extra[memory_id]
            old_count, old_last = found.get(memory_id, (0, ""))
            found[memory_id] = (old_count + count, max(old_last, last))
        return found

    # ------------------------------------------------------------ internals

    def _open(self, store: Store, create: bool = True) -> _Log | None:
        path = store.state_dir / recall.LOG
        log = self._logs.get(str(path))
        if log is not None and os.fstat(log.fd).st_nlink == 0:
            self._logs.pop(str(path))  # the file was deleted: a new one from here on
            log = None
        if log is None:
            flags = os.O_RDWR | os.O_APPEND | (os.O_CREAT if create else 0)
            try:
                fd = os.open(path, flags, 0o644)
            except FileNotFoundError:
                if not create:
                    return None
                path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, flags, 0o644)
            except PermissionError:
                if create:
                    raise
                return None  # a store this process may read but not write (a source)
            log = _Log(fd)
            weakref.finalize(log, os.close, fd)
            self._logs[str(path)] = log
        return log

    def _catch_up(self, store: Store, log: _Log) -> None:
        """With the log's shared lock: bring the table and the unfolded entries up to
        date, reading only what changed since the last call."""
        try:
            st = os.stat(store.state_dir / recall.TABLE)
            table_id: tuple[int, int, int] | None = (st.st_ino, st.st_size, st.st_ctime_ns)
        except FileNotFoundError:
            table_id = None
        book = recall.ledger(store)
        head = os.pread(log.fd, MARK_PEEK, 0)
        generation, start = book.log_header(head)
        size = os.fstat(log.fd).st_size
        if (table_id != log.table_id or table_id is None or generation != log.generation
                or size < log.read_to):
            log.table = _mapped(store.state_dir / recall.TABLE)
            if not log.table:
                log.table = recall._legacy_table(store)
            log.table_id, log.generation, log.extra = table_id, generation, {}
            log.read_to = book.first_unfolded(log.table, generation, start)
        if size > log.read_to:
            tail = os.pread(log.fd, size - log.read_to, log.read_to)
            complete = tail.rfind(b"\n") + 1  # a line being appended is read next time
            recall._fold(log.extra, recall._entries(
                tail[:complete].decode(errors="replace").splitlines()))
            log.read_to += complete


def _mapped(path: Path) -> Any:
    """The table memory-mapped (b"" when absent or empty): a search looks up a few rows
    by binary search, so at 100k recalled memories (4 MB) reading it whole would be most
    of the cost; a compaction replaces the file by rename, never in place, so the
    mapping stays valid."""
    import mmap

    try:
        with open(path, "rb") as handle:
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (FileNotFoundError, ValueError):  # ValueError: an empty file
        return b""

