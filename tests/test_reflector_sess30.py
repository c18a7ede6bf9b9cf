"""The agent's answer to a user's question (answers.py, issue 24): an answer found with
look-up commands (a program's usage, a forge's run log, a trial in a scratch folder), an
item grounded on a hyphenated name the code spells as an identifier or a literal, and a
list whose lead-in carries the claim. Sessions in Claude Code's record shapes, ingested
with `memx ingest`; each control keeps the structure but the one part under test."""

from __future__ import annotations

from pathlib import Path

import pytest

from memx_cli.reflector.answers import grounded, reads, stated, states

from .conftest import Memx
from .test_reflector_answers import Reading, answers

MOVE_Q = "is there a git command to move a worktree? is it different from a plain mv?"
USAGE = "usage: git worktree move <worktree> <new-path>\n"
MOVE_A = ("The internal name stays the same after `git worktree move`:\n"
          "- The folder under .git/worktrees keeps its name\n"
          "- Only its `gitdir` file is updated to the new path")
MOVE_KEPT = (f"Asked \"{MOVE_Q}\": The internal name stays the same after `git worktree move`: "
             "The folder under .git/worktrees keeps its name; Only its `gitdir` file is "
             "updated to the new path.")


@pytest.mark.parametrize("trial, kept", [
    # the trial runs in a scratch folder: the project is untouched, the answer stands
    ("cd /tmp/wt-trial && git init -q && git worktree add ./one -b one "
     "&& git worktree move ./one ./two && cat .git/worktrees/one/gitdir", [MOVE_KEPT]),
    # the control: the same trial in the project's own folder changes the project
    ("git worktree add ./one -b one && git worktree move ./one ./two "
     "&& cat .git/worktrees/one/gitdir", []),
])
def test_an_answer_after_a_usage_and_a_scratch_trial(
        memx: Memx, repo: Path, trial: str, kept: list[str]) -> None:
    session = (Reading().user(MOVE_Q).say("Yes, there's `git worktree move`:")
               .run("git worktree move --help 2>&1 | head -5", USAGE, False)
               .run(trial, "/tmp/wt-trial/two/.git\n", False)
               .say(MOVE_A).user("thanks"))
    memx.ok("ingest", session.write(repo))
    assert answers(repo) == kept


LOG = ("lint\tRun golangci-lint\tcheckpoint_test.go:41:2: SA5011: possible nil pointer "
       "dereference (staticcheck)\n")
LINT_A = ("The `SA5011` finding in checkpoint_test.go comes from staticcheck, which CI runs "
          "with `--new-from-patch` on the pull request's diff only.")


@pytest.mark.parametrize("look, kept", [
    ("gh run view 4242 --log-failed 2>&1 | head -100",
     ["Asked \"why is lint failing on the build?\": " + LINT_A]),
    # controls: a verb of the forge that acts, and the log written into a file
    ("gh run rerun 4242 --failed", []),
    ("gh run view 4242 --log-failed > failed.log && grep SA5011 failed.log", []),
])
def test_an_answer_after_reading_a_run_log_with_the_forge_client(
        memx: Memx, repo: Path, look: str, kept: list[str]) -> None:
    session = (Reading().user("why is lint failing on the build?")
               .run("gh pr checks 2>&1", "lint\tfail\t1m2s\thttps://example.org/runs/4242\n", False)
               .run(look, LOG + "Run golangci-lint-action with --new-from-patch\n", False)
               .say(LINT_A).user("ok"))
    memx.ok("ingest", session.write(repo))
    assert answers(repo) == kept


def test_look_up_commands_read_and_acting_ones_do_not() -> None:
    for command in ("git worktree move --help 2>&1 | head -20", "gh pr checks || gh run list",
                    "ls .git/worktrees 2>/dev/null || echo none", "git branch -a",
                    "git rev-parse --show-toplevel", "cd /tmp && mkdir t && cd t && git init",
                    'cd "$(mktemp -d)" && git init'):
        assert reads(command), command
    for command in ("git branch topic", "gh pr merge 12", "echo x > .env", "gh pr diff 12",
                    "git diff main > pr.patch", "cd /tmp && cd /repo && rm x",
                    "cd /tmp/x && cd ../../repo && rm y", "go test ./..."):
        assert not reads(command), command


HOOKS = ("// PrePush is called by the git hook before a push.\n"
         "func (s *AutoCommitStrategy) PrePush(remote string) error {\n"
         "// the hook is not needed: nothing is self-healing here\n")


def test_a_hyphenated_name_is_grounded_by_its_identifier_or_literal() -> None:
    assert grounded("only pre-push matters", HOOKS) == ("pre-push",)
    assert grounded("only prepare-commit-msg runs", 'hooks := []string{"prepare-commit-msg"}') \
        == ("prepare-commit-msg",)
    assert grounded("the `--log-failed` flag", "  --log-failed   Show failed steps") \
        == ("--log-failed",)
    # controls: a hyphenated word the code only has in prose, or not at all
    assert grounded("the hook is self-healing", HOOKS) == ()
    assert grounded("only post-commit matters", HOOKS) == ()


PUSH_Q = "For auto commit we only need the push hook, or?"


@pytest.mark.parametrize("answer, kept", [
    ("For auto-commit only pre-push matters: it pushes the metadata branch.",
     [f"Asked \"{PUSH_Q}\": For auto-commit only pre-push matters: it pushes the metadata "
      "branch."]),
    # the control: the same claim about a hook the code never names
    ("For auto-commit only post-merge matters: it pushes the metadata branch.", []),
])
def test_an_answer_grounded_on_a_hook_spelled_as_a_method(
        memx: Memx, repo: Path, answer: str, kept: list[str]) -> None:
    session = (Reading().user(PUSH_Q).read("/repo/strategy/auto_commit.go", HOOKS)
               .say(answer).user("ok, let's keep it then"))
    memx.ok("ingest", session.write(repo))
    assert answers(repo) == kept


SEEN = USAGE + "/tmp/wt-trial/two/.git\n"


def test_a_list_whose_lead_in_claims_is_one_statement_with_it() -> None:
    assert stated(MOVE_A, SEEN) == [(MOVE_KEPT.split(": ", 1)[1], ("git worktree move",))]
    # controls: a lead-in in a question's form, an item that weighs, a lead-in naming
    # nothing read
    for text in ("Why `git worktree move` keeps the name:\n- The folder keeps its name\n"
                 "- Only the file is updated",
                 "The internal name stays the same after `git worktree move`:\n"
                 "- The folder probably keeps its name\n- Only the file is updated",
                 "The internal name stays the same after a move:\n- The folder keeps its name\n"
                 "- Only the file is updated"):
        assert stated(text, SEEN) == [], text


def test_an_account_of_what_the_user_did_is_no_fact_of_the_project() -> None:
    assert not states("When you ran `app init` without `--dev`, it wrote the `app` commands.")
    assert not states("Your `settings.json` had the old commands before the merge.")
    # controls: the user named in a fact of the project, not as its actor in the past
    assert states("You can pass `--dev` to write the `go run` commands.")
    assert states("The `init` command writes the file you pass.")
    assert states("The `sessions` branch keeps what was condensed when you made commits.")


def test_a_hyphenated_name_grounds_a_sentence_not_a_list_item() -> None:
    sentence = "For auto-commit only pre-push matters, for pushing the metadata."
    assert stated(sentence, HOOKS) == [(sentence, ("pre-push",))]
    # the control: the same words as an item of a list lean on what heads the list
    assert stated("So the change is:\n- Adds pre-push coverage for auto-commit\n"
                  "- Different timing of the hook", HOOKS + "auto_commit.go") == []
