"""The memx server's first open of a large store trusts its index as the last check or
write left it, and checks every file after that answer (issue 29: the first search of
a 1M store through the server took 10 s, all of it that check). These tests make any
store "large" (the trust applies where the check's estimate passes ``SLOW_MS``), then
change a real store while no server runs, as a user or git would."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from memx_cli.store.repo import Repo

from .conftest import Memx
from .test_index_quick import age
from .test_watch import scans  # noqa: F401 - a fixture
from .test_watch_known import _ids, add_facts, in_place

STATE = Path(".memx") / "cache" / "state.json"


@pytest.fixture
def large(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every store counts as one whose check of every file is slow."""
    monkeypatch.setattr("memx_cli.index.sync.SLOW_MS", -1)


def checked_store(memx: Memx, repo: Path) -> dict[str, Path]:
    """FACTS in a store whose last check (a search without the server) saw every file
    with folder times old enough to trust: the state says at which marks it held them."""
    files = add_facts(memx, repo)
    age(repo / ".memx")
    memx.ok("search", "nightly", "--mode", "keyword")
    assert json.loads((repo / STATE).read_text()).get("held")
    return files


def verified(server: Any) -> None:
    """What the server does once an answer is sent, and at its next request or idle
    tick: the full check's look begun on a thread, then taken in."""
    server.verify()
    for searcher in server.searchers.values():
        for pending in searcher.freshness.unverified.values():
            assert pending.thread is not None
            pending.thread.join()
    server.verify()


def first_search(server: Any, repo: Path, query: str) -> list[str]:
    return _ids(server.searcher(Repo(repo)).search(query, mode="keyword"))


def test_an_edit_made_while_no_server_ran_is_found_after_the_first_answer(
        memx: Memx, repo: Path, scans: list[str], large: None) -> None:  # noqa: F811
    from memx_cli.server import daemon

    files = checked_store(memx, repo)
    in_place(files["nightly"])  # no server watches; the folder's time does not move
    server = daemon.Daemon(idle_timeout=60)
    try:
        before = len(scans)
        first_search(server, repo, "fortnightly")
        assert len(scans) == before  # answered on the index's word: no look at the files
        assert server.status()["unverified"] == [str(repo / ".memx")]
        assert server.status()["scans"] == 0
        verified(server)  # its scan ran on a thread, counted once taken in
        assert server.status()["scans"] == 1
        assert server.status()["unverified"] == []
        assert first_search(server, repo, "fortnightly") == [files["nightly"].stem]
        in_place_again = files["staging"]
        in_place_again.write_text(in_place_again.read_text().replace("Sunday", "Friday"))
        # after the full check, the watcher names what changes: no scan
        assert first_search(server, repo, "Friday") == [files["staging"].stem]
        assert len(scans) == before
        assert server.status()["scans"] == 1
    finally:
        server.watcher.stop()


def test_an_unchanged_store_answers_the_same_before_and_after_the_full_check(
        memx: Memx, repo: Path, scans: list[str], large: None) -> None:  # noqa: F811
    from memx_cli.server import daemon

    files = checked_store(memx, repo)
    state = (repo / STATE).read_bytes()
    server = daemon.Daemon(idle_timeout=60)
    try:
        before = len(scans)
        trusted = first_search(server, repo, "nightly build wheels")
        assert trusted[:1] == [files["nightly"].stem]
        assert len(scans) == before
        verified(server)
        assert server.status()["scans"] == 1
        assert first_search(server, repo, "nightly build wheels") == trusted
        assert len(scans) == before
        assert (repo / STATE).read_bytes() == state  # the check found nothing to write
    finally:
        server.watcher.stop()


