"""The pre-commit framework manifest (.pre-commit-hooks.yaml), run by the real `pre-commit`
tool against a temporary repository that keeps memory files (SPEC 6).

`pre-commit run`, with a config that names a hook repository and a commit as a user's
config names memx's repository and a tag, installs memx from that repository into its own
environment. To test the work tree exactly as it is now (new files included), the test
snapshots it into a temporary repository first.
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


def _use_hook_repo(target: Path, hook_repo: Path) -> None:
    """A .pre-commit-config.yaml that takes both hooks from ``hook_repo`` at its commit, as
    a user's config takes them from memx's repository at a tag."""
    rev = git(hook_repo, "rev-parse", "HEAD").strip()
    (target / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hook_repo}\n    rev: {rev}\n    hooks:\n"
        "      - id: memx-validate\n      - id: memx-secrets\n")


def _run(target: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color",
                           "never"], cwd=target, env=env, text=True, capture_output=True,
                          timeout=900)


def _fast_env(tmp_path: Path) -> dict[str, str]:
    """pre-commit installs the hook repository into a new environment with pip. Installing
    memx's dependencies there (numpy, tantivy, usearch, ...) took most of this test's time
    and proves nothing about the manifest, so memx alone is installed (--no-deps) and the
    hooks import its dependencies from this test run's own site-packages (PYTHONPATH: no
    .pth files are read there, so memx itself still comes from pre-commit's environment —
    checked below)."""
    import sysconfig

    return {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
            "PIP_NO_DEPS": "1", "PYTHONPATH": sysconfig.get_paths()["purelib"],
            # build with this run's setuptools (a test extra) instead of fetching one;
            # pip reads "no build isolation" from the value 0 of this variable
            "PIP_NO_BUILD_ISOLATION": "0"}


def test_memx_hooks_through_the_pre_commit_framework(tmp_path: Path) -> None:
    hook_repo = _snapshot(tmp_path / "memx-src")
    target = tmp_path / "project"
    (target / ".memx" / "memories").mkdir(parents=True)
    git(target, "init", "-q", "-b", "main")
    (target / ".memx" / "config.yaml").write_text("# memx configuration\n")
    _memory(target, "Deploy with the key AKIAIOSFODNN7EXAMPLE")
    (target / ".memx" / "memories" / "01jd3k7m2xbbbbbbbbbbbbbbbb.yaml").write_text(
        "<<<<<<< HEAD\nschema: 1\n=======\n>>>>>>> topic\n")
    _use_hook_repo(target, hook_repo)
    git(target, "add", "-A")
    env = _fast_env(tmp_path)

    failed = _run(target, env)
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
    passed = _run(target, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert passed.stdout.count("Passed") == 2
    # both runs used the one environment pre-commit built from the hook repository
    [env_dir] = (tmp_path / "pre-commit-home").glob("repo*/py_env-*")
    assert list(env_dir.glob("lib/python*/site-packages/memx_cli/__init__.py"))
