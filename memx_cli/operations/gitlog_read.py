"""Reading a history for ``memx ingest --git-log`` in bounded memory (issue 29).

``git rev-list --reverse`` writes the range's non-merge commits, oldest first, into a
temporary file; ``git diff-tree --stdin`` then reads them ``READ_CHUNK`` at a time (their
messages, authors and changed files, the same bytes ``git log --reverse --name-status -M``
writes) and a second one the diffs of the small config and manifest files, changelogs and
documentation files the commit rules read. No git process lives for the whole range: ``git log --reverse`` holds every commit
of it before writing the first (288 MB at 107,000 commits), a long ``diff-tree --stdin``
keeps each commit it has read. Each git's pack window and delta cache are capped
(``_BOUNDED``): the whole pack mapped counts in its resident memory.

A commit whose objects are missing (a blob left out of a partial or shallow copy, a
fetched mirror without its large files) stops a ``diff-tree --stdin`` with "unable to read
SHA": that commit is read again on its own, without its diffs (``Commit.unreadable``),
and the others go on; one bad commit never aborts the history.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from memx_cli.errors import MemxError
from memx_cli.git import MISSING

if TYPE_CHECKING:
    from memx_cli.store.repo import Repo

MAX_DIFF_LINES = 400  # the post-commit hook's limits (githooks.impl)
MAX_DIFFS = 4
READ_CHUNK = 1024  # commits a git diff-tree reads
_RECORD, _FIELD = "\x1e", "\x1f"
_FORMAT = f"{_RECORD}%H{_FIELD}%an{_FIELD}%ae{_FIELD}%cI{_FIELD}%B{_FIELD}"
_SHA_LINE = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
# git's own memory: the pack mapped 4 MiB at a time, at most 32 MiB of it, 16 MiB of
# delta bases (defaults: the whole pack, 96 MiB)
_BOUNDED = ["-c", "core.packedGitWindowSize=4m", "-c", "core.packedGitLimit=32m",
            "-c", "core.deltaBaseCacheLimit=16m"]


# A hunk header of a Markdown file names the nearest heading above it ("@@ … @@ ###
# Performance"): the section a changelog entry is filed under, however many entries stand
# between them (``commit_fact.filed``), or, as git's default does, the nearest line that
# starts with a letter (a setext "Version 2.1.0" above its underline). A repository's own
# attributes still win.
HEADINGS = "*.md diff=memx-headings\n*.markdown diff=memx-headings\n"
HEADING_LINE = r"^( {0,3}#{1,6}[ \t].*|[A-Za-z_$].*)$"


class GitLogError(MemxError):
    """The range cannot be read."""


class MissingObject(GitLogError):
    """git could not read an object a commit's diff needs (absent from the repository)."""


# git's words when an object is absent: "unable to read <sha>", "missing blob object",
# "bad object <sha>", "unable to read sha1 file of <path> (<sha>)", "invalid object"
_MISSING = re.compile(r"unable to read|missing (?:blob|tree) object|bad object|"
                      r"invalid object|not a valid object|cannot read object")


@dataclass
class Commit:
    sha: str
    author: str
    email: str
    message: str
    date: str = ""  # committer date, ISO 8601
    files: list[tuple[str, str]] = field(default_factory=list)
    diffs: dict[str, str] = field(default_factory=dict)
    unreadable: bool = False  # an object of its diff is missing: message and files only


def count_merges(repo: Repo, rev_range: str) -> int:
    with _git(repo, ["rev-list", "--merges", "--count", "--end-of-options", rev_range, "--"],
              what=rev_range) as out:
        return int(out.read().strip() or 0)


def _failure(stderr: str, command: str, what: str) -> str:
    last = (stderr.strip().splitlines() or ["git failed"])[-1]
    last = last.removeprefix("fatal: ").removeprefix("error: ")
    return f"cannot read the history {what}: {last}" if what else f"git {command}: {last}"


