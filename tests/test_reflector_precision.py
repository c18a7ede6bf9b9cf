"""What a session must not teach (issue 24, precision on real sessions): a plan the user
approved is a task, not a finding (carried out, it is only the decision it states); a request that opens a session is no preference; an
agent announcing its next step does not say why the last fix worked. Each test runs a small
Claude Code session through `memx ingest` in a real repository and checks the memories."""

from __future__ import annotations

from pathlib import Path

from .conftest import Memx
from .test_reflector_replies import Replies
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
    """What the plan calls broken is no Error and its change no Fix; carried out (an edit
    accepted, nobody turning it down), the plan is the decision it states (plans.py)."""
    memx.ok("ingest", _plan_session("Implement the following plan:\n\n").write(repo))
    found = [content for _, content in stored(repo)]
    assert len(found) == 1 and found[0].startswith(
        "Plan carried out: fix the hook response format. The review injection is broken")


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


UNDEFINED = ("# example.com/store [example.com/store.test]\n"
             "store/compat_test.go:41:30: blob.Writer undefined "
             "(type plumbing.Hash has no field or method Writer)\nFAIL\texample.com/store [build failed]")


def _rewritten(session: Session, path: str) -> Session:
    """The agent writes a whole file (Claude Code's Write: no change to show)."""
    session.calls += 1
    tid = f"toolu_{session.calls}"
    session._add("assistant", [{"type": "tool_use", "id": tid, "name": "Write", "input": {
        "file_path": path, "content": "package store\n\n" + "".join(
            f"func TestCompat{n}(t *testing.T) {{ checkCompat(t, {n}) }}\n" for n in range(8))}}])
    return session._add("user", [{"type": "tool_result", "tool_use_id": tid,
                                  "content": f"The file {path} has been updated."}])


