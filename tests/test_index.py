"""The derived indexes follow the files and do only the work a change needs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memx_cli import embed
from memx_cli.generator.search import Searcher
from memx_cli.index import StoreIndex
from memx_cli.index.manifest import Manifest
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
    # Changed behind memx (an editor, a merge): memx's own writes index themselves.
    target = sorted((repo / ".memx" / "memories").glob("*.yaml"))[3]
    text = target.read_text()
    target.write_text(text.replace(text.split("content: ", 1)[1].splitlines()[0],
                                   "the staging database password rotates every Monday"))
    counted.clear()
    Searcher(Repo.discover(repo)).search("staging", mode="keyword", record_recalls=False)
    manifest = StoreIndex(Repo.discover(repo).store, None).manifest()
    assert manifest is not None and len(manifest.pending) == 1 and manifest.model is not None
    hits = Searcher(Repo.discover(repo)).search("how often is the staging password rotated",
                                                mode="hybrid", record_recalls=False).hits
    assert counted == [1, 1]  # the pending memory, then the query
    assert hits[0].doc["content"].startswith("the staging database password")
    assert hits[0].layers["semantic"] > 0.3  # its vector exists and matches
    manifest = StoreIndex(Repo.discover(repo).store, None).manifest()
    assert manifest is not None and manifest.pending == []


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


def test_add_indexes_what_it_writes(memx: Memx, repo: Path, counted: list[int]) -> None:
    for i in range(3):
        memx.ok("add", f"filler memory number {i} about topic {i * 7}")
    Searcher(Repo.discover(repo)).search("filler", mode="hybrid", record_recalls=False)
    memx.ok("add", "The nightly backup job writes to the cold storage bucket")
    counted.clear()
    store = Repo.discover(repo).store
    report = StoreIndex(store, None).sync()
    assert (report.touched, report.vectors, counted) == (0, True, [])
    hits = Searcher(Repo.discover(repo)).search("where do nightly backups go",
                                                record_recalls=False).hits
    assert counted == [1]  # the query only: the new memory's vector was there already
    assert hits[0].doc["content"] == "The nightly backup job writes to the cold storage bucket"


def test_raw_add_indexes_text_without_loading_the_model(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memx.ok("add", "filler memory about caching layers", "--raw")
    Searcher(Repo.discover(repo)).search("caching", mode="keyword", record_recalls=False)
    monkeypatch.setattr(embed, "_CACHE", {})  # as in a fresh `memx add --raw` process
    memx.ok("add", "The release branch is cut every second Tuesday", "--raw")
    assert embed._CACHE == {}
    store = Repo.discover(repo).store
    assert StoreIndex(store, None).sync(want_vectors=False).touched == 0
    manifest = StoreIndex(store, None).manifest()
    assert manifest is not None and manifest.pending == [] and manifest.model is None


def test_add_to_a_store_never_indexed_builds_no_index(memx: Memx, repo: Path) -> None:
    memx.ok("add", "The release branch is cut every second Tuesday")
    assert not (repo / ".memx" / "cache" / "state.json").exists()


def test_sync_written_agrees_with_a_full_scan(memx: Memx, repo: Path) -> None:
    for i in range(4):
        memx.ok("add", f"memory {i} on caching layers", "--raw")
    store = Repo.discover(repo).store
    index = StoreIndex(store, None)
    index.sync(want_vectors=False)
    first, second, third = (store.read_file(p) for p in store.files()[:3])
    store.write(first.replace(content="Caching layers expire after ten minutes"))
    report = index.sync_written([first.id], want_vectors=False)
    assert (report.added, report.changed, report.removed) == (0, 1, 0)
    assert StoreIndex(store, None).sync(want_vectors=False).touched == 0

    # A file edited behind memx at the same time is still seen by the next scan.
    path = store.path_for(second.id)
    path.write_text(path.read_text().replace("memory 1", "memory one"))
    store.remove(third.id)
    report = index.sync_written([third.id], want_vectors=False)
    assert (report.changed, report.removed) == (0, 1)
    report = StoreIndex(store, None).sync(want_vectors=False)
    assert (report.added, report.changed, report.removed) == (0, 1, 0)
    hits = Searcher(Repo.discover(repo)).search("memory one", mode="keyword",
                                                record_recalls=False).hits
    assert [h.id for h in hits][:1] == [second.id] and third.id not in {h.id for h in hits}


def test_a_warm_searcher_sees_what_another_writer_indexed(memx: Memx, repo: Path) -> None:
    memx.ok("add", "filler memory about caching layers")
    searcher = Searcher(Repo.discover(repo))  # as the MCP server holds it
    assert searcher.search("caching", record_recalls=False).hits
    memx.ok("add", "The nightly backup job writes to the cold storage bucket")
    memx.ok("search", "backup bucket")  # another process brings the index up to date
    hits = searcher.search("nightly backup bucket", record_recalls=False).hits
    assert [h.doc["content"] for h in hits][:1] == [
        "The nightly backup job writes to the cold storage bucket"]


def test_an_update_after_one_write_reads_only_its_rows(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(6):
        memx.ok("add", f"memory {i} on caching layers", "--raw")
    store = Repo.discover(repo).store
    index = StoreIndex(store, None)
    index.sync(want_vectors=False)
    first = store.read_file(store.files()[0])
    index._manifest = None  # as in a fresh `memx add` process after its first check
    whole: list[int] = []
    original = Manifest.files

    def spy(self: Manifest) -> object:
        whole.append(1)
        return original.fget(self)  # type: ignore[attr-defined]

    monkeypatch.setattr(Manifest, "files", property(spy))
    store.write(first.replace(content="Caching layers expire after ten minutes"))
    report = index.sync_written([first.id], want_vectors=False)
    assert (report.added, report.changed, report.removed, whole) == (0, 1, 0, [])
    assert StoreIndex(store, None).sync(want_vectors=False).touched == 0


def test_a_json_manifest_of_an_earlier_memx_is_moved_into_sqlite(
        memx: Memx, repo: Path, counted: list[int]) -> None:
    for i in range(3):
        memx.ok("add", f"filler memory number {i} about topic {i * 7}")
    Searcher(Repo.discover(repo)).search("filler", mode="hybrid", record_recalls=False)
    cache = repo / ".memx" / "cache"
    manifest = StoreIndex(Repo.discover(repo).store, None).manifest()
    assert manifest is not None
    (cache / "manifest.json").write_text(json.dumps({  # the layout memx wrote before
        "index_version": manifest.index_version, "schema": manifest.schema,
        "model": manifest.model, "pending": [], "pending_removed": [],
        "files": {k: list(v)[:5] for k, v in manifest.files.items()}}))  # no time then
    manifest.close()
    for name in ("manifest.db", "manifest.db-wal", "manifest.db-shm"):
        (cache / name).unlink(missing_ok=True)
    counted.clear()
    result = memx("search", "filler topic", "--json")
    assert (result.code, result.err) == (0, "")
    assert counted == [1]  # the query: nothing re-embedded, nothing rebuilt
    counted.clear()
    memx.ok("add", "The nightly backup job writes to the cold storage bucket", "--raw")
    assert (cache / "manifest.db").exists() and not (cache / "manifest.json").exists()
    hits = Searcher(Repo.discover(repo)).search("nightly backups", mode="hybrid",
                                                record_recalls=False).hits
    assert counted == [1, 1]  # the new memory, then the query: the rest was kept
    assert hits[0].doc["content"].startswith("The nightly backup job")


def test_a_group_members_row_holds_its_time_and_an_older_manifest_is_rebuilt(
        tmp_path: Path) -> None:
    """Issue 29: a member of a source group has its time in its manifest row (its
    group's order, without the text index's documents); a memory outside a group has
    none. A manifest of the layout before (index version 5, no time) is not used."""
    from memx_cli.index.manifest import INDEX_VERSION, FileState

    path = tmp_path / "manifest.db"
    manifest = Manifest.create(path)
    turn = FileState(1, 10, "d1", False, "transcript:s1", "2026-05-01T10:00:00Z")
    alone = FileState(2, 20, "d2", True, None)
    manifest.write({"a" * 26: turn, "b" * 26: alone}, ())
    manifest.complete = True
    manifest.write({}, ())
    manifest.close()
    again = Manifest.load(path)
    assert again is not None and again.compatible()
    assert again.rows(["a" * 26, "b" * 26]) == {"a" * 26: turn, "b" * 26: alone}
    assert again.members(["transcript:s1"]) == {"a" * 26: turn}
    assert again.files["b" * 26].created is None
    again.index_version = INDEX_VERSION - 1  # what the memx before wrote
    again.write({}, ())
    again.close()
    older = Manifest.load(path)
    assert older is not None and not older.compatible()
