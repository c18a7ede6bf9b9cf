"""What every memx command needs around it, without click (issue 29).

The command line (memx_cli/cli) is click's, and importing click with the CLI's own
package costs a cold command 10-20 ms of CPU. A cold ``memx search`` run without the
server (memx_cli/command/search.py) needs none of it: it uses the parts kept here, which
the click CLI uses too, so both print, fail and exit alike: ``echo`` (click.echo's
output for the streams a process is given), the per-invocation ``State``, the
notice handler, the error boundary's report of a failure (``failed``) and the exit
that skips the interpreter's shutdown; and for the lean commands (``memx search`` and
``memx add`` without the server), the reading of their usual arguments (``read_args``)
and the run around their body (``run_lean``).
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import functools
import io
import logging
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memx_cli.errors import EXIT_INTERNAL, EXIT_USAGE, MemxError
from memx_cli.textproc import clean_text

if TYPE_CHECKING:
    from memx_cli.services import Services


def echo(message: str, err: bool = False, nl: bool = True) -> None:
    """``click.echo(message, err=err, nl=nl)`` for a text message. On an ordinary text
    stream (an io.TextIOWrapper whose encoding is not ASCII) click writes the text
    as it is and flushes; so does this. Anything else (an ANSI escape, which click
    strips from what is not a terminal; a stream click would wrap or re-encode) is
    handed to click itself."""
    stream = sys.stderr if err else sys.stdout
    text = message + "\n" if nl else message
    if "\x1b" in text or not _plain(stream):
        import click  # the one click import outside cli/ (tests/test_architecture.py)

        click.echo(message, err=err, nl=nl)
        return
    stream.write(text)
    stream.flush()


def tolerant_streams() -> None:
    """What the standard streams' encoding cannot hold is written as an escape
    (``\\u2192``) rather than failing the command: memory text is any Unicode, and an
    output may be declared latin-1 or a legacy code page (``PYTHONIOENCODING``, a
    terminal's locale). A stream with an error handler of its own keeps it. A stream
    that is a terminal shows escape sequences and control characters instead of acting
    on them (``TerminalStream``)."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="backslashreplace")
    sys.stdout, sys.stderr = _on_terminal(sys.stdout), _on_terminal(sys.stderr)


class TerminalStream(io.TextIOWrapper):
    """A terminal's text stream that writes what memory files, transcripts and logs hold
    (any text a collaborator committed) with its escape sequences and control characters
    shown as U+FFFD: an OSC 52 in a memory must not write the reviewer's clipboard, nor
    a CSI erase what ``memx review`` showed (walk17). See external.terminal_text."""

    def write(self, text: str) -> int:
        from memx_cli.external import terminal_text

        return super().write(terminal_text(text))


def _on_terminal(stream: Any) -> Any:
    """``stream`` as a ``TerminalStream`` over the same buffer when it is a terminal's
    plain text stream; any other stream as it is."""
    if type(stream) is not io.TextIOWrapper:
        return stream  # a pipe replaced by a test, a TerminalStream already, None
    try:
        if not stream.isatty():
            return stream
        stream.flush()
    except (OSError, ValueError):
        return stream
    return TerminalStream(stream.buffer, encoding=stream.encoding, errors=stream.errors,
                          line_buffering=stream.line_buffering, write_through=True)


def whole_unicode(stream: object) -> bool:
    """Whether ``stream``'s encoding holds every character (UTF-8, UTF-16, GB 18030...;
    a text stream that encodes nothing, as io.StringIO): a JSON output keeps its text as
    it is there, and writes \\u escapes elsewhere."""
    encoding = getattr(stream, "encoding", None)
    return _holds_all(encoding) if isinstance(encoding, str) else True


@functools.cache
def _holds_all(encoding: str) -> bool:
    try:
        "\u00e9\u2192\u90e8\U0001f680\U0010fffd".encode(encoding)
    except (LookupError, UnicodeError):
        return False
    return True


def json_text(value: Any, indent: int | None = None) -> str:
    """``value`` as JSON for the standard output: its text as it is where the output's
    encoding holds every character, else ASCII with \\u escapes (never lossy, never an
    encoding error)."""
    import json

    return json.dumps(value, ensure_ascii=not whole_unicode(sys.stdout), indent=indent)


def _plain(stream: object) -> bool:
    """A stream click.echo writes to unchanged (click's _compat: not ASCII-encoded,
    which it calls misconfigured, and a text writer rather than a binary one)."""
    if not isinstance(stream, io.TextIOWrapper) or not stream.encoding or not stream.errors:
        return False
    try:
        return codecs.lookup(stream.encoding).name != "ascii"
    except LookupError:
        return True


class State:
    """Per-invocation settings shared by every command. ``services``: what the host
    running this command lends it (memx_cli/services.py; the memx server passes its warm
    searchers to ``main``), None in a process of its own."""

    def __init__(self, directory: str | None, verbose: bool,
                 services: Services | None = None):
        self.cwd = Path(directory) if directory else Path.cwd()
        self.verbose = verbose
        self.services = services

    def repo(self, initialized: bool = True, overrides: dict[str, Any] | None = None) -> Any:
        from memx_cli.store.repo import Repo

        repo = Repo.discover(self.cwd, overrides)
        if initialized:
            repo.require_store()
        return repo

    def memx(self, **identity: Any) -> Any:
        """The library facade (memx_cli.api.Memx) on this repository: role, agent and
        session from the command's flags, else from MEMX_ROLE / MEMX_AGENT / MEMX_SESSION."""
        from memx_cli.api import Memx

        return Memx(self.repo(), services=self.services, **identity)


class NoticeHandler(logging.Handler):
    """memx's log records as the one-line notices of standard error."""

    def emit(self, record: logging.LogRecord) -> None:
        level = "warning" if record.levelno >= logging.WARNING else "note"
        echo(f"memx: {level}: {record.getMessage()}", err=True)


def setup_logging(verbose: bool) -> None:
    log = logging.getLogger("memx")
    if not any(isinstance(h, NoticeHandler) for h in log.handlers):
        log.addHandler(NoticeHandler())
    log.setLevel(logging.DEBUG if verbose else logging.INFO)
    log.propagate = False


def clean_args(args: list[str]) -> list[str]:
    """Undecodable bytes arrive as lone surrogates: U+FFFD from here on (issue 14), except
    in an argument that names an existing file (its name must stay as it is on disk)."""
    return [a if a.isascii() or os.path.lexists(a) else clean_text(a) for a in args]


def verbose_asked(args: list[str]) -> bool:
    return any(a in ("-v", "--verbose") for a in args) or bool(os.environ.get("MEMX_DEBUG"))


# OS errors that say what is wrong with the machine rather than with memx, and what to do.
ENVIRONMENT_ERRORS = {
    errno.ENOSPC: "free some space, then run the command again",
    errno.EDQUOT: "the disk quota is used up; free some space, then run the command again",
    errno.EROFS: "the file system is read-only",
    errno.EMFILE: "too many open files; raise the limit (ulimit -n) and run it again",
    errno.ENFILE: "too many open files on this machine; run it again later",
    errno.EIO: "the disk reported an input/output error",
}


def aborted(cause: BaseException | None) -> int:
    """The exit code of a command click aborted, its report written: an interrupt
    (Ctrl-C, 130) or another abort (1)."""
    if isinstance(cause, KeyboardInterrupt):
        echo("memx: interrupted", err=True)
        return 130
    echo("memx: aborted", err=True)
    return 1


def failed(exc: BaseException, verbose: bool) -> int:
    """The exit code of a command that raised ``exc`` (anything but click's own
    exceptions, SystemExit and GeneratorExit), its one-line report written (SPEC 7).
    Call it while ``exc`` is being handled: ``-v``'s traceback is the current one."""
    if isinstance(exc, MemxError):
        if verbose:
            import traceback

            traceback.print_exc()
        echo(f"memx: error: {exc}", err=True)
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        echo("memx: interrupted", err=True)
        return 130
    if isinstance(exc, BrokenPipeError) and reader_gone():
        # `memx list | head`: the reader stopped reading, which is no error of ours: exit
        # 0, as ripgrep does (git dies of SIGPIPE, 141 in the shell; Python exits 1), so a
        # script under `set -o pipefail` goes on; nothing more is written.
        drop_output()
        return 0
    # (BaseException because Rust panics inside tantivy arrive as pyo3's
    # PanicException, which derives from BaseException.)
    if isinstance(exc, OSError) and exc.errno in ENVIRONMENT_ERRORS:
        # The machine, not memx: a full disk is no bug to report (issue 15).
        where = f": {exc.filename}" if exc.filename else ""
        echo(f"memx: error: {exc.strerror}{where} "
             f"({ENVIRONMENT_ERRORS[exc.errno]})", err=True)
        return EXIT_INTERNAL
    stray = _file_for_folder(exc)
    if stray is not None:
        # `.memx/cache` or `.git/hooks` made a file: the layout on disk, not a bug of memx
        echo(f"memx: error: {stray} is a file where memx needs a folder; move it away, "
             "then run the command again", err=True)
        return EXIT_USAGE
    if verbose:
        import traceback

        traceback.print_exc()
    echo(f"memx: error: internal error: {type(exc).__name__}: {exc} "
         "(run with -v for the traceback and please report it)", err=True)
    return EXIT_INTERNAL


def _file_for_folder(exc: BaseException) -> str | None:
    """The file that stands where a folder was needed, when that is why ``exc`` was
    raised: a folder made over a file (FileExistsError: nothing else memx does raises
    it unhandled), or a path through a file (NotADirectoryError); else None."""
    if not isinstance(exc, (FileExistsError, NotADirectoryError)) or not exc.filename:
        return None
    path = os.fsdecode(exc.filename)
    chain = [path]
    while os.path.dirname(chain[-1]) not in ("", chain[-1]):
        chain.append(os.path.dirname(chain[-1]))
    for candidate in reversed(chain):  # from the root down: the first file on the way
        if os.path.lexists(candidate) and not os.path.isdir(candidate):
            return candidate
    return None


def reader_gone() -> bool:
    """Whether the standard output or error is a pipe (or socket) whose reader has gone:
    its end polls as an error. A broken pipe of another kind (a child process's input)
    is the command's failure, not its reader's choice."""
    import select

    poll = getattr(select, "poll", None)
    if poll is None:  # no poll(2): trust the error
        return True
    poller = poll()
    for fd in (1, 2):
        poller.register(fd, 0)
    try:
        ready = poller.poll(0)
    except OSError:
        return False
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in ready)


