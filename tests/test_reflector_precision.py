"""What a session must not teach (issue 24, precision on real sessions): a plan the user
approved is a task, not a finding; a request that opens a session is no preference; an
agent announcing its next step does not say why the last fix worked. Each test runs a small
Claude Code session through `memx ingest` in a real repository and checks the memories."""

from __future__ import annotations

from pathlib import Path

from .conftest import Memx
from .test_reflector_sessions import Session, stored

PLAN = """# Plan: fix the hook response format

## Context

The review injection is broken because the hook prints `additionalContext` at the top level.

```go
// Current (broken):
type hookResponse struct {
    SystemMessage string `json:"systemMessage,omitempty"`
}
```

Update `outputHookResponse` to use `hookSpecificOutput` instead of the top-level `systemMessage`, since the agent only sees nested context.

## Verification

Run `go test ./cmd/cli/...`.
"""


def _plan_session(opening: str) -> Session:
    return (Session().user(opening + PLAN)
            .say("I'll read the hook code first.")
            .edit("cmd/cli/hooks.go", "SystemMessage string", "HookSpecificOutput *hookOutput")
            .run("go test ./cmd/cli/...", "ok  \texample.com/cmd/cli\t0.412s", False))


def test_a_plan_the_user_approved_is_the_task_not_a_lesson(memx: Memx, repo: Path) -> None:
    memx.ok("ingest", _plan_session("Implement the following plan:\n\n").write(repo))
    assert stored(repo) == []


def test_the_same_words_as_the_users_own_message_are_still_read(memx: Memx,
                                                                  repo: Path) -> None:
    # the control: without Claude Code's plan header the message is the user's own report
    memx.ok("ingest", _plan_session("").write(repo))
    assert [content[:40] for _, content in stored(repo)] == [
        "Error: The review injection is broken be"]


WISH = "I want you to make the script's output more verbose and show me each request you run."


def test_a_wish_that_opens_the_session_is_the_task(memx: Memx, repo: Path) -> None:
    name = (Session().user(WISH)
            .say("Sure, I'll add logging around each request.")
            .edit("fetch.sh", "curl -s", "curl -sv")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == []


def test_a_wish_once_the_work_is_under_way_is_a_preference(memx: Memx, repo: Path) -> None:
    name = (Session().user("Please write a script that fetches the repository's metrics.")
            .say("Here is `fetch.sh`, which runs the three queries.")
            .edit("fetch.sh", "", "curl -s https://api.example.com/graphql")
            .user(WISH)
            .write(repo))
    memx.ok("ingest", name)
    assert [content for _, content in stored(repo)] == [WISH]
