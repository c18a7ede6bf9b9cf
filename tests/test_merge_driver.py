"""memx's merge driver for memory files (issue 17): real clones, a bare remote and
`git pull`; sets, counters and timestamps merge field by field, two content edits keep
both versions linked by a recorded conflict, and nothing ever leaves conflict markers."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memx_cli.store import memory
from memx_cli.store.memory import Memory

from .conftest import Memx, git


@dataclass
class Team:
    origin: Path
    alice: Path
    bob: Path
    memory_id: str


def _path(clone: Path, memory_id: str, folder: str = "memories") -> Path:
    return clone / ".memx" / folder / f"{memory_id}.yaml"


def _read(clone: Path, memory_id: str, folder: str = "memories") -> Memory:
    return memory.load(_path(clone, memory_id, folder).read_bytes())


def _edit(clone: Path, memory_id: str, message: str, **changes: Any) -> None:
    mem = _read(clone, memory_id)
    _path(clone, memory_id).write_bytes(memory.dump(mem.replace(**changes)))
    git(clone, "commit", "-q", "-am", message)


def _pull(clone: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-c", "pull.rebase=false", "pull", "-q", "--no-edit"],
                          cwd=clone, capture_output=True, text=True)


@pytest.fixture
def team(memx: Memx, repo: Path, tmp_path: Path) -> Team:
    """A store with one memory, pushed to a bare remote and cloned twice; each clone ran
    `memx hooks install` (what registers the driver in a fresh clone)."""
    memory_id = memx.ok("add", "Deploys run from the release branch", "--tag", "deploy").strip()
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "memx store")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    clones = []
    for name in ("alice", "bob"):
        clone = tmp_path / name
        git(tmp_path, "clone", "-q", str(origin), str(clone))
        out = memx.ok("hooks", "install", "--hooks", "post-merge,post-rewrite", cwd=clone)
        assert out.endswith("  merge driver   set merge.memx.driver in .git/config\n")
        clones.append(clone)
    return Team(origin, clones[0], clones[1], memory_id)


def test_init_commits_the_attributes_and_registers_the_driver(memx: Memx, repo: Path) -> None:
    assert (repo / ".memx" / ".gitattributes").read_text() == (
        "# memx: merge memory files field by field (see docs/git.md)\n"
        "memories/*.yaml merge=memx\narchive/*.yaml merge=memx\n")
    assert git(repo, "check-attr", "merge", ".memx/memories/x.yaml") == (
        ".memx/memories/x.yaml: merge: memx\n")
    assert git(repo, "config", "merge.memx.driver").endswith(
        " -m memx_cli merge-file %O %A %B %P\n")
    assert "merge-file" not in memx.ok("--help")


def test_a_tag_and_votes_from_two_clones_pull_cleanly_and_add_up(memx: Memx, team: Team) -> None:
    mid = team.memory_id
    memx.ok("feedback", mid, "--helpful", cwd=team.alice)
    _edit(team.alice, mid, "tag ci", tags=("deploy", "ci"), updated_at="2026-11-02T08:00:00Z")
    git(team.alice, "push", "-q")
    memx.ok("feedback", mid, "--helpful", cwd=team.bob)
    memx.ok("feedback", mid, "--harmful", cwd=team.bob)
    _edit(team.bob, mid, "tag release, untag deploy", tags=("release",), mention_count=3,
          updated_at="2026-11-03T08:00:00Z")
    pulled = _pull(team.bob)
    assert (pulled.returncode, pulled.stderr) == (0, "")
    merged = _read(team.bob, mid)
    assert merged.tags == ("release", "ci")  # deploy removed by bob, ci added by alice
    assert dict(merged.feedback) == {"helpful": 2, "harmful": 1}
    assert merged.mention_count == 3
    assert merged.updated_at == "2026-11-03T08:00:00Z"
    assert git(team.bob, "status", "--porcelain") == ""
    assert memx.ok("validate", cwd=team.bob) == "1 memory file(s) OK\n"
    # and back: alice pulls bob's merge as a fast-forward, the same bytes
    git(team.bob, "push", "-q")
    assert _pull(team.alice).returncode == 0
    assert _path(team.alice, mid).read_bytes() == _path(team.bob, mid).read_bytes()


def test_two_content_edits_keep_both_versions_linked_by_a_conflict(memx: Memx,
                                                                    team: Team) -> None:
    mid = team.memory_id
    _edit(team.alice, mid, "alice", content="Deploys run from the main branch",
          updated_at="2026-11-02T08:00:00Z")
    git(team.alice, "push", "-q")
    memx.ok("feedback", mid, "--helpful", cwd=team.bob)
    _edit(team.bob, mid, "bob", content="Deploys run from tagged commits only",
          updated_at="2026-11-03T08:00:00Z")
    pulled = _pull(team.bob)
    assert pulled.returncode == 0, pulled.stderr
    kept = _read(team.bob, mid)
    assert kept.content == "Deploys run from tagged commits only"  # this side stays
    assert dict(kept.feedback) == {"helpful": 1, "harmful": 0}
    (copy_id,) = kept.conflicts_with
    copy = _read(team.bob, copy_id)
    assert copy.content == "Deploys run from the main branch"
    assert copy.conflicts_with == (mid,) and copy.tags == ("deploy",)
    assert pulled.stderr == (
        "memx: 1 memory(ies) had their content edited on both sides; the other version is "
        "kept as a new memory linked by a recorded conflict, staged: "
        f".memx/memories/{copy_id}.yaml. Commit it, then settle it with memx conflicts and "
        "memx resolve.\n")
    assert git(team.bob, "status", "--porcelain") == f"A  .memx/memories/{copy_id}.yaml\n"
    first = memx.ok("conflicts", "--no-scan", cwd=team.bob).splitlines()[0]
    assert first.startswith((f"{mid} <> {copy_id}  (recorded", f"{copy_id} <> {mid}  (recorded"))
    git(team.bob, "commit", "-q", "-m", "keep alice's version as a memory")
    memx.ok("resolve", mid, "--keep", copy_id, cwd=team.bob)
    assert _read(team.bob, mid).superseded_by == copy_id


@pytest.mark.parametrize("alice_at, bob_at, newer", [
    ("2030-11-02T08:00:00Z", "2030-11-03T08:00:00Z", "bob"),  # bob's text, kept, came last
    ("2030-11-04T08:00:00Z", "2030-11-03T08:00:00Z", "alice"),  # control: the copy's came last
])
def test_conflicts_label_the_version_changed_last_newer(memx: Memx, team: Team, alice_at: str,
                                                        bob_at: str, newer: str) -> None:
    mid = team.memory_id
    texts = {"alice": "Deploys run from the main branch",
             "bob": "Deploys run from tagged commits only"}
    _edit(team.alice, mid, "alice", content=texts["alice"], updated_at=alice_at)
    git(team.alice, "push", "-q")
    _edit(team.bob, mid, "bob", content=texts["bob"], updated_at=bob_at)
    assert _pull(team.bob).returncode == 0
    (copy_id,) = _read(team.bob, mid).conflicts_with
    (pair,) = json.loads(memx.ok("conflicts", "--no-scan", "--json", cwd=team.bob))["conflicts"]
    ids = {"alice": copy_id, "bob": mid}
    older = "alice" if newer == "bob" else "bob"
    assert (pair["older"]["content"], pair["newer"]["content"]) == (texts[older], texts[newer])
    assert pair["suggestion"].startswith(f"memx resolve {ids[older]} --keep {ids[newer]} ")


def test_delete_against_edit_is_a_plain_git_conflict_with_valid_yaml(memx: Memx,
                                                                      team: Team) -> None:
    mid = team.memory_id
    memx.ok("rm", "-y", mid, cwd=team.alice)
    git(team.alice, "commit", "-q", "-am", "forget it")
    git(team.alice, "push", "-q")
    memx.ok("feedback", mid, "--helpful", cwd=team.bob)
    git(team.bob, "commit", "-q", "-am", "vote")
    pulled = _pull(team.bob)
    assert pulled.returncode == 1
    assert f"CONFLICT (modify/delete): .memx/memories/{mid}.yaml deleted in" in pulled.stdout
    # git leaves bob's edited file as it was: a valid memory, no markers
    assert dict(_read(team.bob, mid).feedback) == {"helpful": 1, "harmful": 0}
    assert memx.ok("validate", cwd=team.bob) == "1 memory file(s) OK\n"


def _unmerged_problems(memx: Memx, clone: Path) -> list[str]:
    report = json.loads(memx("doctor", "--json", cwd=clone).out)["doctor"]
    return [p for p in report["problems"] if "unmerged" in p]


@pytest.mark.parametrize("deleter", ["alice", "bob"])
def test_doctor_names_a_memory_a_merge_left_deleted_on_one_side(memx: Memx, team: Team,
                                                                 deleter: str) -> None:
    # walk15: after a modify/delete conflict validate says the files are OK (they are) and
    # doctor said 'No problems found.' while git waited for a decision on the memory
    mid = team.memory_id
    editor = "bob" if deleter == "alice" else "alice"
    memx.ok("rm", "-y", mid, cwd=getattr(team, deleter))
    git(getattr(team, deleter), "commit", "-q", "-am", "forget it")
    memx.ok("feedback", mid, "--helpful", cwd=getattr(team, editor))
    git(getattr(team, editor), "commit", "-q", "-am", "vote")
    git(team.alice, "push", "-q")
    assert _unmerged_problems(memx, team.bob) == []  # control: nothing merged yet
    assert _pull(team.bob).returncode == 1
    sides = ("deleted in HEAD, edited on the other side" if deleter == "bob"
             else "edited in HEAD, deleted on the other side")
    assert _unmerged_problems(memx, team.bob) == [
        f".memx/memories/{mid}.yaml: unmerged ({sides}; git add it to keep the memory, "
        "git rm it to let it go)"]
    assert memx("doctor", cwd=team.bob).code == 1
    git(team.bob, "add", "-A", ".memx")
    git(team.bob, "commit", "-q", "--no-edit")
    assert _unmerged_problems(memx, team.bob) == []


def test_archiving_against_an_edit_follows_the_rename(memx: Memx, team: Team) -> None:
    mid = team.memory_id
    archived = _path(team.alice, mid, "archive")
    archived.parent.mkdir()
    git(team.alice, "mv", f".memx/memories/{mid}.yaml", f".memx/archive/{mid}.yaml")
    mem = memory.load(archived.read_bytes())
    archived.write_bytes(memory.dump(mem.replace(tags=("deploy", "old"))))
    git(team.alice, "commit", "-q", "-am", "archive")
    git(team.alice, "push", "-q")
    memx.ok("feedback", mid, "--helpful", cwd=team.bob)
    _edit(team.bob, mid, "tag", tags=("deploy", "infra"))
    pulled = _pull(team.bob)
    assert (pulled.returncode, pulled.stderr) == (0, "")
    assert not _path(team.bob, mid).exists()
    merged = _read(team.bob, mid, "archive")
    assert merged.tags == ("deploy", "infra", "old") and dict(merged.feedback) == {"helpful": 1, "harmful": 0}


def test_a_hundred_memories_touched_on_two_branches_merge_without_conflict(
        memx: Memx, repo: Path) -> None:
    records = "".join(json.dumps({"content": f"Service {n} listens on port {8000 + n}"}) + "\n"
                      for n in range(100))
    ids = json.loads(memx.ok("import", "--raw", "--json", "-", input=records))["imported"]
    assert len(ids) == 100
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "store")
    git(repo, "branch", "topic")
    for n, mid in enumerate(ids):
        mem = _read(repo, mid)
        _path(repo, mid).write_bytes(memory.dump(mem.replace(
            tags=(f"main-{n}",), feedback={"helpful": 1}, mention_count=2)))
    git(repo, "commit", "-q", "-am", "main votes")
    git(repo, "checkout", "-q", "topic")
    for n, mid in enumerate(ids):
        mem = _read(repo, mid)
        _path(repo, mid).write_bytes(memory.dump(mem.replace(
            tags=(f"topic-{n}",), feedback={"helpful": 2, "harmful": 1}, mention_count=4)))
    git(repo, "commit", "-q", "-am", "topic votes")
    git(repo, "checkout", "-q", "main")
    merged = subprocess.run(["git", "merge", "-q", "--no-edit", "topic"], cwd=repo,
                            capture_output=True, text=True)
    assert (merged.returncode, merged.stderr) == (0, "")
    for n, mid in enumerate(ids):
        mem = _read(repo, mid)
        assert mem.tags == (f"main-{n}", f"topic-{n}")
        assert dict(mem.feedback) == {"helpful": 3, "harmful": 1}
        assert mem.mention_count == 5
    assert memx.ok("validate") == "100 memory file(s) OK\n"


def test_doctor_names_a_clone_without_the_driver(memx: Memx, repo: Path) -> None:
    assert "merge:      memx driver\n" in memx.ok("doctor")
    git(repo, "config", "--unset", "merge.memx.driver")
    result = memx("doctor")
    assert result.code == 1
    assert ("problem:    this clone has no memx merge driver: merges of memory files fall back "
            "to git's line merge; run memx hooks install\n") in result.out
    memx.ok("hooks", "install", "--hooks", "post-merge")
    assert memx.ok("doctor").endswith("No problems found.\n")


def _driver_files(tmp_path: Path, base: bytes, ours: bytes, theirs: bytes) -> list[str]:
    names = []
    for name, data in (("base", base), ("ours", ours), ("theirs", theirs)):
        (tmp_path / name).write_bytes(data)
        names.append(str(tmp_path / name))
    return names


def _mem(**changes: Any) -> Memory:
    values: dict[str, Any] = {"id": "01jd3k7m2xaaaaaaaaaaaaaaaa", "content": "Use uv to install",
                              "created_at": "2026-11-01T12:00:00Z",
                              "updated_at": "2026-11-01T12:00:00Z", "tags": ("python",)}
    values.update(changes)
    return Memory(**values)


@pytest.mark.parametrize(("theirs", "reason"), [
    (b"<<<<<<< HEAD\ncontent: x\n=======\ncontent: y\n>>>>>>> topic\n",
     "the other side is not a valid memory (.memx/memories/01jd3k7m2xaaaaaaaaaaaaaaaa.yaml:1: "
     "merge-conflict marker; resolve the conflict, then run memx validate)"),
    (memory.dump(_mem(id="01jd3k7m2xbbbbbbbbbbbbbbbb")),
     "the two sides are different memories (their ids differ)"),
])
def test_the_driver_never_writes_garbage(memx: Memx, tmp_path: Path, theirs: bytes,
                                         reason: str) -> None:
    ours = memory.dump(_mem(tags=("python", "tooling")))
    base, ours_file, theirs_file = _driver_files(tmp_path, memory.dump(_mem()), ours, theirs)
    pathname = ".memx/memories/01jd3k7m2xaaaaaaaaaaaaaaaa.yaml"
    result = memx("merge-file", base, ours_file, theirs_file, pathname)
    assert result.code == 1 and result.out == ""
    assert result.err == (f"memx merge-file: {pathname}: {reason}; kept this side's version "
                          "unchanged, settle it by hand (memx validate checks it)\n")
    assert Path(ours_file).read_bytes() == ours  # untouched: still valid YAML


def test_the_driver_merges_an_addition_made_on_both_sides(memx: Memx, tmp_path: Path) -> None:
    ours = _mem(tags=("python", "a"), feedback={"helpful": 2}, updated_at="2026-11-02T00:00:00Z")
    theirs = _mem(tags=("b",), feedback={"helpful": 1, "harmful": 1}, mention_count=3)
    base, ours_file, theirs_file = _driver_files(tmp_path, b"", memory.dump(ours),
                                                 memory.dump(theirs))
    assert memx.ok("merge-file", base, ours_file, theirs_file,
                   ".memx/memories/01jd3k7m2xaaaaaaaaaaaaaaaa.yaml") == ""
    merged = memory.load(Path(ours_file).read_bytes())
    # no common ancestor: sets are unions, counters the larger of the two
    assert merged.tags == ("python", "a", "b")
    assert dict(merged.feedback) == {"helpful": 2, "harmful": 1} and merged.mention_count == 3
    assert merged.updated_at == "2026-11-02T00:00:00Z"


def test_fields_merge_by_kind() -> None:
    from memx_cli.operations.merge_file import merge_memories

    base = _mem(valid_until="2027-01-01T00:00:00Z", section="tools")
    ours = base.replace(section="workflow", valid_until="2027-06-01T00:00:00Z",
                        updated_at="2026-11-03T00:00:00Z", mention_count=2)
    theirs = base.replace(section="commands", valid_until="2027-03-01T00:00:00Z",
                          updated_at="2026-11-02T00:00:00Z", tags=(), topic="installs")
    outcome = merge_memories(base, ours, theirs)
    merged = outcome.memory
    assert outcome.copy is None
    assert merged.section == "workflow"  # both changed it: the side edited last
    assert merged.topic == "installs"  # one side changed it
    assert merged.tags == ()  # removed on one side
    assert merged.valid_until == "2027-06-01T00:00:00Z"  # the later date
    assert merged.mention_count == 2
    # an expiry dropped on one side while the other moved it: no expiry is the latest
    assert merge_memories(base, ours.replace(valid_until=None), theirs).memory.valid_until is None


def test_pull_with_rebase_merges_votes_too(memx: Memx, team: Team) -> None:
    mid = team.memory_id
    memx.ok("feedback", mid, "--helpful", cwd=team.alice)
    git(team.alice, "commit", "-q", "-am", "alice votes")
    git(team.alice, "push", "-q")
    memx.ok("feedback", mid, "--helpful", cwd=team.bob)
    _edit(team.bob, mid, "bob tags", tags=("deploy", "ops"))
    pulled = subprocess.run(["git", "pull", "-q", "--rebase"], cwd=team.bob,
                            capture_output=True, text=True)
    assert (pulled.returncode, pulled.stderr) == (0, "")
    merged = _read(team.bob, mid)
    assert merged.feedback["helpful"] == 2 and merged.tags == ("deploy", "ops")
    assert git(team.bob, "log", "--format=%s", "-2") == "bob tags\nalice votes\n"


def _peak_rss_mb(argv: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run ``argv`` under a fresh Python whose only child it is: its peak RSS in MB."""
    script = ("import json, resource, subprocess, sys\n"
              "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
              "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
              "print(json.dumps([p.returncode, p.stdout, p.stderr, peak]))\n")
    outer = subprocess.run([sys.executable, "-c", script, *argv], cwd=cwd, text=True,
                           capture_output=True, timeout=120)
    code, out, err, peak = json.loads(outer.stdout)
    return subprocess.CompletedProcess(argv, code, out, err), peak


