"""Where the server's socket lives, and the checks that make it private (issue 15).

The directory is ``$MEMX_SERVER_DIR``, else ``$XDG_RUNTIME_DIR/memx``, else
``/tmp/memx-<uid>`` (``$TMPDIR`` when set). It must be a real directory owned by this
user with no access for anyone else; the socket in it must be a socket owned by this
user. Anything else is refused: the caller falls back to running in process.

Imported by the thin client: the standard library's ``os`` and ``stat`` only.
"""

from __future__ import annotations

import os
import stat

SOCKET_NAME = "server.sock"
LOCK_NAME = "server.lock"
# Held from a command's decision to start a server until that server has bound (issue 29):
# commands that find it held start none (four first commands at once started four
# servers, which each imported memx before three exited on LOCK_NAME).
SPAWN_LOCK_NAME = "spawn.lock"


class UnsafePathError(OSError):
    """The socket directory or the socket is not private to this user."""


def server_dir() -> str:
    explicit = os.environ.get("MEMX_SERVER_DIR")
    if explicit:
        return explicit
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        return os.path.join(runtime, "memx")
    tmp = os.environ.get("TMPDIR") or "/tmp"
    return os.path.join(tmp, f"memx-{os.getuid()}")


def private_dir(create: bool = False) -> str:
    """The checked socket directory (made 0700 when ``create``); UnsafePathError when it
    is a symlink, not a directory, another user's, or open to group or others."""
    path = server_dir()
    if create:
        try:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
    st = os.lstat(path)  # FileNotFoundError: no server has run yet
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafePathError(f"{path} is not a directory")
    if st.st_uid != os.getuid():
        raise UnsafePathError(f"{path} belongs to uid {st.st_uid}, not to this user")
    if st.st_mode & 0o077:
        raise UnsafePathError(f"{path} is open to other users (mode {st.st_mode & 0o777:o})")
    return path


def socket_path(create_dir: bool = False) -> str:
    return os.path.join(private_dir(create_dir), SOCKET_NAME)


def check_socket(path: str) -> None:
    """Refuse a socket file that is not a socket or not this user's."""
    st = os.lstat(path)
    if not stat.S_ISSOCK(st.st_mode):
        raise UnsafePathError(f"{path} is not a socket")
    if st.st_uid != os.getuid():
        raise UnsafePathError(f"{path} belongs to uid {st.st_uid}, not to this user")


def log_path() -> str:
    """The server's log (its stdio, and the client's reasons for not using it)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "memx", "server.log")


def log_line(message: str) -> None:
    """Append one line to the server log; never fails the caller."""
    try:
        path = log_path()
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, f"memx[{os.getpid()}]: {message}\n".encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass


def server_lock(path: str) -> int | None:
    """An exclusive lock on the server lock file, waiting briefly for a stopping one."""
    import fcntl
    import time

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + 2.0
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                return None
            time.sleep(0.05)


def spawn_lock(directory: str) -> int | None:
    """The spawn lock's descriptor, taken without waiting; None while another command's
    server is starting (it holds the lock until it has bound its socket)."""
    import fcntl

    fd = os.open(os.path.join(directory, SPAWN_LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd
