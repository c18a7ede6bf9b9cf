"""Install, remove and inspect memx's git hook shims (SPEC 6).

A shim is a small POSIX shell script written from ``memx_cli/githooks/shim.sh``; it runs the
hidden ``memx hook-impl TYPE`` with the Python that installed it. Every shim carries
``MARKER`` so memx recognises its own files (``memx doctor`` looks for the same string).
A hook that was there before is moved aside to ``<hook>.memx-legacy``, run first by the
shim, and moved back by ``uninstall`` — untouched, byte for byte. The hooks directory is
whatever git uses: ``core.hooksPath`` when set, the common git dir's ``hooks/`` for linked
worktrees, the submodule's own git dir for a submodule.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from memx_cli import git
from memx_cli.errors import MemxError
from memx_cli.fsutil import atomic_write

HOOK_TYPES = ("pre-commit", "post-commit", "post-merge", "post-checkout", "post-rewrite")
MARKER = "memx-hook"
LEGACY_SUFFIX = ".memx-legacy"
FRAMEWORK_LEGACY_SUFFIX = ".legacy"  # where `pre-commit install` moves the hook it finds
SHIM_VERSION = 2  # 2: the entry path, post-commit in a session of its own (issue 15)


@dataclass(frozen=True)
class HookState:
    """One hook file as memx sees it."""

    name: str
    path: Path
    state: str  # "memx", "other" (a hook memx did not write) or "absent"
    chained: bool = False  # a previous hook kept as <name>.memx-legacy runs first
    python: str | None = None  # the interpreter a memx shim runs
    problem: str | None = None  # why the shim will not work as it is


@dataclass(frozen=True)
class Change:
    name: str
    action: str  # what install/uninstall did, in words


def parse_names(values: Iterable[str]) -> tuple[str, ...]:
    """Hook types from ``--hooks`` values (repeatable, comma-separated); all when empty."""
    names: list[str] = []
    for value in values:
        for name in (v.strip() for v in value.split(",")):
            if name not in HOOK_TYPES:
                raise MemxError(f"unknown hook {name!r}; choose from {', '.join(HOOK_TYPES)}")
            if name not in names:
                names.append(name)
    return tuple(names) or HOOK_TYPES


def hooks_directory(worktree: Path) -> Path:
    return git.hooks_dir(worktree)


def render(name: str, python: str) -> bytes:
    template = resources.files("memx_cli").joinpath("githooks/shim.sh").read_text("utf-8")
    text = (template.replace("@HOOK@", name).replace("@PYTHON@", shlex.quote(python))
            .replace("@VERSION@", str(SHIM_VERSION)))
    return text.encode("utf-8")


def is_ours(path: Path) -> bool:
    try:
        return MARKER.encode() in path.read_bytes()
    except OSError:
        return False


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _write_executable(path: Path, data: bytes) -> None:
    """Atomically, and executable before it appears under its name."""
    atomic_write(path, data, durable=False, mode=0o755)


def install(worktree: Path, names: Iterable[str] = HOOK_TYPES,
            python: str | None = None) -> list[Change]:
    """Write a shim for each hook; keep (and chain) any hook memx did not write."""
    directory = hooks_directory(worktree)
    if not directory.is_dir():
        # git makes no core.hooksPath folder and runs no hooks from a missing one; a
        # folder it names that is not there is the user's to create (or the setting a
        # slip), so only git's own hooks/ is made here.
        configured = git.run(["config", "--get", "core.hooksPath"], cwd=worktree,
                             check=False).strip()
        if configured:
            raise MemxError(f"core.hooksPath is {configured}, a folder that does not exist "
                            "(git runs no hooks from it); create it or unset core.hooksPath, "
                            "then run memx hooks install")
        directory.mkdir(parents=True, exist_ok=True)
    changes = []
    for name in names:
        path, legacy = directory / name, directory / (name + LEGACY_SUFFIX)
        data = render(name, python or sys.executable)
        if _exists(path) and not is_ours(path):
            if _exists(legacy):
                raise MemxError(f"cannot install the {name} hook: both {path} and {legacy} "
                                "exist; merge them into one file, then run memx hooks install")
            os.replace(path, legacy)
            _write_executable(path, data)
            changes.append(Change(name, "installed (the existing hook is kept and runs first)"))
        elif _exists(path):
            same = path.read_bytes() == data and os.access(path, os.X_OK)
            if not same:
                _write_executable(path, data)
            changes.append(Change(name, "already installed" if same else "updated"))
        else:
            _write_executable(path, data)
            chained = " (chained with the kept previous hook)" if _exists(legacy) else ""
            changes.append(Change(name, "installed" + chained))
    return changes


def uninstall(worktree: Path, names: Iterable[str] = HOOK_TYPES) -> list[Change]:
    """Remove memx's shims and put back the hooks they replaced; leave others alone."""
    directory = hooks_directory(worktree)
    changes = []
    for name in names:
        path, legacy = directory / name, directory / (name + LEGACY_SUFFIX)
        framework = directory / (name + FRAMEWORK_LEGACY_SUFFIX)
        if _exists(path) and not is_ours(path) and _exists(framework) and is_ours(framework):
            # `pre-commit install` after ours: its script runs our shim, which it moved
            # to <name>.legacy; without this the shim stayed active (issue 14).
            framework.unlink()
            if _exists(legacy):
                os.replace(legacy, framework)
                changes.append(Change(name, f"removed from {framework.name}; the hook before "
                                            "memx is back there"))
            else:
                changes.append(Change(name, f"removed from {framework.name} (pre-commit's "
                                            "chained hook)"))
            continue
        if _exists(path) and not is_ours(path):
            changes.append(Change(name, "left alone (not a memx hook)"))
            continue
        removed = _exists(path)
        if removed:
            path.unlink()
        if _exists(legacy):
            os.replace(legacy, path)
            changes.append(Change(name, "removed; the previous hook is back"))
        else:
            changes.append(Change(name, "removed" if removed else "not installed"))
    return changes


def _shim_python(data: bytes) -> str | None:
    for line in data.decode("utf-8", "replace").splitlines():
        if line.startswith("MEMX_PYTHON="):
            words = shlex.split(line[len("MEMX_PYTHON="):])
            return words[0] if words else None
    return None


def status(worktree: Path) -> tuple[Path, list[HookState]]:
    """The hooks directory and the state of each hook memx can install."""
    directory = hooks_directory(worktree)
    states = []
    for name in HOOK_TYPES:
        path = directory / name
        chained = _exists(directory / (name + LEGACY_SUFFIX))
        if not _exists(path):
            states.append(HookState(name, path, "absent", chained))
            continue
        if not is_ours(path):
            states.append(HookState(name, path, "other"))
            continue
        data = path.read_bytes()
        python = _shim_python(data)
        problem = None
        if python is None or not os.access(python, os.X_OK):
            problem = f"its Python ({python}) is gone; run memx hooks install again"
        elif not os.access(path, os.X_OK):
            problem = "not executable, so git skips it; run memx hooks install again"
        elif data != render(name, python):
            problem = "written by another memx version; run memx hooks install again"
        states.append(HookState(name, path, "memx", chained, python, problem))
    return directory, states
