"""The watched state (issue 15, memx_cli/freshness/journal.py): a warm searcher re-scans a
store only after an event in it, and sees a write made just before the search."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memx_cli.index.sync import StoreIndex
from memx_cli.store.repo import Repo

from .conftest import Memx


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The stores each StoreIndex scan looked at, in order. A mark that is not back in
    time counts as a change (a scan). watchdog holds events behind a rename it has not
    paired yet (up to 0.5 s), and the first search's own cache writes are renames, so
    the 0.2 s default can pass now and then: these tests, which count scans, wait
    longer for the mark."""
    monkeypatch.setattr("memx_cli.freshness.journal.SETTLE_SECONDS", 10.0)
    seen: list[str] = []
    real = StoreIndex._scan

    def counted(self: StoreIndex) -> object:
        seen.append(self.store.label)
        return real(self)

    monkeypatch.setattr(StoreIndex, "_scan", counted)
    return seen


@pytest.fixture(params=["inotify", "observer"])
def watch_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each watcher ``open_watcher`` can give (freshness/drain.py): inotify read at settle
    time, and watchdog's observer with marks (where inotify is missing)."""
    monkeypatch.setenv("MEMX_WATCH", request.param)
    return str(request.param)


def open_watcher(kind: str) -> Any:
    from memx_cli.freshness.drain import open_watcher

    watcher = open_watcher()
    assert watcher.kind == kind
    return watcher


@pytest.fixture
def watched(memx: Memx, repo: Path, watch_kind: str) -> Iterator[tuple[Any, Path]]:
    """A watched Searcher (as the memx and MCP servers hold one) over a store with one
    memory about the nightly build, and that memory's file."""
    from memx_cli.freshness.journal import Watched
    from memx_cli.generator.search import Searcher

    memx.ok("add", "--raw", "The nightly build publishes wheels to the mirror")
    [path] = (repo / ".memx" / "memories").glob("*.yaml")
    watcher = open_watcher(watch_kind)
    try:
        searcher = Searcher(Repo(repo), freshness=Watched(watcher))
        yield searcher, path
    finally:
        watcher.stop()


def _ids(result: object) -> list[str]:
    return [h.id for h in result.hits]  # type: ignore[attr-defined]


def test_no_event_no_scan_and_an_in_place_write_is_seen(
        watched: tuple[Any, Path], repo: Path, scans: list[str]) -> None:
    searcher, path = watched
    assert _ids(searcher.search("nightly build", mode="keyword")) == [path.stem]
    first = len(scans)
    for _ in range(3):
        searcher.search("nightly build", mode="keyword")
    assert len(scans) == first  # nothing changed: no scan at all
    text = path.read_text().replace("nightly", "fortnightly")
    with open(path, "w") as out:  # in place: the directory's time does not move
        out.write(text)
    assert _ids(searcher.search("fortnightly", mode="keyword")) == [path.stem]
    assert len(scans) == first  # the watcher named the file: only it was read again
    searcher.search("fortnightly", mode="keyword")
    assert len(scans) == first
    searcher.freshness.watcher.stop()  # (the fixture's stop after it changes nothing)
    assert not list((repo / ".memx" / "local").glob("server-watch-*"))


def test_mcp_search_sees_an_in_place_write_at_once(memx: Memx, repo: Path, scans: list[str],
                                                   watch_kind: str) -> None:
    from memx_cli.agents.mcp_server import MemoryService

    memx.ok("add", "--raw", "Feature flags live in the flags.toml file")
    [path] = (repo / ".memx" / "memories").glob("*.yaml")
    service = MemoryService(Repo(repo))
    assert service.watcher.kind == watch_kind
    try:
        assert service.search("feature flags", "keyword", None, 5)["results"]
        first = len(scans)
        assert service.search("feature flags", "keyword", None, 5)["results"]
        assert len(scans) == first
        path.write_text(path.read_text().replace("flags.toml", "switchboard.toml"))
        hits = service.search("switchboard", "keyword", None, 5)["results"]
        assert [h["id"] for h in hits] == [path.stem]
    finally:
        service.watcher.stop()


def checked(fresh: Any, root: Path) -> dict[str, Any]:
    """How ``fresh`` has the index of the store at ``root`` checked when a search opens
    it: {} in full, {"known": ids} only those files (none: no check), {"max_age": s}
    by time (an index that records the call; the freshness decides alone)."""
    from types import SimpleNamespace

    calls: list[dict[str, Any]] = []
    index = SimpleNamespace(store=SimpleNamespace(root=root), scans=0,
                            open_for_search=lambda want_vectors, **how: calls.append(how))
    fresh.settle([index])
    fresh.open(index, False)
    [how] = calls
    return how


def test_an_unwatchable_store_falls_back_to_the_timed_check(memx: Memx, repo: Path,
                                                          tmp_path: Path) -> None:
    """The observer's: a store where its mark cannot be written (the drained watcher
    needs no mark: test_watch_drain.py)."""
    from memx_cli.freshness import RECHECK_SECONDS
    from memx_cli.freshness.journal import Watched, Watcher

    watcher = Watcher()
    try:
        fresh = Watched(watcher)
        assert checked(fresh, tmp_path / "no-such-store") == {"max_age": RECHECK_SECONDS}
        # a store where the mark cannot be written (here: local/ is a file)
        odd = tmp_path / "odd"
        (odd / "memories").mkdir(parents=True)
        (odd / "local").write_text("")
        assert checked(fresh, odd) == {"max_age": RECHECK_SECONDS}
        assert checked(fresh, repo / ".memx") == {}  # first sight: in full
        assert checked(fresh, repo / ".memx") == {"known": frozenset()}  # no check
    finally:
        watcher.stop()


def test_edits_in_place_one_after_another_are_all_seen(watched: tuple[Any, Path]) -> None:
    searcher, path = watched
    old, new = "nightly", "fortnightly"
    for _ in range(12):
        assert _ids(searcher.search(old, mode="keyword")) == [path.stem]
        text = path.read_text().replace(old, new)
        with open(path, "w") as out:
            out.write(text)
        old, new = new, old


def test_a_mark_counts_once_however_many_events_it_makes(tmp_path: Path) -> None:
    """Creating a mark file makes several events (created, closed); counting events
    instead of reading the mark's number let a search run before an earlier write's
    event arrived (seen under load)."""
    from memx_cli.freshness.journal import Root

    root = Root(str(tmp_path))
    assert root.send_mark() == 1
    for _ in range(3):
        root.event(f"{root.mark_prefix}1", None)
    assert root.marks_seen == 1
    assert root.send_mark() == 2
    assert sorted(p.name for p in (tmp_path / "local").iterdir()) == [
        f"server-watch-{os.getpid()}-2"]
    root.event(f"{root.mark_prefix}1", None)  # a late duplicate of the first
    assert root.marks_seen == 1
    root.event(f"{root.mark_prefix}2", None)
    assert root.marks_seen == 2 and root.changes == 0
    root.event(str(tmp_path / "memories" / "x.yaml"), None)
    root.event(str(tmp_path / "cache" / "lexical" / "meta.json"), None)
    assert root.changes == 1
    root.close()
    assert list((tmp_path / "local").iterdir()) == []
