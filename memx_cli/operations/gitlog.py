"""``memx ingest --git-log [RANGE]`` (issue 13): learn from a repository's existing history,
so a project with years of commits starts with memory.

The range's commits are read by git in chunks (``gitlog_read``: their messages, authors
and changed files, then the diffs of the small config and manifest files, changelogs and
documentation files the commit rules read). Each commit then goes through the same rules as the post-commit hook
(``reflector.commit``), oldest first; the reverts, series and budget steps then pick from
the candidates (``gitlog_pick``). Memory does not grow with the history (issue 29).

Each commit first meets the noise model (``reflector.routine``: releases, bumps, pins,
formatting) and the per-candidate checks; what is dropped is kept in the outcome with its
reason (``--dry-run --all``, ``--json``). A stored memory is dated by its commit (the
committer date is its ``created_at``) and names the commit (``source.sha``).

A commit whose diff git cannot read (a blob missing from a partial copy) is reflected
on its message and file names alone and counted (``unreadable``): the run goes on.

Skipped: merge commits, commits by bots (``[bot]`` authors, dependabot, renovate…),
commits of memory files only, and commits already ingested — a second run stores nothing
new. "Already ingested" is a sha in ``local/git-log-ingested`` (this clone) or in the
``source`` of a stored memory (a teammate's ingest, committed).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memx_cli.operations import gitlog_read as read
from memx_cli.operations.gitlog_pick import (
    MIN_KEPT,
    DroppedCandidate,
    Found,
    Spool,
    drafted,
    picked,
)
from memx_cli.operations.gitlog_read import Commit, GitLogError

if TYPE_CHECKING:
    from memx_cli.reflector.pipeline import Item
    from memx_cli.store.memory import Memory
    from memx_cli.store.records import WriteResult
    from memx_cli.store.repo import Repo

__all__ = ["BUDGET", "MIN_KEPT", "DroppedCandidate", "GitLogError", "GitLogOutcome",
           "ingest_git_log"]

SEEN_FILE = "git-log-ingested"
BOT = re.compile(r"\[bot\]|\bbot@|^(?:dependabot|renovate|github-actions|pre-commit-ci|"
                 r"snyk-bot|greenkeeper|mergify|semantic-release-bot)\b", re.IGNORECASE)
WRITE_CHUNK = 500
REVERTS_SHA = re.compile(r"(?im)^\s*this reverts commit ([0-9a-f]{7,40})\b")
BATCH = 256  # commits reflected together (one git diff-tree for their diffs)
# issue 24, no flood: memories per 1,000 commits reflected, at most (``--budget``), the
# best by lesson value; never fewer than MIN_KEPT (the figures: docs/pipeline.md).
BUDGET = 60


@dataclass
class GitLogOutcome:
    commits: int = 0  # non-merge commits in the range
    merges: int = 0
    bots: int = 0
    already: int = 0
    reflected: int = 0
    unreadable: int = 0  # commits reflected without their diffs: objects missing
    items: list[tuple[str, Item]] = field(default_factory=list)  # (sha, item) kept
    # in temporary files: as many as the history has (issue 29)
    dropped: Spool[DroppedCandidate] = field(default_factory=Spool)
    memories: list[Memory] = field(default_factory=list)
    results: list[WriteResult] = field(default_factory=list)
    shas: Spool[str] = field(default_factory=Spool)  # the commits reflected

    def as_dict(self) -> dict[str, Any]:
        return {"commits": self.commits, "merges_skipped": self.merges,
                "bots_skipped": self.bots, "already_ingested": self.already,
                "reflected": self.reflected, "diffs_unreadable": self.unreadable,
                "by_kind": self.by_kind()}

    def by_kind(self) -> dict[str, int]:
        """Kept memories per knowledge type, most first (the summary after an ingest)."""
        counts: dict[str, int] = {}
        for _, item in self.items:
            counts[item.type] = counts.get(item.type, 0) + 1
        return dict(sorted(counts.items(), key=lambda e: (-e[1], e[0])))


def ingest_git_log(repo: Repo, rev_range: str = "HEAD", *, dry_run: bool = False,
                   progress: Callable[[int, int], None] | None = None,
                   budget: int | None = None) -> GitLogOutcome:
    """Reflect on every commit of ``rev_range`` not ingested before; store unless dry.

    ``budget``: at most this many memories per 1,000 commits reflected (at least
    ``MIN_KEPT``), those of the highest lesson value; None is ``BUDGET``, 0 keeps
    everything that passed the rules. A series of commits on one subject is one memory.

    Memory does not grow with the history (issue 29): commits are read and reflected a
    batch at a time, and the candidates and dropped ones wait in temporary files."""
    from memx_cli.operations import write as ace
    from memx_cli.operations.reflect import to_memory
    from memx_cli.reflector import commit as rules
    from memx_cli.reflector.pipeline import Settings

    if not rev_range.strip() or rev_range.startswith("-") or not rev_range.isprintable():
        # an option, nothing, or a line break (git's error would then span lines)
        raise GitLogError(f"not a revision range: {rev_range!r}; give one such as v1.0..main")
    outcome = GitLogOutcome(merges=read.count_merges(repo, rev_range))
    seen = _seen(repo)
    settings = Settings.from_config(repo.config)
    settings = Settings("rules", settings.min_score, settings.max_length, None,
                        settings.custom_patterns)
    todo: list[Commit] = []
    found_items: Spool[Found] = Spool()
    undone: dict[str, str] = {}  # a commit reverted later in the range -> its revert
    total = 0

    def reflect(batch: list[Commit]) -> None:
        read.add_diffs(repo, batch)
        for found in batch:
            _note_revert(found, undone)
            outcome.unreadable += found.unreadable
            files = [f for f in found.files if not f[1].startswith(".memx/")]
            candidates, dropped = rules.reviewed(found.message, files, "", found.diffs,
                                                 settings.min_score, facts=True)
            outcome.dropped.extend(DroppedCandidate(found.sha, d.rule, d.score, d.reason,
                                                    d.content) for d in dropped)
            subject = found.message.strip().split("\n")[0]
            for entry in candidates:  # distilled once kept (``gitlog_pick.drafted``)
                found_items.add(Found(found.sha, entry, found.date, outcome.reflected, subject))
            outcome.reflected += 1
            outcome.shas.add(found.sha)
            found.diffs.clear()

    # Oldest first, as they happened, a batch at a time: the history is streamed, never
    # held whole (issue 29: 282 MB for 10,000 commits when it was).
    for total, found in read.commits(repo, rev_range):
        outcome.commits += 1
        if BOT.search(found.author) or BOT.search(found.email):
            outcome.bots += 1
        elif found.sha in seen:
            outcome.already += 1
        elif not found.files or any(not p.startswith(".memx/") for _, p in found.files):
            todo.append(found)
            if len(todo) == BATCH:
                reflect(todo)
                todo = []
                if progress is not None:
                    progress(outcome.commits, max(total, outcome.commits))
    if todo:
        reflect(todo)
    if progress is not None and outcome.commits:
        progress(outcome.commits, max(total, outcome.commits))  # the last line says all
    kept = picked(found_items, undone, outcome.reflected, BUDGET if budget is None else budget,
                  settings, outcome.dropped)
    outcome.items = [(k.sha, drafted(k.scored, settings, k.note)) for k in kept]
    outcome.memories = [to_memory(item, {"type": "commit", "sha": k.sha},
                                  created_at=_utc(k.date))
                        for k, (_, item) in zip(kept, outcome.items)]
    if not dry_run:
        for start in range(0, len(outcome.memories), WRITE_CHUNK):
            outcome.results.extend(ace.write(repo, outcome.memories[start:start + WRITE_CHUNK]))
        _remember(repo, outcome.shas)
    return outcome


def _note_revert(found: Commit, undone: dict[str, str]) -> None:
    """Record what ``found`` reverts (git's "This reverts commit SHA." line). Reverting a
    revert lands the first change again: it is no longer undone."""
    for match in REVERTS_SHA.finditer(found.message):
        target = match.group(1).lower()
        for original, revert in list(undone.items()):
            if revert.startswith(target) or target.startswith(revert):
                del undone[original]  # "Revert "Revert …"": the original is back
        undone[target] = found.sha


def _utc(date: str) -> str | None:
    """A commit's ISO date in the store's form (UTC, ``Z``), or None when unreadable."""
    from memx_cli.clock import format_timestamp, parse_timestamp

    try:
        return format_timestamp(parse_timestamp(date)) if date else None
    except ValueError:
        return None


def _seen(repo: Repo) -> set[str]:
    seen: set[str] = set()
    marker = repo.store.local_dir / SEEN_FILE
    if marker.exists():
        seen.update(marker.read_text(encoding="utf-8").split())
    if repo.store.exists():
        loaded = repo.store.load_all()
        for mem in loaded.memories:
            sha = mem.source.get("sha") if isinstance(mem.source, dict) else None
            if isinstance(sha, str):
                seen.add(sha)
    return seen


def _remember(repo: Repo, shas: Spool[str]) -> None:
    if not shas or not repo.store.exists():
        return
    repo.store.local_dir.mkdir(parents=True, exist_ok=True)
    with (repo.store.local_dir / SEEN_FILE).open("a", encoding="utf-8") as out:
        out.writelines(f"{sha}\n" for sha in shas)
