"""The memx server switching back to a repository after others (issue 29), installs
interleaved.

    python bench/switch.py BEFORE_BIN AFTER_BIN [--sizes 10000] [--runs 5]

BEFORE_BIN and AFTER_BIN are the folders holding each install's `memx` executable (a
virtual environment's bin/). Each size gets one store of that size and OTHERS stores of
SMALL memories, written and committed as `run.py` does, copied once per install and
indexed. Under each install's interpreter (``--child``), one server's warm state
(``server.daemon.Daemon``: its searchers, watcher and eviction, as forwarded commands use
them, without the socket) searches the big store, then each small one, then the big one
again: that last search is the switch timed, ``--runs`` times. Two rows: as the server
keeps searchers, and with every searcher but the last dropped (``MAX_REPOSITORIES = 1``:
the re-check of a store the server has seen before). Prints medians.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from paired import paired_main, store_copies
from run import SEED, queries, run_child

OTHERS, SMALL = 8, 200
ROWS = {"kept": "hybrid search of the 1st repository again after 8 others",
        "dropped": "  the same, its searcher dropped meanwhile (the re-check of a store seen "
                   "before)"}


def child(how: str, big: Path, others: list[Path], texts: list[str]) -> list[float]:
    from memx_cli.server import daemon
    from memx_cli.store.repo import Repo

    if how == "dropped":
        daemon.MAX_REPOSITORIES = 1
    server = daemon.Daemon(idle_timeout=3600)
    try:
        server.searcher(Repo.discover(big)).search("warm up", mode="hybrid",
                                                   record_recalls=False)
        times = []
        for text in texts:
            for root in others:
                server.searcher(Repo.discover(root)).search("warm up", mode="hybrid",
                                                            record_recalls=False)
            start = time.perf_counter()
            server.searcher(Repo.discover(big)).search(text, mode="hybrid")
            times.append((time.perf_counter() - start) * 1000)
        return times
    finally:
        server.watcher.stop()


def figures(size: int, tmp: Path, bins: dict[str, Path], runs: int
            ) -> dict[str, dict[str, float]]:
    big = store_copies(size, tmp, bins, random.Random(SEED + size))
    small = [store_copies(SMALL, tmp / f"small{i}", bins, random.Random(SEED + i))
             for i in range(OTHERS)]
    for name in bins:
        for root in [big[name], *(copies[name] for copies in small)]:
            run_child([str(bins[name] / "memx"), "reindex", "--full"], root)
    texts = queries(random.Random(SEED - size), runs)
    out: dict[str, dict[str, list[float]]] = {name: {} for name in bins}
    for i, how in enumerate(ROWS):
        for name in list(bins) if i % 2 == 0 else list(reversed(bins)):
            done = subprocess.run(
                [str(bins[name] / "python"), __file__, "--child", how, str(big[name]),
                 *(str(copies[name]) for copies in small), "--", *texts],
                cwd=Path(__file__).parent, check=True, capture_output=True, text=True)
            out[name][ROWS[how]] = json.loads(done.stdout.splitlines()[-1])
    return {name: {row: statistics.median(values) for row, values in rows.items()}
            for name, rows in out.items()}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        cut = sys.argv.index("--")
        how, big, *others = sys.argv[2:cut]
        print(json.dumps(child(how, Path(big), [Path(p) for p in others],
                               sys.argv[cut + 1:])))
        sys.exit(0)
    sys.exit(paired_main(sys.argv[1:], __doc__, figures, runs=5))
