"""Co-recall pairs of the polyphonic fusion (store/corecall.py): appended per search and
compacted now and then, with the answers the whole-file rewrite of earlier versions gave."""

from __future__ import annotations

import json
import random
from pathlib import Path

import anyio
import pytest

from memx_cli.store import corecall
from memx_cli.store.files import Store
from memx_cli.store.ids import new_id

from .conftest import Memx
from .test_recall import _store, run_writers

Pairs = dict[str, dict[str, int]]


def old_record(pairs: Pairs, ids: list[str]) -> None:
    """What record_corecall did to its JSON file before issue 15's append-only log:
    the first three results linked pairwise, each memory's partners cut to the
    CORECALL_KEEP most frequent (ties by id) after every search."""
    top = list(dict.fromkeys(ids))[:3]
    if len(top) < 2:
        return
    for a in top:
        row = pairs.setdefault(a, {})
        for b in top:
            if a != b:
                row[b] = row.get(b, 0) + 1
        pairs[a] = dict(sorted(row.items(), key=lambda kv: (-kv[1], kv[0]))[:20])


def scripted(seed: int, pool: int, searches: int) -> list[list[str]]:
    """Searches' results over ``pool`` memories: 1-5 results, repeats included, skewed
    towards a few memories so that many partners compete for the kept 20."""
    rng = random.Random(seed)
    ids = sorted(new_id() for _ in range(pool))
    weights = [1.0 / (1 + i) for i in range(pool)]
    return [rng.choices(ids, weights, k=rng.randint(1, 5)) for _ in range(searches)]


@pytest.mark.parametrize("compact_bytes", [10**9, 700])
def test_the_same_pairs_as_the_old_rewrite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           compact_bytes: int) -> None:
    monkeypatch.setattr(corecall, "COMPACT_BYTES", compact_bytes)
    store = _store(tmp_path)
    expected: Pairs = {}
    for step, ids in enumerate(scripted(7, pool=45, searches=400)):
        corecall.record(store, ids)
        old_record(expected, ids)
        if step % 50 == 49:
            assert corecall.load(store) == expected, step
    assert max(len(row) for row in expected.values()) == corecall.KEEP  # rows were cut
    assert corecall.load(store) == expected
    log = (store.local_dir / corecall.LOG).read_bytes()
    if compact_bytes < 10**9:
        assert len(log) < compact_bytes + 200  # it compacted along the way
    corecall.compact(store)
    assert corecall.load(store) == expected
    assert (store.local_dir / corecall.LOG).read_bytes().count(b"\n") == 1  # the header


def _link_many(root: str, ids: list[str], rounds: int, compact_bytes: int) -> None:
    corecall.COMPACT_BYTES = compact_bytes  # small: compactions race with the appends
    store = Store(Path(root), "project")
    for i in range(rounds):
        corecall.record(store, ids[i % 3:i % 3 + 4])


def test_forked_writers_and_compactions_lose_no_pair(tmp_path: Path) -> None:
    store = _store(tmp_path)
    ids, _ = run_writers(store, _link_many, rounds=120, compact_bytes=1500)
    expected: Pairs = {}
    for i in range(120):
        top = ids[i % 3:i % 3 + 3]  # six memories: no row reaches the kept 20
        for a in top:
            for b in top:
                if a != b:
                    expected.setdefault(a, {})[b] = expected.get(a, {}).get(b, 0) + 4
    assert corecall.load(store) == expected
    assert (store.local_dir / corecall.TABLE).stat().st_size > 100  # it did compact


