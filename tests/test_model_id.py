"""A model is identified by its content: reinstalling the same model re-embeds nothing,
a different one re-embeds everything (issue 15)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memx_cli import embed
from memx_cli.index import StoreIndex
from memx_cli.index.model_id import identity
from memx_cli.store.repo import Repo

from .conftest import Memx


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Texts embedded per encode() call."""
    calls: list[int] = []
    original = type(embed.load_encoder(None)).encode

    def encode(self: object, texts: list[str]) -> object:
        calls.append(len(texts))
        return original(self, texts)  # type: ignore[arg-type]

    monkeypatch.setattr(type(embed.load_encoder(None)), "encode", encode)
    return calls


def install(model: Path) -> None:
    """A fresh copy of the bundled model: same bytes, new files (times, inodes)."""
    shutil.rmtree(model, ignore_errors=True)
    shutil.copytree(embed.bundled_model_path(), model, copy_function=shutil.copyfile)


def test_reinstalling_the_same_model_embeds_nothing(memx: Memx, repo: Path, tmp_path: Path,
                                                    counted: list[int]) -> None:
    model = tmp_path / "site" / "model"
    install(model)
    for i in range(3):
        memx.ok("add", f"memory {i} about the deploy pipeline", "--raw")
    store = Repo.discover(repo).store
    assert StoreIndex(store, str(model)).sync().vectors
    assert sum(counted) == 3
    counted.clear()
    before = (model / "model.safetensors").stat()
    install(model)
    after = (model / "model.safetensors").stat()
    assert (before.st_mtime_ns, before.st_ino) != (after.st_mtime_ns, after.st_ino)
    report = StoreIndex(store, str(model)).sync()
    assert (report.touched, report.vectors, counted) == (0, True, [])

    # Another model (here: a changed config) is another identity: everything again.
    config = model / "config.json"
    config.write_text(config.read_text() + "\n")
    assert StoreIndex(store, str(model)).sync().vectors
    assert sum(counted) == 3


def test_the_identity_is_cached_by_file_stat(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "model"
    install(model)
    cache = tmp_path / "cache" / "model.json"
    first = identity(model, cache)
    assert first is not None and first.startswith("sha256:")
    read: list[str] = []
    original = Path.read_bytes

    def spy(self: Path) -> bytes:
        read.append(self.name)
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", spy)
    assert identity(model, cache) == first
    assert read == ["model.json"]  # the cache only, not the weights
    install(model)
    assert identity(model, cache) == first
    assert "model.safetensors" in read
    (model / "model.safetensors").unlink()
    assert identity(model, cache) is None
