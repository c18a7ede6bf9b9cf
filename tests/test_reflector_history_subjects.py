"""Issue 24: histories whose commits have no body (Conventional Commits, one line each), in
real temporary repositories. A fix's title that states the symptom's condition ("… when
the port is 0", "… on Windows") is a lesson with a fair value, below what a body explains;
a fix of tests only and a title that only restates the code are
not; a version pin for one platform is that platform's fact, not a bump."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import Memx
from .test_reflector_gitlog import commit

WORKFLOW = """on: push
jobs:
  test:
    runs-on: windows-latest
    steps:
      - uses: actions/setup-node@v4
        with:
          node-version: {node}
"""


def dry(memx: Memx, base: str) -> dict[str, list[dict[str, object]]]:
    return json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json",
                              "--budget", "0"))


def test_a_fix_title_that_states_its_condition_is_a_candidate(memx: Memx, repo: Path) -> None:
    """Before: all four fix titles were dropped ("a fixed bug with no cause, rule or fact
    stated"); now the two that say when the bug shows are kept, the plain restatement and
    the fix of a test file only are not."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    port = commit(repo, "fix(server): pick a random free port when the configured port is 0 (#101)",
                  {"src/http.ts": "listen(0)\n", "src/http.spec.ts": "it()\n"})
    windows = commit(repo, "fix: unwatch a deleted root directory on Windows (#102)",
                     {"src/watch.ts": "unwatch()\n"})
    plain = commit(repo, "fix(ssr): rewrite the computed key of a parameter (#103)",
                   {"src/ssr.ts": "key()\n"})
    flaky = commit(repo, "fix: retry the upload test when the runner is slow (#104)",
                   {"tests/test_upload.py": "retry()\n"})
    found = dry(memx, base)
    kept = {str(c["sha"]): c for c in found["candidates"]}
    assert set(kept) == {port, windows}
    assert str(kept[port]["content"]).startswith("server: Pick a random free port when the configured port is 0")
    assert "on Windows" in str(kept[windows]["content"])
    dropped = {str(d["sha"]): str(d["reason"]) for d in found["dropped"]}
    assert dropped[plain].startswith("a fixed bug with no cause")
    assert dropped[flaky].startswith("a fixed bug with no cause")


def test_a_titled_condition_ranks_below_a_cause_the_body_explains(memx: Memx,
                                                                   repo: Path) -> None:
    base = commit(repo, "Start", {"README.md": "app\n"})
    titled = commit(repo, "fix(server): use a random port when the port is 0",
                    {"src/http.ts": "listen(0)\n"})
    explained = commit(repo, "fix(cache): stale entries after a deploy\n\nThe cache key left "
                             "out the build id, because `cache_key()` only hashed the path.",
                       {"src/cache.ts": "key()\n"})
    scores = {str(c["sha"]): int(str(c["score"])) for c in dry(memx, base)["candidates"]}
    assert 30 <= scores[titled] < scores[explained]


def test_a_pin_for_one_platform_is_kept_and_a_plain_pin_is_routine(memx: Memx,
                                                                    repo: Path) -> None:
    base = commit(repo, "Start", {".github/workflows/ci.yml": WORKFLOW.format(node="24")})
    pinned = commit(repo, "ci: use node 24.15 for Windows CI (#201)",
                    {".github/workflows/ci.yml": WORKFLOW.format(node="24.15.0")})
    bumped = commit(repo, "ci: use node 24.16 (#202)",
                    {".github/workflows/ci.yml": WORKFLOW.format(node="24.16.0")})
    found = dry(memx, base)
    [memory] = found["candidates"]
    assert memory["sha"] == pinned
    assert "`node-version: 24.15.0` (changed from 24)" in str(memory["content"])
    reasons = {str(d["sha"]): str(d["reason"]) for d in found["dropped"]}
    assert reasons[bumped] == "routine: only version pins changed"



def test_a_change_marked_breaking_is_kept_whatever_its_type(memx: Memx, repo: Path) -> None:
    """"build!:" and a "BREAKING CHANGE:" trailer mark what users must know: kept as facts
    with the trailer's text, above an unmarked feature's title; the same housekeeping
    subject without the mark teaches nothing."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    dropped = commit(repo, "build!: drop support for Node 18 (#401)", {"src/engine.ts": "x\n"})
    trailer = commit(repo, "chore: remove the old loader\n\nBREAKING CHANGE: the `legacy` "
                           "entry point is gone; import from the package root.",
                     {"src/loader.ts": "x\n"})
    plain = commit(repo, "build: drop the old bundle step (#402)", {"src/bundle.ts": "x\n"})
    feature = commit(repo, "feat(cli): add a `--profile` flag to name the CPU profile",
                     {"src/cli.ts": "x\n"})
    found = dry(memx, base)
    kept = {str(c["sha"]): c for c in found["candidates"]}
    assert set(kept) == {dropped, trailer, feature}
    assert plain not in kept
    assert kept[trailer]["content"] == ("Remove the old loader: the `legacy` entry point is "
                                        "gone; import from the package root.")
    score = {sha: int(str(c["score"])) for sha, c in kept.items()}
    assert min(score[dropped], score[trailer]) > score[feature]
