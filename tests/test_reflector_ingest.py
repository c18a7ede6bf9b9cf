"""`memx ingest` end to end in real repositories: transcripts in, one masked pitfall out;
dry runs, JSON output, stats, ACE off, sessions ingested twice, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from .conftest import Memx

SECRET = "sk-proj-Q7b2XkP9mZ4vR1tY8wN3cL6hJ0dF5gS2aE9uI4oK7pB1nM3x"


def transcript() -> str:
    """A Claude Code session: a failing test run, the explanation, the fix, a passing run."""
    records = [
        {"type": "user", "sessionId": "sess-42", "message": {"role": "user", "content":
            f"run the tests please, the API key is in .env (OPENAI_API_KEY={SECRET})"}},
        {"type": "assistant", "sessionId": "sess-42", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q"}}]}},
        {"type": "user", "sessionId": "sess-42", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content":
                "Traceback (most recent call last):\n  File \"/home/dana/shop/app/db.py\", line 8\n"
                "    from app.models import Order\nImportError: cannot import name 'Order' from "
                "partially initialized module 'app.models' (most likely due to a circular import)"}]}},
        {"type": "assistant", "sessionId": "sess-42", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "The issue is a circular import between app/db.py and "
                                     "app/models.py. The fix is to import `Order` inside "
                                     "`get_session()` instead of at module level."},
            {"type": "tool_use", "id": "t2", "name": "Edit", "input": {
                "file_path": "app/db.py", "old_string": "a", "new_string": "b"}}]}},
        {"type": "assistant", "sessionId": "sess-42", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t3", "name": "Bash", "input": {"command": "pytest -q"}}]}},
        {"type": "user", "sessionId": "sess-42", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t3", "content": "42 passed in 1.20s"}]}},
        {"type": "user", "sessionId": "sess-42", "message": {"role": "user", "content": "thanks!"}},
    ]
    return "\n".join(json.dumps(r) for r in records) + "\n"


def memories(repo: Path) -> list[dict[str, object]]:
    return [yaml.safe_load(p.read_text()) for p in sorted((repo / ".memx" / "memories").glob("*.yaml"))]


def test_an_error_fixed_in_a_transcript_becomes_one_masked_pitfall(memx: Memx, repo: Path) -> None:
    (repo / "session.jsonl").write_text(transcript())
    out = memx.ok("ingest", "session.jsonl")
    assert out.startswith("Stored 1 memory from 7 messages\n")
    [mem] = memories(repo)
    assert (mem["section"], mem["type"], mem["kind"]) == ("debugging", "pitfall", "fact")
    assert mem["content"] == (
        "Error: `pytest -q` — ImportError: cannot import name 'Order' from partially initialized module "
        "'app.models' (most likely due to a circular import). Fix: The issue is a circular "
        "import between app/db.py and app/models.py. The fix is to import `Order` inside "
        "`get_session()` instead of at module level (edited app/db.py: `b`).")
    assert mem["source"] == {"type": "transcript", "session": "sess-42", "turns": [3, 6]}
    assert (mem["confidence"], mem["veracity"]) == (0.8, "inferred")
    assert mem["instructivity"] >= 80
    assert "app/db.py" in mem["entities"] and "ImportError" in mem["entities"]
    assert "error-fix" in mem["tags"]
    text = (repo / ".memx" / "memories" / f"{mem['id']}.yaml").read_text()
    assert SECRET not in text and "dana" not in text


def test_secrets_in_the_distilled_text_are_masked(memx: Memx, repo: Path) -> None:
    text = ("The deploy failed with `psycopg2.OperationalError: FATAL: password authentication "
            "failed`. Turned out DATABASE_URL=postgres://app:Sup3rS3cret@db:5432/app pointed "
            "at the old host; ops@acme.io changed it.")
    memx.ok("ingest", "-", input=text)
    [mem] = memories(repo)
    assert "Sup3rS3cret" not in mem["content"] and "ops@acme.io" not in mem["content"]
    assert "postgres://app:[REDACTED:password]@db:5432/app" in mem["content"]
    assert "[REDACTED:email]" in mem["content"]


def test_dry_run_prints_candidates_and_writes_nothing(memx: Memx, repo: Path) -> None:
    (repo / "session.jsonl").write_text(transcript())
    out = memx.ok("ingest", "session.jsonl", "--dry-run")
    assert out.startswith("Dry run: 1 candidate from 7 messages; nothing written\n\n"
                          "ErrorFix  score ")
    assert "  debugging/pitfall  [pytest]\n  Error: `pytest -q` — ImportError: cannot import" in out
    assert memories(repo) == []
    assert not (repo / ".memx" / "local" / "reflector-history.jsonl").exists()
    data = json.loads(memx.ok("ingest", "session.jsonl", "--dry-run", "--json"))
    assert set(data) == {"dry_run", "format", "candidates", "stored", "already_ingested",
                         "stats"}
    assert (data["dry_run"], data["format"], data["stored"]) == (True, "jsonl", [])
    [candidate] = data["candidates"]
    assert (candidate["rule"], candidate["section"], candidate["type"]) == (
        "ErrorFix", "debugging", "pitfall")
    assert candidate["source"]["session"] == "sess-42"
    assert data["stats"]["candidates"] == 1 and data["stats"]["llm_calls"] == 0
    assert memories(repo) == []


def test_stats_report_candidates_and_llm_use(memx: Memx) -> None:
    out = memx.ok("ingest", "-", "--stats", "--dry-run",
                  input="Raised MAX_POOL_SIZE from 10 to 50 after the load test.\n\nthanks")
    assert out.endswith("\ninput: text, 2 blocks read, 0 records skipped, ~14 tokens\n"
                        "rules: 1 candidate, 1 kept, 0 below min_score\n"
                        "llm: not used (ace.reflector.mode is rules)\n")


def test_chit_chat_yields_nothing(memx: Memx, repo: Path) -> None:
    chat = json.dumps([{"role": "user", "content": "thanks!"},
                       {"role": "assistant", "content": "ok"}])
    assert memx.ok("ingest", "-", input=chat) == "Nothing to remember in 2 messages\n"
    assert memories(repo) == []


def test_ingesting_a_session_again_stores_only_what_is_new(memx: Memx, repo: Path) -> None:
    (repo / "session.jsonl").write_text(transcript())
    memx.ok("ingest", "session.jsonl")
    assert memx.ok("ingest", "session.jsonl") == \
        "Nothing to remember in 7 messages (1 already ingested)\n"
    assert len(memories(repo)) == 1
    again = json.loads(memx.ok("ingest", "session.jsonl", "--json"))
    assert (again["stored"], again["already_ingested"]) == ([], 1)


def test_an_empty_input_and_one_without_messages_say_so(memx: Memx, repo: Path) -> None:
    """Nothing read is told apart from nothing learned: an empty input is empty, a JSONL
    file of records that are no messages says how many it read; with messages, the
    count as before."""
    (repo / "empty.log").write_text("")
    assert memx.ok("ingest", "empty.log") == "Nothing to remember: the input is empty\n"
    (repo / "other.jsonl").write_text('{"a": 1}\nnot json\n')
    assert memx.ok("ingest", "other.jsonl") == "Nothing to remember: no message among 2 records\n"
    (repo / "one.jsonl").write_text('{"a": 1}\n')
    assert "input: jsonl, 0 messages read, 1 record skipped, " in memx.ok("ingest", "one.jsonl",
                                                                            "--stats")
    first = json.loads(memx.ok("ingest", "-", "--json", input=transcript()))
    assert first["already_ingested"] == 0 and len(first["stored"]) == 1


def test_ci_logs_record_their_run_and_lines(memx: Memx, repo: Path,
                                            monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setenv("GITHUB_RUN_ID", "9001")
    monkeypatch.setenv("GITHUB_JOB", "test")
    log = ("$ git push origin main\nerror: failed to push some refs to 'github.com:acme/shop.git'\n"
           "hint: Updates were rejected because the remote contains work that you do not\n"
           "hint: have locally. Integrate the remote changes (e.g. 'git pull ...')\n")
    memx.ok("ingest", "--source", "ci", "-", input=log)
    [mem] = memories(repo)
    assert mem["source"] == {"type": "ci", "run": "9001", "job": "test", "lines": [1, 4]}
    assert mem["content"] == (
        "Error: `git push origin main` — failed to push some refs to 'github.com:acme/shop.git'. "
        "Fix: Updates were rejected because the remote contains work that you do not have "
        "locally. Integrate the remote changes (e.g. 'git pull ...').")


def test_ace_off_stores_the_input_verbatim_without_sanitizing(memx: Memx, repo: Path) -> None:
    text = f"key {SECRET}\nthanks"
    out = memx.ok("ingest", "--raw", "-", input=text)
    assert out.startswith("Stored the input as one memory (ACE off: not sanitized)\n")
    [mem] = memories(repo)
    assert mem["content"] == text and mem["source"] == {"type": "manual"}
    help_text = memx.ok("ingest", "--help")
    assert "NO secret sanitizing" in " ".join(help_text.split())


def test_bad_input_is_one_line_and_stores_nothing(memx: Memx, repo: Path) -> None:
    (repo / "blob.bin").write_bytes(b"\x7fELF\x00\x00")
    result = memx("ingest", "blob.bin")
    assert (result.code, result.err) == (2, "memx: error: blob.bin: binary file, not text; pass "
                                            "a log, a text or a JSON/JSONL transcript\n")
    result = memx("ingest", "missing.log")
    assert (result.code, result.err) == (2, "memx: error: cannot read missing.log: No such file "
                                            "or directory\n")
    result = memx("ingest", "--format", "json", "-", input="[1, 2")
    assert result.code == 2 and result.err.startswith("memx: error: <stdin>: invalid JSON (")
    assert memories(repo) == []


def test_json_nested_too_deep_is_bad_input_not_a_crash(memx: Memx, repo: Path) -> None:
    """Python's JSON reader gives up past its stack (RecursionError, not ValueError): a
    document that deep is a one-line error, a line that deep in a session is skipped
    like any unreadable line, and a tool call's arguments that deep stay text."""
    deep = "[" * 100_000 + "]" * 100_000
    result = memx("ingest", "--format", "json", "-", input=deep)
    assert (result.code, result.err) == (2, "memx: error: <stdin>: JSON nested too deep to "
                                            "read; a transcript is an array of messages\n")
    result = memx("ingest", "-", input='{"messages": ' + deep + "}")  # sniffed as JSON
    assert result.code == 2 and "JSON nested too deep" in result.err
    assert memories(repo) == []
    session = transcript().replace("\n", "\n" + deep + "\n", 1)  # after its first record
    out = json.loads(memx.ok("ingest", "-", "--json", "--dry-run", input=session))
    assert out["stats"]["skipped"] == 1
    assert [c["rule"] for c in out["candidates"]] == ["ErrorFix"]  # the rest read as before
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "function": {"name": "bash", "arguments": deep}}]}
    result = memx("ingest", "--format", "json", "-", input=json.dumps([call]))
    assert result.code == 0, result.err


def test_a_memory_from_a_transcript_is_dated_when_it_was_said(memx: Memx, repo: Path) -> None:
    """Issue 16: a memory distilled from a transcript carries the time of the message it
    comes from (Claude Code, Codex and Gemini records have a ``timestamp``), not the time
    of the ingest: "what did we fix last May" finds it by that date."""
    records = [json.loads(line) for line in transcript().splitlines()]
    for number, record in enumerate(records):
        record["timestamp"] = f"2026-03-0{number + 1}T10:15:30.123Z"
    (repo / "session.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    memx.ok("ingest", "session.jsonl")
    [mem] = memories(repo)
    assert mem["source"]["turns"] == [3, 6]
    assert mem["created_at"] == "2026-03-06T10:15:30Z"  # the last message of its evidence
    assert mem["updated_at"] > "2026-03-07"  # learnt now: decay counts from the ingest
    # Without timestamps (OpenAI-style messages), the ingest's own time, as before.
    chat = [{"role": "user", "content": "From now on always use pnpm, never npm, in this repo"}]
    memx.ok("ingest", "-", input=json.dumps(chat))
    undated = [m for m in memories(repo) if m["id"] != mem["id"]]
    assert undated and all(m["created_at"] > "2026-03-07" for m in undated)
