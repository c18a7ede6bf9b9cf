"""What a long-lived host lends the commands it runs (issue 28): the seam between the
memx server / MCP server and the library, typed so mypy sees it.

A one-shot ``memx`` command has no host: it opens its own indexes, syncs them by
checking the files, and ``services`` is None everywhere. The memx server
(server/daemon.py) and the MCP server (agents/mcp_server.py) keep a file watcher and one
warm ``Searcher`` per repository; they pass a ``Services`` down as a parameter: to
``cli.main`` (the click context's ``State``), from there to ``Memx``, and from ``Memx``
to the write path. Nothing is set on a module or an object from outside, so one request
cannot leave its host's state behind for the next command of the same process.

Only a protocol here (the types it names are imported for the checker only), so every
floor may import this module. What a warm searcher asks about its stores is the
``Freshness`` of memx_cli/freshness.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from memx_cli.generator.search import Searcher
    from memx_cli.index import StoreIndex
    from memx_cli.store.files import Store
    from memx_cli.store.repo import Repo


class Services(Protocol):
    """A host's warm parts, lent to the commands it runs."""

    def searcher(self, repo: Repo) -> Searcher:
        """The warm searcher of ``repo``: its indexes open, its stores watched (a
        ``freshness.journal.Watched``), so ``Memx`` lists from its index."""

    def write_index(self, store: Store, model: str | None) -> StoreIndex | None:
        """The warm index of ``store`` for a write's Curator, kept current by the
        host's watcher, or None: the write path then opens its own."""
