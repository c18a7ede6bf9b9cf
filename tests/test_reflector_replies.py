"""What a user's reply decides in a Claude Code session (replies.py, issue 24): a correction
typed into a rejected tool call, an answer picked in a question prompt, a pick among the
options the assistant offered. Sessions are written in Claude Code's own record shapes and
ingested with `memx ingest` in a real repository."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from .conftest import Memx
from .test_reflector_sessions import Session, contents

TURNED_DOWN = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
               "(eg. if it was a file edit, the new_string was NOT written to the file).")
SAID = " To tell you how to proceed, the user said:\n"
BARE = " STOP what you are doing and wait for the user to tell you how to proceed."


def stored(repo: Path) -> list[tuple[str, str]]:
    """(knowledge type, content) of each memory."""
    mems = [yaml.safe_load(p.read_text()) for p in (repo / ".memx" / "memories").glob("*.yaml")]
    return sorted((m["type"], m["content"]) for m in mems)


class Replies(Session):
    def rejected_edit(self, path: str, new: str, words: str | None) -> Replies:
        """An Edit the user turns down, with what they typed (None: a bare rejection)."""
        self.calls += 1
        tid = f"toolu_{self.calls}"
        self._add("assistant", [{"type": "tool_use", "id": tid, "name": "Edit", "input": {
            "file_path": path, "old_string": "x", "new_string": new}}])
        return self._reject(tid, words)

    def rejected_run(self, command: str, words: str | None) -> Replies:
        self.calls += 1
        tid = f"toolu_{self.calls}"
        self._add("assistant", [{"type": "tool_use", "id": tid, "name": "Bash",
                                 "input": {"command": command}}])
        return self._reject(tid, words)

    def _reject(self, tid: str, words: str | None) -> Replies:
        text = TURNED_DOWN + (SAID + words if words is not None else BARE)
        self._add("user", [{"type": "tool_result", "tool_use_id": tid, "content": text,
                            "is_error": True}])
        self.records[-1]["toolUseResult"] = "Error: " + text
        return self._add("user", [{"type": "text",
                                   "text": "[Request interrupted by user for tool use]"}])

    def ask(self, question: str, options: list[tuple[str, str]], answer: str) -> Replies:
        """A question prompt (AskUserQuestion) and the answer the user picked."""
        self.calls += 1
        tid = f"toolu_{self.calls}"
        self._add("assistant", [{"type": "tool_use", "id": tid, "name": "AskUserQuestion",
                                 "input": {"questions": [{
                                     "question": question, "header": "Choice",
                                     "multiSelect": False,
                                     "options": [{"label": label, "description": about}
                                                 for label, about in options]}]}}])
        return self._add("user", [{"type": "tool_result", "tool_use_id": tid, "content":
                                   f'User has answered your questions: "{question}"="{answer}".'
                                   " You can now continue with the user's answers in mind."}])


def test_a_correction_typed_into_a_rejected_edit_is_a_preference(memx: Memx, repo: Path) -> None:
    name = (Replies().user("Reject unknown keys in config.json.")
            .say("I will keep a list of the known keys and compare each key against it.")
            .rejected_edit("/home/dev/app/config.py", "KNOWN_KEYS = {'name', 'port'}",
                           "why a list by hand? use a strict schema instead")
            .say("You're right. I can use `pydantic` with `extra='forbid'`. Let me do that.")
            .edit("/home/dev/app/config.py", "class Config(BaseModel):",
                  "class Config(BaseModel, extra='forbid'):")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [(
        "preference",
        "User correction (edit of config.py: `KNOWN_KEYS = {'name', 'port'}` turned down): "
        '"why a list by hand? use a strict '
        "schema instead\" Answer: I can use `pydantic` with `extra='forbid'`.")]


def test_a_bare_rejection_or_a_handover_teaches_nothing(memx: Memx, repo: Path) -> None:
    name = (Replies().user("Rename the helper in utils.py.")
            .rejected_edit("/home/dev/app/utils.py", "def load_all():", None)
            .say("Understood, stopping here.")
            .rejected_run("make lint", "I'll take it from here.")
            .say("Done.")
            .write(repo))
    assert memx.ok("ingest", name).startswith("Nothing to remember in ")


def test_a_rejected_command_is_not_a_failing_run(memx: Memx, repo: Path) -> None:
    """Turning a `pytest` call down is no test failure: the next green run fixes nothing."""
    name = (Replies().user("Add a --since option to the export command.")
            .edit("/home/dev/app/export.py", "def export(rows):", "def export(rows, since=None):")
            .rejected_run("pytest tests/test_export.py", "Not now.")
            .say("OK.")
            .edit("/home/dev/app/export.py", "return rows", "return [r for r in rows]")
            .run("pytest tests/test_export.py", "4 passed in 0.12s", False)
            .write(repo))
    memx.ok("ingest", name)
    assert [rule for rule, _ in stored(repo)] == []


def test_an_answer_picked_in_a_question_prompt_is_a_decision(memx: Memx, repo: Path) -> None:
    name = (Replies().user("Add a job queue for the mailer.")
            .ask("Which store should the job queue use?",
                 [("Postgres", "SKIP LOCKED on a jobs table; no new service to run"),
                  ("Redis", "a list per queue; one more service in production")],
                 "Postgres")
            .say("Postgres it is.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [(
        "decision",
        'Chosen in a question prompt: "Which store should the job queue use?" → Postgres '
        "(SKIP LOCKED on a jobs table; no new service to run).")]


OPTIONS = """Two ways to keep the cache warm:

