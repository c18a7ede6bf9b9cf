"""Shared memory sources at scale (issue 17): a project store plus a subscribed source
against one store holding both. Prints a Markdown table; see bench/README.md.

    python bench/sources.py [--project 10000] [--source 100000]

Target (issue 17): cold hybrid search over project + source at most 1.3x the time of one
store holding all their memories; warm hybrid search p50 <= 30 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import print_rows
from run import COLD_RUNS, SEED, isolate, log, memx, new_repo, pct, queries, write_store

WARM = 100


def _cold(root: Path, rng: random.Random) -> list[float]:
    memx(root, "search", "warm up", "--mode", "hybrid", "--json")  # builds the indexes
    times = []
    for query in queries(rng, COLD_RUNS):
        run = memx(root, "search", query, "--mode", "hybrid", "--json")
        if not json.loads(run.stdout).get("semantic"):
            log("WARNING hybrid search ran without vectors")
        times.append(run.seconds * 1000)
    return times


def _warm(root: Path, rng: random.Random) -> list[float]:
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    searcher = Searcher(Repo.discover(root))
    times = []
    for i, query in enumerate(queries(rng, WARM + 1)):
        start = time.perf_counter()
        searcher.search(query, mode="hybrid", record_recalls=False)
        if i:
            times.append((time.perf_counter() - start) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=int, default=10_000)
    parser.add_argument("--source", type=int, default=100_000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memx-bench-sources-") as name:
        tmp = Path(name)
        isolate(tmp / "home")
        log(f"one store of {args.project + args.source}")
        single = new_repo(tmp / "single")
        write_store(single, args.project + args.source, random.Random(SEED))
        log(f"a source of {args.source}, committed")
        source = new_repo(tmp / "source")
        write_store(source, args.source, random.Random(SEED + 1))
        subprocess.run(["git", "add", ".memx"], cwd=source, check=True)
        subprocess.run(["git", "commit", "-q", "-m", "memory"], cwd=source, check=True)
        log(f"a project of {args.project} subscribing to it")
        project = new_repo(tmp / "project")
        write_store(project, args.project, random.Random(SEED + 2))
        start = time.perf_counter()
        memx(project, "source", "add", "org", str(source))
        added_s = time.perf_counter() - start
        log("cold and warm searches")
        cold_single = _cold(single, random.Random(SEED + 3))
        cold_split = _cold(project, random.Random(SEED + 3))
        warm_split = _warm(project, random.Random(SEED + 4))
    ratio = statistics.median(cold_split) / statistics.median(cold_single)
    sizes = f"{args.project:,} + {args.source:,}"
    print_rows([
        (f"memx source add ({args.source:,} memories: clone, unpack)", f"{added_s:.1f} s", ""),
        (f"cold hybrid, one store of {args.project + args.source:,}: p50 / p95",
         f"{pct(cold_single, 50):.0f} / {pct(cold_single, 95):.0f} ms", ""),
        (f"cold hybrid, project + source ({sizes}): p50 / p95",
         f"{pct(cold_split, 50):.0f} / {pct(cold_split, 95):.0f} ms", ""),
        ("cold ratio (project + source / one store), p50", f"{ratio:.2f}x", "<= 1.3x"),
        (f"warm hybrid, project + source ({sizes}): p50 / p95",
         f"{pct(warm_split, 50):.1f} / {pct(warm_split, 95):.1f} ms", "p50 <= 30 ms"),
    ])
    return 0


if __name__ == "__main__":
    sys.exit(main())
