"""A failing call made again another way, which then works, is a RetrySuccess (episodes.py,
reruns.varies, issue 24): the option given another value (``--target release/2.1`` then
``--target main``), the same payload sent through another subcommand, or a step chained
before the same verb. Sessions are written in Claude Code's record shapes and ingested
with `memx ingest` in a real repository."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from memx_cli.reflector.reruns import changed, varies
from memx_cli.reflector.signals import analyse
from memx_cli.reflector.turn import Turn

from .conftest import Memx
from .test_reflector_replies import Replies
from .test_reflector_replies import stored as stored_kinds
from .test_reflector_sessions import Session

NOTES = '--notes "Adds the export command and fixes the retry loop in sync."'
REFUSED = ("Exit code 1\nHTTP 422: Validation Failed "
           "(https://api.github.com/repos/acme/tool/releases)\n"
           "Release.target_commitish is invalid")
CREATED = "https://github.com/acme/tool/releases/tag/v2.1.0"


def _release(between: Session | None = None, second: str = "main",
             passed: bool = True) -> Session:
    session = (Session().user("cut the v2.1.0 release")
               .run(f"gh release create v2.1.0 --target release/2.1 {NOTES}", REFUSED, True)
               .say("The release branch is not on the remote. Let me check the branches."))
    session.run("git branch -r", "  origin/main\n  origin/feature/export", False)
    if between is not None:
        session.records += between.records
        session.calls += between.calls
    return session.run(f"gh release create v2.1.0 --target {second} {NOTES}",
                       CREATED if passed else REFUSED, not passed)


def _retries(repo: Path) -> list[str]:
    """The contents of the memories tagged as a retry that worked."""
    mems = [yaml.safe_load(p.read_text()) for p in (repo / ".memx" / "memories").glob("*.yaml")]
    return sorted(m["content"] for m in mems if "retry-success" in m.get("tags", []))


def test_an_option_given_another_value_that_works_is_the_lesson(memx: Memx,
                                                                repo: Path) -> None:
    memx.ok("ingest", _release().write(repo))
    [lesson] = _retries(repo)
    assert lesson.startswith("Error: `gh release create v2.1.0 --target release/2.1 --notes")
    assert "Release.target_commitish is invalid" in lesson
    # the call is long: it is shown up to the word it changed
    assert lesson.endswith("Fix: ran `gh release create v2.1.0 --target main …`.")


def test_the_varied_call_failing_again_teaches_nothing(memx: Memx, repo: Path) -> None:
    """Control: the second call is refused too."""
    memx.ok("ingest", _release(second="develop", passed=False).write(repo))
    assert _retries(repo) == []


def test_an_edit_between_the_calls_is_the_fix_not_the_call(memx: Memx, repo: Path) -> None:
    """Control: a file changed between the two calls; the call alone did not make it work."""
    edit = Session().edit("/repo/.github/release.yml", "target: release/2.1", "target: main")
    memx.ok("ingest", _release(between=edit).write(repo))
    assert not any("ran `gh release create" in lesson for lesson in _retries(repo))


def test_the_same_payload_sent_through_another_subcommand_is_no_lesson(memx: Memx,
                                                                      repo: Path) -> None:
    """Control: `gh api …/replies` answers 404 (its address lacked the pull request) and
    the same reply is posted with `gh pr comment`: another call, a workaround that loses
    the thread, not the failing call made to work (a blind grader read it as wrong)."""
    body = "Agreed, good catch. Fixed in 4be81c2 by passing the open repository down."
    not_found = ('Exit code 1\ngh: Not Found (HTTP 404)\n\n{\n  "message": "Not Found",\n'
                 '  "status": "404"\n}')
    name = (Session().user("reply to the review comment with the fix")
            .run(f'gh api repos/acme/tool/pulls/comments/9912/replies -f body="{body}"',
                 not_found, True)
            .run(f'gh pr comment 85 --body "Re: the overlap check. {body}"',
                 "https://github.com/acme/tool/pull/85#issuecomment-1", False)
            .write(repo))
    memx.ok("ingest", name)
    assert _retries(repo) == []


def test_a_step_chained_before_the_same_verb(memx: Memx, repo: Path) -> None:
    locked = ("Exit code 128\nfatal: Unable to create '/repo/.git/index.lock': File exists.\n\n"
              "Another git process seems to be running in this repository.")
    name = (Session().user("rebase the branch on main")
            .run("git fetch origin && git rebase origin/main", locked, True)
            .run("rm -f .git/index.lock && git rebase --continue",
                 "Successfully rebased and updated refs/heads/export.", False)
            .write(repo))
    memx.ok("ingest", name)
    [lesson] = _retries(repo)
    assert "index.lock': File exists" in lesson
    assert lesson.endswith("Fix: ran `rm -f .git/index.lock && git rebase --continue`.")


@pytest.mark.parametrize(("problem", "command"), [
    # other arguments alone run something else
    ("go test ./pkg/a", "go test ./pkg/b"),
    # the verb kept, a bare word changed, nothing chained before it
    ("git rebase origin/main", "git rebase --continue"),
    # another verb with little in common
    ("gh pr create --base x", "gh pr view 12"),
    # the same call again is a rerun, for the episode's own check
    ("gh pr create --base x", "gh pr create --base x --draft"),
])
def test_calls_that_are_not_the_failing_call_varied(problem: str, command: str) -> None:
    assert varies(problem, command) is None


def test_the_words_a_varied_call_changed_keep_their_option() -> None:
    part = varies("gh pr create --base old --title T", "gh pr create --base main --title T")
    assert part == "gh pr create --base main --title T"
    assert changed("gh pr create --base old --title T", part) == ["--base main"]


def test_a_mistyped_call_mended_by_the_same_program_is_no_lesson(memx: Memx,
                                                                  repo: Path) -> None:
    """Control: the program refused its own command line (an agent's slip), though the
    call made again keeps most of its words."""
    title = '--title "Add the export command for CSV and JSON files"'
    name = (Session().user("open the PR")
            .run(f"gh pr create --base main {title} --reviewers alice",
                 "Exit code 1\nunknown flag: --reviewers\n\nUsage:  gh pr create [flags]", True)
            .run(f"gh pr create --base main {title} --reviewer alice",
                 "https://github.com/acme/tool/pull/86", False)
            .write(repo))
    memx.ok("ingest", name)
    assert _retries(repo) == []


def test_a_failed_run_without_an_error_line_names_its_last_worded_line() -> None:
    """Control for the diagnostic line: no line led by the program's name, so the last line
    holding a word, past a JSON document's closing brace."""
    output = 'Exit code 1\n{\n  "message": "Validation Failed"\n}'
    sig = analyse(Turn(3, "tool", output, "tool_result", command="curl -sf https://x/api",
                       failed=True))
    assert sig.key_error == '"message": "Validation Failed"'


# Words typed into a rejected edit that ask for a step before the work (replies.py): the
# commands run next take the step, then the very edit turned down is made.
EXPORT = "/home/dev/tool/export.py"
SINCE = "def export(rows, since=None):"


def _first_a_branch(steps: list[tuple[str, str, bool]], new: str = SINCE) -> Replies:
    session = (Replies().user("Add a --since option to the export command.")
               .rejected_edit(EXPORT, SINCE, "let's cut a branch first"))
    for command, output, failed in steps:
        session.run(command, output, failed)
    return session.edit(EXPORT, "x", new)


def _preferences(repo: Path) -> list[str]:
    return [text for kind, text in stored_kinds(repo) if kind == "preference"]


def test_a_step_asked_for_in_a_rejection_then_the_same_edit(memx: Memx, repo: Path) -> None:
    session = _first_a_branch([("git status --short", " M README.md", False),
                               ("git checkout -b feature/export-since",
                                "Switched to a new branch 'feature/export-since'", False)])
    memx.ok("ingest", session.write(repo))
    assert _preferences(repo) == [
        "User correction (edit of export.py: `def export(rows, since=None):` turned down): "
        "\"let's cut a branch first\" Answer: ran `git checkout -b feature/export-since`, "
        "then made the same edit."]


@pytest.mark.parametrize("steps", [
    [],  # the same edit at once: "go on"
    [("git status --short", " M README.md", False)],  # only looked
    [("git checkout -b feature/export-since",
      "fatal: a branch named 'feature/export-since' already exists", True)],  # the step failed
])
def test_no_step_taken_before_the_same_edit_teaches_nothing(memx: Memx, repo: Path,
                                                            steps: list[tuple[str, str, bool]]
                                                            ) -> None:
    memx.ok("ingest", _first_a_branch(steps).write(repo))
    assert _preferences(repo) == []
