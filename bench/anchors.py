"""Anchor verification cost (SPEC 3.5, issue 7): what checking the anchors of one search's
results adds, for 5 anchored results.

    python bench/anchors.py

``run()`` returns rows ``(figure, measured, target)``; bench/run.py prints them. A fresh
git repository gets five 300-line source files, one memory anchored to a function in
each, and filler memories; everything lives in a temporary directory (own HOME/XDG dirs).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import isolated_env, print_rows

RUNS = 200
RESULTS = 5
TARGET_MS = 10.0


def _source(n: int) -> str:
    lines = [f"# module {n}", "import os", ""]
    for k in range(60):
        lines += [f"def helper_{n}_{k}(value):", f"    return value * {k} + {n}", ""]
    lines += [f"def connect_pool_{n}(size=10):", '    """Open the pool."""',
              "    pool = make_pool(size)", "    pool.warm()", "    return pool", ""]
    return "\n".join(lines + [f"CONSTANT_{i} = {i}" for i in range(100)]) + "\n"


def _setup(root: Path) -> tuple[Any, list[Any]]:
    from memx_cli.anchors import anchor as anchors
    from memx_cli.store.records import build
    from memx_cli.store.repo import Repo, init

    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    (root / "src").mkdir()
    specs = []
    for n in range(RESULTS):
        text = _source(n)
        (root / "src" / f"mod{n}.py").write_text(text)
        start = text.splitlines().index(f"def connect_pool_{n}(size=10):") + 1
        specs.append(f"src/mod{n}.py:{start}-{start + 4}")
    subprocess.run(["git", "add", "."], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "code"], cwd=root, check=True)
    repo = Repo(root)
    init(repo)
    memories = []
    for n, spec in enumerate(specs):
        mem = build(f"pool sizing note {n}: connect_pool_{n} opens ten connections")
        memories.append(mem.replace(anchors=anchors.create(root, [spec], root)))
    for n in range(200):
        memories.append(build(f"filler memory {n} about deploy scripts and caches"))
    repo.store.write_many(memories)
    past = time.time() - 3600  # source files are rarely edited in the second before a search
    for n in range(RESULTS):
        os.utime(root / "src" / f"mod{n}.py", (past, past))
    return repo, [m.anchors for m in memories[:RESULTS]]


def _p50_ms(action: Callable[[], object], runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


_IMPORT_PROBE = (
    "import time\nimport memx_cli.generator.search\nstart = time.perf_counter()\n"
    "import memx_cli.anchors.verify\nprint((time.perf_counter() - start) * 1000)\n"
)


def _import_ms(runs: int = 7) -> float:
    """Importing the verification code in a fresh process that already searched."""
    times = [float(subprocess.run([sys.executable, "-c", _IMPORT_PROBE], check=True,
                                  capture_output=True, text=True).stdout)
             for _ in range(runs)]
    return statistics.median(times)


def run() -> list[tuple[str, str, str]]:
    from memx_cli.anchors import verify
    from memx_cli.generator.search import Searcher

    with tempfile.TemporaryDirectory(prefix="memx-bench-anchors-") as tmp, isolated_env(tmp):
        root = Path(tmp) / "repo"
        repo, anchor_sets = _setup(root)
        cache = repo.store.local_dir / verify.CACHE_NAME

        def check_results() -> None:  # what one search does: load, check 5, save
            verifier = verify.verifier_for(repo)
            for anchor_set in anchor_sets:
                assert verifier.verify(anchor_set).status == verify.VERIFIED
            verifier.save()

        def cold_cache() -> None:
            cache.unlink(missing_ok=True)
            check_results()

        check_results()
        cached = _p50_ms(check_results)
        missed = _p50_ms(cold_cache, RUNS // 4)
        searcher = Searcher(repo)

        def one_search() -> list[Any]:
            return searcher.search("pool sizing note", mode="keyword", limit=RESULTS,
                                   record_recalls=False).hits

        hits = one_search()
        assert sum(h.verification is not None for h in hits) == RESULTS
        with_verify = _p50_ms(one_search)
        original = Searcher._verify
        Searcher._verify = lambda self, hit, policy: True  # type: ignore[method-assign]
        try:
            without = _p50_ms(one_search)
        finally:
            Searcher._verify = original  # type: ignore[method-assign]
    imports = _import_ms()
    target = f"≤ {TARGET_MS:.0f} ms"
    return [
        ("cold process: importing the verification code (once, when a result is anchored)",
         f"{imports:.2f} ms", "—"),
        (f"anchor verification, {RESULTS} anchored results, unchanged files (cache hit)",
         f"{cached:.2f} ms", target),
        ("cold process, cache hit: import + verification",
         f"{imports + cached:.2f} ms", target),
        (f"anchor verification, {RESULTS} anchored results, changed files (cache miss)",
         f"{missed:.2f} ms", target),
        (f"warm keyword search, {RESULTS} anchored results: with / without verification",
         f"{with_verify:.2f} / {without:.2f} ms (+{with_verify - without:.2f} ms)", target),
    ]


def main() -> int:
    print_rows(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
