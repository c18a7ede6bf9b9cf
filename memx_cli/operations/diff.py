"""``memx diff``: what a range of commits does to memory, for review (SPEC 6).

Compares the memory files of two states of the repository — two revisions, HEAD and the
index (``--staged``), or HEAD and the work tree (new untracked memory files included) —
and sorts every memory that differs into added, changed (with a content diff), deleted,
superseded, archived and restored, plus the conflicts the range records for the first
time and the files that do not parse. ``memx diff`` prints it as text, Markdown (a
pull-request comment) or JSON.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memx_cli import git
from memx_cli.errors import InvalidMemoryError, MemxError
from memx_cli.store import memory as memfmt
from memx_cli.store.memory import Memory, Problem

if TYPE_CHECKING:
    from memx_cli.operations.attention import Attention

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's well-known empty tree
MEMORY_DIRS = {"memories": ".memx/memories", "archive": ".memx/archive"}
WORKTREE, INDEX = "work tree", "index"
# Fields that move on their own (bookkeeping) or are reported in their own section.
NOT_A_CHANGE = frozenset({"updated_at", "superseded_by", "conflicts_with"})


@dataclass(frozen=True)
class Changed:
    before: Memory
    after: Memory
    fields: tuple[str, ...]

    @property
    def content_diff(self) -> list[str]:
        """``-``/``+`` lines of the content, when it changed."""
        if self.before.content == self.after.content:
            return []
        lines = difflib.unified_diff(self.before.content.splitlines(),
                                     self.after.content.splitlines(), lineterm="", n=1)
        return [line for line in lines if not line.startswith(("---", "+++", "@@"))]


@dataclass
class MemoryDiff:
    label: str  # what was compared, for display: "origin/main...HEAD", "staged changes ..."
    head: str  # a revision, INDEX or WORKTREE
    added: list[Memory] = field(default_factory=list)
    changed: list[Changed] = field(default_factory=list)
    deleted: list[Memory] = field(default_factory=list)
    superseded: list[Memory] = field(default_factory=list)  # as they are after the range
    archived: list[Memory] = field(default_factory=list)
    restored: list[Memory] = field(default_factory=list)
    conflicts: list[tuple[str, str]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    contents: dict[str, str] = field(default_factory=dict)  # id -> content, either side
    base: str = "HEAD"  # the revision compared against
    attention: Attention | None = None  # what review() found that must not be missed

    SECTIONS = ("added", "changed", "superseded", "archived", "restored", "deleted",
                "conflicts", "problems")

    def counts(self) -> dict[str, int]:
        return {name: len(getattr(self, name)) for name in self.SECTIONS}

    @property
    def empty(self) -> bool:
        return not any(self.counts().values()) and not (self.attention and
                                                         self.attention.count())


def parse_range(worktree: Path, spec: str | None, staged: bool) -> tuple[str, str, str]:
    """(base revision, head, label) for ``A..B``, ``A...B``, ``A`` or nothing."""
    if staged and spec:
        raise MemxError("--staged compares the index with HEAD; do not also pass a range")
    if spec and "..." in spec:
        left, _, right = spec.partition("...")
        head = right or "HEAD"
        git.resolve_rev(worktree, head)
        base = git.merge_base(worktree, git.resolve_rev(worktree, left or "HEAD"),
                              git.resolve_rev(worktree, head))
        return base, head, f"{left or 'HEAD'}...{head}"
    if spec and ".." in spec:
        left, _, right = spec.partition("..")
        base, head = left or "HEAD", right or "HEAD"
        git.resolve_rev(worktree, base)
        git.resolve_rev(worktree, head)
        return base, head, f"{base}..{head}"
    base = spec or "HEAD"
    against = "the index" if staged else "the work tree"
    if git.head_commit(worktree) is None and base == "HEAD":
        return EMPTY_TREE, INDEX if staged else WORKTREE, f"{against} (no commits yet)"
    git.resolve_rev(worktree, base)
    return base, INDEX if staged else WORKTREE, f"{against} against {base}"


def _locate(path: str) -> tuple[str, str] | None:
    """(area, id) of a memory file path, or None for other files under .memx/."""
    parts = path.split("/")
    if len(parts) == 3 and parts[1] in MEMORY_DIRS and parts[2].endswith(".yaml"):
        return parts[1], parts[2][:-5]
    return None


def diff(worktree: Path, spec: str | None = None, staged: bool = False) -> MemoryDiff:
    base, head, label = parse_range(worktree, spec, staged)
    dirs = list(MEMORY_DIRS.values())
    changes = git.changed_paths(worktree, base, None if head == WORKTREE else head, dirs)
    if head == WORKTREE:
        changes += [("A", p) for p in git.untracked(worktree, dirs)]
    before: dict[str, tuple[str, str]] = {}  # id -> (area, path)
    after: dict[str, tuple[str, str]] = {}
    for status, path in changes:
        where = _locate(path)
        if where is None:
            continue
        area, memory_id = where
        if status[:1] != "A":
            before[memory_id] = (area, path)
        if status[:1] != "D":
            after[memory_id] = (area, path)
    result = MemoryDiff(label, head, base=base)
    old = _read(worktree, base, before, None)
    new = _read(worktree, head, after, result.problems)  # what is broken after the range
    result.contents = {m.id: m.content for m in (*old.values(), *new.values())}
    for memory_id in sorted(set(before) | set(after)):
        _classify(result, memory_id, before.get(memory_id), after.get(memory_id),
                  old.get(memory_id), new.get(memory_id))
    return result


def _read(worktree: Path, rev: str, files: dict[str, tuple[str, str]],
          problems: list[Problem] | None) -> dict[str, Memory]:
    """The memories of ``files`` at ``rev``; unparsable files go to ``problems``."""
    if rev == WORKTREE:
        blobs: dict[str, bytes | None] = {}
        for _, path in files.values():
            try:
                blobs[path] = (worktree / path).read_bytes()
            except OSError:
                blobs[path] = None
    else:
        prefix = ":" if rev == INDEX else f"{rev}:"
        found = git.read_blobs(worktree, [prefix + p for _, p in files.values()])
        blobs = {spec[len(prefix):]: data for spec, data in found.items()}
    memories = {}
    for memory_id, (_, path) in files.items():
        data = blobs.get(path)
        if data is None:
            continue
        try:
            memories[memory_id] = memfmt.load(data, path)
        except InvalidMemoryError as exc:
            if problems is not None:
                from memx_cli.store.files import _problem_from

                shown = path if rev in (INDEX, WORKTREE) else f"{rev}:{path}"
                problem = _problem_from(exc, path)
                problems.append(Problem(shown, problem.line, problem.message))
    return memories


def _classify(result: MemoryDiff, memory_id: str, was: tuple[str, str] | None,
              now: tuple[str, str] | None, old: Memory | None, new: Memory | None) -> None:
    if new is not None:
        known = set(old.conflicts_with) if old is not None else set()
        for other in new.conflicts_with:
            pair = (min(memory_id, other), max(memory_id, other))
            if other not in known and pair not in result.conflicts:
                result.conflicts.append(pair)
    if was is None or old is None:
        if new is not None and now is not None:
            (result.added if now[0] == "memories" else result.archived).append(new)
        return
    if now is None or new is None:
        if now is None:
            result.deleted.append(old)
        return
    if was[0] != now[0]:
        (result.archived if now[0] == "archive" else result.restored).append(new)
        return
    if new.superseded_by and not old.superseded_by:
        result.superseded.append(new)
    before, after = old.to_dict(), new.to_dict()
    fields = tuple(k for k in dict.fromkeys([*before, *after])
                   if k not in NOT_A_CHANGE and before.get(k) != after.get(k))
    if fields:
        result.changed.append(Changed(old, new, fields))