def drop_output() -> None:
    """Send whatever the standard streams still hold, and anything written after, to
    the null device: their reader has gone, and the interpreter's last flush must not
    fail over it."""
    null = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            os.dup2(null, fd)
    os.close(null)


def fast_exit() -> None:
    """Leave at once after flushing the standard streams: interpreter shutdown (module
    teardown, the native libraries' destructors) cost 24-62 ms per command in issue 15.
    Only for a finished command (its files are closed); a stream that cannot be flushed
    takes the ordinary exit, and so does a run under a profiler or a coverage tracer,
    which write their results at exit. A stream the process was started without
    (``memx add ... >&-``: Python's is None) has nothing to flush; one whose reader has
    gone (``memx export | head``) has its rest dropped, as ``failed`` does."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except BrokenPipeError:
        if not reader_gone():
            return
        drop_output()  # the command ran; its reader left before the end (see ``failed``)
    except (OSError, ValueError):
        return
    if not observed():
        os._exit(0)


def observed() -> bool:
    """A profiler, tracer or coverage tool is watching: by the old hooks, or (Python
    3.12+, where cProfile and coverage may use them) by a sys.monitoring tool id."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)
    return monitoring is not None and any(monitoring.get_tool(i) is not None
                                          for i in range(6))


def emit_json(payload: dict[str, Any]) -> None:
    """Every JSON output is an object with a top-level key, so it can grow."""
    echo(json_text(payload, indent=2))


