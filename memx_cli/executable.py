"""The ``memx`` executable (issue 15): a thin client for the frequent commands.

``memx search|context|list ...`` (reads) and ``memx add|feedback|remember ...``
(writes) are sent to the per-user memx server, which runs the
same command warm and sends back its exact standard output, standard error and exit
code. This module imports only ``os``, ``sys``, ``time``, ``_socket`` (the C module
under ``socket``) and the lean commands' table (``memx_cli.command``, which imports
nothing): no click, no yaml, no numpy, and not even ``re``, ``json``,
``typing``, ``socket`` or ``hashlib``, whose imports were a fifth of a forwarded
command's time (issue 29; wire/protocol.py writes and reads the frames without them). Every other command, and every case where the server cannot answer
(none running, disabled, another version, an unsafe socket directory, a crash or a
timeout mid-request), runs the full CLI in this process (memx_cli.cli.entry) exactly as
before; when none was running it is started detached for the next command. Nothing the
server did not finish is printed, so a fallback never repeats output.

A write runs exactly once. The server answers ``ready`` before it runs one, and runs it
only once the client has answered ``go``; a client that saw no ``ready`` in time never
says ``go`` and runs the write itself. Once ``go`` is sent the client never runs it:
it waits (``MEMX_SERVER_WRITE_TIMEOUT``, 120 s); when no answer comes, or the connection
breaks, it connects once more and asks the server what became of the write (protocol.py,
``outcome``), waiting up to ``MEMX_SERVER_OUTCOME_TIMEOUT`` (30 s) for the answer:
finished, it ends as the write did (its output, its exit code); otherwise (no server,
an id the server does not hold, still no answer) it says in one line (exit 3) that the
outcome is unknown and how to check.
"""

from __future__ import annotations

import errno
import gc
import os
import sys

# the commands a cold process runs without click when it can read their arguments itself
from memx_cli.command import LEAN

TYPE_CHECKING = False  # typing's own: importing typing costs every command ~1 ms
if TYPE_CHECKING:
    from _socket import socket

READS = frozenset({"search", "context", "list"})
WRITES = frozenset({"add", "feedback", "remember"})
FORWARDED = READS | WRITES
DEFAULT_TIMEOUT = 5.0
WRITE_TIMEOUT = 120.0
OUTCOME_TIMEOUT = 30.0  # the wait for the answer about a write that gave none
EXIT_UNKNOWN = 3  # memx_cli.errors.EXIT_INTERNAL (not imported: the thin path stays thin)


class _Unknown(Exception):
    """The server accepted a write and gave no answer: it may or may not have run."""


def entry() -> None:
    argv = sys.argv[1:]
    start = False
    if _forwardable(argv):
        try:
            reply, start = _forward(argv)
        except _Unknown as exc:
            _unknown(argv[0], str(exc))
        except Exception as exc:  # never fail where the full CLI would not (no AF_UNIX, ...)
            _log(f"the thin client failed {argv[0]} ({type(exc).__name__}: {exc}); "
                 "ran it in process")
            reply, start = None, False
        if reply is not None:
            _finish(*reply)
    lean = bool(argv) and argv[0] in LEAN  # the usual arguments, read without click
    if lean:
        # The cyclic garbage collector is off while a cold search or add loads and runs:
        # it allocates mostly what its imports keep for the life of the process, which
        # the collector walked 30-60 times for nothing (5-14 ms of a search's CPU at 10k,
        # measured); one command leaves little garbage in cycles and its process ends
        # with it (peak RSS +0.3 MB at 10k). On for the full CLI, should the lean path
        # decline.
        gc.disable()
    if argv and (argv[0] in ("search", "context")
                 or (argv[0] in ("add", "import") and "--raw" not in argv)):
        # with ACE on, the Curator checks the index before it writes
        _check_ahead(write=argv[0] in ("add", "import"))
    if start:
        from memx_cli.wire.control import start_for

        start_for(_cwd())
    if lean:
        import importlib

        code = importlib.import_module(LEAN[argv[0]]).lean(argv[1:])
        if code is not None:
            sys.exit(code)
        gc.enable()
    from memx_cli.cli import entry as full

    full()


def _forwardable(argv: list[str]) -> bool:
    """A command whose whole input is its arguments (``-`` reads stdin: not sent)."""
    return (bool(argv) and argv[0] in FORWARDED and "-" not in argv[1:]
            and not os.environ.get("MEMX_NO_SERVER"))


def _check_ahead(write: bool = False) -> None:
    """In process: start the store's change check (git) now, to run while the CLI loads
    (memx_cli/freshness/ahead.py); for a write, only if its Curator will need it."""
    try:
        from memx_cli.freshness import ahead

        ahead.start_here(_cwd(), write)
    except Exception:  # an optimisation only: the check runs later anyway
        pass


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return "."


