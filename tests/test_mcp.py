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
