"""``memx run -- CMD``: run a command, pass its output and exit status through, record it,
and reflect on it with the history of earlier runs (SPEC 3.1, SPEC 6).

- a failure followed later by a success of the same command → RetrySuccess, saying what
  changed in between: files (git status + content hashes), commits, environment variables;
- the same command run three times → RepetitiveOp (once per command).

The output is read in chunks and handed to the caller's sinks unchanged; only a bounded
head and tail are kept for finding the error line.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memx_cli import git
from memx_cli.embed import user_environ
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.signals import analyse
from memx_cli.reflector.turn import Turn
from memx_cli.store.repo import Repo

Sink = Callable[[bytes], None]
KEEP_HEAD, KEEP_TAIL = 16 * 1024, 48 * 1024
MAX_SNAPSHOT_FILES = 100
ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
ENV_NOISE = frozenset(["PWD", "OLDPWD", "SHLVL", "_", "TERM", "COLUMNS", "LINES", "DISPLAY", "WINDOWID", "RANDOM", "SECONDS", "HISTFILE", "PS1", "PS2", "PROMPT", "LS_COLORS", "TMUX_PANE", "SSH_AGENT_PID"])
ENV_NOISE_PREFIX = ("SSH_", "XDG_SESSION", "TERM_", "ITERM", "VSCODE_", "GIT_", "MEMX_",
                    "PYTEST_", "COLORTERM", "KITTY_", "WEZTERM", "GNOME_", "DBUS_")


@dataclass(frozen=True)
class RunRecord:
    argv: tuple[str, ...]
    exit_code: int
    output: str  # head and tail of stdout + stderr, decoded
    seconds: float
    launch_error: str | None = None  # "X: command not found": the command never ran


class _Capture:
    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()

    def add(self, data: bytes) -> None:
        room = KEEP_HEAD - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            del self.tail[:-KEEP_TAIL]

    def text(self) -> str:
        gap = b"\n[...]\n" if self.tail else b""
        return (bytes(self.head) + gap + bytes(self.tail)).decode("utf-8", "replace")


def _pump(stream: Any, sink: Sink, capture: _Capture, lock: threading.Lock) -> None:
    fd = stream.fileno()
    while True:
        data = os.read(fd, 65536)
        if not data:
            return
        sink(data)
        with lock:
            capture.add(data)


@contextlib.contextmanager
def _interrupts_go_to_child() -> Iterator[None]:
    """Ctrl-C reaches the child (same process group); memx waits for it to exit."""
    try:
        previous = signal.signal(signal.SIGINT, lambda *_: None)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _pump_tty(fd: int, sink: Sink, capture: _Capture, lock: threading.Lock) -> None:
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            return
        if not data:
            return
        sink(data)
        with lock:
            capture.add(data)


def _open_tty() -> tuple[int, int]:
    """A pseudo-terminal the size of ours, so the child formats output as on a terminal."""
    import fcntl
    import pty
    import termios

    master, slave = pty.openpty()
    with contextlib.suppress(termios.error):  # our terminal translates "\n"; this one must not
        attrs = termios.tcgetattr(slave)
        attrs[1] &= ~termios.ONLCR
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
    with contextlib.suppress(OSError):
        size = fcntl.ioctl(sys.stdout.fileno(), termios.TIOCGWINSZ, b"\0" * 8)
        fcntl.ioctl(slave, termios.TIOCSWINSZ, size)
    return master, slave


def execute(argv: list[str], cwd: Path, out: Sink, err: Sink, tty: bool = False) -> RunRecord:
    """Run ``argv``; its stdout/stderr go to ``out``/``err`` byte for byte as they come.

    With ``tty`` (memx's own stdout and stderr are a terminal) the child writes to a
    pseudo-terminal instead of pipes, so colours and columns stay as without memx; both
    streams then arrive through ``out``, as they would on the terminal.
    """
    start = time.monotonic()
    capture = _Capture()
    if tty:
        return _execute_tty(argv, cwd, out, capture, start)
    try:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=user_environ())
    except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
        return _not_started(argv, exc)
    lock = threading.Lock()
    with _interrupts_go_to_child():
        pumps = [threading.Thread(target=_pump, args=(proc.stdout, out, capture, lock)),
                 threading.Thread(target=_pump, args=(proc.stderr, err, capture, lock))]
        for pump in pumps:
            pump.start()
        for pump in pumps:
            pump.join()
        code = proc.wait()
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    proc.stderr.close()
    if code < 0:
        code = 128 - code  # killed by a signal: the shell's convention
    return RunRecord(tuple(argv), code, capture.text(), time.monotonic() - start)


def _not_started(argv: list[str], exc: OSError) -> RunRecord:
    """The shell's conventions: 127 when the command is not found, 126 when not runnable."""
    found = isinstance(exc, FileNotFoundError)
    why = f"{argv[0]}: {'command not found' if found else 'permission denied'}"
    return RunRecord(tuple(argv), 127 if found else 126, why, 0.0, why)


def _execute_tty(argv: list[str], cwd: Path, out: Sink, capture: _Capture,
                 start: float) -> RunRecord:
    master, slave = _open_tty()
    try:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=slave, stderr=slave, env=user_environ())
    except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
        os.close(master)
        os.close(slave)
        return _not_started(argv, exc)
    os.close(slave)  # the child holds it; EOF comes when the child is done
    lock = threading.Lock()
    with _interrupts_go_to_child():
        pump = threading.Thread(target=_pump_tty, args=(master, out, capture, lock))
        pump.start()
        code = proc.wait()
        pump.join()
    os.close(master)
    if code < 0:
        code = 128 - code
    return RunRecord(tuple(argv), code, capture.text(), time.monotonic() - start)


