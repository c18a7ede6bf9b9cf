"""The watcher remembers which memory files changed (issue 15, memx_cli/freshness/journal.py):
a warm searcher whose store changed only in files it can name re-indexes just those
files, and every hand edit is still seen by the next search. Whatever the watcher
cannot vouch for (a folder event, too many files, a mark not back in time, lost
events, a new watch) is a full scan, as before."""

from __future__ import annotations

import json
import logging
import os
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memx_cli.store.repo import Repo

from .conftest import Memx
from .test_watch import open_watcher, scans, watch_kind  # noqa: F401 - fixtures

FACTS = {
    "nightly": "The nightly build publishes wheels to the mirror",
    "staging": "The staging database is reset every Sunday evening",
    "release": "Release notes are drafted from the merged pull requests",
    "webhook": "The payment webhook retries five times with backoff",
    "flags": "Feature flags live in the flags file at the repository root",
}


def add_facts(memx: Memx, repo: Path) -> dict[str, Path]:
    """Add FACTS to the store: their key -> the memory file."""
    for fact in FACTS.values():
        memx.ok("add", "--raw", fact)
    files = {}
    for path in (repo / ".memx" / "memories").glob("*.yaml"):
        [key] = [k for k, fact in FACTS.items() if fact in path.read_text()]
        files[key] = path
    return files


@pytest.fixture
def store(memx: Memx, repo: Path, watch_kind: str  # noqa: F811
          ) -> Iterator[tuple[Any, dict[str, Path]]]:
    """A watched Searcher over a store of FACTS (their key -> the file), after its first
    search (the one full check a new watch makes); each kind of watcher."""
    from memx_cli.freshness.journal import Watched
    from memx_cli.generator.search import Searcher

    files = add_facts(memx, repo)
    watcher = open_watcher(watch_kind)
    try:
        searcher = Searcher(Repo(repo), freshness=Watched(watcher))
        assert _ids(searcher.search("nightly", mode="keyword")) == [files["nightly"].stem]
        yield searcher, files
    finally:
        watcher.stop()


def _ids(result: object) -> list[str]:
    return [h.id for h in result.hits]  # type: ignore[attr-defined]


def _replace(path: Path, old: str, new: str) -> str:
    text = path.read_text()
    assert old in text
    return text.replace(old, new)


def in_place(path: Path) -> None:
    text = _replace(path, "nightly", "fortnightly")
    with open(path, "w") as out:  # the folder's time does not move
        out.write(text)


def renamed_over(path: Path) -> None:
    """An editor's atomic save: a temporary beside the file, renamed over it."""
    temporary = path.parent / f".{path.name}.swp"
    temporary.write_text(_replace(path, "nightly", "fortnightly"))
    os.replace(temporary, path)


def backup_then_write(path: Path) -> None:
    """vim without backupcopy: the file renamed to a backup, written anew, the backup
    removed."""
    text = _replace(path, "nightly", "fortnightly")
    backup = path.parent / f"{path.name}~"
    os.rename(path, backup)
    path.write_text(text)
    backup.unlink()


@pytest.mark.parametrize("edit", [in_place, renamed_over, backup_then_write])
def test_a_hand_edit_is_seen_without_a_scan(store: tuple[Any, dict[str, Path]],
                                            scans: list[str], edit: Any) -> None:  # noqa: F811
    searcher, files = store
    first = len(scans)
    edit(files["nightly"])
    assert _ids(searcher.search("fortnightly", mode="keyword")) == [files["nightly"].stem]
    assert _ids(searcher.search("nightly", mode="keyword")) == []
    assert _ids(searcher.search("fortnightly", mode="hybrid"))[:1] == [files["nightly"].stem]
    assert len(scans) == first


def test_deleted_archived_and_new_files_are_seen_without_a_scan(
        store: tuple[Any, dict[str, Path]], scans: list[str]) -> None:  # noqa: F811
    searcher, files = store
    first = len(scans)
    files["nightly"].unlink()
    assert _ids(searcher.search("nightly", mode="keyword")) == []
    archive = files["staging"].parent.parent / "archive"
    archive.mkdir(exist_ok=True)  # (a folder event: one scan)
    searcher.search("staging", mode="keyword")
    first = len(scans)
    os.rename(files["staging"], archive / files["staging"].name)
    assert _ids(searcher.search("staging database", mode="keyword")) == []
    assert _ids(searcher.search("staging database", mode="keyword", include_archived=True)
                ) == [files["staging"].stem]
    os.rename(archive / files["staging"].name, files["staging"])  # restored by hand
    assert _ids(searcher.search("staging database", mode="keyword")) == [
        files["staging"].stem]
    new = "z" * 26
    (files["release"].parent / f"{new}.yaml").write_text(
        _replace(files["release"], files["release"].stem, new)
        .replace("Release notes", "Changelog entries"))
    assert _ids(searcher.search("changelog entries", mode="keyword")) == [new]
    assert len(scans) == first


