"""Per-clone statistics as an append-only log folded into a compacted table (issue 15).

Statistics a search updates (recall counts: store/recall.py; co-recalled pairs:
store/corecall.py) are appended, never rewritten on the request path: rewriting a
whole file per search grows with everything ever counted. Both share this mechanism:

- the log: a header line ``<magic> <generation>`` (random, new at each compaction),
  then one line per update. An append takes an exclusive lock on the log itself, so no
  line is lost between concurrent writers or to a compaction.
- the table: what the log held, folded in. Its first line says which log generation
  it holds and up to which byte, so a compaction that stops between writing the table
  and emptying the log counts nothing twice: readers skip the lines the table holds.
- the legacy file an earlier version rewrote whole: read while there is no table,
  removed by the first compaction (which folds it in).

What a line means, and the table's own format, belong to the caller: it passes a
``Fold`` that makes the new table from the old one (empty: read the legacy file) and
the log's lines that the old table does not hold yet.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memx_cli.fsutil import atomic_write

# (old table, its unfolded log lines, the new table's first line) -> the new table
Fold = Callable[[bytes, list[str], str], bytes]
MARK_PEEK = 128  # bytes that hold a table's first line or a log's header


@dataclass(frozen=True)
class Ledger:
    """One statistic's files in a store's ``local/`` folder."""

    directory: Path
    log_name: str
    table_name: str
    magic: str
    legacy_name: str = ""

    @property
    def log_path(self) -> Path:
        return self.directory / self.log_name

    @property
    def table_path(self) -> Path:
        return self.directory / self.table_name

    # ------------------------------------------------------------ writing

    def append(self, line: bytes, compact_bytes: int, fold: Fold) -> None:
        """Append one line (its own newline included) under the log's lock; fold the
        log into the table when it grew past ``compact_bytes`` or there is no table."""
        fd = self.open_log(create=True)
        assert fd is not None
        try:
            lock(fd, exclusive=True)
            self.append_locked(fd, line, compact_bytes, fold)
        finally:
            os.close(fd)  # releases the lock

    def append_locked(self, fd: int, line: bytes, compact_bytes: int, fold: Fold) -> None:
        """``append`` on a log descriptor the caller holds open and locked."""
        size = os.fstat(fd).st_size
        if size == 0:
            line = self.header() + line
        # Statistics, not memories: no fsync (a lost count after a power cut is harmless).
        os.write(fd, line)
        # A table is missing only before this log's first compaction (the first update
        # after an upgrade folds in the legacy file), so look only then.
        if size + len(line) > compact_bytes or (size == 0 and not self.table_path.exists()):
            self.compact_locked(fd, fold)

    def pending(self) -> bool:
        """Whether the log holds lines past its header: what a compaction would fold
        (the memx server folds them in a quiet spell, not inside a search)."""
        try:
            size = os.stat(self.log_path).st_size
        except OSError:
            return False
        return size > len(self.header())

    def compact(self, fold: Fold) -> None:
        """Fold the log into the table now."""
        fd = self.open_log(create=False)
        if fd is None:
            return
        try:
            lock(fd, exclusive=True)
            self.compact_locked(fd, fold)
        finally:
            os.close(fd)

    def compact_locked(self, fd: int, fold: Fold) -> None:
        """With the log locked: write the table with everything, then empty the log."""
        log = read_fd(fd)
        table = read(self.table_path)
        generation, _ = self.log_header(log)
        new = fold(table, self.unfolded(table, log), f"{self.magic} {generation or '-'} {len(log)}")
        atomic_write(self.table_path, new, durable=False)
        # The table now says "generation G folded up to here": stopping before the next
        # line leaves a log whose lines the table already holds, and readers skip them.
        os.ftruncate(fd, 0)
        os.write(fd, self.header())
        if self.legacy_name:
            with contextlib.suppress(FileNotFoundError):
                (self.directory / self.legacy_name).unlink()

    def open_log(self, create: bool) -> int | None:
        """The log opened for appending (None when absent and not ``create``)."""
        flags = os.O_RDWR | os.O_APPEND | (os.O_CREAT if create else 0)
        try:
            return os.open(self.log_path, flags, 0o644)
        except FileNotFoundError:
            if not create:
                return None
            self.directory.mkdir(parents=True, exist_ok=True)
            return os.open(self.log_path, flags, 0o644)

    def header(self) -> bytes:
        return f"{self.magic} {os.urandom(8).hex()}\n".encode()

    # ------------------------------------------------------------ reading

    @contextlib.contextmanager
    def reading(self) -> Iterator[tuple[bytes, bytes]]:
        """(table, log) as one consistent pair (b"" for a missing file): a shared lock on
        the log keeps a compaction from moving lines from one into the other between
        the two reads."""
        try:
            fd = os.open(self.log_path, os.O_RDONLY)
        except FileNotFoundError:
            yield read(self.table_path), b""
            return
        try:
            lock(fd, exclusive=False)
            yield read(self.table_path), read_fd(fd)
        finally:
            os.close(fd)

    def log_header(self, log: bytes) -> tuple[str, int]:
        """(generation, where the lines start) of a log; ('', 0) without a header."""
        first, _, _ = bytes(log[:MARK_PEEK]).partition(b"\n")
        parts = first.decode(errors="replace").split()
        if len(parts) == 2 and parts[0] == self.magic:
            return parts[1], len(first) + 1
        return "", 0

    def first_unfolded(self, table: Any, generation: str, start: int) -> int:
        """Where the lines of the log of ``generation`` (they start at ``start``) that
        ``table`` (bytes or a mapping of the file) does not hold begin."""
        first = bytes(table[:MARK_PEEK]).partition(b"\n")[0] if table else b""
        parts = first.decode(errors="replace").split()
        if generation and len(parts) == 3 and parts[0] == self.magic and parts[1] == generation:
            with contextlib.suppress(ValueError):
                return max(start, int(parts[2]))
        return start

    def unfolded(self, table: Any, log: bytes) -> list[str]:
        """The log's lines the table does not hold yet."""
        generation, start = self.log_header(log)
        start = self.first_unfolded(table, generation, start)
        return log[start:].decode(errors="replace").splitlines()


def read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""


def read_fd(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0) if size else b""


def lock(fd: int, exclusive: bool) -> None:
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)


def unlock(fd: int) -> None:
    """Release ``lock`` on a descriptor that stays open."""
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)
