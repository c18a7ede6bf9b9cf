"""memx diff: what a range does to memory, as text, Markdown and JSON (SPEC 6)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memx_cli.store import memory
from memx_cli.store.memory import Memory

from .conftest import Memx, git

STAMP = "2026-11-01T12:00:00Z"
LATER = "2026-11-02T09:30:00Z"


def mid(letter: str) -> str:
    return "01jd3k7m2x" + letter * 16


def mem(letter: str, content: str, **fields: object) -> Memory:
    fields.setdefault("updated_at", STAMP)
    return Memory(id=mid(letter), content=content, created_at=STAMP,
                  **fields)  # type: ignore[arg-type]


def put(root: Path, m: Memory, area: str = "memories") -> None:
    path = root / ".memx" / area / f"{m.id}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(memory.dump(m))


def move(root: Path, letter: str, src: str, dst: str) -> None:
    (root / ".memx" / dst).mkdir(parents=True, exist_ok=True)
    shutil.move(root / ".memx" / src / f"{mid(letter)}.yaml",
                root / ".memx" / dst / f"{mid(letter)}.yaml")


@pytest.fixture
def history(memx: Memx, repo: Path) -> Path:
    """A base commit with six memories, and a second commit that touches every one."""
    put(repo, mem("a", "Use pnpm for installs", tags=("tooling",)))
    put(repo, mem("b", "Deploy with make deploy"))
    put(repo, mem("c", "The login test is flaky on CI"))
    put(repo, mem("d", "Restart the cache with make flush"), "archive")
    put(repo, mem("f", "The staging VPN needs a token"))
    put(repo, mem("g", "The API timeout is 30 seconds"))
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "base memories")
    git(repo, "tag", "base")
    put(repo, mem("a", "Use pnpm for installs\nnpm is not allowed", tags=("tooling", "js"),
                  updated_at=LATER))
    put(repo, mem("e", "Deploy with make release", supersedes=(mid("b"),),
                  source={"type": "commit", "sha": "0123456789abcdef"}, section="workflow"))
    put(repo, mem("b", "Deploy with make deploy", superseded_by=mid("e"), updated_at=LATER))
    move(repo, "c", "memories", "archive")
    move(repo, "d", "archive", "memories")
    (repo / ".memx" / "memories" / f"{mid('f')}.yaml").unlink()
    put(repo, mem("g", "The API timeout is 30 seconds", conflicts_with=(mid("h"),)))
    put(repo, mem("h", "The API timeout is 60 seconds", conflicts_with=(mid("g"),)))
    git(repo, "add", "-A", ".memx")
    git(repo, "commit", "-q", "-m", "memory changes")
    return repo


TEXT = """\
memx: memory changes in base..HEAD: 2 added, 1 changed, 1 superseded, 1 archived, \
1 restored, 1 deleted, 1 new conflict

Added (2)
  01jd3k7m2xee Deploy with make release (workflow, from commit 0123456)
  01jd3k7m2xhh The API timeout is 60 seconds (from manual)

Changed (1)
  01jd3k7m2xaa changed content, tags: Use pnpm for installs npm is not allowed
       Use pnpm for installs
      +npm is not allowed

Superseded (1)
  01jd3k7m2xbb superseded by 01jd3k7m2xee: Deploy with make deploy

Archived (1)
  01jd3k7m2xcc The login test is flaky on CI (from manual)

Restored (1)
  01jd3k7m2xdd Restart the cache with make flush (from manual)

Deleted (1)
  01jd3k7m2xff The staging VPN needs a token (from manual)

New conflicts (1)
  01jd3k7m2xgg conflicts with 01jd3k7m2xhh
    01jd3k7m2xgg: The API timeout is 30 seconds
    01jd3k7m2xhh: The API timeout is 60 seconds
