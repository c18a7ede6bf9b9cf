"""`memx list` through the memx server and the polyphonic fusion's co-recall
bookkeeping, two installs interleaved (issue 15).

    python bench/warm_paired.py BEFORE_BIN AFTER_BIN [--sizes 10000] [--runs 9]

BEFORE_BIN and AFTER_BIN hold each install's `memx` and `python`. Each size gets one
store written and committed as `run.py` does, copied once per install, with
``ace.retrieval.fusion: polyphonic`` and a full co-recall file in the format every
version reads (`corecall.json`: 20 partners for every memory, as after a long use).
Each install has its own memx server. Rows, installs alternating process by process:
- `memx list` / `memx list --json` through the server: the whole thin-client process;
- `memx list` in the server (bench/warm_child.py: ``Daemon.run`` in process), repeated
  with nothing changed, and right after a one-file edit in place;
- a warm polyphonic hybrid search back to back (the co-recall bookkeeping included),
  and that bookkeeping of one search alone.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

from add_paired import medians, stop_servers, timed
from paired import paired_main, store_copies
from run import SEED, queries

CHILD_ROUNDS = 4  # child processes per install for the in-process rows


def full_corecall(root: Path, rng: random.Random) -> None:
    ids = sorted(p.stem for p in (root / ".memx" / "memories").glob("*.yaml"))
    pairs = {a: {b: rng.randint(1, 9) for b in rng.sample(ids, 20) if b != a} for a in ids}
    local = root / ".memx" / "local"
    local.mkdir(exist_ok=True)
    (local / "corecall.json").write_text(json.dumps(pairs, sort_keys=True))


def child(bin_dir: Path, *args: str) -> dict[str, list[float]]:
    script = Path(__file__).with_name("warm_child.py")
    done = subprocess.run([str(bin_dir / "python"), str(script), *args], cwd=script.parent,
                          check=True, capture_output=True, text=True,
                          env={**os.environ, "MEMX_NO_SERVER": "1"})
    result: dict[str, list[float]] = json.loads(done.stdout.splitlines()[-1])
    return result


def figures(size: int, tmp: Path, bins: dict[str, Path], runs: int) -> dict[str, dict[str, float]]:
    rng = random.Random(SEED + size)
    roots = store_copies(size, tmp, bins, rng)
    env = {k: v for k, v in os.environ.items() if k != "MEMX_NO_SERVER"}
    served = {name: {**env, "MEMX_SERVER_DIR": str(tmp / f"run-{name}")} for name in bins}
    for root in roots.values():
        full_corecall(root, random.Random(SEED))
    out: dict[str, dict[str, list[float]]] = {name: {} for name in bins}

    def add(name: str, row: str, values: list[float]) -> None:
        out[name].setdefault(row, []).extend(values)

    for name, folder in bins.items():
        memx = str(folder / "memx")
        quiet = {**served[name], "MEMX_NO_SERVER": "1"}
        timed([memx, "config", "set", "ace.retrieval.fusion", "polyphonic"], roots[name], quiet)
        timed([memx, "reindex", "--full"], roots[name], quiet)
        timed([memx, "server", "start"], roots[name], served[name])
        timed([memx, "list"], roots[name], served[name])
    texts = queries(rng, 10 * CHILD_ROUNDS)
    try:
        for i in range(runs):
            for name in bins if i % 2 == 0 else reversed(bins):
                memx, root = str(bins[name] / "memx"), roots[name]
                add(name, "`memx list` through the server, whole process",
                    [timed([memx, "list"], root, served[name])])
                add(name, "`memx list --json` through the server, whole process",
                    [timed([memx, "list", "--json"], root, served[name])])
    finally:
        stop_servers(bins, roots, served)
    for i in range(CHILD_ROUNDS):
        for name in bins if i % 2 == 0 else reversed(bins):
            listed = child(bins[name], "list", str(roots[name]), "5")
            add(name, "`memx list` in the server, nothing changed", listed["repeat"])
            add(name, "`memx list` in the server, after a one-file edit", listed["edited"])
            asked = texts[10 * i:10 * (i + 1)]
            poly = child(bins[name], "corecall", str(roots[name]), "10", *asked)
            add(name, "warm polyphonic hybrid search, back to back", poly["search"])
            add(name, "co-recall bookkeeping of one search", poly["record"])
    for root in roots.values():
        shutil.rmtree(root, ignore_errors=True)
    return medians(out)


def main(argv: list[str] | None = None) -> int:
    return paired_main(argv, __doc__, figures, runs=9)


if __name__ == "__main__":
    sys.exit(main())
