"""memx diff puts what a reviewer must not miss on top (issue 17): policies added,
changed or removed, access and config changes, stale anchors, secrets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memx_cli.store import memory

from .conftest import Memx, git
from .test_diff import STAMP, mem, mid, put

ACCESS = "grants:\n  agent: {conventions: write}\n"


@pytest.fixture
def reviewed(memx: Memx, repo: Path) -> tuple[Path, str]:
    """A base commit with three policies and an anchored fact; a second commit that adds,
    changes, deletes and deactivates policies, grants access, changes the configuration,
    edits the anchored code and hand-writes a memory holding an AWS key."""
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("def main():\n    return serve(port=8080)\n")
    git(repo, "add", "src")
    anchored = memx.ok("add", "--raw", "The app serves on port 8080",
                       "--anchor", "src/app.py:1-2").strip()
    put(repo, mem("p", "Never force-push to main", kind="policy"))
    put(repo, mem("q", "Run make lint before pushing", kind="policy"))
    put(repo, mem("r", "Tag releases as vX.Y.Z", kind="policy"))
    put(repo, mem("f", "The cache lives in /tmp/app"))
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "tag", "base")
    put(repo, mem("n", "Ask before deleting migrations", kind="policy"))
    put(repo, mem("p", "Never force-push to main or release branches", kind="policy",
                  updated_at="2026-11-02T09:00:00Z"))
    (repo / ".memx" / "memories" / f"{mid('q')}.yaml").unlink()
    put(repo, mem("r", "Tag releases as vX.Y.Z", kind="policy", active=False))
    put(repo, mem("t", "Deploy with the key AKIAIOSFODNN7EXAMPLE"))
    (repo / ".memx" / "access.yaml").write_text(ACCESS)
    memx.ok("config", "set", "ace.decay.half_life", "60")
    (repo / "src" / "app.py").write_text("def main():\n    return serve(port=9090)\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "changes")
    return repo, anchored


def test_text_shows_policies_settings_anchors_and_secrets_first(reviewed: tuple[Path, str],
                                                                memx: Memx) -> None:
    _, anchored = reviewed
    out = memx.ok("diff", "base..HEAD")
    short = anchored[:12]
    config_lines = [line for line in out.splitlines() if line.startswith("      +") and
                    "half_life" in line]
    assert out.startswith(
        "memx: memory changes in base..HEAD: 2 added, 2 changed, 1 deleted\n"
        "\n"
        "Needs attention (8)\n"
        "  ! New policy (pushed into every agent's prompt): 01jd3k7m2xnn Ask before deleting "
        "migrations\n"
        "  ! Changed policy (content; pushed into every agent's prompt): 01jd3k7m2xpp Never "
        "force-push to main or release branches\n"
        "      -Never force-push to main\n"
        "      +Never force-push to main or release branches\n"
        "  ! Removed policy (deactivated; no longer pushed to agents): 01jd3k7m2xrr Tag "
        "releases as vX.Y.Z\n"
        "  ! Removed policy (deleted; no longer pushed to agents): 01jd3k7m2xqq Run make "
        "lint before pushing\n"
        "  ! Access rules added: .memx/access.yaml\n"
        "      +grants:\n"
        "      +  agent: {conventions: write}\n"
        "  ! Configuration changed: .memx/config.yaml\n")
    assert config_lines == ["      +    half_life: 60.0"]
    assert "AKIAIOSFODNN7EXAMPLE" not in out  # the comment does not repeat the secret
    assert (f"  ! Stale anchor (src/app.py:1-2): {short} The app serves on port 8080\n"
            f"  ! Secret: .memx/memories/{mid('t')}.yaml:4: secret (aws_access_key); remove "
            "it, then stage the file again\n\nAdded (2)\n") in out


def test_markdown_and_json_carry_the_same(reviewed: tuple[Path, str], memx: Memx) -> None:
    _, anchored = reviewed
    out = memx.ok("diff", "base..HEAD", "--format", "markdown")
    assert out.startswith("### memx: memory changes in base..HEAD\n\n2 added, 2 changed, "
                          "1 deleted\n\n**Needs attention (8)**\n\n- **New policy** (pushed "
                          "into every agent's prompt): `01jd3k7m2xnn` Ask before deleting "
                          "migrations\n- **Changed policy** (content; pushed into every agent's "
                          "prompt): `01jd3k7m2xpp` Never force-push to main or release "
                          "branches\n  ```diff\n  -Never force-push to main\n")
    assert "- **Access rules added**: .memx/access.yaml\n  ```diff\n  +grants:\n" in out
    data = json.loads(memx.ok("diff", "base..HEAD", "--format", "json"))["diff"]["attention"]
    assert data["count"] == 8
    assert [(p["action"], p["id"], p["how"]) for p in data["policies"]] == [
        ("added", mid("n"), ""), ("changed", mid("p"), "content"),
        ("removed", mid("r"), "deactivated"), ("removed", mid("q"), "deleted")]
    assert [(s["path"], s["status"]) for s in data["settings"]] == [
        (".memx/access.yaml", "added"), (".memx/config.yaml", "changed")]
    assert data["anchors"] == [{"id": anchored, "status": "stale", "anchors": ["src/app.py:1-2"],
                                "content": "The app serves on port 8080"}]
    assert data["secrets"] == [{"file": f".memx/memories/{mid('t')}.yaml", "line": 4,
                                "message": "secret (aws_access_key); remove it, then stage the "
                                           "file again"}]


def test_settings_alone_are_worth_a_review(memx: Memx, repo: Path) -> None:
    memx.ok("add", "A first memory")
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "store")
    (repo / ".memx" / "access.yaml").write_text(ACCESS)
    assert memx.ok("diff") == (
        "memx: memory changes in the work tree against HEAD: no memory added, changed or "
        "removed\n\nNeeds attention (1)\n  ! Access rules added: .memx/access.yaml\n"
        "      +grants:\n      +  agent: {conventions: write}\n")


def test_a_policy_turned_fact_and_a_superseded_policy_are_removals(memx: Memx,
                                                                   repo: Path) -> None:
    put(repo, mem("a", "Squash merge every pull request", kind="policy"))
    put(repo, mem("b", "Use pnpm", kind="policy"))
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "base")
    put(repo, mem("a", "Squash merge every pull request"))
    put(repo, mem("b", "Use pnpm", kind="policy", superseded_by=mid("c")))
    put(repo, mem("c", "Use pnpm 9", kind="policy", supersedes=(mid("b"),)))
    data = json.loads(memx.ok("diff", "--format", "json"))["diff"]["attention"]
    assert [(p["action"], p["id"], p["how"]) for p in data["policies"]] == [
        ("added", mid("c"), ""), ("removed", mid("a"), "now a fact"),
        ("removed", mid("b"), "superseded")]
    assert memory.load((repo / ".memx" / "memories" / f"{mid('c')}.yaml").read_bytes()
                       ).created_at == STAMP
