"""Issue 24: what `memx ingest --git-log` keeps from a history written the way engineers
write them, in real temporary repositories: routine commits teach nothing unless they say
why, a kept pin names its hook or action, source files are not configuration, a norm in a
subject, a revert and a "because" are lessons, every memory is dated by its commit and
names it, and a later value of a setting supersedes the earlier one."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from .conftest import Memx, git
from .test_reflector_gitlog import commit

PRE_COMMIT = """repos:
-   repo: https://github.com/astral-sh/ruff-pre-commit
    rev: {ruff}
    hooks:
    -   id: ruff
-   repo: https://github.com/pre-commit/mirrors-mypy
    rev: {mypy}
    hooks:
    -   id: mypy
"""
WORKFLOW = """on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@{sha} # {version}
      - run: make test
"""


def listed(memx: Memx) -> list[dict[str, object]]:
    """The memory files as stored (superseded ones too)."""
    files = (memx.cwd / ".memx" / "memories").glob("*.yaml")
    return [yaml.safe_load(p.read_text(encoding="utf-8")) for p in files]


def contents(memx: Memx) -> list[str]:
    return sorted(str(m["content"]) for m in listed(memx))


def test_routine_commits_teach_nothing_unless_the_message_says_why(memx: Memx,
                                                                   repo: Path) -> None:
    commit(repo, "Add tooling", {".pre-commit-config.yaml": PRE_COMMIT.format(
        ruff="v0.4.0", mypy="v1.10.0"), ".github/workflows/ci.yml": WORKFLOW.format(
        sha="a" * 40, version="v4.1.0"), "pyproject.toml": '[project]\nversion = "1.0.0"\n'})
    base = git(repo, "rev-parse", "HEAD").strip()
    commit(repo, "[pre-commit.ci] pre-commit autoupdate", {
        ".pre-commit-config.yaml": PRE_COMMIT.format(ruff="v0.5.0", mypy="v1.11.0")})
    commit(repo, "Bump actions/checkout from 4.1.0 to 4.2.0", {
        ".github/workflows/ci.yml": WORKFLOW.format(sha="b" * 40, version="v4.2.0")})
    commit(repo, "Release 1.1.0", {"CHANGELOG.md": "## 1.1.0\n- faster\n",
                                   "pyproject.toml": '[project]\nversion = "1.1.0"\n'})
    commit(repo, "docs: fix typo in the install guide", {"docs/install.md": "pip install\n"})
    commit(repo, "Tune the fixtures", {"tests/conftest.py": "timeout = 5\n",
                                       "app/db_config.py": "password = make()  # type: ignore\n"})
    commit(repo, "Test the tox environments", {"pyproject.toml": (
        '[project]\nversion = "1.1.0"\n[tool.tox]\nenv_list = [\n  "py3.14t",\n  "error",\n]\n')})
    commit(repo, "Fix #355", {"app/views.py": "x = 1\n"})
    commit(repo, "fix: the `--all` example in the guide", {"docs/guide.md": "--all\n"})
    commit(repo, "fix: handle a malformed URI in the middleware\n\n---------\n\n"
                 "Co-authored-by: Someone <someone@example.invalid>", {"app/mw.py": "y = 2\n"})
    kept = commit(repo, "Hold ruff back to v0.4.9\n\nruff 0.5 rejects our noqa comments, "
                        "because its parser changed.", {
                            ".pre-commit-config.yaml": PRE_COMMIT.format(ruff="v0.4.9",
                                                                         mypy="v1.11.0")})
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json"))
    assert [(c["sha"], c["type"]) for c in found["candidates"]] == [(kept, "decision")]
    assert found["candidates"][0]["content"] == (
        "Hold ruff back to v0.4.9: ruff 0.5 rejects our noqa comments, because its parser "
        "changed.")
    reasons = {d["reason"] for d in found["dropped"]}
    assert "routine: a dependency or pin bump" in reasons
    assert "routine: a release" in reasons
    pins = [d["content"] for d in found["dropped"] if d["rule"] == "ConfigChange"]
    assert any("ruff-pre-commit rev: v0.5.0" in p and "mypy" not in p.split("(")[0]
               for p in pins)  # the pin names its hook, not a bare `rev:`
    assert any("uses: actions/checkout@v4.2.0" in p for p in pins)
    assert not any("conftest" in d["content"] or "db_config" in d["content"]
                   or "py3.14t" in d["content"] or "#355" in d["content"]
                   or "---" in d["content"] for d in found["dropped"] + found["candidates"])
    assert found["by_kind"] == {"decision": 1}


def test_norms_reverts_reasons_and_squash_lists(memx: Memx, repo: Path) -> None:
    base = commit(repo, "Start", {"README.md": "app\n"})
    commit(repo, "Do not retry on 4xx responses\n\nA client error does not change on a "
                 "retry, so retrying only adds load.", {"app/http.py": "retry = False\n"})
    commit(repo, 'Revert "Cache the session in memory"\n\nThis reverts commit '
                 f"{'c' * 40}.\n\nThe cache broke logins behind the load balancer.",
           {"app/session.py": "cache = None\n"})
    commit(repo, "refactor: keep uploads on disk\n\nUploads stay on disk because the object "
                 "store bills every request.", {"app/upload.py": "disk = True\n"})
    commit(repo, "Tidy the worker (#12)\n\n* Rename the queue helpers\n\n* Never call flush() "
                 "inside the lock\n\n* Update the changelog", {"app/worker.py": "q = 1\n"})
    commit(repo, "feat: add the export button", {"app/export.py": "button = 1\n"})
    memx.ok("ingest", "--git-log", f"{base}..HEAD")
    assert contents(memx) == [
        "Do not retry on 4xx responses: A client error does not change on a retry, so "
        "retrying only adds load.",
        "Keep uploads on disk: Uploads stay on disk because the object store bills every "
        "request.",
        "Never call flush() inside the lock.",
        'Reverted "Cache the session in memory": The cache broke logins behind the load '
        "balancer.",
    ]
    kinds = sorted(str(m["type"]) for m in listed(memx))
    assert kinds == ["convention", "convention", "decision", "decision"]


def test_a_memory_is_dated_by_its_commit_and_names_it(memx: Memx, repo: Path) -> None:
    base = commit(repo, "Start", {"README.md": "app\n"})
    sha = commit(repo, "Always close the temp file before renaming it\n\nWindows refuses to "
                       "rename an open file.", {"app/io.py": "close()\n"},
                 date="2024-05-01T09:30:00+02:00")
    result = memx("ingest", "--git-log", f"{base}..HEAD")
    assert result.code == 0, result.err
    assert result.out.splitlines()[-1] == (
        "By kind: 1 convention (1000 per 1,000 commits reflected; 0 candidates dropped)")
    [mem] = listed(memx)
    assert mem["source"] == {"type": "commit", "sha": sha}
    assert mem["created_at"] == "2024-05-01T07:30:00Z"  # the commit's time, in UTC
    assert json.loads(memx.ok("list", "--json"))["memories"][0]["source"]["sha"] == sha


def test_a_later_value_of_a_setting_supersedes_the_earlier_one(memx: Memx,
                                                                repo: Path) -> None:
    base = commit(repo, "Start", {"README.md": "app\n"})
    commit(repo, "Set the db timeout to 30 seconds because the reports query is slow",
           {"app/db.yaml": "pool: 5\ntimeout: 30\n"})
    commit(repo, "Raise the db timeout to 60 because the nightly export needs longer",
           {"app/db.yaml": "pool: 5\ntimeout: 60\n"})
    memx.ok("ingest", "--git-log", f"{base}..HEAD")
    by_content = {str(m["content"]): m for m in listed(memx)}
    assert sorted(by_content) == [
        "In app/db.yaml, `timeout: 30` (Set the db timeout to 30 seconds because the reports "
        "query is slow).",
        "In app/db.yaml, `timeout: 60` (changed from 30) (Raise the db timeout to 60 because "
        "the nightly export needs longer).",
    ]
    old, new = (by_content[c] for c in sorted(by_content))
    assert old.get("superseded_by") == new["id"]
    assert not old.get("conflicts_with") and not new.get("conflicts_with")


def test_dry_run_all_lists_what_was_dropped_and_why(memx: Memx, repo: Path) -> None:
    base = commit(repo, "Start", {"README.md": "app\n"})
    sha = commit(repo, "fix: handle a malformed URI in the middleware", {"app/mw.py": "y = 2\n"})
    result = memx("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--all")
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "Would store 0 memories from 1 commit (0 merges, 0 by bots, 0 already ingested)",
        "Dropped 1 candidate:",
        f"  {sha[:10]}  ErrorFix     a fixed bug with no cause, rule or fact stated (the code "
        "says as much): Handle a malformed URI in the middleware",
        "By kind: none (0 per 1,000 commits reflected; 1 candidate dropped)",
    ]


NORMS = ["Always close the temp file before renaming it", "Do not retry on 4xx responses",
         "Never call flush() inside the lock", "Always pin the base image by digest",
         "Do not share the HTTP session across threads",
         "Never commit the generated protobuf files",
         "Always run migrations before the smoke test",
         "Do not import the settings module at import time",
         "Never block the event loop with file reads",
         "Always set a timeout on outbound requests",
         "Do not cache responses that carry cookies"]


def test_a_budget_keeps_the_best_scored_memories(memx: Memx, repo: Path) -> None:
    """60 memories per 1,000 commits by default, never fewer than five: of twelve norms,
    the one that says why and four others; --budget 0 keeps all twelve (it kept all by
    default before)."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    why = commit(repo, "Never log the request body\n\nIt holds card numbers, because the "
                       "payment form posts them in clear.", {"app/log.py": "body = None\n"})
    for n, norm in enumerate(NORMS):
        commit(repo, norm, {f"app/m{n}.py": "x = 1\n"})
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json"))
    kept = found["candidates"]
    assert len(kept) == 5 and why in [c["sha"] for c in kept]
    over = [d for d in found["dropped"] if d["reason"].startswith("over the budget")]
    assert len(over) == 7 and max(d["score"] for d in over) <= min(c["score"] for c in kept)
    assert over[0]["reason"] == ("over the budget of 60 memories per 1,000 commits: others "
                                 "scored higher")
    everything = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run",
                                    "--json", "--budget", "0"))
    assert len(everything["candidates"]) == 12
    # the budget picks before the memories are distilled: what it keeps reads as without a
    # budget, and what it drops as the memory it would have been
    would = {c["sha"]: c["content"] for c in everything["candidates"]}
    assert [(c["sha"], c["content"]) for c in kept] == [(c["sha"], would[c["sha"]])
                                                         for c in kept]
    assert [(d["sha"], d["content"]) for d in over] == [(d["sha"], would[d["sha"]])
                                                         for d in over]