### Option A: Warm on deploy
- a post-deploy job loads the 500 most read pages
- **Cons**: a slow deploy

### Option B: Warm lazily
- the first request fills the cache; the next ones hit it
- **Pros**: nothing to run

My recommendation: Option B. Which do you prefer?"""


WARM_BY_SCRIPT = ("Two ways:\n\n### Option A: Warm on deploy\n- run `scripts/warm.py --top 500` "
                  "after the deploy\n\n### Option B: Warm lazily\n- the first request fills "
                  "the cache\n\nWhich do you prefer?")


@pytest.mark.parametrize(("options", "pick", "chosen"), [
    (OPTIONS, "Option A please, the first visitors must not wait.",
     'a post-deploy job loads the 500 most read pages (asked: "How should we keep the page '
     'cache warm?"). The user: "the first visitors must not wait".'),
    # "… a page that works" describes the option picked: no fix that worked for the
    # question asked (the pick is no verdict on an episode)
    (WARM_BY_SCRIPT, "Option A please, so the first visitors just get a page that works.",
     'run `scripts/warm.py --top 500` after the deploy (asked: "How should we keep the page '
     'cache warm?"). The user: "so the first visitors just get a page that works".'),
])
def test_a_pick_among_offered_options_keeps_that_option_only(
        memx: Memx, repo: Path, options: str, pick: str, chosen: str) -> None:
    name = (Replies().user("How should we keep the page cache warm?")
            .say(options)
            .user(pick)
            .say("Going with the post-deploy job.")
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == ["Chose Option A — Warm on deploy; " + chosen]


def test_the_harness_lines_in_the_users_name_are_nobodys_words(memx: Memx, repo: Path) -> None:
    """`<local-command-stdout>` and the like are written by Claude Code, not the user."""
    name = (Replies().user("<local-command-stdout>we always deploy from the main branch, our "
                           "convention</local-command-stdout>")
            .say("Noted.").write(repo))
    assert memx.ok("ingest", name).startswith("Nothing to remember in ")


def test_a_plain_correction_of_the_work_just_done_is_a_preference(memx: Memx, repo: Path) -> None:
    """No rejected call: the user says what is wrong with what was just done, and the
    assistant edits accordingly. The answer is its report once the edit is made."""
    name = (Replies().user("Add retries to the uploader.")
            .edit("/home/dev/up/uploader.py", "def upload(f):",
                  "def upload(f):\n    # retry up to 5 times\n    # each retry waits\n")
            .say("Added retries with comments on each step.")
            .user("we don't need a comment on every line, one docstring is enough")
            .say("Fair enough, trimming them.")
            .edit("/home/dev/up/uploader.py", "    # retry up to 5 times\n    # each retry waits\n",
                  '    """Upload f, retrying up to 5 times."""\n')
            .say("Replaced the line comments with one docstring on `upload()`.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [(
        "preference",
        'User correction: "we don\'t need a comment on every line, one docstring is enough" '
        "Answer: Replaced the line comments with one docstring on `upload()`.")]


def test_a_plain_message_that_is_no_correction_or_is_not_acted_on_keeps_nothing(
        memx: Memx, repo: Path) -> None:
    """A first request, a negation with no edit after it, a report that something works,
    a bug report (a negated state, what the user cannot see) acted on: no preference."""
    name = (Replies().user("Don't touch the vendored files, just bump the version in setup.cfg.")
            .edit("/home/dev/up/setup.cfg", "version = 1.2.0", "version = 1.3.0")
            .say("Bumped to 1.3.0.")
            .user("Is it not also in the changelog header?")
            .say("It is not; the changelog uses the tag only.")
            .user("ok great, that works now, thanks")
            .run("make dist", "built dist/up-1.3.0.tar.gz", False)
            .user("the upload button isn't showing anymore and I can't see the progress bar")
            .say("Looking at the template.")
            .edit("/home/dev/up/templates/index.html", "{% if user %}", "{% if user or guest %}")
            .say("Restored the button for guests.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == []


def _add_on(words: str) -> Replies:
    return (Replies().user("Write the zsh completion line into .zshrc on setup.")
            .edit("/home/dev/cli/setup.go", "return nil", 'line := "source <(cli completion zsh)"')
            .say("Setup now appends the completion line to .zshrc.")
            .user(words)
            .say("Adding it before the source line.")
            .edit("/home/dev/cli/setup.go", 'line := "source <(cli completion zsh)"',
                  'line := "autoload -Uz compinit && compinit\\nsource <(cli completion zsh)"')
            .say("The zsh line now starts with `autoload -Uz compinit && compinit`."))


def test_an_add_on_request_that_states_when_it_applies_is_a_rule(memx: Memx,
                                                                  repo: Path) -> None:
    """Asked for after the work, with a clause saying when it applies, and acted on."""
    words = ("One more thing, when installing zsh completions, let's also add "
             "`autoload -Uz compinit && compinit` before our source line")
    memx.ok("ingest", _add_on(words).write(repo))
    assert stored(repo) == [(
        "preference",
        f'User rule: "{words}" Answer: The zsh line now starts with '
        "`autoload -Uz compinit && compinit`.")]


@pytest.mark.parametrize("words", [
    "let's also add `autoload -Uz compinit && compinit` before our source line",
    "when you get a chance, add `autoload -Uz compinit && compinit` before the source line",
])
def test_an_add_on_request_that_states_no_rule_is_the_next_task(memx: Memx, repo: Path,
                                                                words: str) -> None:
    """Control: the same add-on with no clause of when it applies, or one that times a
    favour, is the next piece of work."""
    memx.ok("ingest", _add_on(words).write(repo))
    assert stored(repo) == []


def test_a_menu_of_options_after_a_rejection_is_no_answer(memx: Memx, repo: Path) -> None:
    """Asked "is there another way?" inside a rejected edit, the assistant lists options,
    the turned-down one among them: the correction is stored without a menu for its answer,
    and the option the user then picks is the decision."""
    name = (Replies().user("The cache test fails when the suite runs in parallel.")
            .rejected_edit("/home/dev/app/test_cache.py", "# no t.parallel",
                           "keep it parallel. is there any other way to solve this?")
            .say("**Option A: Run it alone** - drop the parallel marker (the simplest fix)\n"
                 "**Option B: A temp dir per test** - each test gets its own cache folder")
            .user("Option B, the suite must stay fast.")
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        'Chose Option B — A temp dir per test - each test gets its own cache folder. The user: '
        '"the suite must stay fast".',
        'User correction (edit of test_cache.py: `# no t.parallel` turned down): '
        '"keep it parallel.".']


def test_the_words_after_a_bare_rejection_that_change_course_are_a_preference(
        memx: Memx, repo: Path) -> None:
    """A bare rejection (the user pressed Escape: "STOP what you are doing") then the
    user's next message: it corrects the work when the assistant then edits something other
    than what was turned down."""
    name = (Replies().user("The export tests fail, please fix them.")
            .rejected_edit("/home/dev/app/export.py", "raise ExportError('no rows')", None)
            .user("fix the test, the code is right")
            .say("Understood, adjusting the expectations.")
            .edit("/home/dev/app/tests/test_export.py", "pytest.raises(ValueError)",
                  "pytest.raises(ExportError)")
            .say("The test now expects `ExportError`.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [(
        "preference",
        "User correction (edit of export.py: `raise ExportError('no rows')` turned down): "
        '"fix the test, the code is right" '
        "Answer: The test now expects `ExportError`.")]


def test_the_words_after_a_bare_rejection_that_resume_the_same_work_teach_nothing(
        memx: Memx, repo: Path) -> None:
    """"sorry, go on then" makes the assistant redo the edit it was stopped in: no change
    of course, no correction; words after a bare rejection and no edit neither."""
    name = (Replies().user("Make the harness write real session ids.")
            .rejected_edit("/home/dev/app/harness.sh", "SESSION_ID=$(uuidgen)", None)
            .user("sorry about that, please go on")
            .edit("/home/dev/app/harness.sh", "SESSION_ID=test-1", "SESSION_ID=$(uuidgen)")
            .say("Done.")
            .rejected_run("make release", None)
            .user("the changelog needs to be updated first, right?")
            .say("Right, the changelog lists every release.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == []


def test_a_bare_rejection_turns_down_that_call_not_the_edits_before_it(
        memx: Memx, repo: Path) -> None:
    """The fix is made, then the user stops an edit of the changelog and lets the agent go
    on: the rejection turned down that call (and the words that announced it), not the
    fix already in place, which the user's confirmation then keeps."""
    name = (Replies().user("TypeError: Cannot read properties of undefined (reading 'id')")
            .edit("/repo/src/user.js", "return user.id;", "return user?.id;")
            .say("Let me also note this in the changelog.")
            .rejected_edit("/repo/CHANGELOG.md", "- `user.id` may be missing", None)
            .user("sorry, continue")
            .edit("/repo/CHANGELOG.md", "## 1.2", "## 1.2\n- a user without an id loads")
            .user("that worked, thanks")
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        "Error: TypeError: Cannot read properties of undefined (reading 'id'). Fix: edited "
        "src/user.js: `return user?.id;`; edited CHANGELOG.md: `## 1.2 - a user without an "
        "id loads`."]