@contextlib.contextmanager
def _git(repo: Repo, args: list[str], stdin: IO[bytes] | None = None,
         what: str = "", config: tuple[str, ...] = ()) -> Iterator[io.TextIOWrapper]:
    """``git ARGS`` (``stdin`` read from its start) with its output as a text stream; a
    failure is raised once the output is read. ``config``: ``-c`` settings of this run."""
    if stdin is not None:
        stdin.flush()
        stdin.seek(0)
    with tempfile.TemporaryFile() as errors:
        try:
            proc = subprocess.Popen(["git", *_BOUNDED, *config, *args], cwd=repo.worktree,
                                    stdin=subprocess.DEVNULL if stdin is None else stdin,
                                    stdout=subprocess.PIPE, stderr=errors)
        except FileNotFoundError:
            raise GitLogError(MISSING) from None
        except OSError as exc:
            raise GitLogError(f"cannot run git: {exc.strerror}") from None
        assert proc.stdout is not None
        try:
            yield io.TextIOWrapper(proc.stdout, encoding="utf-8", errors="replace",
                                   newline="")
        finally:
            proc.stdout.close()
            if proc.wait() != 0:
                errors.seek(0)
                said = errors.read().decode("utf-8", "replace")
                kind = MissingObject if _MISSING.search(said) and not what else GitLogError
                raise kind(_failure(said, args[0], what))


def commits(repo: Repo, rev_range: str) -> Iterator[tuple[int, Commit]]:
    """The range's non-merge commits, oldest first, each with the range's count of them
    (what the progress counts to), ``READ_CHUNK`` commits in memory at most."""
    with tempfile.TemporaryFile() as listed:
        _rev_list(repo, rev_range, listed)
        listed.seek(0)
        total = sum(block.count(b"\n") for block in iter(lambda: listed.read(1 << 16), b""))
        listed.seek(0)
        while shas := [line.strip().decode() for _, line in zip(range(READ_CHUNK), listed)]:
            for found in _described(repo, shas):
                yield total, found


def _rev_list(repo: Repo, rev_range: str, out: IO[bytes]) -> None:
    with _git(repo, ["rev-list", "--reverse", "--no-merges", "--end-of-options", rev_range,
                     "--"]) as listed:
        while block := listed.read(1 << 16):
            out.write(block.encode())


def _described(repo: Repo, shas: list[str]) -> Iterator[Commit]:
    """Each commit of ``shas`` as ``git log --name-status -M`` shows it, read a record at a
    time; a commit whose objects are missing is read on its own (``_alone``) and the rest
    go on."""
    while shas:
        done = 0
        try:
            for found in _described_once(repo, shas):
                done += 1
                yield found
            return
        except MissingObject:
            # git stops at the commit it cannot read: the one whose record it cut, or the
            # next one (read on their own, the first goes on well and the second stops
            # the next run at once)
            yield _alone(repo, shas[done])
            shas = shas[done + 1:]


_NAME_STATUS = ["--root", "--always", "-r", "--no-color", "--name-status"]


def _described_once(repo: Repo, shas: list[str]) -> Iterator[Commit]:
    """``_described`` in one git; a record is given once the next one starts (or git ended
    well), so a record git cut when it failed is never given."""
    with tempfile.TemporaryFile() as stdin:
        stdin.write("".join(f"{sha}\n" for sha in shas).encode())
        pending = ""
        with _git(repo, ["diff-tree", "--stdin", *_NAME_STATUS, f"--format={_FORMAT}",
                         "-M"], stdin) as reader:
            while chunk := reader.read(1 << 16):
                pending += chunk
                records = pending.split(_RECORD)
                pending = records.pop()
                yield from (_commit(r) for r in records if r)
        if pending:
            yield _commit(pending)


def _alone(repo: Repo, sha: str) -> Commit:
    """One commit read by itself: with renames found when its objects allow it, else
    without them (renames need the blobs, the names only the trees), else its message
    alone; ``unreadable`` when anything was missing."""
    try:
        return next(_described_once(repo, [sha]))
    except MissingObject:
        pass
    for args in (["diff-tree", *_NAME_STATUS, f"--format={_FORMAT}", "--no-renames",
                  "--end-of-options", sha],
                 ["diff-tree", *_NAME_STATUS, f"--format={_FORMAT}", "-s", "--end-of-options",
                  sha]):
        try:
            with _git(repo, args) as reader:
                record = reader.read().strip(_RECORD)
            found = _commit(record)
            found.unreadable = True
            return found
        except MissingObject:
            continue
    return Commit(sha, "", "", "", unreadable=True)


