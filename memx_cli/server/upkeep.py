"""The memx server's upkeep of its warm stores while no request comes (issue 15, 25):
their vector deltas and search statistics folded and the change stamp their writes left
out recorded, and the e5 vectors a question in another language left missing made. Each
gives way to a request: before each store it asks ``waiting`` whether one has come.
The stores' folds and stamps (``compact``) are freshness/upkeep.py's, which `memx mcp`
shares."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from memx_cli.freshness.upkeep import never

if TYPE_CHECKING:
    from memx_cli.generator.search import Searcher

log = logging.getLogger("memx.server")

# Seconds without a request before the warm stores' vector deltas are folded into their
# main files (issue 15: compaction where a process lives on, off the request path).
COMPACT_AFTER = 5.0


def fill(searchers: Iterable[Searcher], waiting: Callable[[], bool] = never) -> None:
    """Make the e5 vectors that a question in another language left missing in a warm
    store (a served search encodes at most e5voice.SERVED_ENCODE of its candidates),
    a few at a time, stopping for a request; stores never asked one cost nothing."""
    for searcher in searchers:
        try:
            if not searcher.fill_e5(waiting):
                return
        except Exception as exc:  # never end the server; the next quiet second retries
            log.warning(f"filling e5 vectors of {searcher.repo.worktree} skipped: {exc}")
            return
