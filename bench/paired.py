"""Two memx installs on the same synthetic store, interleaved run by run (issue 15).

    python bench/paired.py BEFORE_BIN AFTER_BIN [--sizes 1000,10000] [--runs 15] [--paced]

BEFORE_BIN and AFTER_BIN are the folders holding each install's `memx` executable (a
virtual environment's bin/). Each size gets one store written and committed as
`run.py` does, copied once per install (each keeps its own `.memx/cache/`); then every
figure alternates the two installs process by process, so a busy moment on a shared
machine hits both. Prints medians and the after/before ratio. ``--paced`` adds warm
searches at an agent's pace (bench/paced.py: whole processes, alternating installs).
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
from collections.abc import Callable
from pathlib import Path

from run import (
    SEED,
    commit_store,
    isolate,
    new_repo,
    queries,
    run_child,
    synthetic_memory,
    write_store,
)

PACED_ROUNDS, PACED_QUERIES = 4, 5
# Rows that also get the command's CPU time (its children's included): on a shared,
# loaded machine the wall time says as much about the neighbours (issue 29).
CPU_ROWS = ("cold keyword search", "cold hybrid search", "`memx add` (ACE on)")
PACED_ROW = "warm hybrid 1 s apart, watched Searcher (MCP pace)"


def figures(size: int, tmp: Path, bins: dict[str, Path], runs: int,
            paced: bool = False) -> dict[str, dict[str, float]]:
    from memx_cli.store.memory import dump

    rng = random.Random(SEED + size)
    roots = store_copies(size, tmp, bins, rng)
    out: dict[str, dict[str, list[float]]] = {name: {} for name in bins}

    def each(figure: str, args: Callable[[int], list[str]], count: int,
             before: Callable[[int], None] | None = None) -> None:
        for i in range(count):
            if before is not None:
                before(i)
            order = list(bins) if i % 2 == 0 else list(reversed(bins))
            for name in order:
                run = run_child([str(bins[name] / "memx"), *args(i)], roots[name])
                out[name].setdefault(figure, []).append(run.seconds * 1000)
                if figure in CPU_ROWS:
                    out[name].setdefault(f"{figure}, CPU (user + system)", []).append(
                        run.cpu_seconds * 1000)

    each("full rebuild", lambda i: ["reindex", "--full"], 1)
    each("warm-up", lambda i: ["search", "warm up", "--mode", "hybrid", "--json"], 1)
    texts = queries(rng, max(runs, 5))  # the rows after the adds take 5
    if paced:  # queries of their own: the other rows' stay as they were
        paced_texts = queries(random.Random(SEED - size), PACED_ROUNDS * PACED_QUERIES)
        for i in range(PACED_ROUNDS):  # whole processes, alternating installs
            order = list(bins) if i % 2 == 0 else list(reversed(bins))
            asked = paced_texts[i * PACED_QUERIES:(i + 1) * PACED_QUERIES]
            for name in order:
                out[name].setdefault(PACED_ROW, []).extend(
                    paced_child(bins[name], roots[name], asked))
    each("cold keyword search", lambda i: ["search", texts[i], "--mode", "keyword", "--json"],
         runs)
    each("cold hybrid search", lambda i: ["search", texts[i], "--mode", "hybrid", "--json"],
         runs)
    # What a person sees: the text output abbreviates ids (unique among every memory).
    each("cold keyword search, text output",
         lambda i: ["search", texts[i], "--mode", "keyword"], runs)
    now = int(time.time() * 1000)

    def one_more(i: int) -> None:  # the same new file in every copy, as run.py writes it
        mem = synthetic_memory(rng, size + i, now)
        for root in roots.values():
            (root / ".memx" / "memories" / f"{mem.id}.yaml").write_bytes(dump(mem))

    each("incremental reindex after +1 memory", lambda i: ["reindex"], 5, one_more)
    adds = [synthetic_memory(rng, size + 100 + i, 0).content for i in range(5)]
    each("`memx add` (ACE on)", lambda i: ["add", adds[i]], 5)
    each("cold hybrid search after the adds",
         lambda i: ["search", texts[i], "--mode", "hybrid", "--json"], 5)
    for root in roots.values():
        shutil.rmtree(root, ignore_errors=True)
    return {name: {k: statistics.median(v) for k, v in figs.items()}
            for name, figs in out.items()}


def store_copies(size: int, tmp: Path, bins: dict[str, Path],
                 rng: random.Random) -> dict[str, Path]:
    """One store of ``size`` memories written and committed as `run.py` does, copied
    once per install (each keeps its own `.memx/cache/`)."""
    base = new_repo(tmp / f"base-{size}")
    write_store(base, size, rng)
    commit_store(base)
    roots = {}
    for name in bins:
        roots[name] = tmp / f"{name}-{size}"
        shutil.copytree(base, roots[name], symlinks=True)
        # as the user's next `git status` does after a copy: git's stat cache
        subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=roots[name],
                       check=False)
    shutil.rmtree(base)
    return roots


def paced_child(bin_dir: Path, root: Path, texts: list[str]) -> list[float]:
    """The times of ``texts`` searched 1 s apart by a watched Searcher of the install in
    ``bin_dir`` (bench/paced.py under that install's interpreter)."""
    script = Path(__file__).with_name("paced.py")
    done = subprocess.run([str(bin_dir / "python"), str(script), str(root), *texts],
                          cwd=script.parent, check=True, capture_output=True, text=True)
    return [float(t) for t in json.loads(done.stdout.splitlines()[-1])]


def paired_args(argv: list[str] | None, doc: str, runs: int) -> argparse.Namespace:
    """BEFORE_BIN AFTER_BIN [--sizes] [--runs]: the arguments of the paired scripts."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--paced", action="store_true",
                        help=f"also {PACED_ROUNDS} x {PACED_QUERIES} warm searches 1 s apart "
                             "(a watched Searcher per install)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = paired_args(argv, __doc__, runs=15)
    bins = {"before": args.before, "after": args.after}
    with tempfile.TemporaryDirectory(prefix="memx-paired-") as name:
        tmp = Path(name)
        isolate(tmp / "home")
        for size in (int(s) for s in args.sizes.split(",")):
            result = figures(size, tmp, bins, args.runs, args.paced)
            print_pairs(f"{size} memories (medians, ms; before and after interleaved)",
                        result)
    return 0


Figures = Callable[[int, Path, dict[str, Path], int], dict[str, dict[str, float]]]


def paired_main(argv: list[str] | None, doc: str, figures: Figures, runs: int) -> int:
    """The main of a paired script: BEFORE_BIN AFTER_BIN [--sizes] [--runs], an isolated
    home, the `python -c pass` floor, then ``figures`` per size as one table each."""
    args = paired_args(argv, doc, runs=runs)
    bins = {"before": args.before, "after": args.after}
    with tempfile.TemporaryDirectory(prefix="memx-paired-") as name:
        tmp = Path(name)
        isolate(tmp / "home")
        floor = statistics.median(run_child([sys.executable, "-c", "pass"], tmp).seconds
                                  for _ in range(5)) * 1000
        print(f"`python -c pass`: {floor:.0f} ms; load average {os.getloadavg()[0]:.1f}")
        for size in (int(s) for s in args.sizes.split(",")):
            result = figures(size, tmp, bins, args.runs)
            print_pairs(f"{size} memories (medians of {args.runs}, ms; installs "
                        "interleaved)", result)
    return 0


def print_pairs(heading: str, result: dict[str, dict[str, float]]) -> None:
    """One markdown table of paired medians: before, after and their ratio per figure."""
    print(f"\n### {heading}\n")
    print("| figure | before | after | after / before |\n|---|---|---|---|")
    for figure, before in result["before"].items():
        after = result["after"][figure]
        print(f"| {figure} | {_ms(before)} | {_ms(after)} | {after / before:.2f} |")
    sys.stdout.flush()


def _ms(value: float) -> str:
    """Warm searches take a few ms, an append a fraction of one."""
    return f"{value:.{2 if value < 1 else 1 if value < 100 else 0}f}"


if __name__ == "__main__":
    sys.exit(main())
