"""One very large store (issue 15: "survive 1M"): time and peak RSS of writing it with
`memx import --raw`, a full rebuild, cold searches without a server, and an incremental
update. Prints a Markdown table; see bench/README.md.

    python bench/million.py [--size 1000000] [--chunk 100000] [--workdir DIR] [--keep]
    python bench/million.py --build-only [--keep]   # import and rebuild only
    python bench/million.py --store DIR/store-1000000 [--no-incremental]

The memories are run.py's synthetic ones (same templates, fixed seed), imported as JSONL
in chunks of ``--chunk`` records (one `memx import --raw` process each: an import holds
its records in memory). Needs a few GB of disk per million (`df -h` first). ``--store``
runs only the searches (and the incremental update) on a store an earlier ``--keep`` run
left, with whichever memx is installed now. The searches run without the memx server,
then with it: the first search after the server starts (its index not yet warm; the
thin client waits MEMX_SERVER_TIMEOUT, 5 s by default, then runs in process), fresh
`memx search` processes answered by the warm server, and requests 1 s apart through its
socket (an agent's pace).
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
from user_paths import served_paced, server_allowed, stop_server

QUERY_RUNS, INCREMENTAL_RUNS = 7, 3
Rows = list[tuple[str, str]]


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ms"


def build(size: int, chunk: int, work: Path, rng: random.Random) -> tuple[Path, Rows]:
    """A new store of ``size`` memories, imported, then rebuilt in full."""
    root = new_repo(work / f"store-{size}")
    rows: Rows = []
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
    return root, rows


def searches(root: Path, rng: random.Random) -> Rows:
    """Cold `memx search` processes without the server."""
    log("cold searches")
    rows: Rows = []
    memx(root, "search", "warm up", "--mode", "hybrid", "--json")
    for mode in ("keyword", "hybrid"):
        times = [memx(root, "search", q, "--mode", mode, "--json").seconds * 1000
                 for q in queries(rng, QUERY_RUNS)]
        top = memx(root, "search", "peak memory", "--mode", mode, "--json", peak=True)
        rows.append((f"cold `memx search --mode {mode}` (no server), p50 / peak RSS",
                     f"{_ms(times)} / {top.peak_mb:.0f} MB"))
    return rows


def served(root: Path, rng: random.Random) -> Rows:
    """The same searches answered by the memx server (the run's own, see run.isolate)."""
    log("searches with the memx server")
    rows: Rows = []
    with server_allowed():
        memx(root, "server", "start")
        first = memx(root, "search", "first after start", "--mode", "hybrid", "--json")
        rows.append(("first `memx search --mode hybrid` after the server started "
                     "(index not yet warm in it)", f"{first.seconds * 1000:.0f} ms"))
        for mode in ("keyword", "hybrid"):
            memx(root, "search", "warm up", "--mode", mode, "--json")
            times = [memx(root, "search", q, "--mode", mode, "--json").seconds * 1000
                     for q in queries(rng, QUERY_RUNS)]
            rows.append((f"cold `memx search --mode {mode}`, server warm, p50",
                         _ms(times)))
    paced = served_paced(root, queries(rng, QUERY_RUNS))
    rows.append(("hybrid through the server's socket, 1 s apart, p50 / max",
                 f"{statistics.median(paced):.1f} / {max(paced):.1f} ms"))
    stop_server(root, memx)
    return rows


def incremental(root: Path, rng: random.Random, size: int) -> Rows:
    log("incremental updates")
    from memx_cli.store.repo import Repo

    store = Repo.discover(root).store
    times = []
    for i in range(INCREMENTAL_RUNS):
        store.write(synthetic_memory(rng, size + i, int(time.time() * 1000)))
        times.append(memx(root, "reindex").seconds * 1000)
    top = memx(root, "reindex", peak=True)
    return [("incremental `memx reindex` after +1 memory, p50 / peak RSS",
             f"{_ms(times)} / {top.peak_mb:.0f} MB")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the store afterwards")
    parser.add_argument("--store", type=Path,
                        help="search a store an earlier --keep run left (no import, no rebuild)")
    parser.add_argument("--no-incremental", action="store_true",
                        help="leave out the incremental update (it adds memories)")
    parser.add_argument("--build-only", action="store_true",
                        help="write and rebuild the store, then stop (no searches)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rng = random.Random(SEED + args.size)
    if args.store is not None:
        root = args.store.resolve()
        isolate(root.parent / "home")
        rows = []
    else:
        work = Path(tempfile.mkdtemp(prefix="memx-million-", dir=args.workdir))
        isolate(work / "home")
    try:
        if args.store is None:
            root, rows = build(args.size, args.chunk, work, rng)
        if not args.build_only:
            rows += searches(root, rng)
            rows += served(root, rng)
            if not args.no_incremental:
                rows += incremental(root, rng, args.size)
    finally:
        if args.store is None and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"| figure ({label(args.size)} memories) | measured |\n|---|---|")
    for figure, value in rows:
        print(f"| {figure} | {value} |")
    log(f"done in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
