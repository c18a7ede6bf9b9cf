"""The drained watcher (issue 15, memx_cli/freshness/drain.py): inotify read at settle time,
no mark file, no thread. The behaviour both watchers share is tested with each in
test_watch.py and test_watch_known.py; here what is the drained one's own."""

from __future__ import annotations

import os
import shutil
import struct
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memx_cli.store.repo import Repo

from .conftest import Memx
from .test_watch import (
    checked,
    scans,  # noqa: F401 - a fixture
)
from .test_watch_known import FACTS, _ids, add_facts, in_place


@pytest.fixture
def drained(memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch
            ) -> Iterator[tuple[Any, dict[str, Path]]]:
    """A Searcher watched by the drained watcher over a store of FACTS (key -> file),
    after its first search; writing a mark file fails the test."""
    from memx_cli.freshness import journal as watch
    from memx_cli.freshness.drain import open_watcher
    from memx_cli.generator.search import Searcher

    def no_mark(self: Any) -> None:
        raise AssertionError("the drained watcher wrote a mark")

    monkeypatch.setattr(watch.Root, "send_mark", no_mark)
    monkeypatch.delenv("MEMX_WATCH", raising=False)
    files = add_facts(memx, repo)
    watcher = open_watcher()
    assert watcher.kind == "inotify"
    try:
        searcher = Searcher(Repo(repo), freshness=watch.Watched(watcher))
        assert _ids(searcher.search("nightly", mode="keyword")) == [files["nightly"].stem]
        yield searcher, files
    finally:
        watcher.stop()


def test_a_write_just_before_a_search_is_seen_with_no_mark_and_no_thread(
        drained: tuple[Any, dict[str, Path]], repo: Path, scans: list[str]) -> None:  # noqa: F811
    searcher, files = drained
    threads = set(threading.enumerate())
    first = len(scans)
    for _ in range(5):
        in_place(files["nightly"])
        assert _ids(searcher.search("fortnightly", mode="keyword")) == [files["nightly"].stem]
        text = files["nightly"].read_text().replace("fortnightly", "nightly")
        with open(files["nightly"], "w") as out:
            out.write(text)
        assert _ids(searcher.search("fortnightly", mode="keyword")) == []
    assert len(scans) == first
    assert set(threading.enumerate()) == threads
    assert not list((repo / ".memx" / "local").glob("server-watch-*"))


def test_a_file_moved_into_memories_is_seen_without_a_scan(
        drained: tuple[Any, dict[str, Path]], tmp_path: Path, scans: list[str]) -> None:  # noqa: F811
    searcher, files = drained
    first = len(scans)
    new = "y" * 26
    outside = tmp_path / f"{new}.yaml"
    outside.write_text(files["webhook"].read_text().replace(files["webhook"].stem, new)
                       .replace("payment webhook", "billing callback"))
    os.rename(outside, files["webhook"].parent / outside.name)
    assert _ids(searcher.search("billing callback", mode="keyword")) == [new]
    os.rename(files["webhook"].parent / outside.name, outside)  # and moved out again
    assert _ids(searcher.search("billing callback", mode="keyword")) == []
    assert len(scans) == first


def test_memories_removed_and_made_again_is_one_scan_then_watched_again(
        drained: tuple[Any, dict[str, Path]], scans: list[str]) -> None:  # noqa: F811
    """As a checkout of another branch may: the folder goes, a new one comes with other
    contents. One full check sees them; the new folder is watched from then on."""
    searcher, files = drained
    folder = files["nightly"].parent
    saved = {p.name: p.read_text() for p in folder.iterdir()}
    shutil.rmtree(folder)
    folder.mkdir()
    for name, text in saved.items():
        (folder / name).write_text(text.replace("staging database", "preview database"))
    first = len(scans)
    assert _ids(searcher.search("preview database", mode="keyword")) == [files["staging"].stem]
    assert len(scans) == first + 1
    in_place(files["nightly"])  # in the new folder
    assert _ids(searcher.search("fortnightly", mode="keyword")) == [files["nightly"].stem]
    archive = folder.parent / "archive"
    archive.mkdir()  # made for the first time: one scan, then watched
    searcher.search("nightly", mode="keyword")
    os.rename(files["release"], archive / files["release"].name)
    assert _ids(searcher.search("release notes", mode="keyword")) == []
    assert _ids(searcher.search("release notes", mode="keyword", include_archived=True)
                ) == [files["release"].stem]
    assert len(scans) == first + 2


