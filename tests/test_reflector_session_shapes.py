"""Shapes of real Claude Code sessions the Reflector reads (issue 24, sess6): each test
is a small session shaped like the real ones, through `memx ingest` in a real repository,
and checks the memory's exact text (or that nothing is stored)."""

from __future__ import annotations

from pathlib import Path

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