def test_a_file_rewritten_unseen_and_the_next_step_announced_teach_nothing(
        memx: Memx, repo: Path) -> None:
    session = (Session().user("Add a test that old checkpoints still load.")
               .say("I'll write the test in `store/compat_test.go`.")
               .run('go test ./store -run "TestCompat|TestMissing"', UNDEFINED, True)
               .say("Let me rewrite the test another way:"))
    name = (_rewritten(session, "store/compat_test.go")
            .run('go test ./store -run "TestCompat"', "ok  \texample.com/store\t0.210s", False)
            .say("Now let's fix the linter warning about `sort.Slice` in `registry.go`.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == []


def test_a_fix_whose_change_is_shown_is_still_the_lesson(memx: Memx, repo: Path) -> None:
    # the control: the same episode with an edit that shows the change keeps its lesson
    name = (Session().user("Add a test that old checkpoints still load.")
            .say("I'll write the test in `store/compat_test.go`.")
            .run('go test ./store -run "TestCompat|TestMissing"', UNDEFINED, True)
            .edit("store/compat_test.go", "blob.Writer()", "repo.Storer.NewEncodedObject()")
            .run('go test ./store -run "TestCompat"', "ok  \texample.com/store\t0.210s", False)
            .say("Now let's fix the linter warning about `sort.Slice` in `registry.go`.")
            .write(repo))
    memx.ok("ingest", name)
    assert [content for _, content in stored(repo)] == [
        "Error: `go test ./store -run \"TestCompat|TestMissing\"` — store/compat_test.go:41:30: "
        "blob.Writer undefined (type plumbing.Hash has no field or method Writer). "
        "Fix: edited store/compat_test.go: `repo.Storer.NewEncodedObject()`; "
        "ran `go test ./store -run \"TestCompat\"`."]


CHANGELOG = ("Done. Summary of changes:\n\n- Created `cmd/cli/help.go` (moved from `commands/`)\n"
             "- Updated `cmd/cli/root.go` to call `NewHelpCmd()` directly\n"
             "- Deleted the `commands/` directory")


def _reported(report: str) -> Session:
    return (Session().user("Move the help command into the main cli package.")
            .edit("cmd/cli/root.go", "commands.NewHelpCmd()", "NewHelpCmd()")
            .run("go test ./...", "ok  \texample.com/cmd/cli\t0.310s", False)
            .say(report)
            .user("Thanks, now update the changelog."))


def test_a_report_that_only_lists_changes_is_no_lesson(memx: Memx, repo: Path) -> None:
    memx.ok("ingest", _reported(CHANGELOG).write(repo))
    assert stored(repo) == []


def test_a_report_that_says_why_is_kept(memx: Memx, repo: Path) -> None:
    why = CHANGELOG + ("\n\nThe help command had to move because `commands/` imported the "
                       "root package, which made an import cycle.")
    memx.ok("ingest", _reported(why).write(repo))
    assert [content[:60] for _, content in stored(repo)] == [
        "Done. Summary of changes: Created `cmd/cli/help.go` (moved f"]


def test_a_report_that_says_what_a_change_is_for_is_kept(memx: Memx, repo: Path) -> None:
    # a purpose clause ("so the directory …") says why as "because" does
    purpose = CHANGELOG + ("\n- Added `os.MkdirAll` in the test so the output directory is "
                           "created at test time")
    memx.ok("ingest", _reported(purpose).write(repo))
    assert [content[:40] for _, content in stored(repo)] == [
        "Done. Summary of changes: Created `cmd/c"]


def test_so_far_is_no_purpose(memx: Memx, repo: Path) -> None:
    memx.ok("ingest", _reported(CHANGELOG + "\n\nSo far the tests pass.").write(repo))
    assert stored(repo) == []


def _weighed(chore: str) -> Session:
    return (Session().user("Should `explain` fetch the metadata branch before it reads?")
            .run("git branch -r", "  origin/main\n  origin/entire/sessions", False)
            .say(chore)
            .user("Ok, write that down in the plan."))


DESIGN = ("For the behind case we don't need to sync on every read: the push already merges "
          "and users can fetch by hand.")


def test_an_agent_weighing_a_design_states_no_chore(memx: Memx, repo: Path) -> None:
    memx.ok("ingest", _weighed(DESIGN).write(repo))
    assert stored(repo) == []


def test_a_reports_table_rows_are_left_out(memx: Memx, repo: Path) -> None:
    report = ("Fixed the attribution bug: `Attribute()` no longer counts a user's edit of "
              "their own lines against the agent.\n\n| Metric | Before | After |\n|---|---|---|\n"
              "| Agent lines | 7 | 10 |")
    memx.ok("ingest", _reported(report).write(repo))
    assert [content for _, content in stored(repo)] == [
        "Fixed the attribution bug: `Attribute()` no longer counts a user's edit of their own "
        "lines against the agent. (checked: `go test ./...` passed)."]


def _asked_back(answer: str) -> Replies:
    return (Replies().user("Open the pull request for the README files.")
            .run("git push -u origin readme-files", "branch 'readme-files' set up", False)
            .rejected_run('gh pr create --title "Add README files"',
                          "can we rename the branch to something better first?")
            .say(answer))


def test_a_correction_answered_only_by_a_question_back_is_no_lesson(
        memx: Memx, repo: Path) -> None:
    memx.ok("ingest", _asked_back("No worries! What would you like to rename it to?")
            .write(repo))
    assert stored(repo) == []


def test_a_correction_answered_with_the_way_is_kept(memx: Memx, repo: Path) -> None:
    memx.ok("ingest", _asked_back("I'll rename it with `git branch -m docs/readme-locations`.")
            .write(repo))
    (memory,) = [content for _, content in stored(repo)]
    assert memory.startswith('User correction (`gh pr create --title "Add README files"` '
                             'turned down): "can we rename the branch')
    assert memory.endswith("Answer: I'll rename it with `git branch -m docs/readme-locations`.")


def _design(words: str) -> Session:
    return (Session().user("How would you track line ownership?")
            .say("Option 4 keeps a count per line hash; it is the simplest improvement.")
            .user(words))


def test_a_decision_referred_to_is_not_stated(memx: Memx, repo: Path) -> None:
    memx.ok("ingest", _design("Could we write a summary of the options and what we went "
                              "with, and keep it in docs/architecture.").write(repo))
    assert stored(repo) == []


def test_a_decision_stated_is_kept(memx: Memx, repo: Path) -> None:
    words = "We went with option 4, the count per line hash, for the first release."
    memx.ok("ingest", _design(words).write(repo))
    assert [content for _, content in stored(repo)] == [words]