def test_a_look_up_that_finds_no_path_is_no_problem(memx: Memx, repo: Path) -> None:
    """`ls docs/plans` answering "No such file or directory" tells the agent the folder is
    not there yet; making it is no fix of a failure."""
    name = (Replies().user("Add a README to the plans folder.")
            .run("ls docs/plans", "ls: docs/plans: No such file or directory", True)
            .edit("/repo/docs/plans/README.md", "", "# Plans\n\nOne file per plan.")
            .user("that worked, thanks")
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == []


def test_a_correction_the_assistant_never_acts_on_teaches_nothing(memx: Memx,
                                                                  repo: Path) -> None:
    """A pause ("wait, let's talk about this") answered with an explanation, and a skip
    ("don't worry about linting for now") followed only by reading files, change no course:
    the user speaks again before any edit or command that does more than look."""
    name = (Replies().user("Tokens are missing from the checkpoint metadata, debug it.")
            .say("The root cause: the state struct lacks the token fields.")
            .rejected_edit("/home/dev/app/state.go", "TokenUsage *Usage",
                           "wait please let's talk about this")
            .say("Sure. There are two state structs and only one has the fields.")
            .user("Does the open pull request fix this already?")
            .say("Let me check.")
            .rejected_run("make lint", "don't worry about linting for now, just continue.")
            .say("Let me look at the final state of the files.")
            .run("cat app/state.go", "package app", False)
            .run("git diff --stat", " app/state.go | 3 +++", False)
            .user("commit.")
            .write(repo))
    assert memx.ok("ingest", name).startswith("Nothing to remember in ")


def test_a_correction_acted_on_with_a_command_is_kept(memx: Memx, repo: Path) -> None:
    """Control: the same kind of words, and the assistant then runs what they asked for."""
    name = (Replies().user("Merge the parent branch in and fix the conflicts.")
            .rejected_run("git merge origin/main",
                          "no, merge from origin/feature-state instead, not main")
            .say("Understood, I'll merge `origin/feature-state` instead.")
            .run("git merge origin/feature-state", "Merge made by the 'ort' strategy.", False)
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [(
        "preference",
        'User correction (`git merge origin/main` turned down): "no, merge from '
        'origin/feature-state instead, not main" Answer: Understood, I\'ll merge '
        "`origin/feature-state` instead.")]


def _after_work(words: str) -> Replies:
    return (Replies().user("Send a telemetry event after each command.")
            .edit("/home/dev/app/telemetry.go", "func track() {}",
                  "func track() { client.Enqueue(event) }")
            .say("Each command now sends an event.")
            .user(words)
            .say("Then the key goes into the binary at build time with `-ldflags`.")
            .edit("/home/dev/app/main.go", "var apiKey string",
                  'var apiKey = "" // set with -ldflags "-X main.apiKey=..."'))


def test_a_fact_with_a_third_party_subject_is_no_correction(memx: Memx, repo: Path) -> None:
    """"The tool's users won't have the variable" tells a fact about others, not how the
    work should go: no Preference, even though an edit follows."""
    name = _after_work("once it is released, the tool users won't have POSTHOG_API_KEY in "
                       "their environment").write(repo)
    memx.ok("ingest", name)
    assert [kind for kind, _ in stored(repo)] == []


def test_we_wont_redirects_the_work(memx: Memx, repo: Path) -> None:
    """Control: with the people at work as its subject, "won't" redirects it."""
    name = _after_work("we won't read POSTHOG_API_KEY from the environment in released "
                       "builds").write(repo)
    memx.ok("ingest", name)
    assert [kind for kind, _ in stored(repo)] == ["preference"]


def _research(result: str, failed: bool) -> Replies:
    session = Replies().user("Plan telemetry for the CLI commands.")
    session.calls += 1
    session._add("assistant", [{"type": "tool_use", "id": "toolu_task", "name": "Task",
                                "input": {"prompt": "research telemetry SDKs"}}])
    session._add("user", [{"type": "tool_result", "tool_use_id": "toolu_task",
                           "content": result, "is_error": failed}])
    return (session.user("I want to replace the usage of getUserID with a machine identifier, "
                         "there is no user entity here")
            .say("Got it: a machine identifier instead of `getUserID`.")
            .edit("/home/dev/app/plans/telemetry.md", "- id: getUserID()",
                  "- id: machine identifier (hash of the machine id)"))


def test_words_after_a_call_the_user_stopped_are_a_correction(memx: Memx, repo: Path) -> None:
    """Escape while a call runs leaves "[Request interrupted by user for tool use]" as its
    result: a bare rejection, and the user's next message says how to go on instead."""
    name = _research("[Request interrupted by user for tool use]", True).write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == [(
        "preference",
        'User correction: "I want to replace the usage of getUserID with a machine '
        'identifier, there is no user entity here" Answer: Got it: a machine identifier '
        "instead of `getUserID`.")]


def test_the_same_words_after_a_finished_call_are_a_new_request(memx: Memx,
                                                                repo: Path) -> None:
    """Control: the call ran to its end; the message neither negates nor redirects."""
    name = _research("SDKs compared: posthog-go, segment.", False).write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == []


def test_an_imperative_naming_what_to_use_instead_is_a_correction(memx: Memx,
                                                                  repo: Path) -> None:
    """"merge from origin feature/state-tracking" has no negation nor question: it directs
    the work by naming the branch to use; the assistant acts on it at once."""
    name = (Replies().user("fix merge conflicts from the parent branch please")
            .rejected_run("git merge origin/main",
                          "merge from origin feature/state-tracking")
            .run("git merge origin/feature/state-tracking",
                 "CONFLICT (content): Merge conflict in app/state.go", True)
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [(
        "preference",
        'User correction (`git merge origin/main` turned down): "merge from origin '
        'feature/state-tracking".')]


def test_a_handover_naming_nothing_is_no_correction(memx: Memx, repo: Path) -> None:
    """Control: words as short that name nothing one can type or look up."""
    name = (Replies().user("fix merge conflicts from the parent branch please")
            .rejected_run("git merge origin/main", "leave that one to me")
            .run("git status", "On branch feature/type-consolidation", False)
            .run("git fetch origin", "", False)
            .write(repo))
    assert memx.ok("ingest", name).startswith("Nothing to remember in ")


def test_a_pick_that_runs_a_slash_command_is_no_decision(memx: Memx, repo: Path) -> None:
    """"Run /plan_review" chooses what the session runs next; a path ("/srv/app/config")
    in an option is no command (control, in the same session)."""
    name = (Replies().user("Plan the telemetry feature.")
            .ask("Plan ready. What would you like to do next?",
                 [("Run /plan_review", "get feedback from reviewers"),
                  ("Start /workflows:work", "begin implementing")],
                 "Run /plan_review")
            .say("Launching the review.")
            .ask("Where should the telemetry settings live?",
                 [("/srv/app/config", "next to the other settings"),
                  ("environment", "ENTIRE_TELEMETRY_* variables")],
                 "/srv/app/config")
            .say("Settings go to /srv/app/config.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [(
        "decision",
        'Chosen in a question prompt: "Where should the telemetry settings live?" → '
        "/srv/app/config (next to the other settings).")]


def _redo(again: str, path: str = "/home/dev/app/totals_test.go") -> str:
    """A loosened assertion turned down with words that neither ask, negate nor direct,
    then the assistant's next edit."""
    return (Replies().user("TestTotals fails, please fix it")
            .rejected_edit("/home/dev/app/totals_test.go",
                           "if !strings.HasPrefix(got, want) {",
                           "hm, the spec says exactly that. Try again.")
            .say("You're right, the expected total is what is off.")
            .edit(path, "x", again)
            .say("Updated the expected value."))


def test_words_with_a_rejected_edit_redone_another_way_are_a_correction(
        memx: Memx, repo: Path) -> None:
    """The next edit rewrites the same text of the same file another way: the user's words
    changed how it is done, and the memory shows the edit turned down."""
    memx.ok("ingest", _redo('if got != "total: 12.50" {').write(repo))
    assert stored(repo) == [(
        "preference",
        "User correction (edit of totals_test.go: `if !strings.HasPrefix(got, want) {` "
        "turned down): \"hm, the spec says exactly that. Try again.\".")]


@pytest.mark.parametrize("again, path", [
    ("if !strings.HasPrefix(got, want) {", "/home/dev/app/totals_test.go"),  # the same edit
    ('if got != "total: 12.50" {', "/home/dev/app/totals.go"),  # another file
])
def test_words_with_a_rejected_edit_done_again_the_same_way_teach_nothing(
        memx: Memx, repo: Path, again: str, path: str) -> None:
    memx.ok("ingest", _redo(again, path).write(repo))
    assert stored(repo) == []


def test_a_question_beside_a_bare_phrase_in_a_rejection_is_no_correction(
        memx: Memx, repo: Path) -> None:
    """"a fresh branch. is there any other way to solve this?": the question only asks,
    and what is left neither negates nor directs (control: "keep it parallel." above)."""
    name = (Replies().user("the cache test is flaky on CI, fix it")
            .rejected_edit("/home/dev/app/test_cache.py", "# no t.parallel",
                           "a fresh branch. is there any other way to solve this?")
            .say("Yes: the test could build its own temporary directory, or run alone.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == []


@pytest.mark.parametrize("words, kept", [
    ("don't run the formatter for now, just continue", False),
    ("don't run the formatter, just continue", True),
])
def test_an_instruction_for_now_is_no_lasting_preference(
        memx: Memx, repo: Path, words: str, kept: bool) -> None:
    """Words held to the moment ("for now", "this time") are a one-off; the same words
    without it are a preference once acted on."""
    name = (Replies().user("add the --long flag to the status command")
            .rejected_run("mise run fmt", words)
            .say("Continuing with the `--long` flag in `status.go`.")
            .edit("/home/dev/app/status.go", "x", "long := cmd.Flags().Bool(\"long\", false)")
            .write(repo))
    memx.ok("ingest", name)
    assert [kind for kind, _ in stored(repo)] == (["preference"] if kept else [])


ASKED = "I'd like the report command to print:\nreport\n  3 files, 2 stale\nand report --all\n  a.txt fresh\n  b.txt stale"


@pytest.mark.parametrize("again, kept", [
    # the same request amended (the summary line now heads --all too): the work missed it
    (ASKED.replace("report --all\n", "report --all\n  3 files, 2 stale\n"), True),
    (ASKED, False),  # the message sent twice: nothing amended
    ("now add a --json flag to the report command for the CI job", False),  # the next task
])
def test_a_request_restated_amended_after_the_work_is_a_correction(
        memx: Memx, repo: Path, again: str, kept: bool) -> None:
    name = (Replies().user(ASKED)
            .say("I'll change the report command.")
            .edit("/home/dev/app/report.go", "x", "printSummary(w, files)")
            .user(again)
            .say("I see: the summary line comes first under `--all` as well.")
            .edit("/home/dev/app/report.go", "x", "printSummary(w, files)\nprintEach(w, files)")
            .write(repo))
    memx.ok("ingest", name)
    found = [text for kind, text in stored(repo) if kind == "preference"]
    assert found == ([
        "User correction (the request restated): \"I'd like the report command to print: "
        "report 3 files, 2 stale and report --all 3 files, 2 stale a.txt fresh b.txt stale\" "
        "Answer: I see: the summary line comes first under `--all` as well."] if kept else [])


def test_a_question_about_another_subject_in_the_same_words_is_no_restatement(
        memx: Memx, repo: Path) -> None:
    """"Why is the nightly export job so slow?" after the same about the import job: a word
    put in another's place is another subject, and a question asks."""
    session = Replies()
    for job in ("import", "export"):
        session.user(f"Make the nightly {job} job write one batch per table")
        session.say(f"I'll batch the rows in `{job}_batch()`.")
        session.edit(f"/home/dev/jobs/{job}.py", "x", "db.run_all(rows)")
    memx.ok("ingest", session.write(repo))
    assert [kind for kind, _ in stored(repo)] == []


@pytest.mark.parametrize("words, kinds", [
    # the negation is inside the if-clause: what is asked about, no redirect of the work
    ("can we figure out if there are more event types we don't send?", []),
    ("check whether the release builds shouldn't read POSTHOG_API_KEY too", []),
    # the control: the same negation heading its own clause redirects the work
    ("we don't send the event types from the environment in released builds", ["preference"]),
])
def test_a_negation_inside_an_if_clause_is_no_correction(memx: Memx, repo: Path, words: str,
                                                         kinds: list[str]) -> None:
    memx.ok("ingest", _after_work(words).write(repo))
    assert [kind for kind, _ in stored(repo)] == kinds
