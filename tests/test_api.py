"""memx_cli.api.Memx, the library facade (issue 11): the CLI, the MCP server and a Python
caller get the same answers, and the example of docs/api.md runs as written."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import Memx
from .test_mcp import call, run_session

ROOT = Path(__file__).resolve().parent.parent
FACTS = [
    "The payment webhook retries 5 times before giving up",
    "Webhook signatures are checked with the shared HMAC secret from the vault",
    "Run the billing tests with make test-billing",
    "The retry queue for failed webhooks is drained every ten minutes",
    "Deploys to production need two approvals",
    "The frontend is built with Vite and served by nginx",
    "Invoices are generated nightly by the billing cron job",
    "Payment provider timeouts are logged under payments.timeout",
]
QUERIES = [("payment webhook retries", "hybrid"), ("billing", "keyword"),
           ("how often are failed callbacks retried", "semantic")]


def test_cli_mcp_and_library_return_the_same_ids_in_the_same_order(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli.api import Memx as Library

    monkeypatch.setenv("MEMX_NOW", "2026-11-05T12:00:00Z")  # one "now" for every front end
    for fact in FACTS:
        memx.ok("add", fact)

    def cli() -> list[list[str]]:
        return [[r["id"] for r in json.loads(memx.ok("search", query, "--mode", mode, "-n", "4",
                                                     "--json"))["results"]]
                for query, mode in QUERIES]

    async def script(client: Any) -> list[list[str]]:
        return [[r["id"] for r in (await call(client, "search_memory", query=query, mode=mode,
                                              limit=4))["results"]]
                for query, mode in QUERIES]

    def library() -> list[list[str]]:
        mx = Library.open(repo)
        return [[h.id for h in mx.search(query, mode=mode, limit=4).hits]
                for query, mode in QUERIES]

    first = cli()
    assert all(first) and len({tuple(ids) for ids in first}) == len(QUERIES)
    assert run_session(repo, script) == first
    assert library() == first
    assert cli() == first


def _example() -> str:
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.S)[0]


def test_the_documented_example_runs(memx: Memx, repo: Path) -> None:
    (repo / ".memx" / "access.yaml").write_text("grants:\n  intern: {conventions: read}\n")
    proc = subprocess.run([sys.executable, "-c", _example()], cwd=repo, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    added = json.loads(memx.ok("list", "--json"))["memories"]
    assert [m["content"] for m in added] == [
        "The payment webhook retries 5 times before giving up"]
    assert lines[0] == f"added {added[0]['id']}"
    assert re.fullmatch(r"\d\.\d{3} The payment webhook retries 5 times before giving up",
                        lines[1])
    assert "looking at the webhook retry loop" in proc.stdout
    assert f"(id {added[0]['id']})" in proc.stdout  # the fact reached the preamble
    assert lines[-1] == (
        "refused: role 'intern' has read access to domain 'conventions'; proposing a policy "
        "needs write (grant it in .memx/access.yaml)")


def test_open_needs_an_initialized_store(bare_repo: Path) -> None:
    from memx_cli.api import Memx as Library
    from memx_cli.errors import NotInitializedError

    with pytest.raises(NotInitializedError, match="run 'memx init' first"):
        Library.open(bare_repo)


def test_a_role_comes_from_the_environment_and_is_checked(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli.api import Memx as Library
    from memx_cli.errors import MemxError

    monkeypatch.setenv("MEMX_ROLE", "intern")
    assert Library.open(repo).role == "intern"
    assert Library.open(repo, role="lead").role == "lead"
    with pytest.raises(MemxError, match=r"invalid role 'two words': use one word"):
        Library.open(repo, role="two words")
