"""What the memx server lends a command besides its warm searcher (memx_cli/services.py):
a warm index for a write, checked by the store's watcher, and the services of the
server's own run of a search when it opens a repository ahead, whose searches count no
recall."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from memx_cli.freshness import Freshness
    from memx_cli.generator.search import Searcher
    from memx_cli.index import StoreIndex, SyncReport
    from memx_cli.store.files import Store
    from memx_cli.store.repo import Repo


class Vouched:
    """A warm index lent to a write's Curator: its check first lets the watcher note
    every earlier write, then re-reads only the files the watcher names as changed since
    the index's last check (none: no check), or scans when it cannot name them."""

    def __init__(self, index: StoreIndex, freshness: Freshness):
        self._index = index
        self._freshness = freshness

    def sync(self, **options: Any) -> SyncReport:
        self._freshness.settle([self._index])
        return self._freshness.sync(self._index, **options)

    def sync_before_write(self, want_vectors: bool) -> SyncReport:
        return self.sync(want_vectors=want_vectors)  # the watcher's check, as above

    def __getattr__(self, name: str) -> Any:
        return getattr(self._index, name)


class Uncounted:
    """The services of the opening's own run of a search: its searcher, whose searches
    count no recall (the opening is nobody's search), and no index lent to a write."""

    def __init__(self, searcher: Searcher):
        self._searcher = UncountedSearcher(searcher)

    def searcher(self, repo: Repo) -> Searcher:
        return cast("Searcher", self._searcher)

    def write_index(self, store: Store, model: str | None) -> StoreIndex | None:
        return None


class UncountedSearcher:
    """A searcher whose ``search`` counts no recall; everything else is the searcher's."""

    def __init__(self, searcher: Searcher):
        self._searcher = searcher

    def search(self, query: str, **options: Any) -> Any:
        return self._searcher.search(query, **{**options, "record_recalls": False})

    def __getattr__(self, name: str) -> Any:
        return getattr(self._searcher, name)
