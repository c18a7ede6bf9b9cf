"""Vector updates go to a small delta segment beside the main usearch file (issue 15):
one added memory no longer rewrites the whole file, and searches over main + delta
answer exactly as a fresh full build of the same memories does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memx_cli import embed
from memx_cli.index import StoreIndex, vectors
from memx_cli.index.keys import memory_key
from memx_cli.store.repo import Repo

from .conftest import Memx

QUERIES = ["database connection pool exhausted", "rotate the staging password",
           "flaky test in the payment service", "docker build cache", "release checklist",
           "timezone bug in the scheduler"]
TOPICS = ["database connection pool", "staging password", "payment service test",
          "docker build cache", "release checklist", "scheduler timezone", "log rotation",
          "feature flag rollout"]


def _records(start: int, count: int) -> str:
    rows = []
    for i in range(start, start + count):
        record = {"content": f"note {i}: the {TOPICS[i % len(TOPICS)]} needs care "
                             f"(case {i * 37 % 101}, owner team {i % 5})",
                  "tags": [f"t{i % 4}"]}
        if i % 3 == 0:  # transcript turns: neighbours mix into each other's vectors
            record["source"] = {"type": "transcript", "session": f"s{i % 4}"}
        rows.append(json.dumps(record))
    return "\n".join(rows) + "\n"


def _import(memx: Memx, repo: Path, start: int, count: int) -> None:
    path = repo / f"batch{start}.jsonl"
    path.write_text(_records(start, count))
    memx.ok("import", str(path), "--raw")
    path.unlink()


def _top(index: StoreIndex) -> list[list[tuple[int, float]]]:
    index.sync(want_vectors=True)
    encoder = embed.load_encoder(None)
    out = []
    for query in QUERIES:
        found = index.vectors.search(encoder.encode([query])[0], 10)
        out.append(sorted(found.items(), key=lambda kv: (-kv[1], kv[0])))
    return out


def _fresh(repo: Path, tmp_path: Path) -> list[list[tuple[int, float]]]:
    """The same memories indexed from nothing, in a copy of the repository."""
    copy = tmp_path / "fresh"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(repo, copy, symlinks=True)
    shutil.rmtree(copy / ".memx" / "cache", ignore_errors=True)
    return _top(StoreIndex(Repo.discover(copy).store, None))


def _same(got: list[list[tuple[int, float]]], want: list[list[tuple[int, float]]]) -> None:
    for got_row, want_row in zip(got, want, strict=True):
        assert [k for k, _ in got_row] == [k for k, _ in want_row]
        for (_, a), (_, b) in zip(got_row, want_row):
            assert abs(a - b) < 1e-6


def _edit(path: Path, content: str) -> None:
    text = path.read_text()
    old = text.split("content: ", 1)[1].splitlines()[0]
    path.write_text(text.replace(old, content))


def test_delta_answers_as_a_full_build(memx: Memx, repo: Path, tmp_path: Path) -> None:
    _import(memx, repo, 0, 150)
    index = StoreIndex(Repo.discover(repo).store, None)
    _top(index)
    main = repo / ".memx" / "cache" / "vectors.usearch"
    before = main.stat()

    _import(memx, repo, 150, 6)
    files = sorted((repo / ".memx" / "memories").glob("*.yaml"))
    _edit(files[10], "the scheduler drops jobs when the timezone changes at midnight")
    _edit(files[40], "docker build cache is invalidated by the copied lock file")
    files[20].unlink()
    files[99].unlink()
    got = _top(StoreIndex(Repo.discover(repo).store, None))

    after = main.stat()  # the main file was neither rewritten nor replaced
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert (repo / ".memx" / "cache" / "vectors.delta").is_file()
    want = _fresh(repo, tmp_path)
    _same(got, want)

    # Compaction folds the delta into a new main file; the answers stay the same.
    index = StoreIndex(Repo.discover(repo).store, None)
    delta = (repo / ".memx" / "cache" / "vectors.delta").read_bytes()
    assert not index.compact()  # a few rows: not worth a new main file yet
    assert index.compact(force=True)
    assert not (repo / ".memx" / "cache" / "vectors.delta").exists()
    assert main.stat().st_ino != before.st_ino
    _same(_top(StoreIndex(Repo.discover(repo).store, None)), want)

    # Killed after the new main replaced the old one but before the delta was removed:
    # the delta repeats what the main file holds, and applying it again changes nothing.
    (repo / ".memx" / "cache" / "vectors.delta").write_bytes(delta)
    _same(_top(StoreIndex(Repo.discover(repo).store, None)), want)


def test_reindex_compacts_a_grown_delta(memx: Memx, repo: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _import(memx, repo, 0, 40)
    _top(StoreIndex(Repo.discover(repo).store, None))
    _import(memx, repo, 40, 3)
    _top(StoreIndex(Repo.discover(repo).store, None))
    path = repo / ".memx" / "cache" / "vectors.delta"
    delta = vectors.Delta.load(path)
    assert delta is not None
    monkeypatch.setattr(vectors, "COMPACT_AT", delta.size() + 1)
    memx.ok("reindex")
    assert path.is_file()  # not grown enough: kept
    monkeypatch.setattr(vectors, "COMPACT_AT", delta.size())
    memx.ok("reindex")
    assert not (repo / ".memx" / "cache" / "vectors.delta").exists()
    _same(_top(StoreIndex(Repo.discover(repo).store, None)), _fresh(repo, tmp_path))


def test_damaged_delta_is_rebuilt_with_a_notice(memx: Memx, repo: Path,
                                                tmp_path: Path) -> None:
    _import(memx, repo, 0, 30)
    _top(StoreIndex(Repo.discover(repo).store, None))
    _import(memx, repo, 30, 2)
    _top(StoreIndex(Repo.discover(repo).store, None))
    (repo / ".memx" / "cache" / "vectors.delta").write_bytes(b"junk")
    result = memx("search", "docker build cache", "--mode", "hybrid")
    assert result.code == 0
    assert result.err == ("memx: warning: search index in .memx/cache is unreadable "
                          "(vectors.delta: not a vector delta); rebuilding it\n")
    _same(_top(StoreIndex(Repo.discover(repo).store, None)), _fresh(repo, tmp_path))


def test_removals_alone_go_to_the_delta(memx: Memx, repo: Path, tmp_path: Path) -> None:
    _import(memx, repo, 0, 40)
    _top(StoreIndex(Repo.discover(repo).store, None))
    main = (repo / ".memx" / "cache" / "vectors.usearch").stat()
    alone = [p for p in sorted((repo / ".memx" / "memories").glob("*.yaml"))
             if "session:" not in p.read_text()]  # no neighbour to re-index: removals only
    for path in alone[5:9]:
        path.unlink()
    got = _top(StoreIndex(Repo.discover(repo).store, None))
    assert (repo / ".memx" / "cache" / "vectors.usearch").stat().st_ino == main.st_ino
    assert (repo / ".memx" / "cache" / "vectors.delta").is_file()
    _same(got, _fresh(repo, tmp_path))


def test_server_folds_a_grown_delta_when_idle(memx: Memx, repo: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli.generator.search import Searcher
    from memx_cli.server import daemon

    _import(memx, repo, 0, 40)
    searcher = Searcher(Repo.discover(repo))
    searcher.search("docker build cache", mode="hybrid", record_recalls=False)
    _import(memx, repo, 40, 3)
    searcher.search("docker build cache", mode="hybrid", record_recalls=False)
    path = repo / ".memx" / "cache" / "vectors.delta"
    assert path.is_file()
    monkeypatch.setattr(vectors, "COMPACT_AT", 1)
    server = daemon.Daemon(idle_timeout=60)
    server.searchers[("repo",)] = searcher
    server.compact_when_idle()
    assert path.is_file()  # nothing served yet
    server._compacted = False  # a request was served...
    server.compact_when_idle()
    assert path.is_file()  # ...just now
    server.last_request -= daemon.COMPACT_AFTER
    server.compact_when_idle()
    assert not path.exists()
    found = searcher.search("docker build cache", mode="hybrid", record_recalls=False).hits
    assert found and found[0].layers["semantic"] > 0.3
    _same(_top(StoreIndex(Repo.discover(repo).store, None)), _fresh(repo, tmp_path))


def test_a_delta_past_its_limit_is_folded_by_a_detached_worker(
        memx: Memx, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: the write whose update takes the delta past its limit does not fold it
    (before: it rewrote the main file in the foreground, 1.38 s at 100k); a detached
    worker does, under the store lock, and the answers are those of a fresh index."""
    import time

    from memx_cli.index import fold

    _import(memx, repo, 0, 40)
    _top(StoreIndex(Repo.discover(repo).store, None))  # vectors built, model loaded
    monkeypatch.setattr(vectors, "COMPACT_AT", 2)
    monkeypatch.setattr(vectors, "DELTA_LIMIT", 8)
    folded_here: list[int] = []
    real_write = vectors.VectorIndex._write_main

    def write_main(self: vectors.VectorIndex, *args: object) -> None:
        folded_here.append(1)
        real_write(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(vectors.VectorIndex, "_write_main", write_main)
    requested: list[bool] = []
    real_request = fold.request
    monkeypatch.setattr(fold, "request", lambda store: requested.append(real_request(store))
                        or requested[-1])
    main = repo / ".memx" / "cache" / "vectors.usearch"
    before = main.stat().st_ino
    _import(memx, repo, 40, 6)  # the import's update embeds them: the delta passes 8
    assert folded_here == [] and requested == [True]
    path = repo / ".memx" / "cache" / "vectors.delta"
    deadline = time.monotonic() + 120
    while path.exists() and time.monotonic() < deadline:  # the worker's own pace
        time.sleep(0.05)
    assert not path.exists() and main.stat().st_ino != before
    assert folded_here == []  # the fold was the worker's, in its own process
    _same(_top(StoreIndex(Repo.discover(repo).store, None)), _fresh(repo, tmp_path))


def test_a_fold_holds_the_store_lock_only_to_swap_its_file_in(
        memx: Memx, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: while a fold builds and saves the new main file, the store lock is free
    (before: held for the whole fold, so a write waited 0.3-1.4 s at 100k); a real
    `memx add` made then by another process is kept: its vector is searchable after
    the swap and the answers are those of a fresh index."""
    import os
    import subprocess
    import sys

    import usearch.index

    _import(memx, repo, 0, 40)
    index = StoreIndex(Repo.discover(repo).store, None)
    _top(index)  # vectors built, model loaded
    _import(memx, repo, 40, 6)
    _edit(sorted((repo / ".memx" / "memories").glob("*.yaml"))[3],
          "the release checklist now starts with the changelog")
    _top(StoreIndex(Repo.discover(repo).store, None))  # into the delta
    delta = repo / ".memx" / "cache" / "vectors.delta"
    assert delta.is_file()
    lock = Repo.discover(repo).store.lock_path
    env = {**os.environ, "MEMX_NO_SERVER": "1"}
    probe = ("import sys; from pathlib import Path; from memx_cli.fsutil import locked\n"
             "with locked(Path(sys.argv[1]), wait=0): pass")
    during: list[tuple[int, bytes]] = []
    real_save = usearch.index.Index.save

    def save(self: object, path: object = None, *args: object) -> object:
        if not during:  # the new main file, being written: is the store lock free?
            free = subprocess.run([sys.executable, "-c", probe, str(lock)], env=env,
                                  capture_output=True).returncode
            out = b""
            if free == 0:  # then another process writes meanwhile
                out = subprocess.run([sys.executable, "-m", "memx_cli", "add", "--json",
                                      "the scheduler pauses jobs during the freeze window"],
                                     cwd=repo, env=env, capture_output=True, check=True).stdout
            during.append((free, out))
        return real_save(self, path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(usearch.index.Index, "save", save)
    assert index.compact(force=True)
    monkeypatch.setattr(usearch.index.Index, "save", real_save)
    assert during and during[0][0] == 0, "the store lock was held while the fold saved"
    added = json.loads(during[0][1])["memory"]["id"]
    # before any check of the files: the add's vector is in the delta, rebased onto
    # the new main file (which was built without it)
    folded = vectors.VectorIndex(repo / ".memx" / "cache" / "vectors.usearch")
    assert list(folded.get([memory_key(added)])) == [memory_key(added)]
    _same(_top(StoreIndex(Repo.discover(repo).store, None)), _fresh(repo, tmp_path))


def test_a_delta_grown_during_a_fold_is_rebased_onto_the_new_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every kind of change an update makes while a fold builds its file (a key of the
    folded delta removed or changed again, a key of the old main file removed or
    changed, a new key) is right after the swap, at every step of it (a reader may pair
    either delta with either main file), and the delta keeps only what the new file
    lacks."""
    import contextlib
    import os

    import numpy as np
    import usearch.index

    rng = np.random.default_rng(7)
    ndim = 8

    def vec() -> np.ndarray:
        return rng.standard_normal(ndim).astype(np.float32)

    want = {k: vec() for k in range(1, 41)}
    index = vectors.VectorIndex(tmp_path / "vectors.usearch")
    index.update(ndim, [], list(want), np.stack(list(want.values())))
    folded_changes = {3: vec(), 4: vec(), 50: vec(), 51: vec()}  # changed and new keys
    index.update(ndim, [5], list(folded_changes), np.stack(list(folded_changes.values())))
    want.update(folded_changes)
    del want[5]
    later = {4: vec(), 51: vec(), 6: vec(), 60: vec()}  # again, an old key, a new one
    removed = [50, 3, 7]  # a new key of the folded delta, a changed one, an old one

    def state(main: Path, delta: Path) -> dict[int, list[float]]:
        reader = vectors.VectorIndex(tmp_path / "reader.usearch")
        for source, target in ((main, reader.path), (delta, reader.delta_path)):
            with contextlib.suppress(FileNotFoundError):
                target.unlink()
            os.link(source, target)
        return {k: list(v) for k, v in reader.get(list(range(1, 80))).items()}

    def same(got: dict[int, list[float]], expected: dict[int, np.ndarray]) -> bool:
        return sorted(got) == sorted(expected) and all(
            np.allclose(got[k], expected[k] / np.linalg.norm(expected[k]), atol=2e-3)
            for k in got)

    real_save = usearch.index.Index.save
    real_replace = os.replace
    pairs: list[dict[int, list[float]]] = []

    def save(self: object, path: object = None, *args: object) -> object:
        if str(path).endswith(".tmp") and not pairs:  # the fold's new file: writes come
            writer = vectors.VectorIndex(index.path)
            writer.update(ndim, removed, list(later), np.stack(list(later.values())))
        return real_save(self, path, *args)  # type: ignore[arg-type]

    def replace(src: object, dst: object) -> None:
        if Path(str(dst)) == index.path:  # the swap: the delta there now with both files
            kept = tmp_path / "kept.usearch"
            shutil.copy(index.path, kept)
            pairs.append(state(kept, index.delta_path))
            pairs.append(state(Path(str(src)), index.delta_path))
        real_replace(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(usearch.index.Index, "save", save)
    monkeypatch.setattr(os, "replace", replace)
    assert index.compact(contextlib.nullcontext, 1)
    monkeypatch.undo()
    want.update(later)
    for key in removed:
        want.pop(key, None)
    assert len(pairs) == 2 and same(pairs[0], want) and same(pairs[1], want)
    assert same(state(index.path, index.delta_path), want)
    left = vectors.Delta.load(index.delta_path)
    assert left is not None
    # only the later changes stay (4, 51 and 6 changed, 60 new; 50, 3 and 7 hidden): the
    # folded delta's own rows (3, 4, 5, 50, 51) are in the new file; every key of the
    # new file the delta replaces is stale there (a search asks the graph for more)
    assert sorted(int(k) for k in left.keys) == [4, 6, 51, 60]
    assert sorted(int(k) for k in left.stale) == [3, 4, 6, 7, 50, 51]
    assert vectors.VectorIndex(index.path).count() == len(want)


def _unit_rows(rng: object, count: int, ndim: int = 16) -> object:
    import numpy as np

    rows = np.asarray(rng.standard_normal((count, ndim)), dtype=np.float32)  # type: ignore[attr-defined]
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_an_update_keeps_the_graph_it_searched_unless_it_was_replaced(tmp_path: Path) -> None:
    """A write's update after its Curator's search reuses the open graph (issue 29: at
    100k a second open cost ~10 ms); a graph another process replaced meanwhile is
    opened again, and its vectors are the ones found."""
    import numpy as np

    rng = np.random.default_rng(5)
    path = tmp_path / "vectors.usearch"
    mine = vectors.VectorIndex(path)
    first = _unit_rows(rng, 50)
    mine.update(16, [], list(range(50)), first, rebuild=True)
    assert next(iter(mine.search(first[7], 1))) == 7
    graph = mine._view
    extra = _unit_rows(rng, 2)
    mine.update(16, [3], [100, 101], extra)
    assert mine._view is graph  # not opened again
    assert next(iter(mine.search(extra[1], 1))) == 101
    assert 3 not in mine.search(first[3], 5)
    again = vectors.VectorIndex(path)  # what the next process reads: the same answers
    assert next(iter(again.search(extra[1], 1))) == 101 and 3 not in again.search(first[3], 5)

    # Control: another process rebuilt the main file meanwhile.
    other = vectors.VectorIndex(path)
    replaced = _unit_rows(rng, 40)
    other.update(16, [], list(range(200, 240)), replaced, rebuild=True)
    mine.update(16, [], [300], _unit_rows(rng, 1))
    assert mine._view is not graph
    assert next(iter(mine.search(replaced[9], 1))) == 209
    assert 7 not in mine.search(first[7], 5)


def test_the_baseline_sample_is_every_step_th_key_of_main_and_delta(tmp_path: Path) -> None:
    """``sample`` takes every step-th of the stored keys in order (the main file's and
    the delta's, each once; issue 29: sorted in numpy, not in Python), the delta's row
    for a key it replaced and nothing for a removed key; keys past 2**63 order as
    unsigned numbers."""
    import numpy as np

    rng = np.random.default_rng(11)
    path = tmp_path / "vectors.usearch"
    index = vectors.VectorIndex(path)
    keys = [int(k) for k in rng.integers(1, 2**64 - 1, size=60, dtype=np.uint64)]
    main = _unit_rows(rng, 60)
    index.update(16, [], keys, main, rebuild=True)

    def want(size: int, known: dict[int, object]) -> object:
        ordered = sorted(known)
        step = max(len(ordered) // size, 1)
        return np.vstack([known[k] for k in ordered[::step][:size]])

    rows = dict(zip(keys, main))
    got = vectors.VectorIndex(path).sample(7)
    assert got.shape == (7, 16)
    assert np.allclose(got, want(7, rows), atol=1e-3)

    # Two keys added (one past 2**63), one replaced and one removed, both picked.
    ordered = sorted([*keys, 5, 2**63 + 5])
    picked = ordered[::max(len(ordered) // 7, 1)][:7]
    removed, replaced = picked[1], picked[2]
    assert removed in keys and replaced in keys
    new = _unit_rows(rng, 3)
    index.update(16, [removed], [replaced, 5, 2**63 + 5], new)
    assert (tmp_path / "vectors.delta").is_file()
    rows.update({replaced: new[0], 5: new[1], 2**63 + 5: new[2]})
    del rows[removed]
    got = vectors.VectorIndex(path).sample(7)
    # The removed key counts in the stepping (as it did) but has no row.
    assert len(got) == 6
    assert np.allclose(got, np.vstack([rows[k] for k in picked if k != removed]), atol=1e-3)
    # Control: a sample as large as the store is all of it, once each.
    assert len(vectors.VectorIndex(path).sample(1000)) == len(rows)


def test_vectors_kept_between_reads_follow_the_files(tmp_path: Path) -> None:
    """``get`` keeps the normalised vectors it read (issue 29) until another main file
    or delta is loaded: each read answers, key for key, bit for bit and in the same
    order (the delta's first), what a fresh reader of the same files answers."""
    import numpy as np

    rng = np.random.default_rng(3)
    path = tmp_path / "vectors.usearch"
    mine = vectors.VectorIndex(path)
    mine.update(16, [], list(range(30)), _unit_rows(rng, 30), rebuild=True)

    def same(keys: list[int]) -> dict[int, object]:
        got = mine.get(keys)
        fresh = vectors.VectorIndex(path).get(keys)
        assert list(got) == list(fresh)
        assert all(np.array_equal(got[k], fresh[k]) for k in fresh)  # type: ignore[arg-type]
        return got

    first = same([4, 9, 999, 4, 2])
    assert list(first) == [4, 9, 2]  # an unknown key is left out, a repeated one once
    assert same([9, 4])[9] is first[9]  # kept: not read and normalised again
    with pytest.raises(ValueError):
        first[4][0] = 1.0  # type: ignore[index]  # read only: the next search's too

    # A change goes to the delta: 9 replaced, 4 removed, 40 added.
    mine.update(16, [4], [9, 40], _unit_rows(rng, 2))
    after = same([4, 9, 2, 40])
    assert list(after) == [9, 40, 2]
    assert not np.array_equal(after[9], first[9])  # type: ignore[arg-type]
    assert after[2] is not first[2]  # read from the files now loaded
    # Control: a rebuilt main file is read anew too.
    mine.update(16, [], list(range(10)), _unit_rows(rng, 10), rebuild=True)
    rebuilt = same([2, 9, 40])
    assert list(rebuilt) == [2, 9]
    assert not np.array_equal(rebuilt[2], after[2])  # type: ignore[arg-type]
