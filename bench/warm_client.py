"""Warm commands through the memx server, installs interleaved: the whole command and
the thin client's own CPU (issue 29).

    python bench/warm_client.py BEFORE/bin AFTER/bin [--sizes 10000] [--runs 20] [--gap 0.3]

Each install gets a copy of one committed store (as `run.py` writes it) and a server
folder of its own; its server is started and warmed with one search. Then, per round,
`python -c pass` and one `memx search --mode hybrid --json` per install (the order
alternating), ``--gap`` seconds apart. For each: the wall time, and the user + system
CPU time of the client process alone (``os.wait4``: the server's work is not in it), the
figure a busy machine moves least. Prints medians and, per round, the ratio to that
round's `python -c pass` (issue 29's target for a warm command: at most 3x).
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from first_commands import paired_bench
from run import queries, run_child
from user_paths import server_allowed

TARGET = 3.0  # issue 29: a command the server answers, at most 3x `python -c pass`


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(wall ms, the process's own user + system CPU ms); its output is dropped."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - started) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:2])} exited {proc.returncode}")
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def rounds(installs: dict[str, list[str]], roots: dict[str, Path], tmp: Path, runs: int,
           gap: float, rng: random.Random) -> dict[str, list[tuple[float, float]]]:
    """Per round: `python -c pass`, then each install's warm search (order alternating)."""
    out: dict[str, list[tuple[float, float]]] = {"pass": [], **{n: [] for n in installs}}
    texts = queries(rng, runs)
    with server_allowed():
        for name, memx in installs.items():  # each install's own server, warmed
            os.environ["MEMX_SERVER_DIR"] = str(tmp / f"run-{name}")
            run_child([*memx, "server", "start"], roots[name])
            run_child([*memx, "search", "warm up", "--mode", "hybrid", "--json"], roots[name])
        time.sleep(2.0)  # the warm-up's writes settled; the idle upkeep done
        try:
            for i in range(runs):
                out["pass"].append(timed([sys.executable, "-c", "pass"], roots[next(iter(roots))]))
                order = list(installs) if i % 2 == 0 else list(reversed(installs))
                for name in order:
                    time.sleep(gap)
                    os.environ["MEMX_SERVER_DIR"] = str(tmp / f"run-{name}")
                    out[name].append(timed([*installs[name], "search", texts[i], "--mode",
                                            "hybrid", "--json"], roots[name]))
                time.sleep(gap)
        finally:
            for name, memx in installs.items():
                os.environ["MEMX_SERVER_DIR"] = str(tmp / f"run-{name}")
                run_child([*memx, "server", "stop"], roots[name])
    return out


def table(result: dict[str, list[tuple[float, float]]]) -> str:
    names = [n for n in result if n != "pass"]
    base = result["pass"]
    lines = ["| figure (median) | `python -c pass` | " + " | ".join(names) + " |",
             "|---|---|" + "---|" * len(names)]
    for slot, figure in ((0, "wall time"), (1, "the client process's CPU (user + system)")):
        cells = [f"{statistics.median(r[slot] for r in result[n]):.1f} ms"
                 for n in ("pass", *names)]
        lines.append(f"| {figure} | " + " | ".join(cells) + " |")
    ratios = [statistics.median(r[0] / p[0] for r, p in zip(result[n], base)) for n in names]
    lines.append(f"| wall / `python -c pass` of the round (target ≤ {TARGET:g}x) | 1.0x | "
                 + " | ".join(f"{x:.2f}x" for x in ratios) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return paired_bench(argv, __doc__, runs=20, gap=0.3, prefix="memx-warm-client-",
                        heading="warm `memx search --mode hybrid --json` through the server",
                        measure=rounds, show=table)


if __name__ == "__main__":
    sys.exit(main())
