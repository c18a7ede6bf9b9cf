"""Talking to the memx server from a full memx process: start it detached, ask its
status, stop it (`memx server`, `memx doctor`, the thin client's fallback)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from memx_cli.wire import paths
from memx_cli.wire.build import identity
from memx_cli.wire.protocol import PROTOCOL, ProtocolError, recv_json, send_json

CONTROL_TIMEOUT = 2.0


def request(op: str, timeout: float = CONTROL_TIMEOUT) -> dict[str, Any]:
    """One control request; the reply, or ``{"status": "absent" | "unsafe" | "stale" |
    "unreachable", "reason": ...}`` when there is no server to answer."""
    try:
        path = paths.socket_path()
        paths.check_socket(path)
    except paths.UnsafePathError as exc:
        return {"status": "unsafe", "reason": str(exc)}
    except FileNotFoundError:
        return {"status": "absent", "reason": "the next command that uses it starts one"}
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
        send_json(sock, {"proto": PROTOCOL, "version": identity(), "op": op})
        return recv_json(sock)
    except (ConnectionRefusedError, FileNotFoundError):
        return {"status": "stale", "reason": f"{path} has no server behind it"}
    except (OSError, ProtocolError) as exc:
        return {"status": "unreachable", "reason": f"no answer from the server ({exc})"}
    finally:
        sock.close()


def status() -> dict[str, Any]:
    """``{"running": bool, "socket": path or None, ...}`` for `memx server status`."""
    try:
        where: str | None = os.path.join(paths.server_dir(), paths.SOCKET_NAME)
    except OSError:
        where = None
    reply = request("status")
    state = reply.pop("status")
    info: dict[str, Any] = {"running": state in ("ok", "version"), "socket": where,
                            "log": paths.log_path()}
    if state == "version":
        info["problem"] = (f"a server of memx {reply.get('version')} is running (this is "
                           f"{identity()}): not used; `memx server stop` ends it")
    elif state != "ok":
        info["problem" if state in ("unsafe", "unreachable") else "note"] = reply["reason"]
    info.update({k: v for k, v in reply.items() if k != "reason"})
    return info


def stop(wait: float = 3.0) -> bool:
    """Ask the server to end; True once it is gone (False: none was running)."""
    reply = request("stop")
    if reply["status"] not in ("ok", "version"):
        return False
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and request("status")["status"] in ("ok", "version"):
        time.sleep(0.05)
    return True


def start(wait: float = 0.0) -> dict[str, Any]:
    """Start a detached server (new session, own process group, stdio to the log)
    unless one answers; with ``wait``, until it answers. Returns its status."""
    current = status()
    if current["running"]:
        return current
    spawn()
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        current = status()
        if current["running"]:
            break
        time.sleep(0.05)
    return current


def spawn(repository: str | None = None, lock: int | None = None) -> None:
    """Start the server detached. ``repository``: the one whose store it opens as soon
    as it has bound and this process has ended (issue 29); ``lock``: the spawn lock,
    which the server inherits and lets go once it has bound."""
    log = Path(paths.log_path())
    log.parent.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "memx_cli.server"]
    if repository is not None:
        argv += ["--repository", repository, "--after", str(os.getpid())]
    if lock is not None:
        argv += ["--spawn-lock", str(lock)]
    with open(log, "ab") as out:
        with contextlib.suppress(OSError):
            os.chmod(log, 0o600)
        subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out, cwd="/",
                         start_new_session=True, close_fds=True,
                         pass_fds=() if lock is None else (lock,))


def wanted(cwd: Path) -> bool:
    """May the thin client start a server for a command in ``cwd``? Not outside a
    repository, not with MEMX_NO_SERVER, nor when ``server.enabled`` is false there."""
    from memx_cli.errors import MemxError
    from memx_cli.store.repo import Repo

    try:
        Repo.discover(cwd)
    except MemxError:
        return False
    return disabled(cwd) is None


def disabled(cwd: Path) -> str | None:
    """Why no server is used for commands in ``cwd`` (MEMX_NO_SERVER, or
    ``server.enabled`` false in the configuration that applies there), or None."""
    from memx_cli import config as configmod
    from memx_cli.errors import MemxError
    from memx_cli.store.repo import Repo

    if os.environ.get("MEMX_NO_SERVER"):
        return "MEMX_NO_SERVER is set"
    try:
        repo = Repo.discover(cwd)
        cfg = repo.config if repo.store.exists() else configmod.load(None)
    except MemxError:
        cfg = configmod.load(None)  # outside a repository: the user's own settings
    return None if cfg["server.enabled"] else "server.enabled is false"


def start_for(cwd: str) -> None:
    """The thin client's fallback: start a server for the next command when wanted, one
    that opens the store of ``cwd``'s repository at once; none when another command is
    starting one (the spawn lock) or one answers by now. Any failure only goes to the
    log (this command runs in process anyway)."""
    import logging

    quiet = logging.getLogger("memx")
    quiet.disabled = True  # the command itself reports configuration warnings, once
    try:
        if wanted(Path(cwd)):
            directory = paths.private_dir(create=True)
            lock = paths.spawn_lock(directory)
            if lock is None:
                return  # another command's server is starting
            try:
                if not _answers(os.path.join(directory, paths.SOCKET_NAME)):
                    spawn(cwd, lock)
            finally:
                os.close(lock)
    except Exception as exc:
        paths.log_line(f"could not start the server: {type(exc).__name__}: {exc}")
    finally:
        quiet.disabled = False


def _answers(path: str) -> bool:
    """Does a server accept connections at ``path`` (one bound since this command
    looked, before the spawn lock was free)?"""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(CONTROL_TIMEOUT)
    try:
        paths.check_socket(path)
        sock.connect(path)
        return True
    except OSError:
        return False
    finally:
        sock.close()
