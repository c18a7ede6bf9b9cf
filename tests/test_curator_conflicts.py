"""`memx conflicts` and `memx resolve` end to end (SPEC 3.2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import Memx


def add(memx: Memx, *args: str) -> str:
    return memx.ok("add", *args).strip()


def stored(repo: Path, memory_id: str) -> dict:
    import yaml

    return yaml.safe_load((repo / ".memx" / "memories" / f"{memory_id}.yaml").read_text())


@pytest.fixture
def pool(memx: Memx) -> tuple[str, str]:
    old = add(memx, "Redis pool size 10 is enough")
    new = add(memx, "Redis pool size must be at least 50 for stability")
    return old, new


def test_conflicts_lists_a_recorded_pair(memx: Memx, pool: tuple[str, str]) -> None:
    old, new = pool
    assert memx.ok("conflicts") == (
        f"{old} <> {new}  (recorded, similarity 0.71)\n"
        "  older: Redis pool size 10 is enough\n"
        "  newer: Redis pool size must be at least 50 for stability\n"
        '  why:   different values for "pool size": 10 vs 50\n'
        f"  fix:   memx resolve {old} --keep {new} (or --keep {old}, or --not-conflict "
        f"--with {new})\n"
        "1 conflict (1 recorded, 0 detected)\n")
    data = json.loads(memx.ok("conflicts", "--json"))["conflicts"]
    assert data == [{
        "older": {"id": old, "content": "Redis pool size 10 is enough"},
        "newer": {"id": new, "content": "Redis pool size must be at least 50 for stability"},
        "similarity": data[0]["similarity"], "why": 'different values for "pool size": 10 vs 50',
        "recorded": True,
        "suggestion": f"memx resolve {old} --keep {new} (or --keep {old}, or --not-conflict "
                      f"--with {new})"}]
    assert 0.7 < data[0]["similarity"] < 0.72


def test_scan_detects_contradictions_written_without_the_curator(memx: Memx) -> None:
    old = add(memx, "set timeout to 300ms", "--raw")
    add(memx, "The frontend is built with vite", "--raw")
    new = add(memx, "changed the timeout to 500ms", "--raw")
    data = json.loads(memx.ok("conflicts", "--json"))["conflicts"]
    assert [(c["older"]["id"], c["newer"]["id"], c["recorded"], c["why"], c["suggestion"])
            for c in data] == [
        (old, new, False, 'different values for "timeout": 300ms vs 500ms',
         f"memx resolve {new} --supersede {old} --by {new}")]
    assert json.loads(memx.ok("conflicts", "--no-scan", "--json")) == {"conflicts": []}


def test_a_detected_pair_is_ordered_by_when_each_was_last_changed(memx: Memx,
                                                                   repo: Path) -> None:
    first = add(memx, "set timeout to 300ms", "--raw")
    second = add(memx, "set the timeout to 500ms", "--raw")
    pairs = json.loads(memx.ok("conflicts", "--json"))["conflicts"]
    assert [(c["older"]["id"], c["newer"]["id"]) for c in pairs] == [(first, second)]  # control
    from memx_cli.store import memory

    path = repo / ".memx" / "memories" / f"{first}.yaml"  # the first one edited since
    edited = memory.load(path.read_bytes()).replace(updated_at="2031-01-01T00:00:00Z")
    path.write_bytes(memory.dump(edited))
    pairs = json.loads(memx.ok("conflicts", "--json"))["conflicts"]
    assert [(c["older"]["id"], c["newer"]["id"]) for c in pairs] == [(second, first)]


def test_a_recorded_pair_stays_as_the_curator_wrote_it(memx: Memx, repo: Path,
                                                      pool: tuple[str, str]) -> None:
    """Recording the conflict stamps the older one's updated_at, even a while after the
    newer one was made: it stays the older one."""
    from memx_cli.store import memory

    old, new = pool
    path = repo / ".memx" / "memories" / f"{old}.yaml"
    assert memory.load(path.read_bytes()).conflicts_with == (new,)  # the curator's decision
    path.write_bytes(memory.dump(memory.load(path.read_bytes()).replace(
        updated_at="2031-01-01T00:00:00Z")))
    pairs = json.loads(memx.ok("conflicts", "--no-scan", "--json"))["conflicts"]
    assert [(c["older"]["id"], c["newer"]["id"]) for c in pairs] == [(old, new)]


def test_no_conflicts(memx: Memx) -> None:
    add(memx, "The frontend is built with vite")
    assert memx.ok("conflicts") == "No conflicts.\n"


def test_resolve_keep_supersedes_the_other_side(memx: Memx, repo: Path,
                                                pool: tuple[str, str]) -> None:
    old, new = pool
    assert memx.ok("resolve", old, "--keep", new) == f"{new} supersedes {old}\n"
    assert stored(repo, old)["superseded_by"] == new
    assert "conflicts_with" not in stored(repo, old)
    assert stored(repo, new)["supersedes"] == [old]
    assert "conflicts_with" not in stored(repo, new)
    assert memx.ok("conflicts") == "No conflicts.\n"


def test_resolve_keep_self_supersedes_every_partner(memx: Memx, repo: Path,
                                                    pool: tuple[str, str]) -> None:
    old, new = pool
    out = json.loads(memx.ok("resolve", old, "--keep", old[:14], "--json"))
    assert out == {"resolved": {"action": "supersedes", "pairs": [[old, new]],
                                "changed": [old, new]}}
    assert stored(repo, new)["superseded_by"] == old


def test_resolve_supersede_by_works_without_a_recorded_conflict(memx: Memx, repo: Path) -> None:
    old = add(memx, "Deploy with make deploy")
    new = add(memx, "Deploy with the GitHub workflow")
    assert memx.ok("resolve", "--supersede", old, "--by", new) == f"{new} supersedes {old}\n"
    assert stored(repo, old)["superseded_by"] == new
    assert memx.ok("show", new).endswith(
        "# supersede chain, oldest first:\n"
        f"#   {old}  Deploy with make deploy\n"
        f"#   {new}  Deploy with the GitHub workflow  (this memory)  (current)\n")


def test_resolve_not_conflict_removes_the_links_and_silences_the_scan(
        memx: Memx, repo: Path, pool: tuple[str, str]) -> None:
    old, new = pool
    assert memx.ok("resolve", new, "--not-conflict") == f"{new} and {old}: not a conflict\n"
    assert "conflicts_with" not in stored(repo, old)
    assert "conflicts_with" not in stored(repo, new)
    assert memx.ok("conflicts") == "No conflicts.\n"  # the scan would find them otherwise


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "choose one: --keep ID, --supersede OLD --by NEW, or --not-conflict"),
        (["--supersede", "OLD"], "--supersede OLD needs --by NEW (and --by needs --supersede)"),
        (["--not-conflict"], "name the memory: memx resolve ID ..."),
        (["--keep", "x", "--not-conflict"],
         "choose one: --keep ID, --supersede OLD --by NEW, or --not-conflict"),
    ],
)
def test_resolve_usage_errors(memx: Memx, args: list[str], message: str) -> None:
    result = memx("resolve", *args)
    assert (result.code, result.err) == (2, f"memx: error: {message}\n")


def test_resolve_errors_name_the_memory(memx: Memx) -> None:
    lone = add(memx, "The frontend is built with vite")
    result = memx("resolve", lone, "--not-conflict")
    assert result.err == (f"memx: error: {lone} has no recorded conflicts; name the other "
                          "memory with --with ID\n")
    result = memx("resolve", lone, "--keep", lone)
    assert result.err == (f"memx: error: {lone} has no recorded conflicts; to retire another "
                          "memory use --supersede OLD --by NEW\n")
    result = memx("resolve", "--supersede", lone, "--by", lone)
    assert result.err == "memx: error: a memory cannot supersede itself\n"


def test_many_pairs_of_one_cause_are_counted_not_listed(memx: Memx) -> None:
    ids = [add(memx, f"The {svc} service timeout is {n}ms", "--raw")
           for svc in ("billing", "search", "auth") for n in (100, 200, 300, 400, 500, 600, 700,
                                                              800, 900)]
    everything = json.loads(memx.ok("conflicts", "--json"))["conflicts"]
    assert len(everything) > 20 and len(ids) == 27
    out = memx.ok("conflicts").splitlines()
    assert len([x for x in out if "<>" in x]) == 20
    summary = out[out.index(f"... and {len(everything) - 20} more pairs, by cause (memx "
                            "conflicts --all prints every one):") + 1:]
    causes = {why for c in everything[20:] for why in [c["why"].split(": ")[0]]}
    assert len(summary) == len(causes) + 1
    assert sum(int(line.split()[0]) for line in summary[:-1]) == len(everything) - 20
    assert summary[-1] == f"{len(everything)} conflicts (0 recorded, {len(everything)} detected)"
    full = memx.ok("conflicts", "--all")
    assert full.count("<>") == len(everything) and "by cause" not in full


def count_parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the memory files parsed from now on, in order."""
    from memx_cli.store.files import Store

    parsed: list[str] = []
    read_file = Store.read_file

    def counted(self: Store, path: Path, data: bytes | None = None) -> object:
        parsed.append(path.name)
        return read_file(self, path, data)

    monkeypatch.setattr(Store, "read_file", counted)
    return parsed


