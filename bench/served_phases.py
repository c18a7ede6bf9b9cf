"""Where a warm command the memx server answers spends the server's CPU (issue 29).

    VENV/bin/python bench/served_phases.py [--requests 60] STORE

In the interpreter running this script (so the install measured is that interpreter's),
a memx server (``Daemon``) opens STORE as it does the repository that started it, then
answers ``--requests`` forwarded ``memx search QUERY --mode hybrid --json`` requests, each
written by a client end of a Unix socket pair and served by ``Daemon._serve_one`` as
the accept loop serves a connection (the request's frame read and checked, the caller's
user, environment and folder, the command run, the reply sent), then the check the
server makes after each answer. Queries are ``run.py``'s, a new one each request. Each
phase's CPU time (``time.thread_time``, the figure a busy machine moves least) is summed
per request from wrappers around the functions doing it; prints each phase's median and
the whole request's. The CLI's own share is ``cli.main`` less the search and its JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import socket
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from run import SEED, queries

# (label, module, attribute path, a context manager?) of what is timed, in request order
PHASES = (
    ("read the request", "memx_cli.server.daemon", "read_request", False),
    ("the caller's user", "memx_cli.server.daemon", "same_user", False),
    ("the caller's environment and folder", "memx_cli.server.daemon", "as_caller", True),
    ("the captured streams", "memx_cli.server.daemon", "captured", True),
    ("server.enabled (the repository and its configuration)", "memx_cli.server.daemon",
     "_enabled_for", False),
    ("cli.main", "memx_cli.cli", "main", False),
    ("the search (Searcher.search)", "memx_cli.generator.search", "Searcher.search", False),
    ("its JSON (emit_json)", "memx_cli.command.base", "emit_json", False),
    ("the reply sent", "memx_cli.server.daemon", "send_json", False),
)


def timed(spent: dict[str, float], label: str, function: Callable[..., Any],
          manager: bool) -> Callable[..., Any]:
    if manager:
        @contextlib.contextmanager
        def entered(*args: Any, **kwargs: Any) -> Iterator[Any]:
            start = time.thread_time()
            with function(*args, **kwargs) as value:
                spent[label] = spent.get(label, 0.0) + time.thread_time() - start
                yield value
                start = time.thread_time()
            spent[label] += time.thread_time() - start
        return entered

    def called(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.thread_time() - start
    return called


def wrap(spent: dict[str, float]) -> None:
    import importlib

    for label, module_name, path, manager in PHASES:
        owner: Any = importlib.import_module(module_name)
        *outer, name = path.split(".")
        for part in outer:
            owner = getattr(owner, part)
        setattr(owner, name, timed(spent, label, getattr(owner, name), manager))
    # command/search.py took emit_json by name: time its own reference too
    search_module = importlib.import_module("memx_cli.command.search")
    if hasattr(search_module, "emit_json"):
        search_module.emit_json = timed(spent, "its JSON (emit_json)",
                                        search_module.emit_json, False)


def request(root: Path, text: str) -> bytes:
    from memx_cli.wire.build import identity
    from memx_cli.wire.protocol import PROTOCOL, plain_json

    env = {**os.environ, "COLUMNS": "100", "LINES": "20"}
    body = {"proto": PROTOCOL, "version": identity(), "op": "run",
            "argv": ["search", text, "--mode", "hybrid", "--json"], "cwd": str(root),
            "env": env, "streams": {"stdout_encoding": "utf-8", "stdout_errors": "strict",
                                    "stderr_encoding": "utf-8",
                                    "stderr_errors": "backslashreplace"}}
    data = plain_json(body).encode("utf-8")
    return len(data).to_bytes(4, "big") + data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--requests", type=int, default=60)
    args = parser.parse_args(argv)
    root = args.store.resolve()
    from memx_cli.embed import one_blas_thread

    one_blas_thread()
    from memx_cli.server import daemon

    host = daemon.Daemon(900.0, repository=str(root))
    host.warm(str(root))
    spent: dict[str, float] = {}
    wrap(spent)
    texts = queries(random.Random(SEED + 29), args.requests)
    rows: list[dict[str, float]] = []
    try:
        for text in texts:
            client, served = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            drained = threading.Thread(target=_drain, args=(client, request(root, text)))
            drained.start()
            spent.clear()
            start = time.thread_time()
            with served:
                host._serve_one(served)
            host.verify()
            whole = time.thread_time() - start
            drained.join()
            rows.append({**spent, "whole request": whole})
    finally:
        host.watcher.stop()
    labels = [label for label, *_ in PHASES] + ["whole request"]
    print(f"\n### {root.name}: server CPU of one warm `memx search --mode hybrid --json` "
          f"({len(rows)} requests, medians; load average {os.getloadavg()[0]:.1f})\n")
    print("| phase | ms |\n|---|---|")
    for label in labels:
        values = [row.get(label, 0.0) * 1000 for row in rows]
        print(f"| {label} | {statistics.median(values):.2f} |")
    rest = [(row.get("cli.main", 0.0) - row.get("the search (Searcher.search)", 0.0)
             - row.get("its JSON (emit_json)", 0.0)) * 1000 for row in rows]
    print(f"| cli.main less the search and its JSON (the CLI's dispatch) | "
          f"{statistics.median(rest):.2f} |")
    return 0


def _drain(sock: socket.socket, data: bytes) -> None:
    """The client's end: send the request, read the reply until the server closes."""
    with sock:
        sock.sendall(data)
        while sock.recv(1 << 16):
            pass


if __name__ == "__main__":
    sys.exit(main())
