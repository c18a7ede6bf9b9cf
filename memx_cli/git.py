"""The one place memx talks to git (SPEC 6).

Plain ``git`` subprocesses: GitPython costs ~85 ms to import, more than most of the
commands that need git at all (hooks, search, diff), so it is used only at install time,
where its config object pays off: ``operations/merge_driver.py`` reads and writes the merge
driver's git config through it. History reading (``memx ingest --git-log``) stays on one
``git log`` stream: measured faster than one GitPython object per commit.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO

from memx_cli import external
from memx_cli.errors import MemxError, NotARepoError

MISSING = "git is not installed or not on PATH"


def require() -> None:
    """Fail in one line unless a ``git`` is on PATH: for a command that needs git after
    it has begun to change things (``memx init`` registers its merge driver last)."""
    import shutil

    if shutil.which("git") is None:
        raise MemxError(MISSING)


def run(args: list[str], cwd: Path, check: bool = True,
        env: Mapping[str, str] | None = None) -> str:
    """``env``: variables set for this git run over memx's own environment."""
    try:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, errors="replace",
            check=False, env={**os.environ, **env} if env else None,
        )
    except FileNotFoundError:
        raise MemxError(MISSING) from None
    if check and proc.returncode != 0:
        raise MemxError(f"git {args[0]} failed: {_cause(proc.stderr) or proc.returncode}")
    return proc.stdout


def _size(folder: Path) -> int:
    """The bytes of the files under ``folder`` (0 while it does not exist)."""
    total = 0
    for top, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(top, name)).st_size
    return total


