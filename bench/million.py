"""One very large store (issue 15: "survive 1M"): time and peak RSS of writing it with
`memx import --raw`, a full rebuild, cold searches without a server, and an incremental
update. Prints a Markdown table; see bench/README.md.

    python bench/million.py [--size 1000000] [--chunk 100000] [--workdir DIR] [--keep]

The memories are run.py's synthetic ones (same templates, fixed seed), imported as JSONL
in chunks of ``--chunk`` records (one `memx import --raw` process each: an import holds
its records in memory). Needs a few GB of disk per million (`df -h` first).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from run import (
    SEED,
    isolate,
    label,
    log,
    memx,
    new_repo,
    queries,
    synthetic_memory,
    write_records,
)

QUERY_RUNS, INCREMENTAL_RUNS = 7, 3
def _ms(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ms"


def run(size: int, chunk: int, work: Path) -> list[tuple[str, str]]:
    rng = random.Random(SEED + size)
    root = new_repo(work / f"store-{size}")
    rows: list[tuple[str, str]] = []
    payload = work / "chunk.jsonl"
    spent, peak = 0.0, 0.0
    for start in range(0, size, chunk):
        count = min(chunk, size - start)
        write_records(rng, start, count, size, payload)
        result = memx(root, "import", "--raw", str(payload), peak=True)
        spent += result.seconds
        peak = max(peak, result.peak_mb)
        log(f"{start + count} imported ({result.seconds:.1f} s for {count})")
    payload.unlink()
    rows.append(("`memx import --raw`, per memory (chunks of "
                 f"{label(chunk)}, whole processes)", f"{spent / size * 1000:.3f} ms"))
    rows.append(("`memx import --raw`, total / peak RSS of one chunk",
                 f"{spent:.0f} s / {peak:.0f} MB"))

    log("full rebuild")
    result = memx(root, "reindex", "--full", peak=True)
    rows.append(("full rebuild (`memx reindex --full`), time / peak RSS",
                 f"{result.seconds:.1f} s / {result.peak_mb:.0f} MB"))

    log("cold searches")
    memx(root, "search", "warm up", "--mode", "hybrid", "--json")
    for mode in ("keyword", "hybrid"):
        times = [memx(root, "search", q, "--mode", mode, "--json").seconds * 1000
                 for q in queries(rng, QUERY_RUNS)]
        top = memx(root, "search", "peak memory", "--mode", mode, "--json", peak=True)
        rows.append((f"cold `memx search --mode {mode}` (no server), p50 / peak RSS",
                     f"{_ms(times)} / {top.peak_mb:.0f} MB"))

    log("incremental updates")
    from memx_cli.store.repo import Repo

    store = Repo.discover(root).store
    times = []
    for i in range(INCREMENTAL_RUNS):
        store.write(synthetic_memory(rng, size + i, int(time.time() * 1000)))
        times.append(memx(root, "reindex").seconds * 1000)
    top = memx(root, "reindex", peak=True)
    rows.append(("incremental `memx reindex` after +1 memory, p50 / peak RSS",
                 f"{_ms(times)} / {top.peak_mb:.0f} MB"))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the store afterwards")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="memx-million-", dir=args.workdir))
    isolate(work / "home")
    try:
        started = time.perf_counter()
        rows = run(args.size, args.chunk, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"| figure ({label(args.size)} memories) | measured |\n|---|---|")
    for figure, value in rows:
        print(f"| {figure} | {value} |")
    log(f"done in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
