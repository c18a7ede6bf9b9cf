"""Which sentence an episode's memory quotes (issue 24, sess18): the failing test's own
line in the Error slot, and a Why that is about the fix it stands beside. Each test is a
small Claude Code session shaped like the real ones, through `memx ingest` in a real
repository, with a control."""

from __future__ import annotations

from pathlib import Path

from .conftest import Memx
from .test_reflector_sessions import Session, contents

# `go test` with a test whose subtests failed: the parent's `--- FAIL` line has nothing of
# its own under it, the subtest's line holds what went wrong
SUBTESTS_FAIL = (
    "ok  \texample.com/app/cli\t0.40s\n"
    "--- FAIL: TestTruncate (0.00s)\n"
    "    --- FAIL: TestTruncate/wide_runes (0.00s)\n"
    "        trunc_test.go:31: Truncate(\"日本語テキスト\", 4) = \"日本語テキスト\", want \"日本…\"\n"
    "    --- FAIL: TestTruncate/emoji (0.00s)\n"
    "        trunc_test.go:31: Truncate(\"ab 🎉 cd\", 3) = \"ab 🎉 cd\", want \"ab…\"\n"
    "FAIL\n"
    "FAIL\texample.com/app/text\t0.21s\n"
    "FAIL")
PASSES = "ok  \texample.com/app/cli\t0.40s\nok  \texample.com/app/text\t0.20s"
TRUNCATE_FIX = ("return s[:n]", "return string([]rune(s)[:n-1]) + \"…\"")


def _truncate(command: str, failed: bool) -> Session:
    return (Session().user("the text tests fail after the unicode change")
            .run(command, SUBTESTS_FAIL, failed)
            .edit("text/trunc.go", *TRUNCATE_FIX)
            .run(command, PASSES, False))


EXPECTED_ERROR = ("TestTruncate failed: trunc_test.go:31: Truncate(\"日本語テキスト\", 4) = "
                  "\"日本語テキスト\", want \"日本…\"")


def test_a_piped_go_test_run_quotes_the_failing_subtests_line(memx: Memx, repo: Path) -> None:
    """`go test … | tail` exits with tail's status: the run is read as failed from its
    output, and the Error is what the first failing subtest printed, not the bare `FAIL`
    that closes the output."""
    memx.ok("ingest", _truncate("go test ./... 2>&1 | tail -30", False).write(repo))
    assert contents(repo) == [
        f"Error: `go test ./... 2>&1` — {EXPECTED_ERROR}. "
        "Fix: edited text/trunc.go: `return string([]rune(s)[:n-1]) + \"…\"`."]


def test_a_go_test_run_that_reports_its_failure_quotes_the_same_line(
        memx: Memx, repo: Path) -> None:
    """Control: the run's own status says it failed; the subtest's line is the Error as
    well, and a test with its line right under its `--- FAIL` keeps that line."""
    memx.ok("ingest", _truncate("go test ./...", True).write(repo))
    assert contents(repo) == [
        f"Error: `go test ./...` — {EXPECTED_ERROR}. "
        "Fix: edited text/trunc.go: `return string([]rune(s)[:n-1]) + \"…\"`."]


LINT_FAILS = ("cli/hooks_test.go:328:1: 328-354 lines are duplicate of "
              "`cli/hooks_test.go:404-431` (dupl)\n1 issues:\n* dupl: 1")
LINT_PASSES = "0 issues."
CAUSE = ("`TestLocalDevUninstall` tests another install mode than `TestUninstall`, so "
         "the duplication dupl flags is intentional.")


def _duplicated(after: str) -> Session:
    """A lint failure fixed with a directive, then the assistant's words after the green
    run."""
    return (Session().user("lint fails on the new tests")
            .run("golangci-lint run ./...", LINT_FAILS, True)
            .say(CAUSE)
            .edit("cli/hooks_test.go", "func TestLocalDevUninstall(t *testing.T) {",
                  "func TestLocalDevUninstall(t *testing.T) { //nolint:dupl // another mode")
            .run("golangci-lint run ./...", LINT_PASSES, False)
            .say(after))


def test_words_after_the_green_run_about_other_work_are_not_the_why(
        memx: Memx, repo: Path) -> None:
    """The message after the green run reports the whole turn's work; its first sentences
    name a script and tests the lint fix never touched. They are no reason for this fix:
    the cause said before the edit stays the Why."""
    report = ("All green. **Wrapper scripts keep the caller's env** - `scripts/wrapper.sh` "
              "now reads `APP_DEV` from `.env` only when it is unset. **Missing "
              "`InstallHooks(true)` tests** - added `TestInstallHooksLocalDev` to cover "
              "the wrapper commands.")
    stored = contents(_ingested(memx, repo, _duplicated(report)))
    assert len(stored) == 1
    assert stored[0].endswith(f"Why: {CAUSE}")
    assert "wrapper" not in stored[0].lower()


