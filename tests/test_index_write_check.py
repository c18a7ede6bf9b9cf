"""A write's Curator trusts the index while the memory folders and git's index are as
the last check or memx write left them (issue 29, ``quick.unmoved``): no git and no
listing, so a write costs the same at 10k and 100k. Anything that moved them makes it
check as a reader does; an edit in place moves nothing, and the Curator reads its
candidates' files where their stat differs from the index, the next reader sees it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memx_cli import curator
from memx_cli.freshness import ahead, quick
from memx_cli.operations import write as write_op
from memx_cli.store.files import Store
from memx_cli.store.repo import Repo

from .conftest import Memx, git
from .test_index_quick import (
    BACKUP,
    commit,
    filled,
    foreign_edit,
    foreign_new,
    keyword,
    same_size,
)

DEPLOY = "The staging deploy waits for two green health probes"


@pytest.fixture(autouse=True)
def checked_through_the_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stores of a few files, checked as a store past quick.MIN_FILES and the
    Curator's SMALL_STORE is; the next command comes at once (RACY_NS 0)."""
    monkeypatch.setattr(quick, "MIN_FILES", 0)
    monkeypatch.setattr(quick, "RACY_NS", 0)
    monkeypatch.setattr(curator, "SMALL_STORE", 0)
    monkeypatch.setattr(ahead, "_started", {})


@pytest.fixture
def looks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """One entry per store-wide look: a git run, a folder listing, a full scan."""
    from memx_cli.index import sync

    calls: list[str] = []
    git_run, listing, scan = quick._git, quick._names_match, sync.scan

    def counted_git(args: list[str], store: Store) -> bytes | None:
        calls.append("git")
        return git_run(args, store)

    def counted_listing(directory: Path, expected: str) -> bool:
        calls.append("listing")
        return listing(directory, expected)

    def counted_scan(store: Store, linked: set[str] | None = None) -> object:
        calls.append("scan")
        return scan(store, linked)

    monkeypatch.setattr(quick, "_git", counted_git)
    monkeypatch.setattr(quick, "_names_match", counted_listing)
    monkeypatch.setattr(sync, "scan", counted_scan)
    return calls


def state(store: Store) -> dict[str, object]:
    return json.loads((store.cache_dir / "state.json").read_text())  # type: ignore[no-any-return]


def added(memx: Memx, text: str) -> str:
    """What `memx add` did with ``text``: its id, or the line of a skip."""
    return memx.ok("add", text).strip()


def test_writes_after_a_check_look_at_nothing_store_wide(memx: Memx, repo: Path,
                                                          looks: list[str]) -> None:
    store = filled(memx, repo, committed=True)
    added(memx, "Vectors are made by the first write")  # (the filled index has none)
    looks.clear()
    first = added(memx, BACKUP)
    second = added(memx, DEPLOY)
    assert looks == []
    after = state(store)
    assert after["left"] == list(store.folder_marks())
    assert {f"memories/{first}.yaml", f"memories/{second}.yaml"} <= set(
        after["written"]["ours"])  # type: ignore[index]
    # The next reader still checks the claim (a listing: the folder moved), finds both.
    assert keyword(repo, "nightly backup") == [BACKUP]
    assert keyword(repo, "staging deploy") == [DEPLOY]
    assert "listing" in looks and "scan" not in looks