def one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(width - 1, 1)] + "…"


def terminal_width() -> int:
    import shutil

    return shutil.get_terminal_size((100, 20)).columns


LINKS_SHOWN = 3  # ids of one link kind printed on a result's line; the rest are counted


def link_marks(supersedes: Sequence[str], superseded_by: str | None,
               conflicts_with: Sequence[str], short: Mapping[str, str]) -> str:
    """" (superseded by ID)", " (supersedes ID)", " (conflicts with ID)": the Curator's
    links of one memory, ids as ``short`` abbreviates them (issue 12), the first
    ``LINKS_SHOWN`` of a kind and a count of the rest (memx show lists every one)."""
    def ids(many: Sequence[str]) -> str:
        shown = ", ".join(short.get(i, i) for i in many[:LINKS_SHOWN])
        return shown + (f" and {len(many) - LINKS_SHOWN} more" if len(many) > LINKS_SHOWN
                        else "")

    marks = [f"superseded by {ids([superseded_by])}"] if superseded_by else []
    marks += [f"supersedes {ids(supersedes)}"] if supersedes else []
    marks += [f"conflicts with {ids(conflicts_with)}"] if conflicts_with else []
    return "".join(f" ({m})" for m in marks)


# option -> (keyword of the command's body, how its value is read; None: a flag)
Options = Mapping[str, tuple[str, Any]]


