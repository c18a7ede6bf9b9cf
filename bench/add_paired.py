"""`memx add` of two installs, with and without their memx server, interleaved (issue 15).

    python bench/add_paired.py BEFORE_BIN AFTER_BIN [--sizes 1000,10000] [--runs 9]

BEFORE_BIN and AFTER_BIN hold each install's `memx` executable. Each size gets one
store written and committed as `run.py` does, copied once per install. Each install has
its own memx server (its own socket directory), started and warmed with one hybrid
search before the served rows. Every row alternates the installs process by process.
Rows:
- `memx add`, no server (MEMX_NO_SERVER=1): the whole process, indexing included;
- `memx add`, memx server running: the same command with the server allowed (an
  install that does not forward `add` runs it in process anyway);
- the hybrid search right after each add (no server): what the add left for it;
- the hybrid search right after the served add, through the server: what the server's
  refresh after the write left for the next request.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from paired import paired_main, store_copies
from run import SEED, synthetic_memory


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[1:3])} exited {proc.returncode}: "
                           f"{proc.stderr.decode(errors='replace').strip()[-300:]}")
    return seconds * 1000


def figures(size: int, tmp: Path, bins: dict[str, Path], runs: int) -> dict[str, dict[str, float]]:
    rng = random.Random(SEED + size)
    roots = store_copies(size, tmp, bins, rng)
    envs = {name: {**os.environ, "MEMX_SERVER_DIR": str(tmp / f"run-{name}")} for name in bins}
    quiet = {name: {**env, "MEMX_NO_SERVER": "1"} for name, env in envs.items()}
    served = {name: {k: v for k, v in env.items() if k != "MEMX_NO_SERVER"}
              for name, env in envs.items()}
    out: dict[str, dict[str, list[float]]] = {name: {} for name in bins}
    for name, folder in bins.items():
        memx = str(folder / "memx")
        timed([memx, "reindex", "--full"], roots[name], quiet[name])
        timed([memx, "search", "warm up", "--mode", "hybrid", "--json"], roots[name],
              quiet[name])
        timed([memx, "server", "start"], roots[name], served[name])
        timed([memx, "search", "warm up", "--mode", "hybrid", "--json"], roots[name],
              served[name])
    texts = [synthetic_memory(rng, size + 100 + i, 0).content for i in range(2 * runs)]
    try:
        for i in range(runs):
            order = list(bins) if i % 2 == 0 else list(reversed(bins))
            for name in order:
                memx, root = str(bins[name] / "memx"), roots[name]
                rows = out[name]
                rows.setdefault("`memx add`, no server", []).append(
                    timed([memx, "add", texts[2 * i]], root, quiet[name]))
                rows.setdefault("hybrid search right after it", []).append(
                    timed([memx, "search", texts[2 * i][:40], "--mode", "hybrid", "--json"],
                          root, quiet[name]))
                rows.setdefault("`memx add`, memx server running", []).append(
                    timed([memx, "add", texts[2 * i + 1]], root, served[name]))
                rows.setdefault("hybrid search right after it, through the server", []
                                ).append(timed([memx, "search", texts[2 * i + 1][:40], "--mode",
                                                "hybrid", "--json"], root, served[name]))
    finally:
        stop_servers(bins, roots, served)
        for root in roots.values():
            shutil.rmtree(root, ignore_errors=True)
    return medians(out)


def stop_servers(bins: dict[str, Path], roots: dict[str, Path],
                 envs: dict[str, dict[str, str]]) -> None:
    """Stop each install's own memx server."""
    for name, folder in bins.items():
        subprocess.run([str(folder / "memx"), "server", "stop"], cwd=roots[name],
                       env=envs[name], capture_output=True, check=False)


def medians(out: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, float]]:
    return {name: {k: statistics.median(v) for k, v in rows.items()}
            for name, rows in out.items()}


def main(argv: list[str] | None = None) -> int:
    return paired_main(argv, __doc__, figures, runs=9)


if __name__ == "__main__":
    sys.exit(main())
