"""edit, validate, doctor and concurrent writers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import Memx


def _editor(tmp_path: Path, body: str) -> str:
    """An $EDITOR that rewrites the file with a Python snippet (``text`` in, ``text`` out)."""
    script = tmp_path / "fake_editor.py"
    script.write_text(
        "import sys\npath = sys.argv[1]\ntext = open(path, encoding='utf-8').read()\n"
        + textwrap.dedent(body)
        + "open(path, 'w', encoding='utf-8').write(text)\n"
    )
    return f"{sys.executable} {script}"


def test_edit_saves_a_valid_change(memx: Memx, repo: Path, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    mid = memx.ok("add", "pool size is 10").strip()
    monkeypatch.setenv("EDITOR", _editor(tmp_path, "text = text.replace('size is 10', 'size is 50')\n"))
    monkeypatch.setenv("MEMX_NOW", "2030-01-01T00:00:00Z")
    assert memx.ok("edit", mid) == f"Updated {mid}\n"
    mem = json.loads(memx.ok("show", mid, "--json"))["memory"]
    assert mem["content"] == "pool size is 50"
    assert mem["updated_at"] == "2030-01-01T00:00:00Z"
    assert not (repo / ".memx" / "local" / "edits" / f"{mid}.yaml").exists()


def test_edit_without_change(memx: Memx, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mid = memx.ok("add", "unchanged").strip()
    monkeypatch.setenv("EDITOR", _editor(tmp_path, ""))
    assert memx.ok("edit", mid) == "No changes.\n"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ("text = text.replace('confidence: 1.0', 'confidence: 7')",
         "field 'confidence': expected a number between 0 and 1, got 7"),
        ("text = text.replace('kind: fact', 'kind: fact\\n=======')",
         "merge-conflict marker; resolve the conflict, then run memx validate"),
    ],
)
def test_edit_refuses_invalid_and_keeps_original(memx: Memx, repo: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch, change: str,
                                                 problem: str) -> None:
    mid = memx.ok("add", "keep me").strip()
    path = repo / ".memx" / "memories" / f"{mid}.yaml"
    before = path.read_bytes()
    monkeypatch.setenv("EDITOR", _editor(tmp_path, change + "\n"))
    result = memx("edit", mid)
    assert result.code == 2
    line = 9 if "confidence" in change else 4
    assert result.err == (
        f"memx: error: edit refused, memory unchanged: .memx/memories/{mid}.yaml:{line}: "
        f"{problem} (your text is in .memx/local/edits/{mid}.yaml)\n"
    )
    assert path.read_bytes() == before
    assert (repo / ".memx" / "local" / "edits" / f"{mid}.yaml").exists()


def test_edit_cannot_change_the_id(memx: Memx, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mid = memx.ok("add", "fixed id").strip()
    other = "01aaaaaaaaaaaaaaaaaaaaaaaa"
    monkeypatch.setenv("EDITOR", _editor(tmp_path, f"text = text.replace('{mid}', '{other}')\n"))
    result = memx("edit", mid)
    assert result.code == 2
    assert f"the id cannot be changed by an edit (was {mid})" in result.err


def _broken(memx: Memx, repo: Path, text: str) -> tuple[str, Path, bytes]:
    """A memory whose file a hand edit broke: its content opens a YAML list never closed."""
    mid = memx.ok("add", text).strip()
    path = repo / ".memx" / "memories" / f"{mid}.yaml"
    path.write_text(path.read_text().replace("content: ", "content: [oops "))
    assert memx("show", mid).code == 2
    return mid, path, path.read_bytes()


def test_edit_mends_a_memory_file_a_hand_edit_broke(memx: Memx, repo: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # walk15: memx edit refused the broken file with its YAML error, so the one command
    # made to change a memory could not repair one
    mid, _, _ = _broken(memx, repo, "Migrations run with alembic upgrade head")
    keep = memx.ok("add", "The cache lives in var/cache").strip()
    monkeypatch.setenv("EDITOR", _editor(
        tmp_path, "text = text.replace('[oops ', 'AKIAIOSFODNN7EXAMPLE ')\n"))
    result = memx("edit", mid[:12])
    assert result.code == 0, result.err
    assert result.out == f"Mended {mid}: a valid memory again\n"
    assert result.err == (
        f"memx: .memx/memories/{mid}.yaml:5: invalid YAML: did not find expected ',' or ']'; "
        "opening the file as it is to mend it\n"
        "memx: masked 1 secret in the edit: aws_access_key\n")
    content = json.loads(memx.ok("show", mid, "--json"))["memory"]["content"]
    assert content == "[REDACTED:aws_access_key] Migrations run with alembic upgrade head"
    assert memx.ok("validate") == "2 memory file(s) OK\n"
    assert not list((repo / ".memx" / "local" / "edits").iterdir())
    # control: a valid memory still goes through the ordinary edit
    monkeypatch.setenv("EDITOR", _editor(tmp_path, "text = text.replace('var/', 'tmp/')\n"))
    assert memx.ok("edit", keep) == f"Updated {keep}\n"


@pytest.mark.parametrize(("change", "problem"), [
    ("", ".memx/memories/{mid}.yaml:5: invalid YAML: did not find expected ',' or ']'; "
         "the file is unchanged, still not valid\n"),
    ("text = text.replace('[oops ', '[still ')",
     "edit refused, memory unchanged: .memx/memories/{mid}.yaml:5: invalid YAML: did not "
     "find expected ',' or ']' (your text is in .memx/local/edits/{mid}.yaml)\n"),
    ("text = text.replace('[oops ', '').replace('id: ', 'id: 01aaaaaaaaaaaaaaaaaaaaaaaa\\n#')",
     "edit refused, memory unchanged: .memx/memories/{mid}.yaml: the id must stay {mid}, "
     "the file's name (your text is in .memx/local/edits/{mid}.yaml)\n"),
])
def test_a_mend_that_is_still_broken_leaves_the_file(memx: Memx, repo: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      change: str, problem: str) -> None:
    mid, path, before = _broken(memx, repo, "Migrations run with alembic upgrade head")
    monkeypatch.setenv("EDITOR", _editor(tmp_path, change + "\n"))
    result = memx("edit", mid)
    assert result.code == 2
    assert result.err.splitlines()[-1] == "memx: error: " + problem.format(mid=mid).strip()
    assert path.read_bytes() == before
    assert (repo / ".memx" / "local" / "edits" / f"{mid}.yaml").exists() == bool(change)


def test_a_role_gets_the_broken_file_s_error(memx: Memx, repo: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    mid, path, before = _broken(memx, repo, "Migrations run with alembic upgrade head")
    monkeypatch.setenv("EDITOR", _editor(tmp_path, "text = text.replace('[oops ', '')\n"))
    monkeypatch.setenv("MEMX_ROLE", "agent")
    result = memx("edit", mid)
    assert result.code == 2
    assert "invalid YAML" in result.err and "opening the file" not in result.err
    assert path.read_bytes() == before
    monkeypatch.delenv("MEMX_ROLE")  # control: without a role the same edit mends it
    assert memx.ok("edit", mid) == f"Mended {mid}: a valid memory again\n"


def _corrupt(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_validate_reports_each_problem_with_file_and_line(memx: Memx, repo: Path) -> None:
    ids = [memx.ok("add", f"memory {i}").strip() for i in range(4)]
    mems = repo / ".memx" / "memories"
    _corrupt(mems / f"{ids[0]}.yaml", "kind: fact", " kind: fact")
    _corrupt(mems / f"{ids[1]}.yaml", "scope: project", "scope: project\n<<<<<<< HEAD")
    _corrupt(mems / f"{ids[2]}.yaml", "schema: 1", "schema: 99")
    result = memx("validate")
    assert result.code == 1
    assert result.out.splitlines() == [
        f".memx/memories/{ids[0]}.yaml:3: invalid YAML: mapping values are not allowed in this context",
        f".memx/memories/{ids[1]}.yaml:6: merge-conflict marker; resolve the conflict, then run memx validate",
        f".memx/memories/{ids[2]}.yaml:1: schema 99 is newer than this memx supports (1); upgrade memx",
    ]
    assert result.err == "memx: error: 3 problem(s) in 4 file(s) checked\n"
    listed = memx("list", "--json")
    assert [m["id"] for m in json.loads(listed.out)["memories"]] == [ids[3]]
    assert listed.err.count("memx: warning:") == 3


def test_validate_duplicate_id_and_misnamed_file(memx: Memx, repo: Path) -> None:
    mid = memx.ok("add", "original").strip()
    mems = repo / ".memx" / "memories"
    (repo / ".memx" / "archive").mkdir()
    (repo / ".memx" / "archive" / f"{mid}.yaml").write_bytes((mems / f"{mid}.yaml").read_bytes())
    (mems / "01bbbbbbbbbbbbbbbbbbbbbbbb.yaml").write_bytes((mems / f"{mid}.yaml").read_bytes())
    result = memx("validate", "--json")
    assert result.code == 1
    problems = json.loads(result.out)["problems"]
    assert problems == [
        {"file": ".memx/memories/01bbbbbbbbbbbbbbbbbbbbbbbb.yaml", "line": 2,
         "message": f"id {mid} does not match the file name; rename the file to {mid}.yaml"},
        {"file": f".memx/archive/{mid}.yaml", "line": 2,
         "message": f"duplicate id {mid} (also in .memx/memories/{mid}.yaml)"},
    ]


def test_validate_named_files_only(memx: Memx, repo: Path) -> None:
    good = memx.ok("add", "good").strip()
    bad = memx.ok("add", "bad").strip()
    _corrupt(repo / ".memx" / "memories" / f"{bad}.yaml", "kind: fact", "kind: 3")
    assert memx.ok("validate", f".memx/memories/{good}.yaml") == "1 memory file(s) OK\n"
    assert memx("validate", f".memx/memories/{bad}.yaml").code == 1


def test_validate_reports_bad_config(memx: Memx, repo: Path) -> None:
    (repo / ".memx" / "config.yaml").write_text("ace:\n  retrieval:\n    max_results: lots\n")
    result = memx("validate")
    assert result.code == 1
    assert result.out == (".memx/config.yaml: configuration key 'ace.retrieval.max_results': "
                          "expected an integer, got 'lots'\n")


def test_doctor_reports_state(memx: Memx, repo: Path) -> None:
    memx.ok("add", "something")
    report = json.loads(memx.ok("doctor", "--json"))["doctor"]
    assert report["versions"]["memx"] == "0.1.0"
    assert report["store"]["memories"] == 1
    assert report["hooks"]["post-commit"] == "absent"
    assert report["problems"] == []
    assert memx.ok("doctor").endswith("No problems found.\n")
    (repo / ".memx" / "config.yaml").write_text("ace: [1\n")
    broken = memx("doctor")
    assert broken.code == 1
    assert "problem:    .memx/config.yaml:2: invalid YAML in configuration" in broken.out
    (repo / ".memx" / "config.yaml").write_text("")
    (repo / ".memx" / "access.yaml").write_text("grants:\n  intern: {secrets: maybe}\n")
    broken = memx("doctor")
    assert broken.code == 1
    assert ("problem:    .memx/access.yaml: role 'intern', domain 'secrets': expected none, "
            "read or write, got 'maybe'\n") in broken.out


def test_two_add_processes_at_the_same_moment_both_succeed(repo: Path) -> None:
    env = {**os.environ}
    cmd = [sys.executable, "-m", "memx_cli", "add"]
    procs = [subprocess.Popen(cmd + [f"concurrent {i}"], cwd=repo, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(2)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    files = sorted((repo / ".memx" / "memories").glob("*.yaml"))
    assert len(files) == 2
    assert {f.stem for f in files} == {o[0].strip() for o in outs}


def test_a_kept_draft_survives_the_next_edit(memx: Memx, repo: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    mid = memx.ok("add", "pool size is 10").strip()
    edits = repo / ".memx" / "local" / "edits"
    monkeypatch.setenv("EDITOR", _editor(
        tmp_path, "text = text.replace('confidence: 1.0', 'confidence: 7')\n"
                  "text = text.replace('size is 10', 'size is 99, typed with care')\n"))
    assert memx("edit", mid).code == 2
    kept = (edits / f"{mid}.yaml").read_text()
    assert "typed with care" in kept
    monkeypatch.setenv("EDITOR", _editor(tmp_path, "text = text.replace('is 10', 'is 50')\n"))
    assert memx.ok("edit", mid) == f"Updated {mid}\n"
    assert (edits / f"{mid}.yaml").read_text() == kept
    assert sorted(p.name for p in edits.iterdir()) == [f"{mid}.yaml"]


def test_two_edits_of_one_memory_at_once_each_have_a_draft(
        memx: Memx, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first editor is still open (its draft exists) when a second edit starts."""
    mid = memx.ok("add", "pool size is 10").strip()
    edits = repo / ".memx" / "local" / "edits"
    edits.mkdir(parents=True)
    (edits / f"{mid}.yaml").write_text("the first editor's unsaved work\n")
    monkeypatch.setenv("EDITOR", _editor(
        tmp_path, "assert path.endswith('.2.yaml'), path\ntext = text.replace('is 10', 'is 20')\n"))
    assert memx.ok("edit", mid) == f"Updated {mid}\n"
    assert (edits / f"{mid}.yaml").read_text() == "the first editor's unsaved work\n"
    assert not (edits / f"{mid}.2.yaml").exists()


def test_a_mend_refuses_a_file_changed_while_the_editor_was_open(
        memx: Memx, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mid, path, _ = _broken(memx, repo, "Migrations run with alembic upgrade head")
    # a teammate's version arrives (git pull) while the editor is open
    monkeypatch.setenv("EDITOR", _editor(tmp_path, (
        f"open({str(path)!r}, 'a').write('# pulled\\n')\n"
        "text = text.replace('[oops ', '')\n")))
    result = memx("edit", mid)
    assert result.code == 2
    assert (f"changed or went away while you edited it (your text is in "
            f".memx/local/edits/{mid}.yaml)") in result.err
    assert path.read_text().endswith("# pulled\n")
    # control: with nothing arriving meanwhile the same mend is written
    monkeypatch.setenv("EDITOR", _editor(tmp_path, "text = text.replace('[oops ', '')\n"))
    assert memx.ok("edit", mid) == f"Mended {mid}: a valid memory again\n"
