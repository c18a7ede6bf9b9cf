"""Creating anchors: `memx add --anchor`, `memx anchor`, automatic anchors on ACE writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from memx_cli.anchors import anchor as anchors
from memx_cli.anchors.auto import block_end

from .conftest import Memx, git

DB_PY = '''import os


def connect_pool(size=10):
    """Open the connection pool."""
    pool = make_pool(size)
    return pool


class RetryPolicy:
    attempts = 3
    backoff = 0.5
'''


@pytest.fixture
def code(memx: Memx, repo: Path) -> Memx:
    (repo / "src" / "app").mkdir(parents=True)
    (repo / "src" / "app" / "db.py").write_text(DB_PY)
    (repo / "setup.cfg").write_text("[metadata]\nname = demo\n")
    git(repo, "add", "src", "setup.cfg")
    git(repo, "commit", "-q", "-m", "code")
    return memx


def stored(repo: Path, memory_id: str) -> dict:
    text = (repo / ".memx" / "memories" / f"{memory_id}.yaml").read_text()
    return yaml.safe_load(text)


def add(memx: Memx, *args: str) -> str:
    return memx.ok("add", *args).strip()


def test_add_anchor_records_passage(code: Memx, repo: Path) -> None:
    mid = add(code, "the pool opens with size 10", "--anchor", "src/app/db.py:4-7", "--raw")
    [anchor] = stored(repo, mid)["anchors"]
    head = git(repo, "rev-parse", "HEAD").strip()
    assert anchor == {
        "path": "src/app/db.py", "start_line": 4, "end_line": 7,
        "hash": anchors.passage_hash(DB_PY.splitlines()[3:7]),
        "snippet": 'def connect_pool(size=10):\n    """Open the connection pool."""\n'
                   "    pool = make_pool(size)\n    return pool",
        "commit": head,
    }


def test_hash_ignores_whitespace() -> None:
    assert anchors.passage_hash(["def f(a,b):", "  return a"]) == \
        anchors.passage_hash(["def f(a, b):", "", "        return a  "])
    assert anchors.passage_hash(["return a"]) != anchors.passage_hash(["return b"])


def test_anchor_from_subdirectory_and_top_level_file(code: Memx, repo: Path) -> None:
    mid = code.ok("add", "metadata lives here", "--anchor", "../../setup.cfg:1", "--raw",
                  cwd=repo / "src" / "app").strip()
    assert [a["path"] for a in stored(repo, mid)["anchors"]] == ["setup.cfg"]
    mid = add(code, "a whole file", "--anchor", "setup.cfg", "--raw")
    assert stored(repo, mid)["anchors"][0].keys() == {"path", "commit"}


def test_anchor_outside_repo_is_refused(code: Memx, repo: Path) -> None:
    (repo.parent / "outside.txt").write_text("secret\n")
    result = code("add", "x", "--anchor", "../outside.txt")
    assert result.code == 2
    assert result.err == ("memx: error: anchor '../outside.txt' is outside the repository; "
                          "anchors must name files inside it\n")
    assert list((repo / ".memx" / "memories").iterdir()) == []


def test_anchor_through_symlink_out_of_repo_is_refused(code: Memx, repo: Path) -> None:
    elsewhere = repo.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.txt").write_text("not ours\n")
    os.symlink(elsewhere, repo / "link")
    result = code("add", "x", "--anchor", "link/notes.txt:1")
    assert result.code == 2
    assert result.err == ("memx: error: anchor 'link/notes.txt:1' goes through a symlink out "
                          "of the repository; anchor the file inside the repository instead\n")
    assert list((repo / ".memx" / "memories").iterdir()) == []


@pytest.mark.parametrize("spec, message", [
    ("src/app/nope.py", "anchor 'src/app/nope.py': no such file in the repository"),
    ("src/app/db.py:40-50", "anchor 'src/app/db.py:40-50': src/app/db.py has only 12 lines"),
    ("src/app/db.py:7-3", "anchor 'src/app/db.py:7-3': lines must be START-END with "
                          "1 <= START <= END"),
    ("src/app/db.py:2", "anchor 'src/app/db.py:2': those lines are blank; anchor lines with "
                        "content"),
    (".git/config", "anchor '.git/config': not a file of the work tree"),
    ("src", "anchor 'src': not a regular file"),
])
def test_bad_anchor_specs(code: Memx, spec: str, message: str) -> None:
    result = code("add", "x", "--anchor", spec)
    assert (result.code, result.err) == (2, f"memx: error: {message}\n")


def test_global_memory_cannot_be_anchored(code: Memx) -> None:
    result = code("add", "x", "--scope", "global", "--anchor", "setup.cfg")
    assert result.code == 2
    assert "a global memory cannot be anchored" in result.err


def test_anchor_command_adds_later_without_duplicates(code: Memx, repo: Path) -> None:
    mid = add(code, "retries are bounded", "--raw")
    before = stored(repo, mid)
    assert "anchors" not in before
    out = code.ok("anchor", mid[:8], "src/app/db.py:10-12", "setup.cfg")
    assert out.splitlines() == [f"{mid[:12]}: anchored to src/app/db.py:10-12",
                                f"{mid[:12]}: anchored to setup.cfg"]  # the only memory
    after = stored(repo, mid)
    assert [a["path"] for a in after["anchors"]] == ["src/app/db.py", "setup.cfg"]
    assert after["updated_at"] >= before["updated_at"]
    again = json.loads(code.ok("anchor", mid, "src/app/db.py:10-12", "--json"))
    assert again["added"] == [] and len(again["anchors"]) == 2
    result = code("anchor", mid, "../x")
    assert result.code == 2 and "outside the repository" in result.err


def test_anchoring_changed_lines_again_replaces_the_stale_anchor(code: Memx,
                                                                repo: Path) -> None:
    """anchors.md: a passage that changed is re-anchored with `memx anchor`. The new
    anchor used to be added beside the stale one, which kept the memory stale."""
    mid = add(code, "the pool opens ten connections", "--raw", "--anchor",
              "src/app/db.py:4-7", "--anchor", "setup.cfg")
    db = repo / "src" / "app" / "db.py"
    db.write_text(DB_PY.replace("size=10", "size=20"))
    assert code("verify").code == 1
    assert code.ok("anchor", mid, "src/app/db.py:4-7") == (
        f"{mid[:12]}: anchored to src/app/db.py:4-7\n")
    anchors = stored(repo, mid)["anchors"]
    assert [(a["path"], a.get("start_line")) for a in anchors] == [
        ("src/app/db.py", 4), ("setup.cfg", None)]
    assert "size=20" in anchors[0]["snippet"]
    assert code.ok("verify").endswith("1 anchored memories: 1 verified, 0 stale, "
                                      "0 unverifiable\n")


# ---------------------------------------------------------------- automatic anchors


def auto(memx: Memx, repo: Path, text: str) -> list[dict]:
    return stored(repo, add(memx, text)).get("anchors", [])


def test_auto_anchor_to_named_files(code: Memx, repo: Path) -> None:
    found = auto(code, repo, "Package metadata lives in setup.cfg, not pyproject.")
    assert [(a["path"], a.get("start_line")) for a in found] == [("setup.cfg", None)]
    found = auto(code, repo, "The pool is opened in src/app/db.py:4-7 at start-up.")
    assert [(a["path"], a["start_line"], a["end_line"]) for a in found] == \
        [("src/app/db.py", 4, 7)]
    assert found[0]["hash"] == anchors.passage_hash(DB_PY.splitlines()[3:7])


def test_auto_anchor_skips_the_store_but_not_a_nested_memx_folder(code: Memx,
                                                                    repo: Path) -> None:
    """The file listing leaves out the store (git does not even walk it) and nothing
    else: a tracked or untracked file under a deeper `.memx/` is still the repo's."""
    (repo / "tools" / ".memx").mkdir(parents=True)
    (repo / "tools" / ".memx" / "render.py").write_text("print('tools')\n")
    (repo / "tools" / "lint.toml").write_text("strict = true\n")
    git(repo, "add", "tools/lint.toml")
    (repo / ".memx" / "draft.toml").write_text("x = 1\n")  # untracked, not ignored
    found = auto(code, repo, "render.py and lint.toml and draft.toml hold the settings.")
    assert sorted(a["path"] for a in found) == ["tools/.memx/render.py", "tools/lint.toml"]
    committed = add(code, "a memory the next one names", "--raw")
    git(repo, "add", ".memx")
    found = auto(code, repo, f"see {committed}.yaml and .memx/config.yaml for it")
    assert found == []


