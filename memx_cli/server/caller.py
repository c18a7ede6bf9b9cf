"""One forwarded command run as its caller (issue 15): the caller's environment, working
directory, umask and output encodings for the length of one request, and the
acceptance step of a write (protocol.py: ``ready``, then the client's ``go``)."""

from __future__ import annotations

import contextlib
import io
import os
import socket
import sys
from collections.abc import Iterator
from typing import Any

from memx_cli.server.protocol import ProtocolError, recv_json, send_json

REQUEST_READ_SECONDS = 5.0


def confirmed(conn: socket.socket, request_id: str) -> bool:
    """Tell the client a write is ready to run and wait for its ``go`` (protocol.py).
    A client that timed out meanwhile has run it itself, or will: then never run it."""
    try:
        send_json(conn, {"status": "ready", "id": request_id})
        conn.settimeout(REQUEST_READ_SECONDS)
        answer = recv_json(conn)
    except (OSError, ProtocolError):
        return False
    return answer.get("op") == "go" and answer.get("id") == request_id


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
