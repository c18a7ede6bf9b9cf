"""Issue 17, done when: two clones, a bare remote and a shared memory repository. Both
clones see the source's policies and facts, edit the same memories, push and pull with no
conflict markers, and `memx diff` of the resulting branch shows the policy change on top."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memx_cli.store import memory

from .conftest import Memx, git


def _pull(clone: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-c", "pull.rebase=false", "pull", "-q", "--no-edit"],
                          cwd=clone, capture_output=True, text=True)


def test_two_clones_a_remote_and_a_shared_source(memx: Memx, repo: Path,
                                                 tmp_path: Path) -> None:
    shared = tmp_path / "org-memory"
    shared.mkdir()
    git(shared, "init", "-q", "-b", "main")
    memx.ok("init", cwd=shared)
    memx.ok("add", "--raw", "--kind", "policy", "--domain", "security",
            "Never commit credentials", cwd=shared)
    memx.ok("add", "--raw", "The artifact registry is called quarry", cwd=shared)
    git(shared, "add", ".memx")
    git(shared, "commit", "-q", "-m", "org memory")

    fact = memx.ok("add", "--raw", "Integration tests need docker compose up first").strip()
    policy = memx.ok("add", "--raw", "--kind", "policy", "--domain", "workflow",
                     "Open a draft pull request early").strip()
    memx.ok("source", "add", "org", str(shared))
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "memx with a shared source")
    base = git(repo, "rev-parse", "HEAD").strip()
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    for clone in (alice, bob):
        git(tmp_path, "clone", "-q", str(origin), str(clone))
        memx.ok("hooks", "install", "--hooks", "post-merge,post-rewrite", cwd=clone)
        context = memx.ok("context", "ship the release", cwd=clone)
        assert "- [security] Never commit credentials (from source org)\n" in context
        assert "- [workflow] Open a draft pull request early\n" in context
        found = memx.ok("search", "artifact registry name", cwd=clone).splitlines()[0]
        assert found.split("  ")[2] == "source:org"

    # alice votes and rewrites the policy; bob votes and tags the same fact
    memx.ok("feedback", fact, "--helpful", cwd=alice)
    path = alice / ".memx" / "memories" / f"{policy}.yaml"
    mem = memory.load(path.read_bytes())
    path.write_bytes(memory.dump(mem.replace(
        content="Open a draft pull request on the first day", updated_at="2026-11-02T08:00:00Z")))
    git(alice, "commit", "-q", "-am", "alice: vote, policy")
    git(alice, "push", "-q")
    memx.ok("feedback", fact, "--helpful", cwd=bob)
    path = bob / ".memx" / "memories" / f"{fact}.yaml"
    path.write_bytes(memory.dump(memory.load(path.read_bytes()).replace(tags=("docker",))))
    git(bob, "commit", "-q", "-am", "bob: vote, tag")
    pulled = _pull(bob)
    assert (pulled.returncode, pulled.stderr) == (0, "")
    git(bob, "push", "-q")
    assert _pull(alice).returncode == 0
    for clone in (alice, bob):
        merged = memory.load((clone / ".memx" / "memories" / f"{fact}.yaml").read_bytes())
        assert merged.feedback["helpful"] == 2 and merged.tags == ("docker",)
        assert memx.ok("validate", cwd=clone) == "2 memory file(s) OK\n"
        assert "<<<<<<<" not in "".join(
            p.read_text() for p in (clone / ".memx" / "memories").iterdir())

    review = memx.ok("diff", f"{base}..HEAD", "--format", "markdown", cwd=bob)
    head, _, rest = review.partition("**Needs attention (1)**\n\n")
    assert head.startswith(f"### memx: memory changes in {base}..HEAD\n\n2 changed\n\n")
    first = rest.splitlines()[0]  # (the short id is 12 characters or more, like git's)
    assert first.startswith("- **Changed policy** (content; pushed into every agent's prompt): "
                            f"`{policy[:12]}")
    assert first.endswith("` Open a draft pull request on the first day")
    assert rest.index("Changed policy") < rest.index("**Changed (2)**")
