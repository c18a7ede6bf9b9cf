"""The cold path's change check (issue 15): an unchanged store is not stat-ed file by
file, and every way a memory file can change is still seen by the next command."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memx_cli.freshness import quick
from memx_cli.generator.search import Searcher
from memx_cli.index import StoreIndex, sync
from memx_cli.store.files import Store
from memx_cli.store.repo import Repo

from .conftest import Memx, git


def commit(repo: Path, message: str = "memories") -> None:
    git(repo, "add", "-A", ".memx")
    # No memx hooks here: the post-commit job would race the test's own edits.
    git(repo, "-c", "core.hooksPath=/nonexistent", "commit", "-q", "-m", message)


def age(root: Path) -> None:
    """As if every memory file and both folders had last changed ten seconds ago
    (a change check recorded right after a write is racy and not trusted)."""
    old = time.time_ns() - 10 * 10**9
    for directory in (root / "memories", root / "archive"):
        if directory.is_dir():
            for path in directory.iterdir():
                os.utime(path, ns=(old, old))
            os.utime(directory, ns=(old, old))
    if (root.parent / ".git").exists():
        git(root.parent, "update-index", "-q", "--refresh")


@pytest.fixture(autouse=True)
def small_stores_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is off below quick.MIN_FILES files; these stores hold a few."""
    monkeypatch.setattr(quick, "MIN_FILES", 0)


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per full scan of a store's files."""
    calls: list[int] = []
    original = sync.scan

    def counted(store: Store) -> object:
        calls.append(1)
        return original(store)

    monkeypatch.setattr(sync, "scan", counted)
    return calls


def settle(store: Store) -> None:
    """Two reads: the first records what git tracks, the second a trusted stamp."""
    for _ in range(2):
        StoreIndex(store, None).sync(want_vectors=False)


def filled(memx: Memx, repo: Path, committed: bool) -> Store:
    for i in range(4):
        memx.ok("add", f"memory {i} about caching layers", "--raw")
    if committed:
        commit(repo)
    store = Repo.discover(repo).store
    age(store.root)
    settle(store)
    return store


def keyword(repo: Path, query: str) -> list[str]:
    hits = Searcher(Repo.discover(repo)).search(query, mode="keyword",
                                                record_recalls=False).hits
    return [h.doc["content"] for h in hits]


def test_an_unchanged_store_is_not_scanned(memx: Memx, repo: Path,
                                           scans: list[int]) -> None:
    store = filled(memx, repo, committed=True)
    scans.clear()
    assert StoreIndex(store, None).sync(want_vectors=False).touched == 0
    assert keyword(repo, "caching")
    assert scans == []


def test_an_unchanged_uncommitted_store_is_not_scanned(memx: Memx, repo: Path,
                                                       scans: list[int]) -> None:
    filled(memx, repo, committed=False)
    scans.clear()
    assert keyword(repo, "caching") and scans == []


def same_size(path: Path, old: str, new: str) -> None:
    """An edit in place (the file keeps its inode, the folder's time does not move),
    keeping the size, as an editor that writes over the file does."""
    assert len(old) == len(new)
    data = path.read_text()
    with open(path, "r+") as handle:
        handle.write(data.replace(old, new))


def rename_edit(path: Path, old: str, new: str) -> None:
    tmp = path.with_name(".edit.tmp")
    tmp.write_text(path.read_text().replace(old, new))
    os.replace(tmp, path)


@pytest.mark.parametrize("committed", [True, False])
@pytest.mark.parametrize("edit", [same_size, rename_edit])
def test_a_hand_edit_is_seen_by_the_next_command(
        memx: Memx, repo: Path, committed: bool,
        edit: Callable[[Path, str, str], None]) -> None:
    store = filled(memx, repo, committed)
    target = store.files()[1]
    edit(target, "caching", "hashing")
    assert keyword(repo, "hashing") == [store.read_file(target).content]
    # A second edit right after the first, same size, within the same second.
    edit(target, "hashing", "bashing")
    assert keyword(repo, "bashing") == [store.read_file(target).content]
    assert keyword(repo, "hashing") == []


def test_a_second_edit_of_an_uncommitted_change_is_seen(memx: Memx, repo: Path) -> None:
    store = filled(memx, repo, committed=True)
    target = store.files()[2]
    same_size(target, "caching", "hashing")  # git now lists it as modified
    assert keyword(repo, "hashing")
    age(store.root)
    settle(store)
    same_size(target, "hashing", "bashing")
    assert keyword(repo, "bashing") == [store.read_file(target).content]


