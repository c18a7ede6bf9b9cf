"""Review before trust (issue 13): what memx learned by itself — from hooks, ``memx
ingest``, ``memx run``, agents' proposals — is a set of memory files git has not been told
about yet. ``memx review`` lists them with their provenance and accepts (stages), edits or
rejects (removes) each.

A memory is *pending* when its file under ``.memx/memories/`` differs from the index: new
and not staged, or changed since it was staged. Staging it is accepting it; committing is
then the ordinary git step. With a base (``origin/main``), every memory that differs from
the base is listed, staged or committed, so a branch's whole harvest can be reviewed
before it is merged. A rejected memory is removed (a changed one goes back to its
committed version); a copy is kept in ``.memx/local/rejected/`` so nothing is lost by a
slip of the finger.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memx_cli import git
from memx_cli.curator.links import dependants, repair
from memx_cli.errors import AmbiguousIdError, MemxError, NotFoundError, shown
from memx_cli.fsutil import atomic_write
from memx_cli.store.memory import Memory
from memx_cli.store.repo import Repo

MEMORIES = ".memx/memories"
# What a person wrote (`memx add`) or chose to bring in (`memx import`): their own word,
# not something memx learned, so `memx review` does not ask about it (walk17: after a
# first `memx import` of 500 notes, review asked about each before the learned ones).
# Against a base (a branch's review) it is listed like every other change.
OWN_SOURCES = ("manual", "import")


@dataclass(frozen=True)
class Pending:
    memory: Memory
    path: str  # relative to the work tree
    state: str  # new | changed | staged (accepted, not committed) | committed (base mode)

    @property
    def rule(self) -> str | None:
        from memx_cli.reflector.rules import RULES

        by_tag = {r.tag: r.name for r in RULES.values()}
        return next((by_tag[t] for t in self.memory.tags if t in by_tag), None)

    @property
    def own(self) -> bool:
        """Written or imported by a person, not learned: no Reflector rule made it."""
        kind = str(dict(self.memory.source).get("type") or "manual")
        return kind in OWN_SOURCES and self.rule is None

    @property
    def proposer(self) -> str:
        """Who or what proposed it: an agent, a hook on a commit, an ingest, a command."""
        source = dict(self.memory.source)
        kind = str(source.get("type") or "manual")
        for key in ("agent", "author", "by"):
            if source.get(key):
                return f"{kind} ({source[key]})"
        return kind

    @property
    def origin(self) -> str:
        """Where it came from: a commit, a transcript session and turns, a command run."""
        source = dict(self.memory.source)
        parts = []
        if source.get("sha"):
            parts.append(f"commit {str(source['sha'])[:10]}")
        if source.get("session"):
            parts.append(f"session {source['session']}")
        for key in ("turns", "lines"):
            span = source.get(key)
            if isinstance(span, list) and len(span) == 2:
                parts.append(f"{key} {span[0]}-{span[1]}")
        if source.get("command"):
            parts.append(f"`{source['command']}`")
        if source.get("run"):
            parts.append(f"run {source['run']}")
        return ", ".join(parts) or "-"

    def as_dict(self) -> dict[str, Any]:
        mem = self.memory
        return {"id": mem.id, "path": self.path, "state": self.state, "rule": self.rule,
                "score": mem.instructivity, "kind": mem.kind, "type": mem.type,
                "memory_type": mem.memory_type, "content": mem.content,
                "source": dict(mem.source), "proposed_by": self.proposer,
                "suggests_policy": "policy-suggestion" in mem.tags}


def pending(repo: Repo, base: str | None = None) -> list[Pending]:
    """Memories not reviewed yet (or, with ``base``, every one that differs from it)."""
    repo.require_store()
    root = repo.worktree
    states: dict[str, str] = {}
    if base is not None:
        try:
            git.resolve_rev(root, base)
        except MemxError:
            raise MemxError(f"unknown base {base!r}; give a branch, tag or commit") from None
        states.update((p, "committed") for s, p in git.changed_paths(root, base, None, [MEMORIES])
                      if s != "D")
    states.update((p, "staged") for s, p in git.changed_paths(root, None, "index", [MEMORIES])
                  if s != "D")
    states.update((p, "changed") for s, p in _diff_index(root) if s != "D")
    states.update((p, "new") for p in git.untracked(root, [MEMORIES]))
    found = []
    for path, state in sorted(states.items()):
        if base is None and state not in ("new", "changed"):
            continue
        file = root / path
        if not path.endswith(".yaml") or not file.exists():
            continue
        try:
            mem = repo.store.read_file(file)
        except MemxError:
            continue  # a broken file is `memx validate`'s to report
        found.append(Pending(mem, path, state))
    return sorted(found, key=lambda p: (p.memory.created_at, p.memory.id))


def unreviewed_ids(repo: Repo) -> set[str]:
    """Ids of the memories memx learned that no person has staged or committed yet (for
    agents); a person's own ``memx add`` is theirs already."""
    return {p.memory.id for p in pending(repo) if not p.own}


def accept(repo: Repo, items: Sequence[Pending]) -> None:
    """Stage them: reviewed. Committing is the ordinary git step."""
    if items:
        git.run(["add", "--", *[p.path for p in items]], cwd=repo.worktree)


def reject(repo: Repo, items: Sequence[Pending]) -> list[Path]:
    """Remove them (a changed memory goes back to its committed version); a copy of each
    is kept in ``local/rejected/``. Links other memories hold to a removed one (a conflict
    the Curator recorded with it, a supersede) are mended as ``memx rm --relink`` mends
    them, so the store stays valid. Returns the copies."""
    kept: list[Path] = []
    removed: list[Pending] = []
    root = repo.worktree
    for item in items:
        file = root / item.path
        copy = repo.store.local_dir / "rejected" / file.name
        atomic_write(copy, file.read_bytes())
        kept.append(copy)
        tracked = git.run(["ls-files", "--", item.path], cwd=root).strip()
        in_head = bool(git.run(["ls-tree", "--name-only", "HEAD", "--", item.path],
                               cwd=root, check=False).strip())
        if in_head:
            git.run(["checkout", "HEAD", "--", item.path], cwd=root)
        else:
            if tracked:
                git.run(["rm", "-q", "--cached", "--", item.path], cwd=root)
            file.unlink()
            removed.append(item)
    for item in removed:
        repair(dependants(repo, item.memory.id), item.memory.id, item.memory)
    return kept


def select(found: Sequence[Pending], prefixes: Sequence[str]) -> list[Pending]:
    """The pending memories whose ids start with each prefix (one each)."""
    from memx_cli.store.ids import normalize_prefix

    chosen: list[Pending] = []
    for prefix in prefixes:
        key = normalize_prefix(prefix)  # as every other id argument reads it
        matches = [p for p in found if key and p.memory.id.startswith(key)]
        if not matches:
            raise NotFoundError(f"no memory pending review starts with {shown(prefix)}; "
                                "see memx review")
        if len(matches) > 1:
            raise AmbiguousIdError(f"{shown(prefix)} matches {len(matches)} pending memories; "
                                   "give more of the id")
        chosen.append(matches[0])
    return chosen


def _diff_index(root: Path) -> list[tuple[str, str]]:
    """(status, path) of memory files whose work-tree content differs from the index."""
    out = git.run(["diff", "--name-status", "-z", "--no-renames", "--", MEMORIES], cwd=root)
    fields = out.split("\0")
    return [(fields[i], fields[i + 1]) for i in range(0, len(fields) - 1, 2)]
