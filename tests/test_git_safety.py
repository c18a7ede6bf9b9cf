"""Git is never blocked or broken by memx (issue 14): temporary files where `git add`
cannot see them, leftovers reported and removed, every .memx/ file understood by
validate, uninstall right after `pre-commit install`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memx_cli.githooks.install import MARKER
from tests.conftest import Memx, git

DEAD_PID = "4194303"  # above the default pid_max: no such process


def test_writes_stage_temporary_files_outside_what_git_add_sees(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import memx_cli.fsutil as fsutil

    staged: list[str] = []
    real = os.replace

    def spy(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        staged.append(Path(source).relative_to(repo).parent.as_posix())
        real(source, target)

    monkeypatch.setattr(fsutil.os, "replace", spy)
    memory_id = memx.ok("add", "the build cache lives in /var/cache/ci").strip()
    memx.ok("feedback", memory_id, "--helpful")
    memory_writes = [d for d in staged if d != ".memx/cache" and d != ".memx/local"]
    assert memory_writes and set(memory_writes) == {".memx/local/tmp"}
    assert ".memx/local" not in git(repo, "status", "--porcelain", "--untracked-files=all")


def test_leftover_temporary_files_are_reported_then_removed(memx: Memx, repo: Path) -> None:
    memory_id = memx.ok("add", "deploys go out on Tuesdays").strip()
    memories = repo / ".memx" / "memories"
    old_style = memories / f".{memory_id}.yaml.{DEAD_PID}.tmp"
    old_style.write_text("half a memo")
    new_style = repo / ".memx" / "local" / "tmp" / f".{memory_id}.yaml.{DEAD_PID}.tmp"
    new_style.parent.mkdir(parents=True, exist_ok=True)
    new_style.write_text("half")
    result = memx("validate")
    assert result.code == 1
    assert result.out == (f".memx/memories/{old_style.name}: temporary file left by an "
                          "interrupted memx write; the next memx command removes it (or delete "
                          "it)\n")
    result = memx("validate", str(old_style))  # what the framework hook passes
    assert result.code == 1 and "temporary file left by an interrupted memx write" in result.out
    # the next memx process that writes (this test's runner already cleaned once)
    subprocess.run([sys.executable, "-m", "memx_cli", "add", "the next write cleans up"],
                   cwd=repo, check=True, capture_output=True)
    assert not old_style.exists() and not new_style.exists()
    assert memx("validate").code == 0


def test_the_memory_folders_are_listed_for_leftovers_only_after_they_moved(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: a process's first lock lists memories/ and archive/ for temporaries
    only when a name there changed since a sweep found none (memx's own writes carry
    that record forward); an old-style temporary moves the folder and is removed."""
    from memx_cli.store import files

    memx.ok("add", "deploys go out on Tuesdays", "--raw")
    memories = repo / ".memx" / "memories"
    old = time.time_ns() - 10 * 10**9  # a sweep records no folder changed this recently
    os.utime(memories, ns=(old, old))
    listed: list[bool] = []
    original = files.leftovers

    def counted(store: files.Store, beside: bool = True) -> list[Path]:
        listed.append(beside)
        return original(store, beside)

    monkeypatch.setattr(files, "leftovers", counted)
    for text in ("releases are cut on Fridays", "the canary runs in zone b"):
        monkeypatch.setattr(files, "_swept", set())  # as a new process
        memx.ok("add", text, "--raw")
    assert listed == [True, False]  # swept once, then carried by the write
    old_style = memories / f".01m97pxxxxxxxxxxxxxxxxxxxx.yaml.{DEAD_PID}.tmp"
    old_style.write_text("half a memo")
    monkeypatch.setattr(files, "_swept", set())
    memx.ok("add", "the cache is warmed at nine", "--raw")
    assert listed == [True, False, True] and not old_style.exists()


def test_validate_understands_every_file_memx_keeps(memx: Memx, repo: Path) -> None:
    store = repo / ".memx"
    memory_id = memx.ok("add", "a memory").strip()
    (store / "access.yaml").write_text("grants:\n  agent: {conventions: write}\n")
    memx.ok("config", "set", "ace.reflector.min_score", "40")
    files = [store / "access.yaml", store / "config.yaml", store / ".gitignore",
             store / "memories" / f"{memory_id}.yaml"]
    result = memx("validate", *map(str, files))
    assert result.code == 0, result.out
    assert result.out == "3 memory file(s) OK\n"
    (store / "access.yaml").write_text("grants:\n  agent: {conventions: maybe}\n")
    result = memx("validate", str(store / "access.yaml"))
    assert result.code == 1
    assert result.out == (".memx/access.yaml: role 'agent', domain 'conventions': expected none, "
                          "read or write, got 'maybe'\n")
    assert memx("validate").out.endswith(result.out)


