"""Custom patterns run where they can be stopped, on any thread (trust19).

A custom pattern (``ace.reflector.custom_patterns``) comes from a config file anyone who
can push writes. Python's ``re`` cannot be told to give up, and a pattern whose
alternatives or repeats match the same text in many ways ((a|a)+$, \\w+\\w+$, (a?a)+$)
runs for minutes or for good on one long word; no list of shapes finds them all. On the
main thread a timer interrupts it (``sanitizer._timer``). Elsewhere — ``memx mcp``'s
tools run on worker threads, and so may a program using the library — no signal arrives,
so the pattern runs in a child process of this interpreter that is killed when it runs over its time:
``spans`` sends the pattern and the text and waits up to the budget for the matches.

One child serves a process (started on first use, ~20 ms, then ~0.1 ms a call); a call
over the budget kills it and the next call starts another. It imports only ``re`` and
``json`` and reads nothing but what it is sent.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import sys
import threading
import time

# The child: one request a line ({"p": PATTERN, "t": TEXT, "g": GROUP}), one answer a
# line: each match's span and its group's span, as finditer (and so re.sub) finds them.
_CHILD = """
import json, re, sys
sys.stdout.write("ready\\n")
sys.stdout.flush()
for line in sys.stdin:
    ask = json.loads(line)
    rx, g = re.compile(ask["p"]), ask["g"]
    out = [[*m.span(), *m.span(g if g > 0 else (m.lastindex or 0))]
           for m in rx.finditer(ask["t"])]
    sys.stdout.write(json.dumps(out) + "\\n")
    sys.stdout.flush()
"""


START_SECONDS = 30.0  # for the child to start on a busy machine


class TimeUp(Exception):
    """The pattern ran over its time; the child that ran it is gone."""


class RunnerError(Exception):
    """The child could not be started or ended without an answer."""


class _Runner:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None

    def _child(self) -> subprocess.Popen[bytes]:
        """The running child; a new one has said it is ready (its start is not the
        pattern's time)."""
        if self._proc is None or self._proc.poll() is not None:
            self.stop()
            try:  # -I: no user site, no PYTHON* variables; -S: no site at all
                self._proc = subprocess.Popen(
                    [sys.executable, "-I", "-S", "-c", _CHILD], stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            except OSError as exc:
                raise RunnerError(f"cannot start {sys.executable} ({exc.strerror})") from None
            try:
                self._line(self._proc, time.monotonic() + START_SECONDS)
            except TimeUp:
                raise RunnerError("the pattern's process did not start") from None
        return self._proc

    def _line(self, proc: subprocess.Popen[bytes], deadline: float) -> bytes:
        """The child's next line, read by ``deadline`` (else the child is stopped)."""
        assert proc.stdout is not None
        fd, line = proc.stdout.fileno(), bytearray()
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.stop()
                raise TimeUp
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self.stop()
                raise RunnerError("the pattern's process ended without an answer")
            line += chunk
        return bytes(line)

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    pipe.close()

    def spans(self, pattern: str, group: int, text: str,
              seconds: float) -> list[tuple[int, int, int, int]]:
        """Each match of ``pattern`` in ``text``: (start, end, group start, group end);
        TimeUp when the answer takes over ``seconds``."""
        ask = (json.dumps({"p": pattern, "t": text, "g": group}) + "\n").encode("utf-8")
        with self._lock:
            proc = self._child()
            deadline = time.monotonic() + seconds
            assert proc.stdin is not None
            try:
                proc.stdin.write(ask)
                proc.stdin.flush()
                answer = self._line(proc, deadline)
            except OSError:
                self.stop()
                raise RunnerError("the pattern's process ended") from None
            except BaseException:  # an interrupt: its answer would be the next call's
                self.stop()
                raise
        return [(a, b, c, d) for a, b, c, d in json.loads(answer)]


RUNNER = _Runner()
atexit.register(RUNNER.stop)
