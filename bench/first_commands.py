"""The first three commands after a cold start (issue 29), installs interleaved.

    python bench/first_commands.py BIN [BIN ...] [--sizes 10000] [--runs 7] [--gap 1.0]

Each BIN is the folder holding an install's `memx` executable (a virtual environment's
bin/). Each size gets one store written and committed as `run.py` does, copied once per
install. A round, per install (the order alternates between rounds): no memx server
running, `python -c pass`, then three `memx search --mode hybrid --json` processes
with ``--gap`` seconds between the end of one and the start of the next (an agent
reading the answer), then the server the first one started is stopped. The first
command runs in process and starts the server; the second is the one issue 29 is about.
Each install has a server folder of its own, so one never answers the other. Prints
medians per install and the second command's ratio to `python -c pass` of the same
rounds (target: at most 3x).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from run import SEED, isolate, queries, run_child
from user_paths import server_allowed

FIGURES = ("`python -c pass`", "1st command (no server: runs in process, starts it)",
           "2nd command", "3rd command")
TARGET = 3.0  # issue 29: the 2nd command after a cold start <= 3x `python -c pass`


def first_three(memx: Sequence[str], root: Path, texts: Sequence[str], gap: float,
                server_dir: Path) -> list[float]:
    """One round (ms): `python -c pass`, then three fresh `memx search` processes from
    no server, ``gap`` seconds apart; the server is stopped afterwards."""
    saved = os.environ.get("MEMX_SERVER_DIR")
    os.environ["MEMX_SERVER_DIR"] = str(server_dir)
    try:
        with server_allowed():
            stopped(memx, root)
            times = [run_child([sys.executable, "-c", "pass"], root).seconds * 1000]
            for i, text in enumerate(texts[:3]):
                if i:
                    time.sleep(gap)
                run = run_child([*memx, "search", text, "--mode", "hybrid", "--json"], root)
                times.append(run.seconds * 1000)
            stopped(memx, root)
    finally:
        if saved is None:
            os.environ.pop("MEMX_SERVER_DIR", None)
        else:
            os.environ["MEMX_SERVER_DIR"] = saved
    return times


def stopped(memx: Sequence[str], root: Path) -> None:
    """No server of this install running or starting: `memx server stop` (it waits for
    the server to go) until nothing holds the server lock (a second server, started by
    a command that ran before the first had bound, may take it over)."""
    lock = Path(os.environ["MEMX_SERVER_DIR"]) / "server.lock"
    deadline = time.monotonic() + 30
    while True:
        run_child([*memx, "server", "stop"], root)
        if not lock.exists() or not _locked(lock) or time.monotonic() > deadline:
            return
        time.sleep(0.2)


def _locked(path: Path) -> bool:
    import fcntl

    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def rounds(installs: dict[str, list[str]], roots: dict[str, Path], tmp: Path, runs: int,
           gap: float, rng: random.Random) -> dict[str, list[list[float]]]:
    """``runs`` rounds per install, the installs' order alternating round by round."""
    out: dict[str, list[list[float]]] = {name: [] for name in installs}
    for i in range(runs):
        texts = queries(rng, 3)
        order = list(installs) if i % 2 == 0 else list(reversed(installs))
        for name in order:
            out[name].append(first_three(installs[name], roots[name], texts, gap,
                                         tmp / f"run-{name}"))
    return out


def medians(rows: list[list[float]]) -> list[float]:
    return [statistics.median(column) for column in zip(*rows)]


def table(result: dict[str, list[list[float]]]) -> str:
    names = list(result)
    lines = ["| figure (median) | " + " | ".join(names) + " |",
             "|---|" + "---|" * len(names)]
    values = {name: medians(rows) for name, rows in result.items()}
    for slot, figure in enumerate(FIGURES):
        lines.append(f"| {figure} | " + " | ".join(f"{values[n][slot]:.0f} ms" for n in names)
                     + " |")
    for slot, figure in ((2, "2nd"), (3, "3rd")):
        cells = []
        for rows in result.values():
            # per round, against that round's own `python -c pass`
            ratio = statistics.median(row[slot] / row[0] for row in rows)
            verdict = "" if slot != 2 else f" ({'PASS' if ratio <= TARGET else 'FAIL'})"
            cells.append(f"{ratio:.1f}x{verdict}")
        lines.append(f"| {figure} command / `python -c pass` (target 2nd ≤ {TARGET:g}x) | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return paired_bench(argv, __doc__, runs=7, gap=1.0, prefix="memx-first-",
                        heading="the first three commands after a cold start",
                        measure=rounds, show=table)


def paired_bench(argv: list[str] | None, doc: str, runs: int, gap: float, prefix: str,
                 heading: str, measure: Callable[..., Any],
                 show: Callable[[Any], str]) -> int:
    """Per size: the stores (``stores``), ``measure(installs, roots, tmp, runs, gap,
    rng)`` and its table under a heading; this script's and warm_client.py's main."""
    args = arguments(argv, doc, runs, gap)
    installs = installs_of(args.bins)
    for size, roots, tmp, rng in stores(args.sizes, installs, prefix):
        result = measure(installs, roots, tmp, args.runs, args.gap, rng)
        print(f"\n### {size} memories: {heading} ({args.runs} rounds, {args.gap:g} s "
              f"apart; load average {os.getloadavg()[0]:.1f})\n")
        print(show(result))
        sys.stdout.flush()
    return 0


def arguments(argv: list[str] | None, doc: str, runs: int, gap: float) -> argparse.Namespace:
    """BIN [BIN ...] [--sizes] [--runs] [--gap]: this script's and warm_client.py's."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("bins", type=Path, nargs="+")
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--gap", type=float, default=gap,
                        help="seconds between one command's end and the next's start")
    return parser.parse_args(argv)


def installs_of(bins: Sequence[Path]) -> dict[str, list[str]]:
    """Each install's name ("before" and "after" for two) and its memx command."""
    return {_name(b, i, bins): [str(b / "memx")] for i, b in enumerate(bins)}


def stores(sizes: str, installs: dict[str, list[str]],
           prefix: str) -> Iterator[tuple[int, dict[str, Path], Path, random.Random]]:
    """Per size: one committed store copied per install and indexed by it, as a used
    store is (its own HOME and server folders under a temporary directory)."""
    from paired import store_copies

    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        tmp = Path(name)
        isolate(tmp / "home")
        for size in (int(s) for s in sizes.split(",")):
            rng = random.Random(SEED + size)
            roots = store_copies(size, tmp, {n: Path() for n in installs}, rng)
            for install, root in roots.items():
                run_child([*installs[install], "reindex"], root)
            yield size, roots, tmp, rng
            for root in roots.values():
                shutil.rmtree(root, ignore_errors=True)


def _name(bin_dir: Path, i: int, bins: Sequence[Path]) -> str:
    if len(bins) == 2:
        return ("before", "after")[i]
    return bin_dir.parent.name or f"install {i + 1}"


if __name__ == "__main__":
    sys.exit(main())
