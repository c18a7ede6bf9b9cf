"""Registering memx's merge driver for memory files, and what it leaves behind (issue 17).

Two halves, like git wants them: ``.memx/.gitattributes`` (committed, so every clone
routes memory files to the driver named ``memx``) and ``merge.memx.driver`` in the clone's
own git config (never committed: it names this machine's Python). A clone with the
attributes but no driver falls back to git's line merge, so ``memx doctor`` reports it.

When both sides edited a memory's content the driver writes the other side's version as
a new file; git's merge cannot stage it (git holds the index), so the driver lists it in
the clone's git dir and the post-merge / post-rewrite hook stages it.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memx_cli import git
from memx_cli.errors import MemxError
from memx_cli.fsutil import atomic_write

DRIVER = "memx"
ATTRIBUTES = ("memories/*.yaml merge=memx", "archive/*.yaml merge=memx")
ATTRIBUTES_HEADER = "# memx: merge memory files field by field (see docs/git.md)\n"
PENDING_NAME = "memx-merge-copies"


@dataclass(frozen=True)
class DriverState:
    attributes: bool  # .memx/.gitattributes routes memory files to the driver
    command: str | None  # merge.memx.driver in this clone's config
    problem: str | None = None


def driver_command(python: str | None = None) -> str:
    return f"{shlex.quote(python or sys.executable)} -m memx_cli merge-file %O %A %B %P"


def _attributes_path(store_root: Path) -> Path:
    return store_root / ".gitattributes"


def _has_attributes(store_root: Path) -> bool:
    try:
        lines = _attributes_path(store_root).read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    return all(line in lines for line in ATTRIBUTES)


def register(worktree: Path, store_root: Path, python: str | None = None) -> list[str]:
    """Write the attributes (when the store exists) and the clone's driver config.
    Returns what changed, in words; idempotent."""
    changed = []
    if store_root.is_dir() and not _has_attributes(store_root):
        path = _attributes_path(store_root)
        try:
            kept = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            kept = ATTRIBUTES_HEADER
        missing = [line for line in ATTRIBUTES if line not in kept.splitlines()]
        text = kept + ("" if kept.endswith("\n") else "\n") + "\n".join(missing) + "\n"
        atomic_write(path, text.encode("utf-8"))
        changed.append("wrote .memx/.gitattributes (commit it)")
    command = driver_command(python)
    if _configured(worktree) != command:
        with _repository(worktree) as repo, repo.config_writer("repository") as config:
            config.set_value(SECTION, "driver", command)
        changed.append(f"set merge.{DRIVER}.driver in .git/config")
    return changed


# The driver's section in git's config files (git config merge.memx.driver).
SECTION = f'merge "{DRIVER}"'


def _repository(worktree: Path) -> Any:
    """GitPython's view of the clone: its config object reads every level git reads and
    writes this clone's file under git's own lock. Install time only (~85 ms to import:
    never on a hook's or a search's path)."""
    try:
        import git as gitpython
    except ImportError as exc:
        git.require()  # GitPython refuses to import without a git to run
        first = str(exc).strip().splitlines()[:1]  # (its message spans many lines)
        raise MemxError(f"GitPython cannot be imported ({' '.join(first)}); "
                        "reinstall memx") from None
    try:
        return gitpython.Repo(worktree)
    except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError):
        raise MemxError(f"{worktree} is not a git repository") from None


def _configured(worktree: Path) -> str | None:
    """merge.memx.driver as git sees it (any config level), or None."""
    with _repository(worktree) as repo:
        value = repo.config_reader().get_value(SECTION, "driver", default="")
    return str(value).strip() or None


def state(worktree: Path, store_root: Path) -> DriverState:
    attributes = _has_attributes(store_root)
    try:
        command = _configured(worktree)
    except MemxError:
        command = None
    problem = None
    if command is None:
        problem = ("this clone has no memx merge driver: merges of memory files fall back to "
                   "git's line merge; run memx hooks install")
    elif not attributes:
        problem = ("memory files are not routed to the memx merge driver (.memx/.gitattributes "
                   "is missing); run memx hooks install and commit the file")
    else:
        python = shlex.split(command)[0] if command.strip() else ""
        if python and not Path(python).exists():
            problem = (f"the memx merge driver's Python ({python}) is gone; "
                       "run memx hooks install again")
    return DriverState(attributes, command, problem)


# ---------------------------------------------------------------- conflict copies


def _pending_file(worktree: Path) -> Path:
    return git.private_git_dir(worktree) / PENDING_NAME


def record_copy(worktree: Path, path: Path) -> None:
    """Remember a file the driver wrote, for the post-merge hook to stage."""
    pending = _pending_file(worktree)
    try:
        known = pending.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        known = []
    relative = path.relative_to(worktree).as_posix()
    if relative not in known:
        atomic_write(pending, "\n".join([*known, relative, ""]).encode("utf-8"), durable=False)


def stage_copies(worktree: Path) -> list[str]:
    """Stage the conflict copies of the last merges; returns their paths."""
    pending = _pending_file(worktree)
    try:
        paths = [p for p in pending.read_text(encoding="utf-8").splitlines() if p]
    except FileNotFoundError:
        return []
    present = [p for p in paths if (worktree / p).is_file()]
    if present:
        git.run(["add", "--", *present], cwd=worktree)
    pending.unlink(missing_ok=True)
    return present


def stage_copies_notice(worktree: Path) -> tuple[str, ...]:
    """Stage the conflict copies (the post-merge / post-rewrite hook); what to tell."""
    staged = stage_copies(worktree)
    if not staged:
        return ()
    return (f"memx: {len(staged)} memory(ies) had their content edited on both sides; the "
            "other version is kept as a new memory linked by a recorded conflict, staged: "
            f"{', '.join(staged)}. Commit it, then settle it with memx conflicts and "
            "memx resolve.",)
