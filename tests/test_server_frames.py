"""Hostile socket frames (issue 26): a frame over the limit is refused before it is read,
a deeply nested one is refused without ending the server, a request that does not
arrive in time is abandoned, SIGTERM stops the server while it waits on any of them, and
the frame reader answers any bytes with a frame or a ProtocolError."""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import socket
import struct
import termios
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memx_cli.wire.protocol import (
    MAX_REQUEST,
    ProtocolError,
    plain_json,
    read_reply,
    recv_json,
    send_frames,
    send_json,
)

from .test_server import served, status  # noqa: F401 - a fixture


def _connect() -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(status()["socket"])
    return sock


def _reply(sock: socket.socket) -> dict[str, object]:
    return recv_json(sock)


def _wait_until_read(sock: socket.socket, timeout: float = 30) -> None:
    """Until the server has read every byte sent so far (Linux: nothing left in this
    socket's send queue); the deadline only bounds a hang."""
    deadline = time.monotonic() + timeout
    while struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0]:
        assert time.monotonic() < deadline, "the server never read the request"
        time.sleep(0.01)


def _still_serving(pid: int) -> None:
    info = status()  # memx server status asks the server itself
    assert info["running"] and info["pid"] == pid


def test_a_deeply_nested_frame_is_refused_and_the_server_lives(
        served: Path,  # noqa: F811
) -> None:
    pid = status()["pid"]
    sock = _connect()
    send_frames(sock, b"[" * 5000 + b"]" * 5000)
    assert _reply(sock) == {"status": "error", "message": "bad request: frame nested more "
                                                          "than 16 levels deep"}
    _still_serving(pid)


def test_a_frame_over_the_limit_is_refused_before_it_is_read(
        served: Path,  # noqa: F811
) -> None:
    pid = status()["pid"]
    sock = _connect()
    size = 66_000_000
    sock.sendall(size.to_bytes(4, "big") + b"{" * 1000)  # the rest never comes
    assert _reply(sock) == {"status": "error", "message": f"bad request: frame of {size} "
                                                          f"bytes is over the limit of "
                                                          f"{MAX_REQUEST}"}
    # (read first, it would have waited for the rest and said it did not arrive in time)
    _still_serving(pid)


def test_a_request_that_never_arrives_whole_is_abandoned(
        served: Path,  # noqa: F811
) -> None:
    """A trickle of bytes does not keep it waiting: the client goes on sending a byte a
    second (the scenario's own pace) and the server gives up while the frame is still
    incomplete (were each byte to extend its wait, the frame would end whole, 93 s
    later, and be refused as JSON instead)."""
    pid = status()["pid"]
    sock = _connect()
    head = b'{"op": '
    sock.sendall((100).to_bytes(4, "big") + head)
    sent = len(head)
    while not select.select([sock], [], [], 1.0)[0]:  # no reply yet: one more byte
        assert sent < 100, "the whole frame was sent and no reply came"
        sock.sendall(b" ")
        sent += 1
    assert sent < 100  # the reply came while the frame was incomplete
    assert _reply(sock) == {"status": "error", "message": "bad request: the frame did not "
                                                          "arrive in time"}
    _still_serving(pid)


def test_sigterm_stops_a_server_reading_a_huge_request(
        served: Path,  # noqa: F811
) -> None:
    pid = status()["pid"]
    sock = _connect()
    sock.sendall((MAX_REQUEST - 1).to_bytes(4, "big") + b"[" * 1000)
    _wait_until_read(sock)  # the server is inside the frame now
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 60  # bounds a hang only
    while not _reaped(pid):
        assert time.monotonic() < deadline, "the server did not stop on SIGTERM"
        time.sleep(0.05)
    assert not Path(status()["socket"]).exists()
    # it stopped inside the frame: the connection closes with no reply (a server that
    # finished the frame's wait first would have answered "did not arrive in time")
    sock.settimeout(60)
    try:
        assert sock.recv(1) == b""
    except ConnectionResetError:
        pass


def _reaped(pid: int) -> bool:
    """The process has exited: gone, or not reaped yet (its parent may be slow to)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


# 300 frames a CI run; MEMX_FRAME_EXAMPLES=10000 MEMX_FUZZ_RANDOM=1 for a long, random run.
@settings(max_examples=int(os.environ.get("MEMX_FRAME_EXAMPLES", "300")), deadline=None,
          derandomize=not os.environ.get("MEMX_FUZZ_RANDOM"))
@given(st.one_of(
    st.binary(max_size=300),
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                 lambda inner: st.lists(inner, max_size=3)
                 | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                 max_leaves=40).map(lambda v: json.dumps(v).encode()),
    st.integers(1, 4000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(1, 4000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
), st.integers(0, 8), st.booleans())
def test_the_frame_reader_answers_any_bytes(data: bytes, cut: int, lie: bool) -> None:
    """A frame, or ProtocolError: never another exception, never a wait past its deadline
    (the peer may close early, send less than it says, or claim more than the limit)."""
    a, b = socket.socketpair()
    try:
        size = len(data) + (cut if lie else 0)
        a.sendall(size.to_bytes(4, "big") + data)
        a.shutdown(socket.SHUT_WR)
        try:
            # every byte is there and the peer has closed: the reader never needs its
            # deadline (60 s bounds a hang), so it may never say it ran out of time
            value = recv_json(b, MAX_REQUEST, time.monotonic() + 60)
        except ProtocolError as exc:
            assert "in time" not in str(exc)
            return
        assert isinstance(value, dict)
        assert value == json.loads(data)
    finally:
        a.close()
        b.close()


_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                       max_leaves=30)


@given(_VALUES)
def test_the_thin_clients_json_reads_back_as_written(value: object) -> None:
    """Issue 29: the thin client writes its request without the json module; the
    server's json reads back the same value (control characters, quotes, backslashes
    and any other character included)."""
    text = plain_json(value)
    assert json.loads(text) == value


def test_the_thin_clients_json_refuses_what_a_request_never_holds() -> None:
    for value in (1.5, b"x", {1: "a"}, {"a": object()}):
        with pytest.raises(TypeError):
            plain_json(value)


@given(st.one_of(
    st.builds(lambda code: {"status": "ok", "code": code}, st.integers(-2**40, 2**40)),
    st.builds(lambda ident: {"status": "ready", "id": ident},
              st.text("0123456789abcdefABCDEF-x", max_size=70)),
    st.dictionaries(st.sampled_from(["status", "code", "id", "version", "pid"]),
                    st.one_of(st.integers(), st.text(max_size=5), st.none()), max_size=4),
))
def test_a_reply_header_reads_as_json_reads_it(header: dict[str, object]) -> None:
    """The thin client reads the usual headers without the json module, and any other
    header with it: the same dict as recv_json gives, whatever the server sent."""
    a, b = socket.socketpair()
    try:
        send_json(a, header)
        send_json(a, header)
        assert read_reply(b) == recv_json(b) == header
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("data", [b'{"status": "ok", "code": 007}', b'{"status": "ok", "code": }',
                                  b'{"status": "ok", "code": 1', b'{"status": "ready", "id": "a"',
                                  b'[{"status": "ok", "code": 0}]', b"{" * 100 + b"}" * 100])
def test_a_malformed_reply_header_is_a_protocol_error(data: bytes) -> None:
    a, b = socket.socketpair()
    try:
        send_frames(a, data)
        with pytest.raises(ProtocolError):
            read_reply(b)
    finally:
        a.close()
        b.close()