def test_a_package_path_prefix_as_go_writes_it(memx: Memx, repo: Path) -> None:
    base = commit(repo, "Start", {"README.md": "app\n"})
    fix = commit(repo, "net/http: fix a keep-alive race\n\nThe idle timer fired while a "
                       "response was written, because it was not stopped before reuse.\n\n"
                       "Stop the timer before the connection is reused.",
                 {"net/http/transport.go": "stop()\n"})
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json"))
    assert [(c["sha"], c["rule"], c["content"]) for c in found["candidates"]] == [(
        fix, "ErrorFix", "net/http: Fix a keep-alive race. Error: The idle timer fired while a response was written, because it "
        "was not stopped before reuse. Fix: Stop the timer before the connection is reused "
        "(changed net/http/transport.go).")]


def test_a_revert_without_a_reason_keeps_what_it_took_back(memx: Memx, repo: Path) -> None:
    """A revert that gives no reason still tells that the change it names was taken back,
    which the code no longer shows; a revert of a chore that names no version, and a
    revert of a revert (the change lands again), teach nothing: --dry-run --all says why."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    sha = commit(repo, 'Revert "Cache the user session in memory between requests" (#41)\n\n'
                       'Revert "Cache the user session in memory between requests (#40)"\n\n'
                       f'This reverts commit {"c" * 40}.', {"app/session.py": "cache = None\n"})
    bump = commit(repo, 'Revert "Bump hatch from 1.15.1 to 1.16.4" (#42)\n\nThis reverts '
                        f'commit {"d" * 40}.', {"docker/build.sh": "pip install hatch\n"})
    chore = commit(repo, 'Revert "[pre-commit.ci] pre-commit autoupdate" (#43)\n\nThis '
                         f'reverts commit {"e" * 40}.', {".pre-commit-config.yaml": "x: 1\n"})
    again = commit(repo, 'Revert "Revert "Use the fast parser""\n\nThis reverts commit '
                         f'{"f" * 40}.', {"app/parse.py": "fast = True\n"})
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json",
                               "--all"))
    assert sorted((c["sha"], c["content"]) for c in found["candidates"]) == sorted([
        (bump, 'Reverted "Bump hatch from 1.15.1 to 1.16.4".'),
        (sha, 'Reverted "Cache the user session in memory between requests".')])
    assert {(d["sha"], d["reason"]) for d in found["dropped"]} >= {
        (chore, "a revert of a chore that names no version"),
        (again, "a revert of a revert: the change lands again")}
    # a restore that says why is told as a restore, not as a revert
    back = commit(repo, 'fix: restore "feat: cache the user session in memory" (#44)\n\n'
                        "The load balancer now pins sessions, so the cache holds again.",
                  {"app/session.py": "cache = {}\n"})
    later = json.loads(memx.ok("ingest", "--git-log", f"{again}..HEAD", "--dry-run", "--json"))
    assert [(c["sha"], c["content"]) for c in later["candidates"]] == [
        (back, 'Restored "Cache the user session in memory": The load balancer now pins '
               "sessions, so the cache holds again.")]


def drafted(memx: Memx, repo: Path, *commits: tuple[str, dict[str, str]]) -> list[str]:
    """What --dry-run --json would store from these commits, after a first one."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    for message, files in commits:
        commit(repo, message, files)
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json"))
    return [str(c["content"]) for c in found["candidates"]]