def _forward(argv: list[str]) -> tuple[tuple[int, bytes, bytes] | None, bool]:
    """(code, stdout, stderr) from the server, or None; and whether to start one."""
    from memx_cli.wire import paths
    from memx_cli.wire.build import identity
    from memx_cli.wire.protocol import PROTOCOL, ProtocolError, read_reply, recv_frame

    try:
        path = paths.socket_path()
        paths.check_socket(path)
    except FileNotFoundError:
        paths.log_line(f"no server was running for {argv[0]}; ran it in process")
        return None, True
    except OSError as exc:  # UnsafePathError: never talk through it, never start one
        paths.log_line(f"not using the server: {exc}")
        return None, False
    sock = _unix_socket()
    sock.settimeout(_timeout())
    try:
        sock.connect(path)
        env = dict(os.environ)
        columns, lines = _terminal_size()
        env["COLUMNS"], env["LINES"] = str(columns), str(lines)
        request_id = os.urandom(16).hex()
        request: dict[str, object] = {"proto": PROTOCOL, "version": identity(), "op": "run", "argv": argv,
                   "cwd": _cwd(), "env": env, "streams": _streams()}
        write = argv[0] in WRITES
        if write:
            mask = os.umask(0o077)
            os.umask(mask)
            request.update(write=True, id=request_id, umask=mask)
        _send(sock, request)
        header = read_reply(sock)
        status = header.get("status")
        if write and status == "ready" and header.get("id") == request_id:
            return _accepted(sock, request_id, path, argv[0]), False
        if status == "ok":  # (a write is only ever "ok" after "go"; kept for safety)
            out, err = recv_frame(sock), recv_frame(sock)
            code = int(header["code"])
            if code == EXIT_UNKNOWN and not write:
                # an internal error in the server's run of a read: whatever state it is
                # in, the command must not fail because of it (issue 27). Ask it to stop
                # and run the read here; the next command starts a fresh server.
                first = err.decode("utf-8", "replace").strip().splitlines()[:1]
                paths.log_line(f"the server failed {argv[0]} ({' '.join(first)}); "
                               "ran it in process and asked the server to stop")
                _stop(path)
                return None, True
            return (code, out, err), False
        if status == "version":
            paths.log_line(f"a server of memx {header.get('version')} answered; "
                           f"asking it to stop")
            _stop(path)
            return None, True
        if status != "disabled":  # (disabled by choice: `memx doctor` says so)
            paths.log_line(f"the server answered {argv[0]} with {status!r} "
                           f"({header.get('message', '')}); ran it in process")
        return None, False
    except (ConnectionRefusedError, FileNotFoundError):
        # a socket left by a server that died: remove it, start a new one
        paths.log_line(f"no server answered at the socket for {argv[0]}; ran it in process")
        try:
            os.unlink(path)
        except OSError:
            pass
        return None, True
    except (OSError, ProtocolError, ValueError, KeyError, TypeError) as exc:
        paths.log_line(f"the server did not answer {argv[0]} ({exc}); ran it in process")
        return None, False
    finally:
        sock.close()


def _log(message: str) -> None:
    try:
        from memx_cli.wire import paths

        paths.log_line(message)
    except Exception:  # the log is a courtesy: never fail the command for it
        pass


def _unix_socket() -> socket:
    """A Unix stream socket of ``_socket``, the C module that ``socket`` itself imports,
    whose Python layer (selectors, and the class's extras this client never uses) only
    adds start-up time; the C socket raises the same errors (TimeoutError,
    ConnectionRefusedError)."""
    from _socket import AF_UNIX, SOCK_STREAM
    from _socket import socket as unix

    return unix(AF_UNIX, SOCK_STREAM)


def _send(sock: socket, request: dict[str, object]) -> None:
    """One request frame, its JSON written without the json module."""
    from memx_cli.wire.protocol import plain_json, send_frames

    send_frames(sock, plain_json(request).encode("utf-8"))


def _stop(path: str) -> None:
    """Ask the server at ``path`` to stop (it answers any memx's ``stop``)."""
    from memx_cli.wire.build import identity
    from memx_cli.wire.protocol import PROTOCOL, read_reply

    stopper = _unix_socket()
    stopper.settimeout(1.0)
    try:
        stopper.connect(path)
        _send(stopper, {"proto": PROTOCOL, "version": identity(), "op": "stop"})
        read_reply(stopper)
    finally:
        stopper.close()


