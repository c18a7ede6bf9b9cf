"""`memx conflicts` on a large store (issue 27): time to its first line and in all.

    python bench/conflicts.py BIN [BIN ...] [--size 5000] [--runs 5]

Each BIN is the folder holding an install's `memx` executable (a virtual environment's
bin/). One store of ``--size`` synthetic memories is written and committed as `run.py`
does (its templates give many pairs that disagree on a value) and indexed once with
`memx reindex --full` of the first install; each install gets a copy of it. A round runs `memx conflicts`
once per install (the order alternates between rounds) without the memx server, and
times the first line on stdout and the exit. Prints medians (target: the first line
within 1 s at 5k), whether every install printed the same text, and whether every
install's `--json` lists the same pairs in any order.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from run import SEED, commit_store, isolate, new_repo, write_store

TARGET_S = 1.0  # issue 27: the first line within 1 s at 5k memories


def cpu_so_far(pid: int) -> float:
    """CPU seconds (user and system) process ``pid`` has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(argv: Sequence[str], cwd: Path) -> tuple[float, float, float, float, bytes]:
    """Seconds to the first line on stdout, CPU seconds by then, seconds to the exit, CPU
    seconds in all (user and system: what a loaded machine changes least), and stdout."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    first_line = proc.stdout.readline()
    first = time.perf_counter() - start
    first_cpu = cpu_so_far(proc.pid)
    rest = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    total = time.perf_counter() - start
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {code}")
    return first, first_cpu, total, usage.ru_utime + usage.ru_stime, first_line + rest


def listed_pairs(argv: Sequence[str], cwd: Path) -> frozenset[str]:
    """The pairs `memx conflicts --json` lists, each as its JSON text (order left out: a
    version may print the same pairs in another order)."""
    out = subprocess.run([*argv, "conflicts", "--json"], cwd=cwd, check=True,
                         capture_output=True).stdout
    return frozenset(json.dumps(pair, sort_keys=True)
                     for pair in json.loads(out)["conflicts"])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bins", nargs="+", type=Path)
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    installs = {str(b): [str(b.resolve() / "memx")] for b in args.bins}
    tmp = Path(tempfile.mkdtemp(prefix="memx-bench-conflicts-"))
    try:
        isolate(tmp / "home")
        root = tmp / "store"
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        new_repo(root)
        write_store(root, args.size, random.Random(SEED + args.size))
        commit_store(root)
        # One index, built once and copied with the store: two builds of the vector
        # graph may answer a few neighbours differently, and so list other pairs.
        subprocess.run([*next(iter(installs.values())), "reindex", "--full"], cwd=root,
                       check=True, stdout=subprocess.DEVNULL)
        roots = {}
        for i, name in enumerate(installs):
            roots[name] = tmp / f"copy-{i}"
            shutil.copytree(root, roots[name], symlinks=True)
        rows: dict[str, list[tuple[float, ...]]] = {name: [] for name in installs}
        outputs: dict[str, set[bytes]] = {name: set() for name in installs}
        load = os.getloadavg()[0]
        for run in range(args.runs):
            order = list(installs) if run % 2 == 0 else list(reversed(installs))
            for name in order:
                *timings, out = timed([*installs[name], "conflicts"], roots[name])
                rows[name].append(tuple(timings))
                outputs[name].add(out)
        print(f"`memx conflicts` at {args.size} memories, median of {args.runs} runs, "
              "no server\n")
        print(f"1-minute load average at the first run: {load:.1f} "
              f"({os.cpu_count()} cores)\n")
        print("| install | first line | its CPU | total | CPU in all | target (first line) |"
              "\n|---|---|---|---|---|---|")
        for name, timings in rows.items():
            first, first_cpu, total, cpu = (statistics.median(t[i] for t in timings)
                                            for i in range(4))
            verdict = "PASS" if first <= TARGET_S else "FAIL"
            print(f"| {name} | {first:.2f} s | {first_cpu:.2f} s | {total:.2f} s | "
                  f"{cpu:.2f} s | ≤ {TARGET_S:g} s ({verdict}) |")
        texts = {out for seen in outputs.values() for out in seen}
        print(f"\nsame output from every install and run: {'yes' if len(texts) == 1 else 'NO'}"
              f" ({', '.join(f'{len(seen)} distinct' for seen in outputs.values())})")
        pairs = {name: listed_pairs(installs[name], roots[name]) for name in installs}
        print(f"same pairs from every install (--json, in any order): "
              f"{'yes' if len(set(pairs.values())) == 1 else 'NO'} "
              f"({', '.join(str(len(found)) for found in pairs.values())} pairs)")
        lasts = sorted({(out.decode().splitlines() or ["(none)"])[-1]
                        for seen in outputs.values() for out in seen})
        print(f"last line: {' / '.join(lasts)}"
              f"{' (the same from every install)' if len(lasts) == 1 else ''}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
