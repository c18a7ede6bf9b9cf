"""The pre-commit framework manifest (.pre-commit-hooks.yaml), run by the real `pre-commit`
tool against a temporary repository that keeps memory files (SPEC 6).

`pre-commit try-repo` installs memx from a git repository into its own environment (pip
reaches the package index here). It would take this project's root as is, but its temporary
commit holds only tracked files; to test the work tree exactly as it is now (new files
included), the test snapshots it into a temporary repository first.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memx_cli.store import memory
from memx_cli.store.memory import Memory

from .conftest import git

ROOT = Path(__file__).resolve().parent.parent
MEMORY_ID = "01jd3k7m2xaaaaaaaaaaaaaaaa"

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pre_commit") is None,
    reason="the pre-commit tool is not installed; pip install -e '.[test]' to run this test")


def _snapshot(dest: Path) -> Path:
    """This project's work tree (tracked and untracked, not ignored files) as one commit."""
    listed = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "memx work tree")
    return dest


def _memory(target: Path, content: str) -> None:
    mem = Memory(id=MEMORY_ID, content=content, created_at="2026-11-01T12:00:00Z",
                 updated_at="2026-11-01T12:00:00Z")
    (target / ".memx" / "memories" / f"{MEMORY_ID}.yaml").write_bytes(memory.dump(mem))


def _try_repo(target: Path, hook_repo: Path,
              env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo),
                           "--all-files", "--color", "never"], cwd=target, env=env, text=True,
                          capture_output=True, timeout=900)


def test_memx_hooks_through_pre_commit_try_repo(tmp_path: Path) -> None:
    hook_repo = _snapshot(tmp_path / "memx-src")
    target = tmp_path / "project"
    (target / ".memx" / "memories").mkdir(parents=True)
    git(target, "init", "-q", "-b", "main")
    (target / ".memx" / "config.yaml").write_text("# memx configuration\n")
    _memory(target, "Deploy with the key AKIAIOSFODNN7EXAMPLE")
    (target / ".memx" / "memories" / "01jd3k7m2xbbbbbbbbbbbbbbbb.yaml").write_text(
        "<<<<<<< HEAD\nschema: 1\n=======\n>>>>>>> topic\n")
    git(target, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}

    failed = _try_repo(target, hook_repo, env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    out = failed.stdout
    assert (f".memx/memories/{MEMORY_ID}.yaml:4: secret (aws_access_key); remove it, then "
            "stage the file again\n") in out
    assert (".memx/memories/01jd3k7m2xbbbbbbbbbbbbbbbb.yaml:1: merge-conflict marker; resolve "
            "the conflict, then run memx validate\n") in out
    assert "memx secrets" in out and "memx validate" in out
    assert out.count("Failed") == 2

    _memory(target, "Deploy with the key from the vault")
    (target / ".memx" / "memories" / "01jd3k7m2xbbbbbbbbbbbbbbbb.yaml").unlink()
    git(target, "add", "-A")
    passed = _try_repo(target, hook_repo, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert passed.stdout.count("Passed") == 2
