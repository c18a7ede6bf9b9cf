"""memx hooks install/uninstall/status and what the hooks do, through real `git commit`,
`git merge` and `git checkout` runs in temporary repositories (SPEC 6, issue 6)."""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memx_cli.fsutil import locked
from memx_cli.githooks import impl as hookimpl
from memx_cli.githooks.install import HOOK_TYPES
from memx_cli.index import StoreIndex, source_group
from memx_cli.store import memory
from memx_cli.store.repo import Repo

from .conftest import Memx, git

FIX_MESSAGE = ("fix: ModuleNotFoundError: No module named yaml when running the CLI\n\n"
               "Add pyyaml to the dependencies.")
INSTALLED = """\
memx hooks in .git/hooks:
  pre-commit     installed
  post-commit    installed
  post-merge     installed
  post-checkout  installed
  post-rewrite   installed
"""


def commit(root: Path, message: str, *files: tuple[str, str],
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Write ``files`` (path, text), stage them and run a real `git commit`."""
    for path, text in files:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
        git(root, "add", path)
    return subprocess.run(["git", "commit", "-q", "-m", message], cwd=root, text=True,
                          capture_output=True, env={**os.environ, **(env or {})})


def memory_files(root: Path) -> list[Path]:
    return sorted((root / ".memx" / "memories").glob("*.yaml"))


def wait_for_background(root: Path, timeout: float = 60.0, only_lock: bool = False) -> None:
    """post-commit reflects in the background: wait until the queue is empty and the run
    (which updates the index last) has finished."""
    deadline = time.monotonic() + timeout
    while hookimpl.queued(Repo(root)) and not only_lock:
        assert time.monotonic() < deadline, "the background run did not finish"
        time.sleep(0.05)
    with locked(root / ".memx" / "local" / "background.lock", wait=timeout):
        pass


@pytest.fixture
def hooked(memx: Memx, repo: Path) -> Path:
    """An initialized repository with .memx/ committed and every memx hook installed."""
    assert memx.ok("hooks", "install") == INSTALLED
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "memx store")
    wait_for_background(repo)
    return repo


def test_install_writes_marked_executable_shims(memx: Memx, repo: Path) -> None:
    assert memx.ok("hooks", "install") == INSTALLED
    for name in HOOK_TYPES:
        path = repo / ".git" / "hooks" / name
        text = path.read_text()
        assert "memx-hook" in text
        assert f"MEMX_PYTHON={shlex.quote(sys.executable)}\n" in text
        assert path.stat().st_mode & stat.S_IXUSR
    assert memx.ok("hooks", "install", "--hooks", "post-commit").endswith(
        "  post-commit    already installed\n")
    status = memx.ok("hooks", "status")
    assert status == "hooks directory: .git/hooks\n" + "".join(
        f"  {name:<14} memx\n" for name in HOOK_TYPES)
    assert "memx" in memx.ok("doctor", "--json")


def test_install_a_subset_and_reject_unknown(memx: Memx) -> None:
    out = memx.ok("hooks", "install", "--hooks", "pre-commit,post-merge")
    assert out == ("memx hooks in .git/hooks:\n  pre-commit     installed\n"
                   "  post-merge     installed\n")
    bad = memx("hooks", "install", "--hooks", "post-push")
    assert bad.code == 2
    assert bad.err == ("memx: error: unknown hook 'post-push'; choose from pre-commit, "
                       "post-commit, post-merge, post-checkout, post-rewrite\n")


def test_hook_impl_is_hidden_from_help(memx: Memx) -> None:
    listing = memx.ok("--help")
    assert "hook-impl" not in listing
    assert "  hooks " in listing and "  diff " in listing
    assert memx("hook-impl", "post-merge").code == 0


def test_hook_code_imports_nothing_heavy() -> None:
    """The hooks run inside git commands: their modules must not pull in the heavy ones."""
    code = ("import sys\nimport memx_cli.cli.hooks, memx_cli.cli.diff, memx_cli.githooks.impl, "
            "memx_cli.githooks.install, memx_cli.operations.diff\nprint(sorted(m for m in ('numpy', 'usearch', "
            "'model2vec', 'git', 'tantivy', 'tokenizers', 'yaml') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out == "[]\n"


def test_status_names_foreign_absent_and_broken_hooks(memx: Memx, repo: Path,
                                                      tmp_path: Path) -> None:
    from memx_cli.githooks.install import install

    (repo / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    gone = tmp_path / "gone" / "python"
    install(repo, ["post-commit"], python=str(gone))
    assert memx.ok("hooks", "status") == (
        "hooks directory: .git/hooks\n"
        "  pre-commit     not memx's (memx hooks install keeps it and runs it first)\n"
        f"  post-commit    memx (its Python ({gone}) is gone; run memx hooks install again)\n"
        "  post-merge     absent\n  post-checkout  absent\n  post-rewrite   absent\n")
    unknown = memx("hook-impl", "pre-push")
    assert (unknown.code, unknown.err) == (2, "memx: error: unknown hook 'pre-push'; expected "
                                              "one of pre-commit, post-commit, post-merge, "
                                              "post-checkout, post-rewrite\n")


def test_doctor_sees_the_hooks_as_hooks_status_does(memx: Memx, repo: Path,
                                                     tmp_path: Path) -> None:
    """doctor asks the same status (githooks/install.py): a shim that will not run is a
    problem there too, not just "memx"."""
    from memx_cli.githooks.install import install

    (repo / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    gone = tmp_path / "gone" / "python"
    install(repo, ["post-commit"], python=str(gone))
    result = memx("doctor", "--json")
    assert result.code == 1  # a problem found
    report = json.loads(result.out)["doctor"]
    assert report["hooks"] == {"pre-commit": "other", "post-commit": "memx",
                               "post-merge": "absent", "post-checkout": "absent",
                               "post-rewrite": "absent"}
    assert (f"git hook post-commit: its Python ({gone}) is gone; run memx hooks install "
            "again") in report["problems"]


def test_existing_hook_is_chained_then_restored_byte_for_byte(memx: Memx, repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "post-commit"
    original = b"#!/bin/sh\n# team hook \xc3\xa9\necho team-hook-ran >> team.log\n"
    hook.write_bytes(original)
    hook.chmod(0o750)
    out = memx.ok("hooks", "install")
    assert "  post-commit    installed (the existing hook is kept and runs first)\n" in out
    assert "  post-commit    memx, runs the previous hook first\n" in memx.ok("hooks", "status")
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "store")
    result = commit(repo, FIX_MESSAGE, ("src/app.py", "import yaml\n"))
    assert result.returncode == 0, result.stderr
    assert (repo / "team.log").read_text() == "team-hook-ran\nteam-hook-ran\n"
    wait_for_background(repo)
    assert len(memory_files(repo)) == 1  # memx ran too
    out = memx.ok("hooks", "uninstall")
    assert "  post-commit    removed; the previous hook is back\n" in out
    assert "  pre-commit     removed\n" in out
    assert hook.read_bytes() == original
    assert stat.S_IMODE(hook.stat().st_mode) == 0o750
    assert sorted(p.name for p in hook.parent.iterdir() if not p.name.endswith(".sample")) == [
        "post-commit"]


def test_install_refuses_to_overwrite_a_kept_hook(memx: Memx, repo: Path) -> None:
    hooks = repo / ".git" / "hooks"
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "pre-commit.memx-legacy").write_text("#!/bin/sh\nexit 0\n")
    result = memx("hooks", "install", "--hooks", "pre-commit")
    assert result.code == 2
    assert result.err == (f"memx: error: cannot install the pre-commit hook: both {hooks}/"
                          f"pre-commit and {hooks}/pre-commit.memx-legacy exist; merge them "
                          "into one file, then run memx hooks install\n")


def test_a_missing_default_hooks_folder_is_made(memx: Memx, repo: Path) -> None:
    # git's own hooks/ (absent after `git init --template=`) is memx's to make
    import shutil

    shutil.rmtree(repo / ".git" / "hooks", ignore_errors=True)
    memx.ok("hooks", "install", "--hooks", "post-commit")
    assert "memx-hook" in (repo / ".git" / "hooks" / "post-commit").read_text()


def test_core_hooks_path_is_respected(memx: Memx, repo: Path) -> None:
    git(repo, "config", "core.hooksPath", "githooks")
    # git makes no core.hooksPath folder and neither does memx
    result = memx("hooks", "install")
    assert (result.code, result.out) == (2, "")
    assert result.err == ("memx: error: core.hooksPath is githooks, a folder that does not "
                          "exist (git runs no hooks from it); create it or unset "
                          "core.hooksPath, then run memx hooks install\n")
    assert not (repo / "githooks").exists()
    (repo / "githooks").mkdir()
    assert memx.ok("hooks", "install", "--hooks", "post-commit") == (
        "memx hooks in githooks:\n  post-commit    installed\n")
    assert "memx-hook" in (repo / "githooks" / "post-commit").read_text()
    assert not (repo / ".git" / "hooks" / "post-commit").exists()
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "store")
    assert commit(repo, FIX_MESSAGE, ("src/app.py", "x\n")).returncode == 0
    wait_for_background(repo)
    assert len(memory_files(repo)) == 1


def test_linked_worktree_shares_the_hooks(hooked: Path, memx: Memx, tmp_path: Path) -> None:
    other = tmp_path / "linked"
    git(hooked, "worktree", "add", "-q", "-b", "feature", str(other))
    out = memx.ok("hooks", "install", cwd=other)
    assert out.startswith(f"memx hooks in {hooked / '.git' / 'hooks'}:\n")
    assert "  post-commit    already installed\n" in out
    result = commit(other, FIX_MESSAGE, ("src/app.py", "x\n"))
    assert result.returncode == 0, result.stderr
    wait_for_background(other)
    assert len(memory_files(other)) == 1 and memory_files(hooked) == []


def test_submodule_gets_its_own_hooks(hooked: Path, memx: Memx, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q", "-b", "main")
    (lib / "a.txt").write_text("a\n")
    git(lib, "add", "a.txt")
    git(lib, "commit", "-q", "-m", "lib")
    git(hooked, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    sub = hooked / "lib"
    memx.ok("init", cwd=sub)
    out = memx.ok("hooks", "install", "--hooks", "post-commit", cwd=sub)
    assert out == (f"memx hooks in {hooked / '.git' / 'modules' / 'lib' / 'hooks'}:\n"
                   "  post-commit    installed\n")
    git(sub, "add", ".memx")
    git(sub, "commit", "-q", "-m", "store")
    assert commit(sub, FIX_MESSAGE, ("src/app.py", "x\n")).returncode == 0
    wait_for_background(sub)
    assert len(memory_files(sub)) == 1


# ---------------------------------------------------------------- post-commit


def test_fix_commit_leaves_an_uncommitted_memory(hooked: Path) -> None:
    result = commit(hooked, FIX_MESSAGE, ("src/app.py", "import yaml\n"))
    assert (result.returncode, result.stderr) == (0, "")
    head = git(hooked, "rev-parse", "HEAD").strip()
    wait_for_background(hooked)
    [path] = memory_files(hooked)
    assert git(hooked, "status", "--porcelain", "-uall") == f"?? .memx/memories/{path.name}\n"
    mem = memory.load(path.read_bytes())
    assert dict(mem.source) == {"type": "commit", "sha": head}
    assert mem.tags == ("error-fix",)
    assert "ModuleNotFoundError: No module named yaml" in mem.content
    assert "Add pyyaml to the dependencies" in mem.content
    assert f" post-commit: {head[:12]}: added .memx/memories/{path.name}\n" in (
        hooked / ".memx" / "local" / "hooks.log").read_text()


def test_config_and_dependency_changes_are_linked_by_their_commit(hooked: Path) -> None:
    commit(hooked, "Add settings", (".env", "DB_POOL_SIZE=10\n"),
           ("requirements.txt", "click==8.1\n"), env={"MEMX_SKIP_HOOKS": "1"})
    assert memory_files(hooked) == []
    result = commit(hooked, "Bigger pool, HTTP client", (".env", "DB_POOL_SIZE=50\n"),
                    ("requirements.txt", "click==8.1\nhttpx==0.27\n"))
    assert result.returncode == 0
    wait_for_background(hooked)
    found = {tuple(m.tags): m for m in (memory.load(p.read_bytes()) for p in memory_files(hooked))}
    assert sorted(found) == [("config-change",), ("new-tool",)]
    # issue 13: an .env change keeps the key, never the value
    assert "DB_POOL_SIZE changed (value masked)" in found[("config-change",)].content
    assert "`httpx` (==0.27)" in found[("new-tool",)].content
    groups = {source_group(m.source) for m in found.values()}
    assert groups == {f"commit:sha:{git(hooked, 'rev-parse', 'HEAD').strip()}"}


def test_memory_only_commits_amends_and_plain_commits_add_nothing(hooked: Path) -> None:
    assert commit(hooked, "Update readme", ("README.md", "more\n")).stderr == ""
    result = commit(hooked, FIX_MESSAGE, ("src/app.py", "x\n"))
    wait_for_background(hooked)
    [path] = memory_files(hooked)
    git(hooked, "add", ".memx")
    amend = subprocess.run(["git", "commit", "-q", "--amend", "--no-edit"], cwd=hooked,
                           capture_output=True, text=True)
    assert (amend.returncode, amend.stderr) == (0, "")
    assert commit(hooked, "Remember the yaml fix", (".memx/notes.txt", "x\n")).stderr == ""
    wait_for_background(hooked)
    assert memory_files(hooked) == [path]
    assert result.returncode == 0


def test_a_rebase_does_not_reflect_replayed_commits(hooked: Path) -> None:
    git(hooked, "checkout", "-q", "-b", "topic")
    commit(hooked, FIX_MESSAGE, ("src/app.py", "x\n"), env={"MEMX_SKIP_HOOKS": "1"})
    git(hooked, "checkout", "-q", "main")
    commit(hooked, "Other work", ("other.txt", "o\n"))
    git(hooked, "checkout", "-q", "topic")
    git(hooked, "rebase", "-q", "main")
    assert git(hooked, "log", "-1", "--format=%s") == FIX_MESSAGE.splitlines()[0] + "\n"
    wait_for_background(hooked)  # "Other work" was queued (and taught nothing)
    assert memory_files(hooked) == []


def test_post_hooks_are_silent_without_store_or_memx(bare_repo: Path, memx: Memx,
                                                     tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    git(bare_repo, "clone", "-q", str(bare_repo), str(plain))
    memx.ok("hooks", "install", cwd=plain)  # no .memx/ in this clone
    result = commit(plain, FIX_MESSAGE, ("src/app.py", "x\n"))
    assert (result.returncode, result.stderr) == (0, "")
    git(bare_repo, "add", ".memx")
    git(bare_repo, "commit", "-q", "-m", "store")
    from memx_cli.githooks.install import install

    install(bare_repo, python=str(tmp_path / "gone" / "python"))  # memx uninstalled
    result = commit(bare_repo, FIX_MESSAGE, ("src/app.py", "x\n"))
    assert (result.returncode, result.stderr) == (0, "")
    assert hookimpl.queued(Repo(bare_repo)) == [] and memory_files(bare_repo) == []


def _wait_for_log(root: Path, pattern: str, timeout: float = 60.0) -> str:
    log = root / ".memx" / "local" / "hooks.log"
    deadline = time.monotonic() + timeout
    while not (log.exists() and re.search(pattern, log.read_text(), re.M)):
        assert time.monotonic() < deadline, f"no {pattern!r} in the hook log"
        time.sleep(0.05)
    return log.read_text()


def test_internal_errors_are_logged_not_shown(hooked: Path) -> None:
    state = hooked / ".memx" / "local" / hookimpl.STATE_NAME
    state.unlink(missing_ok=True)
    state.mkdir()  # the background run cannot record what it did
    result = commit(hooked, FIX_MESSAGE, ("src/app.py", "x\n"))
    assert (result.returncode, result.stderr) == (0, "")
    first = git(hooked, "rev-parse", "HEAD").strip()
    _wait_for_log(hooked, r"^\S+ post-commit: error: IsADirectoryError: ")
    wait_for_background(hooked, only_lock=True)
    assert hookimpl.queued(Repo(hooked)) == [first]  # kept for the next run: nothing lost
    state.rmdir()
    (hooked / ".memx" / "config.yaml").write_text("ace: [unclosed\n")
    for path in memory_files(hooked):
        path.unlink()
    result = commit(hooked, "Second commit", ("src/app.py", "y\n"))
    assert (result.returncode, result.stderr) == (0, "")
    second = git(hooked, "rev-parse", "HEAD").strip()
    wait_for_background(hooked)
    log = (hooked / ".memx" / "local" / "hooks.log").read_text()
    for sha in (first, second):
        assert re.search(rf"^\S+ post-commit: {sha[:12]}: not reflected on: ConfigError: ",
                         log, re.M)
    assert memory_files(hooked) == []


def test_skip_for_one_command(hooked: Path) -> None:
    result = commit(hooked, FIX_MESSAGE, ("src/app.py", "x\n"), env={"MEMX_SKIP_HOOKS": "1"})
    assert (result.returncode, result.stderr) == (0, "")
    assert memory_files(hooked) == []


def test_commit_memories_are_curated(hooked: Path, memx: Memx) -> None:
    commit(hooked, FIX_MESSAGE, ("src/app.py", "x\n"))
    wait_for_background(hooked)
    [first] = memory_files(hooked)
    git(hooked, "add", ".memx")
    git(hooked, "commit", "-q", "-m", "memories")
    result = commit(hooked, FIX_MESSAGE + "\n", ("src/app.py", "y\n"), ("src/cli.py", "z\n"))
    assert result.returncode == 0
    wait_for_background(hooked)
    assert memory_files(hooked) == [first]  # the new, near-identical one was merged in
    assert memory.load(first.read_bytes()).mention_count == 2
    assert f": merged into {first.stem} .memx/memories/{first.name}\n" in (
        hooked / ".memx" / "local" / "hooks.log").read_text()


# ---------------------------------------------------------------- pre-commit

SECRET_ID = "01jd3k7m2x9qabcdefghjkmnpq"
BLOCKED = ("memx: error: {n} problem(s) in {files} staged .memx/ file(s); commit blocked (fix "
           "and stage again, or skip this check once: git commit --no-verify)\n")


def write_memory(root: Path, content: str, memory_id: str = SECRET_ID) -> Path:
    mem = memory.Memory(id=memory_id, content=content, created_at="2026-11-01T12:00:00Z",
                        updated_at="2026-11-01T12:00:00Z")
    path = root / ".memx" / "memories" / f"{memory_id}.yaml"
    path.write_bytes(memory.dump(mem))
    return path


def test_staged_aws_key_blocks_the_commit(hooked: Path) -> None:
    path = write_memory(hooked, "Deploy with the key AKIAIOSFODNN7EXAMPLE from the vault")
    git(hooked, "add", ".memx")
    result = subprocess.run(["git", "commit", "-q", "-m", "remember deploys"], cwd=hooked,
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr == (f".memx/memories/{path.name}:4: secret (aws_access_key); remove it, "
                             "then stage the file again\n" + BLOCKED.format(n=1, files=1))
    assert git(hooked, "rev-list", "--count", "HEAD") == "2\n"  # nothing committed


def test_pre_commit_checks_the_staged_content_not_the_work_tree(hooked: Path) -> None:
    path = write_memory(hooked, "Deploy with the key from the vault")
    git(hooked, "add", ".memx")
    path.write_text(path.read_text().replace("the key", "AKIAIOSFODNN7EXAMPLE"))  # unstaged
    result = subprocess.run(["git", "commit", "-q", "-m", "ok"], cwd=hooked,
                            capture_output=True, text=True)
    assert (result.returncode, result.stderr) == (0, "")
    git(hooked, "add", ".memx")
    path.write_text(path.read_text().replace("AKIAIOSFODNN7EXAMPLE", "[REDACTED:aws_access_key]"))
    blocked = subprocess.run(["git", "commit", "-q", "-m", "no"], cwd=hooked,
                             capture_output=True, text=True)
    assert blocked.returncode == 1 and "secret (aws_access_key)" in blocked.stderr
    git(hooked, "add", ".memx")  # a masked placeholder is not a secret
    assert subprocess.run(["git", "commit", "-q", "-m", "masked"], cwd=hooked).returncode == 0


def test_pre_commit_rejects_conflict_markers_and_invalid_memories(hooked: Path) -> None:
    config = hooked / ".memx" / "config.yaml"
    config.write_text(config.read_text() + "<<<<<<< HEAD\nace:\n=======\n>>>>>>> topic\n")
    path = write_memory(hooked, "fine")
    path.write_text(path.read_text().replace("kind: fact", "kind: rumour"))
    git(hooked, "add", ".memx")
    result = subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=hooked, capture_output=True,
                            text=True)
    assert result.returncode == 1
    assert result.stderr == (
        ".memx/config.yaml:3: merge-conflict marker; resolve the conflict, then stage the file "
        "again\n"
        f".memx/memories/{path.name}:3: field 'kind': expected one of fact, policy, got 'rumour'\n"
        + BLOCKED.format(n=2, files=2))


def test_hooks_check_on_named_files(memx: Memx, repo: Path) -> None:
    path = write_memory(repo, "token: ghp_0123456789abcdefghijklmnopqrstuvwxyzAB")
    result = memx("hooks", "check", "--secrets", str(path))
    assert result.code == 1
    assert result.err == (f".memx/memories/{path.name}:4: secret (github_token); remove it, then "
                          "stage the file again\nmemx: error: 1 problem(s) in 1 file(s) checked\n")
    write_memory(repo, "nothing secret here")
    assert memx("hooks", "check", str(path)).code == 0


# ---------------------------------------------------------------- index refresh


def test_merge_makes_new_memories_searchable_at_once(hooked: Path, memx: Memx) -> None:
    memx.ok("add", "The staging database lives on port 6543")
    git(hooked, "add", ".memx")
    git(hooked, "commit", "-q", "-m", "first memory")
    wait_for_background(hooked)
    memx.ok("reindex")  # the clone has a search index to keep fresh
    git(hooked, "checkout", "-q", "-b", "feature")
    new_id = memx.ok("add", "Release tags are signed with the team GPG key").strip()
    git(hooked, "add", ".memx")
    git(hooked, "commit", "-q", "-m", "remember signing")
    wait_for_background(hooked)
    git(hooked, "checkout", "-q", "main")  # post-checkout: the memory left with the branch
    index = StoreIndex(Repo(hooked).store, None)
    assert new_id not in index.manifest().files
    git(hooked, "merge", "-q", "feature")
    index = StoreIndex(Repo(hooked).store, None)
    assert new_id in index.manifest().files  # post-merge indexed it, before any search
    hits = memx.ok("search", "signed release tags", "--mode", "keyword", "--json")
    assert new_id in hits


def test_refresh_skips_the_index_when_no_memory_moved(hooked: Path, memx: Memx,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[str] = []
    monkeypatch.setattr(hookimpl, "_sync_index", lambda repo: synced.append("sync"))
    start = git(hooked, "rev-parse", "HEAD").strip()
    commit(hooked, "Tweak readme", ("README.md", "tweak\n"))
    code_only = git(hooked, "rev-parse", "HEAD").strip()
    memx.ok("add", "A memory that moves with the branch")
    git(hooked, "add", ".memx")
    git(hooked, "commit", "-q", "-m", "memory")
    with_memory = git(hooked, "rev-parse", "HEAD").strip()
    repo = Repo(hooked)
    assert hookimpl.refresh(repo, [start, code_only, "1"], "post-checkout") == hookimpl.HookResult()
    assert synced == []
    hookimpl.refresh(repo, [code_only, with_memory, "1"], "post-checkout")
    assert synced == ["sync"]
    hookimpl.refresh(repo, [with_memory, with_memory, "0"], "post-checkout")  # files checkout
    assert synced == ["sync", "sync"]
