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
            ["git", *args], cwd=cwd, capture_output=True, text=True, errors="replace",
            check=False,
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


# ---------------------------------------------------------------- anchors (SPEC 3.5)


def head_commit(worktree: Path) -> str | None:
    """The sha of HEAD; None in a repository without commits."""
    out = run(["rev-parse", "--verify", "--quiet", "HEAD"], cwd=worktree, check=False)
    return out.strip() or None


def ls_files(worktree: Path) -> list[str]:
    """Every tracked or untracked-but-not-ignored path, repository-relative and POSIX."""
    out = run(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=worktree,
              check=False)
    return [p for p in out.split("\0") if p]


def grep(worktree: Path, patterns: list[str], *, fixed: bool = False,
         exclude: tuple[str, ...] = ()) -> list[tuple[str, int, str]]:
    """(path, line, text) of text lines of tracked and untracked (not ignored) files
    matching any pattern (extended regex unless ``fixed``); [] when nothing matches."""
    if not patterns:
        return []
    args = ["grep", "--untracked", "-n", "-I", "--null", "--no-color", "-F" if fixed else "-E"]
    for pattern in patterns:
        args += ["-e", pattern]
    args += ["--", ".", *(f":(exclude){p}" for p in exclude)]
    out = run(args, cwd=worktree, check=False)  # exit 1 means "no match"
    found = []
    for line in out.splitlines():
        path, _, rest = line.partition("\0")
        number, _, text = rest.partition("\0")
        if number.isdigit():
            found.append((path, int(number), text))
    return found


def renames_since(worktree: Path, commit: str | None) -> dict[str, str]:
    """old path -> new path for the renames git detects between ``commit`` (HEAD when
    None or unknown) and the work tree, staged renames (`git mv`) included."""
    base = "HEAD"
    if commit and run(["rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
                      cwd=worktree, check=False).strip():
        base = commit
    out = run(["diff", "-M", "--name-status", "-z", base], cwd=worktree, check=False)
    fields = out.split("\0")
    renames: dict[str, str] = {}
    i = 0
    while i < len(fields):
        status = fields[i]
        if status.startswith(("R", "C")) and i + 2 < len(fields):
            if status.startswith("R"):
                renames[fields[i + 1]] = fields[i + 2]
            i += 3
        else:
            i += 2
    return renames

