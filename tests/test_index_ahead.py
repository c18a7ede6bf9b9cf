"""The change check's git process started as a cold command starts (freshness/ahead.py,
issue 15): its answer is used once, only while fresh, and an edit is still seen."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

from memx_cli import executable as client
from memx_cli.freshness import ahead, quick

from .conftest import Memx
from .test_index_quick import filled, keyword, same_size


@pytest.fixture(autouse=True)
def small_stores_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quick, "MIN_FILES", 0)
    monkeypatch.setattr(ahead, "_started", {})


@pytest.fixture
def gits(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The git commands the change check runs itself (not the one started ahead)."""
    calls: list[list[str]] = []
    original = quick._git

    def counted(args: list[str], store: object) -> bytes | None:
        calls.append(args)
        return original(args, store)  # type: ignore[arg-type]

    monkeypatch.setattr(quick, "_git", counted)
    return calls


def diff_runs(calls: list[list[str]]) -> int:
    return sum("diff-files" in args for args in calls)


def test_an_answer_started_ahead_is_used_and_sees_an_earlier_edit(
        memx: Memx, repo: Path, gits: list[list[str]]) -> None:
    store = filled(memx, repo, committed=True)
    target = store.files()[1]
    same_size(target, "caching", "hashing")
    assert ahead.start_here(str(repo))
    assert str(store.root) in ahead._started
    gits.clear()
    assert keyword(repo, "hashing") == [store.read_file(target).content]
    assert diff_runs(gits) == 0  # the early process answered
    assert ahead._started == {}
    # The next command has nothing started: it asks git itself, and still sees edits.
    same_size(target, "hashing", "bashing")
    assert keyword(repo, "bashing") == [store.read_file(target).content]
    assert diff_runs(gits) == 1


def test_a_stale_answer_is_not_used(memx: Memx, repo: Path, gits: list[list[str]],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    store = filled(memx, repo, committed=True)
    assert ahead.start(str(store.root))
    target = store.files()[0]
    # An edit in place after git looked: a long-lived process must not answer from that
    # look later; past FRESH_NS the check runs git again and sees the edit.
    ahead._started[str(store.root)][0].wait()
    same_size(target, "caching", "hashing")
    monkeypatch.setattr(ahead, "FRESH_NS", 0)
    gits.clear()
    assert keyword(repo, "hashing") == [store.read_file(target).content]
    assert diff_runs(gits) >= 1
    assert ahead._started == {}


def test_nothing_is_started_without_a_basis_or_outside_git(
        memx: Memx, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memx.ok("add", "one memory about caching", "--raw")
    monkeypatch.setattr(quick, "MIN_FILES", 2000)  # a small store: no basis recorded
    keyword(repo, "caching")
    assert not ahead.start_here(str(repo))
    outside = tmp_path / "plain"
    outside.mkdir()
    assert not ahead.start_here(str(outside))
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    assert not ahead.start_here(str(repo))
    assert ahead._started == {}


def test_the_thin_client_starts_it_for_reads_and_writes_in_process(
        monkeypatch: pytest.MonkeyPatch, repo: Path) -> None:
    """search and context, and add and import with ACE on (the Curator checks the
    index before it writes), not the commands that never check the index."""
    import memx_cli.cli
    import memx_cli.command.add
    import memx_cli.command.search

    started: list[tuple[str, bool]] = []
    monkeypatch.setattr(ahead, "start_here", lambda cwd, write=False: started.append(
        (cwd, write)))
    monkeypatch.setattr(memx_cli.cli, "entry", lambda: None)
    monkeypatch.setattr(memx_cli.command.search, "lean", lambda args: None)  # declines
    monkeypatch.setattr(memx_cli.command.add, "lean", lambda args: None)
    monkeypatch.setenv("MEMX_NO_SERVER", "1")
    monkeypatch.chdir(repo)
    for argv in (["search", "x"], ["context", "x"], ["list"], ["add", "x"],
                 ["import", "f.jsonl"], ["doctor"], ["add", "--raw", "x"]):
        monkeypatch.setattr(sys, "argv", ["memx", *argv])
        client.entry()
    # not for a raw write: no check before it writes; a write's only if it needs it
    assert started == [(str(repo), False)] * 2 + [(str(repo), True)] * 2
    # the collector, off while a search or an add might take the lean path, is on for the full CLI
    assert gc.isenabled()


def test_doctor_says_how_changes_are_seen_and_when_only_the_server_is_fast(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    monkeypatch.setattr(quick, "MIN_FILES", 2000)
    memx.ok("add", "one memory about caching", "--raw")
    index = json.loads(memx.ok("doctor", "--json"))["doctor"]["index"]
    assert (index["change_check"], index["note"]) == ("a stat of every file (a small store)",
                                                      None)
    monkeypatch.setattr(quick, "MIN_FILES", 0)
    filled(memx, repo, committed=True)
    index = json.loads(memx.ok("doctor", "--json"))["doctor"]["index"]
    assert index["change_check"] == "git's stat cache (git diff-files) and 0 untracked files"
    assert index["note"] is None
    monkeypatch.setattr(quick, "GIT_US_PER_FILE", 200_000.0)  # as if each file took 0.2 s
    text = memx.ok("doctor")
    assert ("  changes   seen through git's stat cache (git diff-files) and 0 untracked "
            "files\n") in text
    assert ("note:       each command without the memx server checks 5 memory files for "
            "changes (about 1000 ms); the server watches the store instead (see "
            "docs/index.md)\n") in text
