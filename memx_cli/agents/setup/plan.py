"""Plan, show and apply `memx setup AGENT` (and ``--remove``): every change is computed
first as the files' text before and after, shown as a unified diff, and written only when
the caller says so. Nothing is written when any file cannot be read or parsed.
"""

from __future__ import annotations

import contextlib
import difflib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memx_cli.agents.setup import state
from memx_cli.agents.setup.base import Agent, Keep, Part, Place
from memx_cli.agents.setup.registry import AGENTS, lookup
from memx_cli.errors import MemxError
from memx_cli.fsutil import atomic_write


@dataclass(frozen=True)
class FileChange:
    path: Path
    display: str
    what: tuple[str, ...]
    before: str | None
    after: str | None
    keep: Keep = frozenset()  # what the file held before memx first wrote to it
    fresh: bool = True  # memx had nothing in the file yet
    kept: tuple[str, ...] = ()  # the user's own entries of memx's name, left as they are

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def action(self) -> str:
        if not self.changed:
            return "unchanged"
        if self.before is None:
            return "create"
        return "delete" if self.after is None else "update"

    def diff(self) -> str:
        old = f"a/{self.display}" if self.before is not None else "/dev/null"
        new = f"b/{self.display}" if self.after is not None else "/dev/null"
        lines = difflib.unified_diff((self.before or "").splitlines(keepends=True),
                                     (self.after or "").splitlines(keepends=True), old, new)
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in lines)


@dataclass(frozen=True)
class SetupPlan:
    agent: Agent
    scope: str  # "project" or "user"
    remove: bool
    changes: tuple[FileChange, ...]

    @property
    def pending(self) -> list[FileChange]:
        return [c for c in self.changes if c.changed]

    def diff(self) -> str:
        return "".join(c.diff() for c in self.pending)

    @property
    def kept(self) -> list[str]:
        """Where an entry named memx that memx did not write was left alone."""
        return [f"{what} in {c.display}" for c in self.changes for what in c.kept]

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent.name, "scope": self.scope,
                "action": "remove" if self.remove else "setup",
                "changed": bool(self.pending),
                "files": [{"path": c.display, "what": list(c.what), "action": c.action,
                           "kept": list(c.kept)} for c in self.changes],
                "diff": self.diff()}


def _read(path: Path, where: str) -> str | None:
    try:  # bytes decoded as they are: CRLF stays CRLF
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise MemxError(f"{where}: not UTF-8 text; memx leaves it alone") from None
    except OSError as exc:
        raise MemxError(f"cannot read {where}: {exc.strerror}") from None


def _by_file(parts: list[Part]) -> Iterator[tuple[Path, list[Part]]]:
    grouped: dict[Path, list[Part]] = {}
    for part in parts:
        grouped.setdefault(part.path, []).append(part)
    yield from grouped.items()


def plan(name: str, root: Path, home: Path, user: bool = False,
         remove: bool = False, replace: bool = False) -> SetupPlan:
    """The changes of setting up (or removing) agent ``name``; ``replace``: an entry
    named memx that memx did not write is replaced (kept otherwise)."""
    agent = lookup(name)
    place = Place(root, home, user)
    changes = []
    for path, parts in _by_file(agent.parts(place)):
        where = place.display(path)
        before = after = _read(path, where)
        fresh = not any(p.installed(before) for p in parts)
        keep = state.kept(path)
        if keep is None or (fresh and not remove):
            keep = state.before(path, before, parts) if fresh and not remove else frozenset()
        foreign = [p for p in parts if p.foreign(before)]
        kept = () if replace else tuple(p.what for p in foreign)
        if replace and not remove:  # the user's entry gives way: memx's is then memx's to remove
            keep = keep - {p.entry for p in foreign}
        for part in parts:
            after = part.uninstall(after, keep) if remove else part.install(after, replace)
        changes.append(FileChange(path, where, tuple(p.what for p in parts), before, after,
                                  keep, fresh, kept))
    return SetupPlan(agent, "user" if user else "project", remove, tuple(changes))


def apply(setup: SetupPlan, stop_at: tuple[Path, ...]) -> None:
    """Write the planned files; remove files (and the directories memx made for them,
    when left empty, never past ``stop_at``) that the plan deletes."""
    for change in setup.changes:  # unchanged files too: what was there before memx
        if setup.remove:
            if change.changed:
                state.forget(change.path)
        elif change.fresh:
            state.record(change.path, change.keep)
    for change in setup.pending:
        # A symlinked config (dotfiles) is written through the link to its target.
        target = Path(os.path.realpath(change.path))
        if change.after is None:
            with contextlib.suppress(FileNotFoundError):
                target.unlink()
            _prune_dirs(change.path.parent, stop_at)
            continue
        mode = None
        with contextlib.suppress(FileNotFoundError):
            mode = target.stat().st_mode & 0o7777
        atomic_write(target, change.after.encode("utf-8"))
        if mode is not None:
            os.chmod(target, mode)  # ~/.claude.json and friends may be private (0600)


def _prune_dirs(directory: Path, stop_at: tuple[Path, ...]) -> None:
    while directory not in stop_at and directory.parent != directory:
        try:
            directory.rmdir()
        except OSError:
            return  # not empty, or not ours to remove
        directory = directory.parent


def status(root: Path | None, home: Path) -> list[dict[str, Any]]:
    """The agents set up here (project scope) and for this user: for `memx doctor`."""
    found = []
    for agent in AGENTS.values():
        for user in (False, True):
            if root is None and not user:
                continue
            place = Place(root or home, home, user)
            try:
                parts = agent.parts(place)
            except MemxError:
                continue  # no such scope for this agent
            states = []
            for part in parts:
                where = place.display(part.path)
                try:
                    states.append((part, part.installed(_read(part.path, where))))
                except MemxError:
                    states.append((part, False))
            done = [p for p, ok in states if ok]
            if done:
                found.append({"agent": agent.name, "title": agent.title,
                              "scope": "user" if user else "project",
                              "files": sorted({place.display(p.path) for p in done}),
                              "complete": len(done) == len(states)})
    return found
