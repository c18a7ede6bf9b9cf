"""Per-clone co-recall pairs: memories returned together at the top of a polyphonic
search (SPEC 3.4, issue 8), the graph voice's co-recall edges.

Appended, not rewritten (issue 15): every polyphonic search used to lock the store,
read the whole ``corecall.json`` and write it back. Now a search appends one line,
the ids of its first ``TOP`` results, to ``corecall.log``; ``corecall.tab`` holds the
compacted pairs. The log, its lock, its generations and compaction are
store/ledger.py's, shared with the recall counts (store/recall.py).

The answers are those of the rewrite: after every search each linked memory keeps its
``KEEP`` most frequent partners, ties by id, so a reader replays the log's lines in order
over the table with that same cut. The ``corecall.json`` of earlier versions is read
while there is no table and folded in by the first compaction. A damaged table or log
line is skipped: these are statistics, never a reason for a search to fail.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from memx_cli.store.files import Store
from memx_cli.store.ids import ID_LENGTH
from memx_cli.store.ledger import Ledger

LOG, TABLE, LEGACY = "corecall.log", "corecall.tab", "corecall.json"
MAGIC = "#memx-corecall"
TOP = 3    # the first results of a search are linked pairwise
KEEP = 20  # partners kept per memory, the most frequent first
# ~800 searches' lines. A reader replays the log over the table (a one-shot polyphonic
# search, a warm one after the index changed): ~20 ms at this size when every memory has
# its 20 partners, against 0.2-0.3 s for a compaction at 10k such memories (once per
# ~800 searches).
COMPACT_BYTES = 64 * 1024

Pairs = dict[str, dict[str, int]]


def ledger(store: Store) -> Ledger:
    return Ledger(store.state_dir, LOG, TABLE, MAGIC, LEGACY)


def record(store: Store, ids: Iterable[str]) -> None:
    """Link the top results of one search (results returned to a user or agent)."""
    top = _top(ids)
    if len(top) >= 2:
        ledger(store).append(f"{' '.join(top)}\n".encode(), COMPACT_BYTES, _fold(store))


def load(store: Store) -> Pairs:
    """id -> {partner: times returned together}, each row the KEEP most frequent."""
    book = ledger(store)
    with book.reading() as (table, log):
        pairs = _parse(table) if table else _legacy(store)
        _apply(pairs, book.unfolded(table, log))
    return pairs


def compact(store: Store) -> None:
    """Fold the log into the table now (normally when it grows past COMPACT_BYTES)."""
    ledger(store).compact(_fold(store))


def _fold(store: Store) -> Any:
    def fold(table: bytes, lines: list[str], mark: str) -> bytes:
        pairs = _parse(table) if table else _legacy(store)
        _apply(pairs, lines)
        body = json.dumps(pairs, sort_keys=True, separators=(",", ":"))
        return f"{mark}\n{body}\n".encode()

    return fold


def _top(ids: Iterable[str]) -> list[str]:
    valid = (i for i in ids if len(i) == ID_LENGTH and i.isascii() and i.isalnum())
    return list(dict.fromkeys(valid))[:TOP]


def _apply(pairs: Pairs, lines: Iterable[str]) -> None:
    """Each line's search, in order, as the rewrite did it."""
    for raw in lines:
        top = _top(raw.split())
        if len(top) < 2:
            continue  # a damaged line: it links nothing
        for a in top:
            row = pairs.setdefault(a, {})
            for b in top:
                if a != b:
                    row[b] = row.get(b, 0) + 1
            if len(row) > KEEP:  # the cut picks by count then id: a row's order is moot
                pairs[a] = dict(sorted(row.items(), key=lambda kv: (-kv[1], kv[0]))[:KEEP])


def _parse(table: bytes) -> Pairs:
    """The table's pairs (after its mark line); {} when it cannot be read."""
    return _checked(table.partition(b"\n")[2])


def _legacy(store: Store) -> Pairs:
    """The single JSON file of earlier versions; {} when absent or unreadable."""
    try:
        return _checked((store.local_dir / LEGACY).read_bytes())
    except OSError:
        return {}


def _checked(raw: bytes) -> Pairs:
    try:
        data = json.loads(raw)
        return {str(a): {str(b): int(n) for b, n in row.items()} for a, row in data.items()}
    except (ValueError, TypeError, AttributeError):
        return {}
