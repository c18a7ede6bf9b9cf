"""What a reviewer must not miss in a memory diff (issue 17): shown above the rest.

- **policies** added, changed or removed: a policy is pushed into every agent's prompt,
  so a one-line change reaches every session (removed covers deleted, archived,
  superseded, deactivated and turned into a fact; a fact turned policy counts as added);
- **settings**: ``.memx/access.yaml`` (who may write what) and ``.memx/config.yaml``
  (how memx behaves for everyone), with their diff;
- **anchors**: memories whose source anchors no longer match the code, among those the
  range touched or whose anchored files it changed (checked against the work tree, so
  only when the range ends at what is checked out);
- **secrets**: whatever the pre-commit check would block in the ``.memx/`` files the
  range changed.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from memx_cli import git
from memx_cli.operations.diff import INDEX, WORKTREE, MemoryDiff, diff
from memx_cli.store.memory import Memory, Problem
from memx_cli.store.repo import Repo

SETTINGS_FILES = {".memx/access.yaml": "access rules", ".memx/config.yaml": "configuration"}
MAX_SETTINGS_LINES = 40  # settings files are short; a rewrite is summarised past this


@dataclass(frozen=True)
class PolicyChange:
    action: str  # "added", "changed" or "removed"
    memory: Memory  # after the range (before it, when the file is gone)
    how: str = ""  # for removed: deleted, archived, superseded, deactivated, now a fact
    diff: tuple[str, ...] = ()  # content lines, for changed


@dataclass(frozen=True)
class SettingsChange:
    path: str
    what: str  # "access rules" or "configuration"
    status: str  # "added", "changed" or "deleted"
    diff: tuple[str, ...] = ()


@dataclass(frozen=True)
class AnchorFailure:
    memory: Memory
    status: str  # "stale" (the passage changed) or "unverifiable" (the file is gone)
    where: tuple[str, ...]  # the failing anchors, path:start-end


@dataclass
class Attention:
    policies: list[PolicyChange] = field(default_factory=list)
    settings: list[SettingsChange] = field(default_factory=list)
    anchors: list[AnchorFailure] = field(default_factory=list)
    secrets: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what could not be checked, and why

    def count(self) -> int:
        return len(self.policies) + len(self.settings) + len(self.anchors) + len(self.secrets)


def review(repo: Repo, spec: str | None = None, staged: bool = False) -> MemoryDiff:
    """``memx diff``: the memory diff of the range, with what needs attention filled in."""
    result = diff(repo.worktree, spec, staged)
    attention = Attention()
    attention.policies = _policies(result)
    attention.settings = _settings(repo.worktree, result)
    attention.secrets = _secrets(repo, result)
    _anchors(repo, result, attention)
    result.attention = attention
    return result


def _is_policy(mem: Memory | None) -> bool:
    return mem is not None and mem.kind == "policy" and mem.active


def _content_diff(before: str, after: str) -> tuple[str, ...]:
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=1)
    return tuple(line for line in lines if not line.startswith(("---", "+++", "@@")))


def _policies(result: MemoryDiff) -> list[PolicyChange]:
    found = [PolicyChange("added", m) for m in result.added if _is_policy(m)]
    found += [PolicyChange("added", m, "restored") for m in result.restored if _is_policy(m)]
    for change in result.changed:
        was, now = _is_policy(change.before), _is_policy(change.after)
        if now and not was:
            found.append(PolicyChange("added", change.after, "was a fact" if
                                      change.before.kind == "fact" else "reactivated"))
        elif was and not now:
            how = "deactivated" if change.after.kind == "policy" else "now a fact"
            found.append(PolicyChange("removed", change.after, how))
        elif now:
            found.append(PolicyChange("changed", change.after, ", ".join(change.fields),
                                      _content_diff(change.before.content,
                                                    change.after.content)))
    for how, memories in (("deleted", result.deleted), ("archived", result.archived),
                          ("superseded", result.superseded)):
        found += [PolicyChange("removed", m, how) for m in memories if _is_policy(m)
                  or (how == "superseded" and m.kind == "policy")]
    return found


def _blob(worktree: Path, rev: str, path: str) -> bytes | None:
    if rev == WORKTREE:
        try:
            return (worktree / path).read_bytes()
        except OSError:
            return None
    spec = f":{path}" if rev == INDEX else f"{rev}:{path}"
    return git.read_blobs(worktree, [spec])[spec]


def _settings(worktree: Path, result: MemoryDiff) -> list[SettingsChange]:
    head = None if result.head == WORKTREE else ("index" if result.head == INDEX else result.head)
    found = []
    for status, path in git.changed_paths(worktree, result.base, head, list(SETTINGS_FILES)):
        before = _blob(worktree, result.base, path) or b""
        after = _blob(worktree, result.head, path) or b""
        lines = _content_diff(before.decode("utf-8", "replace"), after.decode("utf-8", "replace"))
        if not _significant(lines):
            continue  # comments only: the header of a new store's config.yaml
        if len(lines) > MAX_SETTINGS_LINES:
            lines = (*lines[:MAX_SETTINGS_LINES],
                     f"... {len(lines) - MAX_SETTINGS_LINES} more line(s)")
        word = {"A": "added", "D": "deleted"}.get(status[:1], "changed")
        found.append(SettingsChange(path, SETTINGS_FILES[path], word, lines))
    if result.head == WORKTREE:  # a settings file not yet known to git
        for path in git.untracked(worktree, list(SETTINGS_FILES)):
            after = _blob(worktree, WORKTREE, path) or b""
            lines = _content_diff("", after.decode("utf-8", "replace"))
            if _significant(lines):
                found.append(SettingsChange(path, SETTINGS_FILES[path], "added",
                                            lines[:MAX_SETTINGS_LINES]))
    return found


def _significant(lines: tuple[str, ...]) -> bool:
    """Whether a diff adds or removes more than comments and blank lines."""
    return any(line[:1] in "+-" and line[1:].strip() and not line[1:].lstrip().startswith("#")
               for line in lines)


def _secrets(repo: Repo, result: MemoryDiff) -> list[Problem]:
    from memx_cli.operations.precommit import _sanitizer, check_content

    head = None if result.head == WORKTREE else ("index" if result.head == INDEX else result.head)
    paths = [p for status, p in git.changed_paths(repo.worktree, result.base, head, [".memx/"])
             if status[:1] != "D" and p.split("/")[1:2] not in (["local"], ["cache"])]
    if result.head == WORKTREE:
        paths += git.untracked(repo.worktree, [".memx/"])
    if not paths:
        return []
    sanitizer = _sanitizer(repo)
    found: list[Problem] = []
    for path in paths:
        data = _blob(repo.worktree, result.head, path)
        if data is not None:
            found += check_content(path, data, sanitizer, secrets_only=True)
    # The review is posted as a comment: show the flagged memories masked, not the secret.
    for memory_id, content in result.contents.items():
        if any(p.path.endswith(f"/{memory_id}.yaml") for p in found):
            result.contents[memory_id] = sanitizer.sanitize(content)
    return found


def _anchors(repo: Repo, result: MemoryDiff, attention: Attention) -> None:
    from memx_cli.anchors.verify import STALE, UNVERIFIABLE, Verifier

    head = result.head
    if head not in (WORKTREE, INDEX):
        checked_out = git.head_commit(repo.worktree)
        if checked_out is None or git.resolve_rev(repo.worktree, head) != checked_out:
            if any(m.anchors for m in (*result.added, *result.restored)) or any(
                    c.after.anchors for c in result.changed):
                attention.notes.append(f"anchors not checked: {head} is not checked out")
            return
    touched = {m.id for m in (*result.added, *result.restored)} | {
        c.after.id for c in result.changed}
    git_head = None if head == WORKTREE else ("index" if head == INDEX else head)
    code_changed = {p for _, p in git.changed_paths(repo.worktree, result.base, git_head, [])}
    verifier = Verifier(repo.worktree, repo.store.state_dir)
    for mem in repo.store.load_all().memories:
        if not mem.anchors or not (mem.id in touched or
                                   any(a.path in code_changed for a in mem.anchors)):
            continue
        verification = verifier.verify(mem.anchors)
        if verification.status in (STALE, UNVERIFIABLE):
            where = tuple(c.where for c in verification.checks
                          if c.status in (STALE, UNVERIFIABLE))
            attention.anchors.append(AnchorFailure(mem, verification.status, where))