def test_a_squash_merge_list_is_no_fix_and_its_items_stay_apart(memx: Memx,
                                                                 repo: Path) -> None:
    """A fix's squash body lists the PR's commits; a bot's paragraph under one of them
    ("for more information, see …") explains no failure, and a list item is never joined
    to the next one into one sentence."""
    texts = drafted(memx, repo, (
        "Fix crashes when the cache directory is read-only (#56)\n\n"
        "* Use `safe_open` everywhere\n\n* Remove the underscore prefix\n\n"
        "* [pre-commit.ci] auto fixes from pre-commit.com hooks\n\n"
        "for more information, see https://pre-commit.ci\n\n---------\n\n"
        "Co-authored-by: a <a@example.com>", {"app/cache.py": "safe_open()\n"}), (
        "Fix doubled log lines (#57)\n\n* Fix doubled log lines when a handler is added "
        "twice\n\n* The root logger kept its handler because the setup ran once per "
        "import\n\n* Add regression tests for the doubled lines", {"app/log.py": "once()\n"}))
    assert not any("safe_open" in t for t in texts)
    assert all(" * " not in t for t in texts), texts
    assert any("The root logger kept its handler because the setup ran once per import."
               in t for t in texts), texts


def test_an_indented_wrapped_paragraph_is_read_in_whole_sentences(memx: Memx,
                                                                 repo: Path) -> None:
    """A wrapped line is no sentence, in an indented paragraph too (a squash merge's
    commit body, indented under its title): the Error slot held "profile, or the loader
    crashed … depending on." and the Fix slot the other half of the cut sentence."""
    assert drafted(memx, repo, (
        "fix: read the --profile file strictly\n\nProfiles are read more strictly (#71)\n\n"
        "  Previously a profile with a typo in a key was silently read as an empty\n  "
        "profile, or the loader crashed with a raw KeyError traceback, depending on\n  the "
        "key. Now an unknown key is a usage error naming the key.\n",
        {"app/profile.py": "strict = True\n"})) == [
        "Read the --profile file strictly. Error: Previously a profile with a typo in a key was silently read as an empty "
        "profile, or the loader crashed with a raw KeyError traceback, depending on the key. "
        "Now an unknown key is a usage error naming the key. Fix: Profiles are read more "
        "strictly (#71) (changed app/profile.py)."]


