"""One install's in-process figures for bench/warm_paired.py (issue 15).

    BIN/python bench/warm_child.py list ROOT RUNS
    BIN/python bench/warm_child.py corecall ROOT RUNS QUERY [QUERY ...]

Runs under the interpreter of the install being measured and prints its times in
milliseconds as one JSON object:
- ``list``: `memx list` as the memx server runs it (``Daemon.run``, one warm server),
  repeated with no change (``repeat``), then each after a one-file edit in place
  (``edited``: the index moved, so a new searcher view);
- ``corecall``: a watched polyphonic hybrid search back to back (``search``: what a
  server request pays, the co-recall bookkeeping included), then the co-recall
  bookkeeping of one search alone (``record``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any


def timed(call: Any) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def listing(root: Path, runs: int) -> dict[str, list[float]]:
    from memx_cli.server import daemon

    server = daemon.Daemon(idle_timeout=600)
    request = {"argv": ["list"], "cwd": str(root), "env": dict(os.environ), "streams": {}}

    def run() -> None:
        header, _, err = server.run(request)
        if header.get("code") != 0:
            raise RuntimeError(err.decode(errors="replace"))

    try:
        run()
        repeat = [timed(run) for _ in range(runs)]
        path = sorted((root / ".memx" / "memories").glob("*.yaml"))[len(repeat)]
        text = path.read_text()
        edited = []
        for i in range(runs):
            with open(path, "r+") as handle:  # in place: a word flips back and forth
                handle.write(text.replace(" ", "_", 1) if i % 2 == 0 else text)
            time.sleep(0.2)
            edited.append(timed(run))
        return {"repeat": repeat, "edited": edited}
    finally:
        server.watcher.stop()


def corecall(root: Path, runs: int, queries: list[str]) -> dict[str, list[float]]:
    from memx_cli.freshness.journal import Watched, Watcher
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    repo = Repo.discover(root)
    try:
        from memx_cli.store.corecall import record
    except ImportError:  # an install from before the append-only log
        from memx_cli.generator.polyphonic import record_corecall as record
    watcher = Watcher()
    searcher = Searcher(repo, freshness=Watched(watcher))
    try:
        searcher.search("warm up", mode="hybrid")
        search = [timed(lambda q=q: searcher.search(q, mode="hybrid")) for q in queries]
    finally:
        watcher.stop()
    ids = sorted(p.stem for p in (root / ".memx" / "memories").glob("*.yaml"))
    picks = [ids[(7 * i) % len(ids):(7 * i) % len(ids) + 3] for i in range(runs)]
    return {"search": search, "record": [timed(lambda p=p: record(repo.store, p))
                                         for p in picks]}


def main(argv: list[str]) -> int:
    mode, root, runs = argv[0], Path(argv[1]), int(argv[2])
    result = listing(root, runs) if mode == "list" else corecall(root, runs, argv[3:])
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
