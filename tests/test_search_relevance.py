"""Issue 25: a calibrated relevance, "nothing relevant" when no result has any, results
that do not depend on --limit, and --explain showing every voice."""

from __future__ import annotations

import json
from typing import Any

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


VOICES = {"keyword", "role", "meaning", "e5", "temporal", "temporal_factor", "graph", "feedback",
          "decay", "relevance"}


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


@pytest.mark.parametrize("query, names", [
    ("where is the GraphQL schema defined?", ["GraphQL"]),
    ("how do I get a Tableau license?", ["Tableau"]),
    ("how do we set up SAML single sign-on for the APIs?", ["SAML", "APIs"]),
    ("how do we publish events to Kafka? Kafka is new here", ["Kafka"]),
    # the opening of a sentence is capitalised whatever the word, a title's period
    # opens none
    ("Deploys fail at night. Who is paged?", []),
    ("would she keep Dr. Seuss books on the shelf?", ["Seuss"]),
    # what a choice asks for is the kind of thing, its answer named otherwise
    ("which PaaS hosts production and how does code get there?", []),
    # two capitals name nothing in particular
    ("is it OK for the OS to do that?", []),
    # an exception is a symptom as seen, a month a time
    ("why do workers throw ConnectionTimeoutError under load in June?", []),
    # other languages capitalise otherwise
    ("Wo trage ich die Versionen neuer Bibliotheken ein?", []),
    ("¿Dónde se guardan las claves secretas de producción?", []),
])
def test_the_names_a_question_asks_about(query: str, names: list[str]) -> None:
    from memx_cli.generator.relevance import subject_names

    assert subject_names(query) == names


def _closest(memx: Memx, query: str) -> dict[str, object]:
    return json.loads(memx.ok("search", query, "--json", "--closest", "--explain"))


def test_a_question_about_a_name_the_store_never_mentions_finds_nothing(big: Memx) -> None:
    """The rest of the question ("who gets paged when ... reports errors") is close to
    the alerting memories by meaning; with a name no memory has, that is no evidence
    (relevance 0.49 before). Control: the same question about a name the store has."""
    absent = _closest(big, "who gets paged when Datadog reports errors?")
    assert absent["relevant"] is False and absent["absent"] == "Datadog"
    for result in absent["results"]:
        layers = result["explain"]["layers"]
        assert layers["subject_absent"] == 1.0 and layers["meaning_relevance"] == 0.0
        assert result["relevance"] == pytest.approx(layers["word_share"], abs=1e-4)
    result = big("search", "who gets paged when Datadog reports errors?")
    assert result.err == "Nothing relevant (--closest lists the closest memories anyway).\n"
    known = _closest(big, "who gets paged when Grafana reports errors?")
    assert known["relevant"] is True and "absent" not in known
    assert known["results"][0]["content"].startswith("Alerts for")
    assert all("subject_absent" not in r["explain"]["layers"] for r in known["results"])
    text = big.ok("search", "who gets paged when Datadog reports errors?", "--closest",
                  "--explain").splitlines()
    assert text[0] == "absent: no memory names 'Datadog'; meaning is no evidence of relevance"
    assert any(line.startswith("    relevance ") and "(absent name)" in line for line in text)
    quiet = big("search", "who gets paged when Datadog reports errors?", "--explain")
    assert quiet.out == ("absent: no memory names 'Datadog'; meaning is no evidence of "
                         "relevance\n")  # why nothing is listed, not the notice alone
    assert quiet.err == "Nothing relevant (--closest lists the closest memories anyway).\n"
    assert result.out == ""  # without --explain: the notice only


def test_a_name_in_tags_only_is_mentioned(big: Memx) -> None:
    big.ok("add", "Errors are collected centrally and grouped by release", "--tag", "sentry")
    assert "absent" not in _closest(big, "who gets paged when Sentry reports errors?")
    assert _closest(big, "who gets paged when Rollbar reports errors?")["absent"] == "Rollbar"


def test_a_texts_words_kept_between_searches_weigh_as_read_anew(big: Memx) -> None:
    """A warm process keeps each result's words (relevance._roots, issue 29) and stems
    them by first letter as queries ask: every query weighs a text as if its words were
    read for it alone, whatever the queries before it stemmed."""
    from memx_cli.generator import relevance
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo
    from memx_cli.textproc import query_terms, stem

    searcher = Searcher(Repo(big.cwd))
    searcher.search("warm up", record_recalls=False)
    [index] = [i for i in searcher.indexes if i.built() and i.lexical.num_docs() > 50]

    def anew(words: relevance.WordEvidence, text: str) -> float:
        present = {stem(t) for t in query_terms(text, keep_stop_words=True)}
        return sum(w for root, w in words.weights.items() if root in present) / words.total

    texts = [act.format(a=area) for area in AREAS[:4] for act in ACTS]
    relevance._ROOTS_SEEN.clear()
    shares = []
    for query in [*QUERIES, "billing retries", "zebra crossing"]:
        words = relevance.WordEvidence(index, query_terms(query))
        for text in texts:
            assert words.share(text) == anew(words, text)
        shares.append([words.share(text) for text in texts])
    assert all(relevance._roots(text) is relevance._roots(text) for text in texts)
    assert any(0.0 < share < 1.0 for share in shares[-2])  # "billing retries": in part
    assert shares[-2] != shares[0]
    assert set(shares[-1]) == {0.0}  # no text holds a zebra


