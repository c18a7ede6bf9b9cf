"""The agent's answer to a user's question after it read the project (answers.py, issue 24):
a question, calls that only read, then the agent's last words before the user speaks again.
Sessions are written in Claude Code's record shapes and ingested with `memx ingest`; the
controls keep every part of the structure but one."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from memx_cli.reflector.answers import grounded, items, reads, states

from .conftest import Memx
from .test_reflector_sessions import Session

LOADER = ("     1\tdef load_config(path):\n     2\t    data = _read_toml(path)\n"
          "     3\t    data = _merge_env(data, prefix=\"APP_\")\n"
          "     4\t    validate_schema(data)\n     5\t    return data\n")
ANSWER = ("`load_config()` does two things after parsing:\n\n"
          "1. **`_merge_env()`** - Overlays the `APP_` environment variables on the file's values\n"
          "2. **`validate_schema()`** - Rejects keys the schema does not list\n\n"
          "Want me to add a test for the environment overlay?")
KEPT = ("Asked \"what does `load_config` do besides parsing the file?\": `_merge_env()` - "
        "Overlays the `APP_` environment variables on the file's values; `validate_schema()` "
        "- Rejects keys the schema does not list.")


class Reading(Session):
    """A session whose agent also reads files and searches them, as Claude Code does."""

    def read(self, path: str, content: str) -> Reading:
        return self._call("Read", {"file_path": path}, content)

    def grep(self, pattern: str, output: str) -> Reading:
        return self._call("Grep", {"pattern": pattern, "output_mode": "content"}, output)

    def _call(self, tool: str, args: dict[str, object], output: str) -> Reading:
        self.calls += 1
        tid = f"toolu_{self.calls}"
        self._add("assistant", [{"type": "tool_use", "id": tid, "name": tool, "input": args}])
        self._add("user", [{"type": "tool_result", "tool_use_id": tid, "content": output}])
        return self


def asked(question: str = "what does `load_config` do besides parsing the file?") -> Reading:
    return Reading().user(question).say("Let me check the loader:")  # type: ignore[return-value]


def answers(repo: Path) -> list[str]:
    mems = [yaml.safe_load(p.read_text()) for p in (repo / ".memx" / "memories").glob("*.yaml")]
    return sorted(m["content"] for m in mems if m["content"].startswith("Asked"))


def test_an_answer_after_reading_is_a_fact_per_part(memx: Memx, repo: Path) -> None:
    name = (asked().read("/repo/app/loader.py", LOADER).say(ANSWER)
            .user("thanks, good to know").write(repo))
    memx.ok("ingest", name)
    assert answers(repo) == [KEPT]


def test_a_session_may_end_on_the_answer(memx: Memx, repo: Path) -> None:
    name = asked().read("/repo/app/loader.py", LOADER).say(ANSWER).write(repo)
    memx.ok("ingest", name)
    assert answers(repo) == [KEPT]


def test_a_disputed_hedged_or_unread_answer_is_no_fact(memx: Memx, repo: Path) -> None:
    session = (
        # disputed by the user's next word
        asked().read("/repo/app/loader.py", LOADER).say(ANSWER)
        .user("no, validate_schema runs before the overlay")
        # hedged: the agent's guess
        .user("what does `load_config` do with the environment?")
        .read("/repo/app/loader.py", LOADER)
        .say("`_merge_env()` probably overlays the `APP_` variables on the file's values.")
        .user("ok")
        # answered without reading anything
        .user("what does `_read_toml` return?")
        .say("`_read_toml()` returns a plain dict of the file's tables.")
        .user("ok")
        # not a question: an instruction
        .user("summarise load_config for me")
        .read("/repo/app/loader.py", LOADER)
        .say("`_merge_env()` overlays the `APP_` environment variables on the values.")
        .user("ok")
        # names nothing it read
        .user("where is the retry policy set?")
        .grep("retry", "No matches found")
        .say("`RetryPolicy` lives in `net/retry.go` and retries three times.")
        .user("ok"))
    memx.ok("ingest", session.write(repo))
    assert answers(repo) == []


def test_a_question_answered_with_work_or_a_lead_in_is_no_fact(memx: Memx, repo: Path) -> None:
    session = (
        # the question turned into work: an edit before the answer (a report's, if any)
        asked().read("/repo/app/loader.py", LOADER)
        .edit("/repo/app/loader.py", "    validate_schema(data)\n", "    validate_schema(data, strict=True)\n")
        .say("`validate_schema()` now rejects unknown keys in strict mode.")
        .user("ok")
        # the words before the last read were a lead-in, and no words came after it
        .user("which module calls `load_config`?")
        .say("`load_config()` is called from the CLI entry point, let me confirm.")
        .grep("load_config", "app/cli.py:9:    cfg = load_config(args.config)")
        .user("stop, never mind"))
    memx.ok("ingest", session.write(repo))
    assert answers(repo) == []


def changed_later(repo: Path, old: str, new: str) -> str:
    return (asked().read("/repo/app/loader.py", LOADER).say(ANSWER)
            .user("please make the overlay optional")
            .edit("/repo/app/loader.py", old, new)
            .say("Done.").write(repo))


def test_an_answer_the_session_then_changes_is_dropped(memx: Memx, repo: Path) -> None:
    """The code the answer describes was edited later in the session: the fact went stale."""
    memx.ok("ingest", changed_later(repo, "    data = _merge_env(data, prefix=\"APP_\")\n",
                                    "    if env:\n        data = _apply_env(data)\n"))
    assert answers(repo) == []


def test_an_answer_survives_an_edit_of_other_code(memx: Memx, repo: Path) -> None:
    memx.ok("ingest", changed_later(repo, "def load_config(path):\n",
                                    "def load_config(path, env=True):\n"))
    assert answers(repo) == [KEPT]


def test_names_listed_under_a_stating_lead_in_are_one_statement(memx: Memx, repo: Path) -> None:
    """The list's items name what the agent read but say nothing on their own; the lead-in
    says what they are. Under a lead-in led by a pronoun ("It only appears in:") they stay
    fragments, and nothing is kept."""
    grep = ("app/loader.py:3:    data = _merge_env(data)\n"
            "app/cli.py:12:def _merge_env_legacy(data):")
    session = (Reading().user("where is the environment merged?").grep("_merge_env", grep)
               .say("So there are two merge helpers:\n- `_merge_env` in app/loader.py\n"
                    "- `_merge_env_legacy` in app/cli.py")
               .user("and which one does the CLI use?").grep("_merge_env", grep)
               .say("It only appears in:\n- `_merge_env_legacy` in app/cli.py")
               .user("ok"))
    memx.ok("ingest", session.write(repo))
    assert answers(repo) == [
        "Asked \"where is the environment merged?\": There are two merge helpers: `_merge_env` "
        "in app/loader.py; `_merge_env_legacy` in app/cli.py."]


def test_items_are_parts_of_the_answer_on_their_own() -> None:
    text = ("Here's what I found:\n\n## Flow\n\n- **`sync()`** - Pushes the queue\n"
            "  - nested detail\n- `flush()` runs on exit\n\nFor a new session:\n"
            "- `Count` is zero\n\n| a | b |\n```go\nx := 1\n```\n"
            "`Store` only implements `Put` (store.go:8):\n```go\nfunc (s *Store) Put()\n```\n"
            "However, `drain()` blocks. It waits forever.")
    assert items(text) == [
        (2, "`sync()` - Pushes the queue; nested detail"), (2, "`flush()` runs on exit"),
        (5, "`Store` only implements `Put` (store.go:8)."), (6, "`drain()` blocks."),
        (7, "It waits forever.")]


def test_an_item_states_a_fact_about_what_was_read() -> None:
    assert states("`flush()` runs on exit")
    assert states("`sync()` - Pushes the queue")
    assert states("The loader has a `strict` flag.")
    for said in ("Let me check `flush()` next.", "I moved `flush()` to the end.",
                 "`flush()` might run on exit.", "Remove `flush()` from the exit path.",
                 "It waits for `flush()` forever.", "Does `flush()` run on exit?",
                 "`sync()` in the store package"):
        assert not states(said), said
    seen = "def flush(self):\n    self.queue.clear()"
    assert grounded("`flush()` clears `queue`", seen) == ("flush", "queue")
    assert grounded("`flush()` clears `backlog`", seen) == ("flush",)
    assert grounded("`<state>` is `flush`", seen) == ()  # a template's placeholder
    assert grounded("`Drain()` blocks", seen) == ()


def test_a_command_reads_when_each_part_only_looks() -> None:
    for command in ("rg -n load_config app/", "cd /repo && sed -n 1,80p app/loader.py",
                    "git log --oneline -5 -- app/loader.py", "cat app/loader.py | head -40"):
        assert reads(command), command
    for command in ("sed -i s/a/b/ app/loader.py", "cd /repo && make test",
                    "grep -n x app.py > out.txt && rm out.txt", "cd /repo"):
        assert not reads(command), command



DIAGNOSIS = ("`load_config()` overlays the `APP_` variables with `_merge_env()` after parsing, "
             "and `validate_schema()` runs last.\n\nWould you like me to make the overlay "
             "optional?")
OFFER_KEPT = ("Asked \"what does `load_config` do besides parsing the file?\": `load_config()` "
              "overlays the `APP_` variables with `_merge_env()` after parsing, and "
              "`validate_schema()` runs last.")
TAKEN = "    run(cfg)\n", "    run(cfg, strict=True)\n"


@pytest.mark.parametrize("reply, then, kept", [
    ("yes", "edit", []),  # the offer taken and the work done: the task's memory tells it
    ("thanks, good to know", "edit", [OFFER_KEPT]),  # the offer left: the answer stands
    ("yes", "ask", [OFFER_KEPT]),  # taken, but the user speaks again before any work
])
def test_an_answer_whose_offered_work_is_done_is_left_to_the_work(
        memx: Memx, repo: Path, reply: str, then: str, kept: list[str]) -> None:
    session = asked().read("/repo/app/loader.py", LOADER).say(DIAGNOSIS).user(reply)
    if then == "ask":
        session = session.user("actually, who calls it?")
    session = session.edit("/repo/app/cli.py", *TAKEN).say("Done.")
    memx.ok("ingest", session.write(repo))
    assert answers(repo) == kept



CASE_ITEMS = ("\n1. `_merge_env()` finds `APP_` variables in the environment"
              "\n2. `validate_schema()` accepts the merged keys")


@pytest.mark.parametrize("lead, kept", [
    # "The issue only manifests when:" holds its items to a case: each says nothing alone
    ("The overlay only applies when:", []),
    # the control: a lead-in that states what the items are keeps them, one statement
    ("The loader calls two helpers:", [
        "Asked \"what does `load_config` do besides parsing the file?\": `_merge_env()` finds "
        "`APP_` variables in the environment; `validate_schema()` accepts the merged keys."]),
])
def test_a_list_under_a_lead_in_ending_on_its_case_gives_nothing(
        memx: Memx, repo: Path, lead: str, kept: list[str]) -> None:
    session = asked().read("/repo/app/loader.py", LOADER).say(lead + CASE_ITEMS).user("ok")
    memx.ok("ingest", session.write(repo))
    assert answers(repo) == kept