def test_a_store_gone_and_back_is_a_new_watch(tmp_path: Path) -> None:
    from memx_cli.freshness.drain import Drain

    store = tmp_path / "store"
    (store / "memories").mkdir(parents=True)
    watcher = Drain()
    try:
        root = watcher.root(store)
        assert root is not None and root.alive
        shutil.rmtree(store)
        watcher.settle()
        assert not root.alive
        assert watcher.root(store) is None
        (store / "memories").mkdir(parents=True)
        again = watcher.root(store)
        assert again is not None and again is not root and again.epoch > root.epoch
        (store / "memories" / "abc.yaml").write_text("x")
        watcher.settle()
        assert again.since(again.changes - 1) == frozenset({"abc"})
        assert watcher.watches(root) == {}
        assert set(watcher.watches(again)) == {None, "memories"}
    finally:
        watcher.stop()


def test_writes_outside_the_memory_folders_make_no_event(
        drained: tuple[Any, dict[str, Path]], repo: Path) -> None:
    searcher, files = drained
    watcher = searcher.freshness.watcher
    store = repo / ".memx"
    for folder in ("local", "cache", "cache/lexical"):
        (store / folder).mkdir(exist_ok=True)
    watcher.settle()
    before = watcher.events
    with open(store / "local" / "recalls.log", "a") as out:
        out.write("one more line\n")
    (store / "cache" / "state.json.tmp").write_text("{}")
    os.replace(store / "cache" / "state.json.tmp", store / "cache" / "scratch.json")
    (store / "cache" / "lexical" / "meta.json").write_text("{}")
    searcher.search("nightly", mode="keyword")  # its recall append and cache writes
    watcher.settle()
    assert watcher.events == before
    in_place(files["nightly"])
    watcher.settle()
    assert watcher.events == before + 1  # the close after writing


def test_a_store_the_observer_could_not_mark_is_vouched_for(tmp_path: Path) -> None:
    """A read-only store (a source): the observer needed to write a mark in it and so
    re-checked it by time; the drained watcher writes nothing there."""
    from memx_cli.freshness.drain import Drain
    from memx_cli.freshness.journal import Watched

    odd = tmp_path / "odd"
    (odd / "memories").mkdir(parents=True)
    (odd / "local").write_text("")  # no mark could be written under it
    watcher = Drain()
    try:
        fresh = Watched(watcher)
        assert checked(fresh, odd) == {}  # first sight: in full
        assert checked(fresh, odd) == {"known": frozenset()}  # nothing changed: no check
        (odd / "memories" / "abc.yaml").write_text("x")
        assert checked(fresh, odd) == {"known": frozenset({"abc"})}  # that file only
        assert checked(fresh, odd) == {"known": frozenset()}
    finally:
        watcher.stop()


