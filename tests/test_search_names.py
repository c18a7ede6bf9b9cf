"""Names written together (camelCase, PascalCase) found by the words of a question, and
still first when typed whole (issue 25), on a real store and index."""

from __future__ import annotations

import json

import pytest

from memx_cli import textproc
from memx_cli.generator import search

from .conftest import Memx, explained, import_texts

STORE = [
    "Run ./gradlew compileDevDebugKotlin to type-check the dev flavour without packaging",
    "Components get server state through useQueryClient from the api package",
    "Partner invoices are read by XMLStreamParser in constant memory",
    # near-misses: the same words said apart, or the name's neighbours
    "A query on the invoices table needs the tenant id; the client sends it in a header",
    "The release bundle is signed in CI with the upload key",
    "Dark mode follows the system setting unless the user picked a theme",
    "Logs go to stderr as JSON when stderr is not a terminal",
    "Feature flags are read at start and cached for a minute",
]


@pytest.fixture
def store(memx: Memx) -> Memx:
    return import_texts(memx, STORE)


def _keyword(memx: Memx, query: str) -> list[dict]:
    return explained(memx, query, "--mode", "keyword")


@pytest.mark.parametrize("query, answer", [
    ("which task compiles the debug kotlin code", 0),
    ("the xml stream parser", 2),
])
def test_a_question_in_words_finds_the_name(store: Memx, query: str, answer: int) -> None:
    found = _keyword(store, query)
    assert found[0]["content"] == STORE[answer]
    # the name's words are stemmed words of the memory (L2), not its words as written
    layers = found[0]["explain"]["layers"]
    assert layers["fuzzy"] > 0
    # hybrid: relevant (its words count), not "nothing relevant"
    hybrid = json.loads(store.ok("search", query, "--json"))["results"]
    assert hybrid[0]["content"] == STORE[answer]


def test_without_the_words_of_names_the_question_misses(
        memx: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: an index made without the names' words."""
    monkeypatch.setattr(textproc, "with_name_words", lambda text: text)
    import_texts(memx, STORE)
    found = _keyword(memx, "which task compiles the debug kotlin code")
    assert not found or found[0]["content"] != STORE[0]


def test_the_name_typed_whole_ranks_its_memory_first(store: Memx) -> None:
    """The memory that says "query" and "client" apart shares the name's words; the one
    that names it wins, as before: the whole name is held in L1 and L2."""
    found = _keyword(store, "useQueryClient")
    assert found[0]["content"] == STORE[1]
    assert found[0]["explain"]["layers"]["exact"] > 0
    # held whole by the store, the query's name is not searched by its words: the
    # memory that says them apart is not a result
    assert all(r["content"] != STORE[3] for r in found)


def test_a_name_the_store_lacks_is_searched_by_its_words(
        store: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    query = "where is the InvoicesTableQuery"
    found = _keyword(store, query)
    assert found[0]["content"] == STORE[3]
    # the control: the query's names not split
    monkeypatch.setattr(search, "joined_names", lambda text: [])
    assert all(r["content"] != STORE[3] for r in _keyword(store, query))


def test_explain_shows_the_words_of_the_name(store: Memx) -> None:
    found = explained(store, "debug kotlin compile")
    assert found[0]["content"] == STORE[0]
    assert found[0]["explain"]["layers"]["word_share"] == pytest.approx(1.0)