def test_a_write_by_another_memx_is_seen_without_a_scan(
        store: tuple[Any, dict[str, Path]], memx: Memx, scans: list[str]) -> None:  # noqa: F811
    searcher, _ = store
    first = len(scans)
    memx.ok("add", "--raw", "The linter runs with the strict profile in CI")
    assert len(scans) == first  # (the add indexed its own write)
    assert len(_ids(searcher.search("strict linter profile", mode="keyword"))) == 1
    assert len(scans) == first


def test_files_that_are_no_memories_wake_nothing(store: tuple[Any, dict[str, Path]],
                                                 scans: list[str]) -> None:  # noqa: F811
    searcher, files = store
    first = len(scans)
    folder = files["nightly"].parent
    (folder / ".notes.swp").write_text("scratch")
    (folder / "README.txt").write_text("not a memory")
    (folder / "4913").write_text("")  # vim's probe file
    assert _ids(searcher.search("nightly", mode="keyword")) == [files["nightly"].stem]
    assert len(scans) == first


def test_more_changed_files_than_the_bound_are_scanned(
        store: tuple[Any, dict[str, Path]], scans: list[str],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memx_cli.freshness.journal.MAX_KNOWN", 3)
    searcher, files = store
    for path in files.values():
        path.write_text(path.read_text().replace("The ", "Our "))
    first = len(scans)
    assert _ids(searcher.search("our nightly", mode="keyword")) == [files["nightly"].stem]
    assert len(scans) == first + 1
    searcher.search("our nightly", mode="keyword")
    assert len(scans) == first + 1  # nothing since: no scan


def _folder_in_memories(files: dict[str, Path], watcher: Any) -> None:
    (files["nightly"].parent / "stray").mkdir()


def _archive_folder_moved(files: dict[str, Path], watcher: Any) -> None:
    archive = files["nightly"].parent.parent / "archive"
    archive.mkdir(exist_ok=True)
    os.rename(archive, archive.parent / "archive-old")


def _memories_folder_replaced(files: dict[str, Path], watcher: Any) -> None:
    """A whole folder swapped (as a checkout of another branch may): the nightly
    memory's file comes back with other words."""
    folder = files["nightly"].parent
    shutil.copytree(folder, folder.parent / "new-memories")
    target = folder.parent / "new-memories" / files["nightly"].name
    target.write_text(_replace(target, "nightly", "fortnightly"))
    shutil.rmtree(folder)
    os.rename(folder.parent / "new-memories", folder)


def _events_lost(files: dict[str, Path], watcher: Any) -> None:
    """The kernel's event queue overflowed: the record it queues, read as from the
    descriptor, for the drained watcher; what watchdog logs then, for the observer."""
    if watcher.kind == "inotify":
        from memx_cli.freshness import inotify

        record = struct.pack("iIII", -1, inotify.IN_Q_OVERFLOW, 0, 0)
        with watcher._lock:
            watcher.apply(inotify.parse(record))
    else:
        logging.getLogger("watchdog.observers.inotify_c").warning(
            "Inotify queue overflowed; filesystem events were lost")
    assert watcher.overflows == 1


@pytest.mark.parametrize("happening", [_folder_in_memories, _archive_folder_moved,
                                       _memories_folder_replaced, _events_lost])
def test_what_the_watcher_cannot_vouch_for_is_scanned(
        store: tuple[Any, dict[str, Path]], scans: list[str], happening: Any) -> None:  # noqa: F811
    searcher, files = store
    first = len(scans)
    happening(files, searcher.freshness.watcher)
    word = "fortnightly" if happening is _memories_folder_replaced else "nightly"
    assert _ids(searcher.search(word, mode="keyword")) == [files["nightly"].stem]
    assert len(scans) == first + 1


@pytest.mark.parametrize("watch_kind", ["observer"], indirect=True)
def test_a_mark_not_back_in_time_is_a_scan(store: tuple[Any, dict[str, Path]],
                                           scans: list[str],  # noqa: F811
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Here no event comes back at all (the watch is taken off inotify): whatever the
    events would have said, the search checks every file, and so sees the edit."""
    searcher, files = store
    watcher = searcher.freshness.watcher
    [root] = watcher.roots.values()
    watcher._observer.unschedule(watcher._scheduled[root])
    monkeypatch.setattr("memx_cli.freshness.journal.SETTLE_SECONDS", 0.05)
    first = len(scans)
    in_place(files["nightly"])
    assert _ids(searcher.search("fortnightly", mode="keyword")) == [files["nightly"].stem]
    assert len(scans) == first + 1
    assert watcher.late == 1


def test_a_new_watch_starts_with_a_scan(store: tuple[Any, dict[str, Path]],
                                        scans: list[str], watch_kind: str) -> None:  # noqa: F811
    from memx_cli.freshness.journal import Watched

    searcher, files = store
    searcher.freshness.watcher.stop()
    first = len(scans)
    watcher = open_watcher(watch_kind)
    try:
        searcher.freshness = Watched(watcher)
        in_place(files["nightly"])
        assert _ids(searcher.search("fortnightly", mode="keyword")) == [files["nightly"].stem]
        assert len(scans) == first + 1
    finally:
        watcher.stop()


def test_served_adds_and_the_searches_after_them_scan_nothing(
        memx: Memx, repo: Path, watch_kind: str) -> None:  # noqa: F811
    """Through a real server: after each forwarded `memx add` the server re-reads the
    written file only (its refresh, then the next search), never every file. A mark
    not back in time (a loaded machine) is a full check, and is counted as such."""
    from .test_server import FULL, THIN, run, status
    from .test_server_writes import stop_server

    for fact in FACTS.values():
        memx.ok("add", "--raw", fact)
    code, _, err = run([*FULL, "server", "start"], repo)
    assert code == 0, err
    try:
        assert run([*THIN, "search", "nightly", "--mode", "keyword"], repo)[0] == 0
        before = status()
        assert before["scans"] >= 1  # the first check of a new watch
        for n, topic in enumerate(("cache", "queue", "cron")):
            code, out, err = run([*THIN, "add", f"The {topic} daemon restarts at {n + 2} am"],
                                 repo)
            assert code == 0, err
            added = out.decode().split()[0]
            code, out, err = run([*THIN, "search", f"{topic} daemon restarts", "--mode",
                                  "keyword", "--json"], repo)
            assert code == 0, err
            assert [h["id"] for h in json.loads(out)["results"]][:1] == [added]
        after = status()
        assert after["watch"] == watch_kind  # (a mark late or events lost: a scan)
        assert after["scans"] - before["scans"] <= (
            after["marks_late"] + after["overflows"] - before["marks_late"]
            - before["overflows"])
    finally:
        stop_server()


def test_the_idle_server_records_the_stamp_writes_left_out(
        memx: Memx, repo: Path, scans: list[str],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A write after a file changed behind memx indexes itself without the change
    stamp (that file needs a scan to be seen); a command without the server would then
    scan. The server, once idle, takes the stamp and lets its watcher vouch for it."""
    from memx_cli.freshness import quick
    from memx_cli.server import daemon

    from .test_index_quick import age, commit

    monkeypatch.setattr(quick, "MIN_FILES", 0)  # the stamp is kept for large stores only
    for fact in FACTS.values():
        memx.ok("add", "--raw", fact)
    commit(repo)
    age(repo / ".memx")
    state = repo / ".memx" / "cache" / "state.json"
    for _ in range(2):  # the first learns what the stamp covers, the second records it
        memx.ok("search", "nightly")
    assert json.loads(state.read_text())["quick"] is not None
    server = daemon.Daemon(idle_timeout=60)
    try:
        server.searcher(Repo(repo)).search("nightly", mode="keyword")
        [staging] = [p for p in (repo / ".memx" / "memories").glob("*.yaml")
                     if FACTS["staging"] in p.read_text()]
        staging.write_text(staging.read_text().replace("Sunday", "Monday"))
        memx.ok("add", "--raw", "The linter runs with the strict profile in CI")
        assert json.loads(state.read_text())["quick"] is None
        age(repo / ".memx")
        server.last_request -= 60
        server._compacted = False
        server.compact_when_idle()
        assert json.loads(state.read_text())["quick"] is not None
        first = len(scans)
        assert "strict profile" in memx.ok("search", "strict linter", "--mode", "keyword")
        assert "Monday" in memx.ok("search", "staging database", "--mode", "keyword")
        assert len(scans) == first  # the stamp holds: no scan
        [nightly] = [p for p in (repo / ".memx" / "memories").glob("*.yaml")
                     if FACTS["nightly"] in p.read_text()]
        in_place(nightly)  # then an edit without an event the command could hear
        assert "The fortnightly build" in memx.ok("search", "fortnightly", "--mode", "keyword")
    finally:
        server.watcher.stop()


def test_appends_through_a_file_kept_open_wake_nothing(memx: Memx, repo: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The recall log is appended to through a descriptor kept open: a write is an event
    only once its file is closed, so those appends do not wake the watcher's thread on
    every search; a memory file written in place is seen at its close."""
    from memx_cli.freshness import journal as watch

    heard: list[str] = []
    real = watch.Root.event

    def event(self: Any, src: str, dest: str | None, directory: bool = False) -> None:
        heard.append(src)
        real(self, src, dest, directory)

    monkeypatch.setattr(watch.Root, "event", event)
    log = repo / ".memx" / "local" / "appended.log"
    log.parent.mkdir(exist_ok=True)
    watcher = watch.Watcher()
    try:
        root = watcher.root(repo / ".memx")
        assert root is not None
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            watcher.settle([root], timeout=10)
            before = heard.count(str(log))
            for _ in range(5):
                os.write(fd, b"one more line\n")
            watcher.settle([root], timeout=10)
            assert heard.count(str(log)) == before
        finally:
            os.close(fd)
        watcher.settle([root], timeout=10)
        assert heard.count(str(log)) == before + 1  # the close
    finally:
        watcher.stop()
