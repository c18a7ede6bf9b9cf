"""Shapes of real Claude Code sessions the Reflector reads (issue 24, sess6): each test
is a small session shaped like the real ones, through `memx ingest` in a real repository,
and checks the memory's exact text (or that nothing is stored)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import Memx
from .test_reflector_sessions import Session, contents


def test_a_shell_scripts_runtime_error_is_a_failing_run(memx: Memx, repo: Path) -> None:
    """bash reports a script's run-time error as `SCRIPT: line N: message` and, piped into
    head, the call still exits 0: the output is the failure, the same run green after the
    edit is the fix."""
    name = (Session().user("add a wrapper script for the hooks")
            .run("bash scripts/wrap.sh --help 2>&1 | head -5",
                 "scripts/wrap.sh: line 16: PROJECT_DIR: unbound variable", False)
            .edit("scripts/wrap.sh", 'cd "$PROJECT_DIR"',
                  'cd "${PROJECT_DIR:-$(dirname "$0")/..}"')
            .run("bash scripts/wrap.sh --help 2>&1 | head -5", "Usage: wrap [flags]", False)
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        "Error: `bash scripts/wrap.sh --help 2>&1` — scripts/wrap.sh: line 16: PROJECT_DIR: "
        "unbound variable. Fix: edited scripts/wrap.sh: "
        "`cd \"${PROJECT_DIR:-$(dirname \"$0\")/..}\"`."]


def test_a_line_that_only_mentions_a_line_number_is_no_failure(memx: Memx, repo: Path) -> None:
    name = (Session().user("what does the config say about retries?")
            .run("grep -n retries config.txt", "config.txt:12: retries = 3", False)
            .say("The config sets retries to 3 on line 12.")
            .write(repo))
    assert memx.ok("ingest", name) == "Nothing to remember in 4 messages\n"


APPROACHES = (
    "Right. A setting only helps contributors who can push upstream.\n\n"
    "A few approaches that could work:\n\n"
    "1. **Keep the data on the fork, upstream pulls it at merge time** — a workflow on "
    "the upstream repo fetches the branch from the fork when a PR merges.\n\n"
    "2. **Push the data to the fork (already works)** — nothing to build; the gap is "
    "getting it upstream.\n\n"
    "3. **Hybrid** — contributors with push access use the setting.\n\n"
    "Which scenario are you targeting?")


def test_an_option_of_a_numbered_list_quoted_back_is_a_decision(memx: Memx, repo: Path) -> None:
    """Options offered as a numbered list of bold titles, and the user pastes one back:
    that item is the choice, never the others."""
    name = (Session().user("the issue is that this only works with push access upstream, right?")
            .say(APPROACHES)
            .user("Can you help me build that? 1. Keep the data on the fork, upstream pulls "
                  "it at merge time — a workflow on the upstream repo fetches it")
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        "Chose Option 1 — Keep the data on the fork, upstream pulls it at merge time; a "
        "workflow on the upstream repo fetches the branch from the fork when a PR merges. "
        "(asked: \"the issue is that this only works with push access upstream, right?\"). "
        "The user: \"Can you help me build that? 1. Keep the data on the fork, upstream "
        "pulls it at merge time — a workflow on the upstream repo fetches it\"."]


def test_a_numbered_list_the_user_does_not_quote_decides_nothing(memx: Memx, repo: Path) -> None:
    """A reply that only shares a word or two with a title ("hybrid", "the fork") picks
    nothing: only a title repeated word for word is a pick."""
    name = (Session().user("the issue is that this only works with push access upstream, right?")
            .say(APPROACHES)
            .user("hmm, what would a hybrid look like on the fork?")
            .write(repo))
    assert memx.ok("ingest", name) == "Nothing to remember in 3 messages\n"


def test_an_option_picked_by_its_number_with_an_amendment_is_a_decision(
        memx: Memx, repo: Path) -> None:
    """A reply led by an offered item's bare number picks it; what follows amends the pick
    and is kept in the user's words. A number that counts something picks nothing."""
    def reply(words: str) -> str:
        return (Session().user("the issue is that this only works with push access upstream, "
                               "right?")
                .say(APPROACHES).user(words).write(repo))
    memx.ok("ingest", reply("3, but with the setting on for maintainers by default"))
    assert contents(repo) == [
        "Chose Option 3 — Hybrid; contributors with push access use the setting. (asked: "
        "\"the issue is that this only works with push access upstream, right?\"). The user: "
        "\"3, but with the setting on for maintainers by default\"."]
    # control: the number counts the user's runs, no option is named
    assert memx.ok("ingest", reply("2 runs failed on the fork today")).startswith("Nothing")


