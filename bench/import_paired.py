"""`memx import --raw` into an indexed store, two installs interleaved (issue 29).

    python bench/import_paired.py BEFORE_BIN AFTER_BIN [--sizes 10000,100000] [--runs 7]

Each size gets one store written and committed as `run.py` does, copied once per install
and indexed (`memx reindex --full`, then one hybrid search). Then, RUNS times, a new file
of 1,000 records (a third of them joining transcript sessions the store or an earlier
import has) is imported into each copy, the installs alternating which goes first.
Then each copy gets one long session of SESSION turns (imported and searched once), and,
RUNS times, APPENDED more turns appended at its end are imported, followed by a hybrid
search (which embeds the vectors the import left behind).
Rows: wall time and CPU time (user + system, threads included) per memory, medians; all
with MEMX_NO_SERVER=1.
"""

from __future__ import annotations

import json
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from add_paired import medians, timed
from paired import paired_main
from run import synthetic_memory, write_records
from write_paired import prepared

COUNT = 1000
SESSION = 2000  # turns of the long session
APPENDED = 100  # turns appended to it per run


def cpu_ms() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (used.ru_utime + used.ru_stime) * 1000


def figures(size: int, tmp: Path, bins: dict[str, Path], runs: int
            ) -> dict[str, dict[str, float]]:
    rng, env, roots, out = prepared(size, tmp, bins)
    try:
        for i in range(runs):
            records = tmp / f"import-{size}-{i}.jsonl"
            # Sessions are s{index // 10}: the first third join sessions already stored.
            write_records(rng, size - COUNT // 3 + i * COUNT, COUNT, size, records)
            order = list(bins) if i % 2 == 0 else list(reversed(bins))
            for name in order:
                subprocess.run(["sync"], check=False)  # the other install's writes land first
                before = cpu_ms()
                wall = timed([str(bins[name] / "memx"), "import", "--raw", str(records)],
                             roots[name], env)
                rows = out[name]
                rows.setdefault(f"wall per memory, {COUNT:,} records", []).append(wall / COUNT)
                rows.setdefault("CPU per memory", []).append((cpu_ms() - before) / COUNT)
        appended(size, tmp, bins, runs, rng, env, roots, out)
    finally:
        for root in roots.values():
            shutil.rmtree(root, ignore_errors=True)
    return medians(out)


def write_session(rng: random.Random, start: int, count: int, path: Path) -> None:
    """Turns ``start``..``start+count`` of one transcript session, a minute apart from
    five days ago, as import JSONL."""
    first = int(time.time() * 1000) - 5 * 86_400_000
    with open(path, "w", encoding="utf-8") as out:
        for i in range(start, start + count):
            stamp = first + 60_000 * i
            record = {"content": synthetic_memory(rng, i, stamp).content,
                      "source": {"type": "transcript", "session": "long"},
                      "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                  time.gmtime(stamp / 1000))}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def appended(size: int, tmp: Path, bins: dict[str, Path], runs: int, rng: random.Random,
             env: dict[str, str], roots: dict[str, Path],
             out: dict[str, dict[str, list[float]]]) -> None:
    """Turns appended to a long session the indexed store has: the import, per memory,
    and the hybrid search right after it."""
    session = tmp / f"session-{size}.jsonl"
    write_session(rng, 0, SESSION, session)
    for name in bins:
        memx = str(bins[name] / "memx")
        timed([memx, "import", "--raw", str(session)], roots[name], env)
        timed([memx, "search", "warm up", "--mode", "hybrid", "--json"], roots[name], env)
    for i in range(runs):
        records = tmp / f"appended-{size}-{i}.jsonl"
        write_session(rng, SESSION + i * APPENDED, APPENDED, records)
        for name in list(bins) if i % 2 == 0 else list(reversed(bins)):
            memx, rows = str(bins[name] / "memx"), out[name]
            subprocess.run(["sync"], check=False)
            before = cpu_ms()
            wall = timed([memx, "import", "--raw", str(records)], roots[name], env)
            cpu = cpu_ms() - before
            label = f"{APPENDED} turns appended to a {SESSION:,}-turn session"
            rows.setdefault(f"{label}: wall per memory", []).append(wall / APPENDED)
            rows.setdefault(f"{label}: CPU per memory", []).append(cpu / APPENDED)
            before = cpu_ms()
            rows.setdefault("  hybrid search right after it", []).append(
                timed([memx, "search", "deploy failed", "--mode", "hybrid", "--json"],
                      roots[name], env))
            rows.setdefault("  its CPU", []).append(cpu_ms() - before)


def main(argv: list[str] | None = None) -> int:
    return paired_main(argv, __doc__, figures, runs=7)


if __name__ == "__main__":
    sys.exit(main())
