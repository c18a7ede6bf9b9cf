"""The post-commit background run outlives git's process group (issue 15): a terminal
closing or a CI runner ending the job kills the group, and the queued commit must still
be reflected on."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import time
from pathlib import Path

from memx_cli.githooks import impl as hookimpl
from memx_cli.store.repo import Repo

from .conftest import git
from .test_hooks import FIX_MESSAGE, hooked, memory_files, wait_for_background

__all__ = ["hooked"]  # the fixture, shared with test_hooks


def test_killing_gits_process_group_spares_the_background_run(hooked: Path) -> None:
    (hooked / "src").mkdir()
    (hooked / "src" / "app.py").write_text("import yaml\n")
    git(hooked, "add", "src/app.py")
    proc = subprocess.Popen(["git", "commit", "-q", "-m", FIX_MESSAGE], cwd=hooked,
                            start_new_session=True)  # git leads a process group of its own
    assert proc.wait(timeout=60) == 0
    _wait_until_the_run_holds_its_lock(hooked)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # nothing left in git's group: the run is elsewhere already
    wait_for_background(hooked)
    [path] = memory_files(hooked)
    assert "ModuleNotFoundError: No module named yaml" in path.read_text()


def _wait_until_the_run_holds_its_lock(root: Path, timeout: float = 30.0) -> None:
    """The run takes background.lock only after it has left git's session (or it has
    already emptied the queue): from then on, killing git's group tests the detachment.
    The deadline only bounds a hang."""
    lock = root / ".memx" / "local" / "background.lock"
    deadline = time.monotonic() + timeout
    while hookimpl.queued(Repo(root)):
        assert time.monotonic() < deadline, "the background run never took its lock"
        if lock.exists():
            fd = os.open(lock, os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return  # held: the run is going
            finally:
                os.close(fd)  # closing drops a lock this probe took
        time.sleep(0.01)


def test_a_hook_run_takes_the_entry_path(hooked: Path) -> None:
    shim = (hooked / ".git" / "hooks" / "post-merge").read_text()
    assert "from memx_cli.cli import entry" in shim and "shim version 2" in shim
    git(hooked, "checkout", "-q", "-b", "side")
    (hooked / "notes.txt").write_text("side\n")
    git(hooked, "add", "notes.txt")
    git(hooked, "-c", "core.hooksPath=/nonexistent", "commit", "-q", "-m", "side work")
    git(hooked, "checkout", "-q", "main")
    result = subprocess.run(["git", "merge", "-q", "--no-ff", "-m", "merge side", "side"],
                            cwd=hooked, capture_output=True, text=True)
    assert (result.returncode, result.stderr) == (0, "")
