"""Recall statistics: appended per search, compacted now and then, never a count lost."""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Callable
from pathlib import Path

import pytest

from memx_cli.store import recall
from memx_cli.store.files import Store
from memx_cli.store.ids import new_id

from .conftest import Memx


def _store(tmp_path: Path) -> Store:
    store = Store(tmp_path / ".memx", "project")
    store.create()
    store.local_dir.mkdir()
    return store


def _count_many(root: str, ids: list[str], rounds: int, compact_bytes: int) -> None:
    recall.COMPACT_BYTES = compact_bytes  # small: compactions race with the appends
    store = Store(Path(root), "project")
    for i in range(rounds):
        recall.record(store, ids[i % 3:i % 3 + 4])


def run_writers(store: Store, writer: Callable[[str, list[str], int, int], None],
                rounds: int, compact_bytes: int,
                workers: int = 4) -> tuple[list[str], dict[str, int]]:
    """``workers`` forked processes each run ``writer`` (recording ``ids[i % 3:i % 3 + 4]``
    in round i) on six new ids; the ids and the count each must end with."""
    ids = [new_id() for _ in range(6)]
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=writer, args=(str(store.root), ids, rounds, compact_bytes))
             for _ in range(workers)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    expected: dict[str, int] = {}
    for i in range(rounds):
        for memory_id in ids[i % 3:i % 3 + 4]:
            expected[memory_id] = expected.get(memory_id, 0) + workers
    return ids, expected


def test_concurrent_writers_and_compactions_lose_no_count(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ids, expected = run_writers(store, _count_many, rounds=120, compact_bytes=2000)
    assert {k: v[0] for k, v in recall.load(store).items()} == expected
    assert (store.local_dir / recall.TABLE).stat().st_size > recall.ROW  # it did compact
    assert {k: v[0] for k, v in recall.counts(store, ids).items()} == expected


def test_counts_and_times_match_across_a_compaction(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path)
    a, b, c = sorted(new_id() for _ in range(3))
    monkeypatch.setenv("MEMX_NOW", "2026-03-01T10:00:00Z")
    recall.record(store, [a, b])
    monkeypatch.setenv("MEMX_NOW", "2026-03-02T10:00:00Z")
    recall.record(store, [b, b])  # one search shows a memory once
    before = recall.load(store)
    assert before == {a: (1, "2026-03-01T10:00:00Z"), b: (2, "2026-03-02T10:00:00Z")}
    recall.compact(store)
    assert recall.load(store) == before
    monkeypatch.setenv("MEMX_NOW", "2026-03-03T10:00:00Z")
    recall.record(store, [a])
    assert recall.counts(store, [a, c]) == {a: (2, "2026-03-03T10:00:00Z")}
    assert recall.counts(store, [b]) == {b: (2, "2026-03-02T10:00:00Z")}


def test_a_compaction_stopped_before_emptying_the_log_counts_nothing_twice(
        tmp_path: Path) -> None:
    store = _store(tmp_path)
    ids = [new_id(), new_id()]
    recall.record(store, ids)
    recall.record(store, ids[:1])
    log = (store.local_dir / recall.LOG).read_bytes()
    recall.compact(store)
    # As if the process had died after writing the table, before emptying the log.
    (store.local_dir / recall.LOG).write_bytes(log)
    assert {k: v[0] for k, v in recall.load(store).items()} == {ids[0]: 2, ids[1]: 1}
    recall.record(store, ids[1:])
    assert {k: v[0] for k, v in recall.load(store).items()} == {ids[0]: 2, ids[1]: 2}
    recall.compact(store)
    assert {k: v[0] for k, v in recall.counts(store, ids).items()} == {ids[0]: 2, ids[1]: 2}


def test_the_old_json_file_is_read_then_folded_in(tmp_path: Path) -> None:
    store = _store(tmp_path)
    old = new_id()
    (store.local_dir / recall.LEGACY).write_text(json.dumps({old: [4, "2026-01-01T00:00:00Z"]}))
    assert recall.load(store) == {old: (4, "2026-01-01T00:00:00Z")}
    assert recall.counts(store, [old]) == {old: (4, "2026-01-01T00:00:00Z")}
    recall.record(store, [old])
    assert not (store.local_dir / recall.LEGACY).exists()
    assert recall.load(store)[old][0] == 5


def test_a_search_appends_instead_of_rewriting(memx: Memx, repo: Path) -> None:
    memx.ok("add", "The staging database is refreshed every Sunday night")
    memx.ok("search", "staging database")
    table = (repo / ".memx" / "local" / recall.TABLE).read_bytes()
    memx.ok("search", "staging refreshed")
    assert (repo / ".memx" / "local" / recall.TABLE).read_bytes() == table
    lines = (repo / ".memx" / "local" / recall.LOG).read_text().splitlines()
    assert lines[0].startswith(recall.MAGIC) and len(lines) == 2
    data = json.loads(memx.ok("stats", "--json"))["stats"]
    assert [t["recalls"] for t in data["top_recalled"]] == [2]
