"""Atomic writes, the writer lock and prefix resolution."""

from __future__ import annotations

import os
import subprocess
import sys
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


HOLDER = """
import sys, time
from pathlib import Path
from memx_cli.fsutil import locked
with locked(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
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


def _hold(lock: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock), str(seconds)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_second_writer_waits_for_the_lock(tmp_path: Path) -> None:
    lock = tmp_path / "write.lock"
    proc = _hold(lock, 0.5)
    start = time.monotonic()
    with locked(lock, wait=10):
        waited = time.monotonic() - start
    proc.wait()
    assert waited >= 0.2


def test_lock_timeout_is_a_clear_error(tmp_path: Path) -> None:
    lock = tmp_path / "write.lock"
    proc = _hold(lock, 5)
    try:
        with pytest.raises(LockTimeoutError) as info, locked(lock, wait=0.2):
            pass
        assert str(info.value) == (f"another memx process has held {lock} for 0s; "
                                   "try again when it has finished")
    finally:
        proc.kill()
        proc.wait()


def test_lock_is_reentrant_in_one_process_and_still_excludes_others(tmp_path: Path) -> None:
    lock = tmp_path / "write.lock"
    with locked(lock, wait=1), locked(lock, wait=1):
        other = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock), "0"],
                                 stdout=subprocess.PIPE, text=True)
        # another process that asks now is refused at once (no wait on the clock)
        probe = subprocess.run([sys.executable, "-c", PROBE, str(lock)], capture_output=True,
                               text=True, timeout=60)
        assert probe.stdout == "busy\n", probe.stderr
    assert other.stdout is not None and other.stdout.readline().strip() == "held"
    other.wait(timeout=10)
