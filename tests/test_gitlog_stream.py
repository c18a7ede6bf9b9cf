"""`memx ingest --git-log` in bounded memory (issue 29), in real temporary repositories:
the history is read in chunks and the candidates wait in temporary files, so the memory
an ingest holds does not grow with the history, and the output is the same whatever the
chunk sizes (a series, a revert and the budget across the seams)."""

from __future__ import annotations

import json
import subprocess
import tracemalloc
from pathlib import Path

import pytest

from .conftest import Memx, git
from .test_reflector_gitlog import commit

VERBS = ["guard", "retry", "cache", "escape", "bound", "close", "flush", "lock", "parse",
         "quote", "sort", "trim", "wrap", "yield", "drain"]
NOUNS = ["socket", "header", "cursor", "ticket", "bucket", "schema", "filter", "handle",
         "buffer", "folder", "router", "sender", "parcel", "ledger", "beacon", "spooler"]


def fixes(repo: Path, count: int, start: int = 0) -> None:
    """``count`` commits through git fast-import, each a fix whose body says why (a
    candidate each; a subject without words besides its names is no series), every 7th
    of them a changed config file."""
    lines: list[bytes] = []
    parent = git(repo, "rev-parse", "HEAD").strip()
    for n in range(start, start + count):
        verb, noun = VERBS[n % len(VERBS)], NOUNS[(n // len(VERBS)) % len(NOUNS)]
        text = (f"fix: `{noun}_{n}`\n\nThe client read {noun.upper()}_{n} without a default, "
                f"so a KeyError crashed worker {n}.\n\nFall back to the {verb} default.\n"
                ).encode()
        body = f"workers = {n % 9 + 1}\n".encode() if n % 7 == 0 else f"# {n}\n".encode()
        path = b"deploy/gunicorn.ini" if n % 7 == 0 else b"app/w%d.py" % n
        lines += [b"commit refs/heads/main",
                  b"committer Dev <dev@example.invalid> %d +0000" % (1_700_000_000 + n),
                  b"data %d" % len(text), text]
        if n == start:
            lines.append(b"from " + parent.encode())
        lines += [b"M 100644 inline " + path, b"data %d" % len(body), body, b""]
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, check=True,
                   input=b"\n".join(lines) + b"\n")
    git(repo, "reset", "-q", "--hard", "main")


def test_an_ingest_holds_no_more_for_a_longer_history(repo: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The Python memory an ingest holds at its peak (tracemalloc) for 400 commits is
    within 128 KiB of that for 100, read 32 and reflected 16 at a time: only the kept
    memories grow (60 per 1,000 commits). Every candidate, dropped one and sha was held
    before (~0.5 MB more for the 300 commits)."""
    from memx_cli.operations import gitlog, gitlog_read
    from memx_cli.store.repo import Repo

    monkeypatch.setattr(gitlog_read, "READ_CHUNK", 32, raising=False)
    monkeypatch.setattr(gitlog, "BATCH", 16)
    fixes(repo, 100)
    short = git(repo, "rev-parse", "HEAD").strip()
    fixes(repo, 300, start=100)
    store = Repo.discover(repo).require_store()
    gitlog.ingest_git_log(store, f"{short}~3..{short}", dry_run=True)  # its imports, once

    def peak(rev_range: str) -> tuple[int, int]:
        tracemalloc.start()
        try:
            outcome = gitlog.ingest_git_log(store, rev_range, dry_run=True)
            return tracemalloc.get_traced_memory()[1], outcome.reflected
        finally:
            tracemalloc.stop()

    small, reflected_small = peak(short)
    large, reflected_large = peak("HEAD")
    assert (reflected_small, reflected_large) == (101, 401)  # the first commit too
    assert large - small < 128 * 1024, (small, large)


def dry_run(memx: Memx, *extra: str) -> dict[str, object]:
    """The JSON of a dry run; its text is what ``json.dumps(indent=2)`` makes of it, though
    the dropped candidates are written one at a time."""
    out = memx.ok("ingest", "--git-log", "--dry-run", "--json", *extra)
    found: dict[str, object] = json.loads(out)
    assert out == json.dumps(found, ensure_ascii=False, indent=2) + "\n"
    return found


def test_chunks_and_batches_change_nothing(memx: Memx, repo: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Read 3 commits a git process and reflected 2 at a time, the history gives the same
    candidates, dropped ones (each reason) and summary as read whole: a series split by
    the seams, a change reverted 40 commits later, config diffs, the budget's cut."""
    from memx_cli.operations import gitlog, gitlog_read

    fixes(repo, 40)
    first = git(repo, "log", "-1", "--format=%H", "HEAD~30").strip()
    for n, (rule, what, why) in enumerate([
            ("SIM118", "key in dict", "nothing iterates over dict.keys()"),
            ("C400", "unnecessary generator", "list() of a generator is never used"),
            ("RET501", "explicit return None", "no function returns None by hand")]):
        commit(repo, f"[lint] Enable {rule} ({what})\n\nThe rule passes already, because "
                     f"{why}.",
               {f"lint{n}.toml": f"select = ['{rule}']\n"})
        fixes(repo, 3, start=40 + 3 * n)
    fixes(repo, 40, start=50)
    commit(repo, f'Revert "an old fix"\n\nThis reverts commit {first}.\n\nIt broke the '
                 "shutdown path because the pool closed twice.", {"app/revert.py": "x\n"})
    whole = dry_run(memx)
    whole_all = dry_run(memx, "--budget", "0")
    monkeypatch.setattr(gitlog_read, "READ_CHUNK", 3)
    monkeypatch.setattr(gitlog, "BATCH", 2)
    assert dry_run(memx) == whole
    assert dry_run(memx, "--budget", "0") == whole_all
    reasons = [str(d["reason"]) for d in whole["dropped"]]  # type: ignore[attr-defined]
    assert any(r.startswith("reverted later in the range by ") for r in reasons)
    assert any(r.startswith("one of a series of commits on one subject") for r in reasons)
    assert any(r.startswith("over the budget of 60 memories") for r in reasons)
    assert len(whole["candidates"]) == 5  # type: ignore[arg-type]  # MIN_KEPT of 93
