"""A cold ``memx search`` without the server reads its usual arguments without click
(memx_cli/command/search.py, issue 29): the same output, errors and exit codes as the full
CLI, compared process against process on two copies of one store (each search counts
its recalls, so each path gets a store with the same history)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memx_cli.command.search import parse

from .conftest import Memx

# The `memx` executable's own entry (the lean path when it applies); a profile hook
# keeps base.fast_exit from leaving before the modules are listed.
LEAN = ("import sys\nsys.setprofile(lambda *a: None)\nfrom memx_cli.executable import entry\n"
        "sys.argv = ['memx', *sys.argv[1:]]\n"
        "try:\n    entry()\nexcept SystemExit as exc:\n    code = exc.code\n"
        "else:\n    code = 0\n"
        "sys.stderr.write('LOADED ' + ' '.join(m for m in ('click', 'numpy', 'tokenizers')"
        " if m in sys.modules) + '\\n')\n"
        "sys.exit(code)\n")


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMX_NO_SERVER": "1", "MEMX_NOW": "2026-06-01T12:00:00Z"}
    return subprocess.run(argv, cwd=cwd, text=True, capture_output=True, env=env)


def _lean(args: list[str], cwd: Path) -> tuple[int, str, str, list[str]]:
    proc = _run([sys.executable, "-c", LEAN, "search", *args], cwd)
    err, _, loaded = proc.stderr.rpartition("LOADED ")
    return proc.returncode, proc.stdout, err, loaded.split()


def _full(args: list[str], cwd: Path) -> tuple[int, str, str]:
    proc = _run([sys.executable, "-m", "memx_cli", "search", *args], cwd)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def stores(memx: Memx, repo: Path, tmp_path: Path) -> tuple[Path, Path]:
    memx.ok("add", "Run `docker compose up -d --build` before the billing tests", "--raw",
            "--tag", "docker")
    memx.ok("add", "部署 billing 之前先运行 docker compose build", "--raw")
    memx.ok("add", "The \x1b[31mred\x1b[0m build cache lives in .cache/build", "--raw")
    memx.ok("add", "pytest -x stops at the first failing test", "--raw", "--tag", "pytest")
    memx.ok("reindex")
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy, symlinks=True)
    return repo, copy


@pytest.mark.parametrize("args", [
    ["docker compose build", "--mode", "keyword", "--json"],
    ["docker compose build", "--json"],
    ["pytest failing", "--mode", "keyword"],  # text
    ["billing", "--explain", "-n", "2"],
    ["部署 billing", "--mode", "semantic", "--json", "--closest"],
    ["zzqqxx", "--mode", "keyword"],  # nothing relevant: a note on stderr
    ["docker", "--budget", "1", "--mode", "keyword"],  # nothing fits the budget
    ["docker", "--scope", "bogus"],  # the library's error, exit 2
    ["pytest", "--include-archived", "--limit", "1", "--mode", "keyword"],
])
def test_the_lean_path_answers_as_the_full_cli(stores: tuple[Path, Path],
                                               args: list[str]) -> None:
    lean_store, full_store = stores
    code, out, err, loaded = _lean(args, lean_store)
    assert (code, out, err) == _full(args, full_store)
    assert "click" not in loaded  # it was the lean path that answered
    if "keyword" in args:
        assert loaded == []  # no numpy, no tokenizer for a keyword search


@pytest.mark.parametrize("args", [
    ["docker", "--limit=1"],  # --name=value: click's to read
    ["docker", "--limit", "x"],  # not a number: click's message
    ["docker", "--mode", "fuzzy"],  # not a choice
    ["docker", "extra"],  # a second argument
    ["--help"],
    ["docker", "-v", "--mode", "keyword"],
])
def test_what_the_lean_path_does_not_read_goes_to_the_full_cli(
        stores: tuple[Path, Path], args: list[str]) -> None:
    lean_store, full_store = stores
    code, out, err, loaded = _lean(args, lean_store)
    assert (code, out, err) == _full(args, full_store)
    assert "click" in loaded


def test_an_escape_in_the_output_is_written_by_click(stores: tuple[Path, Path]) -> None:
    """click.echo strips ANSI escapes from what is not a terminal: the lean path's echo
    hands such a line to click."""
    lean_store, full_store = stores
    args = ["build cache", "--mode", "keyword"]
    code, out, err, loaded = _lean(args, lean_store)
    assert (code, out, err) == _full(args, full_store)
    assert "red build cache" in out and "\x1b" not in out and "click" in loaded


def test_outside_a_store_the_error_is_the_full_clis(tmp_path: Path) -> None:
    code, out, err, loaded = _lean(["docker"], tmp_path)
    assert (code, out, err) == _full(["docker"], tmp_path)
    assert code != 0 and err.startswith("memx: error: ") and "click" not in loaded


def test_parse_reads_only_what_it_is_sure_of() -> None:
    assert parse(["q", "-n", "3", "--json", "--mode", "keyword"]) == {
        "query": "q", "limit": 3, "scope": None, "mode": "keyword", "budget": None,
        "include_archived": False, "explain": False, "closest": False, "as_json": True}
    assert parse(["--scope", "global", "q"])["scope"] == "global"  # type: ignore[index]
    for declined in (["q", "--json", "--json"], ["q", "--limit"], ["q", "--scope", "-x"],
                     ["-", "--json"], ["q", "--"], ["q", "-n5"], [], ["--json"],
                     ["q", "--mode", "Keyword"]):
        assert parse(declined) is None, declined


def test_a_closed_pipe_ends_both_paths_alike(stores: tuple[Path, Path]) -> None:
    """`memx search ... | head` whose reader has gone: both paths exit 0 and write
    nothing more (tests/test_output_streams.py: why 0, and the control)."""
    env = {**os.environ, "MEMX_NO_SERVER": "1"}
    answers = []
    for argv, store in (([sys.executable, "-c", LEAN], stores[0]),
                        ([sys.executable, "-m", "memx_cli"], stores[1])):
        read, write = os.pipe()
        os.close(read)
        proc = subprocess.run([*argv, "search", "docker", "--mode", "keyword", "--json"],
                              cwd=store, stdout=write, stderr=subprocess.PIPE, text=True,
                              env=env)
        os.close(write)
        answers.append((proc.returncode, proc.stderr.partition("LOADED ")[0]))
    assert answers[0] == answers[1] == (0, "")


@pytest.mark.parametrize("limit", ["9999999999", "99999999999999999999"])
def test_a_limit_beyond_what_the_store_holds_lists_what_there_is(
        stores: tuple[Path, Path], limit: str) -> None:
    """tantivy reserves room for every hit asked for: a limit of 10**10 aborted both paths
    (a failed 160 GB allocation, exit 134) and one past 2**64 was an internal error. The
    index is asked for no more hits than it holds; -n 1 is the control."""
    lean_store, full_store = stores
    args = ["docker", "--mode", "keyword", "--json", "-n", limit]
    code, out, err, loaded = _lean(args, lean_store)
    assert (code, out, err) == _full(args, full_store)
    assert code == 0 and "click" not in loaded
    assert len(json.loads(out)["results"]) == 2  # the two memories saying docker
    code, out, _, _ = _lean([*args[:-1], "1"], lean_store)
    assert code == 0 and len(json.loads(out)["results"]) == 1


# The executable's entry without the profile hook: base.fast_exit flushes and leaves.
PLAIN = ("import sys\nfrom memx_cli.executable import entry\n"
         "sys.argv = ['memx', *sys.argv[1:]]\nentry()\n")


def test_a_closed_stdout_ends_both_paths_alike(stores: tuple[Path, Path]) -> None:
    """Started without a standard output (`memx search ... >&-`, Python's sys.stdout is
    None), a search succeeds on both paths: fast_exit flushed None and failed with an
    AttributeError's traceback, exit 1. With the output open (the control) the result is
    printed."""
    env = {**os.environ, "MEMX_NO_SERVER": "1"}
    args = ["search", "docker", "--mode", "keyword"]
    for argv, store in (([sys.executable, "-c", PLAIN], stores[0]),
                        ([sys.executable, "-m", "memx_cli"], stores[1])):
        closed = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *argv, *args],
                                cwd=store, capture_output=True, text=True, env=env)
        assert (closed.returncode, closed.stderr) == (0, "")
        shown = subprocess.run([*argv, *args], cwd=store, capture_output=True, text=True,
                               env=env)
        assert shown.returncode == 0 and "docker compose" in shown.stdout
