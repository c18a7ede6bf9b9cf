"""A long-lived Searcher keeps what its index reads found (index/lexical.py ``Seen``) and
its recall log open (store/recall_live.py): it must answer exactly as a fresh Searcher
does, before and after hand edits, moves and deletions of memory files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memx_cli.generator.search import Searcher
from memx_cli.index import lexical
from memx_cli.store.repo import Repo

from .conftest import Memx

FACTS = [
    "The nightly build publishes wheels to the internal mirror",
    "Run pytest with -n auto to use every core on the build machine",
    "The deploy script needs the KUBECONFIG of the staging cluster",
    "Wheels for the nightly build are signed with the release key",
    "Use pnpm, not npm, for the web client",
]
QUERIES = ["nightly build wheels", "how do we deploy to staging", "pytest cores"]


@pytest.fixture(autouse=True)
def _pinned_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scores carry recency and decay, which move with the clock's second: two searches
    compared score for score must see the same moment (a slow run crossed a second)."""
    monkeypatch.setenv("MEMX_NOW", "2026-12-01T12:00:00Z")


@pytest.fixture
def warm(memx: Memx, repo: Path) -> Iterator[Searcher]:
    """A watched Searcher, as the memx and MCP servers hold one, over five memories."""
    from memx_cli.freshness.journal import Watched, Watcher

    for fact in FACTS:
        memx.ok("add", "--raw", fact)
    watcher = Watcher()
    try:
        searcher = Searcher(Repo(repo), freshness=Watched(watcher))
        yield searcher
    finally:
        watcher.stop()


def _answer(searcher: Searcher, query: str, record: bool = False) -> list[tuple[Any, ...]]:
    result = searcher.search(query, mode="hybrid", record_recalls=record)
    return [(h.id, round(h.score, 9), h.doc) for h in result.hits]


def _fresh(repo: Path, query: str) -> list[tuple[Any, ...]]:
    return _answer(Searcher(Repo(repo)), query)


def _file_of(repo: Path, text: str) -> Path:
    for path in (repo / ".memx" / "memories").glob("*.yaml"):
        if text in path.read_text(encoding="utf-8"):
            return path
    raise AssertionError(f"no memory file holds {text!r}")


def test_warm_answers_equal_fresh_ones_after_hand_edits(warm: Searcher, repo: Path) -> None:
    for query in QUERIES:  # fill the caches, counting recalls as a server does
        _answer(warm, query, record=True)
        assert _answer(warm, query) == _fresh(repo, query)

    path = _file_of(repo, "signed with the release key")
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("signed with the release key",
                                 "signed with the hardware token"), encoding="utf-8")
    answer = _answer(warm, "nightly build wheels")
    assert answer == _fresh(repo, "nightly build wheels")
    assert any("hardware token" in doc["content"] for _, _, doc in answer)
    assert not any("release key" in doc["content"] for _, _, doc in answer)

    # Tags changed in place, same file name: the stored document must follow.
    text = path.read_text(encoding="utf-8")
    assert "tags:" not in text
    path.write_text(text.replace("kind: fact\n", "kind: fact\ntags:\n- signing\n"),
                    encoding="utf-8")
    answer = _answer(warm, "nightly build wheels")
    assert answer == _fresh(repo, "nightly build wheels")
    assert [doc.get("tags") for _, _, doc in answer if "token" in doc["content"]] == [
        ["signing"]]

    gone = _file_of(repo, "publishes wheels")
    gone.unlink()
    for query in QUERIES:
        answer = _answer(warm, query)
        assert answer == _fresh(repo, query)
        assert all("publishes wheels" not in doc["content"] for _, _, doc in answer)


