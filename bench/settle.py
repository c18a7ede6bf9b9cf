"""One install's ``settle``, step by step (issue 15, the drained watcher).

    BIN/python bench/settle.py ROOT [ROUNDS]

Runs under the interpreter of the install being measured, on the store directory ROOT
(a `.memx/`): its watcher (``open_watcher`` where the install has it, else watchdog's
observer with marks), then ROUNDS times, PAUSE seconds apart: an append to a log in
`local/` (as a search's recall count is) and a timed ``settle``; every fifth round an
in-place write of a memory file first, which must be named by the journal after the
settle. Prints the settle times in microseconds as a JSON list.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

PAUSE = 0.05


def main(argv: list[str]) -> int:
    from memx_cli.freshness import journal as watch

    try:
        from memx_cli.freshness.drain import open_watcher
    except ImportError:  # an install before the drained watcher
        open_watcher = watch.Watcher
    root_path, rounds = Path(argv[0]), int(argv[1]) if len(argv) > 1 else 200
    watcher = open_watcher()
    memory = sorted((root_path / "memories").glob("*.yaml"))[0]
    log = root_path / "local" / "bench-settle.log"
    log.parent.mkdir(exist_ok=True)
    try:
        root = watcher.root(root_path)
        assert root is not None
        watcher.settle([root])
        times = []
        with open(log, "a") as appends:
            for n in range(rounds):
                time.sleep(PAUSE)
                before = root.changes
                if n % 5 == 0:
                    memory.write_text(memory.read_text())
                appends.write("recalled\n")
                appends.flush()
                start = time.perf_counter()
                watcher.settle([root])
                times.append((time.perf_counter() - start) * 1e6)
                if n % 5 == 0 and memory.stem not in (root.since(before) or {memory.stem}):
                    raise SystemExit(f"round {n}: the write was not counted")
        print(json.dumps(times))
    finally:
        watcher.stop()
        log.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
