"""A cold ``memx add`` without the server reads its usual arguments without click
(memx_cli/command/add.py, issue 29): the same output, errors, exit codes and stored
memory as the full CLI, compared process against process on two copies of one store
(ids a write mints differ: they are compared as ID)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memx_cli.command.add import parse

from .conftest import Memx, git

# The `memx` executable's own entry; a profile hook keeps base.fast_exit from leaving
# before the modules are listed.
LEAN = ("import sys\nsys.setprofile(lambda *a: None)\nfrom memx_cli.executable import entry\n"
        "sys.argv = ['memx', *sys.argv[1:]]\n"
        "try:\n    entry()\nexcept SystemExit as exc:\n    code = exc.code\n"
        "else:\n    code = 0\n"
        "sys.stderr.write('LOADED ' + ' '.join(m for m in ('click', 'memx_cli.cli',"
        " 'memx_cli.jsonout', 'memx_cli.reflector.names') if m in sys.modules) + '\\n')\n"
        "sys.exit(code)\n")
MINTED = re.compile(r"\b[0-9a-z]{26}\b")


def _same(text: str, root: Path) -> str:
    """``text`` with the ids a write mints as ID and the store's folder as ROOT."""
    return MINTED.sub("ID", text.replace(str(root), "ROOT"))


def _run(argv: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMX_NO_SERVER": "1", "MEMX_NOW": "2026-06-01T12:00:00Z"}
    return subprocess.run(argv, cwd=cwd, text=True, capture_output=True, env=env,
                          input=stdin)


def _stored(root: Path) -> list[str]:
    """The memory files' texts, ids as ID, in a stable order."""
    folder = root / ".memx" / "memories"
    return sorted(_same(p.read_text(encoding="utf-8"), root) for p in folder.iterdir())


def _lean(args: list[str], cwd: Path, stdin: str = "") -> tuple[int, str, str, list[str],
                                                                  list[str]]:
    proc = _run([sys.executable, "-c", LEAN, "add", *args], cwd, stdin)
    err, _, loaded = proc.stderr.rpartition("LOADED ")
    return (proc.returncode, _same(proc.stdout, cwd), _same(err, cwd), _stored(cwd),
            loaded.split())


def _full(args: list[str], cwd: Path, stdin: str = "") -> tuple[int, str, str, list[str]]:
    proc = _run([sys.executable, "-m", "memx_cli", "add", *args], cwd, stdin)
    return (proc.returncode, _same(proc.stdout, cwd), _same(proc.stderr, cwd), _stored(cwd))


@pytest.fixture
def stores(memx: Memx, repo: Path, tmp_path: Path) -> tuple[Path, Path]:
    (repo / "deploy.sh").write_text("#!/bin/sh\nmake build\nmake deploy\n")
    git(repo, "add", "deploy.sh")
    git(repo, "commit", "-q", "-m", "deploy script")
    memx.ok("add", "The billing tests need docker compose up before they run")
    memx.ok("add", "Releases are cut from the main branch on Fridays", "--raw")
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy, symlinks=True)
    return repo, copy


@pytest.mark.parametrize("args", [
    ["pytest -x stops at the first failing test"],
    ["Use ruff for linting", "--kind", "policy", "--domain", "conventions", "--topic",
     "lint", "--tag", "ruff", "--tag", "python", "--json"],
    ["The billing tests need docker compose up before they run"],  # said again: skipped
    ["The staging password is hunter2-Zx9!", "--json"],  # masked: a note on stderr
    ["Releases are cut from the release branch on Fridays", "--raw", "--tag", "git"],
    ["deploy.sh builds before it deploys", "--anchor", "deploy.sh:2-3", "--anchor",
     "README.md"],
    ["anything", "--scope", "bogus"],  # the library's error and exit code
    ["anything", "--anchor", "missing.py"],
])
def test_the_lean_path_answers_as_the_full_cli(stores: tuple[Path, Path],
                                               args: list[str]) -> None:
    lean_store, full_store = stores
    code, out, err, stored, loaded = _lean(args, lean_store)
    assert (code, out, err, stored) == _full(args, full_store)
    # it was the lean path that answered: no click, no CLI package, no Reflector
    # patterns; the JSON shapes only for --json
    assert loaded == (["memx_cli.jsonout"] if "--json" in args else [])


