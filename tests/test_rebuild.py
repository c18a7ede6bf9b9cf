"""The full rebuild streams the store in batches (issue 15) and builds the same indexes
as one batch does: the same manifest, the same text documents and scores, the same
vectors, whatever batch a memory's neighbours fall in."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memx_cli import embed
from memx_cli.index import StoreIndex, memory_key, rebuild
from memx_cli.index.manifest import Manifest
from memx_cli.store.repo import Repo

from .conftest import Memx

QUERIES = [["pool"], ["staging", "password"], ["flaky"], ["owner", "team"]]


def _fill(memx: Memx, repo: Path) -> list[str]:
    rows = []
    for i in range(61):
        record = {"content": f"note {i}: the {['pool', 'staging password', 'flaky test'][i % 3]}"
                             f" of owner team {i % 5}", "tags": [f"t{i % 4}"],
                  "created_at": f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z"}
        if i % 2:  # every other memory is a turn of one of three sessions
            record["source"] = {"type": "transcript", "session": f"s{i % 3}"}
        rows.append(json.dumps(record))
    (repo / "records.jsonl").write_text("\n".join(rows))
    memx.ok("import", "--raw", str(repo / "records.jsonl"))
    (repo / ".memx" / "memories" / "01broken0000000000000000.yaml").write_text("content: [\n")
    return sorted(p.stem for p in (repo / ".memx" / "memories").glob("*.yaml"))


def _snapshot(root: Path, ids: list[str]) -> tuple[object, ...]:
    index = StoreIndex(Repo.discover(root).store, None)
    report = index.sync(full=True)
    manifest = Manifest.load(root / ".memx" / "cache" / "manifest.db")
    assert manifest is not None
    keys = [memory_key(i) for i in ids]
    vectors = index.vectors.get(keys)
    docs = index.lexical.fetch(keys)
    scores = [index.lexical.search(q, [("stem", 1.0), ("context", 0.5), ("meta", 1.0)], 100,
                                   False) for q in QUERIES]
    encoder = embed.load_encoder(None)
    near = [index.vectors.search(encoder.encode([" ".join(q)])[0], 10) for q in QUERIES]
    return (report.added, report.problems, manifest.files, manifest.model,
            {k: v.tolist() for k, v in vectors.items()}, docs, scores, near)


def test_batches_build_what_one_batch_builds(memx: Memx, repo: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _fill(memx, repo)
    whole = _snapshot(repo, ids)
    # every valid file added; the broken one is a problem only (walk16), its manifest row kept
    assert whole[0] == 61 and len(whole[1]) == 1
    assert len(whole[4]) == 61  # type: ignore[arg-type]  # a vector per valid memory
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy, symlinks=True)
    monkeypatch.setattr(rebuild, "BATCH", 4)  # sessions span many batches
    assert _snapshot(copy, ids) == whole


def test_parsing_in_worker_processes_builds_the_same(memx: Memx, repo: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _fill(memx, repo)
    whole = _snapshot(repo, ids)
    monkeypatch.setattr(rebuild, "BATCH", 5)
    monkeypatch.setattr(rebuild, "PARALLEL_FROM", 10)
    monkeypatch.setattr(rebuild, "_idle_cores", lambda: 2)
    assert _snapshot(repo, ids) == whole


def test_manifest_rows_are_written_a_batch_at_a_time(memx: Memx, repo: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15 (the 1M peak): no dict of every file's entry until the end."""
    ids = _fill(memx, repo)
    monkeypatch.setattr(rebuild, "BATCH", 4)
    sizes: list[int] = []
    real = Manifest.write

    def spy(self: Manifest, upserts: dict[str, object], deletes: object) -> None:
        sizes.append(len(upserts))
        real(self, upserts, deletes)  # type: ignore[arg-type]

    monkeypatch.setattr(Manifest, "write", spy)
    report = StoreIndex(Repo.discover(repo).store, None).sync(full=True)
    # every file has its manifest row; the broken one is a problem, not added (walk16)
    assert report.added == len(ids) - 1 and sum(sizes) == len(ids)
    assert max(sizes) == 4 and len(sizes) == 17  # 16 batches, then the model
    manifest = Manifest.load(repo / ".memx" / "cache" / "manifest.db")
    assert manifest is not None and sorted(manifest.files) == ids