def test_only_the_hits_read_are_judged_and_alike(big: Memx,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: a search judges the relevance of the hits it shows, and of the ranked
    ones in rank order until one is relevant, not of every candidate ranked; each gets
    the relevance, the layers and the verdict that judging every ranked hit gives."""
    from memx_cli.generator.search import Relevance, Searcher
    from memx_cli.store.repo import Repo

    monkeypatch.setenv("MEMX_NOW", "2026-12-01T12:00:00Z")  # scores move with the clock

    class Eager(Searcher):
        """Every ranked hit judged before anything is read of them (as before)."""

        def _relevance(self, hits: Any, *args: Any) -> Relevance:
            judge = super()._relevance(hits, *args)
            judge(hits)
            return judge

    lazy, eager = Searcher(Repo(big.cwd)), Eager(Repo(big.cwd))
    ranked: list[Any] = []
    real_fill = Searcher._fill

    def kept(self: Searcher, hits: Any, *args: Any) -> Any:
        ranked[:] = hits
        return real_fill(self, hits, *args)

    monkeypatch.setattr(Searcher, "_fill", kept)
    unrelated = "what time does the team dinner start"
    unjudged = 0
    for query in [*QUERIES, unrelated, "billing retries"]:
        for mode, limit, closest in [("hybrid", 5, False), ("hybrid", 2, True),
                                     ("keyword", 5, False), ("semantic", 12, True)]:
            options = dict(mode=mode, limit=limit, closest=closest, record_recalls=False)
            got = lazy.search(query, **options)  # type: ignore[arg-type]
            left = ranked[len(got.hits):]
            want = eager.search(query, **options)  # type: ignore[arg-type]
            assert (got.relevant, got.absent) == (want.relevant, want.absent), query
            assert ([(h.id, h.score, h.relevance, h.layers, h.factors) for h in got.hits]
                    == [(h.id, h.score, h.relevance, h.layers, h.factors)
                        for h in want.hits]), (query, mode)
            assert all(h.layers.get("relevance") == h.relevance for h in got.hits)
            if mode == "hybrid" and not closest and got.relevant and len(left) > limit:
                # the control: ranked past what was shown and past the first relevant
                # batch, no hit was judged
                assert all("relevance" not in h.layers for h in left[limit:]), query
                unjudged += len(left) - limit
    assert unjudged > 0
    assert not lazy.search(unrelated, record_recalls=False).relevant
    assert lazy.search(unrelated, closest=True, record_recalls=False).hits


def test_a_searchs_word_weights_are_made_once_per_store(big: Memx,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The e5 voice's coverage and the relevance read the same word weights of a store:
    a hybrid search makes them once (issue 29); the next search makes its own (the
    control: they are the query's, never kept across searches)."""
    from memx_cli.generator import search
    from memx_cli.store.repo import Repo

    made: list[tuple[str, ...]] = []

    class Counted(search.WordEvidence):
        def __init__(self, index: Any, terms: Any):
            made.append(tuple(terms))
            super().__init__(index, terms)

    monkeypatch.setattr(search, "WordEvidence", Counted)
    searcher = search.Searcher(Repo(big.cwd))
    first = searcher.search("why are requests slow", record_recalls=False)
    stores = len([i for i in searcher.indexes if i.built()])
    assert first.hits and stores and len(made) == stores
    assert searcher.search("billing retries", record_recalls=False).hits
    assert len(made) == 2 * stores and made[0] != made[-1]


@pytest.mark.parametrize("query, in_metadata", [("lockfile pnpm", False),
                                                ("pnpm tooling", True)])
def test_the_metadata_part_is_asked_only_when_some_metadata_holds_a_query_word(
        store: Memx, monkeypatch: pytest.MonkeyPatch, query: str, in_metadata: bool) -> None:
    """Issue 29: the metadata field's part of a text score (capped at the text's own)
    needs a second query of the text index; when no memory's tags, tools or entities
    hold a word of the query there is no part, and no second query. The scores are the
    same as with that query asked. Control: "tooling" is a tag, and it is asked."""
    from memx_cli.generator.search import Searcher
    from memx_cli.index.lexical import LexicalIndex
    from memx_cli.store.repo import Repo

    asked: list[list[str]] = []
    real = LexicalIndex.search

    def counted(self: LexicalIndex, terms: Any, weights: Any, *args: Any, **kw: Any) -> Any:
        asked.append([field for field, _ in weights])
        return real(self, terms, weights, *args, **kw)

    monkeypatch.setattr(LexicalIndex, "search", counted)

    def scores() -> list[tuple[str, float]]:
        found = Searcher(Repo(store.cwd)).search(query, mode="keyword",
                                                 record_recalls=False)
        return [(hit.id, round(hit.score, 9)) for hit in found.hits]

    ranked = scores()
    assert ranked
    assert (["meta"] in asked) == in_metadata
    asked.clear()
    monkeypatch.setattr(LexicalIndex, "absent", lambda self, field, terms: False)
    assert scores() == ranked
    assert ["meta"] in asked
