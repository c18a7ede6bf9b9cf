"""Per-clone recall statistics (SPEC 2, 3.3): how often and when each memory was shown.

Kept under ``local/``, never in the tracked memory files, so reading memory never dirties
the work tree. Every search counts its results, so the cost of counting must not grow
with the number of memories ever recalled (issue 15: rewriting one JSON file per search
took 407 ms at 100k). Two files:

- ``recalls.log``: one line appended per search, ``<time> <id> <id> ...``, after a header
  line naming the log's generation. Appends take an exclusive lock on the log itself, so
  no count is lost between concurrent writers or to a compaction.
- ``recalls.tab``: the compacted counts, sorted by id in fixed-width rows, so a search
  looks up its candidates by binary search instead of parsing every row. Its first row
  says which log generation it has folded in, and up to which byte: a compaction that
  stops between writing the table and emptying the log counts nothing twice.

A log past ``COMPACT_BYTES`` is folded into a new table by the writer that crossed it.
The ``recalls.json`` of earlier versions is read until the first compaction folds it in.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from memx_cli.clock import now_iso
from memx_cli.fsutil import atomic_write
from memx_cli.store.files import Store
from memx_cli.store.ids import ID_LENGTH

LOG, TABLE, LEGACY = "recalls.log", "recalls.tab", "recalls.json"
# ~1,000 searches of 10 results: a compaction (a full table rewrite, ~0.1 s per 100k
# recalled memories) is then a small share of the searches that paid for it.
COMPACT_BYTES = 256 * 1024
STAMP = 20  # canonical UTC time, 2026-12-01T15:47:12Z
COUNT = 9
ROW = ID_LENGTH + 1 + COUNT + 1 + STAMP + 1  # "<id> <count> <stamp>\n"
MAGIC = "#memx-recalls"

Stats = dict[str, tuple[int, str]]


def load(store: Store) -> Stats:
    """id -> (recall count, last recall time), every memory ever recalled."""
    with _reading(store) as (table, log):
        stats = _parse_table(table)
        _fold(stats, _unfolded(table, log))
    return stats


def counts(store: Store, ids: Iterable[str]) -> Stats:
    """The statistics of ``ids`` only (memories never recalled are left out): a binary
    search per id in the table, so a search pays for its candidates, not the store."""
    wanted = set(ids)
    with _reading(store) as (table, log):
        found = {i: row for i in wanted if (row := _lookup(table, i)) is not None}
        extra: Stats = {}
        _fold(extra, _unfolded(table, log), wanted)
    for memory_id, (count, last) in extra.items():
        old_count, old_last = found.get(memory_id, (0, ""))
        found[memory_id] = (old_count + count, max(old_last, last))
    return found


def record(store: Store, ids: Iterable[str]) -> None:
    """Count one recall for each id (results actually returned to a user or agent)."""
    wanted = [i for i in dict.fromkeys(ids) if len(i) == ID_LENGTH and i.isascii() and i.isalnum()]
    if not wanted:
        return
    path = store.local_dir / LOG
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        _flock(fd, exclusive=True)
        line = f"{now_iso()} {' '.join(wanted)}\n".encode()
        if os.fstat(fd).st_size == 0:
            line = _header() + line
        # Statistics, not memories: no fsync (a lost recall after a power cut is harmless).
        os.write(fd, line)
        # The first count after an upgrade also folds in the old recalls.json.
        if (os.fstat(fd).st_size > COMPACT_BYTES
                or not (store.local_dir / TABLE).exists()):
            _compact(store, fd)
    finally:
        os.close(fd)  # releases the lock


def compact(store: Store) -> None:
    """Fold the log into the table now (normally done when the log grows past
    ``COMPACT_BYTES``)."""
    path = store.local_dir / LOG
    with contextlib.suppress(FileNotFoundError):
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
        try:
            _flock(fd, exclusive=True)
            _compact(store, fd)
        finally:
            os.close(fd)


# ------------------------------------------------------------ compaction


def _compact(store: Store, fd: int) -> None:
    """With the log locked: write the table with everything, then empty the log."""
    log = _read_fd(fd)
    table = _read(store.local_dir / TABLE)
    stats = _parse_table(table) if table else _legacy(store)
    _fold(stats, _unfolded(table, log))
    generation, _ = _log_header(log)
    atomic_write(store.local_dir / TABLE, _table(stats, generation, len(log)), durable=False)
    # The table now says "generation G folded up to here": stopping before the next
    # line leaves a log whose lines the table already holds, and readers skip them.
    os.ftruncate(fd, 0)
    os.write(fd, _header())
    with contextlib.suppress(FileNotFoundError):
        (store.local_dir / LEGACY).unlink()


def _header() -> bytes:
    return f"{MAGIC} {os.urandom(8).hex()}\n".encode()


def _table(stats: Stats, generation: str, offset: int) -> bytes:
    """Fixed-width rows sorted by id, after a row naming the log generation folded in
    and up to which byte."""
    rows = [f"{MAGIC} {generation or '-'} {offset}".ljust(ROW - 1).encode() + b"\n"]
    rows += [f"{i} {min(c, 10**COUNT - 1):0{COUNT}d} {(last or '-')[:STAMP]:<{STAMP}}\n"
             .encode() for i, (c, last) in sorted(stats.items()) if len(i) == ID_LENGTH]
    return b"".join(rows)


def _log_header(log: bytes) -> tuple[str, int]:
    """(generation, where the entries start) of a log; ('', 0) for an empty one."""
    first, _, _ = log.partition(b"\n")
    parts = first.decode(errors="replace").split()
    if len(parts) == 2 and parts[0] == MAGIC:
        return parts[1], len(first) + 1
    return "", 0


# ------------------------------------------------------------ reading


@contextlib.contextmanager
def _reading(store: Store) -> Iterator[tuple[bytes, bytes]]:
    """(table, log) as one consistent pair: a shared lock on the log keeps a compaction
    from moving lines out of one into the other between the two reads."""
    path = store.local_dir / LOG
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        table = _read(store.local_dir / TABLE)
        yield (table, b"") if table else (_legacy_table(store), b"")
        return
    try:
        _flock(fd, exclusive=False)
        table = _read(store.local_dir / TABLE)
        yield (table or _legacy_table(store)), _read_fd(fd)
    finally:
        os.close(fd)


def _unfolded(table: bytes, log: bytes) -> Iterator[tuple[str, list[str]]]:
    """The log's (time, ids) entries the table does not hold yet."""
    generation, start = _log_header(log)
    parts = table[:ROW].decode(errors="replace").split() if table else []
    if generation and len(parts) == 3 and parts[0] == MAGIC and parts[1] == generation:
        with contextlib.suppress(ValueError):
            start = max(start, int(parts[2]))
    for raw in log[start:].decode(errors="replace").splitlines():
        stamp, *ids = raw.split() or [""]
        if ids and len(stamp) == STAMP:
            yield stamp, ids


