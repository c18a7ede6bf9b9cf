"""`memx run -- CMD`: real commands, output and exit status passed through, history kept
across processes, RetrySuccess and RepetitiveOp from that history."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from memx_cli.reflector.history import MAX_RUNS, History

from .conftest import Memx

HISTORY = Path(".memx") / "local" / "reflector-history.jsonl"


def memories(repo: Path) -> list[dict[str, object]]:
    return [yaml.safe_load(p.read_text()) for p in sorted((repo / ".memx" / "memories").glob("*.yaml"))]


def test_output_and_exit_status_pass_through_unchanged(memx: Memx, repo: Path) -> None:
    result = memx("run", "--", "sh", "-c", "echo out; echo err >&2; exit 3")
    assert (result.code, result.out, result.err) == (3, "out\n", "err\n")
    result = memx("run", "true")
    assert (result.code, result.out, result.err) == (0, "", "")
    assert memories(repo) == []


def test_bytes_pass_through_unchanged_in_a_real_process(memx: Memx, repo: Path) -> None:
    script = "import sys; sys.stdout.buffer.write(bytes(range(256))); sys.exit(7)"
    proc = subprocess.run([sys.executable, "-m", "memx_cli", "run", "--", sys.executable, "-c",
                           script], cwd=repo, capture_output=True)
    assert (proc.returncode, proc.stdout, proc.stderr) == (7, bytes(range(256)), b"")


def test_a_failure_then_a_success_is_a_retry_success_with_what_changed(memx: Memx,
                                                                      repo: Path) -> None:
    command = ["run", "--", "sh", "-c", "test -f flag || { echo 'Error: flag missing' >&2; exit 1; }"]
    assert memx(*command).code == 1
    assert memories(repo) == []
    (repo / "flag").write_text("on\n")
    result = memx(*command)
    assert result.code == 0
    [mem] = memories(repo)
    key = "sh -c 'test -f flag || { echo '\"'\"'Error: flag missing'\"'\"' >&2; exit 1; }'"
    assert mem["content"] == (f"`{key}` failed once (exit 1: Error: flag missing) and then "
                              "passed after adding flag.")
    assert (mem["type"], mem["section"], mem["veracity"], mem["confidence"]) == (
        "trick", "debugging", "tool", 0.7)
    assert mem["source"] == {"type": "command", "command": key, "exit_code": 0}
    note = f"memx: note: added {mem['id'][:12]} (RetrySuccess): "
    assert result.err.startswith(note + "`sh -c 'test -f flag") and result.err.endswith("…\n")


def test_false_then_true_style_with_a_changed_file(memx: Memx, repo: Path) -> None:
    (repo / "mode").write_text("fail\n")
    command = ["run", "-q", "--", "sh", "-c", 'grep -q ok mode']
    assert memx(*command).code == 1
    assert memx(*command).code == 1
    (repo / "mode").write_text("ok\n")
    assert memx(*command).out == ""
    rules = sorted(m["tags"][0] for m in memories(repo))
    assert rules == ["repetitive-op", "retry-success"]
    retry = next(m for m in memories(repo) if "retry-success" in m["tags"])
    assert retry["content"] == ("`sh -c 'grep -q ok mode'` failed 2 times (exit 1) and then "
                                "passed after changing mode.")


def test_a_committed_file_edited_between_the_runs_is_changed_not_added(memx: Memx,
                                                                       repo: Path) -> None:
    # walk16: a committed file is not in the first run's snapshot (clean files are not
    # listed): its edit was told 'adding'
    (repo / "app").mkdir()
    (repo / "app" / "mode.txt").write_text("fail\n")
    subprocess.run(["git", "add", "app"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "mode"], cwd=repo, check=True)
    command = ["run", "-q", "--", "sh", "-c", "grep -q ok app/mode.txt"]
    assert memx(*command).code == 1
    (repo / "app" / "mode.txt").write_text("ok\n")
    (repo / "app" / "new.txt").write_text("x\n")  # control: a new file is added
    assert memx(*command).code == 0
    [mem] = memories(repo)
    assert mem["content"] == ("`sh -c 'grep -q ok app/mode.txt'` failed once (exit 1) and then "
                              "passed after changing app/mode.txt and adding app/new.txt.")


def test_three_runs_are_a_repetitive_op_once(memx: Memx, repo: Path) -> None:
    for _ in range(2):
        memx.ok("run", "--", "git", "status", "--short")
    assert memories(repo) == []
    result = memx("run", "--", "git", "status", "--short")
    [mem] = memories(repo)
    assert mem["content"].startswith("`git status --short` is run again and again in this "
                                     "repository (3 runs since ")
    assert (mem["type"], mem["section"], mem["confidence"], mem["tools"]) == (
        "method", "commands", 0.5, ["git"])
    assert "(RepetitiveOp)" in result.err
    memx.ok("run", "--", "git", "status", "--short")
    assert len(memories(repo)) == 1


def test_history_is_bounded_and_survives_damage(memx: Memx, repo: Path) -> None:
    path = repo / HISTORY
    history = History(path)
    for i in range(MAX_RUNS + 50):
        history.add("run", f"cmd {i % 7}", exit=0, error=None)
    history.save()
    with path.open("a") as handle:
        handle.write("{not json\n")
    lines = path.read_text().splitlines()
    assert len(lines) == MAX_RUNS + 1
    loaded = History.load(path)
    assert len(loaded.entries) == MAX_RUNS
    memx.ok("run", "--", "true")
    assert len(path.read_text().splitlines()) == MAX_RUNS  # rewritten, still bounded
    assert json.loads(path.read_text().splitlines()[-1])["key"] == "true"


def test_command_not_found_and_outside_a_store(memx: Memx, repo: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    result = memx("run", "--", "no-such-command-xyz")
    assert (result.code, result.err) == (127, "memx run: no-such-command-xyz: command not found\n")
    outside = tmp_path / "plain"
    outside.mkdir()
    result = memx("run", "--", "sh", "-c", "echo hi; exit 4", cwd=outside)
    assert (result.code, result.out) == (4, "hi\n")
    assert result.err.startswith("memx: warning: run not recorded: not inside a git repository")


def test_secrets_in_commands_never_reach_the_history(memx: Memx, repo: Path) -> None:
    token = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
    memx("run", "--", "sh", "-c", f"exit 1 # {token}")
    text = (repo / HISTORY).read_text()
    assert token not in text and "[REDACTED:github_token]" in text


def test_an_interrupted_run_is_not_a_failure(memx: Memx, repo: Path) -> None:
    (repo / "code").write_text("130\n")
    command = ["run", "-q", "--", "sh", "-c", "exit $(cat code)"]
    assert memx(*command).code == 130
    (repo / "code").write_text("0\n")
    assert memx(*command).code == 0
    assert memories(repo) == []
    last_two = (repo / HISTORY).read_text().splitlines()[-2:]
    assert [json.loads(line).get("interrupted") for line in last_two] == [True, None]


def test_on_a_terminal_the_command_gets_a_terminal(memx: Memx, repo: Path) -> None:
    import os
    import pty

    master, slave = pty.openpty()
    script = "import sys; print(sys.stdout.isatty(), sys.stderr.isatty()); sys.exit(5)"
    proc = subprocess.Popen([sys.executable, "-m", "memx_cli", "run", "--", sys.executable, "-c",
                             script], cwd=repo, stdin=subprocess.DEVNULL, stdout=slave,
                            stderr=slave)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 1024)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    assert proc.wait() == 5
    assert data == b"True True\r\n"  # the child's "\n", translated once, by our terminal
