"""``memx ingest --git-log [RANGE]`` (issue 13): learn from a repository's existing history,
so a project with years of commits starts with memory.

Two git processes read everything: one ``git log`` for the messages, authors and changed
files of the range (merge commits left out by git), one ``git diff-tree --stdin`` for the
diffs of the small config and manifest files the commit rules read. Each commit then goes
through the same rules as the post-commit hook (``reflector.commit``), oldest first.

Each commit first meets the noise model (``reflector.routine``: releases, bumps, pins,
formatting) and the per-candidate checks; what is dropped is kept in the outcome with its
reason (``--dry-run --all``, ``--json``). A stored memory is dated by its commit (the
committer date is its ``created_at``) and names the commit (``source.sha``).

Skipped: merge commits, commits by bots (``[bot]`` authors, dependabot, renovate…),
commits of memory files only, and commits already ingested — a second run stores nothing
new. "Already ingested" is a sha in ``local/git-log-ingested`` (this clone) or in the
``source`` of a stored memory (a teammate's ingest, committed).
"""

from __future__ import annotations

import io
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memx_cli.errors import MemxError

if TYPE_CHECKING:
    from memx_cli.reflector.pipeline import Item
    from memx_cli.store.memory import Memory
    from memx_cli.store.records import WriteResult
    from memx_cli.store.repo import Repo

SEEN_FILE = "git-log-ingested"
BOT = re.compile(r"\[bot\]|\bbot@|^(?:dependabot|renovate|github-actions|pre-commit-ci|"
                 r"snyk-bot|greenkeeper|mergify|semantic-release-bot)\b", re.IGNORECASE)
MAX_DIFF_LINES = 400  # the post-commit hook's limits (githooks.impl)
MAX_DIFFS = 4
WRITE_CHUNK = 500
REVERTS_SHA = re.compile(r"(?im)^\s*this reverts commit ([0-9a-f]{7,40})\b")
BATCH = 256  # commits reflected together (one git diff-tree for their diffs)
# issue 24, no flood: memories per 1,000 commits reflected, at most (``--budget``), the
# best by lesson value; never fewer than MIN_KEPT (the figures: docs/pipeline.md).
BUDGET = 60
MIN_KEPT = 5
_RECORD, _FIELD = "\x1e", "\x1f"
_SHA_LINE = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")


class GitLogError(MemxError):
    """The range cannot be read."""


@dataclass
class Commit:
    sha: str
    author: str
    email: str
    message: str
    date: str = ""  # committer date, ISO 8601
    files: list[tuple[str, str]] = field(default_factory=list)
    diffs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class DroppedCandidate:
    sha: str
    rule: str
    score: int
    reason: str
    content: str


