"""remember / consolidate: session items promoted to facts (memx_cli/session.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from .conftest import Memx


def _facts(repo: Path) -> dict[str, dict]:
    return {p.stem: yaml.safe_load(p.read_text())
            for p in (repo / ".memx" / "memories").glob("*.yaml")}


def test_recurring_item_is_promoted_once_it_recurs(memx: Memx, repo: Path) -> None:
    first = json.loads(memx.ok("remember", "The staging DB resets every night at 2am",
                               "--session", "s1", "--json"))["remembered"]
    again = json.loads(memx.ok("remember", "the staging db resets every night at 2am.",
                               "--session", "s1", "--json"))["remembered"]
    assert (again["id"], again["count"], again["sessions"]) == (first["id"], 2, ["s1"])
    assert memx.ok("consolidate") == "0 promoted, 0 merged, 0 pruned, 1 session item(s) kept\n"
    memx.ok("remember", "The staging DB resets every night at 2am", "--session", "s2")
    out = memx.ok("consolidate", "--dry-run")
    assert out == ("would promote: The staging DB resets every night at 2am\n"
                   "1 promoted, 0 merged, 0 pruned, 0 session item(s) kept (dry run)\n")
    assert _facts(repo) == {}
    data = json.loads(memx.ok("consolidate", "--json"))["consolidated"]
    [promoted] = data["promoted"]
    assert (promoted["action"], promoted["sessions"]) == ("added", ["s1", "s2"])
    fact = _facts(repo)[promoted["id"]]
    assert (fact["kind"], fact["veracity"], fact["confidence"]) == ("fact", "inferred", 0.7)
    assert fact["source"] == {"type": "agent", "session": "s1", "sessions": ["s1", "s2"]}
    stored = json.loads((repo / ".memx" / "local" / "remembered.json").read_text())
    assert stored == {"items": []}


def test_marked_item_is_promoted_and_old_items_pruned(memx: Memx, repo: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMX_NOW", "2026-11-01T00:00:00Z")
    memx.ok("remember", "A passing thought about caching")
    monkeypatch.setenv("MEMX_NOW", "2026-11-20T00:00:00Z")
    memx.ok("remember", "Use the --frozen-lockfile flag in CI", "--mark")
    memx.ok("remember", "Another fresh thought")
    out = memx.ok("consolidate")
    [line, summary] = out.splitlines()
    assert line.startswith("promote: Use the --frozen-lockfile flag in CI -> ")
    assert summary == "1 promoted, 0 merged, 1 pruned, 1 session item(s) kept"
    assert [f["content"] for f in _facts(repo).values()] == ["Use the --frozen-lockfile flag in CI"]


def test_consolidate_merges_near_duplicate_facts(memx: Memx, repo: Path) -> None:
    older = memx.ok("add", "-", "--raw",
                    input="Run the linter with make lint before pushing").strip()
    newer = memx.ok("add", "-", "--raw",
                    input="Run the linter with make lint before pushing.").strip()
    memx.ok("add", "Deploys happen on Tuesdays")
    data = json.loads(memx.ok("consolidate", "--json"))["consolidated"]
    assert data["merged"] == [{"kept": older, "superseded": newer}]
    facts = _facts(repo)
    assert facts[newer]["superseded_by"] == older
    assert facts[older]["supersedes"] == [newer] and facts[older]["mention_count"] == 2
    assert json.loads(memx.ok("consolidate", "--json"))["consolidated"]["merged"] == []


def test_remember_errors(memx: Memx) -> None:
    result = memx("remember", "x" * 2001)
    assert result.err == ("memx: error: remembered text is 2001 characters (limit 2000); "
                          "remember one point at a time\n")
    assert memx("remember", "  ").err == ("memx: error: memory text is empty; pass the text "
                                          "to remember\n")
