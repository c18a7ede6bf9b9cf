"""No sequence of adds, commits, review rejections, removals and settled conflicts
(`memx resolve --keep` / `--not-conflict`) leaves a dangling link (issue 27): every
command that removes or rejects a memory mends the links to it, so `memx validate` (the
CI step the docs recommend) stays green."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import Memx, git

# Values of one setting and a rule and its opposite: the Curator records conflicts and
# supersedes among them, so links appear.
TEXTS = ["The Redis pool size is 10", "The Redis pool size is 50",
         "The Redis pool size must be at least 80 for stability",
         "Always run the migrations before deploying", "Never run the migrations before deploying",
         "The API timeout is 30 seconds", "The API timeout is 60 seconds"]
STEP = st.one_of(st.tuples(st.just("add"), st.sampled_from(TEXTS)),
                 st.tuples(st.just("add"), st.sampled_from(TEXTS)),
                 st.tuples(st.just("commit"), st.just("")),
                 st.tuples(st.just("reject"), st.integers(0, 9)),
                 st.tuples(st.just("rm"), st.integers(0, 9)),
                 st.tuples(st.just("resolve"), st.integers(0, 9)),
                 st.tuples(st.just("resolve"), st.integers(0, 9)))


def ids(memx: Memx) -> list[str]:
    return [m["id"] for m in json.loads(memx.ok("list", "--json"))["memories"]]


@settings(max_examples=30, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(STEP, min_size=4, max_size=10))
def test_no_sequence_leaves_a_dangling_link(memx: Memx, repo: Path,
                                            steps: list[tuple[str, object]]) -> None:
    for memory in ids(memx):  # each example starts from an empty store
        memx.ok("rm", memory, "-y", "--relink")
    git(repo, "add", "-A", ".memx")
    git(repo, "commit", "-q", "--allow-empty", "-m", "reset")
    for action, arg in steps:
        if action == "add":
            memx.ok("add", str(arg))
        elif action == "commit":
            git(repo, "add", "-A", ".memx")
            git(repo, "commit", "-q", "--allow-empty", "-m", "memories")
        elif action == "reject":
            pending = json.loads(memx.ok("review", "--json"))["pending"]
            if pending:
                newest_first = pending[::-1]  # review lists the oldest first
                memx.ok("review", "--reject", newest_first[int(str(arg)) % 2 % len(pending)]["id"])
        elif action == "resolve":  # settle a recorded conflict: keep one side, or neither
            pairs = json.loads(memx.ok("conflicts", "--no-scan", "--json"))["conflicts"]
            if pairs:
                pair = pairs[int(str(arg)) % len(pairs)]
                older, newer = pair["older"]["id"], pair["newer"]["id"]
                settle = (["--keep", newer] if int(str(arg)) % 2 else
                          ["--not-conflict", "--with", newer])
                memx.ok("resolve", older, *settle)
        else:
            present = ids(memx)
            if present:
                memx.ok("rm", present[int(str(arg)) % len(present)], "-y", "--relink")
        result = memx("validate")
        assert result.code == 0, f"after {action} {arg}: {result.out}"
