"""bench/second_pass.py: the issue 16 layers measured and not kept stay measurable. Off,
the hook changes no ranking and leaves the Searcher as it was; on, each layer acts on a
real store (tests/data/hard_questions.json, imported as transcript turns)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Memx
from tests.test_search_hard import load_store

BENCH = Path(__file__).resolve().parents[1] / "bench"
QUERY = "Which connection pooler sits in front of the database of the service Alice moved to Fly.io?"


@pytest.fixture
def second_pass() -> Iterator[object]:
    sys.path.insert(0, str(BENCH))
    try:
        import second_pass

        yield second_pass
    finally:
        sys.path.remove(str(BENCH))


def ranking(root: Path, query: str = QUERY) -> list[tuple[str, float]]:
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    result = Searcher(Repo.discover(root)).search(query, limit=10, record_recalls=False)
    return [(hit.id, round(hit.composite, 9)) for hit in result.hits]


def test_off_changes_nothing(memx: Memx, monkeypatch: pytest.MonkeyPatch,
                             second_pass: object) -> None:
    from memx_cli.generator.search import Searcher

    load_store(memx, monkeypatch)
    before = ranking(memx.cwd)
    methods = (Searcher.search, Searcher.score, Searcher._semantic_text)
    with second_pass.installed():  # type: ignore[attr-defined]
        assert Searcher.score is not methods[1]
        assert ranking(memx.cwd) == before
    assert (Searcher.search, Searcher.score, Searcher._semantic_text) == methods
    assert len(before) >= 3


@pytest.mark.parametrize("name, value", [("NEIGHBOUR", 0.4), ("LATE", 0.5), ("ROCCHIO", 1.0),
                                         ("PRF_TERMS", 10)])
def test_each_layer_acts(memx: Memx, monkeypatch: pytest.MonkeyPatch, second_pass: object,
                         name: str, value: float) -> None:
    load_store(memx, monkeypatch)
    before = ranking(memx.cwd)
    monkeypatch.setattr(second_pass, name, value)
    with second_pass.installed():  # type: ignore[attr-defined]
        after = ranking(memx.cwd)
    assert after != before