def test_a_file_added_while_no_server_ran_is_checked_before_the_first_answer(
        memx: Memx, repo: Path, scans: list[str], large: None) -> None:  # noqa: F811
    """A new file moves the folder's time from the marks the index held: no trust."""
    from memx_cli.server import daemon

    files = checked_store(memx, repo)
    old = files["webhook"].stem
    new = old[:-1] + ("0" if old[-1] != "0" else "1")
    copy = files["webhook"].read_text().replace(old, new)
    (repo / ".memx" / "memories" / f"{new}.yaml").write_text(
        copy.replace("five times", "seven times"))
    server = daemon.Daemon(idle_timeout=60)
    try:
        before = len(scans)
        assert first_search(server, repo, "seven times")[:1] == [new]
        assert len(scans) == before + 1
        assert server.status()["unverified"] == []
    finally:
        server.watcher.stop()


def test_a_small_store_is_checked_before_the_first_answer(
        memx: Memx, repo: Path, scans: list[str]) -> None:  # noqa: F811
    """Where the check of every file is cheap (the estimate under SLOW_MS), the first
    open checks it, as before."""
    from memx_cli.server import daemon

    files = checked_store(memx, repo)
    in_place(files["nightly"])
    server = daemon.Daemon(idle_timeout=60)
    try:
        before = len(scans)
        assert first_search(server, repo, "fortnightly") == [files["nightly"].stem]
        assert len(scans) == before + 1
        assert server.status()["unverified"] == []
    finally:
        server.watcher.stop()


def test_a_write_never_builds_on_the_trust(memx: Memx, repo: Path, scans: list[str],  # noqa: F811
                                           large: None) -> None:
    """A write's check of a store whose first open was trusted is the full check."""
    from memx_cli.server import daemon

    files = checked_store(memx, repo)
    in_place(files["nightly"])
    server = daemon.Daemon(idle_timeout=60)
    try:
        searcher = server.searcher(Repo(repo))
        searcher.search("nightly", mode="keyword")
        [index] = [i for i in searcher.indexes if i.store.root == repo / ".memx"]
        before = len(scans)
        searcher.freshness.settle([index])
        searcher.freshness.sync(index, want_vectors=False)
        assert len(scans) == before + 1
        assert server.status()["unverified"] == []
        assert _ids(searcher.search("fortnightly", mode="keyword")) == [files["nightly"].stem]
    finally:
        server.watcher.stop()


def looked(searcher: Any) -> None:
    """The look a trusted first open put off, begun if it was not and joined (not
    taken in)."""
    searcher.freshness.verify()
    for pending in searcher.freshness.unverified.values():
        assert pending.thread is not None
        pending.thread.join()


def lexical_commits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the text index's commits of documents (``LexicalIndex.apply``)."""
    from memx_cli.index.lexical import LexicalIndex

    commits: list[int] = []
    apply = LexicalIndex.apply

    def counted(self: LexicalIndex, *args: Any, **kwargs: Any) -> None:
        commits.append(1)
        apply(self, *args, **kwargs)

    monkeypatch.setattr(LexicalIndex, "apply", counted)
    return commits


@pytest.mark.parametrize("caller_wrote", [False, True])
def test_a_search_never_waits_for_the_take_in(memx: Memx, repo: Path, large: None,
                                              monkeypatch: pytest.MonkeyPatch,
                                              caller_wrote: bool) -> None:
    """The look has ended when a search comes: the search answers on the index's word
    plus what the watcher named, with no commit of what the look found; the server
    takes it in once the answer is sent (``verify``, after each request and at its idle
    tick). Control: a memory the caller wrote after the look ended is in that answer."""
    from memx_cli.server import daemon

    files = checked_store(memx, repo)
    in_place(files["nightly"])
    server = daemon.Daemon(idle_timeout=60)
    try:
        first_search(server, repo, "nightly")
        looked(server.searcher(Repo(repo)))
        if caller_wrote:
            memx.ok("add", "--raw", "The cron job rotates the logs at midnight")
            assert len(first_search(server, repo, "cron rotates logs midnight")) == 1
        commits = lexical_commits(monkeypatch)
        assert first_search(server, repo, "fortnightly") == []
        assert commits == []
        assert server.status()["unverified"] == [str(repo / ".memx")]
        if caller_wrote:  # the index moved since the look: it is made again
            server.verify()
            looked(server.searcher(Repo(repo)))
        server.verify()  # the answer is sent
        assert commits == [1]
        assert server.status()["unverified"] == []
        assert first_search(server, repo, "fortnightly") == [files["nightly"].stem]
    finally:
        server.watcher.stop()


