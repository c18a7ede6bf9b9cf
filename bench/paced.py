"""One install's warm searches at an agent's pace, for bench/paired.py (issue 15).

    BIN/python bench/paced.py [--settle] ROOT QUERY [QUERY ...]

Runs under the interpreter of the install being measured: one watched Searcher over the
store at ROOT (as the MCP server and the memx server hold one), a warm-up search, then
each query PACE_SECONDS after the previous one, recalls counted. Prints the times in
milliseconds as a JSON list; with ``--settle``, {"times": [...], "settle": [...]}: also
the microseconds of each search's first step, the watcher's settle
(``Watched.settle``: the observer's mark round trip, or the drained inotify read).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from user_paths import paced_warm


def main(argv: list[str]) -> int:
    steps = argv[:1] == ["--settle"]
    if steps:
        argv = argv[1:]
    root, queries = Path(argv[0]), argv[1:]
    settled: list[float] = []
    if steps:
        from memx_cli.freshness import journal as watch

        real = watch.Watched.settle

        def timed(self: Any, indexes: Any) -> None:
            start = time.perf_counter()
            real(self, indexes)
            settled.append((time.perf_counter() - start) * 1e6)

        watch.Watched.settle = timed  # type: ignore[method-assign]
    times = paced_warm(root, queries, watched=True)
    print(json.dumps({"times": times, "settle": settled[-len(times):]} if steps else times))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