def test_an_option_the_user_says_does_not_work_is_turned_down_not_chosen(
        memx: Memx, repo: Path) -> None:
    """"Option 1 doesn't work since …" names the option to turn it down: the memory keeps
    the user's reason and never says the option was chosen."""
    name = (Session().user("show the commit message instead of the prompt")
            .say("We'd need to either:\n\n"
                 "1. **Store commit hash in metadata** - add a field and pass it along\n"
                 "2. **Look up by trailer** - search history for the trailer\n\n"
                 "Option 1 is cleaner.")
            .user("Option 1 doesn't work since the commit hash can change, that's why we "
                  "add the trailer to the real commits.")
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        "Turned down Option 1 — Store commit hash in metadata; add a field and pass it "
        "along. The user: \"Option 1 doesn't work since the commit hash can change, that's "
        "why we add the trailer to the real commits\"."]


def refused_edit(session: Session, path: str, old: str, new: str) -> Session:
    """An Edit the tool refuses: its old text is not in the file."""
    session.calls += 1
    tid = f"toolu_{session.calls}"
    session._add("assistant", [{"type": "tool_use", "id": tid, "name": "Edit", "input": {
        "file_path": path, "old_string": old, "new_string": new}}])
    return session._add("user", [{
        "type": "tool_result", "tool_use_id": tid, "is_error": True,
        "content": f"<tool_use_error>String to replace not found in file.\nString: {old}"
                   "</tool_use_error>"}])


IMPORT_ERROR = ("# example.com/app/store\n"
                "store/migrate.go:7:2: could not import old.io/app/checkpoint "
                "(store/migrate.go:7:2: no required module provides package "
                "old.io/app/checkpoint)")


def test_a_fix_in_several_edits_of_one_file_shows_the_edits_that_stand(
        memx: Memx, repo: Path) -> None:
    """Files are named from the session's working folder; an edit the tool refused
    changed nothing; an edit rewritten by a later one is replaced by it; edits of one file
    in a row name it once; Go's place said again inside its error is said once."""
    session = (Session().user("the build is broken after the rename")
               .run("go build ./...", IMPORT_ERROR, True)
               .edit("/repo/store/migrate.go", 'import (\n\t"fmt"\n\t"old.io/app/checkpoint"\n)',
                     'import (\n\t"fmt"\n)'))
    refused_edit(session, "/repo/store/migrate.go", '\t"old.io/app/checkpoint"',
                 '\t"example.com/app/checkpoint"')
    name = (session.edit("/repo/store/migrate.go", 'import (\n\t"fmt"\n)',
                         'import (\n\t"fmt"\n\t"example.com/app/checkpoint"\n)')
            .edit("/repo/store/migrate.go", "checkpoint.Branch(base)",
                  "checkpoint.Branch(base, state.WorktreeID)")
            .run("go build ./...", "", False)
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        "Error: `go build ./...` — store/migrate.go:7:2: could not import "
        "old.io/app/checkpoint (no required module provides package old.io/app/checkpoint). "
        "Fix: edited store/migrate.go: `import ( \"fmt\" \"example.com/app/checkpoint\" )`; "
        "`checkpoint.Branch(base, state.WorktreeID)`."]


SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation.\n\n"
    "Errors and fixes:\n"
    "- TypeError: Cannot read properties of undefined (reading 'id') in src/user.js - Fixed "
    "by changing `return user.id` to `return user?.id`\n"
    "- **Cleanup commit**: changed calls from `init(id)` to `init(id, agent)` and set "
    "`timeout: 30` in config.yaml\n"
    "All user messages:\n- \"no, keep the old name\"")


def test_the_harness_summary_of_a_compacted_session_is_nobodys_words(
        memx: Memx, repo: Path) -> None:
    """When the context runs out Claude Code writes a summary of the session so far as a
    user record marked ``isCompactSummary``: a retelling of turns the file already holds,
    in nobody's words, so nothing is learned from it."""
    session = Session().user("rename the user module")
    session.records.append({"type": "user", "sessionId": "sess-7", "cwd": "/repo",
                            "isCompactSummary": True, "isVisibleInTranscriptOnly": True,
                            "message": {"role": "user", "content": SUMMARY}})
    name = session.say("Continuing with the rename.").write(repo)
    assert memx.ok("ingest", name) == "Nothing to remember in 3 messages\n"


def test_an_agents_narration_teaches_no_chore_tool_or_setting(memx: Memx, repo: Path) -> None:
    """Once the agent works with tools, its words narrate what it reads ("every row has a
    `uuid` field", "that PR introduced `transitionTurnEnd`"): no RepetitiveOp or NewTool
    from them; the same chore said by the user is still one."""
    name = (Session().user("why is the transcript stored twice?")
            .run("head -c 300 full.jsonl", '{"uuid":"8e52","type":"user"}', False)
            .say("I see every row has a `uuid` field, and `SaveChanges()` stores the full "
                 "file in every shadow branch checkpoint.")
            .say("PR #170 is the one that introduced `transitionTurnEnd` and switched to "
                 "`go-git` for the hooks.")
            .write(repo))
    assert memx.ok("ingest", name) == "Nothing to remember in 5 messages\n"
    said = (Session().user("every time I pull I have to run `make generate` before the "
                           "build works")
            .run("make generate", "generated 12 files", False))
    for record in said.records:
        record["sessionId"] = "sess-8"  # another session: the first one's turns are read
    memx.ok("ingest", said.write(repo))
    assert contents(repo) == ["every time I pull I have to run `make generate` before the build works."]


def rejected_with(session: Session, path: str, words: str) -> Session:
    """An Edit the user turns down, typing ``words`` with the rejection."""
    session.calls += 1
    tid = f"toolu_{session.calls}"
    session._add("assistant", [{"type": "tool_use", "id": tid, "name": "Edit", "input": {
        "file_path": path, "old_string": "a", "new_string": "b"}}])
    return session._add("user", [{
        "type": "tool_result", "tool_use_id": tid, "is_error": True,
        "content": "The user doesn't want to proceed with this tool use. The tool use was "
                   "rejected (eg. if it was a file edit, the new_string was NOT written to the "
                   f"file). To tell you how to proceed, the user said:\n{words}"}])


def test_a_question_that_only_asks_is_no_correction(memx: Memx, repo: Path) -> None:
    """Words typed into a rejection that only ask ("what does lint say now?") wait for an
    answer; a question that challenges or proposes ("isn't this an internal package?") is
    the user's correction."""
    session = Session().user("fix the import")
    rejected_with(session, "/repo/store/migrate.go", "what does lint say now?")
    session.say("Lint reports two errcheck findings in `store/migrate.go`.")
    rejected_with(session, "/repo/store/migrate.go", "isn't this an internal sibling package?")
    name = session.say("You're right - the import is fine, it only needs the module path "
                       "`example.com/app/checkpoint`.").write(repo)
    memx.ok("ingest", name)
    assert contents(repo) == [
        "User correction (edit of migrate.go: `b` turned down): \"isn't this an internal sibling "
        "package?\" Answer: You're right - the import is fine, it only needs the module path "
        "`example.com/app/checkpoint`."]


