"""What each git hook does: the body of the hidden ``memx hook-impl TYPE`` (SPEC 6).

- ``post-commit``: the shim queues the new commit (an empty file named by its sha under
  ``.memx/local/queue/``) and starts ``hook-impl post-commit`` in the background, which,
  one run at a time, gives each queued commit to the Reflector (message, changed files
  with status, diff stat, the diffs of small config and manifest files and of
  documentation files) and stores what
  it finds through the ordinary ACE write path (sanitize, anchor, curate) as new files,
  left uncommitted for the author to review. Why in the background: importing the
  Reflector alone costs more than the hook's budget (SPEC 11: p50 <= 150 ms), and
  curating against a large store loads the embedding model. A commit leaves the queue
  only once its memories are written, so a run that dies loses nothing: the next post-*
  hook starts another.
- ``post-merge`` / ``post-checkout`` / ``post-rewrite`` bring the search index up to date
  when ``.memx/`` changed (one ``git diff`` when it did not); after a merge or rebase
  they stage the memories the merge driver wrote for content edited on both sides.
- ``pre-commit`` checks the *staged* content of ``.memx/`` files (``operations/precommit.py``).

post-* hooks never break git: an error is logged to ``.memx/local/hooks.log`` and the hook
reports success, silently. post-commit skips commits that a rebase, cherry-pick or revert
replays (the shim does not queue them: they were reflected on when first made), merges,
commits of memory files only and amends that keep the message and files.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memx_cli import git
from memx_cli.errors import MemxError
from memx_cli.operations.precommit import HookResult
from memx_cli.store.repo import Repo

if TYPE_CHECKING:
    from memx_cli.store.records import WriteResult

POST_HOOKS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")
LOG_NAME = "hooks.log"
STATE_NAME = "hooks-state.json"
QUEUE_NAME = "queue"
MAX_LOG_BYTES = 256_000
MEMORY_DIRS = [".memx/memories", ".memx/archive"]
# Diffs read for the Reflector: only small config/manifest files, only a few per commit;
# documentation files (a caveat the commit writes: reflector.docnotes) in a room of their own.
MAX_DIFF_LINES = 400
MAX_DIFFS = 4
MAX_DOC_DIFFS = 4  # reflector.docnotes.MAX_FILES
REMEMBERED_KEYS = 200  # commits (message + files) already reflected on: an amend is not new
# A second background run waits for the first (which may be building the index) rather
# than give up: waiting costs nothing in the background.
BACKGROUND_WAIT_SECONDS = 600.0
HOOK_LOCK_WAIT_SECONDS = 0.5  # what a foreground hook waits for the store lock at most
QUEUE_STUCK_SECONDS = 600  # a commit queued this long ago: the background run is not running
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def run(hook: str, args: Sequence[str], cwd: Path) -> HookResult:
    if hook == "pre-commit":
        from memx_cli.operations.precommit import check_staged

        return check_staged(Repo.discover(cwd))
    if hook in _POST:
        return _guarded(hook, args, cwd)
    raise MemxError(f"unknown hook {hook!r}; expected one of pre-commit, {', '.join(POST_HOOKS)}")


def _guarded(hook: str, args: Sequence[str], cwd: Path) -> HookResult:
    """Run a post-* hook (or the background run); whatever happens, git sees success."""
    repo: Repo | None = None
    handlers: list[logging.Handler] = []
    memx_log = logging.getLogger("memx")
    try:
        repo = Repo.discover(cwd)
        if not _has_store(repo):
            return HookResult()
        # Library notices ("rebuilding the index") go to the log file, not the terminal.
        handlers, memx_log.handlers = memx_log.handlers, [_LogHandler(repo, hook)]
        return _POST[hook](repo, list(args))
    except BaseException as exc:
        if repo is not None and _has_store(repo):
            detail = "".join(traceback.format_exception(exc)).rstrip()
            try:
                log_line(repo, hook, f"error: {type(exc).__name__}: {exc}\n{detail}")
            except OSError:
                pass
        return HookResult()
    finally:
        if handlers:
            memx_log.handlers = handlers


def _has_store(repo: Repo) -> bool:
    """A store, or a committed ``.memx/`` whose ``memories/`` is still empty (git does not
    keep empty directories, so a fresh clone or worktree has none)."""
    return repo.store.exists() or (repo.store.root / "config.yaml").is_file()


class _LogHandler(logging.Handler):
    def __init__(self, repo: Repo, hook: str):
        super().__init__()
        self.repo, self.hook = repo, hook

    def emit(self, record: logging.LogRecord) -> None:
        try:
            log_line(self.repo, self.hook, record.getMessage())
        except OSError:
            pass


def log_line(repo: Repo, hook: str, text: str) -> None:
    """Append to ``.memx/local/hooks.log`` (kept under MAX_LOG_BYTES: the newest half).
    Masked: an error message can quote the input that caused it (issue 12)."""
    from memx_cli.fsutil import append_line
    from memx_cli.privacy import mask

    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    append_line(repo.store.local_dir / LOG_NAME, mask(f"{stamp} {hook}: {text}"), MAX_LOG_BYTES)


# ---------------------------------------------------------------- queue (per clone)


def queue_dir(repo: Repo) -> Path:
    """One empty file per commit to reflect on, named by its sha (the shim creates them)."""
    return repo.store.local_dir / QUEUE_NAME


def stuck_queue(repo: Repo, now: float | None = None) -> str | None:
    """A one-line problem when queued commits wait with no background run working on
    them (``memx doctor``), else None."""
    from memx_cli.errors import LockTimeoutError
    from memx_cli.fsutil import locked

    shas = queued(repo)
    if not shas:
        return None
    try:
        oldest = (queue_dir(repo) / shas[0]).stat().st_mtime
    except FileNotFoundError:
        return None
    if (now or time.time()) - oldest < QUEUE_STUCK_SECONDS:
        return None
    try:
        with locked(repo.store.local_dir / "background.lock", wait=0):
            pass
    except LockTimeoutError:
        return None  # a background run holds it: working, not stuck
    return (f"{len(shas)} commit(s) queued for reflection since "
            f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(oldest))} with no background "
            "run; run: memx hook-impl post-commit")


def queued(repo: Repo) -> list[str]:
    """Commits the post-commit shim queued that are not reflected on yet, oldest first."""
    try:
        entries = [e for e in os.scandir(queue_dir(repo)) if _SHA.fullmatch(e.name)]
    except FileNotFoundError:
        return []
    stamped = []
    for entry in entries:
        try:  # the background run may unqueue it meanwhile
            stamped.append((entry.stat().st_mtime_ns, entry.name))
        except FileNotFoundError:
            continue
    return [name for _, name in sorted(stamped)]


def _reflected(repo: Repo) -> list[str]:
    """Keys (message + files) of the last commits reflected on: an amend is not new."""
    try:
        data = json.loads((repo.store.local_dir / STATE_NAME).read_bytes())
    except (OSError, ValueError):
        return []
    keys = data.get("reflected") if isinstance(data, dict) else None
    return [str(k) for k in keys] if isinstance(keys, list) else []


def _remember(repo: Repo, key: str) -> None:
    from memx_cli.fsutil import atomic_write

    keys = (_reflected(repo) + [key])[-REMEMBERED_KEYS:]
    atomic_write(repo.store.local_dir / STATE_NAME, json.dumps({"reflected": keys}).encode())


def _start_background(repo: Repo) -> None:
    """``memx hook-impl post-commit``, detached from git, the terminal and their pipes."""
    env = {k: v for k, v in os.environ.items() if k != "GIT_INDEX_FILE"}  # may be temporary
    subprocess.Popen([sys.executable, "-m", "memx_cli", "hook-impl", "post-commit"],
                     cwd=repo.worktree, env=env, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, close_fds=True)


# ---------------------------------------------------------------- post-commit (background)


def _wants_diff(path: str, doc: bool = False) -> bool:
    from memx_cli.reflector.commit_diff import wants_diff
    from memx_cli.reflector.docnotes import is_doc

    return is_doc(path) if doc else wants_diff(path)


def _diffstat(files: Sequence[tuple[str, str, int, int]]) -> str:
    added, deleted = sum(f[2] for f in files), sum(f[3] for f in files)
    return (f" {len(files)} file{'s' if len(files) != 1 else ''} changed, {added} "
            f"insertion{'s' if added != 1 else ''}(+), {deleted} "
            f"deletion{'s' if deleted != 1 else ''}(-)")


def reflect_on(repo: Repo, sha: str,
               reflected: Sequence[str]) -> tuple[str | None, list[WriteResult]]:
    """(key, write results) for one commit; key None when the commit is not one to learn
    from (a merge, memory files only, or ACE off)."""
    from memx_cli.operations import write as ace
    from memx_cli.operations.reflect import reflect_commit

    sha, parents, message, files = git.commit_files(repo.worktree, sha)
    code = [f for f in files if not f[1].startswith(".memx/")]
    if len(parents) > 1 or (files and not code) or not repo.config["ace.enabled"]:
        return None, []  # a merge, or a commit of memory files only (the review flow)
    key = hashlib.sha1(json.dumps([message.strip(), [f[:2] for f in code]]).encode()).hexdigest()
    if key in reflected:
        return key, []  # an amend of a commit already reflected on
    small: dict[str, str] = {}
    # settings and manifests, then documentation files (a caveat the commit writes), each
    # in a room of their own
    for doc, room in ((False, MAX_DIFFS), (True, MAX_DOC_DIFFS)):
        wanted = [path for _status, path, added, deleted in code
                  if _wants_diff(path, doc) and added + deleted <= MAX_DIFF_LINES]
        for path in wanted[:room]:
            small[path] = git.commit_diff(repo.worktree, sha, path)
    found = reflect_commit(repo, message, [f[:2] for f in code], _diffstat(code), small,
                           sha=sha)
    if found and not repo.store.exists():
        repo.store.create()  # a clone of a store whose memories/ folder was still empty
    return key, ace.write(repo, found) if found else []


def post_commit(repo: Repo, args: list[str]) -> HookResult:
    """The background run the shim starts: every queued commit, oldest first, through the
    Reflector and the ACE write path; then the index. One run at a time."""
    from memx_cli.errors import LockTimeoutError
    from memx_cli.fsutil import locked

    # Out of git's process group (and off the terminal): closing the terminal or the end
    # of a CI step must not kill the run with the commits still queued (issue 14). Fails
    # harmlessly when this process already leads a session (_start_background made it).
    with contextlib.suppress(OSError):
        os.setsid()
    with locked(repo.store.local_dir / "background.lock", wait=BACKGROUND_WAIT_SECONDS):
        while True:
            shas = queued(repo)
            if not shas:
                break
            for sha in shas:
                try:
                    key, results = reflect_on(repo, sha, _reflected(repo))
                except LockTimeoutError:
                    raise  # another writer is busy: the commit stays queued for the next run
                except Exception as exc:
                    log_line(repo, "post-commit", f"{sha[:12]}: not reflected on: "
                                                  f"{type(exc).__name__}: {exc}")
                    key, results = None, []
                if key is not None:
                    _remember(repo, key)
                (queue_dir(repo) / sha).unlink(missing_ok=True)
                for result in results:
                    log_line(repo, "post-commit", f"{sha[:12]}: {result.message} "
                                                  f"{repo.store.display(result.path)}")
        _sync_index(repo)
    return HookResult()


# ---------------------------------------------------------------- index refresh


def _sync_index(repo: Repo) -> None:
    """Update an existing index now (embedding included); a store never searched has no
    index yet and its first search builds one, so there is nothing to keep fresh."""
    from memx_cli.index import StoreIndex

    index = StoreIndex(repo.store, repo.config["embedding.model"])
    if index.built():
        index.sync()


def refresh(repo: Repo, args: list[str], hook: str) -> HookResult:
    from memx_cli.operations.merge_driver import stage_copies_notice

    # Issue 17: stage the merge driver's conflict copies; unpack sources the lock moved.
    messages = () if hook == "post-checkout" else stage_copies_notice(repo.worktree)
    if (repo.store.root / "sources.lock").is_file():
        from memx_cli.operations.sources import sync

        for item in sync(repo):
            log_line(repo, "sources", item.problem or f"{item.source.name}: unpacked {item.new}")
    if queued(repo):
        _start_background(repo)  # a background run died: start another
    if hook == "post-checkout" and git.sequence_in_progress(repo.worktree):
        return HookResult()  # the rebase's post-rewrite refreshes once at the end
    span = None
    if hook == "post-checkout" and len(args) >= 3 and args[2] == "1":
        span = (args[0], args[1])
    elif hook == "post-merge" and args[:1] != ["1"]:  # a squash merge leaves HEAD alone
        span = ("ORIG_HEAD", "HEAD")
    if span is not None and not messages:
        try:
            if not git.changed_paths(repo.worktree, span[0], span[1], MEMORY_DIRS):
                return HookResult()  # cheap: nothing under .memx/ moved
        except MemxError:
            pass  # e.g. no ORIG_HEAD: let the index compare the files itself
    from memx_cli.errors import LockTimeoutError
    from memx_cli.fsutil import locked

    try:
        # git waits for this hook: never long on another memx process (issue 14: every
        # checkout waited 30 s); the background run does it once the store is free.
        with locked(repo.store.lock_path, wait=HOOK_LOCK_WAIT_SECONDS):
            _sync_index(repo)
    except LockTimeoutError:
        log_line(repo, hook, "the store is busy; the index refresh continues in the background")
        _start_background(repo)
    _refresh_exports(repo)
    return HookResult(messages)


def _refresh_exports(repo: Repo) -> None:
    """Rewrite the instruction-file blocks the user opted into (config agents.export)."""
    formats = repo.config["agents.export"]
    if formats:
        from memx_cli.operations.agents_file import export_block

        for fmt in formats:
            try:
                done = export_block(repo, fmt)
            except MemxError as exc:  # e.g. a pulled link in its place: the others go on
                log_line(repo, "export", str(exc))
                continue
            if done.changed:
                log_line(repo, "export", f"updated {done.display}")


_POST: dict[str, Callable[[Repo, list[str]], HookResult]] = {
    "post-commit": post_commit,
    "post-merge": lambda repo, args: refresh(repo, args, "post-merge"),
    "post-checkout": lambda repo, args: refresh(repo, args, "post-checkout"),
    "post-rewrite": lambda repo, args: refresh(repo, args, "post-rewrite"),
}
