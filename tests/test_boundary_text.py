"""Text normalised at the boundary (issue 14): undecodable argument bytes, lone
surrogates and NUL in queries, transcripts, commits and MCP requests never crash memx."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memx_cli.operations.reflect import reflect_commit
from memx_cli.reflector.inputs import sniff
from memx_cli.store.repo import Repo
from tests.conftest import Memx

BAD = "bad\udcffbyte"  # what Python makes of the argument bytes b"bad\xffbyte"


def test_undecodable_argument_bytes_are_stored_as_replacement_characters(memx: Memx,
                                                                         repo: Path) -> None:
    fact = memx.ok("add", BAD).strip()
    assert json.loads(memx.ok("show", fact, "--json"))["memory"]["content"] == "bad\ufffdbyte"
    hits = json.loads(memx.ok("search", BAD, "--mode", "keyword", "--json"))["results"]
    assert [h["id"] for h in hits] == [fact]
    assert memx.ok("policy", "add", "never " + BAD).strip()
    assert memx.ok("notes", "set", "note " + BAD) == "Notes of agent default: 14 characters.\n"
    assert memx.ok("notes", "show") == "note bad\ufffdbyte\n"
    assert "seen 1x in 1 session(s)" in memx.ok("remember", "keep " + BAD)


@pytest.mark.parametrize("query", ["\ud800", "x\udfffy", "nul\x00here", "\ud83d"])
def test_a_query_with_a_lone_surrogate_or_nul_is_searched_not_crashed(memx: Memx,
                                                                      query: str) -> None:
    memx.ok("add", "nulhere is a word")
    for mode in ("keyword", "hybrid"):
        result = memx("search", query, "--mode", mode, "--json")
        assert result.code == 0, result.err
        assert json.loads(result.out)["query"] == query.replace("\x00", "").encode(
            "utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def test_bytes_in_a_real_argv_are_decoded_by_the_boundary(memx: Memx, repo: Path) -> None:
    result = subprocess.run([sys.executable.encode(), b"-m", b"memx_cli", b"add",
                             b"caf\xe9 cr\xe8me"], cwd=repo, capture_output=True,
                            env=os.environ.copy())
    assert result.returncode == 0, result.stderr
    fact = result.stdout.decode().strip()
    assert json.loads(memx.ok("show", fact, "--json"))["memory"]["content"] == "caf\ufffd cr\ufffdme"


def _mcp_exchange(repo: Path, lines: list[str], wait_for: int) -> dict[int, dict[str, object]]:
    proc = subprocess.Popen([sys.executable, "-m", "memx_cli", "mcp"], cwd=repo,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=os.environ.copy())
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(("\n".join(lines) + "\n").encode())
    proc.stdin.flush()
    replies: dict[int, dict[str, object]] = {}
    deadline = time.monotonic() + 60
    buffered = b""
    try:
        # stdin stays open while we wait (at EOF the server drops requests in flight),
        # so a reply that never comes is a timeout, never a blocked read
        while len(replies) < wait_for and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if not ready:
                continue
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            buffered += chunk
            *lines, buffered = buffered.split(b"\n")
            for line in lines:
                message = json.loads(line)
                if "id" in message:
                    replies[message["id"]] = message
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return replies


def test_an_mcp_request_with_a_lone_surrogate_gets_a_reply(memx: Memx, repo: Path) -> None:
    memx.ok("add", "the nightly job retries three times")
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    call = ('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": '
            '"search_memory", "arguments": {"query": "nightly \\ud800 job", "mode": "keyword"}}}')
    after = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": "propose_fact", "arguments": {"content": "x \ud800 y"}}}
    replies = _mcp_exchange(repo, [json.dumps(init),
                                   '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
                                   call, json.dumps(after)], wait_for=3)
    assert sorted(replies) == [1, 2, 3]
    found = json.loads(replies[2]["result"]["content"][0]["text"])  # type: ignore[index]
    assert found["query"] == "nightly \ufffd job"
    assert [h["content"] for h in found["results"]] == ["the nightly job retries three times"]
    written = json.loads(replies[3]["result"]["content"][0]["text"])  # type: ignore[index]
    assert written["action"] == "added"


@pytest.mark.parametrize(("head", "fmt"), [
    (b"[INFO] server started on :8080\n[WARN] slow query\n", "text"),
    (b"[2026-01-02 10:00:01] build started\n", "text"),
    (b"[ERROR]\n", "text"),
    (b"{build} ok\n", "text"),
    (b'[\n  {"role": "user", "content": "hi"}\n]', "json"),
    (b"[]", "json"),
    (b'{"messages": []}', "json"),
    (b'{"role": "user", "content": "x"}\n', "jsonl"),
])
def test_logs_starting_with_a_bracket_are_text_not_json(head: bytes, fmt: str) -> None:
    assert sniff(head) == fmt


def test_a_bracketed_log_is_ingested_as_text(memx: Memx, repo: Path) -> None:
    # Taken for JSON, this log was refused ("invalid JSON"), and one over 64 MB as "a JSON
    # document over 64 MB"; as text it streams line by line (bench/ measures 100 MB).
    log = repo / "ci.log"
    log.write_bytes(b"[INFO] 2026-01-02 request served in 12 ms by worker 7 of the pool\n" * 50
                    + b"[ERROR] ModuleNotFoundError: No module named 'redis'\n"
                    + b"[INFO] fixed by adding redis to requirements.txt\n")
    result = memx("ingest", str(log), "--dry-run", "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["format"] == "text"


def test_nul_and_surrogates_in_commit_paths_and_messages(memx: Memx, repo: Path) -> None:
    found = reflect_commit(Repo(repo), "fix: crash\x00 when REDIS_URL\udcff is unset",
                           [("M", "src/a\x00b.py"), ("A", "pkg/\ud800.json")], "", {
                               "src/a\x00b.py": "+x = 1\x00\n"}, sha="abc1234")
    for mem in found:
        assert "\x00" not in mem.content
        mem.content.encode("utf-8")


def test_a_note_whose_statement_only_announces_what_follows_is_read_not_crashed(
        memx: Memx, repo: Path) -> None:
    # a report's heading names a failure; the sentence under it ends on a colon (the list
    # it announces was cut off): it states no fix, and the reader ran out of words for one
    note = repo / "report.md"
    note.write_text("### Features Blocked by Build Failure\n\n"
                    "All v1.7 features are blocked from release:\n", encoding="utf-8")
    result = memx("ingest", str(note), "--dry-run", "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["candidates"] == []
    # control: the same note with a sentence that states what fixed it is learned from
    note.write_text("### Features Blocked by Build Failure\n\n"
                    "Pinning connectivity_plus to 5.0.2 fixed the release build.\n",
                    encoding="utf-8")
    result = memx("ingest", str(note), "--dry-run", "--json")
    assert result.code == 0, result.err
    assert any("connectivity_plus" in c["content"]
               for c in json.loads(result.out)["candidates"]), result.out
