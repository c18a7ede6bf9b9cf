"""One forwarded command run as its caller (issue 15): the caller's environment, working
directory, umask and output encodings for the length of one request, the acceptance
step of a write (protocol.py: ``ready``, then the client's ``go``), and what became of
the recent writes, for a client that got no answer (``outcome``)."""

from __future__ import annotations

import contextlib
import io
import os
import socket
import sys
import time
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from memx_cli.wire.protocol import MAX_REQUEST, ProtocolError, recv_json, send_json

REQUEST_READ_SECONDS = 5.0
# Outcomes of accepted writes kept for clients that ask after losing the answer (a
# client asks within seconds or minutes; the output of a write is a few lines).
KEPT_OUTCOMES = 64


def read_request(conn: socket.socket) -> dict[str, Any]:
    """One request, bounded (issue 26): refused from its length over MAX_REQUEST, nested
    too deep, or not whole within REQUEST_READ_SECONDS however slowly it trickles in. A
    bad one gets a one-line error (the client runs the command itself): ProtocolError."""
    try:
        conn.settimeout(REQUEST_READ_SECONDS)
        return recv_json(conn, MAX_REQUEST, time.monotonic() + REQUEST_READ_SECONDS)
    except (OSError, ProtocolError) as exc:
        with contextlib.suppress(OSError):
            conn.settimeout(0.5)
            send_json(conn, {"status": "error", "message": f"bad request: {exc}"})
        raise ProtocolError(str(exc)) from None


def confirmed(conn: socket.socket, request_id: str) -> bool:
    """Tell the client a write is ready to run and wait for its ``go`` (protocol.py).
    A client that timed out meanwhile has run it itself, or will: then never run it."""
    try:
        send_json(conn, {"status": "ready", "id": request_id})
        conn.settimeout(REQUEST_READ_SECONDS)
        answer = recv_json(conn, MAX_REQUEST, time.monotonic() + REQUEST_READ_SECONDS)
    except (OSError, ProtocolError):
        return False
    return answer.get("op") == "go" and answer.get("id") == request_id


class Outcomes:
    """What became of the last KEPT_OUTCOMES accepted writes, by request id, in memory:
    running (None) or finished (exit code, stdout, stderr)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[str, tuple[int, bytes, bytes] | None] = OrderedDict()

    def running(self, request_id: str) -> None:
        self._kept[request_id] = None
        while len(self._kept) > KEPT_OUTCOMES:
            self._kept.popitem(last=False)

    def finished(self, request_id: str, code: int, out: bytes, err: bytes) -> None:
        if request_id in self._kept:
            self._kept[request_id] = (code, out, err)

    def reply(self, request_id: str) -> tuple[dict[str, Any], tuple[bytes, ...]]:
        """The answer to ``{"op": "outcome", "id"}`` (protocol.py): header and frames."""
        if request_id not in self._kept:
            return {"status": "unknown"}, ()
        done = self._kept[request_id]
        if done is None:
            return {"status": "running"}, ()
        return {"status": "ok", "code": done[0]}, done[1:]


@contextlib.contextmanager
def as_caller(env: dict[str, str], cwd: str | None = None,
               mask: int | None = None) -> Iterator[None]:
    """The caller's environment, working directory and (for a write, whose files are
    the caller's) umask for one request (one request at a time, see above)."""
    saved = dict(os.environ)
    _switch(saved, env)
    try:
        home = os.getcwd()
    except OSError:
        home = "/"
    old_mask = os.umask(mask) if mask is not None else None
    if cwd is not None:
        with contextlib.suppress(OSError):
            os.chdir(cwd)  # a cwd that is gone: the command's -C says so
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.chdir(home)
        if old_mask is not None:
            os.umask(old_mask)
        _switch(dict(os.environ), saved)


def _switch(current: dict[str, str], wanted: dict[str, str]) -> None:
    """Make os.environ ``wanted``, touching only what differs (each change is a
    setenv/unsetenv call)."""
    for key in current.keys() - wanted.keys():
        del os.environ[key]
    for key, value in wanted.items():
        if current.get(key) != value:
            os.environ[key] = value


@contextlib.contextmanager
def captured(streams: dict[str, Any]) -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    """stdout and stderr as the caller's encodings would write them; stdin empty."""
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdin, sys.stdout, sys.stderr

    def text(buffer: io.BytesIO, name: str) -> io.TextIOWrapper:
        encoding = str(streams.get(f"{name}_encoding") or "utf-8")
        errors = str(streams.get(f"{name}_errors") or "strict")
        return io.TextIOWrapper(buffer, encoding=encoding, errors=errors, write_through=True)

    sys.stdin = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    sys.stdout, sys.stderr = text(out, "stdout"), text(err, "stderr")
    try:
        yield out, err
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(ValueError):
                stream.flush()
        sys.stdin, sys.stdout, sys.stderr = saved


def same_user(conn: socket.socket) -> bool:
    """The peer's uid (Linux SO_PEERCRED); elsewhere the socket's 0600 mode decides."""
    import struct

    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    raw = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    _, uid, _ = struct.unpack("3i", raw)
    return bool(uid == os.getuid())
