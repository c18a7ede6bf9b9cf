"""`memx review` end to end (issue 13): learned memories not staged yet, with provenance;
accept (stage), edit, reject (remove, a copy kept); --base; reviewed-only agents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import Memx, git

NOTE = ("User: the tests fail with `ImportError: cannot import name 'x'`\n\n"
        "Assistant: The issue is a circular import; import `x` inside `load()` instead.\n\n"
        "User: that fixed it, thanks\n\n"
        "User: Our convention: every public function needs a docstring with an example.\n")


def learn(memx: Memx, repo: Path) -> dict[str, dict[str, object]]:
    (repo / "session.txt").write_text(NOTE)
    memx.ok("ingest", "session.txt")
    listed = json.loads(memx.ok("review", "--json"))["pending"]
    return {str(p["rule"]): p for p in listed}


def staged(repo: Path) -> set[str]:
    return set(git(repo, "diff", "--cached", "--name-only").split())


def test_lists_learned_memories_with_their_provenance(memx: Memx, repo: Path) -> None:
    found = learn(memx, repo)
    assert set(found) == {"ErrorFix", "Convention"}
    fix = found["ErrorFix"]
    assert (fix["state"], fix["proposed_by"], fix["source"]) == ("new", "manual",
                                                                 {"type": "manual"})
    assert isinstance(fix["score"], int) and fix["score"] >= 30
    assert found["Convention"]["suggests_policy"] is True
    text = memx.ok("review")  # not a terminal: a list
    assert text.startswith("2 learned memories are not staged yet:\n")
    assert "suggestion: a team rule; to make every agent follow it, accept it and run: " \
        "memx policy add" in text



def test_your_own_adds_and_imports_are_counted_not_reviewed(memx: Memx, repo: Path) -> None:
    memx.ok("add", "typed by hand, not learned")
    (repo / "notes.jsonl").write_text('{"content": "imported on purpose"}\n'
                                      '{"content": "another imported note"}\n')
    memx.ok("import", "notes.jsonl")
    note = ("3 memories you added or imported are not staged either: yours, not reviewed "
            "here (git add .memx, then commit)\n")
    assert memx.ok("review") == "Nothing to review\n" + note
    assert json.loads(memx.ok("review", "--json")) == {"base": None, "pending": [],
                                                       "own_unstaged": 3}
    memx.ok("review", "--accept", "--all")  # nothing listed, nothing staged
    assert staged(repo) == set()
    # control: a learned memory beside them is listed, and the count follows the list
    found = learn(memx, repo)
    text = memx.ok("review")
    assert text.startswith("2 learned memories are not staged yet:\n")
    assert text.endswith("\n\n" + note) and "typed by hand" not in text
    # against a base, a branch's every change is listed, the person's own too
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "memories")
    listed = json.loads(memx.ok("review", "--base", "HEAD~1", "--json"))["pending"]
    assert len(listed) == 5 and {p["id"] for p in listed} >= {p["id"] for p in found.values()}
    # agents are told the learned ones only are pending: the person's own are theirs
    mine = memx.ok("add", "The release script tools/release.sh needs a clean work tree").strip()
    memx.ok("config", "set", "ace.context.reviewed_only", "true")
    task = ["context", "run the release script tools/release.sh", "--json"]
    assert mine in [f["id"] for f in json.loads(memx.ok(*task))["context"]["facts"]]


def test_accept_stages_reject_removes_and_keeps_a_copy(memx: Memx, repo: Path) -> None:
    found = learn(memx, repo)
    fix, rule = found["ErrorFix"], found["Convention"]
    out = memx.ok("review", "--accept", str(fix["id"])[:20])
    assert out.splitlines()[0] == "Accepted (staged) 1 memory"
    assert staged(repo) == {fix["path"]}
    memx.ok("review", "--reject", str(rule["id"]))
    assert not (repo / str(rule["path"])).exists()
    assert (repo / ".memx" / "local" / "rejected" / Path(str(rule["path"])).name).exists()
    assert json.loads(memx.ok("review", "--json"))["pending"] == []
    assert memx.ok("review") == "Nothing to review\n"


def test_edit_then_stage(memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = learn(memx, repo)
    editor = repo / ".." / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/inside/within/' \"$1\"\n")
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor.resolve()))
    fix = found["ErrorFix"]
    memx.ok("review", "--edit", str(fix["id"]))
    assert "within" in (repo / str(fix["path"])).read_text()
    assert staged(repo) == {fix["path"]}


def test_a_changed_committed_memory_goes_back_when_rejected(memx: Memx, repo: Path) -> None:
    found = learn(memx, repo)
    memx.ok("review", "--accept", "--all")
    git(repo, "commit", "-q", "-m", "memory")
    path = repo / str(found["ErrorFix"]["path"])
    before = path.read_text()
    path.write_text(before.replace("inside", "within"))
    [changed] = json.loads(memx.ok("review", "--json"))["pending"]
    assert changed["state"] == "changed"
    memx.ok("review", "--reject", "--all")
    assert path.read_text() == before
    on_branch = json.loads(memx.ok("review", "--base", "HEAD~1", "--json"))["pending"]
    assert {p["state"] for p in on_branch} == {"committed"} and len(on_branch) == 2


def test_rejecting_one_side_of_a_recorded_conflict_leaves_no_dangling_link(
        memx: Memx, repo: Path) -> None:
    old = memx.ok("add", "Redis pool size 10 is enough").strip()
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "memory")
    new = memx.ok("add", "Redis pool size must be at least 50 for stability").strip()
    assert json.loads(memx.ok("show", old, "--json"))["memory"]["conflicts_with"] == [new]
    memx.ok("review", "--reject", new)
    assert "conflicts_with" not in json.loads(memx.ok("show", old, "--json"))["memory"]
    assert memx("validate").code == 0
    assert json.loads(memx.ok("conflicts", "--no-scan", "--json")) == {"conflicts": []}


def test_bad_requests_are_one_line_errors(memx: Memx, repo: Path) -> None:
    learn(memx, repo)
    cases = {("review", "--accept"): "name the memories to accept (ID...) or pass --all",
             ("review", "zz"): "say what to do with them: --accept, --reject or --edit",
             ("review", "--accept", "zzzz"): "no memory pending review starts with 'zzzz'; "
                                             "see memx review",
             ("review", "--base", "nope"): "unknown base 'nope'; give a branch, tag or commit"}
    for args, message in cases.items():
        result = memx(*args)
        assert (result.code, result.err.splitlines()[-1]) == (2, f"memx: error: {message}")
    assert staged(repo) == set()


def test_two_actions_at_once_are_refused_and_nothing_is_done(memx: Memx, repo: Path) -> None:
    found = learn(memx, repo)
    fix = str(found["ErrorFix"]["id"])
    for actions, named in (("--accept", "--reject"), "--accept and --reject"), \
            (("--reject", "--edit", "--accept"), "--accept and --reject and --edit"):
        result = memx("review", *actions, fix)
        assert (result.code, result.err.splitlines()[-1]) == (
            2, f"memx: error: choose one of --accept, --reject and --edit, not {named}")
        assert (repo / str(found["ErrorFix"]["path"])).exists() and staged(repo) == set()
    # control: one action does what it says
    memx.ok("review", "--reject", fix)
    assert not (repo / str(found["ErrorFix"]["path"])).exists()


def test_agents_can_be_told_to_see_reviewed_memories_only(memx: Memx, repo: Path) -> None:
    found = learn(memx, repo)
    task = ["context", "fix the circular import in load() so the tests pass again", "--json"]
    shown = json.loads(memx.ok(*task))["context"]["facts"]
    assert [f["id"] for f in shown] == [found["ErrorFix"]["id"]]
    memx.ok("config", "set", "ace.context.reviewed_only", "true")
    assert json.loads(memx.ok(*task))["context"]["facts"] == []
    memx.ok("review", "--accept", "--all")
    shown = json.loads(memx.ok(*task))["context"]["facts"]
    assert [f["id"] for f in shown] == [found["ErrorFix"]["id"]]


def test_the_mcp_server_s_search_leaves_pending_memories_out(memx: Memx, repo: Path) -> None:
    from memx_cli.agents.mcp_server import MemoryService
    from memx_cli.store.repo import Repo

    found = learn(memx, repo)
    memx.ok("config", "set", "ace.context.reviewed_only", "true")
    query = ("circular import load", "keyword", None, 5)
    assert MemoryService(Repo(repo)).search(*query)["results"] == []
    memx.ok("review", "--accept", str(found["ErrorFix"]["id"]))
    hits = MemoryService(Repo(repo)).search(*query)["results"]
    assert [h["id"] for h in hits] == [found["ErrorFix"]["id"]]


def test_the_mcp_server_s_search_fills_its_limit_past_pending_memories(memx: Memx,
                                                                       repo: Path) -> None:
    from memx_cli.agents.mcp_server import MemoryService
    from memx_cli.store.repo import Repo

    found = learn(memx, repo)
    typed = memx.ok("add", "--raw", "A circular import in load() breaks the tests").strip()
    memx.ok("review", "--accept", typed)
    query = ("circular import load", "keyword", None, 1)
    # The learned fix ranks first, and is still pending.
    assert [h["id"] for h in MemoryService(Repo(repo)).search(*query)["results"]] == [
        found["ErrorFix"]["id"]]
    memx.ok("config", "set", "ace.context.reviewed_only", "true")
    assert [h["id"] for h in MemoryService(Repo(repo)).search(*query)["results"]] == [typed]


def test_an_agent_s_proposal_names_the_agent(memx: Memx, repo: Path) -> None:
    from memx_cli.agents.mcp_server import MemoryService
    from memx_cli.store.repo import Repo

    MemoryService(Repo(repo), agent="claude-7").propose(
        "Integration tests need the docker compose db service running.", "fact")
    [item] = json.loads(memx.ok("review", "--json"))["pending"]
    assert (item["proposed_by"], item["source"]) == (
        "agent (claude-7)", {"type": "agent", "agent": "claude-7", "via": "mcp"})
    assert "proposed by agent (claude-7)" in memx.ok("review")


def test_interactive_review_on_a_terminal(memx: Memx, repo: Path) -> None:
    """A real pseudo-terminal: the questions, one answer each, the tally."""
    import os
    import pty
    import subprocess
    import sys

    found = learn(memx, repo)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "memx_cli", "review"], cwd=repo,
                            stdin=follower, stdout=follower, stderr=follower)
    os.close(follower)
    os.write(leader, b"a\nr\n")
    output = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    assert proc.wait(timeout=60) == 0
    os.close(leader)
    text = output.decode().replace("\r\n", "\n")
    assert "[1/2]" in text and "[2/2]" in text
    assert "[a]ccept, [e]dit, [r]eject, [s]kip, [q]uit" in text
    assert text.rstrip().endswith("1 accepted, 0 edited, 1 rejected, 0 skipped")
    first = min(found.values(), key=lambda p: (str(p["id"])))
    assert staged(repo) == {first["path"]}
    assert json.loads(memx.ok("review", "--json"))["pending"] == []


def test_ids_are_read_as_everywhere_else(memx: Memx, repo: Path) -> None:
    """An id typed in capitals, with O for 0 (Crockford ids read them alike), names the
    memory as in memx show; a prefix of several is the usual ambiguous-id error."""
    found = learn(memx, repo)
    fix = str(found["ErrorFix"]["id"])
    result = memx("review", "--reject", fix[:2])  # both memories share the time prefix
    assert result.code == 2
    assert result.err.startswith(f"memx: error: '{fix[:2]}' matches 2 pending memories")
    out = memx.ok("review", "--accept", fix[:20].upper().replace("0", "O"))
    assert out.splitlines()[0] == "Accepted (staged) 1 memory"


def test_listed_ids_are_long_enough_to_name_one_memory(memx: Memx, repo: Path) -> None:
    """Ids made in one burst (an ingest) can share their first 12 characters: each is
    listed by the prefix no other memory shares, as memx list does, so memx show and
    --accept take what review printed; an id alone at 12 characters stays that short."""
    twins = ["01jd3k7m2x9qa" + "0" * 13, "01jd3k7m2x9qa" + "1" * 13]
    alone = "01jd3k7m2x9z" + "2" * 14
    for wanted, text in zip([*twins, alone], ["first twin", "second twin", "alone"]):
        made = memx.ok("add", text, "--raw").strip()
        old = repo / ".memx" / "memories" / f"{made}.yaml"
        # proposed by an agent: review lists what memx or an agent wrote, not your own
        (old.parent / f"{wanted}.yaml").write_text(
            old.read_text().replace(made, wanted).replace("type: manual", "type: agent"))
        old.unlink()
    text = memx.ok("review")
    shown = {line.split()[0] for line in text.splitlines() if line.startswith("  01")}
    assert shown == {twins[0][:14], twins[1][:14], alone[:12]}
    for prefix in shown:
        assert memx.ok("show", prefix, "--json")
    out = memx.ok("review", "--accept", twins[1][:14])
    assert out.splitlines()[1].split()[0] == twins[1][:14]
