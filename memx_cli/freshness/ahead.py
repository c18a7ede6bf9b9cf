"""The git half of the change check, started ahead of need (issue 15).

A cold command's change check (``quick.stamp``) asks ``git diff-files`` which tracked
memory files differ from git's stat cache: git lstat-s every tracked file, the one part
of a cold search that grows with the store (about 1.3 µs a file in C, 130-190 ms at
100k). Started as the command starts, it runs on the other core while this process
imports click, the search modules and its libraries, and ``quick.stamp`` collects the
answer when it gets there. This module imports nothing of memx (the thin client calls
it before the CLI is imported) and starts git only for a store whose last check left
a basis with git's index in it (``state.json``): a small store, one outside git or one
with many untracked files is checked without git, as before.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

# Size and mtime only, as the full scan compares: inodes and ctimes change when a
# repository is copied or restored, which would list every file until the next
# `git status`; edits after git's look still show (git re-reads racy entries).
DIFF = ["-c", "core.checkStat=minimal", "-c", "core.trustCtime=false", "diff-files",
        "--name-only", "--relative", "-z", "--", "memories", "archive"]
# Set inside git hooks; the check must read the work tree's own index.
GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")
# An answer older than this is not used (a long-lived process that started one and
# never asked): the check runs git again.
FRESH_NS = 2_000_000_000
STORE_DIR = ".memx"

# store root -> (the git process, the time just before it started)
_started: dict[str, tuple[Any, int]] = {}


def start(root: str, write: bool = False) -> bool:
    """Start ``git diff-files`` for the store at ``root`` if its last check recorded a
    basis with git's index (else nothing, and the check runs as before); True when
    started (or already running). ``write``: for a write's Curator, which needs no git
    while the folders and git's index are as the state left them (``unchanged``)."""
    if root in _started:
        return True
    try:
        with open(os.path.join(root, "cache", "state.json"), "rb") as f:
            state = json.loads(f.read())
        basis = state.get("basis")
    except (OSError, ValueError, AttributeError):
        return False
    if (not isinstance(basis, dict) or basis.get("root") != root
            or not isinstance(basis.get("index"), str) or basis.get("loose") is None):
        return False
    if write and unchanged(root, _settled(state), basis["index"]):
        return False
    import subprocess

    now = time.time_ns()
    env = {k: v for k, v in os.environ.items() if k not in GIT_ENV}
    try:
        proc = subprocess.Popen(["git", *DIFF], cwd=root, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        return False
    _started[root] = (proc, now)
    return True


def _settled(state: dict[str, Any]) -> tuple[Any, Any] | None:
    """The folders' marks and git's index mark the state vouches for, read as JSON only
    (``quick.settled`` also checks the look's digest; here a wrong answer only starts
    git, or leaves the check to start it later)."""
    written, look = state.get("written"), state.get("look")
    if isinstance(written, dict):
        return (state.get("left"), written.get("git")) if state.get("left") else None
    return (look.get("dirs"), look.get("git")) if isinstance(look, dict) else None


def unchanged(root: str, marks: tuple[Any, Any] | None, index: str | None) -> bool:
    """Whether the memory folders under ``root`` and git's index file (``index``) still
    have ``marks``: the folders' (inode.mtime, ``-`` missing) and the index's
    (inode.mtime.size, None without one). A few stats; an edit in place moves none."""
    if marks is None or not isinstance(marks[0], list) or len(marks[0]) != 2:
        return False
    dirs, git = marks
    now = []
    for name in ("memories", "archive"):
        try:
            st = os.stat(os.path.join(root, name))
        except FileNotFoundError:
            now.append("-")
            continue
        except OSError:
            return False
        now.append(f"{st.st_ino}.{st.st_mtime_ns}")
    if index is None:
        return git is None and now == dirs
    try:
        st = os.stat(index)
    except OSError:
        return False
    return now == dirs and git == f"{st.st_ino}.{st.st_mtime_ns}.{st.st_size}"


def start_here(cwd: str, write: bool = False) -> bool:
    """``start`` for the store of the work tree around ``cwd``, found as memx finds it
    (the nearest folder with ``.git``); nothing when git is pointed elsewhere."""
    if "GIT_DIR" in os.environ:
        return False
    try:
        here = os.path.realpath(cwd)
    except (OSError, ValueError):
        return False
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return start(os.path.join(here, STORE_DIR), write)
        parent = os.path.dirname(here)
        if parent == here:
            return False
        here = parent


def running(root: str) -> bool:
    """Whether a git look started for ``root`` waits to be collected (``take``): the
    change check will wait for it, and a search can do meanwhile what it needs whatever
    the check finds (generator/search.py, ``Searcher._ahead``)."""
    return root in _started


def take(root: str) -> tuple[bytes | None, int] | None:
    """The output of the git process started for ``root`` (None: git failed) and the
    time before it started; None when none was started or its answer is stale."""
    found = _started.pop(root, None)
    if found is None:
        return None
    proc, started = found
    if time.time_ns() - started > FRESH_NS:
        proc.kill()
        proc.wait()
        return None
    out, _ = proc.communicate()
    return (out if proc.returncode == 0 else None), started
