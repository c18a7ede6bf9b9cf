"""Indexes that never answer silently empty (issue 14): after a killed rebuild, with a
damaged vector file, every search returns the right memories or says why not.

``MEMX_KILL_TRIALS`` sets how many random-moment kills of ``reindex --full`` run (a few
in CI; hundreds for a long run)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memx_cli import embed
from tests.conftest import Memx

KILL_TRIALS = int(os.environ.get("MEMX_KILL_TRIALS", "3"))
COUNT = 150


def _fill(memx: Memx) -> None:
    records = [{"content": f"service {n} uses the marker zq{n}x behind the gateway"}
               for n in range(COUNT)]
    memx.ok("import", "-", "--raw", input=json.dumps(records))


def _keyword_hits(memx: Memx, word: str) -> tuple[list[str], str]:
    result = memx("search", word, "--mode", "keyword", "--json")
    assert result.code == 0, result.err
    return [h["content"] for h in json.loads(result.out)["results"]], result.err


def test_kill_reindex_full_at_random_moments(memx: Memx, repo: Path) -> None:
    _fill(memx)
    memx.ok("search", "gateway")  # vectors too
    rng = random.Random(int(os.environ.get("MEMX_KILL_SEED", "14")))
    for trial in range(KILL_TRIALS):
        proc = subprocess.Popen([sys.executable, "-m", "memx_cli", "reindex", "--full"],
                                cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.2, 2.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        n = rng.randrange(COUNT)
        hits, err = _keyword_hits(memx, f"zq{n}x")
        assert hits == [f"service {n} uses the marker zq{n}x behind the gateway"], (trial, err)
        result = memx("search", f"zq{n}x", "--json")
        assert result.code == 0, (trial, result.err)
        assert f"zq{n}x" in json.loads(result.out)["results"][0]["content"], trial
        context = memx.ok("context", f"which service uses the marker zq{n}x")
        assert f"service {n} uses the marker zq{n}x" in context, trial


def test_a_damaged_vector_file_with_vectors_pending_is_rebuilt(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memx.ok("add", "the gateway terminates TLS")
    memx.ok("search", "gateway")  # builds the vectors
    # A raw add in a fresh process indexes its text only (no model loaded just for that).
    monkeypatch.setattr(embed, "_CACHE", {})
    memx.ok("add", "the gateway also proxies websockets", "--raw")
    memx.ok("search", "gateway", "--mode", "keyword")  # the new vector is now pending
    vectors = repo / ".memx" / "cache" / "vectors.usearch"
    vectors.write_bytes(vectors.read_bytes()[:100])
    result = memx("search", "websockets gateway", "--json")
    assert result.code == 0, result.err
    assert result.err.startswith("memx: warning: vector index in .memx/cache is unreadable (")
    assert result.err.endswith("); rebuilding it\n")
    contents = [h["content"] for h in json.loads(result.out)["results"]]
    assert contents[0] == "the gateway also proxies websockets"
    vectors.write_bytes(b"junk")
    memx.ok("add", "the gateway logs to stdout")
    memx.ok("search", "gateway", "--mode", "keyword")
    result = memx("reindex")
    assert result.code == 0, result.err


def test_a_missing_text_index_with_changed_files_is_rebuilt_whole(memx: Memx, repo: Path) -> None:
    import shutil

    memx.ok("add", "the gateway terminates TLS")
    memx.ok("search", "gateway", "--mode", "keyword")
    shutil.rmtree(repo / ".memx" / "cache" / "lexical")
    memx.ok("add", "the gateway also proxies websockets")  # the files changed meanwhile
    result = memx("search", "gateway", "--mode", "keyword", "--json")
    assert result.code == 0, result.err
    assert sorted(h["content"] for h in json.loads(result.out)["results"]) == [
        "the gateway also proxies websockets", "the gateway terminates TLS"]
    assert result.err == ("memx: warning: search index in .memx/cache was incomplete, corrupt "
                          "or from another memx version; rebuilding it\n")


KILLED_AFTER_FIRST_BATCH = """
import os
from memx_cli.index import StoreIndex
from memx_cli.store.repo import Repo

StoreIndex(Repo.discover().store, None).sync(
    full=True, progress=lambda done, total: os._exit(9))
