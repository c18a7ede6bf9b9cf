"""`memx stats` and `memx feedback` end to end (SPEC 3.3, SPEC 7; ACE playbook counters)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memx_cli.store import recall
from memx_cli.store.repo import Repo

from .conftest import Memx


def add(memx: Memx, *args: str) -> str:
    return memx.ok("add", *args).strip()


def test_stats_counts_weights_conflicts_and_recalls(memx: Memx, repo: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMX_NOW", "2026-01-01T00:00:00Z")
    pool = add(memx, "Redis pool size 10 is enough")
    add(memx, "Redis pool size must be at least 50 for stability")
    add(memx, "Never force-push to main", "--kind", "policy")
    add(memx, "My editor is neovim", "--scope", "global")
    monkeypatch.setenv("MEMX_NOW", "2026-02-15T00:00:00Z")  # 45 days: weight 0.354
    for _ in range(2):  # two recalls: 0.354 x 1.2 = 0.42
        memx.ok("search", "redis pool size", "--limit", "1")
    memx.ok("feedback", pool, "--harmful")
    assert memx.ok("stats") == (
        "Memories: 4 (archived: 0)\n"
        "  kind:        fact 3, policy 1\n"
        "  scope:       project 3, global 1\n"
        "  section:     (none) 4\n"
        "  type:        (none) 4\n"
        "  memory_type: (none) 4\n"
        "Decay weights:\n"
        "  0.8-1.0                       0\n"
        "  0.6-0.8                       0\n"
        "  0.4-0.6  #######              1\n"
        "  0.2-0.4  #################### 3\n"
        "  0.0-0.2                       0\n"
        "  due for archive (below 0.02): 0\n"
        "Conflicts: 1 open, superseded: 0\n"
        "Harmful-heavy (ranked lower):\n"
        f"  {pool}  harmful 1, helpful 0  Redis pool size 10 is enough\n"
        "Most recalled:\n"
        f"  {recalled(memx)}  2 recalls  {content(memx, recalled(memx))}\n")
    data = json.loads(memx.ok("stats", "--json"))["stats"]
    assert (data["memories"], data["archived"], data["conflicts"], data["due_for_archive"]) == (
        4, 0, 1, 0)
    assert data["by"]["kind"] == {"fact": 3, "policy": 1}
    assert data["weights"] == {"0.0-0.2": 0, "0.2-0.4": 3, "0.4-0.6": 1, "0.6-0.8": 0,
                               "0.8-1.0": 0}
    assert [h["id"] for h in data["harmful"]] == [pool]
    assert [t["recalls"] for t in data["top_recalled"]] == [2]


def recalled(memx: Memx) -> str:
    return next(iter(recall.load(Repo.discover(memx.cwd).store)))


def content(memx: Memx, memory_id: str) -> str:
    return json.loads(memx.ok("show", memory_id, "--json"))["memory"]["content"]


def test_stats_counts_archived_and_due(memx: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMX_NOW", "2026-01-01T00:00:00Z")
    add(memx, "The staging database is refreshed every Sunday")
    add(memx, "Deploys freeze on Fridays")
    monkeypatch.setenv("MEMX_NOW", "2026-07-20T00:00:00Z")
    data = json.loads(memx.ok("stats", "--json"))["stats"]
    assert (data["due_for_archive"], data["archived"]) == (2, 0)
    memx.ok("sweep")
    data = json.loads(memx.ok("stats", "--json"))["stats"]
    assert (data["memories"], data["due_for_archive"], data["archived"]) == (0, 0, 2)


def test_feedback_counts_in_the_file_and_harmful_ranks_lower(memx: Memx, repo: Path) -> None:
    good = add(memx, "Run the unit tests with pytest -x")
    bad = add(memx, "Run the unit tests with pytest -x -p no:cacheprovider")
    assert memx.ok("feedback", bad, "--harmful") == (
        f"{bad}: helpful 0, harmful 1 (search factor 0.50)\n")
    assert json.loads(memx.ok("feedback", bad[:14], "--helpful", "--json")) == {
        "feedback": {"id": bad, "helpful": 1, "harmful": 1, "factor": 0.6667}}
    text = (repo / ".memx" / "memories" / f"{bad}.yaml").read_text()
    assert text.endswith("feedback:\n  helpful: 1\n  harmful: 1\n")
    found = json.loads(memx.ok("search", "unit tests pytest", "--explain", "--json"))["results"]
    assert [r["id"] for r in found] == [good, bad]
    assert found[1]["explain"]["factors"]["feedback"] == 0.6667
    assert found[0]["explain"]["factors"]["feedback"] == 1.0
    human = memx.ok("search", "unit tests pytest", "--explain")
    assert "x feedback 0.67" in human


def test_feedback_without_a_verdict_is_an_error(memx: Memx) -> None:
    mid = add(memx, "anything")
    result = memx("feedback", mid)
    assert (result.code, result.err) == (
        2, "memx: error: say how it went: memx feedback ID --helpful or --harmful\n")


def test_feedback_does_not_renew_the_decay_age(memx: Memx, repo: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMX_NOW", "2026-01-01T00:00:00Z")
    mid = add(memx, "The staging database is refreshed every Sunday")
    monkeypatch.setenv("MEMX_NOW", "2026-07-20T00:00:00Z")
    memx.ok("feedback", mid, "--helpful")
    assert memx.ok("sweep", "--dry-run").startswith("Would archive 1 of 1 memory")
