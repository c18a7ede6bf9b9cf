"""Linux inotify, read synchronously (issue 15): the kernel interface the drained watcher
(freshness/drain.py) stands on.

A small ctypes binding of ``inotify_init1(IN_NONBLOCK | IN_CLOEXEC)``,
``inotify_add_watch`` and ``inotify_rm_watch``; events are read with ``os.read`` and
parsed with ``struct``. The descriptor never blocks: ``read`` returns every event queued
so far and stops when the queue is empty (FIONREAD 0, or EAGAIN), so a caller that reads it after a moment has counted every
event of a change completed before that moment (the kernel queues the event inside the
syscall that made it: the close after writing, the rename, the unlink, the mkdir).

Why not watchdog's ``InotifyFD``: its reads block when nothing is queued (the check
that they would not is a private method), its descriptor is a private attribute (a
non-blocking read or FIONREAD needs it), it opens a pipe and a poller per instance for
the thread it expects to run, and watchdog 6 and 7 differ there. Four libc calls do not
need a library; this is the kernel's event interface, not polling.
"""

from __future__ import annotations

import array
import ctypes
import errno
import os
import struct
from collections.abc import Iterator

# <sys/inotify.h>
IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_UNMOUNT = 0x00002000
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = getattr(os, "O_CLOEXEC", 0o2000000)

# struct inotify_event { int wd; uint32_t mask, cookie, len; char name[len]; }
HEADER = struct.Struct("iIII")
# Room for many events a read (a name is at most 255 bytes and padded).
READ_SIZE = 64 * 1024


class Inotify:
    """One inotify instance: add and remove watches, read what is queued."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        try:
            self._init1 = libc.inotify_init1
            self._add = libc.inotify_add_watch
            self._rm = libc.inotify_rm_watch
        except AttributeError:  # no inotify here (macOS, BSD, an odd libc)
            raise OSError(errno.ENOSYS, "inotify is not available") from None
        try:
            import fcntl
            import termios
        except ImportError:
            raise OSError(errno.ENOSYS, "inotify is not available") from None
        self._ioctl, self._fionread = fcntl.ioctl, termios.FIONREAD
        self._pending = array.array("i", [0])
        self._add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        self._rm.argtypes = [ctypes.c_int, ctypes.c_int]
        fd = self._init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            raise _error("inotify_init1")
        self.fd: int | None = fd

    def add_watch(self, path: str, mask: int) -> int:
        """Watch ``path`` (the same inode again: its existing watch descriptor)."""
        if self.fd is None:
            raise OSError(errno.EBADF, "the inotify instance is closed")
        wd = self._add(self.fd, os.fsencode(path), mask)
        if wd < 0:
            raise _error(path)
        return int(wd)

    def rm_watch(self, wd: int) -> None:
        """Stop a watch; one the kernel already dropped (its folder removed) is fine."""
        if self.fd is not None:
            self._rm(self.fd, wd)  # EINVAL: already gone

    def read(self) -> Iterator[tuple[int, int, int, bytes]]:
        """Every event queued now, in order, as (wd, mask, cookie, name); never blocks.
        The queue's size is asked first (FIONREAD): nothing queued, the usual case, is
        one ioctl, cheaper than a read that fails with EAGAIN."""
        while self.fd is not None:
            self._ioctl(self.fd, self._fionread, self._pending)
            if self._pending[0] <= 0:
                return
            try:
                data = os.read(self.fd, max(READ_SIZE, self._pending[0]))
            except BlockingIOError:
                return
            except InterruptedError:
                continue
            if not data:
                return
            yield from parse(data)

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)


def parse(data: bytes) -> Iterator[tuple[int, int, int, bytes]]:
    """The events in one read: (wd, mask, cookie, name without its padding). The
    kernel's queue overflow is an event of wd -1 with IN_Q_OVERFLOW and no name."""
    at = 0
    while at + HEADER.size <= len(data):
        wd, mask, cookie, length = HEADER.unpack_from(data, at)
        start = at + HEADER.size
        yield wd, mask, cookie, data[start:start + length].rstrip(b"\0")
        at = start + length


def _error(what: str) -> OSError:
    code = ctypes.get_errno()
    return OSError(code, f"{os.strerror(code)}: {what}")
