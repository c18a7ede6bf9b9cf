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


REAL_MIN_FILES = quick.MIN_FILES  # as memx processes started by a test have it


@pytest.fixture(autouse=True)
def small_stores_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is off below quick.MIN_FILES files; these stores hold a few."""
    monkeypatch.setattr(quick, "MIN_FILES", 0)


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per full scan of a store's files."""
    calls: list[int] = []
    original = sync.scan

    def counted(store: Store, linked: set[str] | None = None) -> object:
        calls.append(1)
        return original(store, linked)

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
def test_after_files_change_one_reader_scans_and_the_next_does_not(
        memx: Memx, repo: Path, committed: bool, scans: list[int]) -> None:
    store = filled(memx, repo, committed)
    memx.ok("add", "The nightly backup job writes to the cold storage bucket", "--raw")
    age(store.root)  # every time moved: the add's stamp no longer holds
    scans.clear()
    assert StoreIndex(store, None).sync(want_vectors=False).touched == 0
    assert StoreIndex(store, None).sync(want_vectors=False).touched == 0
    assert scans == [1]  # the add counted its new file as untracked: the basis held
    assert keyword(repo, "nightly backup") == [
        "The nightly backup job writes to the cold storage bucket"]


BACKUP = "The nightly backup job writes to the cold storage bucket"