def test_the_text_rules_read_a_wrapped_paragraph_whole(memx: Memx, repo: Path) -> None:
    """The message's first paragraph goes to the text rules unwrapped: a memory began at a
    wrapped line ("native TOML config raised a TypeError (#14675).")."""
    assert drafted(memx, repo, (
        "Accept an int for ``retry_limit`` in the YAML settings (#88)\n\nThe retry_limit "
        "option was registered without a type, so integer values in\nthe YAML config raised "
        "a TypeError (#87). It is now registered as an int.",
        {"app/options.py": "retry_limit = int\n"})) == [
        "The retry_limit option was registered without a type, so integer values in the "
        "YAML config raised a TypeError (#87)."]


def test_a_fix_subject_is_a_title_before_the_bodys_sentence(memx: Memx, repo: Path) -> None:
    """"Publish binaries again on Windows Fix publish binaries workflow …": the subject has
    no full stop, so joined with a space it ran into the body's first sentence."""
    assert drafted(memx, repo, (
        "Fix `strip` on the Windows runner (#9)\n\n- Skip `strip` when the runner has no "
        "binutils", {"ci/build.sh": "strip || true\n"})) == [
        "`strip` on the Windows runner: Skip `strip` when the runner has no binutils "
        "(changed ci/build.sh)."]


