"""The derived indexes follow the files and do only the work a change needs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memx_cli import embed
from memx_cli.generator.search import Searcher
from memx_cli.store.repo import Repo

from .conftest import Memx


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Texts embedded per encode() call of the bundled model."""
    calls: list[int] = []
    encoder = embed.load_encoder(None)
    original = type(encoder).encode

    def encode(self: object, texts: list[str]) -> object:
        calls.append(len(texts))
        return original(self, texts)  # type: ignore[arg-type]

    monkeypatch.setattr(type(encoder), "encode", encode)
    return calls


def test_keyword_read_then_semantic_search_embeds_only_the_change(
        memx: Memx, repo: Path, counted: list[int]) -> None:
    for i in range(20):
        memx.ok("add", f"filler memory number {i} about topic {i * 7}", "--raw")
    searcher = Searcher(Repo.discover(repo))
    searcher.search("filler", mode="hybrid", record_recalls=False)
    assert sum(counted) >= 20  # first build embeds everything
    memx.ok("add", "the staging database password rotates every Monday", "--raw")
    counted.clear()
    Searcher(Repo.discover(repo)).search("staging", mode="keyword", record_recalls=False)
    manifest = json.loads((repo / ".memx" / "cache" / "manifest.json").read_text())
    assert len(manifest["pending"]) == 1 and manifest["model"] is not None
    hits = Searcher(Repo.discover(repo)).search("how often is the staging password rotated",
                                                mode="hybrid", record_recalls=False).hits
    assert counted == [1, 1]  # the pending memory, then the query
    assert hits[0].doc["content"].startswith("the staging database password")
    assert hits[0].layers["semantic"] > 0.3  # its vector exists and matches
    manifest = json.loads((repo / ".memx" / "cache" / "manifest.json").read_text())
    assert manifest["pending"] == []


def test_unchanged_store_reads_no_memory_file(memx: Memx, repo: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(5):
        memx.ok("add", f"memory {i} on caching layers", "--raw")
    Searcher(Repo.discover(repo)).search("caching", record_recalls=False)
    opened: list[str] = []
    original = Path.read_bytes

    def spy(self: Path) -> bytes:
        opened.append(self.name)
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", spy)
    Searcher(Repo.discover(repo)).search("caching", record_recalls=False)
    assert [n for n in opened if n.endswith(".yaml")] == []
