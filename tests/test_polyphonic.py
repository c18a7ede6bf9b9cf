"""Polyphonic fusion of hybrid search (memx_cli/generator/polyphonic.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memx_cli.generator import polyphonic
from memx_cli.generator.polyphonic import Graph, _walk, classify
from memx_cli.store import corecall
from memx_cli.store.repo import Repo

from .conftest import Memx


@pytest.mark.parametrize("query, intent", [
    ("what is the latest deploy procedure", "temporal"),
    ("what changed recently in billing", "temporal"),
    ("src/api/handlers.py", "identifier"),
    ("MAX_POOL_SIZE", "identifier"),
    ("pytest -x", "identifier"),
    ("how do I make the tests faster", "prose"),
    ("When did Caroline go to the support group?", "prose"),
])
def test_intent(query: str, intent: str) -> None:
    assert classify(query) == intent


class FakeGraph(Graph):
    def __init__(self, edges: dict[str, list[tuple[str, float]]]):
        self.table = edges

    def edges(self, memory_id: str, doc: Any) -> Any:
        return iter(self.table.get(memory_id, []))


def test_walk_two_hops_never_back_to_the_seed() -> None:
    graph = FakeGraph({"a": [("b", 0.5), ("c", 0.25)], "b": [("a", 0.5), ("d", 0.5)],
                       "c": [("a", 0.25)], "d": [("b", 0.5)]})
    fetched: list[list[str]] = []

    def fetch(ids: list[str]) -> dict[str, Any]:
        fetched.append(sorted(ids))
        return {}

    scores = _walk(graph, {"a": 0.8}, {"a": {}}, fetch)
    # b: 0.8 x 0.5; c: 0.8 x 0.25; d: second hop 0.5 x 0.8 x 0.5 x 0.5; a is not its own
    # evidence.
    assert scores == pytest.approx({"b": 0.4, "c": 0.2, "d": 0.1})
    assert fetched == [["b", "c"]]


def _store(memx: Memx, tmp_path: Path) -> None:
    records = [
        {"content": "Alice: I finally adopted a dog last week", "session": "s1"},
        {"content": "Bob: What breed is it?", "session": "s1"},
        {"content": "Alice: A golden retriever called Biscuit", "session": "s1"},
        {"content": "Carol: the deploy script needs the staging token", "session": "s2"},
    ]
    lines = [json.dumps({"content": r["content"],
                         "source": {"type": "transcript", "session": r["session"]}})
             for r in records]
    (tmp_path / "turns.jsonl").write_text("\n".join(lines) + "\n")
    memx.ok("import", "--raw", str(tmp_path / "turns.jsonl"))


def test_config_switches_hybrid_to_polyphonic(memx: Memx, repo: Path, tmp_path: Path) -> None:
    _store(memx, tmp_path)
    blended = json.loads(memx.ok("search", "adopted a dog", "--explain", "--json"))
    assert "graph" not in blended["results"][0]["explain"]["layers"]
    memx.ok("config", "set", "ace.retrieval.fusion", "polyphonic")
    data = json.loads(memx.ok("search", "adopted a dog", "--explain", "--json", "-n", "3"))
    results = data["results"]
    assert results[0]["content"] == "Alice: I finally adopted a dog last week"
    layers = results[0]["explain"]["layers"]
    assert {"temporal", "graph", "fused", "mmr"} <= set(layers)
    # The next turn of the same session is reached by the graph voice.
    by_text = {r["content"]: r["explain"]["layers"]["graph"] for r in results}
    assert by_text.get("Bob: What breed is it?", 0.0) > 0.0
    assert all(r["content"] != "Carol: the deploy script needs the staging token"
               for r in results)
    pairs = corecall.load(Repo.discover(repo).store)
    ids = [r["id"] for r in results[:3]]
    assert pairs[ids[0]] == {ids[1]: 1, ids[2]: 1}


def test_mmr_keeps_rephrasings_from_crowding(monkeypatch: pytest.MonkeyPatch) -> None:
    class Hit:
        def __init__(self, name: str, composite: float):
            self.id, self.composite, self.score, self.layers = name, composite, 0.0, {}

    same = {frozenset(("a", "a2")): 0.95}

    def fake_similarity(self: Any, hits: list[Any]) -> Any:
        return lambda i, j: same.get(frozenset((hits[i].id, hits[j].id)), 0.1)

    monkeypatch.setattr(polyphonic.Polyphonic, "_similarity", fake_similarity)
    ranker = polyphonic.Polyphonic.__new__(polyphonic.Polyphonic)
    hits = [Hit("a", 0.60), Hit("a2", 0.58), Hit("b", 0.50), Hit("c", 0.10)]
    ordered = ranker._diversify(hits, pool=3)
    assert [h.id for h in ordered] == ["a", "b", "a2", "c"]
    values = [h.composite for h in ordered]
    assert values == sorted(values, reverse=True)  # _fill relies on a falling order
    assert ordered[1].composite == pytest.approx(0.85 * 0.50 - 0.15 * 0.1)
