"""Input that cannot crash or hang memx (issue 14): the one YAML reader, files that are
not regular files, and a damaged store layout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memx_cli.safeyaml import YamlInputError, loads
from tests.conftest import Memx

# A 1 KB "billion laughs": nine levels of nine references expand to 9**9 strings.
BOMB = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
DEEP = "x: " + "[" * 900 + "]" * 900 + "\n"


def run_cli(repo: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """memx in a child process: a hang is a timeout (a failure), not a stuck test run."""
    return subprocess.run([sys.executable, "-m", "memx_cli", *args], cwd=repo, text=True,
                          capture_output=True, timeout=timeout, env=os.environ.copy())


def _memory_path(memx: Memx, repo: Path, content: str) -> tuple[str, Path]:
    memory_id = memx.ok("add", content).strip()
    return memory_id, repo / ".memx" / "memories" / f"{memory_id}.yaml"


@pytest.mark.parametrize(("text", "message"), [
    ("a: !!int abc\n", "1: YAML tag !!int is not accepted; write a plain value"),
    ("!!timestamp\nschema: 1\n", "1: YAML tag !!timestamp is not accepted; write a plain value"),
    ("a: &x 1\nb: *x\n", "1: YAML anchors and aliases (& and *) are not accepted; "
                        "write the value out"),
    (BOMB, "1: YAML anchors and aliases (& and *) are not accepted; write the value out"),
    (DEEP, "1: nested more than 32 levels deep"),
    ("a: 1\na: 2\n", "2: duplicate key 'a'"),
    ("<<: {a: 1}\n", "1: '<<' is not a plain value (merge keys and YAML specials are not "
                     "accepted)"),
    ("a: 1\n---\nb: 2\n", "2: more than one YAML document; keep one"),
    ("a: \udc80\n", "None: not valid Unicode text (character 3)"),
])
def test_the_loader_refuses_what_is_not_plain_data(text: str, message: str) -> None:
    with pytest.raises(YamlInputError) as caught:
        loads(text)
    assert f"{caught.value.line}: {caught.value}" == message


def test_the_loader_reads_plain_data_like_yaml_safe_load() -> None:
    import yaml

    text = ("schema: 1\ncontent: |\n  two\n  lines\ntags: [a, 'b']\nn: {x: [1, 2.5, null, "
            "true, 2026-01-02T03:04:05Z]}\n- no\n")
    with pytest.raises(YamlInputError):
        loads(text)
    text = text.replace("- no\n", "")
    assert loads(text) == yaml.safe_load(text)
    assert loads("") is None and loads("# only a comment\n") is None


@pytest.mark.parametrize(("value", "shown"), [
    ("!!int abc", "4: YAML tag !!int is not accepted; write a plain value"),
    ("!!bool maybe", "4: YAML tag !!bool is not accepted; write a plain value"),
    ("&x hello", "4: YAML anchors and aliases (& and *) are not accepted; write the value out"),
])
def test_a_tagged_memory_file_is_a_warning_and_the_rest_is_served(
        memx: Memx, repo: Path, value: str, shown: str) -> None:
    good, _ = _memory_path(memx, repo, "still served")
    bad, path = _memory_path(memx, repo, "will be tagged")
    path.write_text(path.read_text().replace("content: will be tagged", f"content: {value}"))
    result = memx("list", "--json")
    assert result.code == 0
    assert [m["id"] for m in json.loads(result.out)["memories"]] == [good]
    assert result.err == f"memx: warning: .memx/memories/{bad}.yaml:{shown} (skipped)\n"


def test_a_tag_at_the_top_of_a_memory_file_is_caught_by_validate(memx: Memx, repo: Path) -> None:
    bad, path = _memory_path(memx, repo, "tagged at the top")
    path.write_text("!!timestamp\n" + path.read_text())
    result = memx("validate")
    assert result.code == 1
    assert (f".memx/memories/{bad}.yaml:1: YAML tag !!timestamp is not accepted; write a "
            "plain value") in result.out + result.err


def test_an_alias_bomb_in_a_memory_file_or_config_does_not_hang(memx: Memx, repo: Path) -> None:
    good, _ = _memory_path(memx, repo, "the deploy script lives in tools")
    bad, path = _memory_path(memx, repo, "soon a bomb")
    path.write_text(BOMB)
    result = run_cli(repo, "list", "--json", timeout=30)
    assert result.returncode == 0, result.stderr
    assert [m["id"] for m in json.loads(result.stdout)["memories"]] == [good]
    assert result.stderr == (f"memx: warning: .memx/memories/{bad}.yaml:1: YAML anchors and "
                             "aliases (& and *) are not accepted; write the value out "
                             "(skipped)\n")
    (repo / ".memx" / "config.yaml").write_text(BOMB)
    result = run_cli(repo, "search", "deploy", "--mode", "keyword", timeout=30)
    assert result.returncode == 2
    assert result.stderr == (f"memx: error: {repo}/.memx/config.yaml:1: invalid YAML in "
                             "configuration: "
                             "YAML anchors and aliases (& and *) are not accepted; write the "
                             "value out\n")


@pytest.mark.parametrize("text", ["search: !!int abc\n", DEEP])
def test_a_tag_or_deep_nesting_in_config_is_a_clear_error(memx: Memx, repo: Path,
                                                          text: str) -> None:
    (repo / ".memx" / "config.yaml").write_text(text)
    result = memx("search", "anything", "--mode", "keyword")
    assert result.code == 2
    detail = ("YAML tag !!int is not accepted; write a plain value" if "!!" in text
              else "nested more than 32 levels deep")
    assert result.err == (f"memx: error: {repo}/.memx/config.yaml:1: invalid YAML in "
                          f"configuration: {detail}\n")


def test_a_tag_in_access_yaml_fails_open_with_a_warning(memx: Memx, repo: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / ".memx" / "access.yaml").write_text("grants:\n  agent: {conventions: !!bool maybe}\n")
    memx.ok("add", "rebase the feature branch daily", "--domain", "conventions")
    monkeypatch.setenv("MEMX_ROLE", "agent")
    result = memx("context", "how often should I rebase the feature branch")
    assert result.code == 0 and "rebase the feature branch daily" in result.out
    assert result.err == ("memx: warning: .memx/access.yaml:2: YAML tag !!bool is not accepted; "
                          "write a plain value; every grant is read\n")


def test_a_fifo_named_yaml_is_skipped_not_waited_on(memx: Memx, repo: Path) -> None:
    good, _ = _memory_path(memx, repo, "the fifo does not block me")
    fifo = repo / ".memx" / "memories" / "01jdq4a7c9e1g3j5k7m9p1r3s5.yaml"
    os.mkfifo(fifo)
    os.mkfifo(repo / ".memx" / "config.local.yaml")
    result = run_cli(repo, "search", "fifo", "--mode", "keyword", timeout=30)
    assert result.returncode == 2
    assert result.stderr == (f"memx: error: {repo}/.memx/config.local.yaml: cannot read "
                             "configuration: not a regular file\n")
    (repo / ".memx" / "config.local.yaml").unlink()
    result = run_cli(repo, "list", "--json", timeout=30)
    assert result.returncode == 0, result.stderr
    assert [m["id"] for m in json.loads(result.stdout)["memories"]] == [good]
    assert result.stderr == (f"memx: warning: .memx/memories/{fifo.name}: not a regular file; "
                             "move it out of the store (skipped)\n")
    result = run_cli(repo, "search", "fifo", "--mode", "keyword", timeout=30)
    assert result.returncode == 0 and "the fifo does not block me" in result.stdout


def test_memories_being_a_file_is_a_clear_error(memx: Memx, repo: Path) -> None:
    memories = repo / ".memx" / "memories"
    for path in memories.iterdir():
        path.unlink()
    memories.rmdir()
    memories.write_text("oops\n")
    for args in (["list"], ["search", "x", "--mode", "keyword"], ["add", "a fact"]):
        result = memx(*args)
        assert result.code == 2, args
        assert result.err.endswith("memx: error: .memx/memories is a file, not a directory; move "
                                   "it aside (memories live in that directory)\n"), args


def _hooked_clone(memx: Memx, repo: Path, tmp_path: Path) -> Path:
    from tests.conftest import git

    memx.ok("add", "the deploy script lives in tools")
    (repo / "notes.txt").write_text("one\n")
    git(repo, "add", ".memx", "notes.txt")
    git(repo, "commit", "-q", "-m", "memory")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    memx.ok("hooks", "install", cwd=clone)
    return clone


BOMB_LINE = "YAML anchors and aliases (& and *) are not accepted; write the value out"


def test_an_alias_bomb_staged_or_pulled_is_refused_at_once(memx: Memx, repo: Path,
                                                          tmp_path: Path) -> None:
    # issue 26: the pre-commit check walked the composed YAML through every alias: a
    # staged 1 KB bomb made `git commit`, `memx hooks check` and the commit concluding a
    # merge spin for hours. The timeouts are a hang detector, far above the time taken.
    from tests.conftest import git

    clone = _hooked_clone(memx, repo, tmp_path)
    name = ".memx/memories/01aaaaaaaaaaaaaaaaaaaaaaaa.yaml"
    (clone / name).write_text(BOMB)
    git(clone, "add", name)
    commit = subprocess.run(["git", "commit", "-q", "-m", "bomb"], cwd=clone, text=True,
                            capture_output=True, timeout=60)
    assert commit.returncode == 1
    assert f"{name}:1: {BOMB_LINE}" in commit.stderr.splitlines()
    checked = run_cli(clone, "hooks", "check", timeout=60)
    assert checked.returncode == 1 and f"{name}:1: {BOMB_LINE}" in checked.stderr
    git(clone, "reset", "-q", "--hard")
    # the same file arrives by a pull whose merge stops on a conflict elsewhere
    (repo / name).write_text(BOMB)
    (repo / "notes.txt").write_text("theirs\n")
    git(repo, "add", name, "notes.txt")
    git(repo, "commit", "-q", "--no-verify", "-m", "bomb upstream")
    (clone / "notes.txt").write_text("ours\n")
    git(clone, "commit", "-q", "-am", "ours")
    pulled = subprocess.run(["git", "-c", "pull.rebase=false", "pull", "-q"], cwd=clone,
                            text=True, capture_output=True, timeout=60)
    assert pulled.returncode == 1 and "CONFLICT" in pulled.stdout
    (clone / "notes.txt").write_text("both\n")
    git(clone, "add", "notes.txt")
    concluded = subprocess.run(["git", "commit", "-q", "--no-edit"], cwd=clone, text=True,
                               capture_output=True, timeout=60)
    assert concluded.returncode == 1
    assert f"{name}:1: {BOMB_LINE}" in concluded.stderr.splitlines()
    assert (clone / ".git" / "MERGE_HEAD").exists()  # nothing concluded behind the user's back
