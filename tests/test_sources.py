"""Shared memory repositories (issue 17): memx source add/update/list/remove, searched
and pushed as read-only scopes, pinned by a committed lock file, cached per commit."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from .conftest import Memx, git


@pytest.fixture
def team_repo(memx: Memx, tmp_path: Path) -> Path:
    """An organisation's memory repository: a memx store with a policy and two facts."""
    root = tmp_path / "team-memory"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    memx.ok("init", cwd=root)
    memx.ok("add", "--raw", "--kind", "policy", "--domain", "security",
            "Never log access tokens", cwd=root)
    memx.ok("add", "--raw", "--domain", "infra", "The staging cluster is named kestrel",
            cwd=root)
    memx.ok("add", "--raw", "--domain", "style", "Python services use ruff for linting",
            cwd=root)
    git(root, "add", ".memx")
    git(root, "commit", "-q", "-m", "team memory")
    return root


def _commit(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def test_add_pins_the_commit_and_search_and_context_include_the_source(
        memx: Memx, repo: Path, team_repo: Path) -> None:
    memx.ok("add", "The local cache lives in /var/cache/app")
    with (repo / ".memx" / "config.yaml").open("a") as handle:
        handle.write("# kept: a comment of the team\n")
    out = memx.ok("source", "add", "team", str(team_repo))
    commit = _commit(team_repo)
    assert out == (f"Added source team: 3 memories at {commit[:12]} (commit .memx/config.yaml "
                   "and .memx/sources.lock)\n")
    lock = (repo / ".memx" / "sources.lock").read_text()
    assert f"team:\n  commit: {commit}\n  url: {team_repo}\n" in lock
    assert (repo / ".memx" / "config.yaml").read_text().endswith(
        "# kept: a comment of the team\n"
        f"sources: {{team: {{url: {team_repo}}}}}\n")  # only the key changes
    found = memx.ok("search", "staging cluster name")
    assert found.splitlines()[0].split("  ")[2] == "source:team"
    data = json.loads(memx.ok("search", "staging cluster name", "--json"))
    assert data["results"][0]["store"] == "source:team"
    assert data["results"][0]["content"] == "The staging cluster is named kestrel"
    context = memx.ok("context", "add request logging")
    assert "- [security] Never log access tokens (from source team)\n" in context
    # read-only: nothing of the source is written into this repository
    assert len(list((repo / ".memx" / "memories").iterdir())) == 1
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == (
        "?? .memx/.gitattributes\n?? .memx/.gitignore\n?? .memx/config.yaml\n"
        "?? .memx/memories/" + next((repo / ".memx" / "memories").iterdir()).name + "\n"
        "?? .memx/sources.lock\n")
    listed = memx.ok("source", "list")
    assert listed == f"team  {team_repo}  {commit[:12]} (3 memories)\n"


def test_update_moves_the_pin_and_the_new_memory_is_found(memx: Memx, repo: Path,
                                                          team_repo: Path) -> None:
    memx.ok("source", "add", "team", str(team_repo))
    old = _commit(team_repo)
    memx.ok("add", "--raw", "Releases are cut every second Tuesday", cwd=team_repo)
    git(team_repo, "add", ".memx")
    git(team_repo, "commit", "-q", "-m", "more")
    assert "second Tuesday" not in memx.ok("search", "when are releases cut")
    new = _commit(team_repo)
    assert memx.ok("source", "update") == f"team: {old[:12]} -> {new[:12]} (4 memories)\n"
    assert "second Tuesday" in memx.ok("search", "when are releases cut")
    assert memx.ok("source", "update") == f"team: up to date at {new[:12]} (4 memories)\n"


def test_domains_filter_and_weight(memx: Memx, repo: Path, team_repo: Path) -> None:
    memx.ok("source", "add", "team", str(team_repo), "--domain", "infra", "--weight", "0.5")
    assert "kestrel" in memx.ok("search", "staging cluster name")
    assert memx("search", "ruff linting").out == ""  # style is not subscribed
    assert "Never log access tokens" not in memx.ok("context", "add logging")
    hit = json.loads(memx.ok("search", "staging cluster", "--json", "--explain"))["results"][0]
    assert hit["store"] == "source:team" and hit["explain"]["factors"]["source"] == 0.5
    assert memx("policy", "list").err == "No policies.\n"  # nor is security


def test_policy_list_shows_the_policies_a_preamble_pushes(memx: Memx, repo: Path,
                                                         team_repo: Path) -> None:
    # The walk-through (issue 27): `memx policy list` ("as they appear in a preamble")
    # left out a source's policies, which every preamble pushes.
    own = memx.ok("policy", "add", "Never push to main", "--domain", "conventions").strip()
    memx.ok("source", "add", "team", str(team_repo))
    team = json.loads(memx.ok("search", "Never log access tokens", "--json"))["results"][0]["id"]
    assert memx.ok("policy", "list") == (
        f"{own}  - [conventions] Never push to main\n"
        f"{team}  - [security] Never log access tokens (from source team)\n")
    context = memx.ok("context", "add request logging to the API")
    assert ("- [conventions] Never push to main\n"
            "- [security] Never log access tokens (from source team)\n") in context
    listed = json.loads(memx.ok("policy", "list", "--json"))["policies"]
    assert [(p["id"], p["store"]) for p in listed] == [(own, "project"), (team, "source:team")]
    assert memx("policy", "deactivate", team).err == (
        f"memx: error: no memory matches '{team}'; see memx list\n")  # read-only here


def test_an_unreachable_source_is_skipped_with_one_notice(memx: Memx, repo: Path,
                                                          team_repo: Path,
                                                          tmp_path: Path) -> None:
    memx.ok("add", "The local cache lives in /var/cache/app")
    memx.ok("source", "add", "team", str(team_repo))
    shutil.rmtree(Path(os.environ["XDG_CACHE_HOME"]) / "memx" / "sources")
    shutil.rmtree(team_repo)
    result = memx("search", "local cache")
    assert result.code == 0 and "/var/cache/app" in result.out
    commit = (repo / ".memx" / "sources.lock").read_text().split("commit: ")[1][:12]
    assert result.err == (f"memx: warning: source team ({commit}) is not in the cache; run "
                          "memx source update (skipped)\n")
    updated = memx("source", "update")
    assert updated.code == 0
    assert updated.err.startswith(f"memx: warning: source team: cannot fetch {team_repo} (")
    assert updated.err.endswith(f"(kept {commit})\n")


def test_two_repositories_share_one_cached_copy(memx: Memx, repo: Path, team_repo: Path,
                                                tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    memx.ok("init", cwd=other)
    memx.ok("source", "add", "team", str(team_repo))
    memx.ok("search", "staging cluster")
    memx.ok("source", "add", "org", str(team_repo), cwd=other)
    assert "kestrel" in memx.ok("search", "staging cluster", cwd=other)
    commits = Path(os.environ["XDG_CACHE_HOME"]) / "memx" / "sources" / "commits"
    assert [p.name for p in commits.iterdir()] == [_commit(team_repo)]


def test_bad_input_changes_nothing(memx: Memx, repo: Path, team_repo: Path,
                                   tmp_path: Path) -> None:
    config = (repo / ".memx" / "config.yaml").read_text()
    bad = memx("source", "add", "Team!", str(team_repo))
    assert (bad.code, bad.err) == (2, "memx: error: source name 'Team!': use lowercase "
                                      "letters, digits, . _ -\n")
    heavy = memx("source", "add", "team", str(team_repo), "--weight", "20")
    assert heavy.err == ("memx: error: source 'team': weight must be a number above 0, at "
                         "most 10\n")
    missing = memx("source", "add", "team", str(tmp_path / "nowhere"))
    assert missing.code == 2
    assert missing.err.startswith(f"memx: error: source team: cannot fetch {tmp_path}/nowhere (")
    assert (repo / ".memx" / "config.yaml").read_text() == config
    assert not (repo / ".memx" / "sources.lock").exists()
    token = memx("source", "add", "team", "https://bot:hunter2hunter2@example.com/org/m.git")
    assert token.err == ("memx: error: source team: the URL holds a credential, and "
                         ".memx/config.yaml is committed; use SSH or a git credential helper "
                         "instead\n")
    assert (repo / ".memx" / "config.yaml").read_text() == config
    memx.ok("source", "add", "team", str(team_repo))
    again = memx("source", "add", "team", str(team_repo))
    assert again.err == ("memx: error: source 'team' already exists; memx source remove team "
                         "first, or memx source update\n")
    assert memx.ok("source", "remove", "team") == "Removed source team\n"
    assert memx.ok("source", "list") == "No sources; add one with memx source add NAME URL.\n"
    assert "kestrel" not in memx.ok("search", "staging cluster name")


def _subscribed_clone(memx: Memx, repo: Path, team_repo: Path, tmp_path: Path) -> Path:
    """``repo`` subscribes to ``team_repo`` and commits it; a clone of it runs memx's
    post-merge hook."""
    memx.ok("source", "add", "team", str(team_repo))
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "subscribe")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    memx.ok("hooks", "install", "--hooks", "post-merge", cwd=clone)
    return clone


def test_a_pull_that_moves_the_pin_unpacks_the_new_commit(memx: Memx, repo: Path,
                                                          team_repo: Path,
                                                          tmp_path: Path) -> None:
    clone = _subscribed_clone(memx, repo, team_repo, tmp_path)
    memx.ok("add", "--raw", "Releases are cut every second Tuesday", cwd=team_repo)
    git(team_repo, "add", ".memx")
    git(team_repo, "commit", "-q", "-m", "more")
    memx.ok("source", "update")
    git(repo, "commit", "-q", "-am", "move the pin")
    commits = Path(os.environ["XDG_CACHE_HOME"]) / "memx" / "sources" / "commits"
    shutil.rmtree(commits)  # as on another machine: the new commit is not unpacked yet
    git(clone, "-c", "pull.rebase=false", "pull", "-q")
    assert [p.name for p in commits.iterdir()] == [_commit(team_repo)]
    assert "second Tuesday" in memx.ok("search", "when are releases cut", cwd=clone)


def test_the_mcp_server_searches_and_pushes_the_source(memx: Memx, repo: Path,
                                                       team_repo: Path) -> None:
    pytest.importorskip("mcp")
    from .test_mcp import call, run_session

    memx.ok("add", "The local cache lives in /var/cache/app")
    memx.ok("source", "add", "team", str(team_repo))

    async def script(client: object) -> tuple[dict[str, object], dict[str, object]]:
        found = await call(client, "search_memory", query="staging cluster name")
        context = await call(client, "get_context", task="add request logging")
        return found, context

    found, context = run_session(repo, script)
    first = found["results"][0]  # type: ignore[index]
    assert (first["store"], first["content"]) == ("source:team",
                                                  "The staging cluster is named kestrel")
    assert "- [security] Never log access tokens (from source team)\n" in (
        context["context"]["text"])  # type: ignore[index]


def _pull_a_hostile_lock(memx: Memx, repo: Path, team_repo: Path, tmp_path: Path,
                         commit: str) -> Path:
    """A subscriber's clone with memx's hooks pulls a ``sources.lock`` whose pinned commit
    is ``commit``, committed upstream (as a pull request would bring it)."""
    clone = _subscribed_clone(memx, repo, team_repo, tmp_path)
    lock = repo / ".memx" / "sources.lock"
    lock.write_text(f"team:\n  commit: {commit}\n  url: {team_repo}\n")
    git(repo, "commit", "-q", "-am", "pin")
    git(clone, "-c", "pull.rebase=false", "pull", "-q")
    assert (clone / ".memx" / "sources.lock").read_text() == lock.read_text()
    return clone


@pytest.mark.parametrize("option", ["--output={}", "--remote={}"])
def test_a_pulled_lock_cannot_pass_an_option_to_git(memx: Memx, repo: Path, team_repo: Path,
                                                     tmp_path: Path, option: str) -> None:
    # issue 26: the pinned commit went unchecked into `git archive`; --output emptied any
    # file the user can write on the next pull (post-merge hook) or search
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file\n")
    clone = _pull_a_hostile_lock(memx, repo, team_repo, tmp_path,
                                 option.format(victim))
    assert victim.read_text() == "the user's own file\n"
    result = memx("search", "staging cluster", cwd=clone)
    assert victim.read_text() == "the user's own file\n"
    assert result.code == 0
    assert result.err == ("memx: warning: .memx/sources.lock: source team: the pinned commit "
                          f"{option.format(victim)!r} is not a commit id (40 or 64 hex digits); "
                          "run memx source update\nNo matching memories.\n")
    commits = Path(os.environ["XDG_CACHE_HOME"]) / "memx" / "sources" / "commits"
    assert [p.name for p in commits.iterdir()] == [_commit(team_repo)]



def test_a_huge_file_in_a_source_is_streamed_past_not_held(memx: Memx, repo: Path,
                                                           team_repo: Path) -> None:
    # issue 26: unpacking read the whole archive: a 300 MB file took 943 MB RSS
    import subprocess
    import sys

    huge = team_repo / ".memx" / "memories" / "01jd3k7m2xzzzzzzzzzzzzzzzz.yaml"
    with huge.open("wb") as handle:
        handle.truncate(300 * 1024 * 1024)
    git(team_repo, "add", ".memx")
    git(team_repo, "commit", "-q", "--no-verify", "-m", "a huge file")
    script = ("import json, resource, subprocess, sys\n"
              "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
              "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
              "print(json.dumps([p.returncode, p.stdout, p.stderr, peak]))\n")
    outer = subprocess.run([sys.executable, "-c", script, sys.executable, "-m", "memx_cli",
                            "source", "add", "team", str(team_repo)], cwd=repo, text=True,
                           capture_output=True, timeout=300)
    code, out, err, peak = json.loads(outer.stdout)
    assert code == 0, err
    assert out.startswith("Added source team: 3 memories at ")
    assert err == ("memx: warning: source team: 01jd3k7m2xzzzzzzzzzzzzzzzz.yaml is 314572800 "
                   "bytes, over the limit of 1000000 (skipped)\n")
    # git archive itself holds the blob (~300 MB); memx held it twice more (943 MB)
    assert peak < 450, f"{peak:.0f} MB"
    assert "kestrel" in memx.ok("search", "staging cluster name")


def test_a_committed_url_or_ref_that_git_would_take_for_an_option_is_refused(
        memx: Memx, repo: Path, tmp_path: Path) -> None:
    config = repo / ".memx" / "config.yaml"
    for entry, part in (('{url: "--upload-pack=touch owned"}', "url"),
                        (f'{{url: "{tmp_path}", ref: "--output=x"}}', "ref")):
        config.write_text(f"sources: {{team: {entry}}}\n")
        result = memx("source", "update")
        assert result.code == 2
        assert f"source 'team': the {part} must be one line that does not begin with '-', " \
            "got " in result.err
        assert len(result.err.splitlines()) == 1
    assert not (repo / "owned").exists() and not (repo / "x").exists()


def test_a_folder_given_relative_is_committed_relative(memx: Memx, repo: Path, team_repo: Path,
                                                      tmp_path: Path) -> None:
    # the committed config and lock name no path of this machine (walk-through, issue 27):
    # a teammate's clone beside the same folder reads the source too
    relative = os.path.relpath(team_repo, repo)
    assert relative.startswith("..")
    memx.ok("source", "add", "team", relative)
    config = (repo / ".memx" / "config.yaml").read_text()
    lock = (repo / ".memx" / "sources.lock").read_text()
    assert f"url: {relative}" in config and f"url: {relative}" in lock
    assert str(tmp_path) not in config + lock
    assert memx.ok("source", "list").startswith(f"team  {relative}  ")
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "subscribe")
    # the teammate: the same two folders side by side somewhere else
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copytree(team_repo, elsewhere / team_repo.name)
    clone = elsewhere / repo.name
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    # the teammate approves the folder the config names, as it resolves on their machine
    approved = memx.ok("source", "approve", "team", cwd=clone)
    assert str(elsewhere / team_repo.name) in approved
    assert memx.ok("source", "update", cwd=clone)
    data = json.loads(memx.ok("search", "staging cluster name", "--json", cwd=clone))
    assert data["results"][0]["store"] == "source:team"


