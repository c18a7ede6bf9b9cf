"""Writes without the memx server, two installs interleaved (issue 29).

    python bench/write_paired.py BEFORE_BIN AFTER_BIN [--sizes 10000] [--runs 7]

BEFORE_BIN and AFTER_BIN hold each install's `memx` executable. Each size gets one
store written and committed as `run.py` does, copied once per install and indexed
(`memx reindex --full`, then one hybrid search). Every row runs with MEMX_NO_SERVER=1
and alternates the installs process by process (medians):
- `memx add --raw`, then a keyword search right after it: what the write left the next
  command (before issue 29 no change stamp, so that search stat-ed every file);
- `memx add` (ACE on), then a hybrid search right after it;
- `memx import --raw` of 1,000 records into the indexed store, per memory (a third of
  them join transcript sessions the store has already);
- the `memx add` whose update takes the vector delta past 2,048 rows (DELTA_LIMIT):
  the delta is first filled by a raw import and a hybrid search that embeds it, then
  adds follow one by one; the row is the add after which the delta file was smaller
  than before (before issue 29 that add folded it into the main file itself) and, for
  an install where no add did that, the median add of the same sequence.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import struct
import sys
import time
from pathlib import Path

from add_paired import medians, timed
from paired import paired_main, store_copies
from run import SEED, synthetic_memory, write_records

IMPORT_COUNT = 1000
FOLD_FILL = 2040  # delta rows to fill to: just under DELTA_LIMIT (2048)
FOLD_ADDS = 12


def delta_rows(root: Path) -> int:
    """Rows plus stale keys of the vector delta (its header), 0 when there is none."""
    path = root / ".memx" / "cache" / "vectors.delta"
    try:
        with open(path, "rb") as f:
            data = f.read(64)
    except FileNotFoundError:
        return 0
    magic = b"memx-vector-delta-1\n"
    rows, _, stale = struct.unpack_from("<QQQ", data, len(magic))
    return rows + stale


def indexed_copies(size: int, tmp: Path, bins: dict[str, Path], rng: random.Random,
                   env: dict[str, str]) -> dict[str, Path]:
    """``store_copies``, each indexed by its install (a full rebuild, then one hybrid
    search that embeds what is left)."""
    roots = store_copies(size, tmp, bins, rng)
    for name, folder in bins.items():
        memx = str(folder / "memx")
        timed([memx, "reindex", "--full"], roots[name], env)
        timed([memx, "search", "warm up", "--mode", "hybrid", "--json"], roots[name], env)
    return roots


def figures(size: int, tmp: Path, bins: dict[str, Path], runs: int
            ) -> dict[str, dict[str, float]]:
    rng = random.Random(SEED + size)
    env = {**os.environ, "MEMX_NO_SERVER": "1"}
    roots = indexed_copies(size, tmp, bins, rng, env)
    out: dict[str, dict[str, list[float]]] = {name: {} for name in bins}
    texts = [synthetic_memory(rng, size + 100 + i, 0).content for i in range(2 * runs)]
    try:
        for i in range(runs):
            order = list(bins) if i % 2 == 0 else list(reversed(bins))
            for name in order:
                memx, root, rows = str(bins[name] / "memx"), roots[name], out[name]
                rows.setdefault("`memx add --raw`", []).append(
                    timed([memx, "add", "--raw", texts[2 * i]], root, env))
                rows.setdefault("keyword search right after it", []).append(
                    timed([memx, "search", texts[2 * i][:40], "--mode", "keyword", "--json"],
                          root, env))
                rows.setdefault("`memx add` (ACE on)", []).append(
                    timed([memx, "add", texts[2 * i + 1]], root, env))
                rows.setdefault("hybrid search right after it", []).append(
                    timed([memx, "search", texts[2 * i + 1][:40], "--mode", "hybrid",
                           "--json"], root, env))
        for i in range(max(1, runs // 3)):
            records = tmp / f"import-{size}-{i}.jsonl"
            # Sessions are s{index // 10}: the first third join sessions of the store.
            write_records(rng, size - IMPORT_COUNT // 3 + i * IMPORT_COUNT, IMPORT_COUNT,
                          size, records)
            order = list(bins) if i % 2 == 0 else list(reversed(bins))
            for name in order:
                out[name].setdefault(
                    f"`memx import --raw` of {IMPORT_COUNT} into the indexed store, "
                    "per memory", []).append(
                    timed([str(bins[name] / "memx"), "import", "--raw", str(records)],
                          roots[name], env) / IMPORT_COUNT)
        fold_rows(size, tmp, bins, roots, env, rng, out)
    finally:
        for root in roots.values():
            shutil.rmtree(root, ignore_errors=True)
    return medians(out)


def fold_rows(size: int, tmp: Path, bins: dict[str, Path], roots: dict[str, Path],
              env: dict[str, str], rng: random.Random,
              out: dict[str, dict[str, list[float]]]) -> None:
    records = tmp / f"fill-{size}.jsonl"
    write_records(rng, 2 * size, FOLD_FILL, size, records)
    lines = records.read_text(encoding="utf-8").splitlines(keepends=True)
    texts = [synthetic_memory(rng, 3 * size + i, 0).content for i in range(FOLD_ADDS)]
    for name, folder in bins.items():
        memx, root = str(folder / "memx"), roots[name]
        # Embed what the rows above left pending, then fill the delta to just under
        # the limit (an install that folds in the background starts from its fold).
        timed([memx, "search", "embed the rest", "--mode", "hybrid", "--json"], root, env)
        time.sleep(5)  # a background fold of this install, if any, ends first
        fill = tmp / f"fill-{name}.jsonl"
        fill.write_text("".join(lines[:max(0, FOLD_FILL - delta_rows(root))]),
                        encoding="utf-8")
        timed([memx, "import", "--raw", str(fill)], root, env)
        timed([memx, "search", "fill the delta", "--mode", "hybrid", "--json"], root, env)
        time.sleep(5)
        print(f"{name}: delta rows before the adds {delta_rows(root)}", file=sys.stderr)
    adds: dict[str, list[tuple[float, bool]]] = {name: [] for name in bins}
    for i, text in enumerate(texts):
        order = list(bins) if i % 2 == 0 else list(reversed(bins))
        for name in order:
            rows = delta_rows(roots[name])
            ms = timed([str(bins[name] / "memx"), "add", text], roots[name], env)
            adds[name].append((ms, delta_rows(roots[name]) < rows))
    for name, seq in adds.items():
        folded = [ms for ms, fold in seq if fold]
        out[name]["`memx add` crossing the delta limit (the fold's add, else median)"] = (
            [folded[0]] if folded else [statistics.median(ms for ms, _ in seq)])
        print(f"{name}: delta rows at the end {delta_rows(roots[name])}; adds "
              + " ".join(f"{ms:.0f}{'*' if fold else ''}" for ms, fold in seq),
              file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    return paired_main(argv, __doc__, figures, runs=7)


if __name__ == "__main__":
    sys.exit(main())
