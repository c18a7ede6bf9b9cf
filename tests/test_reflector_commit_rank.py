"""Issue 24, what a tight budget keeps of a history, in real temporary repositories: a
setting or a dependency read from the diff with no why ranks below a norm and below the
same change with its reason, and a changelog entry or a body that only says the title
again earns nothing over the title."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import Memx
from .test_reflector_commit_fact import candidates
from .test_reflector_gitlog import commit


def test_a_setting_with_no_why_ranks_below_a_norm_and_below_its_reason(
        memx: Memx, repo: Path) -> None:
    base = commit(repo, "Start", {"app/db.yaml": "pool_timeout: 30\n",
                                  "app/cache.yaml": "cache_ttl: 60\n",
                                  "src/client.py": "retries = 3\n"})
    bare = commit(repo, "Raise pool_timeout to 90", {"app/db.yaml": "pool_timeout: 90\n"})
    told = commit(repo, "Raise cache_ttl to 600\n\nThe upstream catalogue is rebuilt hourly, "
                  "because each rebuild costs a full scan of the vendor's API.",
                  {"app/cache.yaml": "cache_ttl: 600\n"})
    norm = commit(repo, "Do not retry on 4xx responses", {"src/client.py": "retries = 0\n"})
    by_sha = candidates(memx, base)
    assert {by_sha[s]["rule"] for s in (bare, told)} == {"ConfigChange"}
    assert by_sha[norm]["rule"] == "Convention"
    # the setting alone is what the diff says: it ranks last
    assert by_sha[bare]["score"] < by_sha[norm]["score"]
    # control: the same kind of change with its reason is a lesson above the bare one
    assert by_sha[told]["score"] >= by_sha[bare]["score"] + 25
    # six candidates and the budget's floor of five places: the bare setting is dropped
    for n, rule in enumerate(["Never log request bodies", "Always close the temp file "
                              "before renaming it", "Prefer `pathlib` over `os.path`"]):
        commit(repo, rule, {f"src/h{n}.py": f"x = {n}\n"})
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json",
                               "--all", "--budget", "1"))
    kept = {c["sha"] for c in found["candidates"]}
    over = {d["sha"] for d in found["dropped"] if "over the budget" in d["reason"]}
    assert bare in over and told in kept and norm in kept


def test_an_entry_that_says_the_title_again_adds_no_prose(memx: Memx, repo: Path) -> None:
    base = commit(repo, "Start", {"CHANGES.md": "# Changes\n\n## Unreleased\n\n",
                                  "src/pool.py": "x = 0\n"})
    log = "# Changes\n\n## Unreleased\n\n"
    said = "- Handle `SSLError` exception.\n"
    again = commit(repo, "Handle `SSLError`",
                   {"CHANGES.md": log + said, "src/pool.py": "x = 1\n"})
    more = "- The connection pool closes the socket on `TimeoutError` and opens a fresh " \
           "one for the next request.\n"
    adds = commit(repo, "Catch `TimeoutError`",
                  {"CHANGES.md": log + more + said, "src/pool.py": "x = 2\n"})
    by_sha = candidates(memx, base)
    assert by_sha[again]["rule"] == by_sha[adds]["rule"] == "Fact"
    assert by_sha[again]["content"] == "Handle `SSLError` exception."  # the title once
    # control: the entry that tells what the pool then does carries 10 for its prose
    assert by_sha[adds]["score"] >= by_sha[again]["score"] + 10


def test_a_workflow_added_with_no_why_drops_and_one_with_its_reason_is_kept(
        memx: Memx, repo: Path) -> None:
    base = commit(repo, "Start", {"README.md": "app\n"})
    flow = ("on: push\njobs:\n  {0}:\n    runs-on: ubuntu-latest\n    steps:\n"
            "      - uses: example-org/{0}-action@v1\n      - run: {0} check .\n")
    bare = commit(repo, "ci: audit every push", {".github/workflows/audit.yml":
                                                 flow.format("audit")})
    told = commit(repo, "ci: lint every push\n\nA compromised tag could run in CI because "
                  "the actions were unpinned.", {".github/workflows/lint.yml":
                                                 flow.format("lint")})
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json",
                               "--all", "--budget", "0"))
    kept = {c["sha"]: c["content"] for c in found["candidates"]}
    assert bare not in kept
    assert any(d["sha"] == bare and d["reason"].startswith("lesson value")
               for d in found["dropped"])
    # control: the same kind of commit whose body says why is kept, carrying it
    assert kept[told] == ("Added the CI workflow .github/workflows/lint.yml (ci: lint every "
                          "push): uses example-org/lint-action; runs `lint check .`; on push. "
                          "Why: A compromised tag could run in CI because the actions were "
                          "unpinned.")
