"""`memx import --raw` into an indexed store, two installs interleaved (issue 29).

    python bench/import_paired.py BEFORE_BIN AFTER_BIN [--sizes 10000,100000] [--runs 7]

Each size gets one store written and committed as `run.py` does, copied once per install
and indexed (`memx reindex --full`, then one hybrid search). Then, RUNS times, a new file
of 1,000 records (a third of them joining transcript sessions the store or an earlier
import has) is imported into each copy, the installs alternating which goes first.
Rows: wall time and CPU time (user + system, threads included) per memory, medians; all
with MEMX_NO_SERVER=1.
"""

from __future__ import annotations

import os
import random
import resource
import shutil
import subprocess
import sys
from pathlib import Path

from add_paired import medians, timed
from paired import paired_main
from run import SEED, write_records
from write_paired import indexed_copies

COUNT = 1000


def cpu_ms() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (used.ru_utime + used.ru_stime) * 1000


def figures(size: int, tmp: Path, bins: dict[str, Path], runs: int
            ) -> dict[str, dict[str, float]]:
    rng = random.Random(SEED + size)
    env = {**os.environ, "MEMX_NO_SERVER": "1"}
    roots = indexed_copies(size, tmp, bins, rng, env)
    out: dict[str, dict[str, list[float]]] = {name: {} for name in bins}
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
    finally:
        for root in roots.values():
            shutil.rmtree(root, ignore_errors=True)
    return medians(out)


def main(argv: list[str] | None = None) -> int:
    return paired_main(argv, __doc__, figures, runs=7)


if __name__ == "__main__":
    sys.exit(main())