def _fold(stats: Stats, entries: Iterable[tuple[str, list[str]]],
          only: set[str] | None = None) -> None:
    for stamp, ids in entries:
        for memory_id in ids:
            if only is not None and memory_id not in only:
                continue
            count, last = stats.get(memory_id, (0, ""))
            stats[memory_id] = (count + 1, max(last, stamp))


def _parse_table(table: bytes) -> Stats:
    stats: Stats = {}
    for raw in table[ROW:].decode(errors="replace").splitlines():
        parts = raw.split()
        if len(parts) == 3 and parts[1].isdigit():
            stats[parts[0]] = (int(parts[1]), "" if parts[2] == "-" else parts[2])
    return stats


def _lookup(table: bytes, memory_id: str) -> tuple[int, str] | None:
    rows = len(table) // ROW - 1
    if rows <= 0 or len(memory_id) != ID_LENGTH:
        return None
    key = memory_id.encode()
    low, high = 1, rows + 1
    while low < high:
        mid = (low + high) // 2
        if table[mid * ROW:mid * ROW + ID_LENGTH] < key:
            low = mid + 1
        else:
            high = mid
    row = table[low * ROW:(low + 1) * ROW]
    if row[:ID_LENGTH] != key:
        return None
    parts = row.decode(errors="replace").split()
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    return int(parts[1]), "" if parts[2] == "-" else parts[2]


def _legacy(store: Store) -> Stats:
    """The statistics in the single JSON file of earlier versions; {} when absent."""
    try:
        raw = json.loads((store.local_dir / LEGACY).read_bytes())
        return {str(k): (int(v[0]), str(v[1])) for k, v in raw.items()}
    except (OSError, ValueError, TypeError, IndexError, AttributeError):
        return {}


def _legacy_table(store: Store) -> bytes:
    """The legacy statistics in table form (read only until the first compaction)."""
    stats = _legacy(store)
    if not stats:
        return b""
    return _table(stats, "", 0)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""


def _read_fd(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0) if size else b""


def _flock(fd: int, exclusive: bool) -> None:
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)


def _unlock(fd: int) -> None:
    """Release ``_flock`` on a descriptor that stays open (``recall_live``)."""
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)
