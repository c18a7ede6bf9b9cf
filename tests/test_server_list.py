"""`memx list` in the memx server from the index's stored documents (issue 15): the
same output as the files give in process, without opening the memory files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from memx_cli.server import daemon
from memx_cli.store.files import Store
from memx_cli.store.repo import Repo

from .conftest import Memx
from .test_server import FULL, THIN, run, served  # noqa: F401 - a fixture

LISTS = [
    ["list"],
    ["list", "--json"],
    ["list", "--kind", "policy"],
    ["list", "--tag", "ci", "--json"],
    ["list", "--section", "commands"],
    ["list", "--scope", "global"],
    ["list", "--kind", "fact", "--tag", "nothing-has-this"],
]


def richer(memx: Memx, repo: Path) -> None:
    """Archived, linked, broken, global and access-restricted memories besides the
    fixture's facts."""
    memx.ok("add", "Run `make lint` before pushing", "--tag", "ci")  # ACE on: a section
    memx.ok("add", "--raw", "--kind", "policy", "Never force-push to the release branch",
            "--tag", "ci")
    memx.ok("add", "--raw", "Global: prefer rg over grep", "--scope", "global")
    memx.ok("add", "--raw", "The vault token rotates monthly", "--domain", "secrets")
    memx.ok("add", "The staging database is reset every Monday night")  # the Curator links it
    archived = memx.ok("add", "--raw", "An old note that was swept").strip()
    store = Repo.discover(repo).store
    store.archive_dir.mkdir(exist_ok=True)
    path = store.path_for(archived)
    path.rename(store.archive_dir / path.name)
    (store.memories_dir / "zzzzzzzzzzzzzzzzzzzzzzzzzz.yaml").write_text("schema: 1\nid: [\n")
    (repo / ".memx" / "access.yaml").write_text("grants:\n  intern: {secrets: none}\n")