def test_a_server_ended_before_the_take_in_leaves_the_edit_to_the_next_start(
        memx: Memx, repo: Path, large: None) -> None:
    """Nothing of a look is recorded before its take-in: a server gone after the look
    (killed, stopped) leaves the state as it was, and the next server's look finds the
    file again. Control: after a take-in, the next start's look finds nothing new."""
    from memx_cli.server import daemon

    files = checked_store(memx, repo)
    in_place(files["nightly"])
    state = (repo / STATE).read_bytes()
    gone = daemon.Daemon(idle_timeout=60)
    try:
        first_search(gone, repo, "nightly")
        looked(gone.searcher(Repo(repo)))
        assert first_search(gone, repo, "fortnightly") == []
    finally:
        gone.watcher.stop()
    assert (repo / STATE).read_bytes() == state
    for after_a_take_in in (False, True):
        server = daemon.Daemon(idle_timeout=60)
        try:
            expected = [files["nightly"].stem] if after_a_take_in else []
            assert first_search(server, repo, "fortnightly") == expected
            verified(server)
            assert server.status()["unverified"] == []
            assert first_search(server, repo, "fortnightly") == [files["nightly"].stem]
        finally:
            server.watcher.stop()


def test_a_write_during_the_look_starts_it_again(memx: Memx, repo: Path,
                                                 large: None) -> None:
    """The index moved while the look ran (memx's own add): the look is made again,
    and both the add and the edit made while no server ran are found."""
    from memx_cli.server import daemon

    files = checked_store(memx, repo)
    in_place(files["nightly"])
    server = daemon.Daemon(idle_timeout=60)
    try:
        first_search(server, repo, "nightly")
        server.verify()
        [pending] = server.searchers[next(iter(server.searchers))].freshness.unverified.values()
        assert pending.thread is not None
        pending.thread.join()
        memx.ok("add", "--raw", "The cron job rotates the logs at midnight")
        server.verify()  # the state moved: a new look, not taken in
        assert server.status()["unverified"] == [str(repo / ".memx")]
        verified(server)
        assert server.status()["unverified"] == []
        assert first_search(server, repo, "fortnightly") == [files["nightly"].stem]
        assert len(first_search(server, repo, "cron rotates logs midnight")) >= 1
    finally:
        server.watcher.stop()


def test_memx_writes_keep_the_marks_the_index_holds(memx: Memx, repo: Path) -> None:
    """After memx's own add (from where the index held every file) the state names the
    folders' marks the add left; after a file added by hand, a write names none."""
    checked_store(memx, repo)
    memx.ok("add", "--raw", "The cron job rotates the logs at midnight")
    marks = Repo(repo).store.folder_marks()
    assert json.loads((repo / STATE).read_text())["held"] == list(marks)
    (repo / ".memx" / "memories" / "m-by-hand.yaml").write_bytes(
        next((repo / ".memx" / "memories").glob("*.yaml")).read_bytes())
    os.utime(repo / ".memx" / "memories", ns=(0, 0))  # (moved, and old enough to trust)
    memx.ok("add", "--raw", "The backup job copies the database at noon")
    assert "held" not in json.loads((repo / STATE).read_text())


@pytest.mark.parametrize("edited", [False, True])
def test_a_committed_store_is_checked_through_its_change_stamp(
        memx: Memx, repo: Path, large: None, monkeypatch: pytest.MonkeyPatch,
        edited: bool) -> None:
    """A committed store's full check after the trusted open is its change stamp's look
    (git's stat cache): no stat of every file when nothing changed; a file written in
    place while no server ran fails the stamp, and the scan finds it."""
    from memx_cli.freshness import quick
    from memx_cli.server import daemon

    from .test_index_quick import commit

    monkeypatch.setattr(quick, "MIN_FILES", 0)  # the stamp is kept for large stores only
    files = add_facts(memx, repo)
    commit(repo)
    age(repo / ".memx")
    for _ in range(2):  # the first learns what the stamp covers, the second records it
        memx.ok("search", "nightly", "--mode", "keyword")
    state = json.loads((repo / STATE).read_text())
    assert state["quick"] is not None and state.get("held")
    if edited:
        in_place(files["nightly"])
    server = daemon.Daemon(idle_timeout=60)
    try:
        first_search(server, repo, "nightly")
        assert server.status()["unverified"] == [str(repo / ".memx")]
        verified(server)
        assert server.status()["unverified"] == []
        assert server.status()["scans"] == (1 if edited else 0)
        found = first_search(server, repo, "fortnightly")
        assert found == ([files["nightly"].stem] if edited else [])
    finally:
        server.watcher.stop()