def _accepted(sock: socket, request_id: str, path: str,
              command: str) -> tuple[int, bytes, bytes]:
    """Say ``go`` for a write the server is ready to run, then wait for its outcome.
    Until ``go`` is sent whole the server cannot have run it (an error raised here is a
    fallback); after that, no answer is a question about it (``_asked``), then
    _Unknown, never a second run."""
    from memx_cli.wire.protocol import ProtocolError, read_reply, recv_frame

    _send(sock, {"op": "go", "id": request_id})
    try:
        sock.settimeout(_timeout("MEMX_SERVER_WRITE_TIMEOUT", WRITE_TIMEOUT))
        header = read_reply(sock)
        if header.get("status") != "ok":
            raise _Unknown(f"it answered {header.get('status')!r}")
        return int(header["code"]), recv_frame(sock), recv_frame(sock)
    except TimeoutError:
        reason = "no answer came in time"
    except KeyboardInterrupt:  # the server goes on with it: say so, as for a timeout
        raise _Unknown("the wait was interrupted") from None
    except (OSError, ProtocolError, ValueError, KeyError, TypeError) as exc:
        reason = f"the connection broke ({exc})"
    sock.close()
    return _asked(path, request_id, command, reason)


def _asked(path: str, request_id: str, command: str, reason: str) -> tuple[int, bytes, bytes]:
    """Ask the server, on one new connection, what became of the write ``request_id``:
    its outcome once it has finished, else _Unknown (with the first ``reason``)."""
    from memx_cli.wire import paths
    from memx_cli.wire.build import identity
    from memx_cli.wire.protocol import PROTOCOL, read_reply, recv_frame

    paths.log_line(f"{command}: {reason}; asking the server what became of it")
    sock = _unix_socket()
    try:
        sock.settimeout(_timeout())
        sock.connect(path)
        _send(sock, {"proto": PROTOCOL, "version": identity(), "op": "outcome",
                         "id": request_id})
        # the server answers one request at a time: a write still running first ends
        sock.settimeout(_timeout("MEMX_SERVER_OUTCOME_TIMEOUT", OUTCOME_TIMEOUT))
        header = read_reply(sock)
        if header.get("status") == "ok":
            code, out, err = int(header["code"]), recv_frame(sock), recv_frame(sock)
            paths.log_line(f"{command}: the server finished it: exit {code}")
            return code, out, err
        paths.log_line(f"{command}: the server answered {header.get('status')!r}")
    except KeyboardInterrupt:
        pass
    except Exception as exc:  # no server, a timeout, a broken connection: unknown
        paths.log_line(f"{command}: asking failed: {exc}")
    finally:
        sock.close()
    raise _Unknown(reason)


def _unknown(command: str, reason: str) -> None:
    """One line, exit 3: the server took the write and its outcome is unknown."""
    from memx_cli.wire import paths

    paths.log_line(f"{command}: accepted by the server, outcome unknown: {reason}")
    message = (f"memx: error: the memx server accepted this {command} but {reason}; it may "
               f"or may not have been done (not retried): check with `memx list` or "
               f"`git status .memx`\n")
    _finish(EXIT_UNKNOWN, b"", message.encode("utf-8", "replace"))


def _timeout(name: str = "MEMX_SERVER_TIMEOUT", default: float = DEFAULT_TIMEOUT) -> float:
    try:
        return max(float(os.environ.get(name, "")), 0.05)
    except ValueError:
        return default


def _streams() -> dict[str, str | None]:
    return {"stdout_encoding": getattr(sys.stdout, "encoding", None),
            "stdout_errors": getattr(sys.stdout, "errors", None),
            "stderr_encoding": getattr(sys.stderr, "encoding", None),
            "stderr_errors": getattr(sys.stderr, "errors", None)}


def _terminal_size() -> tuple[int, int]:
    """What shutil.get_terminal_size((100, 20)) says in this process (the CLI's width)."""
    def env_int(name: str) -> int:
        try:
            return int(os.environ[name])
        except (KeyError, ValueError):
            return 0

    columns, lines = env_int("COLUMNS"), env_int("LINES")
    if columns <= 0 or lines <= 0:
        try:
            size = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            size = os.terminal_size((100, 20))
        columns = columns if columns > 0 else (size.columns or 100)
        lines = lines if lines > 0 else (size.lines or 20)
    return columns, lines


def _finish(code: int, out: bytes, err: bytes) -> None:
    """Write what the server's command wrote, flush, and leave at once. A stream the
    process was started without (`memx add ... >&-`) has nothing to write to: the command
    ran, and its exit code stands, as in process (command/base.fast_exit)."""
    try:
        for fd, data in ((2, err), (1, out)):
            if data and os.isatty(fd):
                data = _shown(data)
            view = memoryview(data)
            while view:
                try:
                    view = view[os.write(fd, view):]
                except OSError as exc:
                    if exc.errno != errno.EBADF:
                        raise
                    break
    except BrokenPipeError:
        code = 0  # `memx list | head`: as the CLI, not an error of ours
    except OSError:
        code = code or 1
    os._exit(code)


def _shown(data: bytes) -> bytes:
    """A reply for a terminal with its escape sequences and control characters shown
    instead of acted on, as in process (command/base.TerminalStream); bytes that are not
    UTF-8 pass through as they came."""
    from memx_cli.external import terminal_text

    text = data.decode("utf-8", "surrogateescape")
    return terminal_text(text).encode("utf-8", "surrogateescape")


if __name__ == "__main__":
    entry()
