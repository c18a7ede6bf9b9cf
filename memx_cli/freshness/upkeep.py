"""The idle upkeep of warm stores, shared by the memx server and `memx mcp` (issue 15,
29): their vector deltas and text segments past their thresholds folded, the logs of
their search statistics folded, and the change stamp and folders' marks their writes and
the watcher's changes left out recorded. Each step gives way to a request: before each
it asks ``waiting`` whether one has come."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from memx_cli.freshness import restamp

if TYPE_CHECKING:
    from memx_cli.generator.search import Searcher
    from memx_cli.index import StoreIndex

log = logging.getLogger("memx.server")


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