"""


def test_a_rebuild_killed_after_recording_a_batch_leaves_no_manifest_that_answers(
        memx: Memx, repo: Path) -> None:
    """The manifest takes a rebuild's rows a batch at a time, before the text index
    commits them: a rebuild killed in between must not leave rows that say "indexed"
    (the next search would skip those files and answer with a silent subset)."""
    _fill(memx)
    memx.ok("search", "gateway", "--mode", "keyword")
    killed = subprocess.run([sys.executable, "-c", KILLED_AFTER_FIRST_BATCH], cwd=repo,
                            capture_output=True, text=True, check=False)
    assert killed.returncode == 9, killed.stderr
    hits, err = _keyword_hits(memx, "zq7x")
    assert hits == ["service 7 uses the marker zq7x behind the gateway"]
    assert err == ("memx: warning: search index in .memx/cache was incomplete, corrupt "
                   "or from another memx version; rebuilding it\n")
    assert len(json.loads(memx.ok("search", "gateway", "--mode", "keyword", "--json",
                                  "--limit", "200"))["results"]) == COUNT


def _orphan_deletes(lexical: Path, make: Callable[[Path], None]) -> list[Path]:
    """Delete files as a writer killed before its commit leaves them: tantivy names them
    ``<segment hex>.<opstamp>.del`` and meta.json does not name them yet. One for each of
    the next opstamps of every segment, so whichever commit deletes next collides."""
    meta = json.loads((lexical / "meta.json").read_text())
    made = []
    for segment in meta["segments"]:
        for stamp in range(meta["opstamp"] + 1, meta["opstamp"] + 40):
            path = lexical / f"{segment['segment_id'].replace('-', '')}.{stamp}.del"
            make(path)
            made.append(path)
    return made


def _damaged_index(memx: Memx, repo: Path, make: Callable[[Path], None]) -> int:
    records = [{"content": f"service {n} uses the marker zq{n}x behind the gateway"}
               for n in range(20)]
    memx.ok("import", "-", "--raw", input=json.dumps(records))  # one segment of 20
    assert _keyword_hits(memx, "zq3x")[0]
    ids = [line.split()[0] for line in memx.ok("list").splitlines()]
    memx.ok("feedback", ids[1], "--helpful")
    memx.ok("search", "gateway", "--mode", "keyword")  # a delete file in force now
    lexical = repo / ".memx" / "cache" / "lexical"
    assert any(p.suffix == ".del" for p in lexical.iterdir())
    made = len(_orphan_deletes(lexical, make))
    memx.ok("feedback", ids[2], "--helpful")  # the next sync deletes from that segment
    return made


def test_an_orphan_delete_file_is_reported_and_removed_by_the_next_command(
        memx: Memx, repo: Path) -> None:
    made = _damaged_index(memx, repo, lambda p: p.write_bytes(b""))
    doctor = memx("doctor")
    assert doctor.code != 0
    problems = [line for line in doctor.out.splitlines() if line.startswith("problem:")]
    assert len(problems) == 1
    assert problems[0].startswith(f"problem:    search index: {made} orphan delete file(s) "
                                  "from an interrupted write (")
    assert problems[0].endswith(f"and {made - 2} more); the next memx command that writes the "
                                "index removes them")
    hits, err = _keyword_hits(memx, "zq2x")
    assert hits == ["service 2 uses the marker zq2x behind the gateway"]
    assert err == (f"memx: warning: search index: removed {made} delete file(s) left by an "
                   "interrupted write\n")
    assert memx("reindex").code == 0
    assert memx.ok("doctor").endswith("No problems found.\n")


def test_damage_no_repair_covers_makes_the_next_command_rebuild(memx: Memx,
                                                               repo: Path) -> None:
    _damaged_index(memx, repo, lambda p: p.mkdir())  # not a file: cannot be removed
    hits, err = _keyword_hits(memx, "zq2x")
    assert hits == ["service 2 uses the marker zq2x behind the gateway"]
    assert err.startswith("memx: warning: search index in .memx/cache could not be written (")
    assert err.endswith("); rebuilding it\n")
    every = memx.ok("search", "gateway", "--mode", "keyword", "--limit", "50", "--json")
    assert len(json.loads(every)["results"]) == 20  # rebuilt whole from the files
    assert memx.ok("doctor").endswith("No problems found.\n")
