"""The lifecycle hook `memx setup` installs, end to end: the command written into the
agent's settings, given the agent's hook JSON on standard input, returns at once and a
background `memx ingest` turns the transcript into memories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .conftest import Memx
from .test_reflector_ingest import memories, transcript


def run_hook(command: str, payload: bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    # The agent runs the command through a shell with memx on its PATH.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(command, shell=True, input=payload, cwd=cwd, env=env,
                          capture_output=True, timeout=60)


def wait_for(check: object, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError("the background ingest did not finish in time")


def test_a_claude_code_transcript_handed_to_the_hook_becomes_memories(memx: Memx, repo: Path,
                                                                      tmp_path: Path) -> None:
    memx.ok("setup", "claude-code", "--yes")
    settings = json.loads((repo / ".claude" / "settings.json").read_text())
    [command] = {h["command"] for groups in settings["hooks"].values()
                 for g in groups for h in g["hooks"]}
    session = tmp_path / "transcripts" / "sess-42.jsonl"  # outside the repository
    session.parent.mkdir()
    session.write_text(transcript())
    event = {"session_id": "sess-42", "transcript_path": str(session), "cwd": str(repo),
             "hook_event_name": "SessionEnd",
             "reason": "exit"}

    from memx_cli.fsutil import locked

    # The hook returns before the ingest (which loads the Reflector) has stored anything:
    # the store's lock, held here, keeps the ingest from writing until the hook is back.
    with locked(repo / ".memx" / "local" / "write.lock"):
        done = run_hook(command, json.dumps(event).encode(), cwd=repo)
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
        assert memories(repo) == []
    wait_for(lambda: memories(repo))
    [mem] = memories(repo)
    # the episode runs from the failing test run to the passing one (issue 13)
    assert mem["source"] == {"type": "transcript", "session": "sess-42", "turns": [3, 6]}
    assert "circular import" in str(mem["content"])
    log = (repo / ".memx" / "local" / "hooks.log").read_text()
    assert f"agent-hook claude-code: SessionEnd: ingesting {session} in the background" in log

    # PreCompact then SessionEnd on the same session: the second run stores nothing new.
    event["hook_event_name"] = "PreCompact"
    assert run_hook(command, json.dumps(event).encode(), cwd=repo).returncode == 0
    wait_for(lambda: (repo / ".memx" / "local" / "hooks.log").read_text().count(
        "Nothing to remember") == 1)
    assert len(memories(repo)) == 1


def test_the_hook_never_fails_the_agent(memx: Memx, repo: Path) -> None:
    for payload in (b"not json", b"[]", json.dumps({"cwd": str(repo)}).encode(),
                    json.dumps({"transcript_path": "/nonexistent/t.jsonl",
                                "cwd": str(repo)}).encode()):
        result = memx("agent-hook", "claude-code", input=payload)
        assert (result.code, result.out, result.err) == (0, "", "")
    log = (repo / ".memx" / "local" / "hooks.log").read_text()
    assert "no transcript_path on standard input; nothing to do" in log
    assert "transcript /nonexistent/t.jsonl not found; nothing to do" in log
    assert not memories(repo)


def test_the_hook_is_hidden_from_help(memx: Memx) -> None:
    out = memx.ok("--help")
    assert "setup" in out and "agent-hook" not in out


def gemini_transcript() -> str:
    """A Gemini CLI chat recording: a failing test run, the explanation, a passing run."""
    def call(cid: str, output: str, status: str) -> dict[str, object]:
        return {"id": cid, "name": "run_shell_command", "args": {"command": "pytest -q"},
                "status": status, "resultDisplay": output}
    messages = [
        {"id": "m1", "type": "user", "content": "run the tests please"},
        {"id": "m2", "type": "gemini", "content": "", "toolCalls": [call(
            "c1", "ImportError: cannot import name 'Order' from partially initialized module "
                  "'app.models' (most likely due to a circular import)\nexit code: 1", "error")]},
        {"id": "m3", "type": "gemini", "content": "The issue is a circular import between "
         "app/db.py and app/models.py. The fix is to import `Order` inside `get_session()` "
         "instead of at module level.", "toolCalls": [{"id": "c2", "name": "replace", "args": {
             "file_path": "app/db.py", "old_string": "a", "new_string": "b"}, "status": "success",
             "resultDisplay": "ok"}]},
        {"id": "m4", "type": "gemini", "content": "", "toolCalls": [
            call("c3", "42 passed in 1.20s", "success")]},
        {"id": "m5", "type": "user", "content": "thanks!"},
    ]
    return json.dumps({"sessionId": "gem-7", "projectHash": "x", "messages": messages})


def test_a_gemini_session_handed_to_its_hook_becomes_memories(memx: Memx, repo: Path,
                                                              tmp_path: Path) -> None:
    memx.ok("setup", "gemini", "--yes")
    settings = json.loads((repo / ".gemini" / "settings.json").read_text())
    [command] = {h["command"] for groups in settings["hooks"].values()
                 for g in groups for h in g["hooks"]}
    session = tmp_path / "session-gem-7.json"
    session.write_text(gemini_transcript())
    event = {"session_id": "gem-7", "transcript_path": str(session), "cwd": str(repo),
             "hook_event_name": "SessionEnd", "timestamp": "2026-11-01T12:00:00Z"}
    done = run_hook(command, json.dumps(event).encode(), cwd=repo)
    assert (done.returncode, done.stdout) == (0, b"")
    wait_for(lambda: memories(repo))
    [mem] = memories(repo)
    assert mem["source"]["session"] == "gem-7"  # type: ignore[index]
    assert "circular import" in str(mem["content"])