def test_a_repeated_search_decodes_no_document_again(warm: Searcher, repo: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    decoded: list[int] = []
    real = lexical.Seen._decode

    def counted(self: lexical.Seen, key: int, raw: Any) -> dict[str, Any]:
        decoded.append(key)
        return real(self, key, raw)

    monkeypatch.setattr(lexical.Seen, "_decode", counted)
    first = _answer(warm, "nightly build wheels")
    assert decoded  # the first search read its candidates' documents
    decoded.clear()
    assert _answer(warm, "nightly build wheels") == first
    assert decoded == []
    # An edit is a new index view: its documents are read anew.
    path = _file_of(repo, "signed with the release key")
    path.write_text(path.read_text(encoding="utf-8").replace("release key", "hardware token"),
                    encoding="utf-8")
    assert _answer(warm, "nightly build wheels") != first
    assert decoded


def test_returned_documents_are_the_callers_own(warm: Searcher) -> None:
    first = warm.search("nightly build wheels", record_recalls=False).hits
    first[0].doc["content"] = "changed by the caller"
    again = warm.search("nightly build wheels", record_recalls=False).hits
    assert again[0].id == first[0].id
    assert again[0].doc["content"] != "changed by the caller"


def test_short_ids_from_the_manifest_equal_those_from_every_file(memx: Memx,
                                                                 repo: Path) -> None:
    from memx_cli.store.ids import abbreviate

    memx.ok("add", "--raw", "The nightly build publishes wheels to the mirror")
    memx.ok("add", "--raw", "Use pnpm, not npm, for the web client")
    folder = repo / ".memx" / "memories"
    original = _file_of(repo, "publishes wheels")
    first = original.stem
    text = original.read_text(encoding="utf-8")
    # Look-alikes sharing 14 and 20 leading characters with it (hand-copied files).
    for keep in (14, 20):
        # Differ exactly at position ``keep``, so the shared prefix is exactly ``keep`` long.
        other = "0" if first[keep] != "0" else "1"
        twin = first[:keep] + other + first[keep + 1:]
        (folder / f"{twin}.yaml").write_text(text.replace(first, twin), encoding="utf-8")
    every = [p.stem for p in folder.glob("*.yaml")]
    expected = abbreviate(every)
    printed = [line.split()[0] for line in memx.ok("search", "nightly wheels mirror").splitlines()
               if line and not line.startswith(" ")]
    assert len(printed) == 3
    assert sorted(printed) == sorted(expected[i] for i in every if "pnpm" not in
                                     (folder / f"{i}.yaml").read_text(encoding="utf-8"))
    assert max(map(len, printed)) == 21  # the twin sharing 20 characters needs 21


def test_keys_without_the_fast_field_reader_are_read_from_the_documents(
        warm: Searcher) -> None:
    """tantivy before 0.26 has no ``fast_field_values``: the keys then come from the
    stored documents, and must be the same."""
    import tantivy

    [index] = warm.indexes
    warm.search("nightly build wheels", record_recalls=False)  # builds the index
    searcher = index.lexical.searcher()
    hits = searcher.search(tantivy.Query.all_query(), 10).hits
    addresses = [address for _, address in hits]

    class Older:  # the real searcher, as an older tantivy shows it
        def doc(self, address: Any) -> Any:
            return searcher.doc(address)

    assert not hasattr(Older(), "fast_field_values")
    expected = lexical.Seen().keys(searcher, addresses)
    assert len(set(expected)) == len(FACTS)
    assert lexical.Seen().keys(Older(), addresses) == expected


def test_decay_curves_follow_the_configuration_read(warm: Searcher, memx: Memx, repo: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A Searcher makes its decay curves once per configuration it reads (issue 29): a
    repository whose configuration was read again decays with the new half-life."""
    monkeypatch.setenv("MEMX_NOW", "2028-06-01T12:00:00Z")  # old enough to decay

    def decay(searcher: Searcher) -> dict[str, float]:
        hits = searcher.search("nightly build wheels", record_recalls=False).hits
        return {h.id: h.factors["decay"] for h in hits}

    before = decay(warm)
    assert before and all(0.0 < d < 1.0 for d in before.values())
    assert decay(warm) == before
    memx.ok("config", "set", "ace.decay.half_life", "7")
    assert decay(warm) == before  # the same Repo: its configuration as first read
    warm.repo = Repo(repo)
    after = decay(warm)
    assert after == decay(Searcher(Repo(repo)))
    assert any(after[i] < before[i] for i in after.keys() & before.keys())
