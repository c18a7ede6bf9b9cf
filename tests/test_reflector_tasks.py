"""What the project's tasks run, from the line a task runner prints before each (tasks.py,
issue 24): a session that ran a variant task (``test:ci``, ``lint:go``) green gives one Fact
listing the tasks that ran green and what each ran. Sessions are written in Claude Code's
record shapes and ingested with `memx ingest` in a real repository."""

from __future__ import annotations

from pathlib import Path

from memx_cli.reflector.tasks import Tasks
from memx_cli.reflector.turn import Turn

from .conftest import Memx
from .test_reflector_sessions import Session, contents

LINT = "[lint] $ golangci-lint run ./...\n0 issues."
TEST = "ok  \texample.com/app/pkg\t0.41s\n[test] $ go test ./..."
CI = "ok  \texample.com/app/pkg\t2.10s\n[test:ci] $ go test -tags=integration -race ./..."
HEAD = "The project's tasks, as the task runner ran them (passed): "


def facts(repo: Path) -> list[str]:
    return [c for c in contents(repo) if c.startswith(HEAD)]


def test_a_variant_task_run_green_names_what_every_green_task_runs(memx: Memx,
                                                                   repo: Path) -> None:
    name = (Session().user("add the retry flag to the sync command")
            .edit("/repo/cmd/sync.go", "func sync() {", "func sync(retry bool) {")
            .run("mise run lint 2>&1 | tail -5", LINT, False)
            .run("mise run test && mise run test:ci", TEST + "\n" + CI, False)
            .say("Done: the flag is in and every check is green.")
            .write(repo))
    memx.ok("ingest", name)
    assert facts(repo) == [
        HEAD + "`mise run lint` runs `golangci-lint run ./...`; `mise run test` runs "
        "`go test ./...`; `mise run test:ci` runs `go test -tags=integration -race ./...`."]


def test_plain_tasks_alone_a_failed_variant_or_one_given_arguments_say_nothing(
        memx: Memx, repo: Path) -> None:
    failed = "--- FAIL: TestSync (0.01s)\nFAIL\texample.com/app/pkg\t0.30s\n" \
        "[test:ci] $ go test -tags=integration -race ./...\n[test:ci] ERROR task failed"
    name = (Session().user("add the retry flag to the sync command")
            .edit("/repo/cmd/sync.go", "func sync() {", "func sync(retry bool) {")
            .run("mise run lint", LINT, False)
            .run("mise run test:ci 2>&1", failed, True)
            .run("mise run test:ci -- -run TestSync",
                 "ok  \texample.com/app/pkg\t0.20s\n"
                 "[test:ci] $ go test -tags=integration -race ./... -run TestSync", False)
            .say("The lint is clean; the sync test still fails.")
            .write(repo))
    memx.ok("ingest", name)
    assert facts(repo) == []


def test_the_variant_task_run_on_its_own_and_green_is_read(memx: Memx, repo: Path) -> None:
    # control of the test above: the same task, no arguments, green
    name = (Session().user("run the ci tests")
            .run("mise run test:ci", CI, False).say("Green.").write(repo))
    memx.ok("ingest", name)
    assert facts(repo) == [HEAD + "`mise run test:ci` runs "
                           "`go test -tags=integration -race ./...`."]


def tool_result(index: int, command: str, text: str, failed: bool = False) -> Turn:
    return Turn(index, "tool", text, "tool_result", command=command, failed=failed)


def test_a_family_run_names_its_variant_tasks_never_their_script_paths() -> None:
    tasks = Tasks()
    tasks.feed(tool_result(3, "mise run lint 2>&1 | head -50",
                           "[lint:go] $ ~/src/app/mise-tasks/lint/go\n"
                           "[lint:shellcheck] $ ~/src/app/mise-tasks/lint/shellcheck\n0 issues."))
    tasks.feed(tool_result(5, "mise run test:integration",
                           "ok  \texample.com/app/it\t9.1s\n"
                           "[test:integration] $ go test -tags=integration ./cmd/app/integrat…"))
    (fact,) = tasks.finish()
    assert fact.fix == (HEAD + "`mise run lint` runs `lint:go`, `lint:shellcheck`; "
                        "`mise run test:integration` runs `go test -tags=integration …`.")
    assert (fact.rule, fact.first, fact.last) == ("Fact", 3, 5)
    # control: an echoed task the command never named (another tool's bracketed line)
    # is not the project's task
    other = Tasks()
    other.feed(tool_result(2, "./build.sh", "[build:web] $ vite build\nbuilt in 2.1s"))
    assert other.finish() == []


def test_go_task_lines_are_read_too() -> None:
    tasks = Tasks()
    tasks.feed(tool_result(4, "task test:unit", "task: [test:unit] go test -short ./...\nok"))
    (fact,) = tasks.finish()
    assert fact.fix == HEAD + "`task test:unit` runs `go test -short ./...`."