@pytest.mark.parametrize("committed", [True, False])
def test_a_delete_and_an_archive_move_are_seen(memx: Memx, repo: Path,
                                               committed: bool) -> None:
    store = filled(memx, repo, committed)
    first, second = store.files()[:2]
    content = store.read_file(first).content
    first.unlink()
    assert content not in keyword(repo, "caching")
    age(store.root)
    settle(store)
    store.archive_dir.mkdir(exist_ok=True)
    os.rename(second, store.archive_dir / second.name)
    report = StoreIndex(store, None).sync(want_vectors=False)
    assert (report.added, report.changed, report.removed) == (0, 1, 0)


@pytest.mark.parametrize("how", ["checkout", "merge"])
def test_git_changing_memory_files_is_seen(memx: Memx, repo: Path, how: str) -> None:
    store = filled(memx, repo, committed=True)
    target = store.files()[0]
    git(repo, "checkout", "-q", "-b", "other")
    same_size(target, "caching", "hashing")
    commit(repo, "edit a memory")
    git(repo, "checkout", "-q", "main")
    age(store.root)
    settle(store)
    assert keyword(repo, "hashing") == []
    if how == "checkout":
        git(repo, "checkout", "-q", "other")
    else:
        git(repo, "-c", "core.hooksPath=/nonexistent", "merge", "-q", "--ff-only", "other")
    assert keyword(repo, "hashing") == [store.read_file(target).content]


def test_a_store_outside_git_sees_an_edit_in_place(tmp_path: Path, memx: Memx,
                                                   repo: Path) -> None:
    source = filled(memx, repo, committed=False)
    plain = Store(tmp_path / "plain" / ".memx", "global")
    shutil.copytree(source.memories_dir, plain.memories_dir)
    age(plain.root)
    settle(plain)
    target = plain.files()[3]
    same_size(target, "caching", "hashing")
    report = StoreIndex(plain, None).sync(want_vectors=False)
    assert (report.added, report.changed, report.removed) == (0, 1, 0)


@pytest.mark.parametrize("committed", [True, False])
def test_an_add_after_a_quick_check_scans_nothing_and_keeps_the_fingerprint(
        memx: Memx, repo: Path, committed: bool, scans: list[int]) -> None:
    store = filled(memx, repo, committed)
    scans.clear()
    memx.ok("add", "The nightly backup job writes to the cold storage bucket", "--raw")
    memx.ok("add", "Release branches are cut every second Tuesday", "--raw")
    assert scans == []
    state = json.loads((store.cache_dir / "state.json").read_text())
    assert state["fingerprint"] == sync.scan(store)[1]  # as a full scan would find
    assert keyword(repo, "nightly backup") == [
        "The nightly backup job writes to the cold storage bucket"]


def test_a_copied_repository_checks_its_own_git_index(memx: Memx, repo: Path, tmp_path: Path,
                                                      scans: list[int]) -> None:
    store = filled(memx, repo, committed=True)
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy, symlinks=True)  # new inodes and ctimes, same mtimes
    copied = Repo.discover(copy).store
    settle(copied)
    scans.clear()
    assert keyword(copy, "caching") and scans == []  # git's stat cache still serves
    target = copied.files()[0]
    same_size(target, "caching", "hashing")
    git(copy, "add", str(target))  # clean to git again: only its index moved
    assert keyword(copy, "hashing") == [copied.read_file(target).content]
    assert keyword(repo, "hashing") == [] and store.files()


def test_a_small_store_is_scanned_without_git(memx: Memx, repo: Path, scans: list[int],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quick, "MIN_FILES", 5)
    filled(memx, repo, committed=True)  # four memories
    started: list[list[str]] = []
    monkeypatch.setattr(quick, "_git", lambda args, store: started.append(args))
    scans.clear()
    assert keyword(repo, "caching") and scans == [1] and started == []


@pytest.mark.parametrize("committed", [True, False])
def test_after_an_add_one_reader_scans_and_the_next_does_not(
        memx: Memx, repo: Path, committed: bool, scans: list[int]) -> None:
    store = filled(memx, repo, committed)
    memx.ok("add", "The nightly backup job writes to the cold storage bucket", "--raw")
    age(store.root)  # past the racy window
    scans.clear()
    assert StoreIndex(store, None).sync(want_vectors=False).touched == 0
    assert StoreIndex(store, None).sync(want_vectors=False).touched == 0
    assert scans == [1]  # the add counted its new file as untracked: the basis held
    assert keyword(repo, "nightly backup") == [
        "The nightly backup job writes to the cold storage bucket"]