PARSE_FAILS = ("--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got \"a b\", want \"a\"\n"
               "FAIL\texample.com/p\t0.01s")
PARSE_PASSES = "ok  \texample.com/p\t0.01s"


def learned(memx: Memx, repo: Path, session: Session) -> list[str]:
    """The memories `memx ingest` stores from the session."""
    memx.ok("ingest", session.write(repo))
    return contents(repo)


def _first_fix(session: Session) -> Session:
    return (session.user("the parser test fails")
            .run("go test ./p/...", PARSE_FAILS, True)
            .edit("p/parse.go", "return s", "return strings.TrimSpace(s)")
            .run("go test ./p/...", PARSE_PASSES, False)
            .say("Trimming the input makes the test pass.")
            .user("ok, now add a benchmark for Parse")
            .edit("p/parse_test.go", "}", "}\n\nfunc BenchmarkParse(b *testing.B) {}"))


def test_a_fix_the_same_failure_overturns_later_is_not_the_lesson(
        memx: Memx, repo: Path) -> None:
    """The same check fails again with the same error later in the session, and another
    edit fixes it: the memory tells the fix that stood, never the overturned one."""
    session = (_first_fix(Session())
               .run("go test ./p/...", PARSE_FAILS, True)
               .say("The trim was the wrong fix: the split must stop at the first space.")
               .edit("p/parse.go", "return strings.TrimSpace(s)",
                     'return strings.SplitN(s, " ", 2)[0]')
               .run("go test ./p/...", PARSE_PASSES, False))
    assert learned(memx, repo, session) == [
        "Error: `go test ./p/...` — TestParse failed: parse_test.go:12: got \"a b\", want "
        "\"a\". Fix: The trim was the wrong fix: the split must stop at the first space "
        "(edited p/parse.go: `return strings.SplitN(s, \" \", 2)[0]`)."]


def test_a_fix_nothing_overturns_is_kept(memx: Memx, repo: Path) -> None:
    """Control: the same session without the failure coming back keeps the first fix."""
    session = _first_fix(Session()).run("go test ./p/...", PARSE_PASSES, False)
    assert learned(memx, repo, session) == [
        "Error: `go test ./p/...` — TestParse failed: parse_test.go:12: got \"a b\", want "
        "\"a\". Fix: edited p/parse.go: `return strings.TrimSpace(s)`."]


CUT_UNDEFINED = ("# example.com/p\np/parse.go:7:2: undefined: strutil.Cut\n"
                 "FAIL\texample.com/p [build failed]")


def _user_pulls(session: Session) -> Session:
    return (session.user("the build is broken")
            .run("go build ./...", CUT_UNDEFINED, True)
            .say("strutil.Cut does not exist in this checkout.")
            .user("I pulled the latest main, try again"))


def test_a_step_the_user_took_is_the_fix_when_the_check_then_passes(
        memx: Memx, repo: Path) -> None:
    """The fix arrived without an edit of the agent's: the user says what they did, the
    same check passes; the memory tells the user's step, not the agent's diagnosis."""
    session = _user_pulls(Session()).run("go build ./...", "", False)
    assert learned(memx, repo, session) == [
        "Error: `go build ./...` — p/parse.go:7:2: undefined: strutil.Cut. Fix: the user "
        "pulled the latest main."]


def test_a_step_the_user_took_that_did_not_help_is_not_the_fix(memx: Memx, repo: Path) -> None:
    """Control: the check fails again after the user's step; the agent's edit fixes it."""
    session = (_user_pulls(Session()).run("go build ./...", CUT_UNDEFINED, True)
               .edit("p/parse.go", "strutil.Cut(s, \" \")", "strings.Cut(s, \" \")")
               .run("go build ./...", "", False))
    assert learned(memx, repo, session) == [
        "Error: `go build ./...` — p/parse.go:7:2: undefined: strutil.Cut. Fix: edited "
        "p/parse.go: `strings.Cut(s, \" \")`."]


