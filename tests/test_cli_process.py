"""Process settings of the memx executable (issue 15): one BLAS thread for memx itself,
the user's own environment for what it runs, a fast exit that loses no output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memx_cli import embed

from .conftest import Memx


def _memx(*args: str, cwd: Path, env: dict[str, str] | None = None
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memx_cli", *args], cwd=cwd, text=True,
                          capture_output=True, env=env)


def test_one_blas_thread_unless_the_user_chose(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embed, "_blas_added", set())
    for name in (*embed.BLAS_THREADS, "OMP_WAIT_POLICY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "4")
    embed.one_blas_thread()
    assert (os.environ["OPENBLAS_NUM_THREADS"], os.environ["MKL_NUM_THREADS"]) == ("1", "4")
    assert os.environ["OMP_WAIT_POLICY"] == "passive"  # idle OpenMP threads sleep
    assert "OMP_NUM_THREADS" not in embed._blas_added  # OpenMP also drives the vector build
    user = embed.user_environ()
    assert "OPENBLAS_NUM_THREADS" not in user and user["MKL_NUM_THREADS"] == "4"
    assert "OMP_WAIT_POLICY" not in user  # memx's choice, not the user's


def test_the_users_openmp_wait_policy_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embed, "_blas_added", set())
    monkeypatch.setenv("OMP_WAIT_POLICY", "active")
    embed.one_blas_thread()
    assert os.environ["OMP_WAIT_POLICY"] == "active"
    assert embed.user_environ()["OMP_WAIT_POLICY"] == "active"


def test_the_command_memx_runs_gets_the_users_environment(
        memx: Memx, repo: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in embed.BLAS_THREADS}
    probe = "import os; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    proc = _memx("run", "--", sys.executable, "-c", probe, cwd=repo, env=env)
    assert (proc.returncode, proc.stdout) == (0, "None\n")
    env["OPENBLAS_NUM_THREADS"] = "3"
    proc = _memx("run", "--", sys.executable, "-c", probe, cwd=repo, env=env)
    assert proc.stdout == "3\n"


def test_the_fast_exit_delivers_all_output(memx: Memx, repo: Path) -> None:
    for i in range(30):
        memx.ok("add", f"memory number {i} about the {'long ' * 40}build cache", "--raw")
    proc = _memx("list", "--json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["memories"]) == 30
    proc = _memx("search", "build cache", "--json", "--limit", "30", cwd=repo)
    assert proc.returncode == 0 and len(json.loads(proc.stdout)["results"]) == 30


def test_a_failing_command_still_exits_with_its_code_and_message(tmp_path: Path) -> None:
    proc = _memx("frobnicate", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.endswith("memx: error: No such command 'frobnicate'.\n")


def test_a_profiled_run_still_writes_its_profile(tmp_path: Path) -> None:
    out = tmp_path / "memx.prof"
    proc = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "memx_cli",
                           "--version"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("memx, version")
    assert out.stat().st_size > 0
