"""Merging branches that changed memory (SPEC 2, SPEC 6): additions never conflict; two
edits of one memory give, without memx's merge driver, a small conflict in that one file,
which validate reports."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memx_cli.store import memory
from memx_cli.store.memory import Memory

from .conftest import Memx, git

MEMORY_ID = "01jd3k7m2xaaaaaaaaaaaaaaaa"


def _branch_and_main(repo: Path) -> None:
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "store")
    git(repo, "branch", "topic")


def test_two_branches_adding_memories_merge_cleanly(memx: Memx, repo: Path) -> None:
    # (One memory first: git keeps no empty memories/ folder, and memx reads a store
    # without one as not initialized.)
    base = memx.ok("add", "The store's first memory").strip()
    _branch_and_main(repo)
    ours = [memx.ok("add", f"Main branch fact number {n}").strip() for n in range(3)]
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "main memories")
    git(repo, "checkout", "-q", "topic")
    theirs = [memx.ok("add", f"Topic branch fact number {n}").strip() for n in range(3)]
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "topic memories")
    git(repo, "checkout", "-q", "main")
    merge = subprocess.run(["git", "merge", "-q", "--no-edit", "topic"], cwd=repo,
                           capture_output=True, text=True)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    names = sorted(p.stem for p in (repo / ".memx" / "memories").glob("*.yaml"))
    assert names == sorted([base] + ours + theirs)
    assert memx.ok("validate") == "7 memory file(s) OK\n"


def _write(repo: Path, content: str, updated_at: str) -> Path:
    mem = Memory(id=MEMORY_ID, content=content, created_at="2026-11-01T12:00:00Z",
                 updated_at=updated_at, tags=("deploy",), source={"type": "manual"})
    path = repo / ".memx" / "memories" / f"{MEMORY_ID}.yaml"
    path.write_bytes(memory.dump(mem))
    return path


def test_without_the_driver_two_edits_conflict_in_that_file_only(memx: Memx,
                                                                  repo: Path) -> None:
    # A clone that never ran memx init / memx hooks install: git's own line merge
    # (tests/test_merge_driver.py covers the driver, which keeps both versions instead).
    git(repo, "config", "--unset", "merge.memx.driver")
    _write(repo, "Deploys run from the release branch", "2026-11-01T12:00:00Z")
    memx.ok("add", "An unrelated memory")
    _branch_and_main(repo)
    _write(repo, "Deploys run from the main branch", "2026-11-02T08:00:00Z")
    git(repo, "commit", "-q", "-am", "main edit")
    git(repo, "checkout", "-q", "topic")
    _write(repo, "Deploys run from tagged commits only", "2026-11-03T08:00:00Z")
    git(repo, "commit", "-q", "-am", "topic edit")
    git(repo, "checkout", "-q", "main")
    merge = subprocess.run(["git", "merge", "-q", "--no-edit", "topic"], cwd=repo,
                           capture_output=True, text=True)
    assert merge.returncode == 1
    conflicted = git(repo, "diff", "--name-only", "--diff-filter=U")
    assert conflicted == f".memx/memories/{MEMORY_ID}.yaml\n"
    text = (repo / ".memx" / "memories" / f"{MEMORY_ID}.yaml").read_text()
    # Small and readable: each side's line, next to each other, nothing else in conflict.
    assert ("<<<<<<< HEAD\ncontent: Deploys run from the main branch\n=======\n"
            "content: Deploys run from tagged commits only\n>>>>>>> topic\n") in text
    assert ("<<<<<<< HEAD\nupdated_at: '2026-11-02T08:00:00Z'\n=======\n"
            "updated_at: '2026-11-03T08:00:00Z'\n>>>>>>> topic\n") in text
    assert text.count("<<<<<<<") == 2 and len(text.splitlines()) == 19
    result = memx("validate")
    assert result.code == 1
    assert result.out == (f".memx/memories/{MEMORY_ID}.yaml:4: merge-conflict marker; resolve "
                          "the conflict, then run memx validate\n")
    assert result.err == "memx: error: 1 problem(s) in 2 file(s) checked\n"
    # Resolving it by hand (keep one side) makes the store valid again.
    _write(repo, "Deploys run from tagged commits only", "2026-11-03T08:00:00Z")
    assert memx.ok("validate") == "2 memory file(s) OK\n"
