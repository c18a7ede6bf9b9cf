"""Retrieval-time verification of anchors (SPEC 3.5): search statuses, policies, the
cache, relocation records and `memx verify`."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from memx_cli.anchors import anchor as anchors
from memx_cli.anchors.verify import CACHE_NAME
from memx_cli.store.ids import abbreviate

from .conftest import Memx, git
from .test_anchors import DB_PY

POOL = "Pool sizing: connect_pool opens ten connections by default, enough for the workers"
OTHER = "Pool sizing for the workers: keep the pool small, the job runners share it"


@pytest.fixture
def code(memx: Memx, repo: Path) -> Memx:
    (repo / "src" / "app").mkdir(parents=True)
    (repo / "src" / "app" / "db.py").write_text(DB_PY)
    git(repo, "add", "src")
    git(repo, "commit", "-q", "-m", "code")
    return memx


@pytest.fixture
def anchored(code: Memx) -> str:
    """A memory anchored to the connect_pool function (lines 4-7)."""
    return code.ok("add", POOL, "--anchor", "src/app/db.py:4-7").strip()


def search(memx: Memx, query: str = "pool sizing connections", *args: str) -> list[dict]:
    out = memx.ok("search", query, "--mode", "keyword", "--json", *args)
    return json.loads(out)["results"]


def verification(memx: Memx, memory_id: str) -> dict:
    [hit] = [r for r in search(memx) if r["id"] == memory_id]
    return hit["verification"]


def edit(repo: Path, old: str, new: str, path: str = "src/app/db.py") -> None:
    file = repo / path
    file.write_text(file.read_text().replace(old, new))


def short(repo: Path, memory_id: str) -> str:
    """The id as the CLI shows it: the shortest unique prefix (at least 12 characters)."""
    return abbreviate(p.stem for p in (repo / ".memx" / "memories").iterdir())[memory_id]


def set_policy(memx: Memx, policy: str) -> None:
    memx.ok("config", "set", "ace.verification.policy", policy)


def test_anchored_function_is_verified(code: Memx, anchored: str) -> None:
    check = verification(code, anchored)
    assert check == {"status": "verified", "anchors": [
        {"path": "src/app/db.py", "start_line": 4, "end_line": 7, "status": "verified",
         "relocated": False}]}


def test_unanchored_result(code: Memx) -> None:
    mid = code.ok("add", OTHER).strip()
    assert verification(code, mid) == {"status": "unanchored", "anchors": []}


def test_moved_function_is_verified_and_relocated(code: Memx, repo: Path,
                                                  anchored: str) -> None:
    memory_file = repo / ".memx" / "memories" / f"{anchored}.yaml"
    before = memory_file.read_bytes()
    edit(repo, "import os\n", "import os\nimport re\nimport sys\n")
    check = verification(code, anchored)
    assert check["status"] == "verified"
    [entry] = check["anchors"]
    assert entry["relocated"] is True
    assert entry["current"] == {"path": "src/app/db.py", "start_line": 6, "end_line": 9}
    assert entry["detail"] == "moved to lines 6-9"
    # the relocation lives in local/, the tracked memory file is untouched
    assert memory_file.read_bytes() == before
    cache = json.loads((repo / ".memx" / "local" / CACHE_NAME).read_text())
    assert list(cache["moved"].values()) == [["src/app/db.py", 6, 9]]
    human = code.ok("search", "pool sizing connections", "--mode", "keyword")
    assert "(verified)" in human
    assert "    anchor src/app/db.py:4-7: verified, moved to lines 6-9\n" in human


def test_reformatted_function_is_still_verified(code: Memx, repo: Path, anchored: str) -> None:
    edit(repo, "    pool = make_pool(size)\n", "    pool = make_pool(\n        size\n    )\n\n")
    check = verification(code, anchored)
    assert check["status"] == "verified"
    assert check["anchors"][0]["current"]["end_line"] == 10


def test_git_mv_keeps_it_verified(code: Memx, repo: Path, anchored: str) -> None:
    git(repo, "mv", "src/app/db.py", "src/app/database.py")
    check = verification(code, anchored)
    assert check["status"] == "verified"
    assert check["anchors"][0]["current"] == {"path": "src/app/database.py",
                                              "start_line": 4, "end_line": 7}
    git(repo, "commit", "-q", "-m", "rename")  # a committed rename too
    edit(repo, "import os\n", "import os\nimport re\n", "src/app/database.py")
    check = verification(code, anchored)
    assert check["status"] == "verified"
    assert check["anchors"][0]["current"]["start_line"] == 5


def test_changed_body_is_stale(code: Memx, repo: Path, anchored: str) -> None:
    edit(repo, "make_pool(size)", "make_pool(size * 2)")
    check = verification(code, anchored)
    assert check["status"] == "stale"
    assert check["anchors"][0]["detail"] == "the passage changed or was removed"
    assert "(stale)" in code.ok("search", "pool sizing connections", "--mode", "keyword")


def test_deleted_file_is_unverifiable(code: Memx, repo: Path, anchored: str) -> None:
    (repo / "src" / "app" / "db.py").unlink()
    check = verification(code, anchored)
    assert check["status"] == "unverifiable"
    assert check["anchors"][0]["detail"] == "the file is missing"


def test_anchor_outside_repo_in_a_hand_edited_file_is_unverifiable(code: Memx, repo: Path,
                                                                    anchored: str) -> None:
    memory_file = repo / ".memx" / "memories" / f"{anchored}.yaml"
    memory_file.write_text(memory_file.read_text().replace("path: src/app/db.py",
                                                           "path: ../outside.py"))
    (repo.parent / "outside.py").write_text(DB_PY)
    check = verification(code, anchored)
    assert check["status"] == "unverifiable"
    assert check["anchors"][0]["detail"] == "points outside the repository"


def test_demote_ranks_stale_lower_and_drop_removes_and_fills(code: Memx, repo: Path,
                                                             anchored: str) -> None:
    other = code.ok("add", OTHER, "--raw").strip()
    edit(repo, "make_pool(size)", "make_pool(size * 2)")
    annotate = search(code)
    assert [r["id"] for r in annotate] == [anchored, other]
    assert annotate[0]["verification"]["status"] == "stale"

    set_policy(code, "demote")
    demoted = search(code, "pool sizing connections", "--explain")
    assert [r["id"] for r in demoted] == [other, anchored]
    assert demoted[1]["explain"]["factors"]["verification"] == 0.3
    assert demoted[1]["score"] == pytest.approx(annotate[0]["score"] * 0.3, abs=1e-3)

    set_policy(code, "drop")
    assert [r["id"] for r in search(code)] == [other]
    # the freed slot is filled with the next result
    assert [r["id"] for r in search(code, "pool sizing connections", "--limit", "1")] == [other]


def test_demote_unverifiable(code: Memx, repo: Path, anchored: str) -> None:
    set_policy(code, "demote")
    (repo / "src" / "app" / "db.py").unlink()
    [hit] = search(code, "pool sizing connections", "--explain")
    assert hit["explain"]["factors"]["verification"] == 0.7
    set_policy(code, "drop")  # drop removes stale results only
    assert [r["id"] for r in search(code)] == [anchored]


def test_second_verification_reads_no_unchanged_file(code: Memx, repo: Path, anchored: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    source = repo / "src" / "app" / "db.py"
    past = time.time() - 60  # older than the racy-git window
    os.utime(source, (past, past))
    reads: list[Path] = []
    real = anchors.read_bytes

    def counting(path: Path) -> bytes:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(anchors, "read_bytes", counting)
    assert verification(code, anchored)["status"] == "verified"
    assert reads == [source]
    assert verification(code, anchored)["status"] == "verified"
    assert reads == [source]  # the second search read nothing
    edit(repo, "make_pool(size)", "make_pool(size * 2)")
    os.utime(source, (past + 5, past + 5))
    assert verification(code, anchored)["status"] == "stale"
    assert reads == [source, source]  # a changed file is read again


@pytest.mark.parametrize("damage", ["not json", "[]", "bad entries"])
def test_damaged_cache_is_only_a_miss(code: Memx, repo: Path, anchored: str,
                                      damage: str) -> None:
    assert verification(code, anchored)["status"] == "verified"
    cache = repo / ".memx" / "local" / CACHE_NAME
    edit(repo, "make_pool(size)", "make_pool(size * 2)")
    if damage == "bad entries":  # right keys, wrong values: each would crash if trusted
        data = json.loads(cache.read_bytes())
        source = repo / "src" / "app" / "db.py"
        st = source.stat()
        data["files"]["src/app/db.py"] = [st.st_mtime_ns, st.st_size, st.st_ino, "x", "late"]
        data["results"] = {key: "verified" for key in data["results"]}
        digest = anchors.passage_hash(DB_PY.splitlines()[3:7])
        data["moved"] = {f"src/app/db.py\0{4}\0{7}\0{digest}": [5, "a"]}
        cache.write_text(json.dumps(data))
    else:
        cache.write_text(damage)
    assert verification(code, anchored)["status"] == "stale"
    assert json.loads(cache.read_bytes())["version"] == 1  # rewritten whole


def test_find_passage_prefers_nearest_copy() -> None:
    lines = ["a = 1", "x", "a = 1", "y", "a = 1"]
    digest = anchors.passage_hash(["a = 1"])
    assert anchors.find_passage(lines, digest, 4, 4) == (3, 3)
    assert anchors.find_passage(lines, anchors.passage_hash(["zzz"]), 1, 1, "zzz") is None


# ---------------------------------------------------------------- memx verify


def test_verify_reports_counts_and_stale_list(code: Memx, repo: Path, anchored: str) -> None:
    fine = code.ok("add", "retries: three attempts", "--anchor", "src/app/db.py:10-12").strip()
    out = code.ok("verify")
    assert out.endswith("2 anchored memories: 2 verified, 0 stale, 0 unverifiable\n")
    edit(repo, "make_pool(size)", "make_pool(size * 2)")
    result = code("verify", "--stale-only")
    assert result.code == 1
    assert result.err == ("memx: error: 1 stale memory(ies); see memx verify --stale-only, "
                          "then fix or edit them\n")
    assert fine not in result.out and "retries" not in result.out
    lines = result.out.splitlines()
    assert lines[0].startswith(f"{short(repo, anchored)}  stale        Pool sizing: connect_pool")
    assert lines[1:] == [
        "    src/app/db.py:4-7: stale, the passage changed or was removed",
        "      -    pool = make_pool(size)",
        "      +    pool = make_pool(size * 2)",
        "2 anchored memories: 1 verified, 1 stale, 0 unverifiable",
    ]
    data = json.loads(code("verify", "--json", "--stale-only").out)
    assert data["counts"] == {"verified": 1, "stale": 1, "unverifiable": 0}
    [item] = data["memories"]
    assert item["id"] == anchored
    assert item["verification"]["anchors"][0]["changes"] == [
        "-    pool = make_pool(size)", "+    pool = make_pool(size * 2)"]


def test_verify_fix_reanchors_moved_passage(code: Memx, repo: Path, anchored: str) -> None:
    git(repo, "mv", "src/app/db.py", "src/app/database.py")
    edit(repo, "import os\n", "import os\nimport re\n", "src/app/database.py")
    out = code.ok("verify", "--fix", anchored[:8])
    assert out == (f"{short(repo, anchored)}: re-anchored src/app/db.py:4-7 -> "
                   "src/app/database.py:5-8\n")
    memory = json.loads(code.ok("show", anchored, "--json"))
    memory = memory.get("memory", memory)
    [anchor] = memory["anchors"]
    assert (anchor["path"], anchor["start_line"], anchor["end_line"]) == \
        ("src/app/database.py", 5, 8)
    assert anchor["hash"] == anchors.passage_hash(DB_PY.splitlines()[3:7])
    check = verification(code, anchored)
    assert check["anchors"][0]["relocated"] is False
    assert code.ok("verify", "--fix", anchored) == \
        f"{short(repo, anchored)}: every anchor is where it was; nothing to fix\n"


def test_verify_fix_says_why_not(code: Memx, repo: Path, anchored: str) -> None:
    memory_file = repo / ".memx" / "memories" / f"{anchored}.yaml"
    before = memory_file.read_bytes()
    edit(repo, "make_pool(size)", "make_pool(size * 2)")
    result = code("verify", "--fix", anchored)
    assert result.code == 1
    assert result.out == (
        f"{short(repo, anchored)}: cannot fix src/app/db.py:4-7: the passage is no longer in "
        "src/app/db.py (changed or removed); check the memory, then re-anchor it with "
        f"memx anchor {anchored} PATH:START-END\n")
    (repo / "src" / "app" / "db.py").unlink()
    result = code("verify", "--fix", anchored)
    assert result.out.endswith("src/app/db.py is missing and git reports no rename of it\n")
    assert memory_file.read_bytes() == before
