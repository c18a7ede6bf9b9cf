"""Git hook cost (SPEC 11, issue 6): the wall time memx's hooks add to `git commit` in a
repository with 10k memories.

    python bench/hooks.py [--memories 10000] [--runs 11]

``run()`` returns rows ``(figure, measured, target)``; bench/run.py prints them. A fresh
repository gets N memory files written directly with ``memory.dump`` (committed, and
indexed once, as in a clone where someone has searched), then `memx hooks install`. Each
measured commit changes one source file with a `fix:` message naming an error, so the
post-commit hook's background run writes one memory for it. Commits with and without the
hooks alternate (without: ``git -c core.hooksPath=<empty dir>``), p50 of each. The hook
only queues the commit: reflection, curation and the index update run in a background
process, which the bench waits for between commits (so that it does not compete with the
next measurement) and times from the moment `git commit` returned.
Everything lives in a temporary directory with its own HOME/XDG dirs.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import isolated_env, print_rows

MEMORIES = 10_000
RUNS = 11
TARGET_MS = 150.0
TOPICS = ("pool size", "retry limit", "cache ttl", "log level", "worker count", "timeout")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _setup(root: Path, count: int) -> None:
    from memx_cli.index import StoreIndex
    from memx_cli.store import memory
    from memx_cli.store.records import build
    from memx_cli.store.repo import Repo, init

    _git(root.parent, "init", "-q", "-b", "main", str(root))
    repo = Repo(root)
    init(repo)
    directory = repo.store.memories_dir
    for n in range(count):  # setup, not timed: plain writes, no per-file fsync
        topic = TOPICS[n % len(TOPICS)]
        mem = build(f"The {topic} of service {n} is {n % 97}; change it in config/svc{n}.yaml",
                    tags=("config",))
        (directory / f"{mem.id}.yaml").write_bytes(memory.dump(mem))
    (root / "src").mkdir()
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "store")
    StoreIndex(repo.store, repo.config["embedding.model"]).sync()
    subprocess.run([sys.executable, "-m", "memx_cli", "hooks", "install"], cwd=root,
                   check=True, capture_output=True)


def _commit(root: Path, n: int, hooks_off: Path | None) -> float:
    (root / "src" / f"worker_{n}.py").write_text(f"POOL_SIZE = {n}\n")
    _git(root, "add", "src")
    message = (f"fix: TimeoutError: connection pool exhausted in worker {n}\n\n"
               f"Raise the pool size to {n} and close idle connections.")
    args = ["git", *(["-c", f"core.hooksPath={hooks_off}"] if hooks_off else []),
            "commit", "-q", "-m", message]
    start = time.perf_counter()
    subprocess.run(args, cwd=root, check=True, capture_output=True)
    return (time.perf_counter() - start) * 1000


def _wait_for_background(root: Path, timeout: float = 300.0) -> float:
    from memx_cli.fsutil import locked
    from memx_cli.githooks import impl as hookimpl
    from memx_cli.store.repo import Repo

    repo = Repo(root)
    start = time.perf_counter()
    while hookimpl.queued(repo) and time.perf_counter() - start < timeout:
        time.sleep(0.01)
    with locked(repo.store.local_dir / "background.lock", wait=timeout):
        pass  # the run updates the index after emptying the queue
    return time.perf_counter() - start


def run(memories: int = MEMORIES, runs: int = RUNS) -> list[tuple[str, str, str]]:
    with tempfile.TemporaryDirectory(prefix="memx-bench-hooks-") as tmp, isolated_env(tmp):
        root = Path(tmp) / "repo"
        _setup(root, memories)
        no_hooks = Path(tmp) / "no-hooks"
        no_hooks.mkdir()
        without, with_hooks, background = [], [], []
        _commit(root, 0, no_hooks)  # warm the file system caches
        for n in range(1, runs + 1):
            without.append(_commit(root, 2 * n, no_hooks))
            with_hooks.append(_commit(root, 2 * n + 1, None))
            background.append(_wait_for_background(root))
        made = len(list((root / ".memx" / "memories").glob("*.yaml"))) - memories
    plain, hooked = statistics.median(without), statistics.median(with_hooks)
    label = f"{memories // 1000}k memories" if memories >= 1000 else f"{memories} memories"
    return [
        (f"`git commit` without hooks, {label}", f"{plain:.0f} ms", "—"),
        (f"`git commit` with memx hooks (a `fix:` commit), {label}",
         f"{hooked:.0f} ms", "—"),
        ("post-commit hook, wall time added to `git commit` (p50)",
         f"{hooked - plain:.0f} ms", f"≤ {TARGET_MS:.0f} ms"),
        ("background run after the commit: reflect, write, curate, update the index (p50)",
         f"{statistics.median(background) * 1000:.0f} ms ({made} memories from {runs} "
         "commits)", "—"),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=MEMORIES)
    parser.add_argument("--runs", type=int, default=RUNS)
    options = parser.parse_args()
    print_rows(run(options.memories, options.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
