"""Shared fixtures: isolated home, pinned git identity, real temporary repositories,
and a runner that drives the CLI through its real entry point (``memx_cli.cli.main``)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Memx Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Memx Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_AUTHOR_DATE": "2026-11-01T12:00:00Z",
    "GIT_COMMITTER_DATE": "2026-11-01T12:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}
_REAL_HOME = Path(os.path.expanduser("~"))
_HOME_MARKERS = [_REAL_HOME / ".local" / "share" / "memx", _REAL_HOME / ".config" / "memx"]


def _isolate(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Point HOME, XDG, git's identity and memx's own variables at ``home``."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "gitconfig"))
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in list(os.environ):
        if key.startswith("MEMX_") or key in ("GIT_DIR", "GIT_WORK_TREE", "VISUAL", "EDITOR"):
            monkeypatch.delenv(key, raising=False)
    # the memx server's socket directory (issue 15): never the user's own server
    monkeypatch.setenv("MEMX_SERVER_DIR", str(home / "run"))
    # the thin client's wait for the server only catches a hang here: on a loaded machine
    # a slow answer (5 s by default) would run the command in process instead, and what
    # a test sees would depend on the machine's speed (tests of a hung server set theirs)
    monkeypatch.setenv("MEMX_SERVER_TIMEOUT", "60")
    # text output fits the terminal: the same width whether the tests run in a terminal,
    # a pipe or a worker process
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("LINES", "20")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory,
                  monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own HOME and XDG dirs; touching the real home fails the test."""
    before = {p: p.exists() for p in _HOME_MARKERS}
    home = tmp_path_factory.mktemp("home")
    _isolate(monkeypatch, home)
    yield home
    for path, existed in before.items():
        assert path.exists() == existed, f"test touched the real home directory: {path}"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def _make_bare_repo(root: Path) -> Path:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("demo\n")
    git(root, "add", "README.md")
    git(root, "commit", "-q", "-m", "initial")
    return root


@pytest.fixture(scope="session")
def _repo_templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The two starting repositories most tests need, each made once per session with the
    real commands: ``bare`` (one commit, no .memx/) and ``initialized`` (the same after a
    real ``memx init``). Tests get copies (``_copy_template``), never these. The commit is
    the same in every copy (git's dates and identity are pinned), and a copy keeps each
    file's mtime, so git's stat cache sees the copy as unchanged, as it would a fresh build."""
    base = tmp_path_factory.mktemp("templates")
    before = {p: p.exists() for p in _HOME_MARKERS}
    with pytest.MonkeyPatch.context() as monkeypatch:
        _isolate(monkeypatch, base / "home")
        bare = _make_bare_repo(base / "bare")
        initialized = base / "initialized"
        shutil.copytree(bare, initialized, symlinks=True)
        Memx(initialized, monkeypatch).ok("init")
    for path, existed in before.items():
        assert path.exists() == existed, f"building the templates touched the real home: {path}"
    return {"bare": bare, "initialized": initialized}


def _copy_template(templates: dict[str, Path], name: str, dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(templates[name], dest, symlinks=True)
    return dest


@pytest.fixture
def bare_repo(tmp_path: Path, _repo_templates: dict[str, Path]) -> Path:
    """A fresh git repository with one commit and no .memx/."""
    return _copy_template(_repo_templates, "bare", tmp_path / "repo")


@dataclass
class Result:
    code: int
    out: str
    err: str


class Memx:
    """Runs ``memx ARGS`` in-process through the real entry point and error boundary."""

    def __init__(self, cwd: Path, monkeypatch: pytest.MonkeyPatch):
        self.cwd = cwd
        self.monkeypatch = monkeypatch

    def __call__(self, *args: str, input: str | bytes | None = None,
                 cwd: Path | None = None) -> Result:
        from memx_cli.cli import main

        data = input.encode() if isinstance(input, str) else (input or b"")
        stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        with self.monkeypatch.context() as m:
            m.chdir(cwd or self.cwd)
            m.setattr(sys, "stdin", stdin)
            m.setattr(sys, "stdout", out)
            m.setattr(sys, "stderr", err)
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
        return Result(code, out.getvalue(), err.getvalue())

    def ok(self, *args: str, **kwargs: object) -> str:
        result = self(*args, **kwargs)  # type: ignore[arg-type]
        assert result.code == 0, f"memx {' '.join(args)} failed: {result.err}"
        return result.out


def import_texts(memx: Memx, texts: list[str]) -> Memx:
    """Each text a memory, imported raw (as written) into ``memx``'s store."""
    (memx.cwd / "m.jsonl").write_text(
        "".join(json.dumps({"content": text}) + "\n" for text in texts))
    memx.ok("import", "--raw", "m.jsonl")
    return memx


def explained(memx: Memx, query: str, *options: str) -> list[dict]:
    """The results of ``memx search QUERY --json --explain --closest [OPTIONS]``."""
    return json.loads(memx.ok("search", query, "--json", "--explain", "--closest",
                              *options))["results"]


@pytest.fixture
def memx(bare_repo: Path, monkeypatch: pytest.MonkeyPatch,
         _repo_templates: dict[str, Path]) -> Memx:
    """A runner inside an initialized repository (``bare_repo`` after ``memx init``)."""
    return Memx(_copy_template(_repo_templates, "initialized", bare_repo), monkeypatch)


@pytest.fixture
def repo(memx: Memx) -> Path:
    return memx.cwd