def test_a_huge_side_is_refused_from_its_size(memx: Memx, tmp_path: Path) -> None:
    # issue 26: the driver read a 300 MB file whole (943 MB RSS)
    ours = memory.dump(_mem(tags=("python",)))
    base, ours_file, theirs_file = _driver_files(tmp_path, memory.dump(_mem()), ours, b"")
    with open(theirs_file, "wb") as handle:
        handle.truncate(300 * 1024 * 1024)  # sparse: no disk used
    pathname = ".memx/memories/01jd3k7m2xaaaaaaaaaaaaaaaa.yaml"
    started = time.monotonic()
    result, peak = _peak_rss_mb([sys.executable, "-m", "memx_cli", "merge-file", base,
                                 ours_file, theirs_file, pathname], tmp_path)
    assert time.monotonic() - started < 30  # a hang detector; it takes well under 2 s
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == (f"memx merge-file: {pathname}: the other side cannot be read "
                             f"(314572800 bytes, over the limit of 1000000); kept this side's "
                             "version unchanged, settle it by hand (memx validate checks it)\n")
    assert Path(ours_file).read_bytes() == ours
    assert peak < 200, f"{peak:.0f} MB"


def test_a_committed_attribute_that_sends_code_to_the_driver_merges_it_as_git_would(
        memx: Memx, team: Team) -> None:
    """A `.gitattributes` that says `* merge=memx` (committed by anyone) hands every file to
    the driver: a file that is no memory file is merged as git merges text (walk17: the
    driver refused it and left this side alone, without conflict markers)."""
    (team.alice / ".gitattributes").write_text("* merge=memx\n")
    (team.alice / "code.py").write_text("one\ntwo\nthree\nfour\n")
    git(team.alice, "add", ".gitattributes", "code.py")
    git(team.alice, "commit", "-q", "-m", "attributes")
    git(team.alice, "push", "-q", "origin", "HEAD")
    assert _pull(team.bob).returncode == 0
    for clone, first, last in ((team.alice, "one", "four (alice)"),
                               (team.bob, "one (bob)", "four")):
        (clone / "code.py").write_text(f"{first}\ntwo\nthree\n{last}\n")
        git(clone, "commit", "-q", "-am", "edit")
    git(team.alice, "push", "-q", "origin", "HEAD")
    assert _pull(team.bob).returncode == 0  # different lines: clean, as without the driver
    assert (team.bob / "code.py").read_text() == "one (bob)\ntwo\nthree\nfour (alice)\n"
    # control: the same line changed on both sides is a conflict with git's markers
    (team.alice / "code.py").write_text("ONE\ntwo\nthree\nfour (alice)\n")
    git(team.alice, "commit", "-q", "-am", "alice again")
    git(team.alice, "push", "-q", "origin", "HEAD")
    (team.bob / "code.py").write_text("uno\ntwo\nthree\nfour (alice)\n")
    git(team.bob, "commit", "-q", "-am", "bob again")
    pulled = _pull(team.bob)
    assert pulled.returncode == 1
    assert "memx merge-file: code.py: not a memory file; merged as text" in pulled.stderr
    assert (team.bob / "code.py").read_text() == ("<<<<<<< this side\nuno\n=======\nONE\n"
                                                  ">>>>>>> other side\ntwo\nthree\nfour (alice)\n")