def test_auto_anchor_to_defined_symbols(code: Memx, repo: Path) -> None:
    found = auto(code, repo, "Raise the size in def connect_pool when the API times out.")
    assert [(a["path"], a["start_line"], a["end_line"]) for a in found] == \
        [("src/app/db.py", 4, 7)]
    found = auto(code, repo, "Retries are capped by `RetryPolicy` (three attempts).")
    assert [(a["path"], a["start_line"], a["end_line"]) for a in found] == \
        [("src/app/db.py", 10, 12)]


def test_auto_anchor_to_fenced_code_block(code: Memx, repo: Path) -> None:
    text = ("The pool is built like this:\n```python\npool = make_pool(size)\n"
            "return   pool\n```\nKeep it that way.")
    found = auto(code, repo, text)
    assert [(a["path"], a["start_line"], a["end_line"]) for a in found] == \
        [("src/app/db.py", 6, 7)]


def test_no_auto_anchor_for_unknown_names_or_raw(code: Memx, repo: Path) -> None:
    assert auto(code, repo, "Call `make_pool` from missing.py in def nowhere_defined") == []
    mid = add(code, "metadata lives in setup.cfg", "--raw")
    assert "anchors" not in stored(repo, mid)


def test_memory_files_are_never_anchored_to(code: Memx, repo: Path) -> None:
    # a tracked memory file quoting a definition must not be where that definition "is"
    add(code, "def only_in_memory(x):\n    return x", "--raw")
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "memories")
    assert auto(code, repo, "Remember def only_in_memory for the export") == []
    (repo / "tools.py").write_text("def only_in_memory(x):\n    return x\n")
    assert [a["path"] for a in auto(code, repo, "Remember def only_in_memory")] == ["tools.py"]


