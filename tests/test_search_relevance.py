"""Issue 25: a calibrated relevance, "nothing relevant" when no result has any, results
that do not depend on --limit, and --explain showing every voice."""

from __future__ import annotations

import json

import pytest

from .conftest import Memx
from .test_search import FACTS

# A store larger than one ranking's first CANDIDATES (30): the depth of the candidate
# search used to grow with --limit, and with it the set the meaning floor is taken from.
AREAS = ["billing", "search", "deploy", "login", "export", "cache", "queue", "upload",
         "metrics", "backup", "email", "payments"]
ACTS = [
    "The {a} service retries failed requests three times before it gives up",
    "Slow {a} requests were caused by a missing index on the main table",
    "Run make {a}-test before pushing changes to the {a} code",
    "The {a} dashboard lives in Grafana under the team folder",
    "Alerts for {a} page the on-call engineer after five minutes of errors",
    "The {a} module reads its settings from environment variables at start",
    "We moved {a} to its own worker pool to stop it starving web requests",
]
QUERIES = ["why are requests slow", "where do the dashboards live", "who gets paged on errors",
           "how are settings read at start", "retry policy for failed calls",
           "worker pool for background work", "env configuration"]


def _imported(memx: Memx, records: list[dict[str, object]]) -> Memx:
    (memx.cwd / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    memx.ok("import", "--raw", "m.jsonl")
    return memx


@pytest.fixture
def big(memx: Memx) -> Memx:
    return _imported(memx, [{"content": act.format(a=area), "tags": [area]}
                            for area in AREAS for act in ACTS])


@pytest.fixture
def store(memx: Memx) -> Memx:
    """test_search.py's ten developer memories."""
    return _imported(memx, [{"content": text, "tags": tags} for text, tags in FACTS])


def _ids(memx: Memx, query: str, limit: int) -> list[str]:
    out = json.loads(memx.ok("search", query, "--json", "--limit", str(limit)))
    return [r["id"] for r in out["results"]]


def test_results_do_not_depend_on_the_limit(big: Memx) -> None:
    """Property: the first k results of --limit 12 are the results of --limit k."""
    for query in QUERIES:
        longest = _ids(big, query, 12)
        assert longest, query
        for k in (1, 3, 5, 8, 10):
            assert _ids(big, query, k) == longest[:k], (query, k)


@pytest.mark.parametrize("query", ["what time does the team dinner start",
                                   "which wine goes with a main course of fish",
                                   "where did the team go on holiday"])
def test_an_unrelated_question_finds_nothing_relevant(big: Memx, query: str) -> None:
    """Each shares a word or two ("team", "main", "start") with memories of the store:
    that used to list them."""
    result = big("search", query)
    assert (result.code, result.out) == (0, "")
    assert result.err == "Nothing relevant (--closest lists the closest memories anyway).\n"
    data = json.loads(big.ok("search", query, "--json"))
    assert (data["results"], data["relevant"]) == ([], False)
    closest = json.loads(big.ok("search", query, "--json", "--closest"))["results"]
    assert closest and all(r["relevance"] < 0.25 for r in closest)


def test_the_same_store_answers_its_own_questions(big: Memx) -> None:
    for query, start in [("which grafana folder has the billing dashboard", "The billing dash"),
                         ("why are requests slow", "Slow ")]:
        data = json.loads(big.ok("search", query, "--json"))
        assert data["relevant"] is True
        assert data["results"][0]["content"].startswith(start)
        assert data["results"][0]["relevance"] >= 0.25


def test_a_question_the_store_answers_is_relevant(store: Memx) -> None:
    data = json.loads(store.ok("search", "how do I rerun only the tests that failed last time",
                               "--json"))
    assert data["relevant"] is True
    top = data["results"][0]
    assert top["content"].startswith("Run pytest -v --lf")
    assert top["relevance"] >= 0.25


def test_a_tag_alone_does_not_find_a_memory(store: Memx) -> None:
    """Tags help the text without outvoting it: "tooling" is a tag of the pnpm memory and
    in no memory's text, so words find nothing (a tag match counted 4 x a text match),
    and the tag still lifts the memory when its text matches too."""
    assert json.loads(store.ok("search", "tooling", "--mode", "keyword", "--json"))["results"] == []
    both = json.loads(store.ok("search", "pnpm tooling", "--mode", "keyword", "--json",
                               "--explain"))["results"]
    alone = json.loads(store.ok("search", "pnpm", "--mode", "keyword", "--json",
                                "--explain"))["results"]
    assert both[0]["content"].startswith("Use pnpm")
    assert both[0]["explain"]["layers"]["keyword"] > alone[0]["explain"]["layers"]["keyword"]


VOICES = {"keyword", "meaning", "e5", "temporal", "temporal_factor", "graph", "feedback", "decay",
          "relevance"}


@pytest.mark.parametrize("fusion", ["blended", "polyphonic"])
def test_explain_shows_every_voice(store: Memx, fusion: str) -> None:
    store.ok("config", "set", "ace.retrieval.fusion", fusion)
    data = json.loads(store.ok("search", "rerun the failed tests", "--json", "--explain"))
    for result in data["results"]:
        voices = result["explain"]["voices"]
        assert set(voices) == VOICES
        # the blended formula has no temporal or graph voice: said, not hidden
        assert (voices["graph"] is None) == (fusion == "blended")
        assert voices["e5"] is None  # the e5 voice is opt-in (tests/test_search_e5voice.py)
        assert voices["relevance"] == result["relevance"]
    text = store.ok("search", "rerun the failed tests", "--explain").splitlines()
    said = [line for line in text if line.startswith("    voices: ")]
    assert len(said) == len(data["results"])
    assert ("graph off" in said[0]) == (fusion == "blended")
    assert " feedback x1.00, decay x" in said[0]