# `memx mcp` (agents/mcp_server.py) holds one searcher of the same kind: the same trust,
# its full check begun once a reply is written (mcp_stdio.Answered) or in a quiet second.

def mcp_search(service: Any, query: str) -> list[str]:
    return [hit["id"] for hit in service.search(query, "keyword", None, 5)["results"]]


def mcp_verified(service: Any) -> None:
    """What `memx mcp` does once a reply is written: the look begun, then taken in."""
    service.answered()
    pending = list(service.warm._searcher.freshness.unverified.values())
    for one in pending:
        assert one.thread is not None
        one.thread.join()
    service.answered()


@pytest.mark.parametrize("size", ["large", "small"])
def test_mcp_finds_an_edit_made_while_nothing_ran_after_its_first_answer(
        memx: Memx, repo: Path, scans: list[str], monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        size: str) -> None:
    """A large store: the first answer on the index's word (no look at any file), the
    edit found once the check after it is taken in. A small store (control): checked
    before the first answer, as before."""
    from memx_cli.agents.mcp_server import MemoryService

    if size == "large":
        monkeypatch.setattr("memx_cli.index.sync.SLOW_MS", -1)
    files = checked_store(memx, repo)
    in_place(files["nightly"])
    service = MemoryService(Repo(repo))
    try:
        before = len(scans)
        first = mcp_search(service, "fortnightly")
        if size == "small":
            assert first == [files["nightly"].stem] and len(scans) == before + 1
            assert not service.warm.unverified()
            return
        assert first == [] and len(scans) == before
        assert service.warm.unverified()
        mcp_verified(service)
        assert not service.warm.unverified()
        assert mcp_search(service, "fortnightly") == [files["nightly"].stem]
        assert len(scans) == before  # the look at every file ran on the check's thread
    finally:
        service.watcher.stop()


def test_mcp_writes_never_build_on_the_trust(memx: Memx, repo: Path,
                                             large: None) -> None:
    """A write through `memx mcp` after the trusted first open opens an index of its
    own, with its own check, and moves the index while the look runs: the look is made
    again, and both the write and the edit made while nothing ran are found."""
    from memx_cli.agents.mcp_server import MemoryService

    files = checked_store(memx, repo)
    in_place(files["nightly"])
    service = MemoryService(Repo(repo))
    try:
        assert mcp_search(service, "fortnightly") == []
        service.answered()  # the look begins
        [pending] = service.warm._searcher.freshness.unverified.values()
        assert pending.thread is not None
        pending.thread.join()
        written = service.propose("The cron job rotates the logs at midnight", "fact")
        assert written["action"] == "added"
        service.answered()  # the state moved: a new look, not taken in
        assert service.warm.unverified()
        mcp_verified(service)
        assert not service.warm.unverified()
        assert mcp_search(service, "fortnightly") == [files["nightly"].stem]
        assert len(mcp_search(service, "cron rotates logs midnight")) == 1
    finally:
        service.watcher.stop()


