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

Imported by the thin client, which pays for every import at each command: ``time`` only.
It writes its request with ``plain_json`` and reads the usual replies with
``read_reply``, which knows the two headers a server sends most (``ok`` with an exit
code, ``ready`` with an id) byte for byte and parses any other with ``json`` (and the
nesting check's ``re``), imported then (issue 29: ``re``, ``json``, ``typing`` and
``socket`` were a fifth of a forwarded command's time).
"""

from __future__ import annotations

import time

TYPE_CHECKING = False  # typing's own: importing typing costs the thin client ~1 ms
if TYPE_CHECKING:
    from _socket import socket  # the base of socket.socket, and what the thin client uses
    from typing import Any

PROTOCOL = 3  # 2: writes (ready / go); 3: outcome
MAX_FRAME = 64 * 1024 * 1024  # a reply: a command's standard output
# A request is argv and the environment, which the kernel bounds to ARG_MAX (2 MiB with
# the usual 8 MiB stack): a larger request frame is refused before it is read (issue 26:
# a 66 MB frame wedged the server for 37 minutes), and so is a request nested deeper than
# a request ever is (a 5,000-deep one ended the server).
MAX_REQUEST = 4 * 1024 * 1024
MAX_DEPTH = 16


class ProtocolError(OSError):
    """The peer closed the connection or sent something that is not a frame."""


def send_frames(sock: socket, *frames: bytes) -> None:
    sock.sendall(b"".join(len(f).to_bytes(4, "big") + f for f in frames))


def send_json(sock: socket, payload: dict[str, Any], *extra: bytes) -> None:
    import json

    send_frames(sock, json.dumps(payload, ensure_ascii=False).encode("utf-8"), *extra)


# JSON's escapes inside a string: the quote, the backslash and the control characters
_ESCAPES = {i: f"\\u{i:04x}" for i in range(32)} | {ord('"'): '\\"', ord("\\"): "\\\\"}


def plain_json(value: object) -> str:
    """``value`` (strings, integers, booleans, None, and lists and string-keyed dicts of
    them: what a request holds) as JSON text, as ``json.loads`` reads it back; other
    types are a TypeError. Non-ASCII characters are written as they are."""
    if isinstance(value, str):
        return '"' + value.translate(_ESCAPES) + '"'
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(plain_json(item) for item in value) + "]"
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise TypeError("a JSON object's keys are strings")
        return "{" + ", ".join(plain_json(key) + ": " + plain_json(item)
                               for key, item in value.items()) + "}"
    raise TypeError(f"{type(value).__name__} is not written as JSON here")


def _read_exact(sock: socket, size: int, deadline: float | None) -> bytes:
    chunks = []
    while size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProtocolError("the frame did not arrive in time")
            sock.settimeout(left)
        try:
            chunk = sock.recv(min(size, 1 << 20))
        except TimeoutError:
            if deadline is None:
                raise  # the caller's own timeout, which it tells apart
            raise ProtocolError("the frame did not arrive in time") from None
        if not chunk:
            raise ProtocolError("connection closed in the middle of a frame")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def recv_frame(sock: socket, limit: int = MAX_FRAME,
               deadline: float | None = None) -> bytes:
    """One frame; over ``limit`` bytes it is refused from its length, before any of it is
    read; ``deadline`` (``time.monotonic()``) bounds the whole frame, not each read."""
    size = int.from_bytes(_read_exact(sock, 4, deadline), "big")
    if size > limit:
        raise ProtocolError(f"frame of {size} bytes is over the limit of {limit}")
    return _read_exact(sock, size, deadline)


def recv_json(sock: socket, limit: int = MAX_FRAME,
              deadline: float | None = None) -> dict[str, Any]:
    return _parsed(recv_frame(sock, limit, deadline))


_OK = b'{"status": "ok", "code": '
_READY = b'{"status": "ready", "id": "'
_HEX = frozenset(b"0123456789abcdef")


def read_reply(sock: socket) -> dict[str, Any]:
    """A reply header, as ``recv_json`` reads it; the two a server sends most, exactly as
    ``send_json`` writes them, without importing ``json``."""
    data = recv_frame(sock)
    if data.startswith(_OK) and data.endswith(b"}"):
        code = data[len(_OK):-1]
        digits = code[1:] if code.startswith(b"-") else code
        # json.dumps's integers: no sign but "-", no leading zero, no blank
        if (digits.isdigit() and len(digits) <= 9
                and (digits == b"0" or not digits.startswith(b"0"))):
            return {"status": "ok", "code": int(code)}
    if data.startswith(_READY) and data.endswith(b'"}'):
        ident = data[len(_READY):-2]
        if 0 < len(ident) <= 64 and set(ident) <= _HEX:
            return {"status": "ready", "id": ident.decode("ascii")}
    return _parsed(data)


def _parsed(data: bytes) -> dict[str, Any]:
    """One JSON object frame, refused when nested too deep, not JSON or not an object."""
    import json

    if _nesting(data) > MAX_DEPTH:
        raise ProtocolError(f"frame nested more than {MAX_DEPTH} levels deep")
    try:
        value = json.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ProtocolError("frame is not JSON") from None
    if not isinstance(value, dict):
        raise ProtocolError("frame is not a JSON object")
    return value


_TOKEN = rb'"(?:[^"\\]+|\\.)*"?|[\[{]|[\]}]'


def _nesting(data: bytes) -> int:
    """The deepest bracket nesting of JSON text, strings left out (an upper bound on
    malformed text, which the parser refuses anyway)."""
    import re

    depth = deepest = 0
    # strings first, so a bracket inside one does not count; a quote escaped inside a
    # string is consumed by the string pattern
    for token in re.finditer(_TOKEN, data, re.S):
        text = token.group()
        if text in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif text in (b"]", b"}"):
            depth -= 1
    return deepest
