"""A shape of real sessions the Reflector missed (issue 24), in Claude Code's records: what
a task-runner target runs, read from the runner's own echo (``[test:ci] $ go test
-tags=integration -race ./...``), said by the memory that names the target
(``runners.py``).

Each behaviour has a control: the same session where the shape is missing."""

from __future__ import annotations

from pathlib import Path

from memx_cli.reflector.runners import Runners
from memx_cli.reflector.turn import Turn

from .conftest import Memx
from .test_reflector_sessions import Session, contents

FAILED = ("--- FAIL: TestParseTrailer (0.00s)\n    trailer_test.go:41: got \"\", want \"a3b2c4\"\n"
          "FAIL\nFAIL\texample.com/app/trailer\t0.012s\nFAIL")
PASSED = "ok  \texample.com/app/trailer\t0.015s"


def _checked(call: str, echo: str) -> Session:
    """A test fails through the task runner, the code is fixed, the same target passes."""
    return (Session().user("the trailer tests fail, can you fix them?")
            .run(f"{call} 2>&1", f"Exit code 1\n{echo}\n{FAILED}", True)
            .say("`ParseTrailer` stops at the first blank line, so the trailer is never read.")
            .edit("/repo/trailer/trailer.go", "if line == \"\" { break }",
                  "if line == \"\" { continue }")
            .run(f"{call} 2>&1", f"{echo}\n{PASSED}", False))


def test_a_memory_naming_a_qualified_target_says_what_the_target_runs(memx: Memx,
                                                                      repo: Path) -> None:
    echo = "[test:ci] $ go test -tags=integration -race ./..."
    memx.ok("ingest", _checked("mise run test:ci", echo).write(repo))
    [memory] = contents(repo)
    assert memory.startswith("Error: `mise run test:ci 2>&1` — TestParseTrailer failed")
    assert memory.endswith(" `mise run test:ci` runs `go test -tags=integration -race ./...`.")


def test_a_plain_target_is_not_told_by_its_command(memx: Memx, repo: Path) -> None:
    """Control: `mise run test` echoing `go test ./...` says what everybody guesses."""
    memx.ok("ingest", _checked("mise run test", "[test] $ go test ./...").write(repo))
    [memory] = contents(repo)
    assert memory.startswith("Error: `mise run test 2>&1` — TestParseTrailer failed")
    assert "runs `go test" not in memory


def test_a_runner_that_echoes_nothing_adds_nothing(memx: Memx, repo: Path) -> None:
    """Control: make prints its recipe's lines bare; no echo shape names a task."""
    memx.ok("ingest", _checked("make test-ci", "go test -tags=integration ./...").write(repo))
    [memory] = contents(repo)
    assert " runs " not in memory


def _result(command: str, output: str) -> Turn:
    return Turn(2, "tool", output, "tool_result", command=command)


def test_a_target_that_runs_other_tasks_is_told_by_them_never_by_a_script_path() -> None:
    runners = Runners()
    runners.feed(_result("mise run lint 2>&1", (
        "[lint:go] $ ~/src/app/mise-tasks/lint/go\n"
        "[lint:shellcheck] $ ~/src/app/mise-tasks/lint/shellcheck\n"
        "[lint] $ ~/src/app/mise-tasks/lint/_default\n0 issues.")))
    assert runners.notes("Error: `mise run lint` failed on unparam.") == [
        "`mise run lint` runs the tasks lint:go, lint:shellcheck."]
    # a text that names no target it ran is left alone, and one naming another target too
    assert runners.notes("Error: `mise run lint:go` failed.") == []
    assert runners.notes("Fix: ran `mise run fmt`.") == []


def test_the_echo_shapes_of_go_task_and_npm_are_read() -> None:
    runners = Runners()
    runners.feed(_result("task test:unit", "task: [test:unit] go test -short ./...\nok"))
    runners.feed(_result("npm run test:e2e -- --reporter dot",
                         "\n> web@1.4.0 test:e2e\n> playwright test --reporter dot\n"))
    runners.feed(_result("pnpm run build:prod", "\n> web@1.4.0 build:prod /srv/web\n"
                         "> vite build --mode production\n"))
    assert runners.notes("`task test:unit` failed") == [
        "`task test:unit` runs `go test -short ./...`."]
    # words after the target change what it echoes: not the target's own command
    assert runners.notes("`npm run test:e2e` failed") == []
    assert runners.notes("`pnpm run build:prod` failed") == [
        "`pnpm run build:prod` runs `vite build --mode production`."]
    # a text that already says what the target runs is not told it again
    assert runners.notes("`task test:unit` (go test -short ./...) failed") == []
