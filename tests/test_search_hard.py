"""Issue 16: multi-hop, temporal and inference questions over a small developer store
(tests/data/hard_questions.json, written before retrieval changed). Each memory is a
transcript turn dated with its session, imported as a transcript ingest stores it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Memx

DATA = json.loads((Path(__file__).parent / "data" / "hard_questions.json").read_text())
TOP = 5


def load_store(memx: Memx, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Import the memories; returns content -> memory number."""
    lines = [json.dumps({"content": text, "created_at": DATA["sessions"][session],
                         "source": {"type": "transcript", "session": session}})
             for session, text in DATA["memories"]]
    path = memx.cwd / "hard.jsonl"
    path.write_text("\n".join(lines) + "\n")
    memx.ok("import", "--raw", str(path))
    monkeypatch.setenv("MEMX_NOW", DATA["asked_at"])
    return {text: number for number, (_, text) in enumerate(DATA["memories"])}


def found(memx: Memx, numbers: dict[str, int], query: str) -> list[int]:
    out = json.loads(memx.ok("search", query, "--json", "--limit", str(TOP)))
    return [numbers[r["content"]] for r in out["results"]]


def passed(memx: Memx, numbers: dict[str, int], cases: list[dict]) -> list[bool]:
    return [set(case["gold"]) <= set(found(memx, numbers, case["q"])) for case in cases]


def test_hard_questions(memx: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blind (before the date layer): 8 of 10. Now 9: "What did we change in April
    2026?" finds April's memories by their date. Still missed: the pooler question,
    whose evidence shares no word and no name with it ("payments service" links the
    two memories; nothing in memx follows that)."""
    numbers = load_store(memx, monkeypatch)
    outcome = passed(memx, numbers, DATA["cases"])
    for case, ok in zip(DATA["cases"], outcome, strict=True):
        print(f"{'PASS' if ok else 'fail'} {case['kind']:10} {case['q']}")
    assert outcome == [False] + [True] * 9


def test_hard_questions_held_out(memx: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = load_store(memx, monkeypatch)
    outcome = passed(memx, numbers, DATA["heldout"])
    for case, ok in zip(DATA["heldout"], outcome, strict=True):
        print(f"{'PASS' if ok else 'fail'} {case['kind']:10} {case['q']}")
    assert outcome == [True] * 4  # measured once, at the end: 4 of 4


def test_a_clearly_best_match_under_the_noise_level_is_kept(
        memx: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 16: no fixed floor empties the list while a clearly best candidate exists.
    "babies" shares no word with any memory and every cosine is under 0.2, the noise
    level, but the parental-leave memory stands far above the rest (cosine 0.15, the
    next 0.05): it is the result. Nonsense words bring nothing."""
    from memx_cli.generator.candidates import NOISE_COSINE

    numbers = load_store(memx, monkeypatch)
    out = json.loads(memx.ok("search", "babies", "--json", "--explain"))
    assert [numbers[r["content"]] for r in out["results"]] == [21]
    assert out["results"][0]["explain"]["layers"]["semantic"] < NOISE_COSINE
    for query in ("xylophone quartz", "banana bread recipe"):
        assert found(memx, numbers, query) == [], query