@dataclass
class GitLogOutcome:
    commits: int = 0  # non-merge commits in the range
    merges: int = 0
    bots: int = 0
    already: int = 0
    reflected: int = 0
    items: list[tuple[str, Item]] = field(default_factory=list)  # (sha, item)
    dropped: list[DroppedCandidate] = field(default_factory=list)
    memories: list[Memory] = field(default_factory=list)
    results: list[WriteResult] = field(default_factory=list)
    shas: list[str] = field(default_factory=list)  # the commits reflected

    def as_dict(self) -> dict[str, Any]:
        return {"commits": self.commits, "merges_skipped": self.merges,
                "bots_skipped": self.bots, "already_ingested": self.already,
                "reflected": self.reflected, "by_kind": self.by_kind()}

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
    everything that passed the rules. A series of commits on one subject is one memory."""
    from memx_cli.operations import write as ace
    from memx_cli.operations.reflect import to_memory
    from memx_cli.reflector import commit as rules
    from memx_cli.reflector.pipeline import Reflector, Settings

    if rev_range.startswith("-"):
        raise GitLogError(f"not a revision range: {rev_range}")
    outcome = GitLogOutcome(merges=_count_merges(repo, rev_range))
    total = _count(repo, rev_range)
    seen = _seen(repo)
    settings = Settings.from_config(repo.config)
    settings = Settings("rules", settings.min_score, settings.max_length, None,
                        settings.custom_patterns)
    reflector = Reflector(settings)
    todo: list[Commit] = []
    dates: dict[str, str] = {}
    subjects: dict[str, tuple[int, str]] = {}  # sha -> (position in the range, subject)

    undone: dict[str, str] = {}  # a commit reverted later in the range -> its revert

    def reflect(batch: list[Commit]) -> None:
        _add_diffs(repo, batch)
        for found in batch:
            _note_revert(found, undone)
            files = [f for f in found.files if not f[1].startswith(".memx/")]
            candidates, dropped = rules.reviewed(found.message, files, "", found.diffs,
                                                 settings.min_score, facts=True)
            outcome.dropped.extend(DroppedCandidate(found.sha, d.rule, d.score, d.reason,
                                                    d.content) for d in dropped)
            for item in reflector.items(candidates):
                outcome.items.append((found.sha, item))
                dates[found.sha] = found.date
                subjects[found.sha] = (outcome.reflected, found.message.strip().split("\n")[0])
            outcome.reflected += 1
            outcome.shas.append(found.sha)
            found.diffs.clear()

    # Oldest first, as they happened, a batch at a time: the history is streamed, never
    # held whole (issue 29: 282 MB for 10,000 commits when it was).
    for found in _commits(repo, rev_range):
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
    _drop_reverted(outcome, undone)
    _merge_series(outcome, subjects, settings.max_length)
    _within_budget(outcome, BUDGET if budget is None else budget)
    outcome.memories = [to_memory(item, {"type": "commit", "sha": sha},
                                  created_at=_utc(dates.get(sha, "")))
                        for sha, item in outcome.items]
    if not dry_run:
        for start in range(0, len(outcome.memories), WRITE_CHUNK):
            outcome.results.extend(ace.write(repo, outcome.memories[start:start + WRITE_CHUNK]))
        _remember(repo, outcome.shas)
    return outcome


def _git(repo: Repo, args: list[str], stdin: str | None = None, what: str = "") -> str:
    try:
        done = subprocess.run(["git", *args], cwd=repo.worktree, input=stdin,
                              capture_output=True, text=True, encoding="utf-8",
                              errors="replace", check=False)
    except OSError as exc:
        raise GitLogError(f"cannot run git: {exc.strerror}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["git failed"])[-1]
        last = last.removeprefix("fatal: ").removeprefix("error: ")
        raise GitLogError(f"cannot read the history {what}: {last}" if what
                          else f"git {args[0]}: {last}")
    return done.stdout


def _note_revert(found: Commit, undone: dict[str, str]) -> None:
    """Record what ``found`` reverts (git's "This reverts commit SHA." line). Reverting a
    revert lands the first change again: it is no longer undone."""
    for match in REVERTS_SHA.finditer(found.message):
        target = match.group(1).lower()
        for original, revert in list(undone.items()):
            if revert.startswith(target) or target.startswith(revert):
                del undone[original]  # "Revert "Revert …"": the original is back
        undone[target] = found.sha


def _drop_reverted(outcome: GitLogOutcome, undone: dict[str, str]) -> None:
    """A memory of a commit that a later commit of the range reverts teaches what no
    longer holds: dropped, with the revert named (its own memory keeps the reason)."""
    if not undone:
        return
    kept: list[tuple[str, Item]] = []
    for sha, item in outcome.items:
        revert = next((r for target, r in undone.items() if sha.startswith(target)), None)
        if revert is None:
            kept.append((sha, item))
        else:
            outcome.dropped.append(DroppedCandidate(
                sha, item.rule, item.score, f"reverted later in the range by {revert[:10]}",
                item.content))
    outcome.items = kept


def _merge_series(outcome: GitLogOutcome, subjects: dict[str, tuple[int, str]],
                  max_length: int) -> None:
    """Issue 24: a series of commits on one subject ("[ruff] Enable X", "[ruff] Enable Y",
    …) is one memory: the best-scored one, naming what the others were about; the others
    are dropped with the reason (``reflector.series``). The note fits in ``max_length``."""
    from dataclasses import replace

    from memx_cli.reflector import series
    from memx_cli.reflector.distiller import shorten

    firsts = {sha: n for n, (sha, _) in reversed(list(enumerate(outcome.items)))}
    order = sorted(firsts.values(),  # one item a commit: its own two are no series
                   key=lambda n: subjects.get(outcome.items[n][0], (0, ""))[0])
    pairs = [subjects.get(outcome.items[n][0], (0, "")) for n in order]
    gone: set[int] = set()
    for group in series.grouped(pairs):
        members = [order[g] for g in group]
        best = max(members, key=lambda n: (outcome.items[n][1].score, -n))
        sha, item = outcome.items[best]
        kept = subjects[sha][1]
        others = [n for n in members if n != best]
        named = [series.name(subjects[outcome.items[n][0]][1], kept) for n in others]
        named = [n for n in dict.fromkeys(named) if n][:series.MAX_NAMES]
        more = f"the same in {len(others)} more commit{'s' if len(others) > 1 else ''}"
        note = f" ({more}: {', '.join(named)})." if named else f" ({more})."
        content = shorten(item.content, max(50, max_length - len(note))).rstrip(".") + note
        outcome.items[best] = (sha, replace(item, content=content))
        for n in others:
            other_sha, other = outcome.items[n]
            outcome.dropped.append(DroppedCandidate(
                other_sha, other.rule, other.score, f"one of a series of commits on one "
                f"subject: kept with {sha[:10]}", other.content))
            gone.add(n)
    outcome.items = [e for n, e in enumerate(outcome.items) if n not in gone]


def _within_budget(outcome: GitLogOutcome, budget: int) -> None:
    """Issue 24, no flood: keep the best-scored memories up to the budget (at least
    ``MIN_KEPT``: a short range's queue is read at a glance); the others are dropped
    with the reason (the oldest of equal scores go first)."""
    if budget <= 0:
        return
    allowed = max(MIN_KEPT, budget * outcome.reflected // 1000)
    if len(outcome.items) <= allowed:
        return
    ranked = sorted(range(len(outcome.items)), key=lambda n: (-outcome.items[n][1].score, -n))
    keep = set(ranked[:allowed])
    for n in sorted(set(ranked) - keep):
        sha, item = outcome.items[n]
        outcome.dropped.append(DroppedCandidate(
            sha, item.rule, item.score, f"over the budget of {budget} memories per 1,000 "
            "commits: others scored higher", item.content))
    outcome.items = [e for n, e in enumerate(outcome.items) if n in keep]


def _utc(date: str) -> str | None:
    """A commit's ISO date in the store's form (UTC, ``Z``), or None when unreadable."""
    from memx_cli.clock import format_timestamp, parse_timestamp

    try:
        return format_timestamp(parse_timestamp(date)) if date else None
    except ValueError:
        return None


def _count_merges(repo: Repo, rev_range: str) -> int:
    out = _git(repo, ["rev-list", "--merges", "--count", "--end-of-options", rev_range,
                      "--"], what=rev_range)
    return int(out.strip() or 0)


def _count(repo: Repo, rev_range: str) -> int:
    out = _git(repo, ["rev-list", "--no-merges", "--count", "--end-of-options", rev_range,
                      "--"], what=rev_range)
    return int(out.strip() or 0)


def _commits(repo: Repo, rev_range: str) -> Iterator[Commit]:
    """The range's non-merge commits, oldest first, read from ``git log`` as it writes
    them (a record at a time: memory does not grow with the history)."""
    import tempfile

    fmt = f"{_RECORD}%H{_FIELD}%an{_FIELD}%ae{_FIELD}%cI{_FIELD}%B{_FIELD}"
    args = ["git", "log", "--reverse", "--no-merges", "--no-color", "--name-status", "-M",
            f"--format={fmt}", "--end-of-options", rev_range, "--"]
    with tempfile.TemporaryFile() as errors:
        try:
            proc = subprocess.Popen(args, cwd=repo.worktree, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=errors)
        except OSError as exc:
            raise GitLogError(f"cannot run git: {exc.strerror}") from None
        assert proc.stdout is not None
        try:
            reader = io.TextIOWrapper(proc.stdout, encoding="utf-8", errors="replace",
                                      newline="")
            pending = ""
            while chunk := reader.read(1 << 16):
                pending += chunk
                records = pending.split(_RECORD)
                pending = records.pop()
                yield from (_commit(r) for r in records if r)
            if pending:
                yield _commit(pending)
        finally:
            proc.stdout.close()
            if proc.wait() != 0:
                errors.seek(0)
                text = errors.read().decode("utf-8", "replace").strip().splitlines()
                last = (text or ["git failed"])[-1]
                raise GitLogError(f"git log: {last.removeprefix('fatal: ')}")


def _commit(record: str) -> Commit:
    sha, author, email, date, message, files = record.split(_FIELD, 5)
    found = Commit(sha, author, email, message, date)
    for line in files.strip().splitlines():
        parts = line.split("\t")
        if len(parts) >= 2:
            found.files.append((parts[0], parts[-1]))
    return found


def _add_diffs(repo: Repo, commits: list[Commit]) -> None:
    """The diffs of small config and manifest files, and of changelogs (the entry a
    commit adds says what it means: ``commit_fact``), in one ``git diff-tree --stdin``."""
    from memx_cli.reflector import commit, commit_fact

    def wants_diff(path: str) -> bool:
        return commit.wants_diff(path) or commit_fact.is_changelog(path)

    wanted = {c.sha: c for c in commits if any(wants_diff(p) for _, p in c.files)}
    if not wanted:
        return
    out = _git(repo, ["diff-tree", "--stdin", "--root", "-r", "-p", "-M", "--no-color",
                      "--no-ext-diff"], stdin="\n".join(wanted) + "\n")
    current: Commit | None = None
    path: str | None = None
    lines: list[str] = []

    def flush() -> None:
        if current is not None and path is not None and wants_diff(path) \
                and len(lines) <= MAX_DIFF_LINES and len(current.diffs) < MAX_DIFFS:
            current.diffs[path] = "\n".join(lines) + "\n"

    for line in out.splitlines():
        if _SHA_LINE.match(line):
            flush()
            current, path, lines = wanted.get(line), None, []
        elif line.startswith("diff --git "):
            flush()
            path, lines = line.rsplit(" b/", 1)[-1], []
        elif path is not None:
            lines.append(line)
    flush()


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


def _remember(repo: Repo, shas: list[str]) -> None:
    if not shas or not repo.store.exists():
        return
    repo.store.local_dir.mkdir(parents=True, exist_ok=True)
    with (repo.store.local_dir / SEEN_FILE).open("a", encoding="utf-8") as out:
        out.write("".join(f"{sha}\n" for sha in shas))
