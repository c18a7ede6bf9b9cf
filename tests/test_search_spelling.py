"""Issue 25: words written together or apart ("lockfile" / "lock file", "prerelease" /
"pre-release") are joined by the store's own vocabulary."""

from __future__ import annotations

import json

import pytest

from .conftest import Memx
from .test_search_relevance import _imported

MEMORIES = [
    {"content": "Roll back with heroku releases:rollback v123; the schema is not reverted",
     "tags": ["deploy"]},
    {"content": "The deploy runs database migrations in the release phase first",
     "tags": ["deploy"]},
    {"content": "The deploy script clears the CDN cache by hand every time", "tags": []},
    {"content": "Always commit the lockfile together with package.json", "tags": ["deps"]},
    {"content": "Pre-release builds are tagged with an rc suffix and go to staging only",
     "tags": ["release"]},
    {"content": "A hot fix branch starts from the last release tag", "tags": ["release"]},
    {"content": "Refs use the short commit hash in changelog entries", "tags": ["release"]},
    {"content": "The config file of the linter lives at the repository root", "tags": ["lint"]},
]


@pytest.fixture
def store(memx: Memx) -> Memx:
    return _imported(memx, MEMORIES)


def _results(memx: Memx, query: str) -> list[dict[str, object]]:
    out = json.loads(memx.ok("search", query, "--mode", "keyword", "--json", "--explain",
                             "--limit", "10"))
    results: list[dict[str, object]] = out["results"]
    return results


def test_words_written_apart_find_the_word_written_together(store: Memx) -> None:
    results = _results(store, "lock file")
    assert str(results[0]["content"]).startswith("Always commit the lockfile")
    # control: "file" alone finds the linter's config file first, not the lockfile
    assert str(_results(store, "file")[0]["content"]).startswith("The config file")


@pytest.mark.parametrize(("query", "start"), [("prerelease", "Pre-release builds"),
                                              ("hotfix", "A hot fix branch")])
def test_a_word_written_together_finds_the_words_written_apart(store: Memx, query: str,
                                                               start: str) -> None:
    results = _results(store, query)
    assert results and str(results[0]["content"]).startswith(start)


def test_a_word_is_split_only_where_the_store_writes_its_parts_side_by_side(
        store: Memx) -> None:
    """Control: "refuses" is "ref" + "uses", both words of the store, but never written
    next to each other ("Refs use" is another word), so it stays one word and finds
    nothing."""
    assert _results(store, "refuses") == []