def test_a_compaction_stopped_before_emptying_the_log_counts_nothing_twice(
        tmp_path: Path) -> None:
    store = _store(tmp_path)
    a, b, c = sorted(new_id() for _ in range(3))
    corecall.record(store, [a, b])
    corecall.record(store, [a, b, c])
    log = (store.local_dir / corecall.LOG).read_bytes()
    corecall.compact(store)
    # As if the process had died after writing the table, before emptying the log.
    (store.local_dir / corecall.LOG).write_bytes(log)
    assert corecall.load(store) == {a: {b: 2, c: 1}, b: {a: 2, c: 1}, c: {a: 1, b: 1}}
    corecall.record(store, [b, c])
    corecall.compact(store)
    assert corecall.load(store) == {a: {b: 2, c: 1}, b: {a: 2, c: 2}, c: {a: 1, b: 2}}


def test_the_old_json_file_is_read_then_folded_in(tmp_path: Path) -> None:
    store = _store(tmp_path)
    a, b, c = sorted(new_id() for _ in range(3))
    (store.local_dir / corecall.LEGACY).write_text(json.dumps({a: {b: 4}, b: {a: 4}}))
    assert corecall.load(store) == {a: {b: 4}, b: {a: 4}}
    corecall.record(store, [a, c])
    assert not (store.local_dir / corecall.LEGACY).exists()
    assert corecall.load(store) == {a: {b: 4, c: 1}, b: {a: 4}, c: {a: 1}}


def test_a_search_appends_instead_of_rewriting(tmp_path: Path) -> None:
    store = _store(tmp_path)
    a, b, c = sorted(new_id() for _ in range(3))
    corecall.record(store, [a, b])  # the first one writes the table (nothing to fold)
    table = (store.local_dir / corecall.TABLE).read_bytes()
    corecall.record(store, [b, c, a])
    corecall.record(store, [c])  # one result links nothing
    assert (store.local_dir / corecall.TABLE).read_bytes() == table
    lines = (store.local_dir / corecall.LOG).read_text().splitlines()
    assert lines[0].startswith(corecall.MAGIC) and lines[1:] == [f"{b} {c} {a}"]


@pytest.mark.parametrize("damage", ["table", "log", "legacy"])
def test_a_damaged_file_is_not_fatal(tmp_path: Path, damage: str) -> None:
    store = _store(tmp_path)
    a, b, c = sorted(new_id() for _ in range(3))
    if damage == "legacy":
        (store.local_dir / corecall.LEGACY).write_bytes(b"{not json")
    else:
        corecall.record(store, [a, b])
        corecall.compact(store)
        corecall.record(store, [a, c])
    if damage == "table":
        (store.local_dir / corecall.TABLE).write_bytes(b"\x00garbage\n{[")
    elif damage == "log":
        with open(store.local_dir / corecall.LOG, "ab") as handle:
            handle.write(b"\xff\xfe not ids at all\n" + b"x" * 40 + b"\n")
    kept = {"table": {a: {c: 1}, c: {a: 1}}, "log": {a: {b: 1, c: 1}, b: {a: 1}, c: {a: 1}},
            "legacy": {}}[damage]
    assert corecall.load(store) == kept
    corecall.record(store, [b, c])
    corecall.compact(store)
    kept.setdefault(b, {})[c] = 1
    kept.setdefault(c, {})[b] = 1
    assert corecall.load(store) == kept


def test_the_server_folds_the_statistics_logs_in_a_quiet_spell(memx: Memx, repo: Path) -> None:
    """A search appends to the recall and co-recall logs; the memx server folds them in
    its idle upkeep, so no later search pays a compaction, and every count is kept."""
    from memx_cli.generator.search import Searcher
    from memx_cli.server import daemon
    from memx_cli.store import recall
    from memx_cli.store.repo import Repo

    memx.ok("config", "set", "ace.retrieval.fusion", "polyphonic")
    for text in ("Deploys run make deploy from the release branch",
                 "The deploy script migrates the database first",
                 "Deploy previews are built for every pull request",
                 "Rollbacks of a deploy use make rollback"):
        memx.ok("add", "--raw", text)
    searcher = Searcher(Repo.discover(repo))
    for _ in range(3):
        assert len(searcher.search("deploy", mode="hybrid").hits) >= 3
    store = searcher.indexes[0].store
    books = (recall.ledger(store), corecall.ledger(store))
    before = recall.load(store), corecall.load(store)
    assert before[0] and before[1]  # both were counted
    assert [book.pending() for book in books] == [True, True]
    server = daemon.Daemon(idle_timeout=60)
    server.searchers[("repo",)] = searcher
    server._compacted = False  # a request was served...
    server.compact_when_idle()
    assert [book.pending() for book in books] == [True, True]  # ...just now: not yet
    server.last_request -= daemon.COMPACT_AFTER
    server.compact_when_idle(lambda: True)  # a command has come: it gives way at once
    assert [book.pending() for book in books] == [True, True]
    server.compact_when_idle()  # the next quiet spell does it
    assert [book.pending() for book in books] == [False, False]
    assert (recall.load(store), corecall.load(store)) == before