@pytest.mark.parametrize("committed", [True, False])
@pytest.mark.parametrize("ace", [False, True])
def test_an_add_leaves_a_stamp_the_next_reader_trusts(
        memx: Memx, repo: Path, committed: bool, ace: bool, scans: list[int],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: a write that updates the index records what it changed, so the next
    command does not stat every file (before: every write left no stamp)."""
    from memx_cli import curator

    # A store with a stamp has 2,000 files or more: the Curator checks it through the
    # index, as past SMALL_STORE here.
    monkeypatch.setattr(curator, "SMALL_STORE", 0)
    # The next command of a user comes later than the racy window after the write (a
    # time that recent is not trusted); in one process it comes at once.
    monkeypatch.setattr(quick, "RACY_NS", 0)
    store = filled(memx, repo, committed)
    scans.clear()
    memx.ok("add", BACKUP, *([] if ace else ["--raw"]))
    state = json.loads((store.cache_dir / "state.json").read_text())
    assert state["quick"] is None and state["written"]["ours"]  # for the next reader
    assert state["fingerprint"] == sync.scan(store)[1]  # as a full scan would find
    scans.clear()
    assert keyword(repo, "nightly backup") == [BACKUP]
    state = json.loads((store.cache_dir / "state.json").read_text())
    assert state["quick"] is not None and "written" not in state  # that reader recorded
    assert StoreIndex(store, None).sync(want_vectors=False).touched == 0
    assert scans == []


def foreign_new(store: Store) -> str:
    """Another program adds a memory file (a copy from elsewhere, a checkout)."""
    from memx_cli.store.ids import new_id

    source = store.read_file(store.files()[0])
    mem = source.replace(id=new_id(), content="Someone else wrote about hashing rings")
    Store.write(store, mem)  # the store's own bytes, outside this write
    return mem.content


def foreign_edit(store: Store) -> str:
    """An editor saves over a memory file in place (same size: only its time moves)."""
    target = store.files()[0]
    same_size(target, "caching", "hashing")
    return store.read_file(target).content


def foreign_delete(store: Store) -> str:
    store.files()[0].unlink()
    return ""


@pytest.mark.parametrize("committed", [True, False])
@pytest.mark.parametrize("change", [foreign_new, foreign_edit, foreign_delete])
@pytest.mark.parametrize("during", [True, False])
def test_a_change_by_someone_else_during_a_write_is_never_stamped_over(
        memx: Memx, repo: Path, committed: bool, change: Callable[[Store], str],
        during: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file changed behind memx between the look before a write and the next
    command is not vouched for by what the write left: that command sees it. (Without
    the racy margin: a change this soon after the write is refused for its time alone,
    which would hide what the check itself does.)"""
    monkeypatch.setattr(quick, "RACY_NS", 0)
    store = filled(memx, repo, committed)
    before = {c for c in (store.read_file(p).content for p in store.files())}
    original = Store.write_many
    done: list[str] = []

    def then_someone_else(self: Store, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        if not done:
            done.append(change(self))

    if during:  # between the write's look and its index update
        monkeypatch.setattr(Store, "write_many", then_someone_else)
    memx.ok("add", BACKUP, "--raw")
    monkeypatch.setattr(Store, "write_many", original)
    if not during:  # after the write, before the next command
        assert json.loads((store.cache_dir / "state.json").read_text())["written"]
        change(store)
    now = {c for c in (store.read_file(p).content for p in store.files())}
    assert now != before | {BACKUP}  # the change happened
    found = set(keyword(repo, "caching")) | set(keyword(repo, "hashing")) | set(
        keyword(repo, "nightly backup"))
    assert found == now


def test_a_file_changed_before_a_write_is_seen_by_the_next_reader(
        memx: Memx, repo: Path, scans: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """A file changed behind memx before a write (the recorded stamp no longer held):
    the write's claim does not hold either, and the next reader scans and sees both."""
    monkeypatch.setattr(quick, "RACY_NS", 0)  # the reader trusts recent times: the claim
    store = filled(memx, repo, committed=True)  # alone must refuse
    edited = foreign_edit(store)
    memx.ok("add", BACKUP, "--raw")
    scans.clear()
    assert keyword(repo, "hashing") == [edited] and scans == [1]
    assert keyword(repo, "nightly backup") == [BACKUP]


def test_concurrent_writers_and_someone_else_are_all_seen(memx: Memx, repo: Path) -> None:
    """Three `memx add` processes at once (each may record a stamp after its write) and
    a file added by another program meanwhile: the next reader finds every one of them.
    The processes keep the real MIN_FILES, so the store holds that many files."""
    import subprocess
    import sys

    from memx_cli.store import memory as memfmt
    from memx_cli.store.ids import new_id

    store = Repo.discover(repo).store
    base = 1_780_000_000_000
    for n in range(REAL_MIN_FILES):
        mem = memfmt.Memory(id=new_id(base + n), content=f"filler note {n} about queues",
                            created_at="2026-11-01T12:00:00Z", updated_at="2026-11-01T12:00:00Z")
        (store.memories_dir / f"{mem.id}.yaml").write_bytes(memfmt.dump(mem))
    commit(repo)
    age(store.root)
    settle(store)
    facts = [f"Writer {n} says the canary runs in zone {n}" for n in range(3)]
    procs = [subprocess.Popen([sys.executable, "-m", "memx_cli", "add", "--raw", fact],
                              cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for fact in facts]
    other = foreign_new(store)  # while they run
    for proc in procs:
        assert proc.wait() == 0, proc.stderr.read() if proc.stderr else b""
    found = set(keyword(repo, "canary zone")) | set(keyword(repo, "hashing rings"))
    assert found == {*facts, other}
    state = json.loads((store.cache_dir / "state.json").read_text())
    assert state["fingerprint"] == sync.scan(store)[1]


def test_writes_one_after_another_add_to_one_claim(memx: Memx, repo: Path,
                                                   scans: list[int],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Two writes before any reader: the second adds its files to the first's claim,
    and the reader after both needs no scan and finds both (issue 29)."""
    monkeypatch.setattr(quick, "RACY_NS", 0)  # the reader comes at once, in process
    store = filled(memx, repo, committed=True)
    memx.ok("add", BACKUP, "--raw")
    memx.ok("add", "Release branches are cut every second Tuesday", "--raw")
    ours = json.loads((store.cache_dir / "state.json").read_text())["written"]["ours"]
    assert len(ours) == 2
    scans.clear()
    assert keyword(repo, "nightly backup") == [BACKUP]
    assert keyword(repo, "second Tuesday") == ["Release branches are cut every second Tuesday"]
    assert scans == []


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="names open files by /proc")
def test_a_write_syncs_its_memory_but_not_the_index_state(memx: Memx, repo: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """state.json is a cache written after the index it describes (issue 29): replaced
    at once, never synced; the memory file a write makes is synced, as before."""
    memx.ok("add", "the staging database is rebuilt every night")
    memx.ok("search", "staging database")  # indexed, with a stamp
    synced: list[str] = []
    real = os.fsync

    def recording(fd: int) -> None:
        synced.append(os.path.basename(os.readlink(f"/proc/self/fd/{fd}")))
        real(fd)

    monkeypatch.setattr(os, "fsync", recording)
    before = (repo / ".memx" / "cache" / "state.json").read_bytes()
    new_id = memx.ok("add", "deploys to production need two approvals").split()[0]
    assert (repo / ".memx" / "cache" / "state.json").read_bytes() != before  # rewritten
    assert any(name.startswith(f".{new_id}.yaml") for name in synced), synced
    assert not any("state.json" in name for name in synced), synced
    assert memx.ok("search", "production approvals", "--mode", "keyword").startswith(new_id[:8])
