"""The Curator on the ACE write path, end to end (`memx add` / `memx import`), with the
real bundled model on real temporary repositories (SPEC 3.2, issue 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import Memx


def add(memx: Memx, *args: str) -> tuple[str, str]:
    """(id printed on stdout, what the curator reported on stderr)."""
    result = memx("add", *args)
    assert result.code == 0, result.err
    return result.out.strip(), result.err


def memory(repo: Path, memory_id: str, archived: bool = False) -> dict:
    import yaml

    folder = "archive" if archived else "memories"
    return yaml.safe_load((repo / ".memx" / folder / f"{memory_id}.yaml").read_text())


def files(repo: Path) -> list[str]:
    return sorted(p.stem for p in (repo / ".memx" / "memories").glob("*.yaml"))


def test_pool_size_contradiction_is_recorded_never_merged(memx: Memx, repo: Path) -> None:
    old, said = add(memx, "Redis pool size 10 is enough")
    assert said == ""
    new, said = add(memx, "Redis pool size must be at least 50 for stability")
    assert said == f"conflicts with {old}\n"
    assert files(repo) == sorted([old, new])
    assert memory(repo, old)["conflicts_with"] == [new]
    assert memory(repo, new)["conflicts_with"] == [old]
    assert memory(repo, old)["content"] == "Redis pool size 10 is enough"
    assert "mention_count" not in memory(repo, old)


def test_same_sentence_twice_is_one_memory_mentioned_twice(memx: Memx, repo: Path) -> None:
    first, _ = add(memx, "Use pnpm, not npm, in this repo", "--tag", "tooling")
    again, said = add(memx, "use pnpm, not npm, in this repo.", "--tag", "js")
    assert again == first
    assert said == f"skipped (duplicate of {first})\n"
    assert files(repo) == [first]
    stored = memory(repo, first)
    assert (stored["mention_count"], stored["tags"]) == (2, ["tooling", "js"])
    assert stored["content"] == "Use pnpm, not npm, in this repo"


def test_near_duplicate_is_merged_keeping_the_fuller_text(memx: Memx, repo: Path) -> None:
    first, _ = add(memx, "Integration tests need a local Redis on port 6379")
    out = json.loads(memx.ok("add", "Integration tests need a local Redis running on port 6379",
                             "--json"))
    assert (out["action"], out["other"]) == ("merged into", first)
    assert out["message"] == f"merged into {first}"
    assert out["memory"]["id"] == first
    assert files(repo) == [first]
    stored = memory(repo, first)
    assert stored["content"] == "Integration tests need a local Redis running on port 6379"
    assert stored["mention_count"] == 2


def test_merge_content_strategy_appends_what_is_new(memx: Memx, repo: Path) -> None:
    memx.ok("config", "set", "ace.curator.merge_strategy", "merge_content")
    memx.ok("config", "set", "ace.curator.dedup_threshold", "0.8")
    first, _ = add(memx, "Integration tests need a local Redis on port 6379.")
    _, said = add(memx, "Integration tests need a local Redis running on port 6379. "
                        "Start it with docker compose up redis.")
    assert said == f"merged into {first}\n"
    assert memory(repo, first)["content"] == (
        "Integration tests need a local Redis on port 6379. Start it with docker compose up redis.")


def test_timeout_change_supersedes_and_ranks_first(memx: Memx, repo: Path) -> None:
    old, _ = add(memx, "set timeout to 300ms")
    new, said = add(memx, "changed the timeout to 500ms")
    assert said == f"supersedes {old}\n"
    assert memory(repo, old)["superseded_by"] == new
    assert memory(repo, new)["supersedes"] == [old]
    found = json.loads(memx.ok("search", "timeout", "--json"))["results"]
    assert [r["id"] for r in found] == [new, old]
    shown = memx.ok("show", old)
    assert shown.endswith(
        f"superseded_by: {new}\n"
        "# supersede chain, oldest first:\n"
        f"#   {old}  set timeout to 300ms  (this memory)\n"
        f"#   {new}  changed the timeout to 500ms  (current)\n")
    assert json.loads(memx.ok("show", new, "--json"))["chain"] == [old, new]


def test_chinese_value_change_supersedes(memx: Memx) -> None:
    old, _ = add(memx, "超时时间设为300毫秒")
    _, said = add(memx, "超时时间改为500毫秒")
    assert said == f"supersedes {old}\n"


def test_negation_is_a_conflict_shown_by_show(memx: Memx) -> None:
    old, _ = add(memx, "Run the linter before every push")
    new, said = add(memx, "Never run the linter before a push")
    assert said == f"conflicts with {old}\n"
    assert memx.ok("show", new).endswith(
        f"# conflicts with:\n#   {old}  Run the linter before every push\n")


def test_different_numbers_are_never_merged(memx: Memx, repo: Path) -> None:
    # The model barely sees digits: these two are cosine 1.0 to it.
    a, said_a = add(memx, "memory 0")
    b, said_b = add(memx, "memory 1")
    assert (said_a, said_b) == ("", "")
    assert files(repo) == sorted([a, b])


def test_only_the_same_scope_and_domain_are_compared(memx: Memx, repo: Path) -> None:
    text = "Deploys go out on Tuesdays after the standup"
    ops, said = add(memx, text, "--domain", "ops")
    assert said == ""
    _, said = add(memx, text, "--domain", "sales")
    assert said == ""  # both have a domain and they differ: not compared
    _, said = add(memx, text, "--scope", "workspace:feature-x")
    assert said == ""  # another scope
    _, said = add(memx, text, "--domain", "ops", "--topic", "release")
    assert said == f"skipped (duplicate of {ops})\n"  # the first has no topic: compared
    assert len(files(repo)) == 3


def test_policies_and_facts_are_not_merged(memx: Memx, repo: Path) -> None:
    """A fact is not folded into a policy; a policy in the fact's very words supersedes
    it (issue 27), and a fact never touches a policy."""
    fact, _ = add(memx, "Every change needs a review before merging")
    _, said = add(memx, "Every change needs a review before merging", "--kind", "policy")
    assert said == f"supersedes {fact}\n"
    _, said = add(memx, "Every change needs a review before merging")
    assert said == ""
    assert len(files(repo)) == 3


def test_raw_writes_skip_the_curator(memx: Memx, repo: Path) -> None:
    add(memx, "exactly the same", "--raw")
    _, said = add(memx, "exactly the same", "--raw")
    assert said == ""
    assert len(files(repo)) == 2


def test_confidence_rises_by_the_mentioning_source_veracity(memx: Memx, repo: Path) -> None:
    record = json.dumps({"content": "Staging runs on Kubernetes 1.29"})
    out = json.loads(memx.ok("import", "-", "--json", input=record))
    first = out["imported"][0]
    assert memory(repo, first)["confidence"] == 0.6  # imported
    _, said = add(memx, "Staging runs on Kubernetes 1.29")
    assert said == f"skipped (duplicate of {first})\n"
    assert memory(repo, first)["confidence"] == 0.7  # + 0.1 x stated (1.0)
    # another import naming the same fact (re-running the same records adds nothing)
    memx.ok("import", "-", input=json.dumps({"content": "Staging runs on Kubernetes 1.29",
                                             "source": {"type": "import", "file": "b.json"}}))
    stored = memory(repo, first)
    assert (stored["confidence"], stored["mention_count"]) == (0.76, 3)  # + 0.1 x imported


def test_import_is_curated_and_reports_each_decision(memx: Memx, repo: Path) -> None:
    old, _ = add(memx, "set timeout to 300ms")
    records = [{"content": "changed the timeout to 500ms"},
               {"content": "Use pnpm, not npm, in this repo"},
               {"content": "use pnpm, not npm, in this repo"}]
    result = memx("import", "-", input="\n".join(json.dumps(r) for r in records))
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "Imported 2 memories, 1 folded into existing memories"
    newest = memory(repo, old)["superseded_by"]
    pnpm = next(m for m in files(repo) if m not in (old, newest))
    assert lines[1:] == [f"  supersedes {old}: changed the timeout to 500ms",
                         f"  skipped (duplicate of {pnpm}): Use pnpm, not npm, in this repo"]
    assert memory(repo, pnpm)["mention_count"] == 2


def test_import_json_lists_every_result(memx: Memx) -> None:
    out = json.loads(memx.ok("import", "-", "--json", input=json.dumps(
        [{"content": "Cache keys expire after one hour"},
         {"content": "Cache keys expire after one hour"}])))
    kept = out["imported"]
    assert len(kept) == 1
    assert out["results"] == [
        {"id": kept[0], "action": "added", "other": None, "message": "added"},
        {"id": kept[0], "action": "skipped", "other": kept[0],
         "message": f"skipped (duplicate of {kept[0]})"}]


def test_without_the_model_jaccard_still_dedups_and_supersedes(memx: Memx, repo: Path,
                                                               tmp_path: Path) -> None:
    memx.ok("config", "set", "embedding.model", str(tmp_path / "no-such-model"), "--local")
    warning = ("memx: warning: embedding model unavailable; the curator compares memories "
               "by shared words (Jaccard)\n")
    first, said = add(memx, "Use pnpm, not npm, in this repo")
    assert said == warning
    _, said = add(memx, "Use pnpm, not npm, in this repo!")
    assert said == warning + f"skipped (duplicate of {first})\n"
    old, _ = add(memx, "set timeout to 300ms")
    _, said = add(memx, "changed the timeout to 500ms")
    assert said == warning + f"supersedes {old}\n"


@pytest.mark.parametrize("count", [1, 3])
def test_large_stores_take_candidates_from_the_index(memx: Memx, repo: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     count: int) -> None:
    from memx_cli import curator

    monkeypatch.setattr(curator, "SMALL_STORE", 0)  # every store counts as large
    fillers = [f"Note {i}: the {w} service owns its own schema" for i, w in
               enumerate(["billing", "search", "auth"][:count])]
    for text in fillers:
        add(memx, text)
    old, _ = add(memx, "set timeout to 300ms")
    _, said = add(memx, "changed the timeout to 500ms")
    assert said == f"supersedes {old}\n"
    _, said = add(memx, "changed the timeout to 500ms")
    assert said.startswith("skipped (duplicate of ")
    assert (repo / ".memx" / "cache" / "manifest.db").is_file()  # the index was used


def test_restating_a_fact_that_has_a_conflict_is_a_duplicate_not_a_new_conflict(memx: Memx) -> None:
    first = memx.ok("add", "Redis pool size 10 is enough").strip()
    memx.ok("add", "Redis pool size must be at least 50 for stability")
    again = memx("add", "Redis pool size 10 is enough", "--json")
    out = json.loads(again.out)
    assert (out["action"], out["other"]) == ("skipped", first)
    assert len(json.loads(memx.ok("list", "--json"))["memories"]) == 2


def test_two_writers_adding_the_same_fact_at_once_store_it_once(memx: Memx, repo: Path) -> None:
    import os
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "memx_cli", "add", "--json",
           "Release builds need NODE_OPTIONS=--max-old-space-size=4096"]
    procs = [subprocess.Popen(cmd, cwd=repo, env={**os.environ}, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outs
    actions = sorted(json.loads(out)["action"] for out, _ in outs)
    assert actions == ["added", "skipped", "skipped"]
    [mem] = json.loads(memx.ok("list", "--json"))["memories"]
    assert mem["mention_count"] == 3


def test_large_stores_without_the_model_take_candidates_by_keyword(
        memx: Memx, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 11: a store over SMALL_STORE with no model crashed `memx add` (exit 3)."""
    from memx_cli import curator

    monkeypatch.setattr(curator, "SMALL_STORE", 0)  # every store counts as large
    memx.ok("config", "set", "embedding.model", str(tmp_path / "no-such-model"), "--local")
    add(memx, "the billing service owns its own schema")
    old, _ = add(memx, "set timeout to 300ms")
    _, said = add(memx, "changed the timeout to 500ms")
    assert said.endswith(f"supersedes {old}\n")
    _, said = add(memx, "changed the timeout to 500ms")
    assert "skipped (duplicate of " in said