def test_a_settler_waits_for_the_drain_that_covers_its_moment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two requests settle at once: the second one's write comes while the first drains
    (an earlier batch). It must not return before its own write is counted."""
    from memx_cli.freshness.drain import Drain

    (tmp_path / "memories").mkdir()
    watcher = Drain()
    root = watcher.root(tmp_path)
    assert root is not None
    draining, release = threading.Event(), threading.Event()
    real = Drain.apply

    def slow(self: Drain, events: Any) -> None:
        draining.set()
        release.wait(5)
        real(self, events)

    monkeypatch.setattr(Drain, "apply", slow)
    try:
        (tmp_path / "memories" / "first.yaml").write_text("x")
        first = threading.Thread(target=watcher.settle)
        first.start()
        assert draining.wait(5)
        seen = root.changes
        (tmp_path / "memories" / "second.yaml").write_text("x")
        threading.Timer(0.2, release.set).start()
        watcher.settle()
        assert "second" in (root.since(seen) or ())
        first.join(5)
    finally:
        release.set()
        watcher.stop()


def test_many_settlers_each_see_their_own_write(tmp_path: Path) -> None:
    from memx_cli.freshness.drain import Drain

    (tmp_path / "memories").mkdir()
    watcher = Drain()
    root = watcher.root(tmp_path)
    assert root is not None
    missed: list[str] = []

    def writer(n: int) -> None:
        for k in range(20):
            name = f"w{n}k{k}"
            before = root.changes
            with open(tmp_path / "memories" / f"{name}.yaml", "w") as out:
                out.write("x")
            watcher.settle()
            if name not in (root.since(before) or ()):
                missed.append(name)

    try:
        threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert missed == []
        assert len(root.journal) == 120
    finally:
        watcher.stop()


def test_the_kernel_records_are_parsed_in_order() -> None:
    from memx_cli.freshness import inotify

    def record(wd: int, mask: int, name: bytes) -> bytes:
        padded = name + b"\0" * (-len(name) % 16 or (16 if name else 0))
        return struct.pack("iIII", wd, mask, 0, len(padded)) + padded

    data = (record(3, inotify.IN_CLOSE_WRITE, b"01abc.yaml")
            + record(-1, inotify.IN_Q_OVERFLOW, b"")
            + record(1, inotify.IN_CREATE | inotify.IN_ISDIR, b"memories"))
    assert list(inotify.parse(data)) == [
        (3, inotify.IN_CLOSE_WRITE, 0, b"01abc.yaml"), (-1, inotify.IN_Q_OVERFLOW, 0, b""),
        (1, inotify.IN_CREATE | inotify.IN_ISDIR, 0, b"memories")]


def test_without_inotify_the_observer_with_marks_is_used(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    import ctypes

    from memx_cli.freshness import drain
    from memx_cli.freshness import journal as watch

    monkeypatch.delenv("MEMX_WATCH", raising=False)
    monkeypatch.setattr(ctypes, "CDLL", lambda *a, **k: object())  # a libc without it
    with caplog.at_level("INFO", logger="memx.server"):
        watcher = drain.open_watcher()
    try:
        assert isinstance(watcher, watch.Watcher) and watcher.kind == "observer"
        assert "inotify unavailable" in caplog.text
    finally:
        watcher.stop()


def test_an_empty_settle_is_one_read_that_finds_nothing(tmp_path: Path) -> None:
    """No mark, no wait: settling with nothing queued is one read of the queue that finds
    nothing (the observer's mark round trip took 0.7-1 ms; its cost is a bench/ figure:
    bench/paced.py --settle)."""
    from memx_cli.freshness.drain import Drain

    (tmp_path / "memories").mkdir()
    watcher = Drain()
    try:
        assert watcher.root(tmp_path) is not None
        queue = watcher._fd
        assert queue is not None
        reads: list[object] = []

        class Counted:
            def read(self) -> object:
                found = queue.read()
                reads.append(found)
                return found

        watcher._fd = Counted()  # type: ignore[assignment]
        for _ in range(5):
            watcher.settle()
        assert [list(found) for found in reads] == [[]] * 5  # type: ignore[call-overload]
        assert watcher.events == 0
        watcher._fd = queue
    finally:
        watcher.stop()


def test_a_failed_read_of_the_queue_is_a_full_check(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli.freshness import inotify
    from memx_cli.freshness.drain import Drain

    (tmp_path / "memories").mkdir()
    watcher = Drain()
    try:
        root = watcher.root(tmp_path)
        assert root is not None
        watcher.settle()
        seen = root.changes
        assert root.since(seen) == frozenset()

        def broken(self: Any) -> Iterator[tuple[int, int, int, bytes]]:
            yield 999, inotify.IN_CREATE, 0, b"x.yaml"  # read, then the read fails
            raise OSError(9, "Bad file descriptor")

        monkeypatch.setattr(inotify.Inotify, "read", broken)
        watcher.settle()  # logged, not raised: the server's idle tick calls it too
        assert root.since(seen) is None and root.unknown == root.changes
    finally:
        watcher.stop()


def test_the_idle_server_counts_the_queued_events(memx: Memx, repo: Path) -> None:
    """The memx server reads the queue on its idle tick too (not only when a request
    comes), so writes in a quiet spell are counted as they come."""
    from memx_cli.server import daemon

    memx.ok("add", "--raw", FACTS["nightly"])
    [path] = (repo / ".memx" / "memories").glob("*.yaml")
    server = daemon.Daemon(idle_timeout=60)
    try:
        assert server.watcher.kind == "inotify"
        server.searcher(Repo(repo)).search("nightly", mode="keyword")
        [root] = server.watcher.roots.values()
        seen = root.changes
        in_place(path)
        assert root.changes == seen  # nothing read yet
        server.idle_tick()
        assert root.since(seen) == frozenset({path.stem})
    finally:
        server.watcher.stop()


def test_a_store_that_could_not_be_watched_is_tried_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-user inotify watches ran out (the kernel's ENOSPC, made here: exhausting
    the real limit would starve every other process of the user): the store is re-checked
    by time and listed as unwatched, and watched once a later try succeeds."""
    import errno

    from memx_cli.freshness import inotify
    from memx_cli.freshness import journal as watch
    from memx_cli.freshness.drain import Drain

    (tmp_path / "memories").mkdir()
    real = inotify.Inotify.add_watch
    full = [True]

    def limited(self: Any, path: str, mask: int) -> int:
        if full[0]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, path, mask)

    monkeypatch.setattr(inotify.Inotify, "add_watch", limited)
    watcher = Drain()
    try:
        assert watcher.root(tmp_path) is None
        assert watcher.unwatched() == [str(tmp_path)]
        full[0] = False  # a watch was freed; the next try is not before the delay
        assert watcher.root(tmp_path) is None
        monkeypatch.setattr(watch, "RETRY_WATCH_SECONDS", 0.0)
        root = watcher.root(tmp_path)
        assert root is not None and watcher.unwatched() == []
        (tmp_path / "memories" / "abc.yaml").write_text("x")
        watcher.settle()
        assert root.since(0) == frozenset({"abc"})
    finally:
        watcher.stop()