def test_approving_a_source_changes_what_a_warm_searcher_was_built_from(
        memx: Memx, repo: Path, team_repo: Path) -> None:
    # the server keeps a searcher per key: an approval must make it read the source
    from memx_cli.server.warmth import searcher_key
    from memx_cli.store.repo import Repo

    config = repo / ".memx" / "config.yaml"
    config.write_text(f"sources:\n  team:\n    url: {team_repo}\n")
    opened = Repo.discover(repo)
    before = searcher_key(opened)
    assert searcher_key(Repo.discover(repo)) == before  # control: nothing changed
    memx.ok("source", "approve", "team")
    assert searcher_key(Repo.discover(repo)) != before


def _cache_files() -> list[str]:
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "memx" / "sources"
    return sorted(str(p.relative_to(cache)) for p in cache.rglob("*") if not p.is_dir())


def test_a_host_that_never_answers_stops_the_fetch_within_its_time(
        memx: Memx, repo: Path, team_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    # a real listening socket nobody accepts on: git connects, sends, and waits for good
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/team/memory.git"
        config = (repo / ".memx" / "config.yaml").read_text()
        monkeypatch.setenv("MEMX_SOURCE_TIMEOUT", "1.5")
        hung = memx("source", "add", "team", url)
    assert (hung.code, hung.err) == (2, f"memx: error: source team: cannot fetch {url} (git "
                                        "clone stopped: no answer within 1.5 s)\n")
    assert (repo / ".memx" / "config.yaml").read_text() == config
    assert not (repo / ".memx" / "sources.lock").exists()
    assert not any(".tmp" in name for name in _cache_files())
    # control: the same bound lets a source that answers be fetched
    memx.ok("source", "add", "team", str(team_repo))
    assert "kestrel" in memx.ok("search", "staging cluster")


def test_a_source_over_the_size_bound_is_refused_and_an_update_keeps_its_pin(
        memx: Memx, repo: Path, team_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memx.ok("source", "add", "team", str(team_repo))
    pinned = (repo / ".memx" / "sources.lock").read_text()
    (team_repo / "blob.bin").write_bytes(os.urandom(3_000_000))  # random: packs as it is
    git(team_repo, "add", "blob.bin")
    git(team_repo, "commit", "-q", "-m", "a large file")
    monkeypatch.setenv("MEMX_SOURCE_MAX_BYTES", "1000000")
    big = memx("source", "update")
    assert big.code == 0
    assert big.err.startswith(f"memx: warning: source team: cannot fetch {team_repo} (git "
                              "fetch stopped: it is over 1,000,000 bytes)")
    assert (repo / ".memx" / "sources.lock").read_text() == pinned
    # the mirror keeps no half-written pack (git's own temporary names)
    assert not [n for n in _cache_files() if "/tmp_" in n or "/incoming-" in n]
    other = repo.parent / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    memx.ok("init", cwd=other)
    monkeypatch.setenv("XDG_CACHE_HOME", str(repo.parent / "empty-cache"))  # a first clone
    refused = memx("source", "add", "org", str(team_repo), cwd=other)
    assert refused.err == (f"memx: error: source org: cannot fetch {team_repo} (git clone "
                           "stopped: it is over 1,000,000 bytes)\n")
    assert "sources" not in (other / ".memx" / "config.yaml").read_text()
    assert not (other / ".memx" / "sources.lock").exists() and not _cache_files()
    # control: under a bound that holds it, the same update moves the pin
    monkeypatch.setenv("MEMX_SOURCE_MAX_BYTES", "50000000")
    memx.ok("source", "update")
    assert (repo / ".memx" / "sources.lock").read_text() != pinned
    monkeypatch.setenv("MEMX_SOURCE_TIMEOUT", "soon")
    bad = memx("source", "update")
    assert "MEMX_SOURCE_TIMEOUT='soon': expected a positive number" in bad.err