def test_a_change_reverted_later_in_the_range_teaches_nothing(memx: Memx, repo: Path) -> None:
    """A lesson whose commit a later one reverts (git's "This reverts commit SHA.") no
    longer holds: it is dropped, naming the revert; reverting the revert lands it again."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    pool = commit(repo, "Keep the pool at 8 connections because the proxy drops idle ones",
                  {"app/db.py": "POOL = 8\n"})
    kept = commit(repo, "Do not retry a request that got a 4xx response",
                  {"app/http.py": "RETRY_4XX = False\n"})
    undo = commit(repo, f'Revert "Keep the pool at 8 connections"\n\nThe proxy was fixed, '
                        f'so the pool can grow again.\n\nThis reverts commit {pool}.',
                  {"app/db.py": "POOL = 32\n"})
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json"))
    shas = {c["sha"] for c in found["candidates"]}
    assert pool not in shas and kept in shas
    assert {"sha": pool, "reason": f"reverted later in the range by {undo[:10]}"} in [
        {"sha": d["sha"], "reason": d["reason"]} for d in found["dropped"]]
    git(repo, "revert", "--no-edit", undo)  # "Revert "Revert …"": the pool rule is back
    again = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json"))
    assert pool in {c["sha"] for c in again["candidates"]}
    # dropped as reverted, it read as the memory it becomes once it holds again
    [gone] = [d for d in found["dropped"] if d["sha"] == pool]
    assert [gone["content"]] == [c["content"] for c in again["candidates"] if c["sha"] == pool]


def test_whitespace_or_formatting_is_noise_only_when_it_is_the_whole_change(
        memx: Memx, repo: Path) -> None:
    """A subject whose object is formatting or whitespace itself ("fix formatting", "Remove
    trailing whitespace in docs/api.rst", "Fix whitespace with ruff") is a layout chore; a
    change that names what the program does to whitespace or with its formatting ("split
    on whitespace", "Make `epilog` formatting consistent …") is a behaviour."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    chores = [commit(repo, subject, {path: f"x = {n}\n"}) for n, (subject, path) in enumerate([
        ("fix formatting", "app/cli.py"),
        ("Remove trailing whitespace in docs/api.rst", "docs/api.rst"),
        ("Fix whitespace with ruff", "app/env.py"),
        ("🎨 Fix formatting (#12)", "app/help.py"),
        ("Fix typo in `Option.split` docstring", "app/env.py")])]
    split = commit(repo, "🐛 Ensure that an envvar list for `Option` is split on whitespace "
                         "(#1791)", {"app/env.py": "sep = None\n"})
    epilog = commit(repo, "✨ Make `epilog` formatting consistent with the rest of the help "
                          "text (#1405)", {"app/help.py": "epilog = render(epilog)\n"})
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json",
                               "--all", "--budget", "0"))
    routine = {d["sha"] for d in found["dropped"]
               if d["reason"] == "routine: a typo or formatting change"}
    assert routine == set(chores)
    assert {c["sha"] for c in found["candidates"]} == {split, epilog}
    assert any("split on whitespace" in c["content"] for c in found["candidates"])


def test_an_unquoted_revert_that_names_code_is_a_revert(memx: Memx, repo: Path) -> None:
    """git writes `Revert "X"`; people also write `Revert X`. It is read as a revert when X
    names code (a code span); "Revert to the old layout" names no change taken back."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    named = commit(repo, "Revert raise `ClientDisconnected` on HTTP (#2276) (#2276)\n\n"
                         "* Keep the receive changes: only the raise is taken back.",
                   {"app/http.py": "raise_on_disconnect = False\n"})
    plain = commit(repo, "Revert to the old layout of the help page",
                   {"app/help.py": "layout = 'old'\n"})
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json",
                               "--all", "--budget", "0"))
    contents_of = {c["sha"]: c["content"] for c in found["candidates"] + found["dropped"]}
    assert contents_of[named] == ('Reverted "Raise `ClientDisconnected` on HTTP": Keep the '
                                  "receive changes: only the raise is taken back.")
    assert not str(contents_of.get(plain, "")).startswith("Reverted")