def test_conflicts_read_the_synced_index_not_every_memory_file(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27: at 5k memories, parsing every file cost 2.5 s of the first line. The
    scan syncs the index anyway, so the memories come from its stored documents: only a
    file that changed since is parsed, and a file that is no memory warns as before."""
    for svc in ("billing", "search", "auth"):
        for n in (100, 200, 300):
            add(memx, f"The {svc} service timeout is {n}ms", "--raw")
    text, data = memx.ok("conflicts"), memx.ok("conflicts", "--json")
    assert text.endswith("9 conflicts (0 recorded, 9 detected)\n")
    parsed = count_parsed(monkeypatch)
    assert (memx.ok("conflicts"), memx.ok("conflicts", "--json")) == (text, data)
    assert parsed == []
    memories = repo / ".memx" / "memories"
    edited = sorted(memories.glob("*.yaml"))[0]
    edited.write_text(edited.read_text().replace("timeout is", "timeout is not"))
    assert memx.ok("conflicts") != text
    assert parsed == [edited.name]
    edited.write_text(edited.read_text().replace("timeout is not", "timeout is"))
    (memories / "notes.yaml").write_text("just some notes\n")
    parsed.clear()
    result = memx("conflicts")
    assert (result.out, memx.ok("conflicts", "--json")) == (text, data)
    assert sorted(parsed) == sorted([edited.name, "notes.yaml"])
    assert "memx: warning: .memx/memories/notes.yaml" in result.err


def test_conflicts_from_the_index_are_those_of_the_files(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Archived, global, broken, linked and access-restricted memories: the stored
    documents give what parsing the files gives, for every role and option."""
    from memx_cli.index import listing

    from .test_server_list import richer

    richer(memx, repo)
    add(memx, "The vault token rotates every 30 days", "--raw", "--domain", "secrets")
    add(memx, "Global: the CI timeout is 10 minutes", "--raw", "--scope", "global")
    add(memx, "Global: the CI timeout is 20 minutes", "--raw", "--scope", "global")
    add(memx, "The staging database is reset every Tuesday night", "--raw")
    cases = [("conflicts",), ("conflicts", "--json"), ("conflicts", "--no-scan"),
             ("conflicts", "--all", "--json")]
    memx.ok("conflicts")  # the first scan indexes the global store too
    parsed = count_parsed(monkeypatch)

    def outputs() -> list[tuple[int, str, str]]:
        seen = []
        for role in (None, "intern"):
            if role:
                monkeypatch.setenv("MEMX_ROLE", role)
            for args in cases:
                result = memx(*args)
                seen.append((result.code, result.out, result.err))
            monkeypatch.delenv("MEMX_ROLE", raising=False)
        return seen

    from_index = outputs()
    assert parsed == [] and all(code == 0 for code, _, _ in from_index)
    assert "different values" in from_index[0][1] and "vault" not in from_index[4][1]
    monkeypatch.setattr(listing, "stored", lambda index: None)
    assert outputs() == from_index and len(parsed) > 10


def test_the_first_pairs_come_before_every_memory_is_searched(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27: the scan searched the nearest neighbours of every memory before it
    checked its first pair (0.5 s of CPU at 5k). The memories are searched a block at a
    time, in id order, and the pairs of a block are checked before the next one is
    searched; the pairs found are those one search of every memory finds. A stored
    document is made a Memory only for a pair."""
    from memx_cli.curator import review
    from memx_cli.index import listing
    from memx_cli.index.vectors import VectorIndex
    from memx_cli.jsonout import conflict_json
    from memx_cli.store.repo import Repo

    for svc in ("billing", "search", "auth", "mail"):
        for n in (100, 200, 300, 400):
            add(memx, f"The {svc} service timeout is {n}ms", "--raw")
    monkeypatch.setattr(review, "FIRST_BLOCK", 10**6)  # one search of every memory
    whole = json.loads(memx.ok("conflicts", "--json"))["conflicts"]
    assert len(whole) > 4

    searched: list[int] = []
    search_many = VectorIndex.search_many

    def counted(self: VectorIndex, queries: object, count: int) -> object:
        searched.append(len(queries))  # type: ignore[arg-type]
        return search_many(self, queries, count)

    made: list[str] = []
    memory = listing.memory

    def counted_memory(doc: dict) -> object:
        made.append(doc["id"])
        return memory(doc)

    monkeypatch.setattr(VectorIndex, "search_many", counted)
    monkeypatch.setattr(listing, "memory", counted_memory)
    monkeypatch.setattr(review, "FIRST_BLOCK", 2)
    _, pairs = review.iter_conflicts(Repo.discover(repo))
    first = next(pairs)
    # memories searched, and stored documents made Memories, before the first pair
    assert sum(searched) < 16 and len(made) < 16
    found = [first, *pairs]
    assert sum(searched) == 16 and searched[:3] == [2, 4, 8]
    key = lambda p: (p["older"]["id"], p["newer"]["id"])  # noqa: E731
    assert sorted(map(conflict_json, found), key=key) == sorted(whole, key=key)
    blocks = json.loads(memx.ok("conflicts", "--json"))["conflicts"]
    assert blocks == [conflict_json(p) for p in found]  # the same order every run


def test_progress_counts_the_memories_searched_and_the_pairs_found(
        memx: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27: past the first 20 pairs nothing is printed until the end, so the progress
    line (on a terminal, or with MEMX_PROGRESS=1) says how many pairs were found so far;
    standard output is the same as without it."""
    for svc in ("billing", "search", "auth"):
        for n in (100, 200, 300, 400, 500, 600, 700, 800, 900):
            add(memx, f"The {svc} service timeout is {n}ms", "--raw")
    quiet = memx.ok("conflicts")
    total = int(quiet.splitlines()[-1].split()[0])
    assert total > 20
    monkeypatch.setenv("MEMX_PROGRESS", "1")
    result = memx("conflicts")
    assert result.out == quiet
    assert f"memx: checking similar memories 27/27 (100%), {total} conflicts found" in result.err
    assert memx("conflicts", "--json").err == ""
