"""`memx context` speed (issue 8): a cold process at 10k memories, target p50 ≤ 150 ms.

The store is bench/run.py's synthetic one (facts only) plus 15 policies and a page of
working notes; the index is built first (as the post-commit hook keeps it), then every
run is a fresh `memx context TASK` process with a different task.

    python bench/context.py [--size 10000] [--runs 15]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import print_rows
from run import SEED, isolate, log, memx, new_repo, pct, queries, synthetic_memory

TARGET_MS = 150
POLICIES = 15


def build_store(root: Path, size: int, rng: random.Random) -> None:
    import time

    from memx_cli.store.memory import dump

    memories = root / ".memx" / "memories"
    end = int(time.time() * 1000)
    start = end - 400 * 86_400_000
    for i in range(size):
        mem = synthetic_memory(rng, i, start + (end - start) * i // size)
        kind = "policy" if i < POLICIES else "fact"
        mem = mem.replace(kind=kind, domain=rng.choice(["conventions", "codebase", "ci"]))
        (memories / f"{mem.id}.yaml").write_bytes(dump(mem))
    notes = root / ".memx" / "local" / "notes"
    notes.mkdir(parents=True, exist_ok=True)
    (notes / "default.md").write_text("Halfway through the billing retry refactor.\n" * 10)


def measure(size: int, runs: int, tmp: Path) -> tuple[list[float], int]:
    rng = random.Random(SEED + size)
    root = new_repo(tmp / f"context-{size}")
    build_store(root, size, rng)
    log(f"context: {size} memories written; building the index")
    memx(root, "reindex")
    memx(root, "context", "warm up the policy cache for this store")
    times, chars = [], []
    for task in queries(rng, runs):
        text = f"fix: {task} (and keep the tests green)"
        run = memx(root, "context", text)
        times.append(run.seconds * 1000)
        chars.append(len(run.stdout))
    return times, int(statistics.median(chars))


def run(size: int = 10_000, runs: int = 15) -> list[tuple[str, str, str]]:
    """Rows (figure, measured, target) for bench/run.py's pipeline table."""
    with tempfile.TemporaryDirectory(prefix="memx-context-") as name:
        tmp = Path(name)
        isolate(tmp / "home")
        times, chars = measure(size, runs, tmp)
    p50 = pct(times, 50)
    label = f"{size // 1000}k" if size % 1000 == 0 else str(size)
    verdict = "PASS" if p50 <= TARGET_MS else "FAIL"
    return [(f"cold `memx context` p50 / p95, {label} memories, {POLICIES} policies",
             f"{p50:.0f} / {pct(times, 95):.0f} ms ({chars} characters)",
             f"p50 ≤ {TARGET_MS} ms: {verdict}")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    print_rows(run(args.size, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
