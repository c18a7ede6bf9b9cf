"""Scale figures of what users meet (issue 15), beside the index-centred ones of run.py:
the floor of one bare tantivy query, `memx add` then the next search, a store whose
recall statistics are full, a warm Searcher at an agent's pace, and the same through the
memx server (fresh thin-client processes, and requests at an agent's pace)."""

from __future__ import annotations

import contextlib
import os
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

# One BM25 query in a fresh interpreter: open the index memx built, parse, search, read
# the stored documents of the hits. What a keyword search cannot go below.
BARE_TANTIVY = """
import re, sys, tantivy
index = tantivy.Index.open(sys.argv[1])
searcher = index.searcher()
words = " ".join(re.findall(r"[a-z0-9]+", sys.argv[2].lower()) or ["memx"])
hits = searcher.search(index.parse_query(words, ["stem"]), 10).hits
docs = [searcher.doc(address) for _, address in hits]
"""
ADD_RUNS, PACED_RUNS, PACE_SECONDS = 5, 10, 1.0


def bare_tantivy(root: Path, queries: Sequence[str], run_child: Callable[..., Any],
                 python: str) -> list[float]:
    lexical = str(root / ".memx" / "cache" / "lexical")
    return [run_child([python, "-c", BARE_TANTIVY, lexical, q],
                      root).seconds * 1000 for q in queries]


def add_then_search(root: Path, texts: Sequence[str], queries: Sequence[str],
                    memx: Callable[..., Any]) -> tuple[float, float]:
    """Medians of a whole `memx add` process and of the hybrid search right after it."""
    adds, searches = [], []
    for text, query in zip(texts, queries):
        adds.append(memx(root, "add", text).seconds * 1000)
        searches.append(memx(root, "search", query, "--mode", "hybrid", "--json").seconds
                        * 1000)
    return statistics.median(adds), statistics.median(searches)


def recall_everything(root: Path) -> int:
    """Count one recall for every memory of the store, as a long-used clone has them
    (the benchmark's stores otherwise start with no statistics)."""
    from memx_cli.store import recall
    from memx_cli.store.repo import Repo

    store = Repo.discover(root).store
    ids = store.ids()
    step = max(100, len(ids) // 100)  # 100 searches' worth, whatever the size
    for start in range(0, len(ids), step):
        recall.record(store, ids[start:start + step])
    return len(ids)


def paced_warm(root: Path, queries: Sequence[str], watched: bool = False) -> list[float]:
    """An MCP server's searches at an agent's pace: one warm Searcher, queries
    PACE_SECONDS apart, recalls counted as the server counts them. ``watched``: with
    the file watcher the MCP server and the memx server use (issue 15), else the
    time-based re-check of every file."""
    from memx_cli.freshness import journal as watch
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    try:  # the watcher of this install (the drained inotify one since issue 15's fifth
        from memx_cli.freshness.drain import open_watcher  # session), else the observer
    except ImportError:
        open_watcher = watch.Watcher
    watcher = open_watcher() if watched else None
    searcher = Searcher(Repo.discover(root),
                        freshness=watch.Watched(watcher) if watcher is not None else None)
    try:
        searcher.search("warm up", mode="hybrid", record_recalls=False)
        times = []
        for query in queries:
            time.sleep(PACE_SECONDS)
            start = time.perf_counter()
            searcher.search(query, mode="hybrid")
            times.append((time.perf_counter() - start) * 1000)
        return times
    finally:
        if watcher is not None:
            watcher.stop()


@contextlib.contextmanager
def server_allowed() -> Iterator[None]:
    """The benchmark runs with MEMX_NO_SERVER=1 (the no-server figures); these rows
    let the thin `memx` client use the memx server."""
    os.environ.pop("MEMX_NO_SERVER", None)
    try:
        yield
    finally:
        os.environ["MEMX_NO_SERVER"] = "1"


def served_cold(root: Path, queries: Sequence[str], memx: Callable[..., Any]
                ) -> dict[str, list[float]]:
    """Fresh `memx search` processes answered by a running, warmed-up memx server."""
    times: dict[str, list[float]] = {"keyword": [], "hybrid": []}
    with server_allowed():
        memx(root, "server", "start")
        for mode in times:
            memx(root, "search", "warm up", "--mode", mode, "--json")
        for query in queries:
            for mode, found in times.items():
                found.append(memx(root, "search", query, "--mode", mode, "--json").seconds
                             * 1000)
    return times


def served_paced(root: Path, queries: Sequence[str]) -> list[float]:
    """The memx server at an agent's pace: one request PACE_SECONDS apart from this
    process (connect, send, the server's search, receive), recalls counted."""
    from memx_cli import executable as client

    here = os.getcwd()
    os.chdir(root)
    times = []
    try:
        with server_allowed():
            client._forward(["search", "warm up", "--json"])
            for query in queries:
                time.sleep(PACE_SECONDS)
                start = time.perf_counter()
                reply, _ = client._forward(["search", query, "--mode", "hybrid", "--json"])
                times.append((time.perf_counter() - start) * 1000)
                if reply is None or reply[0] != 0:
                    raise RuntimeError(f"the memx server did not answer {query!r}")
    finally:
        os.chdir(here)
    return times


def stop_server(root: Path, memx: Callable[..., Any]) -> None:
    with server_allowed():
        memx(root, "server", "stop")
