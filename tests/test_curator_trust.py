"""Issue 12, Curator: no contradiction lost. Each example of the issue, end to end through
the CLI on a real repository with the bundled model; exact user-visible output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import Memx
from .test_curator import add, files, memory


def shorts(*ids: str) -> dict[str, str]:
    """The short ids `memx list` prints for a store holding exactly ``ids``."""
    from memx_cli.store.ids import abbreviate

    return abbreviate(ids)


def test_always_then_never_is_a_conflict_not_a_duplicate(memx: Memx, repo: Path) -> None:
    old, _ = add(memx, "Always enable strict mode in tsconfig.json")
    new, said = add(memx, "Never enable strict mode in tsconfig.json")
    assert new != old
    assert said == f"conflicts with {old}\n"
    assert files(repo) == sorted([old, new])
    out = memx.ok("conflicts")
    assert out.splitlines()[1:4] == [
        "  older: Always enable strict mode in tsconfig.json",
        "  newer: Never enable strict mode in tsconfig.json",
        '  why:   negation: one says "never enable strict", the other says the opposite',
    ]


@pytest.mark.parametrize("old_text, new_text, why", [
    ("Use Node 18 for the frontend build", "Use Node 20 for the frontend build",
     'different values for "node": 18 vs 20'),
    ("The database runs Postgres 15", "The database runs Postgres 16",
     'different values for "runs postgres": 15 vs 16'),
    ("Services are compiled with Java 17", "Services are compiled with Java 21",
     'different values for "java": 17 vs 21'),
    ("We use Jest for unit tests", "We use Vitest for unit tests",
     'different tools: "jest" vs "vitest"'),
])
def test_versions_and_tools_are_value_conflicts(memx: Memx, repo: Path, old_text: str,
                                                new_text: str, why: str) -> None:
    old, _ = add(memx, old_text)
    new, said = add(memx, new_text)
    assert said == f"conflicts with {old}\n"
    assert memory(repo, old)["conflicts_with"] == [new]
    assert memx.ok("conflicts").splitlines()[3] == f"  why:   {why}"


def test_restatement_with_a_new_value_supersedes_keeping_both(memx: Memx, repo: Path) -> None:
    old, _ = add(memx, "We deploy with make deploy")
    new, said = add(memx, "We now deploy with make release instead of make deploy")
    assert said == f"supersedes {old}\n"
    assert files(repo) == sorted([old, new])
    assert memory(repo, old)["content"] == "We deploy with make deploy"
    assert memory(repo, old)["superseded_by"] == new
    assert memory(repo, new)["supersedes"] == [old]
    short = shorts(old, new)
    listed = memx.ok("list").splitlines()
    assert listed[0].endswith(f"We deploy with make deploy (superseded by {short[new]})")
    assert listed[1].endswith(f"(supersedes {short[old]})")
    shown = memx.ok("show", old).splitlines()
    assert shown[-3:] == [
        "# supersede chain, oldest first:",
        f"#   {old}  We deploy with make deploy  (this memory)",
        f"#   {new}  We now deploy with make release instead of make deploy  (current)",
    ]
    found = memx.ok("search", "deploy").splitlines()
    assert found[0].endswith(f"project (supersedes {short[old]})")
    assert found[2].endswith(f"project (superseded by {short[new]})")


def test_search_prints_linked_ids_short_and_counts_past_three(memx: Memx, repo: Path) -> None:
    # walk16: a link to a memory that was not itself a hit came out as its full 26
    # characters, and a memory conflicting with many listed every id on its line
    from memx_cli.store import memory as memfmt

    hub = memx.ok("add", "Rollback with kubectl rollout undo", "--raw").strip()
    others = [memx.ok("add", f"Sessions live in store {n}", "--raw").strip() for n in range(5)]
    path = repo / ".memx" / "memories" / f"{hub}.yaml"
    mem = memfmt.load(path.read_bytes())
    for n in (2, 5):  # control: two links are printed whole
        path.write_bytes(memfmt.dump(mem.replace(conflicts_with=tuple(others[:n]))))
        line = memx.ok("search", "kubectl rollout", "--limit", "1").splitlines()[0]
        short = shorts(hub, *others)
        listed = ", ".join(short[i] for i in others[:min(n, 3)])
        assert line == (f"{short[hub]}  " + line.split("  ")[1] + "  project (conflicts with "
                        f"{listed}{' and 2 more' if n == 5 else ''})")


def test_different_subjects_are_independent(memx: Memx, repo: Path) -> None:
    auth, _ = add(memx, "auth service listens on port 8080")
    billing, said = add(memx, "billing service listens on port 9090")
    assert said == ""
    assert "conflicts_with" not in memory(repo, auth)
    assert "conflicts_with" not in memory(repo, billing)
    assert memx.ok("conflicts") == "No conflicts.\n"


def test_merge_keeps_the_union_of_explicit_anchors(memx: Memx, repo: Path) -> None:
    from .conftest import git

    (repo / "Makefile").write_text("test:\n\tpytest\nredis:\n\tdocker compose up redis\n")
    (repo / "compose.yaml").write_text("services:\n  redis:\n    image: redis:7\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "files")
    first, _ = add(memx, "Integration tests need a local Redis on port 6379",
                   "--anchor", "Makefile:3-4")
    _, said = add(memx, "Integration tests need a local Redis running on port 6379",
                  "--anchor", "compose.yaml", "--anchor", "Makefile:1-2")
    assert said == f"merged into {first}\n"
    anchors = [(a["path"], a.get("start_line")) for a in memory(repo, first)["anchors"]]
    assert anchors == [("Makefile", 3), ("compose.yaml", None), ("Makefile", 1)]


def test_rm_of_a_linked_memory_refuses_with_its_dependants(memx: Memx, repo: Path) -> None:
    old, _ = add(memx, "We deploy with make deploy")
    new, _ = add(memx, "We now deploy with make release instead of make deploy")
    refused = memx("rm", old, "-y")
    assert refused.code == 2
    assert refused.err == (
        f"memx: error: {old} is linked from {new} (supersedes it); pass --relink to mend "
        "their links and remove it, or settle it first with memx resolve\n")
    assert files(repo) == sorted([old, new])


def test_rm_of_several_linked_memories(memx: Memx, repo: Path) -> None:
    old, _ = add(memx, "We deploy with make deploy")
    new, _ = add(memx, "We now deploy with make release instead of make deploy")
    other, _ = add(memx, "The frontend is built with vite")
    # a refused link refuses the whole command: the memory named before it stays too
    refused = memx("rm", other, old, "-y")
    assert refused.code == 2 and refused.err.startswith(f"memx: error: {old} is linked from ")
    assert files(repo) == sorted([old, new, other])
    # linked only to each other, removed together: no --relink needed
    assert memx.ok("rm", old, new, "-y") == (f"Removed {old} (.memx/memories/{old}.yaml)\n"
                                             f"Removed {new} (.memx/memories/{new}.yaml)\n")
    assert files(repo) == [other] and memx.ok("validate") == "1 memory file(s) OK\n"


def test_rm_relink_mends_a_chain_and_conflicts(memx: Memx, repo: Path) -> None:
    first, _ = add(memx, "The request timeout is 30 seconds")
    second, _ = add(memx, "The request timeout is now 60 seconds")
    third, _ = add(memx, "The request timeout is now 90 seconds")
    rival, said = add(memx, "Never set a request timeout")
    assert memory(repo, second)["superseded_by"] == third
    out = memx.ok("rm", second, "-y", "--relink")
    assert out == (f"Relinked {first}: was superseded by {second}, now superseded by {third}\n"
                   f"Relinked {third}: no longer supersedes {second}\n"
                   f"Removed {second} (.memx/memories/{second}.yaml)\n")
    assert memory(repo, first)["superseded_by"] == third
    assert memory(repo, third)["supersedes"] == [first]
    assert said == f"conflicts with {third}\n"
    out = memx.ok("rm", third, "-y", "--relink")
    assert out == (f"Relinked {first}: was superseded by {third}, now current again\n"
                   f"Relinked {rival}: no longer conflicts with {third}\n"
                   f"Removed {third} (.memx/memories/{third}.yaml)\n")
    assert "superseded_by" not in memory(repo, first)
    assert "conflicts_with" not in memory(repo, rival)
    assert memx.ok("validate") == "2 memory file(s) OK\n"


def test_validate_reports_dangling_links(memx: Memx, repo: Path) -> None:
    old, _ = add(memx, "Always enable strict mode in tsconfig.json")
    new, _ = add(memx, "Never enable strict mode in tsconfig.json")
    (repo / ".memx" / "memories" / f"{new}.yaml").unlink()  # removed by hand, not memx rm
    result = memx("validate")
    assert result.code == 1
    line = (f".memx/memories/{old}.yaml: conflicts_with names {new}, which no memory has (a "
            "dangling link: if a merge made it, the other version is a file the merging clone "
            "has yet to commit; otherwise remove the id from the file)")
    assert result.out == line + "\n"
    assert result.err == "memx: error: 1 problem(s) in 1 file(s) checked\n"
    # walk15: doctor said 'No problems found.' while validate failed on the link (a merge's
    # copy pushed before it was committed leaves one in every other clone)
    problems = json.loads(memx("doctor", "--json").out)["doctor"]["problems"]
    assert line in problems
    path = repo / ".memx" / "memories" / f"{old}.yaml"
    path.write_text(path.read_text().replace(f"conflicts_with:\n- {new}\n", ""))
    assert memx.ok("validate") == "1 memory file(s) OK\n"  # control: the link gone
    problems = json.loads(memx("doctor", "--json").out)["doctor"]["problems"]
    assert not [p for p in problems if "dangling" in p]
