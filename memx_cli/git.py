"""The one place memx talks to git (SPEC 6).

Plain ``git`` subprocesses: GitPython costs ~85 ms to import, more than most of the
commands that need git at all, so it is only used where its object model pays off.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .errors import MemxError, NotARepoError


def run(args: list[str], cwd: Path, check: bool = True) -> str:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, check=False,
        )
    except FileNotFoundError:
        raise MemxError("git is not installed or not on PATH") from None
    if check and proc.returncode != 0:
        detail = proc.stderr.strip().splitlines()
        raise MemxError(f"git {args[0]} failed: {detail[-1] if detail else proc.returncode}")
    return proc.stdout


def find_worktree(start: Path) -> Path:
    """The top of the git work tree containing ``start``; NotARepoError outside one."""
    # Walking up for .git costs microseconds; git itself is asked only when the walk
    # fails (GIT_DIR / GIT_WORK_TREE setups) so the common path spawns nothing.
    if "GIT_DIR" not in os.environ:
        here = start.resolve()
        for candidate in (here, *here.parents):
            if (candidate / ".git").exists():
                return candidate
    try:
        out = run(["rev-parse", "--show-toplevel"], cwd=start, check=False).strip()
    except MemxError:
        out = ""
    if not out:
        raise NotARepoError(
            f"not inside a git repository ({start}); run memx in a repository, or 'git init' first"
        )
    return Path(out)


def current_branch(worktree: Path) -> str | None:
    out = run(["symbolic-ref", "--quiet", "--short", "HEAD"], cwd=worktree, check=False)
    return out.strip() or None


def git_dir(worktree: Path) -> Path:
    out = run(["rev-parse", "--git-common-dir"], cwd=worktree).strip()
    path = Path(out)
    return path if path.is_absolute() else (worktree / path).resolve()


def hooks_dir(worktree: Path) -> Path:
    out = run(["rev-parse", "--git-path", "hooks"], cwd=worktree).strip()
    path = Path(out)
    return path if path.is_absolute() else (worktree / path).resolve()


def version() -> str | None:
    try:
        out = subprocess.run(["git", "--version"], capture_output=True, text=True, check=False)
    except FileNotFoundError:
        return None
    return out.stdout.strip().removeprefix("git version ") or None