def test_a_write_that_left_no_index_update_makes_the_next_write_check(
        memx: Memx, repo: Path, looks: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A write killed after its file and before its index update: the folder moved
    from the marks the state keeps, so the next write's Curator checks, finds the
    memory and skips the same text (without the check it would add it twice)."""
    store = filled(memx, repo, committed=True)
    with monkeypatch.context() as m:
        m.setattr(write_op, "index_written", lambda *args, **kwargs: None)
        first = added(memx, BACKUP)
    looks.clear()
    again = json.loads(memx.ok("add", BACKUP, "--json"))
    assert (again["action"], again["memory"]["id"]) == ("skipped", first)
    assert looks  # it checked
    assert len(store.files()) == 5


@pytest.mark.parametrize("how", ["new file", "checkout"])
def test_a_change_by_someone_else_before_a_write_is_seen_by_its_curator(
        memx: Memx, repo: Path, looks: list[str], how: str) -> None:
    """A memory file another program added (a copy, a checkout) since the last write:
    the folder moved, the write's Curator checks, finds it and skips the same text."""
    store = filled(memx, repo, committed=True)
    text = "Someone else wrote about hashing rings"
    if how == "checkout":
        git(repo, "checkout", "-q", "-b", "other")
        memx.ok("add", text, "--raw")
        commit(repo, "their memory")
        git(repo, "checkout", "-q", "main")
    added(memx, BACKUP)  # the state now keeps the marks this write left
    if how == "checkout":
        git(repo, "checkout", "-q", "other")
    else:
        text = foreign_new(store)
    looks.clear()
    again = json.loads(memx.ok("add", text, "--json"))
    assert again["action"] == "skipped"  # found: the same text is stored already
    assert looks


def test_unmoved_folders_and_a_moved_git_index(memx: Memx, repo: Path) -> None:
    """The marks themselves: equal after memx's own write, not after git rewrote its
    index (a new inode) nor after a name changed in a folder."""
    store = filled(memx, repo, committed=True)
    added(memx, BACKUP)
    assert quick.unmoved(store, state(store))
    git(repo, "update-index", "--really-refresh")
    git(repo, "add", "-A", ".memx")  # git writes its index anew
    assert not quick.unmoved(store, state(store))
    added(memx, DEPLOY)  # checks in full (git's index moved: the claim fails) ...
    assert not quick.unmoved(store, state(store))
    added(memx, "Release branches are cut every second Tuesday")  # ... stamps, marks
    assert quick.unmoved(store, state(store))
    (store.memories_dir / "notes.txt").write_text("a name added")
    assert not quick.unmoved(store, state(store))


def test_an_edit_in_place_is_read_by_the_curator_and_seen_by_the_next_reader(
        memx: Memx, repo: Path, looks: list[str]) -> None:
    """An edit in place moves no mark: the write does not look for it store-wide, but
    a candidate whose file no longer has the index's time and size is read from the
    file (the edited text is what is compared), and the next reader sees the edit."""
    store = filled(memx, repo, committed=True)
    added(memx, BACKUP)
    target = store.files()[0]
    same_size(target, "caching", "hashing")
    edited = store.read_file(target).content
    looks.clear()
    again = json.loads(memx.ok("add", edited, "--json"))
    assert looks == []
    assert (again["action"], again["memory"]["id"]) == ("skipped", target.stem)
    assert keyword(repo, "hashing") == [edited]


def test_the_git_half_is_not_started_for_a_write_that_needs_none(memx: Memx,
                                                                 repo: Path) -> None:
    store = filled(memx, repo, committed=True)
    added(memx, BACKUP)
    assert not ahead.start_here(str(repo), write=True)
    assert ahead._started == {}
    assert ahead.start_here(str(repo))  # a reader's check still starts it
    ahead._started.pop(str(store.root))[0].wait()
    (store.memories_dir / "notes.txt").write_text("a name added")
    assert ahead.start_here(str(repo), write=True)  # moved: the Curator will check
    ahead._started.pop(str(store.root))[0].wait()
    assert Repo.discover(repo).store.root == store.root


@pytest.fixture
def many_untracked(monkeypatch: pytest.MonkeyPatch) -> None:
    """More memory files outside git than a change stamp covers (a large import not yet
    committed): the filled store's four, past a LOOSE_LIMIT of two."""
    monkeypatch.setattr(quick, "LOOSE_LIMIT", 2)


def test_writes_in_a_store_with_too_many_untracked_files_look_at_nothing_store_wide(
        memx: Memx, repo: Path, looks: list[str], many_untracked: None) -> None:
    """No stamp can cover the untracked files: the first check scans and keeps the
    marks it began at (``unstamped``); the writes after it trust them as after a
    stamp, each leaving the marks it left. The next reader scans and finds both."""
    store = filled(memx, repo, committed=False)
    added(memx, "Vectors are made by the first write")  # (the filled index has none)
    assert state(store)["basis"]["loose"] is None  # type: ignore[index]
    looks.clear()
    first = added(memx, BACKUP)
    second = added(memx, DEPLOY)
    assert looks == []
    after = state(store)
    assert after["unstamped"]["dirs"] == list(store.folder_marks())  # type: ignore[index]
    assert "written" not in after and after["quick"] is None
    assert {first, second} <= {p.stem for p in store.files()}
    assert keyword(repo, "nightly backup") == [BACKUP]
    assert keyword(repo, "staging deploy") == [DEPLOY]
    assert "scan" in looks


def test_without_the_marks_every_write_in_such_a_store_scans(
        memx: Memx, repo: Path, looks: list[str], many_untracked: None) -> None:
    """Control: the same store with the marks taken out of its state checks in full
    before a write, as every write did before they were kept."""
    store = filled(memx, repo, committed=False)
    added(memx, "Vectors are made by the first write")
    path = store.cache_dir / "state.json"
    path.write_text(json.dumps({k: v for k, v in state(store).items() if k != "unstamped"}))
    looks.clear()
    added(memx, BACKUP)
    assert looks[0] == "scan"  # (then git's list of tracked files: the folder moved)


@pytest.mark.parametrize("by_hand", ["new file", "edit in place"])
def test_a_file_written_by_hand_in_such_a_store_is_found(
        memx: Memx, repo: Path, looks: list[str], many_untracked: None, by_hand: str) -> None:
    """A memory file written while no memx ran: a new one moves its folder, the next
    write's Curator checks in full and skips the same text (control: an edit in place
    moves no mark, the write looks at nothing store-wide and reads its candidate's
    file); either way the next reader scans and finds it."""
    store = filled(memx, repo, committed=False)
    added(memx, BACKUP)
    text = foreign_new(store) if by_hand == "new file" else foreign_edit(store)
    looks.clear()
    again = json.loads(memx.ok("add", text, "--json"))
    assert again["action"] == "skipped"
    assert looks[:1] == (["scan"] if by_hand == "new file" else [])
    looks.clear()
    assert text in keyword(repo, "hashing")
    assert looks[:1] == ["scan"]
