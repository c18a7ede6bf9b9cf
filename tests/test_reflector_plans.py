"""A plan the user approved and the agent carried out is a Decision (plans.py, issue 24).
Sessions are written in Claude Code's record shapes (the approved plan is a user message
"Implement the following plan: …") and ingested with `memx ingest` in a real repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import Memx
from .test_reflector_replies import Replies, stored

PLAN = """Implement the following plan:

# Plan: Serve the changelog from the docs site instead of the `release` command

## Context

The `release` command prints the whole changelog on every run. We will publish it as a page
of the docs site and have `release` print only the link.

## Changes

1. **`docs/build.py`** — render `CHANGELOG.md` as `changelog.html`
2. **`cli/release.py`** — print the link

```python
print(f"Changelog: {DOCS_URL}/changelog.html")
```
"""

DECIDED = ("Plan carried out: Serve the changelog from the docs site instead of the `release` "
           "command. The `release` command prints the whole changelog on every run. We will "
           "publish it as a page of the docs site and have `release` print only the link.")


def _carried_out() -> Replies:
    return (Replies().user(PLAN)
            .say("I'll start with the docs build.")
            .edit("/home/dev/app/docs/build.py", "x", "render('CHANGELOG.md', 'changelog.html')")
            .edit("/home/dev/app/cli/release.py", "x", "print(changelog_link())"))


@pytest.mark.parametrize("then", [
    lambda s: s.user("commit."),  # the user moves on
    lambda s: s,  # the session ends on the work
])
def test_a_plan_carried_out_is_a_decision(memx: Memx, repo: Path, then) -> None:
    memx.ok("ingest", then(_carried_out()).write(repo))
    assert [text for kind, text in stored(repo) if kind == "decision"] == [DECIDED]


def test_a_plan_nobody_acted_on_or_turned_down_decides_nothing(memx: Memx, repo: Path) -> None:
    """Controls: approved but not carried out; its edit turned down; the work denied."""
    sessions = [
        Replies().user(PLAN).say("I'll start with the docs build."),
        Replies().user(PLAN).rejected_edit("/home/dev/app/docs/build.py", "render()",
                                           "no, keep the docs build as it is"),
        _carried_out().user("no, that's wrong: the link is broken, revert it"),
    ]
    for session in sessions:
        memx.ok("ingest", session.write(repo))
    assert [text for kind, text in stored(repo) if kind == "decision"] == []
