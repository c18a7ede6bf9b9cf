"""No lost update (issue 14): concurrent votes all count; an edit merges what changed on
disk while the editor was open, or is refused and keeps the draft."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from memx_cli.store.memory import Memory
from memx_cli.store.merge3 import ConcurrentChangeError, merge
from tests.conftest import Memx, git

MEMX = [sys.executable, "-m", "memx_cli"]


def _file(repo: Path, memory_id: str) -> dict[str, object]:
    data: dict[str, object] = yaml.safe_load(
        (repo / ".memx" / "memories" / f"{memory_id}.yaml").read_text())
    return data


def _editor(tmp_path: Path, name: str, body: str) -> str:
    """An $EDITOR running ``body`` (``text`` in, ``text`` out) while it is "open"."""
    script = tmp_path / f"{name}.py"
    script.write_text("import subprocess, sys\npath = sys.argv[1]\n" + textwrap.dedent(body)
                      + "\n")
    return f"{sys.executable} {script}"


def test_concurrent_votes_are_all_counted(memx: Memx, repo: Path) -> None:
    memory_id = memx.ok("add", "the staging database is reset every night").strip()
    voters = 39
    procs = [subprocess.Popen([*MEMX, "feedback", memory_id,
                               "--helpful" if n % 3 else "--harmful"], cwd=repo,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for n in range(voters)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0] * voters, [o[1] for o in outs if o[1]]
    assert _file(repo, memory_id)["feedback"] == {"helpful": 26, "harmful": 13}


def test_an_edit_keeps_a_vote_and_a_duplicate_made_while_the_editor_was_open(
        memx: Memx, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memory_id = memx.ok("add", "deploys need two approvals").strip()
    monkeypatch.setenv("EDITOR", _editor(tmp_path, "voting", f"""
        text = open(path, encoding="utf-8").read()
        run = {MEMX!r}
        subprocess.run(run + ["feedback", "{memory_id}", "--helpful"], check=True)
        subprocess.run(run + ["add", "deploys need two approvals"], check=True)
        text = text.replace("tags: []", "").replace("scope: project", "scope: project\\ntags:\\n- deploy")
        open(path, "w", encoding="utf-8").write(text)
    """))
    assert memx.ok("edit", memory_id) == f"Updated {memory_id}\n"
    stored = _file(repo, memory_id)
    assert (stored["tags"], stored["feedback"], stored["mention_count"]) == (
        ["deploy"], {"helpful": 1, "harmful": 0}, 2)
    assert not (repo / ".memx" / "local" / "edits" / f"{memory_id}.yaml").exists()


def test_an_edit_that_clashes_with_a_change_made_meanwhile_is_refused_and_kept(
        memx: Memx, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memory_id = memx.ok("add", "the cache holds 10 entries").strip()
    other = _editor(tmp_path, "other", """
        text = open(path, encoding="utf-8").read().replace("10 entries", "20 entries")
        open(path, "w", encoding="utf-8").write(text)
    """)
    monkeypatch.setenv("EDITOR", _editor(tmp_path, "mine", f"""
        import os
        text = open(path, encoding="utf-8").read().replace("10 entries", "30 entries")
        env = dict(os.environ, EDITOR={other!r})
        subprocess.run({MEMX!r} + ["edit", "{memory_id}"], check=True, env=env)
        open(path, "w", encoding="utf-8").write(text)
    """))
    result = memx("edit", memory_id)
    assert result.code == 2
    assert result.err == (
        f"memx: error: edit refused, memory unchanged: {memory_id} changed on disk while you "
        "worked on it (field 'content' changed both ways) (your text is in "
        f".memx/local/edits/{memory_id}.yaml)\n")
    assert _file(repo, memory_id)["content"] == "the cache holds 20 entries"
    draft = repo / ".memx" / "local" / "edits" / f"{memory_id}.yaml"
    assert "the cache holds 30 entries" in draft.read_text()


def _mem(**changes: object) -> Memory:
    base = Memory(id="01m8s1y0j2w2vbtjyp73dwk2aa", content="x", created_at="2026-01-01T00:00:00Z",
                  updated_at="2026-01-01T00:00:00Z", tags=("a", "b"))
    return base.replace(**changes)


def test_the_three_way_merge_field_by_field() -> None:
    base = _mem()
    assert merge(base, _mem(tags=("a", "b", "c")), _mem(tags=("b", "d"))).tags == ("b", "c", "d")
    votes = merge(base.replace(feedback={"helpful": 2}), _mem(feedback={"helpful": 3}),
                  _mem(feedback={"helpful": 4, "harmful": 1}))
    assert votes.feedback == {"helpful": 5, "harmful": 1}
    both = merge(base, _mem(content="y", updated_at="2026-01-03T00:00:00Z"),
                 _mem(mention_count=3, updated_at="2026-01-02T00:00:00Z"))
    assert (both.content, both.mention_count, both.updated_at) == ("y", 3, "2026-01-03T00:00:00Z")
    with pytest.raises(ConcurrentChangeError):
        merge(base, _mem(content="y"), _mem(content="z"))
    assert json.dumps(merge(base, base, base).to_dict()) == json.dumps(base.to_dict())


def test_parallel_writers_readers_and_commits_lose_no_acknowledged_write(
        memx: Memx, repo: Path, tmp_path: Path) -> None:
    """adds, votes, an edit and searches at once, while commits run memx's hooks: every
    write that reported success is on disk afterwards."""
    memx.ok("hooks", "install")
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "memx store")
    voted = memx.ok("add", "the nightly build publishes to the staging bucket").strip()
    opened = tmp_path / "editor-opened"
    stored_file = repo / ".memx" / "memories" / f"{voted}.yaml"
    # open while the votes land: the votes start once the editor is open, and it saves
    # only when all 8 are on disk (the deadline only bounds a hang)
    editor = _editor(tmp_path, "tagger", f"""
        import time, yaml
        text = open(path, encoding="utf-8").read()
        open({str(opened)!r}, "w").close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            data = yaml.safe_load(open({str(stored_file)!r}, encoding="utf-8").read())
            if (data.get("feedback") or {{}}).get("helpful") == 8:
                break
            time.sleep(0.02)
        text = text.replace("tags: []", "").replace("scope: project", "scope: project\\ntags:\\n- ci")
        open(path, "w", encoding="utf-8").write(text)
    """)
    env = {**os.environ, "EDITOR": editor}
    jobs: list[tuple[str, subprocess.Popen[str]]] = []

    def start(kind: str, args: list[str]) -> None:
        jobs.append((kind, subprocess.Popen(args, cwd=repo, env=env, text=True,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)))

    start("edit", [*MEMX, "edit", voted])
    deadline = time.monotonic() + 60
    while not opened.exists():
        assert time.monotonic() < deadline and jobs[0][1].poll() is None, "no editor opened"
        time.sleep(0.02)
    for n in range(6):
        start(f"add {n}", [*MEMX, "add", f"service {n} owns the queue named q{n}"])
    for _ in range(8):
        start("vote", [*MEMX, "feedback", voted, "--helpful"])
    for n in range(3):
        start("search", [*MEMX, "search", f"queue q{n}", "--mode", "keyword"])
    for n in range(3):  # commits run the hooks (pre-commit, post-commit in the background)
        (repo / f"file{n}.txt").write_text(f"change {n}\n")
        git(repo, "add", f"file{n}.txt")
        git(repo, "commit", "-q", "-m", f"fix: handle the empty queue q{n}")
    results = []
    for kind, proc in jobs:
        out, err = proc.communicate(timeout=300)
        results.append((kind, proc.returncode, out, err))
    failed = [(k, e) for k, code, _, e in results if code != 0]
    assert failed == []
    for kind, _, out, _ in results:
        if kind.startswith("add "):
            n = kind.split()[1]
            assert _file(repo, out.strip())["content"] == f"service {n} owns the queue named q{n}"
    stored = _file(repo, voted)
    assert stored["feedback"] == {"helpful": 8, "harmful": 0}
    assert stored["tags"] == ["ci"]
