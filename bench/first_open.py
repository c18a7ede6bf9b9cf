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

``--take-in`` (issue 29) times instead, per round and install, in one process of that
install (``TAKE_IN``), after one search without the server (a check of every file, which
records the marks it held them at): a memory file is written in place (the folders'
times do not move, so the first open trusts the index); a watched searcher as the memx server
makes it answers a first search on the index's word, its full check's look runs on its
own thread and is joined, then the next search is timed (where a search takes in what
that look found, a commit of the text index is in it), then what the host does once that answer
is sent (``Watched.verify``: the take-in, when the search left it). Then `memx mcp` restarted
after a session in which a memory file was added by hand and found by a search, the
session's quiet spell (``--quiet``) and its end: the next session's first search_memory
(trusted only when the last one recorded the folders' marks its changes left).
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

# One install's interpreter: a first search trusted, the look joined, its take-in timed.
TAKE_IN = """
import sys, time
from pathlib import Path
from memx_cli.freshness.drain import open_watcher
from memx_cli.freshness.journal import Watched
from memx_cli.generator.search import Searcher
from memx_cli.store.repo import Repo
root, query = Path(sys.argv[1]), sys.argv[2]
watcher = open_watcher()
searcher = Searcher(Repo(root), freshness=Watched(watcher, trust_first=True))
started = time.perf_counter()
searcher.search(query, mode="keyword")
first = time.perf_counter() - started
assert searcher.freshness.unverified, "the first open was not trusted"
searcher.freshness.verify()
for pending in list(searcher.freshness.unverified.values()):
    pending.thread.join()
started = time.perf_counter()
searcher.search(query, mode="keyword")
second = time.perf_counter() - started
started = time.perf_counter()
searcher.freshness.verify()
took = time.perf_counter() - started
assert not searcher.freshness.unverified, "the look was not taken in"
print(f"{first * 1000:.1f} {second * 1000:.1f} {took * 1000:.1f}")
watcher.stop()
"""
TAKE_IN_FIGURES = ("1st search, trusted, after a file written in place",
                   "2nd search, once the full check's look has ended",
                   "take-in after that answer (`verify`), if left to it",
                   "`memx mcp` restarted after a session that took in a file added by "
                   "hand: 1st search_memory")

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


def edit_in_place(root: Path, number: int) -> None:
    """Rewrite one memory file where it is (a comment line more: its bytes change, so it
    is parsed and indexed again); its folder's time stays."""
    path = sorted((root / ".memx" / "memories").glob("*.yaml"))[number]
    path.write_text(f"{path.read_text()}# edited {number}\n")


def add_by_hand(root: Path, number: int) -> str:
    """A copy of a memory file under a new id, as a user would write it; a query for it."""
    memories = root / ".memx" / "memories"
    source = sorted(memories.glob("*.yaml"))[number]
    new = f"{source.stem[:-6]}{number % 1000:03d}zzz"
    (memories / f"{new}.yaml").write_text(source.read_text().replace(source.stem, new)
                                          .replace("content: '", f"content: 'Added {number}. ", 1))
    return f"Added {number}"


def take_in_round(memx: list[str], root: Path, number: int, quiet: float) -> list[float]:
    # a check of every file first: the marks it held them at, whatever the last round left
    run_child([*memx, "search", "before the round", "--mode", "keyword"], root)
    edit_in_place(root, number)
    run = run_child([str(Path(memx[0]).with_name("python")), "-c", TAKE_IN, str(root),
                     "rerun flaky ledger tests"], root)
    first, second, took = (float(x) for x in run.stdout.split())
    client = McpClient(Path(memx[0]), root)
    try:
        client.search("rerun flaky ledger tests")
        client.search(add_by_hand(root, number + 1))  # the watcher names the file
        time.sleep(quiet)
    finally:
        client.close()
    client = McpClient(Path(memx[0]), root)
    try:
        restart = client.search("rerun flaky ledger tests")[0]
    finally:
        client.close()
    return [first, second, took, restart]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bins", nargs="+", type=Path)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quiet", type=float, default=6.0)
    parser.add_argument("--take-in", action="store_true",
                        help="time the take-in of a full check that found an edit, and "
                             "`memx mcp` restarted after a session's changes (see above)")
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
                result[name].append(
                    take_in_round(installs[name], root, 7 * i + 3 * list(installs).index(name),
                                  args.quiet)
                    if args.take_in else one_round(installs[name], root, texts, args.quiet))
                print(f"[bench] round {i + 1} {name}: "
                      + ", ".join(f"{t:.0f}" for t in result[name][-1]), file=sys.stderr)
    names = list(result)
    print(f"| figure ({root.name}, median of {args.runs}) | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for slot, figure in enumerate(TAKE_IN_FIGURES if args.take_in else FIGURES):
        print(f"| {figure} | " + " | ".join(
            f"{statistics.median(row[slot] for row in result[n]):.0f} ms" for n in names)
            + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
