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

``--untracked`` measures instead the store a large import left uncommitted: each
indexed copy gets an import of as many records as it holds (more memory files outside
git than a change stamp covers, quick.LOOSE_LIMIT), then one keyword search (a
reader's full check), then ``--runs`` `memx add` (ACE on), and a keyword search after
them.

``--status`` (default sizes 10000,100000) prints instead one table of issue 29's
targets on this machine: per size, with MEMX_NO_SERVER=1, cold keyword and hybrid
searches, `memx add` (ACE on) and the import of 1,000 records into the indexed store
per memory; on the first size, the 2nd command after a cold start (first_commands.py:
the server allowed); and the peak RSS of `memx ingest --git-log` over a generated
history of 10,000 commits (reflector.py's), storing. A `python -c pass` runs before each
install's turn of every round; each figure's ratio to it is the median of the ratios
of its own rounds. Installs interleaved, medians; each row says whether the target is
met (after, and before).
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from add_paired import medians, timed
from paired import paired_main, store_copies
from reflector import history as git_history
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


Rows = dict[str, dict[str, list[float]]]


def prepared(size: int, tmp: Path, bins: dict[str, Path]
             ) -> tuple[random.Random, dict[str, str], dict[str, Path], Rows]:
    """What a paired figure of ``size`` starts from: the size's seeded generator, the
    environment without the server, the indexed copies and an empty row per install."""
    rng = random.Random(SEED + size)
    env = {**os.environ, "MEMX_NO_SERVER": "1"}
    return rng, env, indexed_copies(size, tmp, bins, rng, env), {name: {} for name in bins}


def figures(size: int, tmp: Path, bins: dict[str, Path], runs: int
            ) -> dict[str, dict[str, float]]:
    rng, env, roots, out = prepared(size, tmp, bins)
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
        imports(size, tmp, bins, roots, env, rng, runs, out,
                f"`memx import --raw` of {IMPORT_COUNT} into the indexed store, per memory")
        fold_rows(size, tmp, bins, roots, env, rng, out)
    finally:
        for root in roots.values():
            shutil.rmtree(root, ignore_errors=True)
    return medians(out)


def imports(size: int, tmp: Path, bins: dict[str, Path], roots: dict[str, Path],
            env: dict[str, str], rng: random.Random, runs: int,
            out: dict[str, dict[str, list[float]]], figure: str) -> None:
    """``runs // 3`` (at least one) imports of IMPORT_COUNT new records into each indexed
    copy, installs alternating which goes first: ms a memory under ``figure``."""
    for i in range(max(1, runs // 3)):
        records = tmp / f"import-{size}-{i}.jsonl"
        # Sessions are s{index // 10}: the first third join sessions of the store.
        write_records(rng, size - IMPORT_COUNT // 3 + i * IMPORT_COUNT, IMPORT_COUNT,
                      size, records)
        order = list(bins) if i % 2 == 0 else list(reversed(bins))
        for name in order:
            out[name].setdefault(figure, []).append(
                timed([str(bins[name] / "memx"), "import", "--raw", str(records)],
                      roots[name], env) / IMPORT_COUNT)


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


def untracked_figures(size: int, tmp: Path, bins: dict[str, Path], runs: int
                      ) -> dict[str, dict[str, float]]:
    """``--untracked``: writes in a store whose second half is an import not committed."""
    rng, env, roots, out = prepared(size, tmp, bins)
    records = tmp / f"untracked-{size}.jsonl"
    write_records(rng, size, size, 2 * size, records)
    texts = [synthetic_memory(rng, 3 * size + i, 0).content for i in range(runs)]
    try:
        for name, folder in bins.items():
            memx, root = str(folder / "memx"), roots[name]
            timed([memx, "import", "--raw", str(records)], root, env)
            out[name]["keyword search after the import (a full check)"] = [timed(
                [memx, "search", "after the import", "--mode", "keyword", "--json"],
                root, env)]
        for i, text in enumerate(texts):
            order = list(bins) if i % 2 == 0 else list(reversed(bins))
            for name in order:
                out[name].setdefault("`memx add` (ACE on)", []).append(
                    timed([str(bins[name] / "memx"), "add", text], roots[name], env))
        for name, folder in bins.items():
            out[name]["keyword search after the adds"] = [timed(
                [str(folder / "memx"), "search", texts[-1][:40], "--mode", "keyword",
                 "--json"], roots[name], env)]
    finally:
        for root in roots.values():
            shutil.rmtree(root, ignore_errors=True)
    return medians(out)


GIT_LOG_COMMITS = 10_000
SECOND = "2nd command after a cold start (server)"
THIRD = "3rd command, 1 s later"


def status_rounds(size: int, tmp: Path, bins: dict[str, Path], runs: int, first: bool
                  ) -> dict[str, dict[str, list[float]]]:
    """Per install, per figure: the values of each round (ms or MB), with the same
    rounds' `python -c pass` under "pass" (the figure's ratio is taken per round)."""
    from first_commands import first_three
    from run import queries, run_child

    rng = random.Random(SEED + size)
    env = {**os.environ, "MEMX_NO_SERVER": "1"}
    roots = indexed_copies(size, tmp, bins, rng, env)
    out: dict[str, dict[str, list[float]]] = {name: {} for name in bins}
    texts = queries(rng, runs)
    adds = [synthetic_memory(rng, size + 100 + i, 0).content for i in range(runs)]
    floor = [sys.executable, "-c", "pass"]
    try:
        # the searches first, on the store as indexed; then the adds, each after the last
        for i in range(2 * runs):
            order = list(bins) if i % 2 == 0 else list(reversed(bins))
            for name in order:
                memx, root, rows = str(bins[name] / "memx"), roots[name], out[name]
                rows.setdefault("pass" if i < runs else "pass (adds)", []).append(
                    timed(floor, root, env))
                if i < runs:
                    for mode in ("keyword", "hybrid"):
                        rows.setdefault(f"{mode} search, no server", []).append(
                            timed([memx, "search", texts[i], "--mode", mode, "--json"],
                                  root, env))
                else:
                    rows.setdefault("`memx add` (ACE on), no server", []).append(
                        timed([memx, "add", adds[i - runs]], root, env))
        imports(size, tmp, bins, roots, env, rng, runs, out,
                "import into the indexed store, per memory")
        if first:
            for i in range(runs):
                asked = queries(rng, 3)
                order = list(bins) if i % 2 == 0 else list(reversed(bins))
                for name in order:
                    got = first_three([str(bins[name] / "memx")], roots[name], asked, 1.0,
                                      tmp / f"server-{name}")
                    out[name].setdefault("pass (cold start)", []).append(got[0])
                    out[name].setdefault(SECOND, []).append(got[2])
                    out[name].setdefault(THIRD, []).append(got[3])
            history = tmp / "history"
            history.mkdir()
            subprocess.run(["git", "init", "-q", "-b", "main"], cwd=history, check=True)
            git_history(history, GIT_LOG_COMMITS)
            for name in bins:
                repo = tmp / f"history-{name}"
                shutil.copytree(history, repo, symlinks=True)
                memx = str(bins[name] / "memx")
                run_child([memx, "init"], repo)
                out[name][f"`--git-log` peak RSS, {GIT_LOG_COMMITS} commits"] = [
                    run_child([memx, "ingest", "--git-log"], repo, peak=True).peak_mb]
    finally:
        for root in roots.values():
            shutil.rmtree(root, ignore_errors=True)
    return out


def status_table(found: dict[int, dict[str, dict[str, list[float]]]]) -> str:
    """issue 29's targets, each with before, after, their ratio, the ratio to `python -c
    pass` of the same rounds, and whether the target is met."""
    from run import label
    sizes = sorted(found)
    small = sizes[0]
    lines = ["| figure | target | before | after | after / before | after / `python -c pass` "
             "| met (before → after) |", "|---|---|---|---|---|---|---|"]

    def median(name: str, size: int, figure: str) -> float:
        return statistics.median(found[size][name][figure])

    def to_pass(name: str, size: int, figure: str, floor: str = "pass") -> float:
        rows = found[size][name]
        return statistics.median(v / f for v, f in zip(rows[figure], rows[floor]))

    def row(label: str, target: str, size: int, figure: str, unit: str,
            met: Callable[[str], bool], floor: str | None = "pass") -> None:
        before, after = median("before", size, figure), median("after", size, figure)
        ratio = f"{to_pass('after', size, figure, floor):.1f}x" if floor else "—"
        verdict = " → ".join("met" if met(n) else "not met" for n in ("before", "after"))
        places = 2 if unit == "ms" and before < 10 else 0
        lines.append(f"| {label} | {target} | {before:.{places}f} {unit} | "
                     f"{after:.{places}f} {unit} | {after / before:.2f} | {ratio} | {verdict} |")

    lines.append(f"| `python -c pass` | — | {median('before', small, 'pass'):.0f} ms | "
                 f"{median('after', small, 'pass'):.0f} ms | — | — | — |")
    for figure in (SECOND, THIRD):
        row(f"{figure}, {label(small)}", "≤ 3x `python -c pass`", small, figure, "ms",
            lambda n, f=figure: to_pass(n, small, f, "pass (cold start)") <= 3.0,
            "pass (cold start)")
    limits = {"keyword search, no server": 100.0, "hybrid search, no server": 200.0,
              "`memx add` (ACE on), no server": 200.0}
    for figure, limit in limits.items():
        floor = "pass (adds)" if "add" in figure else "pass"
        for size in sizes:
            if size == small:
                row(f"{figure}, {label(size)}", f"≤ {limit:.0f} ms", size, figure, "ms",
                    lambda n, f=figure, lim=limit: median(n, small, f) <= lim, floor)
            else:
                row(f"{figure}, {label(size)}", f"≤ 1.3x the {label(small)} figure",
                    size, figure, "ms",
                    lambda n, f=figure, z=size: median(n, z, f) <= 1.3 * median(n, small, f),
                    floor)
    figure = "import into the indexed store, per memory"
    for size in sizes:
        row(f"{figure}, {label(size)}", "≤ 0.3 ms", size, figure, "ms",
            lambda n, z=size: median(n, z, figure) <= 0.3, None)
    figure = f"`--git-log` peak RSS, {GIT_LOG_COMMITS} commits"
    row(figure, "≤ 150 MB", small, figure, "MB", lambda n: median(n, small, figure) <= 150,
        None)
    return "\n".join(lines)


def status(argv: list[str]) -> int:
    from paired import paired_args
    from run import isolate

    args = paired_args([a for a in argv if a != "--status"]
                       + ([] if any(a.startswith("--sizes") for a in argv)
                          else ["--sizes", "10000,100000"]), __doc__, runs=7)
    bins = {"before": args.before, "after": args.after}
    sizes = [int(s) for s in args.sizes.split(",")]
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="memx-status-") as name:
        tmp = Path(name)
        isolate(tmp / "home")
        found = {size: status_rounds(size, tmp, bins, args.runs, size == sizes[0])
                 for size in sizes}
    print(f"\n### issue 29's targets (medians of {args.runs} rounds; load average "
          f"{load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)\n")
    print(status_table(found))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--status" in argv:
        return status(argv)
    if "--untracked" in argv:
        return paired_main([a for a in argv if a != "--untracked"], __doc__,
                           untracked_figures, runs=7)
    return paired_main(argv, __doc__, figures, runs=7)


if __name__ == "__main__":
    sys.exit(main())
