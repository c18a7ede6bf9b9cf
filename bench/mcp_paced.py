"""`memx mcp` at an agent's pace, installs interleaved (issue 29).

    python bench/mcp_paced.py BEFORE_BIN AFTER_BIN [--sizes 10000] [--runs 4]

BEFORE_BIN and AFTER_BIN are the folders holding each install's `memx` executable (a
virtual environment's bin/). Each size gets one store written and committed as `run.py`
does, copied once per install and indexed with `memx reindex --full`. A round, per
install (the order alternates between rounds): one `memx mcp` process over real stdio
pipes (the MCP handshake, a warm-up search), then QUERIES `search_memory` calls one
second apart, each timed from writing its request line to reading its reply; then the
same queries searched in process by one watched Searcher of that install
(bench/paced.py: the floor the MCP server adds to); then the same paced calls to a
`memx mcp` whose search_memory answers every call with its first search's result (the
install's own MemoryService.search patched in the child): what the MCP layer itself
costs a call (JSON-RPC, validation, tasks, the pipes), apart from the search. Prints
medians (target: MCP search at an agent's pace <= 6 ms at 10k), with the server's CPU
time and its threads' wait for a CPU during each call (Linux:
/proc/PID/task/*/schedstat), which show what thread hand-offs and loop turns cost on a
busy machine whatever the load of the moment.
"""

from __future__ import annotations

import json
import os
import random
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from paired import paced_child, paired_main, store_copies
from run import SEED, queries, run_child
from user_paths import PACE_SECONDS

QUERIES = 5
MCP_ROW = f"`memx mcp` search_memory, {PACE_SECONDS:.0f} s apart (request line -> reply)"
CPU_ROW = "  its server's CPU time a call (all threads)"
QUEUE_ROW = "  its server's threads' wait for a CPU a call (run queue)"
FLOOR_ROW = "the same searches in process (watched Searcher, bench/paced.py)"
LAYER_ROW = "the MCP layer alone: the same calls answered with a fixed result"
LAYER_CPU_ROW = "  its server's CPU time a call (all threads), fixed result"
# `memx mcp` whose search_memory answers with its first search's result, every time
FIXED_RESULT = """
import sys
from memx_cli.agents import mcp_server
real, first = mcp_server.MemoryService.search, []
def fixed(self, *args):
    if not first:
        first.append(real(self, *args))
    return first[0]
mcp_server.MemoryService.search = fixed
from memx_cli.cli import main
main(["mcp"])
"""
REPLY_TIMEOUT = 120.0  # seconds: the first search opens the store


class McpClient:
    """One `memx mcp` process spoken to as an agent does: JSON-RPC lines on its stdin,
    replies read from its stdout."""

    def __init__(self, memx: Path, root: Path, fixed: bool = False):
        command = ([str(memx.with_name("python")), "-c", FIXED_RESULT] if fixed
                   else [str(memx), "mcp"])
        self.proc = subprocess.Popen(command, cwd=root, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._buffer = b""
        self._next = 0
        self.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "bench", "version": "1"}})
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def search(self, query: str) -> tuple[float, float, float]:
        """Milliseconds from sending one search_memory call to reading its reply, and the
        server's CPU time and run-queue wait meanwhile (all its threads; 0 where the
        kernel does not keep them)."""
        cpu, queued = self.scheduled()
        start = time.perf_counter()
        reply = self.ask("tools/call", {"name": "search_memory",
                                        "arguments": {"query": query, "mode": "hybrid"}})
        elapsed = (time.perf_counter() - start) * 1000
        if "result" not in reply or reply["result"].get("isError"):
            raise RuntimeError(f"search_memory {query!r} failed: {reply}")
        cpu_after, queued_after = self.scheduled()
        return elapsed, (cpu_after - cpu) / 1e6, (queued_after - queued) / 1e6

    def scheduled(self) -> tuple[int, int]:
        """Nanoseconds on a CPU and waiting for one, summed over the server's threads
        (/proc/PID/task/*/schedstat)."""
        cpu = queued = 0
        tasks = Path(f"/proc/{self.proc.pid}/task")
        try:
            names = os.listdir(tasks)
        except OSError:
            return 0, 0
        for name in names:
            try:
                fields = (tasks / name / "schedstat").read_text().split()
            except OSError:  # a thread that ended meanwhile
                continue
            cpu += int(fields[0])
            queued += int(fields[1])
        return cpu, queued

    def ask(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next += 1
        self._send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        deadline = time.monotonic() + REPLY_TIMEOUT
        while True:
            line, newline, rest = self._buffer.partition(b"\n")
            if newline:
                self._buffer = rest
                message: dict[str, Any] = json.loads(line)
                if message.get("id") == self._next:
                    return message
                continue
            assert self.proc.stdout is not None
            ready, _, _ = select.select([self.proc.stdout], [], [],
                                        max(0.0, deadline - time.monotonic()))
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16) if ready else b""
            if not chunk:
                raise RuntimeError(f"memx mcp gave no reply to {method}")
            self._buffer += chunk

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def mcp_paced(memx: Path, root: Path, texts: list[str], fixed: bool = False
              ) -> list[tuple[float, float, float]]:
    client = McpClient(memx, root, fixed)
    try:
        client.search("warm up")
        times = []
        for text in texts:
            time.sleep(PACE_SECONDS)
            times.append(client.search(text))
        return times
    finally:
        client.close()


def figures(size: int, tmp: Path, bins: dict[str, Path], runs: int
            ) -> dict[str, dict[str, float]]:
    import statistics

    roots = store_copies(size, tmp, bins, random.Random(SEED + size))
    for name in bins:
        run_child([str(bins[name] / "memx"), "reindex", "--full"], roots[name])
    texts = queries(random.Random(SEED - size), runs * QUERIES)
    out: dict[str, dict[str, list[float]]] = {
        name: {MCP_ROW: [], CPU_ROW: [], QUEUE_ROW: [], FLOOR_ROW: [], LAYER_ROW: [],
               LAYER_CPU_ROW: []} for name in bins}
    for i in range(runs):
        asked = texts[i * QUERIES:(i + 1) * QUERIES]
        for name in list(bins) if i % 2 == 0 else list(reversed(bins)):
            for wall, cpu, queued in mcp_paced(bins[name] / "memx", roots[name], asked):
                out[name][MCP_ROW].append(wall)
                out[name][CPU_ROW].append(cpu)
                out[name][QUEUE_ROW].append(queued)
            out[name][FLOOR_ROW] += paced_child(bins[name], roots[name], asked)
            for wall, cpu, _ in mcp_paced(bins[name] / "memx", roots[name], asked, fixed=True):
                out[name][LAYER_ROW].append(wall)
                out[name][LAYER_CPU_ROW].append(cpu)
    return {name: {row: statistics.median(values) for row, values in rows.items()}
            for name, rows in out.items()}


if __name__ == "__main__":
    sys.exit(paired_main(sys.argv[1:], __doc__, figures, runs=4))