def read_args(args: list[str], options: Options,
              repeatable: frozenset[str] = frozenset()) -> tuple[str, dict[str, Any]] | None:
    """A lean command's one argument and the ``options`` given (a ``repeatable`` keyword
    as a tuple of its values, in order), or None when click's reading is needed to be
    sure: help, ``-`` (standard input), ``--``, ``--name=value``, ``-n5``, an unknown
    option, another option repeated, an option's value that is missing or looks like an
    option or is not a number, no argument or a second one."""
    found: dict[str, Any] = {}
    given: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("-"):
            if arg not in options:
                return None
            name, kind = options[arg]
            if name in found and name not in repeatable:
                return None
            if kind is None:
                found[name] = True
            else:
                if i + 1 == len(args) or args[i + 1].startswith("-"):
                    return None
                i += 1
                try:
                    value = kind(args[i])
                except ValueError:
                    return None
                found[name] = (*found.get(name, ()), value) if name in repeatable else value
        elif given is None:
            given = arg
        else:
            return None  # click's "Got unexpected extra argument"
        i += 1
    return None if given is None else (given, found)


def run_lean(args: list[str], body: Callable[..., None], keywords: dict[str, Any],
             state: State | None = None) -> int:
    """Run a lean command's ``body(State, **keywords)`` as the click CLI would around it
    (notices, the error boundary's report, the exit code). Without ``state``: for a
    process of its own (the ``memx`` executable), which a success leaves through
    ``fast_exit``. With it: for ``cli.main`` in a host that lends its services (the memx
    server, ``served_lean``), which has set up the streams as ``main`` does and whose
    process and environment go on as they are."""
    verbose = verbose_asked(args)
    if state is None:
        from memx_cli.embed import one_blas_thread

        one_blas_thread()
        tolerant_streams()
    try:
        setup_logging(verbose)
        body(State(None, verbose) if state is None else state, **keywords)
    except BaseException as exc:
        if isinstance(exc, (SystemExit, GeneratorExit)):
            raise
        # what click's main does around a command before memx's boundary sees it
        if isinstance(exc, (KeyboardInterrupt, EOFError)):
            echo("", err=True)  # the blank line that closes the terminal's ^C
            return aborted(exc)
        return failed(exc, verbose)  # (a reader gone: 0, as the click path)
    if state is None:
        fast_exit()
    return 0


def served_lean(args: list[str], services: Services) -> int | None:
    """``memx -C DIR NAME ARGS`` as the memx server runs a forwarded command (issue 29):
    for a lean command (``command.LEAN``: search, add) whose arguments ``parse`` reads
    and an existing DIR, its body run with the host's ``services`` as the click command
    would run it (the same State, notices, error report and exit code), without
    click's context and parsing (~1 ms of a warm search's ~5 ms of CPU, measured);
    None (nothing done) for anything else, which click reads."""
    import importlib

    from memx_cli.command import LEAN

    if len(args) < 4 or args[0] != "-C" or args[2] not in LEAN or not os.path.isdir(args[1]):
        return None
    command = importlib.import_module(LEAN[args[2]])
    keywords = command.parse(args[3:])
    if keywords is None:
        return None
    return run_lean(args, command.run, keywords, State(args[1], verbose_asked(args), services))