def test_mcp_takes_the_look_in_after_the_reply_not_in_the_search(
        memx: Memx, repo: Path, large: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """`memx mcp`: a search that comes once the look has ended commits nothing of it
    (the edit made while nothing ran is found after that reply); the reply's flush
    (``answered``) takes it in. Control: a fact the caller proposed meanwhile is in
    that search's answer."""
    from memx_cli.agents.mcp_server import MemoryService

    files = checked_store(memx, repo)
    in_place(files["nightly"])
    service = MemoryService(Repo(repo))
    try:
        assert mcp_search(service, "fortnightly") == []
        looked(service.warm._searcher)  # as the reply's flush begins it
        commits = lexical_commits(monkeypatch)
        assert mcp_search(service, "fortnightly") == []
        assert commits == [] and service.warm.unverified()
        service.answered()
        assert commits == [1] and not service.warm.unverified()
        assert mcp_search(service, "fortnightly") == [files["nightly"].stem]
        service.propose("The cron job rotates the logs at midnight", "fact")
        assert len(mcp_search(service, "cron rotates logs midnight")) == 1
    finally:
        service.watcher.stop()


def test_mcp_begins_the_check_once_the_reply_is_flushed() -> None:
    """``Answered`` calls back after the SDK's flush of a message, not at its write."""
    from memx_cli.agents.mcp_stdio import Answered

    calls: list[str] = []

    class Out:
        async def write(self, text: str) -> int:
            calls.append(f"write {text.strip()}")
            return len(text)

        async def flush(self) -> None:
            calls.append("flush")

    async def reply() -> None:
        out = Answered(Out(), lambda: calls.append("answered"))
        assert await out.write('{"id": 1}\n') == 10
        assert calls == ['write {"id": 1}']
        await out.flush()

    import anyio

    anyio.run(reply)
    assert calls == ['write {"id": 1}', "flush", "answered"]


@pytest.mark.parametrize("quiet", [True, False])
def test_the_idle_server_carries_the_marks_through_changes_it_took_in(
        memx: Memx, repo: Path, scans: list[str], large: None,  # noqa: F811
        quiet: bool) -> None:
    """A file added by hand while the server watches: its check of the named file drops
    ``held`` (the marks moved), and the next server would check in full. Once idle,
    the server takes the marks, lets its watcher bring the index up to date, and
    records them: the next server's first open trusts the index and finds the file.
    Control: marks too recent to tell a later change apart are not recorded."""
    from memx_cli.server import daemon

    files = checked_store(memx, repo)
    server = daemon.Daemon(idle_timeout=60)
    try:
        first_search(server, repo, "nightly")
        verified(server)
        old = files["webhook"].stem
        new = old[:-1] + ("0" if old[-1] != "0" else "1")
        (repo / ".memx" / "memories" / f"{new}.yaml").write_text(
            files["webhook"].read_text().replace(old, new).replace("five times", "seven times"))
        assert first_search(server, repo, "seven times")[:1] == [new]  # the watcher named it
        assert "held" not in json.loads((repo / STATE).read_text())
        age(repo / ".memx")
        if not quiet:  # a folder's time of this very moment
            os.utime(repo / ".memx" / "memories")
        server.last_request -= 60
        server._compacted = False
        server.compact_when_idle()
        state = json.loads((repo / STATE).read_text())
        if not quiet:
            assert "held" not in state
            return
        assert state["held"] == list(Repo(repo).store.folder_marks())
    finally:
        server.watcher.stop()
    server = daemon.Daemon(idle_timeout=60)
    try:
        before = len(scans)
        assert first_search(server, repo, "seven times")[:1] == [new]
        assert len(scans) == before  # trusted: no look at the files before the answer
        assert server.status()["unverified"] == [str(repo / ".memx")]
    finally:
        server.watcher.stop()


# The take-in of a finished look (issue 29): the look's thread also compares its scan with
# the manifest's rows, so the take-in re-reads only the ids that differ, not every row.

def spied_compare(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The ``only`` of each index update's comparison (None: every row compared)."""
    from memx_cli.index import sync

    compared: list[Any] = []
    real = sync.compare

    def spy(store: Any, manifest: Any, seen: Any, only: Any, *args: Any, **kw: Any) -> Any:
        compared.append(None if only is None else set(only))
        return real(store, manifest, seen, only, *args, **kw)

    monkeypatch.setattr(sync, "compare", spy)
    return compared


def test_the_take_in_compares_only_the_files_the_look_found_changed(
        memx: Memx, repo: Path, large: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli.server import daemon

    files = checked_store(memx, repo)
    in_place(files["nightly"])
    staging = files["staging"]
    staging.write_text(staging.read_text().replace("Sunday", "Friday"))  # (in place too)
    compared = spied_compare(monkeypatch)
    server = daemon.Daemon(idle_timeout=60)
    try:
        assert first_search(server, repo, "fortnightly") == []  # trusted
        verified(server)
        assert compared == [{files["nightly"].stem, staging.stem}]
        assert first_search(server, repo, "fortnightly") == [files["nightly"].stem]
        assert first_search(server, repo, "Friday") == [staging.stem]
    finally:
        server.watcher.stop()


@pytest.mark.parametrize("aside", [True, False])
def test_a_look_aside_takes_in_edits_and_removals_as_a_full_check_does(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch, aside: bool) -> None:
    """An edit and a removal made behind the index: taken in from a look aside, only
    their ids are compared; the control, the index's own full check, compares every
    row; both index the same."""
    from memx_cli.index import StoreIndex
    from memx_cli.index.documents import stored_memories

    files = checked_store(memx, repo)
    in_place(files["nightly"])
    files["webhook"].unlink()
    index = StoreIndex(Repo(repo).store, None)
    compared = spied_compare(monkeypatch)
    if aside:
        found = index.look_aside()
        assert found.differs == {files["nightly"].stem, files["webhook"].stem}
        index.open_for_search(False, aside=found)
    else:
        index.open_for_search(False)
    assert compared == ([{files["nightly"].stem, files["webhook"].stem}] if aside else [None])
    manifest = index.manifest()
    assert manifest is not None
    assert set(manifest.stats()) == {p.stem for k, p in files.items() if k != "webhook"}
    assert {str(i) for i in index.ids} == {p.stem for k, p in files.items() if k != "webhook"}
    held = stored_memories(index.lexical, [files["nightly"].stem, files["webhook"].stem])
    assert list(held) == [files["nightly"].stem]
    assert "fortnightly" in held[files["nightly"].stem].content


def test_a_look_aside_during_which_the_index_moved_compares_every_row(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process wrote the index while the look read the manifest's rows: the
    rows may be newer than the state the look began from, so it names no ids."""
    from memx_cli.index import StoreIndex
    from memx_cli.index.manifest import Manifest

    files = checked_store(memx, repo)
    in_place(files["nightly"])
    index = StoreIndex(Repo(repo).store, None)
    real = Manifest.stats

    def moved(self: Manifest) -> Any:
        state = json.loads((repo / STATE).read_text())
        (repo / STATE).write_text(json.dumps({**state, "quick": "moved"}))
        return real(self)

    monkeypatch.setattr(Manifest, "stats", moved)
    found = index.look_aside()
    assert found.scanned is not None and found.differs is None
    monkeypatch.setattr(Manifest, "stats", real)
    assert index.look_aside().differs == {files["nightly"].stem}  # control


# `memx mcp` records what its watcher took in, as the memx server's idle upkeep does
# (server.upkeep.compact), so that its next start trusts the index of a large store.

def added_by_hand(repo: Path, files: dict[str, Path]) -> str:
    """A memory file copied under a new id by hand (the folder's time moves): its id."""
    old = files["webhook"].stem
    new = old[:-1] + ("0" if old[-1] != "0" else "1")
    (repo / ".memx" / "memories" / f"{new}.yaml").write_text(
        files["webhook"].read_text().replace(old, new).replace("five times", "seven times"))
    return new


@pytest.mark.parametrize("kept", [True, False])
def test_mcp_keeps_the_marks_of_what_its_watcher_took_in(
        memx: Memx, repo: Path, scans: list[str], large: None,  # noqa: F811
        kept: bool) -> None:
    """A file added by hand while `memx mcp` runs, found by its next search, drops
    ``held``; its quiet-spell upkeep (``keep``) records the marks again, and the next
    `memx mcp` trusts the index. Control: a session that ends before its quiet spell
    leaves no marks, and the next one checks every file before its first answer."""
    from memx_cli.agents.mcp_server import MemoryService

    files = checked_store(memx, repo)
    service = MemoryService(Repo(repo))
    try:
        mcp_search(service, "nightly")
        mcp_verified(service)
        new = added_by_hand(repo, files)
        assert not service.unkept
        found = anyio.run(service.read, lambda: mcp_search(service, "seven times"))
        assert found[:1] == [new]  # the watcher named it
        assert "held" not in json.loads((repo / STATE).read_text())
        assert service.unkept  # (a search or context through the tool's path)
        age(repo / ".memx")
        if kept:
            assert service.keep() and not service.unkept
            state = json.loads((repo / STATE).read_text())
            assert state["held"] == list(Repo(repo).store.folder_marks())
    finally:
        service.watcher.stop()
    service = MemoryService(Repo(repo))
    try:
        before = len(scans)
        assert mcp_search(service, "seven times")[:1] == [new]
        assert len(scans) == before + (0 if kept else 1)
        assert service.warm.unverified() == kept
    finally:
        service.watcher.stop()


def test_mcp_gives_the_keep_up_to_a_call(memx: Memx, repo: Path, large: None) -> None:
    """A call that comes during the upkeep: it stops before the next store and stays
    due (the quiet loop tries again after the next quiet spell)."""
    from memx_cli.agents.mcp_server import MemoryService

    files = checked_store(memx, repo)
    service = MemoryService(Repo(repo))
    try:
        mcp_search(service, "nightly")
        mcp_verified(service)
        added_by_hand(repo, files)
        anyio.run(service.read, lambda: mcp_search(service, "seven times"))
        age(repo / ".memx")
        service._called.set()
        real = service._called.clear
        service._called.clear = lambda: None  # type: ignore[method-assign]
        assert not service.keep() and service.unkept
        assert "held" not in json.loads((repo / STATE).read_text())
        service._called.clear = real  # type: ignore[method-assign]
        assert service.keep() and not service.unkept
        assert "held" in json.loads((repo / STATE).read_text())
    finally:
        service.watcher.stop()


def test_a_memx_mcp_process_records_the_marks_after_a_quiet_spell(
        memx: Memx, repo: Path) -> None:
    """A real `memx mcp` over stdio: a file added by hand while it runs, found by its
    search, leaves the state without marks; after a quiet spell (KEEP_AFTER) the
    process has recorded them, with nothing asked of it meanwhile."""
    import subprocess
    import sys
    import time

    from memx_cli.agents.mcp_server import KEEP_AFTER

    files = checked_store(memx, repo)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    proc = subprocess.Popen([sys.executable, "-m", "memx_cli", "mcp"], cwd=repo, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    asked = 0

    def ask(method: str, params: dict[str, Any], notify: bool = False) -> Any:
        nonlocal asked
        asked += 1
        line = {"jsonrpc": "2.0", "method": method, "params": params,
                **({} if notify else {"id": asked})}
        proc.stdin.write(json.dumps(line).encode() + b"\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        return None if notify else json.loads(proc.stdout.readline())  # type: ignore[union-attr]

    def search(query: str) -> list[str]:
        reply = ask("tools/call", {"name": "search_memory",
                                   "arguments": {"query": query, "mode": "keyword"}})
        return [hit["id"] for hit in json.loads(reply["result"]["content"][0]["text"])["results"]]

    try:
        ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "1"}})
        ask("notifications/initialized", {}, notify=True)
        assert search("nightly")[:1] == [files["nightly"].stem]
        new = added_by_hand(repo, files)
        assert search("seven times")[:1] == [new]
        assert "held" not in json.loads((repo / STATE).read_text())
        age(repo / ".memx")
        deadline = time.monotonic() + KEEP_AFTER + 20
        while ("held" not in json.loads((repo / STATE).read_text())
               and time.monotonic() < deadline):
            time.sleep(0.2)
        state = json.loads((repo / STATE).read_text())
        assert state.get("held") == list(Repo(repo).store.folder_marks())
    finally:
        proc.stdin.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 0, err
