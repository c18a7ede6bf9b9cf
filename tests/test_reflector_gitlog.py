"""`memx ingest --git-log [RANGE]` end to end in a real repository: what the history
teaches, merges and bots skipped, dry runs, JSON, progress on stderr, a second run."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import yaml

from .conftest import Memx, git


def commit(repo: Path, message: str, files: dict[str, str], author: str | None = None,
           date: str | None = None) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
        git(repo, "add", name)
    env = dict(os.environ)
    if author:
        env.update(GIT_AUTHOR_NAME=author, GIT_AUTHOR_EMAIL=f"{author}@users.noreply.example")
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo, env=env, check=True)
    return git(repo, "rev-parse", "HEAD").strip()


def history(repo: Path) -> dict[str, str]:
    shas = {}
    commit(repo, "add the gunicorn config", {"deploy/gunicorn.ini": "workers = 2\n"})
    shas["config"] = commit(repo, "More workers for the sale",
                            {"deploy/gunicorn.ini": "workers = 8\n"})
    shas["fix"] = commit(repo, "fix(cache): crash when REDIS_URL is unset\n\nThe client read "
                               "REDIS_URL without a default, so a KeyError crashed the worker."
                               "\n\nFall back to redis://localhost:6379/0.",
                         {"app/cache.py": "url = env.get('REDIS_URL', DEFAULT)\n"})
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, "fix: side branch error handling crash", {"side.py": "x = 1\n"})
    git(repo, "checkout", "-q", "main")
    commit(repo, "docs: readme", {"README.md": "demo, more\n"})
    git(repo, "merge", "-q", "--no-edit", "side")
    commit(repo, "fix(deps): bump lodash because of a CVE error", {"package.json": "{}\n"},
           author="dependabot[bot]")
    shas["decision"] = commit(repo, "docs(adr): record the queue decision\n\nWe decided to use "
                              "Postgres advisory locks because Redis locks lost jobs on "
                              "failover.", {"docs/adr/0001.md": "queue\n"})
    return shas


def stored(repo: Path) -> list[dict[str, object]]:
    return [yaml.safe_load(p.read_text()) for p in (repo / ".memx" / "memories").glob("*.yaml")]


def test_history_becomes_memory_once(memx: Memx, repo: Path) -> None:
    shas = history(repo)
    result = memx("ingest", "--git-log")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == ("Stored 3 memories from 7 commits (1 merges, 1 by bots, "
                        "0 already ingested)")
    assert result.err == ""  # progress on a terminal only: a pipe or a hook's log stays clean
    by_sha = {m["source"]["sha"]: m for m in stored(repo)}  # type: ignore[index]
    assert set(by_sha) >= {shas["config"], shas["fix"], shas["decision"]}
    assert by_sha[shas["config"]]["content"] == (
        "In deploy/gunicorn.ini, `workers = 8` (changed from 2) (More workers for the sale).")
    assert by_sha[shas["fix"]]["content"] == (
        "cache: Crash when REDIS_URL is unset. Error: The client read REDIS_URL without a default, so a KeyError crashed the worker. "
        "Fix: Fall back to redis://localhost:6379/0 (changed app/cache.py).")
    assert by_sha[shas["decision"]]["type"] == "decision"
    assert not any("lodash" in str(m["content"]) for m in stored(repo))  # a bot's commit
    before = sorted(p.read_bytes() for p in (repo / ".memx" / "memories").glob("*.yaml"))
    again = json.loads(memx.ok("ingest", "--git-log", "--json"))
    assert (again["reflected"], again["already_ingested"], again["stored"]) == (0, 7, [])
    after = sorted(p.read_bytes() for p in (repo / ".memx" / "memories").glob("*.yaml"))
    assert after == before  # idempotent: nothing written, no mention counted twice


def test_progress_when_asked_on_stderr_never_with_json(memx: Memx, repo: Path) -> None:
    history(repo)
    memx.monkeypatch.setenv("MEMX_PROGRESS", "1")  # a CI log that wants it
    shown = memx("ingest", "--git-log", "--dry-run")
    assert shown.code == 0, shown.err
    # the range's non-merge commits read, one line rewritten in place, cleared at the end
    assert "memx: reflecting on commits 8/8 (100%)" in shown.err
    assert shown.err.endswith("\r") and "reflecting" not in shown.out
    quiet = memx("ingest", "--git-log", "--dry-run", "--json")
    assert (quiet.code, quiet.err) == (0, "")  # a script's standard error stays clean
    json.loads(quiet.out)


def test_a_range_a_dry_run_and_json(memx: Memx, repo: Path) -> None:
    shas = history(repo)
    found = json.loads(memx.ok("ingest", "--git-log", f"{shas['config']}..{shas['fix']}",
                               "--dry-run", "--json"))
    assert (found["commits"], found["reflected"], found["dry_run"]) == (1, 1, True)
    assert [(c["sha"], c["rule"]) for c in found["candidates"]] == [(shas["fix"], "ErrorFix")]
    assert stored(repo) == []
    assert not (repo / ".memx" / "local" / "git-log-ingested").exists()


def test_bad_input_is_one_line_and_changes_nothing(memx: Memx, repo: Path) -> None:
    result = memx("ingest", "--git-log", "no-such-branch..main")
    assert (result.code, result.err.splitlines()[-1]) == (
        2, "memx: error: cannot read the history no-such-branch..main: bad revision "
           "'no-such-branch..main'")
    result = memx("ingest")
    assert (result.code, result.err.splitlines()[-1]) == (
        2, "memx: error: give FILE (or - for standard input), or --git-log [RANGE]")
    result = memx("ingest", "--git-log", "HEAD~1..HEAD", "notes.log")
    assert (result.code, result.err.splitlines()[-1]) == (
        2, "memx: error: --git-log reads the repository's history, not notes.log: give FILE "
           "or --git-log, not both")
    result = memx("ingest", "--git-log", "--stats", "--raw", "--dry-run")
    assert (result.code, result.err.splitlines()[-1]) == (
        2, "memx: error: --stats and --raw are for a FILE, not --git-log")  # not ignored
    (repo / "notes.log").write_text("nothing much\n")
    result = memx("ingest", "notes.log", "--budget", "3", "--dry-run")
    assert (result.code, result.err.splitlines()[-1]) == (
        2, "memx: error: --budget is for --git-log, not a FILE")
    assert memx.ok("ingest", "notes.log", "--stats", "--dry-run")  # where they belong
    assert memx.ok("ingest", "--git-log", "--budget", "3", "--all", "--dry-run")
    for bad in ("HEAD\nmain", "", "  "):  # a line break would split git's error in two
        result = memx("ingest", "--git-log", bad)
        assert (result.code, result.err) == (
            2, f"memx: error: not a revision range: {bad!r}; give one such as v1.0..main\n")
    assert stored(repo) == []
