"""The wire of `memx mcp`: its stdin and stdout read and written on the event loop.

The SDK's own stdio transport hands every line read, every reply written and every flush
to a worker thread (``anyio.wrap_file``): three thread hand-offs a call, each a wake-up
that waits for a free core on a busy machine (issue 29: 8.5 ms a search at an agent's
pace against 4.2 ms in process). Here a pipe, a socket or a terminal is polled by the
loop itself and read or written only when ready, so a call costs no thread; any other
stdin or stdout (a regular file; a terminal outside Linux) keeps the SDK's threads
(``wire_streams`` says which).

Both ends are private duplicates: fd 0 then points at the null device and fd 1 at
stderr, as the SDK does with the streams it opens itself, so a child process (git)
never eats a request nor writes into a reply.
"""

from __future__ import annotations

import io
import json
import os
import stat
import sys
from collections.abc import Callable
from typing import Any

import anyio

from memx_cli.textproc import clean_text

# A request line longer than this is dropped (it can hold no valid call: a tool's longest
# text is 100,000 characters, under 600 KB even written as \\u escapes): the SDK then
# gets a line it cannot parse in its place, as for any malformed message.
MAX_LINE = 4 << 20
DROPPED = "(a request line over 4 MiB was dropped)\n"
# What one os.write may send to a pipe the loop found writable without blocking.
PIPE_CHUNK = 4096
READ_CHUNK = 1 << 16


def wire_streams() -> tuple[Any, Any]:
    """The (stdin, stdout) to give the SDK's ``stdio_server``: loop-polled ends where fd 0
    and fd 1 allow it (POSIX: pipe, socket or terminal), else ``None`` for stdout (the
    SDK then claims fd 1 itself) and a thread-read stdin."""
    stdin: Any = None
    stdout: Any = None
    try:
        wire_in = os.dup(0)
        _divert(0, os.open(os.devnull, os.O_RDONLY))
    except OSError:
        return anyio.wrap_file(CleanLines(sys.stdin.buffer)), None
    if _pollable(wire_in):
        stdin = LoopLines(wire_in)
    else:
        stdin = anyio.wrap_file(CleanLines(os.fdopen(wire_in, "rb")))
    if _pollable(1):
        try:
            wire_out = os.dup(1)
            _divert(1, os.dup(2))
            stdout = LoopWriter(wire_out)
        except OSError:
            stdout = None
    return stdin, stdout


def _divert(fd: int, replacement: int) -> None:
    os.dup2(replacement, fd)
    os.close(replacement)


def _pollable(fd: int) -> bool:
    """Whether the event loop can wait on ``fd`` (epoll refuses a regular file)."""
    if os.name != "posix":
        return False
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    # (a terminal only on Linux: macOS's kqueue cannot wait on every character device)
    return (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
            or (stat.S_ISCHR(mode) and sys.platform.startswith("linux")))


class LoopLines:
    """The request lines of a pollable stdin, read when the loop finds it readable (a
    blocking read then returns at once with what is there). UTF-8 with undecodable
    bytes as U+FFFD, and lone surrogates cleaned (``clean_line``)."""

    def __init__(self, fd: int):
        self.fd = fd
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer known to hold no newline
        self._dropping = False  # inside an over-long line: skip to its newline
        self._eof = False

    def __aiter__(self) -> LoopLines:
        return self

    async def __anext__(self) -> str:
        while True:
            cut = self._buffer.find(b"\n", self._scanned)
            if cut >= 0:
                line = bytes(self._buffer[:cut + 1])
                del self._buffer[:cut + 1]
                self._scanned = 0
                if self._dropping or len(line) > MAX_LINE:
                    self._dropping = False
                    return DROPPED
                return clean_line(line.decode("utf-8", errors="replace"))
            self._scanned = len(self._buffer)
            if len(self._buffer) > MAX_LINE:  # read on to its end, keeping none of it
                self._buffer.clear()
                self._scanned = 0
                self._dropping = True
            if self._eof:
                if not self._buffer or self._dropping:
                    raise StopAsyncIteration
                rest = bytes(self._buffer)
                self._buffer.clear()
                return clean_line(rest.decode("utf-8", errors="replace"))
            await anyio.wait_readable(self.fd)
            try:
                chunk = os.read(self.fd, READ_CHUNK)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True


class LoopWriter:
    """A pollable stdout written on the loop: at most a pipe's atomic chunk per wait, so
    a write never blocks the loop; a client that stops reading only holds up replies."""

    def __init__(self, fd: int):
        self.fd = fd

    async def write(self, text: str) -> int:
        data = memoryview(text.encode("utf-8"))
        while data:
            await anyio.wait_writable(self.fd)
            try:
                sent = os.write(self.fd, data[:PIPE_CHUNK])
            except InterruptedError:
                continue
            data = data[sent:]
        return len(text)

    async def flush(self) -> None:
        """Nothing is buffered."""


class Answered:
    """A stdout that calls ``then`` once each message written to it is flushed, which the
    SDK's writer does after every message: what must wait for the reply to be out (the
    full check a trusted first open put off, issue 29) begins there."""

    def __init__(self, stdout: Any, then: Callable[[], None]):
        self.stdout = stdout
        self.then = then

    async def write(self, text: str) -> int:
        written: int = await self.stdout.write(text)
        return written

    async def flush(self) -> None:
        await self.stdout.flush()
        self.then()


class CleanLines(io.TextIOWrapper):
    """stdin as UTF-8 lines read by the SDK's threads (a stdin the loop cannot poll)."""

    def __init__(self, buffer: Any):
        super().__init__(buffer, encoding="utf-8", errors="replace")

    def readline(self, size: int = -1, /) -> str:  # type: ignore[override]
        return clean_line(super().readline(size))


def clean_line(line: str) -> str:
    """A JSON ``\\ud800`` (a lone surrogate) made U+FFFD: the SDK's parser refuses the
    whole message, and a message it cannot parse gets no reply at all (issue 14)."""
    if "\\ud" not in line.lower():
        return line
    try:
        data = json.loads(line)
    except ValueError:
        return line
    return json.dumps(_clean(data), ensure_ascii=False) + "\n"


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    return value
