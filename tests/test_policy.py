"""Policies and supersede (memx policy, memx_cli.operations.policy)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from memx_cli.operations.policy import supersede
from memx_cli.store.repo import Repo

from .conftest import Memx


def _file(repo: Path, memory_id: str) -> dict:
    return yaml.safe_load((repo / ".memx" / "memories" / f"{memory_id}.yaml").read_text())


def test_add_list_deactivate(memx: Memx, repo: Path) -> None:
    pid = memx.ok("policy", "add", "Never push to main", "--domain", "conventions",
                  "--for-role", "agent").strip()
    data = _file(repo, pid)
    assert (data["kind"], data["required_role"], data["domain"]) == ("policy", "agent",
                                                                    "conventions")
    assert memx.ok("policy", "list") == \
        f"{pid}  - [conventions] Never push to main (for role agent)\n"
    assert memx.ok("policy", "deactivate", pid) == f"{pid} inactive\n"
    assert _file(repo, pid)["active"] is False
    assert memx("policy", "list").err == "No policies.\n"
    assert memx.ok("policy", "list", "--all").endswith("(inactive)\n")
    assert memx.ok("policy", "deactivate", pid, "--undo") == f"{pid} active\n"
    assert "active" not in _file(repo, pid)


def test_deactivating_a_fact_is_refused(memx: Memx) -> None:
    fid = memx.ok("add", "The API lives in src/api").strip()
    result = memx("policy", "deactivate", fid)
    assert result.err == (f"memx: error: {fid} is a fact, not a policy; only policies can be "
                          "deactivated\n")


def test_supersede_keeps_the_old_file_and_links_both(memx: Memx, repo: Path) -> None:
    old = memx.ok("add", "Timeouts are 300 ms", "--domain", "codebase", "--tag", "perf").strip()
    result = supersede(Repo.discover(repo), old[:12], "Timeouts are 500 ms since v2", "fact")
    new = result.memory
    assert (new.supersedes, new.domain, new.tags) == ((old,), "codebase", ("perf",))
    assert _file(repo, old)["superseded_by"] == new.id
    assert _file(repo, new.id)["content"] == "Timeouts are 500 ms since v2"


def test_supersede_refusals(memx: Memx, repo: Path) -> None:
    pid = memx.ok("policy", "add", "Never push to main").strip()
    r = Repo.discover(repo)
    for args, message in (
            ((pid, "x", "fact"), f"{pid} is a policy, not a fact; use supersede_policy"),
            (("zz", "x", "fact"), "no memory matches 'zz'; see memx list")):
        try:
            supersede(r, *args)
        except Exception as exc:
            assert str(exc) == message
        else:
            raise AssertionError("expected a refusal")
    newer = supersede(r, pid, "Never push to main or release branches", "policy").memory
    try:
        supersede(r, pid, "again", "policy")
    except Exception as exc:
        assert str(exc) == f"{pid} is already superseded by {newer.id}; supersede that one instead"
    listed = json.loads(memx.ok("policy", "list", "--json"))["policies"]
    assert [p["id"] for p in listed] == [newer.id]


def test_supersede_into_an_existing_duplicate_links_that_memory(memx: Memx, repo: Path) -> None:
    old = memx.ok("add", "Build with make all").strip()
    same = memx.ok("add", "Deploy the API with the deploy.sh script in scripts/").strip()
    result = supersede(Repo.discover(repo), old,
                       "Deploy the API with the deploy.sh script in scripts/", "fact")
    assert (result.action, result.memory.id) == ("skipped", same)
    assert _file(repo, same)["supersedes"] == [old]
    assert _file(repo, old)["superseded_by"] == same


def test_a_policy_made_of_a_fact_supersedes_it(memx: Memx, repo: Path) -> None:
    """Following a learned convention's suggestion (`memx policy add "<rule>"`) leaves
    one rule, not an identical fact and policy side by side (issue 27)."""
    fact = memx.ok("add", "Every public function needs a docstring with an example.").strip()
    policy = memx.ok("policy", "add", "Every public function needs a docstring with an "
                     "example.").strip().split()[0]
    listed = {m["id"]: m for m in json.loads(memx.ok("list", "--json"))["memories"]}
    assert listed[fact]["superseded_by"] == policy
    assert listed[policy]["kind"] == "policy" and listed[policy]["supersedes"] == [fact]
    other = memx.ok("add", "Every handler logs its request id.").strip()
    memx.ok("policy", "add", "Every handler must log its request id.")
    still = {m["id"]: m for m in json.loads(memx.ok("list", "--json"))["memories"]}
    assert "superseded_by" not in still[other]  # other words: two memories, as before
