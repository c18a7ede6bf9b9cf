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
The log, its locks, generations and compaction are store/ledger.py's (shared with the
co-recall pairs, store/corecall.py); this module owns the lines and the table's rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from memx_cli.clock import now_iso
from memx_cli.store.files import Store
from memx_cli.store.ids import ID_LENGTH
from memx_cli.store.ledger import Ledger

LOG, TABLE, LEGACY = "recalls.log", "recalls.tab", "recalls.json"
# ~1,000 searches of 10 results: a compaction (a full table rewrite, ~0.1 s per 100k
# recalled memories) is then a small share of the searches that paid for it.
COMPACT_BYTES = 256 * 1024
STAMP = 20  # canonical UTC time, 2026-12-01T15:47:12Z
COUNT = 9
ROW = ID_LENGTH + 1 + COUNT + 1 + STAMP + 1  # "<id> <count> <stamp>\n"
MAGIC = "#memx-recalls"

Stats = dict[str, tuple[int, str]]


def ledger(store: Store) -> Ledger:
    return Ledger(store.state_dir, LOG, TABLE, MAGIC, LEGACY)


def load(store: Store) -> Stats:
    """id -> (recall count, last recall time), every memory ever recalled."""
    book = ledger(store)
    with book.reading() as (table, log):
        table = table or _legacy_table(store)
        stats = _parse_table(table)
        _fold(stats, _entries(book.unfolded(table, log)))
    return stats


def counts(store: Store, ids: Iterable[str]) -> Stats:
    """The statistics of ``ids`` only (memories never recalled are left out): a binary
    search per id in the table, so a search pays for its candidates, not the store."""
    wanted = set(ids)
    book = ledger(store)
    with book.reading() as (table, log):
        table = table or _legacy_table(store)
        found = {i: row for i in wanted if (row := _lookup(table, i)) is not None}
        extra: Stats = {}
        _fold(extra, _entries(book.unfolded(table, log)), wanted)
    for memory_id, (count, last) in extra.items():
        old_count, old_last = found.get(memory_id, (0, ""))
        found[memory_id] = (old_count + count, max(old_last, last))
    return found


def line(ids: Iterable[str]) -> bytes | None:
    """The log line counting one recall of each id (None when no id is valid)."""
    wanted = [i for i in dict.fromkeys(ids) if len(i) == ID_LENGTH and i.isascii() and i.isalnum()]
    return f"{now_iso()} {' '.join(wanted)}\n".encode() if wanted else None


def record(store: Store, ids: Iterable[str]) -> None:
    """Count one recall for each id (results actually returned to a user or agent)."""
    entry = line(ids)
    if entry is not None:
        ledger(store).append(entry, COMPACT_BYTES, folder(store))


def compact(store: Store) -> None:
    """Fold the log into the table now (normally done when the log grows past
    ``COMPACT_BYTES``)."""
    ledger(store).compact(folder(store))


def folder(store: Store) -> Any:
    """The ledger's Fold for recall counts: the table's rows, then the new lines."""
    def fold(table: bytes, lines: list[str], mark: str) -> bytes:
        stats = _parse_table(table) if table else _legacy(store)
        _fold(stats, _entries(lines))
        return _table(stats, mark)

    return fold


def _table(stats: Stats, mark: str) -> bytes:
    """Fixed-width rows sorted by id, after the ledger's mark row (padded to a row)."""
    rows = [mark.ljust(ROW - 1).encode() + b"\n"]
    rows += [f"{i} {min(c, 10**COUNT - 1):0{COUNT}d} {(last or '-')[:STAMP]:<{STAMP}}\n"
             .encode() for i, (c, last) in sorted(stats.items()) if len(i) == ID_LENGTH]
    return b"".join(rows)


def _entries(lines: Iterable[str]) -> Iterator[tuple[str, list[str]]]:
    """The (time, ids) of log lines."""
    for raw in lines:
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


def _lookup(table: Any, memory_id: str) -> tuple[int, str] | None:
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
    return _table(stats, f"{MAGIC} - 0")