@pytest.mark.parametrize(("args", "stdin"), [
    (["--kind=policy", "Use ruff for linting"], ""),  # --name=value: click's to read
    (["Use ruff", "--kind", "Policy"], ""),  # not a choice: click's message
    (["-"], "read from standard input\n"),
    (["--help"], ""),
    (["one", "two"], ""),  # a second argument
    (["Use ruff", "--domain"], ""),  # an option without its value
])
def test_what_the_lean_path_does_not_read_goes_to_the_full_cli(
        stores: tuple[Path, Path], args: list[str], stdin: str) -> None:
    lean_store, full_store = stores
    code, out, err, stored, loaded = _lean(args, lean_store, stdin)
    assert (code, out, err, stored) == _full(args, full_store, stdin)
    assert "click" in loaded


def test_outside_a_store_the_error_is_the_full_clis(tmp_path: Path) -> None:
    lean = _run([sys.executable, "-c", LEAN, "add", "a fact"], tmp_path)
    err, _, loaded = lean.stderr.rpartition("LOADED ")
    full = _run([sys.executable, "-m", "memx_cli", "add", "a fact"], tmp_path)
    assert (lean.returncode, lean.stdout, err) == (full.returncode, full.stdout, full.stderr)
    assert lean.returncode != 0 and err.startswith("memx: error: ") and loaded.split() == []


def test_parse_reads_only_what_it_is_sure_of() -> None:
    assert parse(["t", "--tag", "a", "--json", "--tag", "b", "--kind", "policy"]) == {
        "text": "t", "tags": ("a", "b"), "scope": "project", "kind": "policy",
        "domain": None, "topic": None, "anchor_specs": (), "raw": False, "as_json": True}
    plain = parse(["t"])
    assert plain is not None and plain["kind"] == "fact" and plain["tags"] == ()
    assert parse(["--anchor", "a.py:1-2", "t", "--raw"]) == {
        **plain, "anchor_specs": ("a.py:1-2",), "raw": True}
    for declined in (["t", "--raw", "--raw"], ["t", "--domain", "a", "--domain", "b"],
                     ["t", "--tag"], ["t", "--tag", "-x"], ["-"], ["t", "--"],
                     ["t", "--kind=fact"], [], ["--json"], ["t", "--kind", "note"],
                     ["t", "-h"], ["t", "u"]):
        assert parse(declined) is None, declined


def test_a_closed_stdout_still_remembers(stores: tuple[Path, Path]) -> None:
    """`memx add ... >&-` (no standard output: Python's sys.stdout is None) stores the
    memory and exits 0 on both paths; base.fast_exit flushed None and exited 1 with an
    AttributeError's traceback. The control: the same add with the output open."""
    plain = ("import sys\nfrom memx_cli.executable import entry\n"
             "sys.argv = ['memx', *sys.argv[1:]]\nentry()\n")
    for argv, store in (([sys.executable, "-c", plain], stores[0]),
                        ([sys.executable, "-m", "memx_cli"], stores[1])):
        before = len(_stored(store))
        closed = _run(["sh", "-c", 'exec "$@" >&-', "sh", *argv, "add",
                       "Nightly builds publish to the staging bucket"], store)
        assert (closed.returncode, closed.stderr) == (0, "")
        shown = _run([*argv, "add", "Pull requests need two approvals"], store)
        assert shown.returncode == 0 and MINTED.fullmatch(shown.stdout.strip())
        assert len(_stored(store)) == before + 2
