"""The watched state (issue 15, memx_cli/server/watch.py): a warm searcher re-scans a
store only after an event in it, and sees a write made just before the search."""

from __future__ import annotations

from pathlib import Path

import pytest

from memx_cli.index.sync import StoreIndex
from memx_cli.store.repo import Repo

from .conftest import Memx


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The stores each StoreIndex scan looked at, in order."""
    seen: list[str] = []
    real = StoreIndex._scan

    def counted(self: StoreIndex) -> object:
        seen.append(self.store.label)
        return real(self)

    monkeypatch.setattr(StoreIndex, "_scan", counted)
    return seen


def _ids(result: object) -> list[str]:
    return [h.id for h in result.hits]  # type: ignore[attr-defined]


def test_no_event_no_scan_and_an_in_place_write_is_seen(memx: Memx, repo: Path,
                                                        scans: list[str]) -> None:
    from memx_cli.generator.search import Searcher
    from memx_cli.server.watch import Freshness, Watcher

    memx.ok("add", "--raw", "The nightly build publishes wheels to the mirror")
    [path] = (repo / ".memx" / "memories").glob("*.yaml")
    watcher = Watcher()
    try:
        searcher = Searcher(Repo(repo))
        searcher.watch = Freshness(watcher)
        assert _ids(searcher.search("nightly build", mode="keyword")) == [path.stem]
        first = len(scans)
        for _ in range(3):
            searcher.search("nightly build", mode="keyword")
        assert len(scans) == first  # nothing changed: no scan at all
        text = path.read_text().replace("nightly", "fortnightly")
        with open(path, "w") as out:  # in place: the directory's time does not move
            out.write(text)
        assert _ids(searcher.search("fortnightly", mode="keyword")) == [path.stem]
        assert len(scans) == first + 1
        searcher.search("fortnightly", mode="keyword")
        assert len(scans) == first + 1
    finally:
        watcher.stop()
    assert not list((repo / ".memx" / "local").glob("server-watch-*"))


def test_mcp_search_sees_an_in_place_write_at_once(memx: Memx, repo: Path,
                                                   scans: list[str]) -> None:
    from memx_cli.agents.mcp_server import MemoryService

    memx.ok("add", "--raw", "Feature flags live in the flags.toml file")
    [path] = (repo / ".memx" / "memories").glob("*.yaml")
    service = MemoryService(Repo(repo))
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


def test_an_unwatchable_store_falls_back_to_the_timed_check(memx: Memx, repo: Path,
                                                          tmp_path: Path) -> None:
    from types import SimpleNamespace

    from memx_cli.server.watch import UNWATCHED_MAX_AGE, Freshness, Watcher

    watcher = Watcher()
    try:
        fresh = Freshness(watcher)
        missing = SimpleNamespace(store=SimpleNamespace(root=tmp_path / "no-such-store"))
        assert fresh.max_age(missing) == UNWATCHED_MAX_AGE
        # a store where the mark cannot be written (here: local/ is a file)
        odd = tmp_path / "odd"
        (odd / "memories").mkdir(parents=True)
        (odd / "local").write_text("")
        index = SimpleNamespace(store=SimpleNamespace(root=odd))
        assert fresh.max_age(index) == 0.0  # first sight: sync
        fresh.settle([index])
        assert fresh.max_age(index) == UNWATCHED_MAX_AGE
        watched = SimpleNamespace(store=SimpleNamespace(root=repo / ".memx"))
        assert fresh.max_age(watched) == 0.0
        fresh.settle([watched])
        assert fresh.max_age(watched) == float("inf")
    finally:
        watcher.stop()
