"""`memx search` end to end on real repositories, real indexes and the bundled model."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from memx_cli.store import recall
from memx_cli.store.repo import Repo

from .conftest import Memx, git

FACTS = [
    ("Run pytest -v --lf to rerun only the tests that failed last time", ["testing"]),
    ("The deploy script clears the CDN cache by hand every time", ["deploy"]),
    ("Integration tests need REDIS_URL=redis://localhost:6379/15", ["redis", "testing"]),
    ("We configured the connection pool with MAX_POOL_SIZE=50 after timeouts in production",
     ["database"]),
    ("Use pnpm, not npm: the lockfile is pnpm-lock.yaml", ["tooling"]),
    ("Parallelise the test suite with pytest-xdist: pytest -n auto halves CI time", ["ci"]),
    ("数据库连接池大小设置为50，否则高峰期会超时", ["database"]),
    ("Database migrations are generated with alembic revision --autogenerate", ["database"]),
    ("The frontend is built with vite; run pnpm dev for the dev server", ["frontend"]),
    ("Logging goes through structlog; never call print in library code", ["logging"]),
]


@pytest.fixture
def store(memx: Memx) -> Memx:
    for text, tags in FACTS:
        args = ["add", text]
        for tag in tags:
            args += ["--tag", tag]
        memx.ok(*args)
    return memx


def results(memx: Memx, *args: str) -> list[dict]:
    return json.loads(memx.ok("search", *args, "--json"))["results"]


def first(memx: Memx, *args: str) -> str:
    found = results(memx, *args)
    assert found, f"no results for {args}"
    return found[0]["content"]


def test_finds_by_exact_term(store: Memx) -> None:
    assert first(store, "MAX_POOL_SIZE").startswith("We configured the connection pool")


def test_finds_by_inflected_form(store: Memx) -> None:
    assert first(store, "configuring deployments").startswith("The deploy script")


def test_finds_by_tag(store: Memx) -> None:
    found = [r["content"] for r in results(store, "logging", "--mode", "keyword")]
    assert found[0].startswith("Logging goes through structlog")


def test_finds_by_paraphrase_semantically(store: Memx) -> None:
    found = [r["content"] for r in results(store, "how can I speed up my unit test runs",
                                           "--mode", "semantic")]
    assert any("pytest" in text for text in found[:3])


def test_finds_chinese(store: Memx) -> None:
    assert first(store, "连接池超时").startswith("数据库连接池")


def test_no_zero_score_padding(store: Memx) -> None:
    assert results(store, "xylophone quartz", "--mode", "keyword") == []


def test_limit_and_budget(store: Memx) -> None:
    assert len(results(store, "tests database pnpm", "--limit", "2")) == 2
    # 12 tokens fit the short memories only: the longer ones are skipped, not a stop.
    small = results(store, "pnpm database tests", "--budget", "16", "--limit", "10")
    assert small and all(len(r["content"]) / 4 <= 16 for r in small)
    # none fits: say so, not "No matching memories." (the walk-through, issue 27)
    tiny = store("search", "redis", "--budget", "3")
    assert (tiny.code, tiny.out) == (0, "")
    assert tiny.err == "No result fits the token budget (1 skipped); raise --budget.\n"


def test_json_shape_and_explain(store: Memx) -> None:
    out = json.loads(store.ok("search", "redis", "--json", "--explain"))
    assert list(out)[:3] == ["query", "mode", "scope"]
    hit = out["results"][0]
    for key in ("id", "content", "score", "kind", "scope", "tags", "source", "verification"):
        assert key in hit
    layers, factors = hit["explain"]["layers"], hit["explain"]["factors"]
    assert set(layers) >= {"exact", "fuzzy", "metadata", "semantic", "norm_keyword", "blended"}
    assert set(factors) == {"decay", "recency", "scope", "superseded", "feedback"}
    assert layers["exact"] > 0 and layers["metadata"] > 0
    human = store.ok("search", "redis", "--explain")
    assert "explain: exact" in human and "x decay 1.000" in human


def test_reading_never_dirties_the_tree_and_counts_recalls(store: Memx, repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memories")
    hit = results(store, "structlog")[0]
    assert git(repo, "status", "--porcelain") == ""
    assert recall.load(Repo.discover(repo).store)[hit["id"]][0] == 1


def test_index_follows_files_changed_behind_memx(store: Memx, repo: Path) -> None:
    target = next((repo / ".memx" / "memories").glob("*.yaml"))
    text = target.read_text()
    first_content = text.split("content: ", 1)[1].splitlines()[0]
    target.write_text(text.replace(first_content, "Flamingo deployments use blue-green switches"))
    assert first(store, "flamingo").startswith("Flamingo")
    target.unlink()
    assert results(store, "flamingo", "--mode", "keyword") == []


def test_deleting_the_cache_loses_nothing(store: Memx, repo: Path) -> None:
    results(store, "redis")
    shutil.rmtree(repo / ".memx" / "cache")
    assert first(store, "alembic").startswith("Database migrations")


def test_corrupt_index_is_rebuilt_with_a_notice(store: Memx, repo: Path) -> None:
    results(store, "redis")
    cache = repo / ".memx" / "cache"
    for path in [*cache.glob("manifest.db*"), cache / "state.json"]:  # SQLite's log too
        path.write_text("{not json")
    result = store("search", "alembic", "--json")
    assert result.code == 0
    assert result.err == ("memx: warning: search index in .memx/cache was incomplete, corrupt "
                          "or from another memx version; rebuilding it\n")
    assert json.loads(result.out)["results"][0]["content"].startswith("Database migrations")


def test_broken_model_falls_back_to_keyword_with_one_notice(store: Memx, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli import embed

    broken = tmp_path / "model"
    shutil.copytree(embed.bundled_model_path(), broken)
    (broken / "model.safetensors").write_bytes(b"\x00" * 16)
    monkeypatch.setenv("MEMX_EMBEDDING_MODEL", str(broken))
    monkeypatch.setattr(embed, "_CACHE", {})
    result = store("search", "alembic migrations", "--json")
    assert result.code == 0
    notices = result.err.splitlines()
    assert len(notices) == 1
    assert notices[0].startswith(f"memx: warning: embedding model unavailable ({broken}: ")
    assert notices[0].endswith("; searching by keyword only")
    out = json.loads(result.out)
    assert out["semantic"] is False
    assert out["results"][0]["content"].startswith("Database migrations")


def test_broken_memory_file_is_reported_and_skipped(store: Memx, repo: Path) -> None:
    bad = next(p for p in (repo / ".memx" / "memories").glob("*.yaml")
               if "alembic" not in p.read_text())
    bad.write_text(bad.read_text().replace("kind: fact", "kind: [fact"))
    result = store("search", "alembic", "--json")
    assert result.code == 0
    assert f"memx: warning: .memx/memories/{bad.name}:" in result.err
    assert json.loads(result.out)["results"]


def test_invalid_mode_and_empty_query(store: Memx) -> None:
    bad = store("search", "x", "--mode", "fuzzy")
    assert bad.code == 2 and "Invalid value for '--mode'" in bad.err
    empty = store("search", "  ")
    assert (empty.code, empty.err) == (2, "memx: error: empty query; pass the words to search for\n")


def test_huge_query_is_handled(store: Memx) -> None:
    result = store("search", "redis " * 2000, "--json")
    assert result.code == 0
    assert json.loads(result.out)["results"][0]["content"].startswith("Integration tests")


def test_reindex_reports(store: Memx) -> None:
    out = json.loads(store.ok("reindex", "--full", "--json"))["reindex"]["project"]
    assert out["documents"] == len(FACTS) and out["rebuilt"] and out["vectors"]
    assert store.ok("reindex") == (f"project: {len(FACTS)} memories indexed (0 added, 0 changed, "
                                   "0 removed), with vectors\n")
    assert out["problems"] == [] and store("reindex").err == ""  # control for the next test


@pytest.mark.parametrize("full", [False, True])
def test_reindex_warns_of_a_file_it_leaves_out(store: Memx, full: bool) -> None:
    # walk15: reindex left a broken memory file out in silence, and counted it as added
    # or changed; search, list and context warn of it
    store.ok("reindex")
    path = sorted((store.cwd / ".memx" / "memories").glob("*.yaml"))[0]
    path.write_text(path.read_text().replace("content: ", "content: [oops "))
    problem = (f".memx/memories/{path.name}:5: invalid YAML: did not find expected ',' or "
               "']'")
    result = store("reindex", *(["--full"] if full else []))
    assert result.code == 0
    assert result.err == f"memx: warning: {problem} (skipped)\n"
    # counted as a problem only, never as added or changed (walk16)
    added = len(FACTS) - 1 if full else 0
    assert result.out == (f"project: {len(FACTS) - 1} memories indexed ({added} added, 0 "
                          "changed, 0 removed), with vectors\n")
    out = json.loads(store.ok("reindex", "--json"))["reindex"]["project"]
    assert out["problems"] == [problem] and out["documents"] == len(FACTS) - 1
    # mended, it is indexed again: added; an edit of a file that parses is changed (control)
    path.write_text(path.read_text().replace("content: [oops ", "content: "))
    other = sorted((store.cwd / ".memx" / "memories").glob("*.yaml"))[1]
    other.write_text(other.read_text().replace("content: ", "content: Edited. ", 1))
    out = json.loads(store.ok("reindex", "--json"))["reindex"]["project"]
    assert (out["added"], out["changed"], out["problems"]) == (1, 1, [])


def test_scopes_global_workspace_and_project_isolation(bare_repo: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    one = Memx(bare_repo, monkeypatch)
    one.ok("init")
    other_root = tmp_path / "other"
    shutil.copytree(bare_repo, other_root, ignore=shutil.ignore_patterns(".memx"))
    two = Memx(other_root, monkeypatch)
    two.ok("init")
    one.ok("add", "zebra project fact from repo one")
    two.ok("add", "zebra project fact from repo two")
    one.ok("add", "zebra global habit", "--scope", "global")
    one.ok("add", "zebra workspace note", "--scope", "workspace:feature-x")

    def seen(memx: Memx, *args: str) -> list[str]:
        return [r["content"] for r in results(memx, "zebra", "--limit", "10", *args)]

    assert sorted(seen(one)) == ["zebra global habit", "zebra project fact from repo one"]
    assert sorted(seen(two)) == ["zebra global habit", "zebra project fact from repo two"]
    ws = seen(one, "--scope", "workspace:feature-x")
    assert ws[0] == "zebra workspace note"  # the current scope is boosted
    assert sorted(ws) == ["zebra global habit", "zebra project fact from repo one",
                          "zebra workspace note"]
    assert seen(one, "--scope", "global") == ["zebra global habit"]
    assert "zebra workspace note" not in seen(two, "--scope", "workspace:feature-x")


def test_import_keeps_source_verbatim_and_search_returns_it(memx: Memx) -> None:
    records = [{"content": "Kafka consumers must commit offsets manually", "tags": ["kafka"],
                "source": {"type": "import", "external_id": "X-17", "nested": {"a": [1, 2]}}},
               {"content": "second imported", "created_at": "2026-01-02T03:04:05Z"}]
    out = json.loads(memx.ok("import", "-", "--json", input=json.dumps(records)))
    assert len(out["imported"]) == 2
    hit = results(memx, "kafka offsets")[0]
    assert hit["source"] == records[0]["source"]
    lines = "\n".join(json.dumps(r) for r in records)
    memx.ok("import", "-", "--raw", input=lines)  # --raw: no curator, so no dedup
    exported = json.loads(memx.ok("export"))["memories"]
    assert len(exported) == 4
    assert memx.ok("export", "--format", "markdown").startswith("# Memories\n\n- **fact** `")


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ('[{"content": "ok"}, {"text": "no content"}]',
         "memx: error: import: record 2: unknown field 'text'\n"),
        ('[{"content": "ok"}, {"content": "x", "confidence": 5}]',
         "memx: error: import: record 2: field 'confidence': expected a number between 0 and 1, got 5\n"),
        ('{"content": "a"}\n{broken\n', "memx: error: import: line 2: invalid JSON "
         "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))\n"),
        ("plain text", "memx: error: import: expected JSON (an array of objects) or JSONL (one per line)\n"),
    ],
)
def test_bad_import_changes_nothing(memx: Memx, repo: Path, payload: str, message: str) -> None:
    result = memx("import", "-", input=payload)
    assert (result.code, result.err) == (2, message)
    assert list((repo / ".memx" / "memories").iterdir()) == []


def test_cold_search_subprocess_works(store: Memx, repo: Path) -> None:
    import sys

    proc = subprocess.run([sys.executable, "-m", "memx_cli", "search", "vite dev server"],
                          cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "pnpm dev" in proc.stdout


@pytest.mark.parametrize("damage", ["lexical", "vectors", "missing"])
def test_unreadable_index_files_are_rebuilt_with_one_notice(store: Memx, repo: Path,
                                                            damage: str) -> None:
    results(store, "redis")
    cache = repo / ".memx" / "cache"
    if damage == "lexical":
        for segment in (cache / "lexical").glob("*.idx"):
            segment.write_bytes(b"garbage")
    elif damage == "vectors":
        (cache / "vectors.usearch").write_bytes(b"junk")
    else:
        shutil.rmtree(cache / "lexical")
    result = store("search", "alembic", "--json")
    assert result.code == 0
    [notice] = result.err.splitlines()
    assert notice.startswith("memx: warning: search index in .memx/cache is unreadable (")
    assert notice.endswith("); rebuilding it")
    assert json.loads(result.out)["results"][0]["content"].startswith("Database migrations")
    assert store("search", "alembic").err == ""


def test_best_match_by_meaning_is_not_dropped_by_a_fixed_floor(memx: Memx) -> None:
    """Issue 16: no word of the query is in the UTC memory and its cosine is low in
    absolute terms, but it is the nearest memory by meaning: it must be a result."""
    for text in ["Store all timestamps in UTC and convert to local time only when displaying",
                 "Commit messages follow Conventional Commits: feat:, fix:, chore: prefixes",
                 "Run pytest -v --lf to rerun only the tests that failed last time",
                 "Use pnpm, not npm: the lockfile is pnpm-lock.yaml",
                 "Logging goes through structlog; never call print in library code"]:
        memx.ok("add", text)
    out = json.loads(memx.ok("search", "timezone handling convention", "--json", "--explain"))
    found = [r["content"] for r in out["results"]]
    assert any(text.startswith("Store all timestamps in UTC") for text in found), found
    utc = next(r for r in out["results"] if r["content"].startswith("Store all timestamps"))
    assert utc["explain"]["layers"]["semantic"] < 0.45  # the old fixed floor dropped it
    # Far weaker matches by meaning are still not padding.
    assert not any(text.startswith("Run pytest") for text in found), found
    # A query the model finds nothing in (every cosine at noise level) gets no results,
    # not the whole store at a score of zero.
    for mode in ("hybrid", "semantic"):
        assert results(memx, "xylophone quartz", "--mode", mode) == []


def test_the_meaning_only_floor_follows_the_query_own_candidates() -> None:
    """Issue 16: the floor for candidates with no word in common with the query is relative
    to the query's candidates: one that stands out passes whatever the scale; a crowd of
    similar cosines (a static model's noise) lets none through; noise level stays a floor."""
    from memx_cli.generator.candidates import NOISE_COSINE, Candidate, semantic_floor

    def floor(*cosines: float) -> float:
        return semantic_floor([Candidate(i, None, semantic=c)  # type: ignore[arg-type]
                               for i, c in enumerate(cosines)])

    standout = (0.30, 0.06, 0.05, 0.08, 0.04, 0.07)
    assert 0.08 < floor(*standout) <= 0.30  # the low absolute 0.30 passes, the rest do not
    crowd = (0.40, 0.40, 0.39, 0.39, 0.38, 0.38)
    assert floor(*crowd) > max(crowd)  # none stands out: not even the best one
    # Every cosine under the noise level: the best passes only when it is clearly ahead of
    # the second (a clearly best candidate is never dropped by a fixed floor) ...
    assert floor(0.15, 0.02, 0.03, 0.01, 0.02) == 0.15
    # ... and not when another is close behind it: that is the model's noise.
    assert floor(0.15, 0.13, 0.02, 0.01, 0.02) == NOISE_COSINE
    assert floor() == 1.0  # no vectors: no meaning-only results
    # Two or three candidates: the best can never be 1.5 deviations above their mean, so
    # the rule above would drop a clear best match on a tiny store; the best one passes,
    # above noise level only, and nothing under it.
    assert floor(0.45, 0.10) == 0.45
    assert floor(0.45, 0.41, 0.10) == 0.45
    assert floor(0.15, 0.10) == NOISE_COSINE
    assert floor(0.35) == 0.35