@pytest.mark.parametrize("output, error, fix", [
    # `file:line:col: message. hint (rule)` is one diagnostic: its hint and the linter's
    # rule name stay in the Error
    ("pkg/db/conn.go:33:9: Error return value of `rows.Close` is not checked. wrap it in a "
     "deferred check (errcheck)\n1 issues:\n* errcheck: 1",
     "pkg/db/conn.go:33:9: Error return value of `rows.Close` is not checked. wrap it in a "
     "deferred check (errcheck)", ("pkg/db/conn.go", "defer func() { _ = rows.Close() }()")),
    # control: an error told in prose with the cure after it keeps the error's sentence
    ("Error: config file is stale. Regenerate it with make config",
     "config file is stale", ("lint.cfg", "version = 2")),
])
def test_a_linters_place_led_line_is_read_whole_with_its_rule(
        memx: Memx, repo: Path, output: str, error: str, fix: tuple[str, str]) -> None:
    session = (Session().user("make lint pass").run("make lint", output, True)
               .edit(fix[0], "x", fix[1]).run("make lint", "0 issues.", False))
    assert learned(memx, repo, session) == [
        f"Error: `make lint` — {error}. Fix: edited {fix[0]}: `{fix[1]}`."]


VET = "store/cache.go:41:2: unreachable code"


@pytest.mark.parametrize("prefix", [
    "vet\tRun go vet\t2026-03-02T10:14:07.1234567Z ",  # gh run view --log: job, step, time
    "",  # the same line as the job printed it (control)
])
def test_a_diagnostic_in_a_saved_ci_log_is_read_after_its_columns(
        memx: Memx, repo: Path, prefix: str) -> None:
    """`gh run view --log` puts the job, the step and a timestamp before each line: the Go
    diagnostic after them is the error, not the runner's bare "##[error]" line."""
    log = f"{prefix}{VET}\n{prefix}##[error]Process completed with exit code 1."
    name = (Session().user("why does the vet job fail on CI?")
            .run("gh run view 812 --log-failed 2>&1 | head -100", log, False)
            .say("The issue is that `return nil` on line 40 of `store/cache.go` ends the "
                 "function before the unlock.")
            .edit("store/cache.go", "return nil\n\tc.mu.Unlock()", "c.mu.Unlock()\n\treturn nil")
            .run("go vet ./store/...", "ok  \texample.com/app/store\t0.02s", False)
            .write(repo))
    memx.ok("ingest", name)
    found = contents(repo)
    assert len(found) == 1 and found[0].startswith(f"Error: {VET}.")


REVIEW = ("<task-notification>\n<task-id>a7470ed</task-id>\n<status>completed</status>\n"
          "<summary>Agent \"Review code correctness\" completed</summary>\n<result>"
          "### Important\n1. `UpdateCommitted` has no error path tests:\n```go\n"
          "return errors.New(\"invalid update options: checkpoint ID is required\")\n```\n"
          "Suggested fix: add unit tests for corrupted metadata and write failures.\n"
          "</result>\n</task-notification>")


def test_a_background_agents_report_is_not_the_users_words(memx: Memx, repo: Path) -> None:
    """Claude Code hands a background agent's report to the session as a user record opening
    ``<task-notification>``; the code it quotes failed nowhere and its suggestions fixed
    nothing. Control: the same words typed by the user are a failure and its fix."""
    session = Session().user("review the branch in the background")
    session.user(REVIEW)
    name = session.say("The correctness review is in: one gap in the error path tests.") \
        .write(repo)
    assert memx.ok("ingest", name) == "Nothing to remember in 3 messages\n"


def test_the_same_report_typed_by_the_user_is_read(memx: Memx, repo: Path) -> None:
    session = Session().user("review the branch in the background")
    session.user(REVIEW.replace("<task-notification>", "").replace("</task-notification>", ""))
    name = session.say("The correctness review is in: one gap in the error path tests.") \
        .write(repo)
    assert memx.ok("ingest", name).startswith("Stored 1 memory")