def test_words_after_the_green_run_about_the_fix_are_the_why(memx: Memx, repo: Path) -> None:
    """Control: the words after the green run name the directive the edit wrote: they
    say why the fix worked and are the Why, as before."""
    said = ("The `//nolint:dupl` directive on `TestLocalDevUninstall` silences dupl for "
            "that one function, keeping both install modes tested.")
    stored = contents(_ingested(memx, repo, _duplicated(said)))
    assert len(stored) == 1
    assert stored[0].endswith(f"Why: {said}")


def _ingested(memx: Memx, repo: Path, session: Session) -> Path:
    memx.ok("ingest", session.write(repo))
    return repo


# golangci-lint's dupl names no column; the linter's name closes the line
DUPL_FAILS = ("cli/hooks_test.go:328: 328-354 lines are duplicate of "
              "`cli/hooks_test.go:404-431` (dupl)\nfunc TestLocalDevUninstallRemovesWrapper"
              "Hooks(t *testing.T) {\n1 issues:\n* dupl: 1\n[lint] ERROR task failed")
LONG_SIGNATURE = "func TestLocalDevUninstallRemovesWrapperHooks(t *testing.T) {"
DIRECTIVE = "//nolint:dupl // tests another install mode than TestUninstallHooks"


def _directive(output: str, new_first_line: str) -> Session:
    return (Session().user("lint fails on the new tests")
            .run("mise run lint 2>&1", output, True)
            .edit("cli/hooks_test.go", f"{LONG_SIGNATURE}\n\ttempDir := t.TempDir()",
                  f"{new_first_line}\n\ttempDir := t.TempDir()")
            .run("mise run lint 2>&1", LINT_PASSES, False))


def test_a_linter_line_without_a_column_and_a_directive_after_a_long_line_are_shown(
        memx: Memx, repo: Path) -> None:
    """The linter's line (place, message, `(dupl)`) is the Error, not the task runner's
    "ERROR task failed"; the edit only adds a directive to the end of a line too long to
    show whole, so the Fix shows what it adds."""
    memx.ok("ingest", _directive(DUPL_FAILS, f"{LONG_SIGNATURE} {DIRECTIVE}").write(repo))
    assert contents(repo) == [
        "Error: `mise run lint 2>&1` — cli/hooks_test.go:328: 328-354 lines are duplicate "
        "of `cli/hooks_test.go:404-431` (dupl). "
        f"Fix: edited cli/hooks_test.go: `{DIRECTIVE}`."]


def test_a_place_led_line_with_no_linter_named_is_no_error_and_a_new_line_shows_whole(
        memx: Memx, repo: Path) -> None:
    """Control: a `file.go:N:` line that names no linter (what `grep -n` prints) is not
    the linter's line, so the runner's own error line is the Error; an edit short enough
    to show whole is shown whole."""
    listing = DUPL_FAILS.replace(" (dupl)", "")
    replaced = "func TestUninstallInLocalDevMode(t *testing.T) { // another install mode"
    memx.ok("ingest", _directive(listing, replaced).write(repo))
    assert contents(repo) == [
        "Error: `mise run lint 2>&1` — [lint] ERROR task failed. "
        f"Fix: edited cli/hooks_test.go: `{replaced} tempDir := t.TempDir()`."]


def test_the_same_directive_added_to_several_lines_is_shown_once(
        memx: Memx, repo: Path) -> None:
    """Each parameter gets the same directive: the first line is shown whole, and the
    lines after it, too long to add whole, add nothing new to show."""
    params = ("\tincrementalType string,", "\tsubagentType string,", "\ttaskDescription string,")
    tagged = [f"{p} //nolint:unparam // kept for API compatibility" for p in params]
    session = (Session().user("lint fails on messages.go")
               .run("golangci-lint run ./...",
                    "strategy/messages.go:64:2: `buildMessage` - `incrementalType` always "
                    "receives `\"\"` (unparam)", True)
               .edit("strategy/messages.go", "\n".join(params), "\n".join(tagged))
               .run("golangci-lint run ./...", LINT_PASSES, False))
    memx.ok("ingest", session.write(repo))
    stored = contents(repo)
    assert len(stored) == 1
    assert ("Fix: edited strategy/messages.go: `incrementalType string, //nolint:unparam "
            "// kept for API compatibility`.") in stored[0]