def _commit(record: str) -> Commit:
    sha, author, email, date, message, files = record.split(_FIELD, 5)
    found = Commit(sha, author, email, message, date)
    for line in files.strip().splitlines():
        parts = line.split("\t")
        if len(parts) >= 2:
            found.files.append((parts[0], parts[-1]))
    return found


def add_diffs(repo: Repo, batch: list[Commit]) -> None:
    """The diffs of small config and manifest files, of changelogs (the entry a commit
    adds says what it means: ``commit_fact``) and of documentation files (a caveat it
    writes: ``docnotes``), in one ``git diff-tree --stdin``, read a line at a time (a
    commit of a vendored tree writes its whole patch). A commit whose blobs are missing
    keeps no diff (``unreadable``); the others are read on."""
    from memx_cli.reflector import commit_diff, commit_fact, docnotes

    def wants_diff(path: str) -> bool:
        return commit_diff.wants_diff(path) or commit_fact.is_changelog(path) \
            or docnotes.is_doc(path)

    wanted = [c for c in batch if not c.unreadable and any(wants_diff(p) for _, p in c.files)]
    while wanted:
        started: list[Commit] = []  # the commits git began, in order
        try:
            _patches(repo, wanted, wants_diff, started)
            return
        except MissingObject:
            # git stops in the last commit it began (reading its patch) or in the next one
            # (finding its renames, before it begins): the one that fails alone is it
            if started and not _readable(repo, started[-1], wants_diff):
                bad, after = started[-1], len(started)
            else:
                bad, after = wanted[len(started)], len(started) + 1
            bad.diffs.clear()
            bad.unreadable = True
            wanted = wanted[after:]


def _readable(repo: Repo, found: Commit, wants_diff: Callable[[str], bool]) -> bool:
    """Read ``found``'s diffs on its own again; False when its objects are missing."""
    found.diffs.clear()
    try:
        _patches(repo, [found], wants_diff, [])
    except MissingObject:
        return False
    return True


def _patches(repo: Repo, wanted: list[Commit], wants_diff: Callable[[str], bool],
             started: list[Commit]) -> None:
    from memx_cli.reflector import commit_ci, docnotes

    by_sha = {c.sha: c for c in wanted}
    current: Commit | None = None
    path: str | None = None
    keep = False  # the file's diff is one the rules read
    lines: list[str] = []

    def flush() -> None:
        # a CI workflow the commit adds is read beyond the others' limit: what it runs is
        # the commit's tool (``commit_ci``), whatever config it also touched
        room = MAX_DIFFS * 2 if commit_ci.is_pipeline(path or "") and any(
            line.startswith("new file mode") for line in lines[:3]) else MAX_DIFFS
        # documentation files have their own room: they never take a setting's place
        doc = docnotes.is_doc(path or "")
        room = docnotes.MAX_FILES if doc else room
        taken = sum(docnotes.is_doc(p) == doc for p in current.diffs) if current else 0
        if current is not None and path is not None and keep \
                and len(lines) <= MAX_DIFF_LINES and taken < room:
            current.diffs[path] = "\n".join(lines) + "\n"

    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryDirectory() as scratch:
        stdin.write("".join(f"{c.sha}\n" for c in wanted).encode())
        attributes = Path(scratch) / "attributes"
        attributes.write_text(HEADINGS, encoding="utf-8")
        # --always: every commit's sha line, so a failure is placed
        with _git(repo, ["diff-tree", "--stdin", "--root", "--always", "-r", "-p", "-M",
                         "--no-color", "--no-ext-diff"], stdin,
                  config=("-c", f"core.attributesFile={attributes}", "-c",
                          f"diff.memx-headings.xfuncname={HEADING_LINE}")) as reader:
            for raw in reader:
                for line in raw.splitlines():
                    if len(line) in (40, 64) and _SHA_LINE.match(line):
                        flush()
                        current, path, keep, lines = by_sha.get(line), None, False, []
                        if current is not None:
                            started.append(current)
                    elif line.startswith("diff --git "):
                        flush()
                        path, lines = line.rsplit(" b/", 1)[-1], []
                        keep = wants_diff(path)
                    elif keep and len(lines) <= MAX_DIFF_LINES:
                        lines.append(line)  # one over the limit: too long, left out
        flush()