def error_line(record: RunRecord) -> str | None:
    if record.exit_code == 0:
        return None
    sig = analyse(Turn(1, "tool", record.output, "tool_result", failed=True))
    return sig.key_error


# ---------------------------------------------------------------- what changed


def snapshot(repo: Repo) -> dict[str, Any]:
    """The state a command's outcome may depend on: HEAD, dirty files, environment."""
    root = repo.worktree
    files: dict[str, str] = {}
    out = git.run(["status", "--porcelain=v1", "-z", "--untracked-files=all"], root, check=False)
    records = out.split("\0")
    i = 0
    while i < len(records) and len(files) < MAX_SNAPSHOT_FILES:
        item = records[i]
        i += 1
        if len(item) < 4:
            continue
        status, path = item[:2], item[3:]
        if "R" in status or "C" in status:
            i += 1  # the original name follows
        if path.startswith(".memx/"):
            continue
        files[path] = _file_hash(root / path)
    env = {name: hashlib.sha1(value.encode("utf-8", "replace")).hexdigest()[:10]
           for name, value in user_environ().items()
           if ENV_NAME.match(name) and name not in ENV_NOISE
           and not name.startswith(ENV_NOISE_PREFIX)}
    return {"head": git.head_commit(root), "files": files, "env": env}


def _file_hash(path: Path) -> str:
    try:
        if path.stat().st_size > 5_000_000:
            stat = path.stat()
            return f"size:{stat.st_size}:{int(stat.st_mtime)}"
        return hashlib.sha1(path.read_bytes()).hexdigest()[:12]
    except OSError:
        return "deleted"


def changes(repo: Repo, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What differs between two snapshots, as phrases: "changing a.py", "adding b.txt"."""
    said: list[str] = []
    old, new = before.get("files") or {}, after.get("files") or {}
    moved = bool(before.get("head") and after.get("head") and before["head"] != after["head"])
    # a file dirty now and not before is new, or a committed file edited since (a
    # snapshot lists dirty files only): the commit the first run stood on says which
    fresh = [p for p in new if p not in old and new[p] != "deleted"]
    committed = _committed(repo, before.get("head"), fresh)
    added = [p for p in fresh if p not in committed]
    deleted = [p for p in new if new[p] == "deleted" and old.get(p) != "deleted"]
    edited = [p for p in new if (p in old and new[p] != old[p] and new[p] != "deleted")
              or p in committed]
    # a dirty file that is clean now was reverted, or committed (then HEAD says so)
    reverted = [] if moved else [p for p in old if p not in new]
    for verb, paths in (("changing", edited), ("adding", added), ("deleting", deleted),
                        ("reverting", reverted)):
        if paths:
            more = f" and {len(paths) - 4} more" if len(paths) > 4 else ""
            said.append(f"{verb} {', '.join(paths[:4])}{more}")
    if moved:
        subjects = git.run(["log", "--format=%h %s", "-3", "--end-of-options",
                            f"{before['head']}..{after['head']}", "--"],
                           repo.worktree, check=False).strip().splitlines()
        said.append("committing " + "; ".join(subjects) if subjects else "moving HEAD")
    old_env, new_env = before.get("env") or {}, after.get("env") or {}
    names = sorted(n for n in set(old_env) | set(new_env) if old_env.get(n) != new_env.get(n))
    if names:
        label = "variable" if len(names) == 1 else "variables"
        said.append(f"changing the environment {label} {', '.join(names[:5])}")
    return said


def _committed(repo: Repo, head: Any, paths: list[str]) -> set[str]:
    """Those of ``paths`` that commit ``head`` holds (none without a commit)."""
    if not paths or not isinstance(head, str) or not head:
        return set()
    out = git.run(["--literal-pathspecs", "ls-tree", "-z", "--name-only", "--full-tree",
                   "--end-of-options", head, "--", *paths], repo.worktree, check=False)
    return set(out.split("\0")) & set(paths)


# ---------------------------------------------------------------- the rules


def command_key(argv: tuple[str, ...], repo: Repo, cwd: Path,
                clean: Callable[[str], str]) -> str:
    """The command as a shell line, masked: each argument before quoting (a quote must not
    hide a value from the patterns), then the line (``--token VALUE`` spans two)."""
    key = clean(shlex.join(clean(arg) for arg in argv))
    with contextlib.suppress(ValueError):
        where = cwd.resolve().relative_to(repo.worktree.resolve()).as_posix()
        if where != ".":
            key += f"  (in {where})"
    return key


def retry_success(key: str, failures: list[dict[str, Any]], said: list[str],
                  index: int) -> Candidate:
    last = failures[-1]
    error = f"exit {last.get('exit')}" + (f": {last['error']}" if last.get("error") else "")
    times = "once" if len(failures) == 1 else f"{len(failures)} times"
    how = " and ".join(said) if said else "a retry with no change memx could see (flaky?)"
    text = f"`{key}` failed {times} ({error}) and then passed after {how}."
    return Candidate("RetrySuccess", index, index, "en", text, commands=(key,),
                     veracity="tool")


def repetitive(key: str, runs: list[dict[str, Any]], index: int) -> Candidate:
    since = str(runs[0].get("at", ""))[:10]
    text = (f"`{key}` is run again and again in this repository ({len(runs)} runs since "
            f"{since}): a routine step, worth a script, an alias or a hook.")
    confidence = min(0.7, 0.5 + 0.05 * (len(runs) - 3))
    return Candidate("RepetitiveOp", index, index, "en", text, commands=(key,),
                     veracity="tool", confidence=confidence)
