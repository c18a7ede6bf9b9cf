"""The memx server's upkeep of its warm stores while no request comes (issue 15, 25):
their vector deltas and search statistics folded and the change stamp their writes left
out recorded, and the e5 vectors a question in another language left missing made. Each
gives way to a request: before each store it asks ``waiting`` whether one has come.
`memx mcp` runs the same upkeep in its quiet spell (``compact``)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from memx_cli.freshness import restamp

if TYPE_CHECKING:
    from memx_cli.generator.search import Searcher
    from memx_cli.index import StoreIndex

log = logging.getLogger("memx.server")

# Seconds without a request before the warm stores' vector deltas are folded into their
# main files (issue 15: compaction where a process lives on, off the request path).
COMPACT_AFTER = 5.0


def never() -> bool:
    return False


def compact(searchers: Iterable[Searcher], waiting: Callable[[], bool] = never) -> bool:
    """Fold the grown vector deltas of the warm stores and the logs of their search
    statistics (recall counts, co-recalled pairs; else the search that crosses a log's
    size folds it: ~0.3 s at 10k memories, ~2.5 s at 100k), and record the change stamp
    that the writes since left out (``StoreIndex.restamp``), so that a command without
    the server after them need not scan either. True when done; False when ``waiting``
    said a request came, which it is asked before each of a store's steps (the next
    quiet spell starts again: the steps done already have nothing left to do). The memx
    server runs it when idle, `memx mcp` in its quiet spell (issue 29).

    A command never waits for it (with dozens of warm stores on a loaded machine the
    upkeep could outlast the client's wait, and a command that came meanwhile would run
    in process)."""
    for searcher in searchers:
        for index in searcher.indexes:
            for step in _steps(searcher, index):
                if waiting():
                    log.info("idle upkeep paused for a request")
                    return False
                try:
                    step()
                except Exception as exc:  # never end the host; the next spell retries
                    log.warning(f"idle upkeep of {index.store.root} skipped: {exc}")
                    break
    return True


def _steps(searcher: Searcher, index: StoreIndex) -> list[Callable[[], object]]:
    """One store's upkeep, each step a unit a request waits for at most."""
    from memx_cli.store import corecall, recall

    def folded(statistic: Any) -> Callable[[], None]:
        def fold() -> None:
            if statistic.ledger(index.store).pending():
                statistic.compact(index.store)
        return fold

    steps: list[Callable[[], object]] = [index.compact]
    if index.store.label not in searcher.sources:  # a source is read-only
        steps += [folded(recall), folded(corecall)]
    steps.append(lambda: restamp(searcher.freshness, index))
    return steps


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