DEPLOYS = ("Deploys run make deploy from the release branch",
           "The deploy script migrates the database first",
           "Deploy previews are built for every pull request",
           "Rollbacks of a deploy use make rollback")


@pytest.mark.parametrize("call_comes", [False, True])
def test_memx_mcp_folds_the_statistics_logs_in_its_quiet_spell(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch, call_comes: bool) -> None:
    """`memx mcp`'s quiet-spell upkeep (``keep``, on a worker thread) folds the logs its
    searches appended, every count kept, as the memx server's does. A call that comes
    while a fold runs answers once that step ends, with the same results; the upkeep
    stops before its next step and stays due, and the next spell does the rest.
    Control: with no call, one spell does it all."""
    import threading

    from memx_cli.agents.mcp_server import MemoryService
    from memx_cli.store import recall
    from memx_cli.store.repo import Repo

    memx.ok("config", "set", "ace.retrieval.fusion", "polyphonic")
    for text in DEPLOYS:
        memx.ok("add", "--raw", text)
    service = MemoryService(Repo.discover(repo))

    def search() -> list[str]:
        found = service.search("deploy", "hybrid", None, 5)["results"]
        return [hit["id"] for hit in found]

    try:
        for _ in range(3):
            expected = anyio.run(service.read, search)
        assert len(expected) >= 3
        store = service.warm._searcher.indexes[0].store
        books = (recall.ledger(store), corecall.ledger(store))
        assert [book.pending() for book in books] == [True, True]
        folding, go_on = threading.Event(), threading.Event()
        real = recall.compact

        def slow(folded: Store) -> None:
            folding.set()
            assert go_on.wait(30)
            real(folded)

        monkeypatch.setattr(recall, "compact", slow)
        kept: list[bool] = []
        keeper = threading.Thread(target=lambda: kept.append(service.keep()))
        keeper.start()
        assert folding.wait(30)
        answers: list[list[str]] = []
        if call_comes:
            caller = threading.Thread(target=lambda: answers.append(service.call(search)))
            caller.start()
            while not service._called.is_set():
                caller.join(0.01)
        go_on.set()
        keeper.join(30)
        if not call_comes:
            assert kept == [True] and not service.unkept
            assert [book.pending() for book in books] == [False, False]
            return
        caller.join(30)
        assert answers == [expected]
        assert kept == [False] and service.unkept
        assert books[1].pending()  # the co-recall fold was the next step: not begun
        before = recall.load(store), corecall.load(store)
        assert service.keep() and not service.unkept
        assert [book.pending() for book in books] == [False, False]
        assert (recall.load(store), corecall.load(store)) == before
    finally:
        service.watcher.stop()


def test_the_idle_upkeep_sees_a_connection_waiting(tmp_path: Path) -> None:
    """What makes the upkeep give way: a client connected and not yet accepted."""
    import socket

    from memx_cli.server import daemon

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(tmp_path / "s.sock"))
        listener.listen(4)
        assert not daemon._pending(listener)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(str(tmp_path / "s.sock"))
            assert daemon._pending(listener)
            conn, _ = listener.accept()
            conn.close()
        assert not daemon._pending(listener)