"""


def test_range_as_text(history: Path, memx: Memx) -> None:
    assert memx.ok("diff", "base..HEAD") == TEXT


def test_range_as_markdown(history: Path, memx: Memx) -> None:
    out = memx.ok("diff", "base..HEAD", "--format", "markdown")
    assert out.startswith("### memx: memory changes in base..HEAD\n\n2 added, 1 changed, "
                          "1 superseded, 1 archived, 1 restored, 1 deleted, 1 new conflict\n")
    assert ("**Changed (1)**\n\n- `01jd3k7m2xaa` changed content, tags: Use pnpm for installs "
            "npm is not allowed\n  ```diff\n   Use pnpm for installs\n  +npm is not allowed\n"
            "  ```\n") in out
    assert ("**New conflicts (1)**\n\n- `01jd3k7m2xgg` conflicts with `01jd3k7m2xhh`\n"
            "  - `01jd3k7m2xgg`: The API timeout is 30 seconds\n"
            "  - `01jd3k7m2xhh`: The API timeout is 60 seconds\n") in out


def test_range_as_json(history: Path, memx: Memx) -> None:
    data = json.loads(memx.ok("diff", "base..HEAD", "--format", "json"))["diff"]
    # --json, as every other command takes it, is the same output
    assert json.loads(memx.ok("diff", "base..HEAD", "--json"))["diff"] == data
    both = memx("diff", "base..HEAD", "--json", "--format", "markdown")
    assert (both.code, both.err.splitlines()[-1]) == (
        2, "memx: error: --json and --format markdown ask for two outputs: give one")
    assert data["range"] == "base..HEAD"
    assert data["counts"] == {"added": 2, "changed": 1, "superseded": 1, "archived": 1,
                              "restored": 1, "deleted": 1, "conflicts": 1, "problems": 0}
    assert [m["id"] for m in data["added"]] == [mid("e"), mid("h")]
    [changed] = data["changed"]
    assert (changed["id"], changed["fields"]) == (mid("a"), ["content", "tags"])
    assert changed["content_diff"] == [" Use pnpm for installs", "+npm is not allowed"]
    assert data["superseded"][0]["by"] == mid("e")
    assert data["conflicts"] == [{"a": mid("g"), "b": mid("h")}]


def test_three_dots_compare_with_the_fork_point(history: Path, memx: Memx) -> None:
    git(history, "checkout", "-q", "-b", "topic", "base")
    put(history, mem("k", "Topic branch memory"))
    git(history, "add", ".memx")
    git(history, "commit", "-q", "-m", "topic memory")
    out = memx.ok("diff", "main...topic")
    assert out == ("memx: memory changes in main...topic: 1 added\n\nAdded (1)\n"
                   "  01jd3k7m2xkk Topic branch memory (from manual)\n")
    assert "2 deleted" in memx.ok("diff", "main..topic")  # two dots: main's changes undone


def test_work_tree_and_staged(history: Path, memx: Memx) -> None:
    assert memx.ok("diff") == "memx: no memory changes in the work tree against HEAD\n"
    put(history, mem("m", "Untracked memory from a hook"))
    assert memx.ok("diff") == (
        "memx: memory changes in the work tree against HEAD: 1 added\n\nAdded (1)\n"
        "  01jd3k7m2xmm Untracked memory from a hook (from manual)\n")
    assert memx.ok("diff", "--staged") == "memx: no memory changes in the index against HEAD\n"
    git(history, "add", ".memx")
    assert "01jd3k7m2xmm Untracked memory" in memx.ok("diff", "--staged")
    assert memx.ok("diff", "base").startswith(  # A alone: A against the work tree
        "memx: memory changes in the work tree against base: 3 added, 1 changed,")


def test_unparsable_files_are_reported(history: Path, memx: Memx) -> None:
    path = history / ".memx" / "memories" / f"{mid('a')}.yaml"
    path.write_text(path.read_text().replace("kind: fact", "<<<<<<< HEAD\nkind: fact"))
    out = memx.ok("diff")
    assert out.endswith(f"Problems (1)\n  .memx/memories/{mid('a')}.yaml:3: merge-conflict "
                        "marker; resolve the conflict, then run memx validate\n")


def test_bad_ranges_are_usage_errors(history: Path, memx: Memx) -> None:
    result = memx("diff", "nope..HEAD")
    assert (result.code, result.err) == (
        2, "memx: error: unknown revision 'nope'; pass a branch, tag or commit\n")
    result = memx("diff", "--staged", "base..HEAD")
    assert (result.code, result.err) == (
        2, "memx: error: --staged compares the index with HEAD; do not also pass a range\n")


def test_first_commit_of_a_store(memx: Memx, repo: Path, tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q", "-b", "main")
    memx.ok("init", cwd=fresh)
    put(fresh, mem("n", "First memory ever"))
    git(fresh, "add", ".memx")
    out = memx.ok("diff", "--staged", cwd=fresh)
    assert out == ("memx: memory changes in the index (no commits yet): 1 added\n\nAdded (1)\n"
                   "  01jd3k7m2xnn First memory ever (from manual)\n")
