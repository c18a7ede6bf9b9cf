"""What a write waits for while the vector fold runs (issue 29), installs interleaved.

    python bench/fold_wait.py BEFORE_BIN AFTER_BIN [--sizes 10000] [--runs 5]

BEFORE_BIN and AFTER_BIN are the folders holding each install's `memx` executable (a
virtual environment's bin/). Each size gets one store written and committed as `run.py`
does, copied once per install and indexed with `memx reindex --full`. A round, per
install (the order alternates between rounds): `memx import --raw` of FRESH new records
and a hybrid search (their vectors go to the delta, below the size that starts a fold by
itself), then the
fold worker that a write past that size starts (``python -m memx_cli.index.fold ROOT/.memx``
under the install's interpreter), while this process takes and releases the store lock
every few milliseconds as a write would: the longest of those waits is what a write
coming during the fold waits. Prints medians over the rounds.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from paired import paired_main, store_copies
from run import SEED, run_child, write_records

FRESH = 200  # records a round; the delta stays under COMPACT_AT (256): no fold of its own
PROBE_GAP = 0.002  # seconds between two takes of the lock
WAIT_ROW = "longest store-lock wait while the fold worker runs (a write's wait)"
FOLD_ROW = "the fold worker, whole process"


def fold_round(bin_dir: Path, root: Path, records: Path) -> tuple[float, float]:
    """Import ``records``, then run the fold worker while probing the store lock; the
    longest wait for the lock and the worker's wall time (ms)."""
    from memx_cli.fsutil import locked

    run_child([str(bin_dir / "memx"), "import", str(records), "--raw"], root)
    # the search that embeds them (a raw import leaves the vectors to it)
    run_child([str(bin_dir / "memx"), "search", "deploy", "--mode", "hybrid"], root)
    lock = root / ".memx" / "local" / "write.lock"
    delta = root / ".memx" / "cache" / "vectors.delta"
    if not delta.is_file():
        raise RuntimeError(f"{root}: the import left no vector delta to fold")
    start = time.perf_counter()
    worker = subprocess.Popen([str(bin_dir / "python"), "-m", "memx_cli.index.fold",
                               str(root / ".memx")], cwd=root, stdin=subprocess.DEVNULL)
    longest = 0.0
    while worker.poll() is None:
        asked = time.perf_counter()
        with locked(lock, wait=60):
            pass
        longest = max(longest, time.perf_counter() - asked)
        time.sleep(PROBE_GAP)
    whole = time.perf_counter() - start
    if worker.returncode != 0 or delta.exists():
        raise RuntimeError(f"{root}: the fold worker exited {worker.returncode} "
                           f"and left the delta {'there' if delta.exists() else 'gone'}")
    return longest * 1000, whole * 1000


def figures(size: int, tmp: Path, bins: dict[str, Path], runs: int
            ) -> dict[str, dict[str, float]]:
    rng = random.Random(SEED + size)
    roots = store_copies(size, tmp, bins, rng)
    for name in bins:
        run_child([str(bins[name] / "memx"), "reindex", "--full"], roots[name])
    out: dict[str, dict[str, list[float]]] = {name: {WAIT_ROW: [], FOLD_ROW: []}
                                              for name in bins}
    for i in range(runs):
        records = tmp / f"fresh-{i}.jsonl"
        write_records(random.Random(SEED + i), size + i * FRESH, FRESH, size, records)
        for name in list(bins) if i % 2 == 0 else list(reversed(bins)):
            wait, whole = fold_round(bins[name], roots[name], records)
            out[name][WAIT_ROW].append(wait)
            out[name][FOLD_ROW].append(whole)
    return {name: {row: statistics.median(values) for row, values in rows.items()}
            for name, rows in out.items()}


if __name__ == "__main__":
    sys.exit(paired_main(sys.argv[1:], __doc__, figures, runs=5))