def test_uninstall_after_pre_commit_install_leaves_no_memx_shim(memx: Memx, repo: Path) -> None:
    memx.ok("hooks", "install")
    hooks = repo / ".git" / "hooks"
    framework = [sys.executable, "-m", "pre_commit", "install"]
    subprocess.run(framework, cwd=repo, check=True, capture_output=True)
    assert MARKER in (hooks / "pre-commit.legacy").read_text()
    out = memx.ok("hooks", "uninstall")
    assert "pre-commit     removed from pre-commit.legacy (pre-commit's chained hook)" in out
    assert not (hooks / "pre-commit.legacy").exists()
    # memx's own mark, not the word: pre-commit's hook names the checkout's path, which
    # may itself contain "memx"
    assert not any(MARKER in p.read_text(errors="replace") for p in hooks.iterdir()
                   if p.is_file() and not p.name.endswith(".sample"))


@pytest.fixture
def hooked(memx: Memx, repo: Path) -> Path:
    memx.ok("hooks", "install")
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "memx store")
    return repo


def test_a_checkout_does_not_wait_on_a_busy_store(memx: Memx, hooked: Path) -> None:
    from memx_cli.fsutil import locked

    git(hooked, "checkout", "-q", "-b", "notes")
    memx.ok("add", "the checkout hook refreshes the index")
    git(hooked, "add", ".memx")
    git(hooked, "commit", "-q", "-m", "a memory")
    memx.ok("search", "checkout hook")  # an index to keep fresh
    with locked(hooked / ".memx" / "local" / "write.lock"):  # another memx is writing
        # git returns while the store is still busy (the bound only catches a hang) ...
        subprocess.run(["git", "checkout", "-q", "main"], cwd=hooked, check=True,
                       capture_output=True, timeout=120)
        log = (hooked / ".memx" / "local" / "hooks.log").read_text()
        assert "the store is busy; the index refresh continues in the background" in log


def test_the_checkout_hook_waits_briefly_on_a_busy_store(
        memx: Memx, hooked: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """How long the hook waits for the lock, counted on a fake clock (no machine speed):
    at most HOOK_LOCK_WAIT_SECONDS, not the 30 s a command waits (issue 14)."""
    from memx_cli import fsutil
    from memx_cli.githooks import impl
    from memx_cli.store.repo import Repo

    clock = _FakeClock()
    monkeypatch.setattr(fsutil, "time", clock)
    started: list[str] = []
    monkeypatch.setattr(impl, "_start_background", lambda repo: started.append("run"))
    memx.ok("add", "the checkout hook refreshes the index")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(fsutil_lock(hooked))],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        impl.refresh(Repo.discover(hooked), ["0" * 40, "1" * 40, "1"], "post-checkout")
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)
    # the refresh went to the background (a run left queued by the commit may start too)
    assert started
    log = (hooked / ".memx" / "local" / "hooks.log").read_text()
    assert "post-checkout: the store is busy; the index refresh continues" in log
    assert 0 < clock.slept <= impl.HOOK_LOCK_WAIT_SECONDS + 0.1


HOLD = """
import sys
from pathlib import Path
from memx_cli.fsutil import locked
with locked(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


def fsutil_lock(root: Path) -> Path:
    return root / ".memx" / "local" / "write.lock"


class _FakeClock:
    """fsutil's ``time``: a clock that moves only when slept on."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += seconds

    def __getattr__(self, name: str) -> object:
        return getattr(time, name)


def test_the_background_run_leaves_git_s_session(hooked: Path) -> None:
    from memx_cli.fsutil import locked

    sha = git(hooked, "rev-parse", "HEAD").strip()
    (hooked / ".memx" / "local" / "queue").mkdir(parents=True, exist_ok=True)
    (hooked / ".memx" / "local" / "queue" / sha).write_text("")
    with locked(hooked / ".memx" / "local" / "background.lock"):  # keeps the run waiting
        proc = subprocess.Popen([sys.executable, "-m", "memx_cli", "hook-impl", "post-commit"],
                                cwd=hooked, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while os.getsid(proc.pid) == os.getsid(0) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert os.getsid(proc.pid) == proc.pid  # leads a session of its own
        finally:
            proc.kill()
            proc.wait()


def test_doctor_reports_a_stuck_queue(memx: Memx, hooked: Path) -> None:
    from .test_hooks import wait_for_background

    # the fixture's commit queued HEAD and started a background run: on a loaded machine
    # that run was still to come, found the entry written below and reflected it
    wait_for_background(hooked, timeout=120)
    sha = git(hooked, "rev-parse", "HEAD").strip()
    queued = hooked / ".memx" / "local" / "queue" / sha
    queued.parent.mkdir(parents=True, exist_ok=True)
    queued.write_text("")
    hour_ago = time.time() - 3600
    os.utime(queued, (hour_ago, hour_ago))
    result = memx("doctor", "--json")
    assert (result.code, result.err) == (1, "memx: error: 1 problem(s) found\n")
    since = time.strftime("%Y-%m-%d %H:%M", time.localtime(hour_ago))
    assert json.loads(result.out)["doctor"]["problems"] == [
        f"1 commit(s) queued for reflection since {since} with no background run; run: "
        "memx hook-impl post-commit"]
