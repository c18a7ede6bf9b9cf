"""Atomic writes, the writer lock and prefix resolution."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memx_cli.errors import LockTimeoutError
from memx_cli.fsutil import atomic_write, locked
from memx_cli.store.files import Store


def test_a_crash_before_rename_leaves_the_old_file(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "m.yaml"
    target.write_bytes(b"old\n")

    def crash(src: object, dst: object) -> None:
        raise OSError("simulated crash")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="simulated crash"):
        atomic_write(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["m.yaml"]


def test_temporary_files_are_never_listed_as_memories(tmp_path: Path) -> None:
    store = Store(tmp_path, "project")
    store.create()
    (store.memories_dir / ".01abc.yaml.123.tmp").write_text("partial")
    (store.memories_dir / ".hidden.yaml").write_text("swap")
    assert store.files() == []


# Holds the lock until its standard input closes (no clock: the test decides when), and
# writes "releasing" to the file argv[2] just before it lets go.
HOLDER = """
import sys
from pathlib import Path
from memx_cli.fsutil import locked
with locked(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
    if len(sys.argv) > 2:
        Path(sys.argv[2]).write_text("releasing")
"""


PROBE = """
import sys
from pathlib import Path
from memx_cli.errors import LockTimeoutError
from memx_cli.fsutil import locked
try:
    with locked(Path(sys.argv[1]), wait=0):
        print("free")
except LockTimeoutError:
    print("busy")
"""


def _hold(lock: Path, marker: Path | None = None) -> subprocess.Popen[str]:
    """Another process holding ``lock`` until its standard input is closed."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock),
                             *([str(marker)] if marker else [])],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def _release(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0


class _SleepSpy:
    """Stands in for fsutil's ``time``: notes each sleep (a writer that found the lock
    taken waits by sleeping) and otherwise is the real module."""

    def __init__(self) -> None:
        self.waited = threading.Event()

    def sleep(self, seconds: float) -> None:
        self.waited.set()
        time.sleep(seconds)

    def __getattr__(self, name: str) -> object:
        return getattr(time, name)


def test_second_writer_waits_for_the_lock(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The second writer found the lock taken, waited, and got it only after the first
    let go (the order of events, not a duration)."""
    from memx_cli import fsutil

    lock, marker = tmp_path / "write.lock", tmp_path / "released"
    spy = _SleepSpy()
    monkeypatch.setattr(fsutil, "time", spy)
    proc = _hold(lock, marker)
    seen: list[bool] = []

    def second() -> None:
        with locked(lock, wait=60):
            seen.append(marker.exists())  # was the first writer's release already done?

    writer = threading.Thread(target=second)
    writer.start()
    try:
        # it tried while the lock was held and is waiting (or, broken, already through)
        while not spy.waited.wait(0.05) and writer.is_alive():
            pass
    finally:
        _release(proc)
        writer.join(timeout=60)
    assert seen == [True]
    assert spy.waited.is_set()


def test_lock_timeout_is_a_clear_error(tmp_path: Path) -> None:
    lock = tmp_path / "write.lock"
    proc = _hold(lock)
    try:
        with pytest.raises(LockTimeoutError) as info, locked(lock, wait=0.2):
            pass
        assert str(info.value) == (f"another memx process has held {lock} for 0s; "
                                   "try again when it has finished")
    finally:
        _release(proc)


def test_lock_is_reentrant_in_one_process_and_still_excludes_others(tmp_path: Path) -> None:
    lock = tmp_path / "write.lock"
    with locked(lock, wait=1), locked(lock, wait=1):
        other = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock)],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        # another process that asks now is refused at once (no wait on the clock)
        probe = subprocess.run([sys.executable, "-c", PROBE, str(lock)], capture_output=True,
                               text=True, timeout=60)
        assert probe.stdout == "busy\n", probe.stderr
    assert other.stdout is not None and other.stdout.readline().strip() == "held"
    other.wait(timeout=10)


@pytest.mark.parametrize("inside", [True, False])
def test_display_for_names_the_file_as_display_of_its_path(tmp_path: Path,
                                                           inside: bool) -> None:
    """Issue 29: an index update names each document's file from the folder's displayed
    form; the name is the one ``display(path_for(...))`` gives, live or archived, with
    the store inside the work tree (relative) or outside it (absolute, the control)."""
    tree = tmp_path / "tree"
    root = tree / ".memx" if inside else tmp_path / "elsewhere" / ".memx"
    store = Store(root, "project", display_base=tree)
    memory_id = "01jz8xv4b6m2k9q3r5t7w9y1c3"
    for archived in (False, True):
        shown = store.display_for(memory_id, archived)
        assert shown == store.display(store.path_for(memory_id, archived))
        assert shown.startswith(".memx/") is inside
        assert shown.endswith(("archive/" if archived else "memories/") + f"{memory_id}.yaml")
    store.root = tmp_path / "moved"  # a store pointed elsewhere names files there
    assert store.display_for(memory_id) == str(tmp_path / "moved" / "memories" / f"{memory_id}.yaml")