def test_block_end_python_and_braces() -> None:
    py = ["def f(", "    a,", "):", "    x = 1", "", "    return x", "", "y = 2"]
    assert block_end(py, 1) == 6
    js = ["function g() {", "  return 1;", "}", "g();"]
    assert block_end(js, 1) == 3


def test_batch_write_lists_files_once(code: Memx, repo: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli import git as gitmod

    calls: list[Path] = []
    real = gitmod.ls_files
    monkeypatch.setattr(gitmod, "ls_files",
                        lambda root, **skip: calls.append(root) or real(root, **skip))
    texts = ["The package metadata lives in setup.cfg",
             "Flake8 reads its settings from setup.cfg as well",
             "Release versions are bumped by hand in setup.cfg before tagging"]
    out = json.loads(code.ok("import", "-", "--json",
                             input="\n".join(json.dumps({"content": t}) for t in texts)))
    ids = out["imported"]
    assert len(ids) == 3
    assert all(stored(repo, i)["anchors"][0]["path"] == "setup.cfg" for i in ids)
    assert len(calls) == 1


def test_automatic_anchor_snippets_go_through_the_sanitizer(memx: Memx, repo: Path) -> None:
    (repo / "settings.py").write_text(
        "def load_keys():\n    aws = 'AKIAIOSFODNN7EXAMPLE'\n    return aws\n")
    mid = memx.ok("add", "Credentials are read in `load_keys` of settings.py").strip()
    text = (repo / ".memx" / "memories" / f"{mid}.yaml").read_text()
    assert "anchors:" in text
    assert "AKIAIOSFODNN7EXAMPLE" not in text
    assert "[REDACTED:aws_access_key]" in text
