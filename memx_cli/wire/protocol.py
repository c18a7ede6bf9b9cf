"""The server's wire format (issue 15): length-prefixed frames over a Unix socket.

A frame is a 4-byte big-endian length and that many bytes. A request is one frame of
UTF-8 JSON ``{"proto", "version", "op", ...}``. A reply is a JSON header frame
``{"status": ...}``; a ``run`` reply that succeeded adds two raw frames, the command's
standard output and standard error, as bytes. A server answers a request of another
protocol or memx version with ``{"status": "version"}`` and nothing else: the client
then runs the command itself.

A write (``"write": true``, with a request ``id`` and the caller's ``umask``) takes one
more exchange before it runs: the server answers ``{"status": "ready", "id"}``, the
client sends ``{"op": "go", "id"}``, and only then does the server run it and send the
usual ``ok`` reply. A server that gets no ``go`` never runs it; a client that sent ``go``
never runs it again.

A client that got no reply to a write it said ``go`` to asks, on a new connection,
``{"op": "outcome", "id"}``. The server keeps the outcomes of its recent writes in
memory and answers as for the run (``ok``, then standard output and error), or
``{"status": "running"}``, or ``{"status": "unknown"}`` (an id it does not hold: another
server, or a write too long ago). It answers one request at a time, so a question about
a write still running is answered when that write ends.

Imported by the thin client: ``json`` and ``socket`` only.
"""

from __future__ import annotations

import json
import socket
from typing import Any

PROTOCOL = 3  # 2: writes (ready / go); 3: outcome
MAX_FRAME = 64 * 1024 * 1024


class ProtocolError(OSError):
    """The peer closed the connection or sent something that is not a frame."""


def send_frames(sock: socket.socket, *frames: bytes) -> None:
    sock.sendall(b"".join(len(f).to_bytes(4, "big") + f for f in frames))


def send_json(sock: socket.socket, payload: dict[str, Any], *extra: bytes) -> None:
    send_frames(sock, json.dumps(payload, ensure_ascii=False).encode("utf-8"), *extra)


def _read_exact(sock: socket.socket, size: int) -> bytes:
    chunks = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise ProtocolError("connection closed in the middle of a frame")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def recv_frame(sock: socket.socket) -> bytes:
    size = int.from_bytes(_read_exact(sock, 4), "big")
    if size > MAX_FRAME:
        raise ProtocolError(f"frame of {size} bytes is too large")
    return _read_exact(sock, size)


def recv_json(sock: socket.socket) -> dict[str, Any]:
    try:
        value = json.loads(recv_frame(sock))
    except (UnicodeDecodeError, ValueError):
        raise ProtocolError("frame is not JSON") from None
    if not isinstance(value, dict):
        raise ProtocolError("frame is not a JSON object")
    return value
