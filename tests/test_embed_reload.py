"""A long-lived process (the memx server, the MCP server) notices a model that changed on
disk (an upgrade, a retrained local model) and loads it again (issue 15): vectors are
never made by a model other than the one the index believes in."""

from __future__ import annotations

import json
import os
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

from memx_cli import embed
from memx_cli.embed import bundled_model_path, is_loaded, load_encoder

from .conftest import Memx

TEXTS = ["merge conflict in git", "the nightly backup goes to cold storage"]


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embed, "_CACHE", {})


def copied(tmp_path: Path) -> Path:
    dest = tmp_path / "model"
    shutil.copytree(bundled_model_path(), dest)
    return dest


def negate_embeddings(model: Path) -> None:
    """Rewrite model.safetensors with every embedding value's sign flipped (a different
    model of the same shape), as an upgrade replaces the file: new file, renamed in."""
    path = model / "model.safetensors"
    data = bytearray(path.read_bytes())
    size = struct.unpack("<Q", bytes(data[:8]))[0]
    header = json.loads(bytes(data[8:8 + size]))
    changed = 0
    for name, spec in header.items():
        if name == "__metadata__" or name == "weights":
            continue
        start, end = (8 + size + offset for offset in spec["data_offsets"])
        dtype = {"I8": np.int8, "F32": np.float32, "F16": np.float16}[spec["dtype"]]
        values = np.frombuffer(bytes(data[start:end]), dtype=dtype)
        flipped = np.clip(-values.astype(np.float64), np.iinfo(dtype).min if dtype is np.int8
                          else -np.inf, np.iinfo(dtype).max if dtype is np.int8 else np.inf)
        data[start:end] = flipped.astype(dtype).tobytes()
        changed += 1
    staged = model / ".model.safetensors.new"
    staged.write_bytes(bytes(data))
    os.replace(staged, path)


def test_a_changed_model_directory_is_loaded_again(tmp_path: Path) -> None:
    model = copied(tmp_path)
    first = load_encoder(str(model))
    assert load_encoder(str(model)) is first and is_loaded(str(model))
    before = first.encode(TEXTS)
    old_id = first.model_id

    negate_embeddings(model)
    assert not is_loaded(str(model))  # what is loaded is not that model any more
    second = load_encoder(str(model))
    assert second is not first
    assert second.model_id != old_id
    after = second.encode(TEXTS)
    assert all(float(a @ -b) > 0.99 for a, b in zip(after, before))  # the new model's vectors
    assert load_encoder(str(model)) is second  # and kept while unchanged


def test_a_changed_configuration_is_loaded_again(tmp_path: Path) -> None:
    model = copied(tmp_path)
    first = load_encoder(str(model))
    config = json.loads((model / "config.json").read_text())
    config["max_length"] = 4
    (model / "config.json").write_text(json.dumps(config))
    second = load_encoder(str(model))
    assert second is not first and getattr(second, "max_length", None) == 4


def test_the_bundled_model_is_checked_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    model = copied(tmp_path)
    monkeypatch.setattr(embed, "bundled_model_path", lambda: model)
    first = load_encoder(None)
    assert load_encoder("bundled") is first
    old_id = first.model_id
    negate_embeddings(model)
    second = load_encoder(None)
    assert second is not first and second.model_id != old_id


def test_a_model_that_disappears_is_reported_not_served_stale(tmp_path: Path) -> None:
    from memx_cli.errors import ModelUnavailableError

    model = copied(tmp_path)
    load_encoder(str(model))
    shutil.rmtree(model)
    with pytest.raises(ModelUnavailableError):
        load_encoder(str(model))


def test_a_warm_searcher_re_embeds_with_the_new_model(memx: Memx, repo: Path,
                                                       tmp_path: Path) -> None:
    """The server's kind of Searcher (watched store, no scan while nothing changed in
    it) notices the model changed and re-embeds: a memory's own text still finds it
    first, which vectors of the old model against a query of the new could not do."""
    from memx_cli.freshness.journal import Watched, Watcher
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    model = copied(tmp_path)
    # a model location counts only in your own files (config.local.yaml), not the committed one
    (repo / ".memx" / "config.local.yaml").write_text(f"embedding:\n  model: {model}\n")
    facts = ["The nightly backup job writes to the cold storage bucket",
             "Use pnpm, not npm, to install JavaScript dependencies",
             "The staging database is reset every Sunday night"]
    for fact in facts:
        memx.ok("add", "--raw", fact)
    searcher = Searcher(Repo.discover(repo), freshness=Watched(Watcher()))
    try:
        def top(text: str) -> str:
            hits = searcher.search(text, mode="semantic", record_recalls=False).hits
            return str(hits[0].doc["content"])

        assert [top(f) for f in facts] == facts
        [index] = searcher.indexes
        old_id = index.encoder().model_id
        negate_embeddings(model)
        assert [top(f) for f in facts] == facts
        assert index.encoder().model_id != old_id  # the searches used the new model
    finally:
        searcher.freshness.watcher.stop()