def test_a_large_stores_neighbours_come_from_the_index_while_their_files_stand(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: the Curator takes an indexed neighbour from the index's stored document
    (the same Memory the file gives) while the file keeps the time and size the index
    recorded; a file changed since is read from disk."""
    from memx_cli import curator
    from memx_cli.index.keys import memory_key
    from memx_cli.store.repo import Repo

    monkeypatch.setattr(curator, "SMALL_STORE", 0)  # every store counts as large
    kept, _ = add(memx, "the billing service owns its own schema", "--tag", "db")
    edited, _ = add(memx, "set timeout to 300ms")
    found = Repo.discover(repo)
    store = found.store
    cur = curator.Curator(found, store)  # brings the index up to date
    assert cur._index is not None
    path = store.path_for(edited)
    path.write_text(path.read_text().replace("300ms", "3000ms"))  # after the index's check
    read: list[str] = []
    reader = store.read_file
    monkeypatch.setattr(store, "read_file", lambda p: read.append(p.stem) or reader(p))
    docs = list(cur._index.lexical.fetch([memory_key(kept), memory_key(edited)]).values())
    got = {m.id: m for m in cur._as_filed(cur._index, docs)}
    assert read == [edited]
    assert got[kept] == reader(store.path_for(kept))
    assert got[edited] == reader(path) and got[edited].content == "set timeout to 3000ms"
