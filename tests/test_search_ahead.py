"""A search by meaning loads its vector file and model while the change check's git
runs (generator/search.py ``Searcher._ahead``, issue 29): the same results as loading
them after the check, and a vector file replaced in between is opened anew."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memx_cli.freshness import ahead, quick
from memx_cli.generator.search import Searcher
from memx_cli.store.files import Store
from memx_cli.store.repo import Repo

from .conftest import Memx
from .test_index_quick import age, commit, settle

TEXTS = [
    "docker compose up fails with a port already allocated on 5432",
    "the staging database pool size is 20 connections",
    "pytest fixtures that open sockets must close them in teardown",
    "kubectl rollout restart deploy/api after a config map change",
    "ruff is pinned to 0.6 in the pre-commit configuration",
    "our cache layer keeps sessions in redis for two hours",
]
QUERY = "container port conflict when starting the services"


@pytest.fixture(autouse=True)
def small_stores_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quick, "MIN_FILES", 0)
    monkeypatch.setattr(ahead, "_started", {})


def stocked(memx: Memx, repo: Path) -> Store:
    """A committed store with vectors and a trusted change stamp (git gets started)."""
    for text in TEXTS:
        memx.ok("add", text, "--raw")
    memx.ok("search", "warm up", "--mode", "hybrid")  # the vectors, embedded
    commit(repo)
    store = Repo.discover(repo).store
    age(store.root)
    settle(store)
    assert (store.cache_dir / "vectors.usearch").is_file()
    return store


def ranked(searcher: Searcher, query: str = QUERY) -> list[tuple[str, float, float | None]]:
    hits = searcher.search(query, mode="hybrid", record_recalls=False).hits
    return [(h.id, round(h.layers["keyword"], 9), h.layers.get("semantic")) for h in hits]


def spied(monkeypatch: pytest.MonkeyPatch) -> list[set[int]]:
    """What each ``Searcher._ahead`` call opened."""
    calls: list[set[int]] = []
    original = Searcher._ahead

    def spy(self: Searcher, want_vectors: bool) -> set[int]:
        calls.append(original(self, want_vectors))
        return calls[-1]

    monkeypatch.setattr(Searcher, "_ahead", spy)
    return calls


def test_the_vector_file_opened_while_git_runs_gives_the_same_results(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stocked(memx, repo)
    calls = spied(monkeypatch)
    # control: no git started (a small store, the servers): nothing is opened ahead
    plain = Searcher(Repo.discover(repo))
    expected = ranked(plain)
    assert calls == [set()] and expected
    assert any(semantic for _, _, semantic in expected)
    assert ahead.start_here(str(repo))
    searcher = Searcher(Repo.discover(repo))
    index = searcher.indexes[0]
    views: list[Any] = []
    monkeypatch.setattr(searcher, "settle", lambda: views.append(index.vectors._view))
    assert ranked(searcher) == expected
    assert calls[-1] == {id(index)}
    assert views[0] is not None and index.vectors._view is views[0]  # the one opened ahead
    assert ahead._started == {}  # the check took git's answer
    # a keyword search opens no vector file ahead, only its own index after the check
    assert ahead.start_here(str(repo))
    words = Searcher(Repo.discover(repo))
    assert words.search("redis sessions", mode="keyword", record_recalls=False).hits
    assert calls[-1] == set() and words.indexes[0].vectors._view is None


def test_a_vector_file_replaced_after_it_was_opened_ahead_is_opened_anew(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stocked(memx, repo)
    assert ahead.start_here(str(repo))
    searcher = Searcher(Repo.discover(repo))
    index = searcher.indexes[0]
    views: list[Any] = []

    def replace() -> None:
        # another process, between the open ahead and the check: a memory about the
        # query's meaning, then a rebuild that puts a new main vector file in place
        views.append(index.vectors._view)
        memx.ok("add", "two containers fight over the same published port", "--raw")
        memx.ok("reindex", "--full")

    monkeypatch.setattr(searcher, "settle", replace)
    got = ranked(searcher)
    assert views[0] is not None and index.vectors._view is not views[0]
    afterwards = Searcher(Repo.discover(repo))  # a search begun after the rebuild
    assert got == ranked(afterwards)
    new = [h for h in afterwards.search(QUERY, mode="hybrid", record_recalls=False).hits
           if h.doc["content"].startswith("two containers")]
    assert new and new[0].layers["semantic"] is not None
    assert (new[0].id, round(new[0].layers["keyword"], 9), new[0].layers["semantic"]) in got
