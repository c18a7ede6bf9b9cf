"""The first searches of a large store through a freshly started memx server (issue 29:
at 1M memories the first took 10 s), installs interleaved.

    python bench/first_open.py BIN [BIN ...] --store DIR/store-N [--runs 3] [--quiet 6]

Each BIN is the folder holding an install's `memx` executable. ``--store`` is a store an
earlier `bench/million.py --keep` run left; every install searches the same store (it
is not written to: no memory is added). First, per install, one search without the
server, as a command before the server would have run (it may record what its check
saw). Then each round, per install (the order alternates between rounds): `memx server
start` (no repository opened ahead, as bench/million.py starts it), then three `memx
search --mode hybrid --json` processes: the first, the second right after it (it waits
for whatever check the server does once the first is answered) and, after ``--quiet``
seconds, the third; then the server is stopped. Then a `memx mcp` process over real
stdio pipes (the MCP handshake first, untimed) and two `search_memory` calls back to back,
each timed from writing its request line to reading its reply (the first opens the
store; the second comes while the check a trusted first open put off may run). Each
install has a server folder of its own. Prints the medians (ms) per install.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from first_commands import installs_of, stopped
from mcp_paced import McpClient
from run import SEED, isolate, queries, run_child
from user_paths import server_allowed

FIGURES = ("1st search after `memx server start`", "2nd, right after the 1st",
           "3rd, after a quiet spell", "`memx mcp`: 1st search_memory after the handshake",
           "`memx mcp`: 2nd, right after the 1st")


def one_round(memx: list[str], root: Path, texts: list[str], quiet: float) -> list[float]:
    with server_allowed():
        stopped(memx, root)
        run_child([*memx, "server", "start"], root)
        times = []
        for i, text in enumerate(texts[:3]):
            if i == 2:
                time.sleep(quiet)
            run = run_child([*memx, "search", text, "--mode", "hybrid", "--json"], root)
            times.append(run.seconds * 1000)
        stopped(memx, root)
    client = McpClient(Path(memx[0]), root)
    try:
        times += [client.search(text)[0] for text in texts[:2]]
    finally:
        client.close()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bins", nargs="+", type=Path)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quiet", type=float, default=6.0)
    args = parser.parse_args(argv)
    root = args.store.resolve()
    installs = installs_of(args.bins)
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory(prefix="memx-first-open-") as tmp:
        isolate(Path(tmp) / "home")
        for memx in installs.values():
            run_child([*memx, "search", "before the server", "--mode", "hybrid", "--json"],
                      root)
        result: dict[str, list[list[float]]] = {name: [] for name in installs}
        for i in range(args.runs):
            texts = queries(rng, 3)
            order = list(installs) if i % 2 == 0 else list(reversed(installs))
            for name in order:
                os.environ["MEMX_SERVER_DIR"] = str(Path(tmp) / f"run-{name}")
                result[name].append(one_round(installs[name], root, texts, args.quiet))
                print(f"[bench] round {i + 1} {name}: "
                      + ", ".join(f"{t:.0f}" for t in result[name][-1]), file=sys.stderr)
    names = list(result)
    print(f"| figure ({root.name}, median of {args.runs}) | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for slot, figure in enumerate(FIGURES):
        print(f"| {figure} | " + " | ".join(
            f"{statistics.median(row[slot] for row in result[n]):.0f} ms" for n in names)
            + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
