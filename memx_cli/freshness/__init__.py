"""Whether a store's index is current, decided in one place (issues 15, 28).

``Freshness`` is the one interface: a ``Searcher`` (generator/search.py) asks it to
settle before a request and to open or sync each store's index, and the memx server
asks it before it lends an index to a write. Two answers stand behind it:

- ``ByTime`` (here), in a process without a file watcher (a ``memx`` command, a library
  program holding a ``Memx``): the index checks the files itself (the change stamp
  of the memory folders and git's index, else a stat of every file:
  freshness/quick.py, freshness/scan.py), and a searcher that lives on repeats that check at
  most every ``RECHECK_SECONDS`` unless a file was added, removed or renamed.
- ``Watched`` (journal.py), in the memx server and the MCP server: file events say
  which stores changed and which files (inotify read at settle time, drain.py and
  inotify.py; watchdog's observer with marks elsewhere); no event, no check; a store it
  cannot watch falls back to ``ByTime``.

Cheap to import (the executable imports freshness/ahead.py before anything else; nothing
here loads watchdog).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import Protocol

    from memx_cli.index import StoreIndex, SyncReport

    # (for the type checker only: a Protocol class costs its making at every import)
    class Freshness(Protocol):
        """How a long-lived searcher learns that a store's files changed."""

        def settle(self, indexes: Iterable[StoreIndex]) -> None:
            """Before a request: count every file write made until now."""

        def open(self, index: StoreIndex, want_vectors: bool) -> SyncReport:
            """``index.open_for_search``, checking only what is not known to be current."""

        def sync(self, index: StoreIndex, **options: Any) -> SyncReport:
            """``index.sync(**options)`` likewise (a write's check)."""


# A long-lived searcher without a watcher (or a store its watcher cannot watch) re-stats
# every memory file at most this often; additions, deletions and renames are still seen
# at once through the folders' times.
RECHECK_SECONDS = 1.0


class ByTime:
    """No watcher: the index's own check of the files, repeated by a searcher that
    lives on at most every ``seconds`` (an edit in place is seen within that time)."""

    def __init__(self, seconds: float = RECHECK_SECONDS):
        self.seconds = seconds

    def settle(self, indexes: Iterable[StoreIndex]) -> None:
        pass  # nothing is queued: the check itself looks at the files

    def open(self, index: StoreIndex, want_vectors: bool) -> SyncReport:
        return index.open_for_search(want_vectors, max_age=self.seconds)

    def sync(self, index: StoreIndex, **options: Any) -> SyncReport:
        return index.sync(**options)  # a write's check: in full, never by time


def restamp(freshness: Freshness, index: StoreIndex) -> bool:
    """Record what the changes a long-lived searcher's check took in left out of its
    index's state (``StoreIndex.restamp``: the change stamp for a command without a
    server, the folders' marks at which the index holds every file for the next
    trusted first open), ``freshness`` bringing the index up to date meanwhile."""
    from memx_cli.embed import is_loaded

    def check() -> None:
        freshness.settle([index])
        freshness.sync(index, want_vectors=is_loaded(index.model_spec))

    return index.restamp(check)
