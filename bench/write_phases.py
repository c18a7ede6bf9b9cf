"""Where one write's time goes, in a fresh process (issue 29).

    VENV/bin/python bench/write_phases.py [--runs 7] STORE add TEXT
    VENV/bin/python bench/write_phases.py [--runs 7] STORE import --raw FILE

Runs the memx command given ``--runs`` times in STORE (a repository with a store), each
in a new process of the interpreter running this script (so the install measured is that
interpreter's), with MEMX_NO_SERVER=1. Each process times, with wall clocks wrapped
around the functions that do the work: the import of the CLI, the import of the write's
modules (done lazily by the command itself otherwise), the Curator's encoder load
(``load_similarity``: numpy and the model), its candidate search and decision, the
memory files' write, the index update after it, and the whole write. A text given to
``add`` gets the run's number appended, so each run adds a new memory; an import file is
imported as given each run (its ids make the later runs updates). Prints each phase's
median (ms) and the process's whole wall time. The wrappers add a few microseconds a
call: a memory import calls ``checked_record`` once per record.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

# (module, attribute path) of the functions timed, in the order of a write
PHASES = (
    ("memx_cli.operations.transfer", "checked_record"),
    ("memx_cli.curator", "write_curated"),
    ("memx_cli.curator", "load_similarity"),
    ("memx_cli.index.sync", "StoreIndex.sync_before_write"),
    ("memx_cli.curator", "Curator.curate"),
    ("memx_cli.curator", "Curator._fetch_from_index"),
    ("memx_cli.curator", "Curator._decide"),
    ("memx_cli.store.files", "Store.write_many"),
    ("memx_cli.operations.write", "index_written"),
    ("memx_cli.operations.write", "write"),
)


def child(argv: list[str]) -> None:
    """One command under the phase timers; the timings go to stderr as JSON once the
    write returns (the CLI may leave with os._exit)."""
    import functools
    import importlib

    start = time.perf_counter()
    times: dict[str, float] = {}
    from memx_cli.cli import entry

    times["import of the CLI"] = (time.perf_counter() - start) * 1000
    mark = time.perf_counter()
    for module, _ in PHASES:
        importlib.import_module(module)
    times["import of the write's modules"] = (time.perf_counter() - mark) * 1000

    def timed(name: str, fn):  # type: ignore[no-untyped-def]
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            began = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                times[name] = times.get(name, 0.0) + (time.perf_counter() - began) * 1000
                if name == "write":
                    print(json.dumps(times), file=sys.stderr, flush=True)
        return wrapper

    for module, path in PHASES:
        owner = importlib.import_module(module)
        *parents, name = path.split(".")
        for part in parents:
            owner = getattr(owner, part)
        setattr(owner, name, timed(path, getattr(owner, name)))
    sys.argv = ["memx", *argv]
    entry()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("store")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if not args.command or args.command[0] not in ("add", "import"):
        parser.error("the command is `add TEXT` or `import --raw FILE`")
    env = {**os.environ, "MEMX_NO_SERVER": "1"}
    rows: list[dict[str, float]] = []
    for run in range(args.runs):
        command = list(args.command)
        if command[0] == "add":
            command[-1] = f"{command[-1]} ({run})"
        began = time.perf_counter()
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", *command],
                              cwd=args.store, env=env, capture_output=True, text=True)
        wall = (time.perf_counter() - began) * 1000
        lines = [line for line in done.stderr.splitlines() if line.startswith("{")]
        if done.returncode != 0 or not lines:
            sys.exit(f"write_phases: run {run} failed: {done.stderr.strip()[-300:]}")
        rows.append({**json.loads(lines[-1]), "whole process": wall})
    for name in rows[0]:
        values = [row[name] for row in rows if name in row]
        print(f"{name:32} {statistics.median(values):8.1f} ms")


if __name__ == "__main__":
    main()
