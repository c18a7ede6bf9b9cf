"""``Store.more_than``: whether a store holds more memory files than a bound, reading its
folder only up to that bound (the Curator asks it on every write, issue 15: listing
every name cost ~20 ms at 10k memories and grew with the store)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memx_cli.errors import StoreError
from memx_cli.store.files import Store


def test_counts_memory_files_only(tmp_path: Path) -> None:
    store = Store(tmp_path / ".memx", "project")
    assert not store.more_than(0)  # no folder yet
    store.memories_dir.mkdir(parents=True)
    for name in ("a.yaml", "b.yaml", "c.yaml", ".d.yaml.swp", ".e.yaml", "notes.txt"):
        (store.memories_dir / name).write_text("x")
    (store.archive_dir).mkdir()
    (store.archive_dir / "f.yaml").write_text("x")
    assert [store.more_than(n) for n in range(5)] == [True, True, True, False, False]
    assert store.more_than(2) == (len(store.ids()) > 2)


def test_a_file_in_place_of_the_folder_is_the_stores_error(tmp_path: Path) -> None:
    store = Store(tmp_path / ".memx", "project")
    store.root.mkdir()
    store.memories_dir.write_text("")
    with pytest.raises(StoreError, match="is a file, not a directory"):
        store.more_than(10)