def run_bounded(args: list[str], cwd: Path, seconds: float, folder: Path, max_bytes: int,
                env: Mapping[str, str] | None = None) -> None:
    """``git ARGS`` that writes into ``folder`` (a clone, a fetch), stopped with its
    helpers (a remote's transport, ssh) once it has run ``seconds`` or ``folder`` holds
    more than ``max_bytes``: a server that accepts and never answers held ``git clone``
    for good. Raises MemxError saying which bound it hit; what git left is the caller's."""
    import signal
    import tempfile
    import time

    deadline = time.monotonic() + seconds
    with tempfile.TemporaryFile() as stderr:
        try:
            proc = subprocess.Popen(
                ["git", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True,
                env={**os.environ, **env} if env else None)
        except FileNotFoundError:
            raise MemxError(MISSING) from None
        over = None
        try:
            while over is None:
                try:
                    proc.wait(timeout=min(0.2, max(0.0, deadline - time.monotonic())))
                except subprocess.TimeoutExpired:
                    pass
                done = proc.returncode is not None
                if _size(folder) > max_bytes:
                    over = f"it is over {max_bytes:,} bytes"
                elif not done and time.monotonic() >= deadline:
                    over = f"no answer within {seconds:g} s"
                elif done:
                    break
        finally:  # over a bound, or interrupted (its own session gets no Ctrl-C)
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if over is not None:
            raise MemxError(f"git {args[0]} stopped: {over}")
        if proc.returncode != 0:
            stderr.seek(0)
            told = stderr.read(64 * 1024).decode("utf-8", "replace")
            raise MemxError(f"git {args[0]} failed: {_cause(told) or proc.returncode}")


def merge_text(ours: Path, base: Path, theirs: Path) -> bool:
    """git's own three-way merge of a text file into ``ours`` (its conflict markers where
    both sides changed the same lines), as without a merge driver; True when clean."""
    try:
        proc = subprocess.run(
            ["git", "merge-file", "-L", "this side", "-L", "base", "-L", "other side", "--",
             str(ours), str(base), str(theirs)], capture_output=True, check=False)
    except FileNotFoundError:
        raise MemxError(MISSING) from None
    if proc.returncode < 0 or proc.returncode > 127:
        raise MemxError(f"git merge-file failed: {_cause(proc.stderr.decode('utf-8', 'replace'))}")
    return proc.returncode == 0


def _cause(stderr: str) -> str:
    """The line of git's stderr that says what went wrong: the first one that is not a
    warning or hint (the last is often advice, "and the repository exists.")."""
    lines = [x.strip() for x in stderr.splitlines() if x.strip()]
    told = [x for x in lines if not x.startswith(("warning:", "hint:"))]
    return (told or lines or [""])[0]


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


def ls_files(worktree: Path, skip: str | None = None) -> list[str]:
    """Every tracked or untracked-but-not-ignored path, repository-relative and POSIX;
    ``skip``: leave out the top-level folder of that name, without walking it (a memory
    store of 100k untracked files took git 110-150 ms to list, 1M several seconds)."""
    args = ["ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    if skip is not None:
        # -x: git does not descend into an excluded folder for untracked files; the
        # pathspec leaves out its tracked files too
        args += ["-x", f"/{skip}", "--", f":(top,exclude){skip}"]
    out = run(args, cwd=worktree, check=False)
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
    if commit and external.is_operand(commit) and run(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{commit}^{{commit}}"],
            cwd=worktree, check=False).strip():
        base = commit
    out = run(["diff", "-M", "--name-status", "-z", "--end-of-options", base, "--"],
              cwd=worktree, check=False)
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



# ---------------------------------------------------------------- hooks and diffs (SPEC 6)


def run_bytes(args: list[str], cwd: Path, stdin: bytes | None = None,
              check: bool = True) -> bytes:
    """``git ARGS`` with byte output (file contents, ``-z`` listings)."""
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True,
                              check=False)
    except FileNotFoundError:
        raise MemxError(MISSING) from None
    if check and proc.returncode != 0:
        detail = _cause(proc.stderr.decode("utf-8", "replace"))
        raise MemxError(f"git {args[0]} failed: {detail or proc.returncode}")
    return proc.stdout


@contextlib.contextmanager
def stream(args: list[str], cwd: Path) -> Iterator[IO[bytes]]:
    """``git ARGS``'s standard output as a stream, for output too large to hold (an
    archive): read it as it comes; git is ended when the block is left."""
    try:
        proc = subprocess.Popen(["git", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except FileNotFoundError:
        raise MemxError(MISSING) from None
    assert proc.stdout is not None
    try:
        yield proc.stdout
    finally:
        proc.stdout.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def private_git_dir(worktree: Path) -> Path:
    """This work tree's own git dir (``.git``, or ``.git/worktrees/<name>`` of a linked
    worktree, or ``.git/modules/<name>`` of a submodule), read from ``.git`` when possible."""
    dotgit = worktree / ".git"
    if "GIT_DIR" not in os.environ:
        if dotgit.is_dir():
            return dotgit
        if dotgit.is_file():
            text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
            if text.startswith("gitdir:"):
                path = Path(text[len("gitdir:"):].strip())
                return path if path.is_absolute() else (worktree / path).resolve()
    return Path(run(["rev-parse", "--absolute-git-dir"], cwd=worktree).strip())


# Files git keeps while a multi-step operation replays commits.
_SEQUENCES = (("rebase-merge", "rebase"), ("rebase-apply", "rebase"),
              ("CHERRY_PICK_HEAD", "cherry-pick"), ("REVERT_HEAD", "revert"),
              ("sequencer", "cherry-pick"))


def sequence_in_progress(worktree: Path) -> str | None:
    """``rebase``, ``cherry-pick`` or ``revert`` while one is replaying commits, else None."""
    directory = private_git_dir(worktree)
    for name, what in _SEQUENCES:
        if (directory / name).exists():
            return what
    return None


def commit_files(worktree: Path, rev: str = "HEAD") -> tuple[str, list[str], str,
                                                             list[tuple[str, str, int, int]]]:
    """(sha, parents, message, [(status, path, added, deleted)]) of one commit, in one
    git call; renames are detected (status ``R…``, the new path); binary files count 0."""
    out = run_bytes(["diff-tree", "--root", "-r", "-M", "-z", "--raw", "--numstat",
                     "--no-color", "--format=%H%x00%P%x00%B%x00", "--end-of-options",
                     external.operand(rev, "revision"), "--"], cwd=worktree)
    sha, parents, message, rest = out.decode("utf-8", "replace").split("\0", 3)
    fields = rest.lstrip("\0\n").split("\0")
    statuses: list[tuple[str, str]] = []
    counts: dict[str, tuple[int, int]] = {}
    i = 0
    while i < len(fields):
        field = fields[i]
        if field.startswith(":"):
            status = field.rsplit(" ", 1)[-1]
            if status[:1] in ("R", "C"):
                statuses.append((status, fields[i + 2]))
                i += 3
            else:
                statuses.append((status, fields[i + 1]))
                i += 2
        elif field.count("\t") == 2:
            added, deleted, path = field.split("\t")
            if not path:  # a rename: the old and the new path follow
                path = fields[i + 2] if i + 2 < len(fields) else ""
                i += 2
            counts[path] = (int(added) if added.isdigit() else 0,
                            int(deleted) if deleted.isdigit() else 0)
            i += 1
        else:
            i += 1
    files = [(s, p, *counts.get(p, (0, 0))) for s, p in statuses]
    return sha.strip(), parents.split(), message, files


def commit_diff(worktree: Path, rev: str, path: str) -> str:
    """The unified diff one commit made to one file."""
    return run(["diff-tree", "--root", "-p", "-M", "--no-color", "--no-ext-diff",
                "--format=", "--end-of-options", external.operand(rev, "revision"), "--", path],
               cwd=worktree)


def changed_paths(worktree: Path, base: str | None, head: str | None,
                  paths: list[str]) -> list[tuple[str, str]]:
    """(status, path) for what differs under ``paths`` between two revisions; ``head``
    None is the work tree, "index" the staged state (against HEAD, or nothing before the
    first commit, when ``base`` is None). No rename pairing: a move shows as a deletion
    and an addition."""
    args = ["diff", "--name-status", "-z", "--no-renames", "--no-ext-diff"]
    if base is not None:
        external.operand(base, "revision")
    if head == "index":
        args += ["--cached", "--end-of-options", *([base] if base else [])]
    elif head is None:
        args += ["--end-of-options", base or "HEAD"]
    else:
        args += ["--end-of-options", base or "HEAD", external.operand(head, "revision")]
    fields = run(args + ["--", *paths], cwd=worktree).split("\0")
    return [(fields[i], fields[i + 1]) for i in range(0, len(fields) - 1, 2)]


def untracked(worktree: Path, paths: list[str]) -> list[str]:
    out = run(["ls-files", "-z", "--others", "--exclude-standard", "--", *paths], cwd=worktree)
    return [p for p in out.split("\0") if p]


def unmerged(worktree: Path, paths: list[str]) -> dict[str, set[int]]:
    """Paths git left unmerged under ``paths``, each with the stages its index holds:
    1 the base, 2 this side (HEAD), 3 the other; a side that deleted the file has none."""
    out = run(["ls-files", "-z", "--unmerged", "--", *paths], cwd=worktree, check=False)
    stages: dict[str, set[int]] = {}
    for entry in out.split("\0"):
        info, tab, path = entry.partition("\t")
        fields = info.split()
        if tab and len(fields) == 3 and fields[2] in ("1", "2", "3"):
            stages.setdefault(path, set()).add(int(fields[2]))
    return stages


def read_blobs(worktree: Path, specs: list[str]) -> dict[str, bytes | None]:
    """Contents of ``rev:path`` (or ``:path``, the staged version) for each spec, in one
    ``git cat-file --batch`` call; None for a spec that names nothing."""
    if not specs:
        return {}
    out = run_bytes(["cat-file", "--batch"], cwd=worktree,
                    stdin="".join(f"{s}\n" for s in specs).encode("utf-8"))
    found: dict[str, bytes | None] = {}
    pos = 0
    for spec in specs:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            found[spec] = out[pos:pos + size]
            pos += size + 1
        else:
            found[spec] = None  # "<spec> missing" (or not a blob)
    return found


def resolve_rev(worktree: Path, rev: str) -> str:
    out = ""
    if external.is_operand(rev):
        out = run(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
                  cwd=worktree, check=False).strip()
    if not out:
        raise MemxError(f"unknown revision {rev!r}; pass a branch, tag or commit")
    return out


def merge_base(worktree: Path, a: str, b: str) -> str:
    out = run(["merge-base", "--end-of-options", external.operand(a, "revision"),
               external.operand(b, "revision")], cwd=worktree, check=False).strip()
    if not out:
        raise MemxError(f"{a} and {b} have no common ancestor; use A..B instead of A...B")
    return out
