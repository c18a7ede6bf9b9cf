"""Recall statistics in a long-lived process (store/recall_live.py): the same answers as
the one-shot reads, whatever other processes append or compact in between."""

from __future__ import annotations

from pathlib import Path

import pytest

from memx_cli.store import recall
from memx_cli.store.files import Store
from memx_cli.store.ids import new_id
from memx_cli.store.recall_live import LiveRecalls

from .test_recall import run_writers


def _store(tmp_path: Path) -> Store:
    store = Store(tmp_path / ".memx", "project")
    store.create()
    return store


def _live_writer(root: str, ids: list[str], rounds: int, compact_bytes: int) -> None:
    recall.COMPACT_BYTES = compact_bytes  # small: compactions race with the appends
    store, live = Store(Path(root), "project"), LiveRecalls()
    for i in range(rounds):
        live.record(store, ids[i % 3:i % 3 + 4])
        live.counts(store, ids)  # reads between the writes keep their own state


def test_live_counts_follow_other_writers_and_compactions(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    store = _store(tmp_path)
    ids = sorted(new_id() for _ in range(5))
    live = LiveRecalls()
    assert live.counts(store, ids) == {}  # no log, no table yet
    monkeypatch.setattr(recall, "COMPACT_BYTES", 400)
    for step in range(30):
        stamp = f"2026-03-{1 + step % 28:02d}T10:00:00Z"
        monkeypatch.setenv("MEMX_NOW", stamp)
        chosen = ids[step % 4:step % 4 + 2]
        if step % 3 == 0:
            live.record(store, chosen)  # this process's own appends
        else:
            recall.record(store, chosen)  # another process's
        if step == 17:
            recall.compact(store)
        assert live.counts(store, ids) == recall.counts(store, ids), step
    assert (store.local_dir / recall.TABLE).stat().st_size > recall.ROW  # it did compact
    assert sum(c for c, _ in live.counts(store, ids).values()) == 60


def test_a_deleted_log_or_table_is_read_anew(tmp_path: Path) -> None:
    store = _store(tmp_path)
    a, b = sorted(new_id() for _ in range(2))
    live = LiveRecalls()
    live.record(store, [a])
    live.record(store, [a, b])
    assert {k: v[0] for k, v in live.counts(store, [a, b]).items()} == {a: 2, b: 1}
    (store.local_dir / recall.LOG).unlink()  # by hand: the table still holds the first
    live.record(store, [b])
    assert live.counts(store, [a, b]) == recall.counts(store, [a, b])
    assert {k: v[0] for k, v in live.counts(store, [a, b]).items()} == {a: 1, b: 1}
    (store.local_dir / recall.TABLE).unlink()
    assert {k: v[0] for k, v in live.counts(store, [a, b]).items()} == {b: 1}


def test_concurrent_live_writers_and_compactions_lose_no_count(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.local_dir.mkdir()
    ids, expected = run_writers(store, _live_writer, rounds=80, compact_bytes=1500)
    assert {k: v[0] for k, v in recall.load(store).items()} == expected
    assert {k: v[0] for k, v in LiveRecalls().counts(store, ids).items()} == expected