def test_list_through_the_server_is_byte_identical(served: Path,  # noqa: F811
                                                   memx: Memx) -> None:
    richer(memx, served)
    intern = {**os.environ, "MEMX_ROLE": "intern"}
    for args in LISTS:
        full = run([*FULL, *args], served)
        assert full[0] == 0, full
        assert run([*THIN, *args], served) == full, args
    assert b"zzzzzzzzzzzzzzzzzzzzzzzzzz.yaml" in run([*FULL, "list"], served)[2]
    assert run([*THIN, "list"], served, intern) == run([*FULL, "list"], served, intern)
    assert b"vault token" not in run([*THIN, "list"], served, intern)[1]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The memory files parsed (Store.read_file) in this process."""
    seen: list[str] = []
    original = Store.read_file

    def counted(self: Store, path: Path, data: bytes | None = None) -> Any:
        seen.append(Path(path).stem)
        return original(self, path, data)

    monkeypatch.setattr(Store, "read_file", counted)
    return seen


def test_the_server_lists_without_reading_the_files_and_sees_edits(
        memx: Memx, repo: Path, reads: list[str]) -> None:
    first = memx.ok("add", "--raw", "The cache expires after ten minutes").strip()
    memx.ok("add", "--raw", "Deploys need two approvals")
    server = daemon.Daemon(idle_timeout=60)
    request = {"argv": ["list", "--json"], "cwd": str(repo), "env": dict(os.environ),
               "streams": {}}
    try:
        server.run(request)  # the first request syncs the index
        reads.clear()
        header, out, _ = server.run(request)
        assert header == {"status": "ok", "code": 0}
        assert b"ten minutes" in out and b"two approvals" in out
        assert reads == []
        path = Repo.discover(repo).store.path_for(first)
        text = path.read_text()
        with open(path, "r+") as handle:  # in place, same size
            handle.write(text.replace("ten minutes", "six minutes"))
        _, out, _ = server.run(request)
        assert b"six minutes" in out and b"ten minutes" not in out
        assert reads == [first]  # the sync re-read the edited file, nothing else
    finally:
        server.watcher.stop()


def test_a_stored_document_gives_back_the_memory_it_was_made_from(memx: Memx,
                                                                  repo: Path) -> None:
    from memx_cli.freshness.journal import Watched, Watcher
    from memx_cli.generator.search import Searcher
    from memx_cli.index.listing import checked, listed, memory

    (repo / "README.md").write_text("one\ntwo\n")
    memx.ok("add", "--raw", "Cache keys: see src/cache.py", "--tag", "ci", "--tag", "cache",
            "--anchor", "README.md:1-2", "--domain", "codebase", "--topic", "caching")
    memx.ok("add", "The staging database is reset every Sunday night")
    memx.ok("add", "The staging database is reset every Monday night")
    memx.ok("feedback", memx.ok("add", "--raw", "Use uv for Python envs").strip(), "--helpful")
    watcher = Watcher()
    searcher = Searcher(Repo.discover(repo), freshness=Watched(watcher))
    try:
        docs = [entry.doc for entry in listed(searcher, Repo.discover(repo).stores())[0]]
    finally:
        watcher.stop()
    files = {m.id: m for m in Repo.discover(repo).store.load_all().memories}
    assert len(docs) == len(files) == 4
    for doc in docs:
        assert memory(doc) == checked(doc) == files[doc["id"]]


def test_a_repeated_list_decodes_nothing_until_the_index_changes(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli.index import listing

    decoded: list[int] = []
    original = listing._decode

    def counted(raw: Any) -> dict[str, Any]:
        decoded.append(1)
        return original(raw)

    monkeypatch.setattr(listing, "_decode", counted)
    first = memx.ok("add", "--raw", "The cache expires after ten minutes").strip()
    gone = memx.ok("add", "--raw", "Deploys need two approvals").strip()
    server = daemon.Daemon(idle_timeout=60)
    request = {"argv": ["list"], "cwd": str(repo), "env": dict(os.environ), "streams": {}}

    def listed() -> bytes:
        decoded.clear()
        header, out, err = server.run(request)
        # on a loaded machine the watcher may say it checks in full: not an error
        said = [line for line in err.decode().splitlines()
                if not line.startswith("memx: note: the watch mark of ")]
        assert header == {"status": "ok", "code": 0} and said == [], err
        return out

    try:
        before = listed()
        assert len(decoded) == 2
        assert listed() == before and decoded == []  # the same view: nothing decoded
        path = Repo.discover(repo).store.path_for(first)
        text = path.read_text()
        with open(path, "r+") as handle:  # in place, same size
            handle.write(text.replace("ten minutes", "six minutes"))
        out = listed()
        assert b"six minutes" in out and b"ten minutes" not in out and decoded
        memx.ok("add", "--raw", "Releases are cut on Thursdays")  # another process
        out = listed()
        assert b"Thursdays" in out and decoded
        memx.ok("rm", gone, "-y")
        out = listed()
        assert b"two approvals" not in out and b"Thursdays" in out and decoded
        assert listed() == out and decoded == []
        monkeypatch.setattr(listing, "KEPT_LISTING", 1)  # more than that: not kept
        memx.ok("add", "--raw", "Tags are signed")
        assert b"signed" in listed() and len(decoded) == 3
        assert b"signed" in listed() and len(decoded) == 3
    finally:
        server.watcher.stop()


def test_a_memory_file_that_cannot_be_read_is_warned_about_through_the_server(
        served: Path) -> None:  # noqa: F811
    # walk19: a link or an oversized file in .memx/memories/ was left out of the index
    # without a problem row, so `memx list` through the server skipped it silently where
    # the same command in process warned
    store = Repo.discover(served).store
    outside = served.parent / "outside.yaml"
    outside.write_text("schema: 1\nid: 01m9yyyy000000000000000000\ncontent: linked in\n")
    (store.memories_dir / "01m9yyyy000000000000000000.yaml").symlink_to(outside)
    (store.memories_dir / "01m9zzzz000000000000000000.yaml").write_text(
        "content: " + "x" * 1_100_000 + "\n")
    full = run([*FULL, "list"], served)
    assert full[0] == 0 and full[2].decode().splitlines() == [
        "memx: warning: .memx/memories/01m9yyyy000000000000000000.yaml: not a regular "
        "file; move it out of the store (skipped)",
        "memx: warning: .memx/memories/01m9zzzz000000000000000000.yaml: 1100010 bytes, "
        "over the limit of 1000000; too large for a memory file (skipped)"]
    for args in (["list"], ["list", "--json"], ["search", "linked in"]):
        assert run([*THIN, *args], served) == run([*FULL, *args], served), args
    # control: once both are gone, neither warns
    for name in ("01m9yyyy000000000000000000", "01m9zzzz000000000000000000"):
        (store.memories_dir / f"{name}.yaml").unlink()
    assert run([*THIN, "list"], served)[2] == b"" == run([*FULL, "list"], served)[2]
