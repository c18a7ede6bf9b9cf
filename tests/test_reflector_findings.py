"""What the agent found out from the output it read (findings.py, issue 24): a statement
right after a file read or a command's output, quoting code that occurs in that output,
acted on with an accepted edit and not turned down, is a Fact. Sessions are written in
Claude Code's record shapes and ingested with `memx ingest` in a real repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import Memx
from .test_reflector_replies import Replies, stored

SETTINGS = ("[worker]\nmax_inflight = 8\nretry_backoff = \"exp\"\n\n[worker.env]\n"
            "# QUEUE_MAX_INFLIGHT is read once at import, before this file is loaded\n")
FOUND = ("The worker takes `max_inflight` from `[worker]` in this file, "
         "and `QUEUE_MAX_INFLIGHT` is read before the file is loaded.")
MEMORY = f"Found in `conf/queue.toml`: {FOUND}"


class Reading(Replies):
    def read(self, path: str, output: str) -> Reading:
        """A Read call and the file's text as its result."""
        self.calls += 1
        tid = f"toolu_{self.calls}"
        self._add("assistant", [{"type": "tool_use", "id": tid, "name": "Read",
                                 "input": {"file_path": path}}])
        self._add("user", [{"type": "tool_result", "tool_use_id": tid, "content": output}])
        return self


def reading(said: str = FOUND) -> Reading:
    session = Reading()
    session.user("The queue worker ignores the inflight limit I set. Can you look?")
    session.read("/repo/conf/queue.toml", SETTINGS)
    session.say(said)
    return session


def acted(session: Reading) -> Reading:
    session.edit("/repo/worker/limits.py", "limit = env_limit()",
                 "limit = settings.worker.max_inflight")
    return session


def test_a_finding_from_a_file_read_acted_on_is_a_fact(memx: Memx, repo: Path) -> None:
    name = acted(reading()).user("Thanks. Next: add a metric for retries.").write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == [("knowledge", MEMORY)]


def test_a_finding_kept_when_the_session_ends_after_the_edit(memx: Memx, repo: Path) -> None:
    name = acted(reading()).write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == [("knowledge", MEMORY)]


def test_a_finding_nobody_acted_on_is_no_fact(memx: Memx, repo: Path) -> None:
    """The control: the same words, but the user speaks before any edit."""
    name = reading().user("Thanks. Next: add a metric for retries.").write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == []


def test_a_finding_turned_down_or_denied_is_no_fact(memx: Memx, repo: Path) -> None:
    rejected = reading().rejected_edit("/repo/worker/limits.py",
                                       "limit = settings.worker.max_inflight", None)
    rejected.user("Thanks. Next: add a metric for retries.")
    memx.ok("ingest", rejected.write(repo))
    assert stored(repo) == []
    denied = acted(reading()).user("no, that's wrong: the env var wins, read it again")
    memx.ok("ingest", denied.write(repo))
    assert stored(repo) == []
    still = acted(reading()).user("It still ignores the limit.")
    memx.ok("ingest", still.write(repo))
    assert stored(repo) == []


def test_a_claim_about_code_the_output_does_not_hold_is_no_fact(memx: Memx, repo: Path) -> None:
    """`inflight_cap` occurs in nothing the agent read: a claim, not a finding."""
    name = acted(reading("The worker takes `inflight_cap` from the environment before "
                         "anything else is loaded.")).user("Thanks.").write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == []


@pytest.mark.parametrize("said", [
    "Let me check where `max_inflight` is used in the worker module.",
    "I see that `max_inflight` is set to 8 in the worker section.",
    "The worker probably reads `max_inflight` only once at start-up.",
    "The worker should read `max_inflight` from the settings instead.",
    "Now `max_inflight` comes from the settings file for every worker.",
    "Added `max_inflight` to the settings loader and its defaults.",
    "Good, `max_inflight` is already set to 8 in the worker section.",
    "Looking at the file: `max_inflight = 8` sits under the worker section.",
    "Where does the worker read `max_inflight` from at start-up?",
    "Update the `max_inflight` lookup so the worker reads the settings.",
    "Here is what the file sets for `max_inflight` in the worker:",
])
def test_narration_plans_hedges_and_reports_are_no_finding(
        memx: Memx, repo: Path, said: str) -> None:
    name = acted(reading(said)).user("Thanks. Next: add a metric for retries.").write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == []


def test_code_the_user_named_or_the_agent_wrote_is_no_finding(memx: Memx, repo: Path) -> None:
    asked = Reading().user("Where does `max_inflight` come from?")
    asked.read("/repo/conf/queue.toml", SETTINGS)
    asked.say("The worker takes `max_inflight` from the worker section of the settings.")
    memx.ok("ingest", acted(asked).user("Thanks.").write(repo))
    assert stored(repo) == []
    written = reading("The loader's `settings.worker.max_inflight` is the value every "
                      "worker uses.")
    written.edit("/repo/worker/limits.py", "limit = env_limit()",
                 "limit = settings.worker.max_inflight")
    written.run("grep -rn max_inflight worker/", "worker/limits.py:3:limit = "
                "settings.worker.max_inflight", False)
    written.say("The loader's `settings.worker.max_inflight` is the value every worker uses.")
    memx.ok("ingest", acted(written).user("Thanks.").write(repo))
    assert stored(repo) == []


def test_a_finding_said_again_is_one_memory(memx: Memx, repo: Path) -> None:
    """The same setting said again, beside what else the agent saw, adds nothing."""
    name = acted(reading()).say(
        "The `retry_backoff` setting is `exp` for every worker. "
        "So `max_inflight` in `[worker]` and `QUEUE_MAX_INFLIGHT` are both read.")
    acted(name).user("Thanks. Next: add a metric for retries.")
    memx.ok("ingest", name.write(repo))
    assert stored(repo) == [("knowledge", MEMORY)]


def listing(failed: bool) -> Reading:
    name = Reading().user("Why is the release build missing the icons?")
    name.run("tar -tzf dist/app-1.4.tar.gz | head", "app-1.4/setup.py\napp-1.4/app/__init__.py\n"
             "app-1.4/MANIFEST.in", failed)
    name.say("The sdist holds `MANIFEST.in` but no icon files, so the package data is "
             "left out of the archive.")
    name.edit("/repo/MANIFEST.in", "include README.md", "include README.md\n"
              "recursive-include app/icons *.png")
    return name.user("Thanks, that's it.")


def test_a_command_output_is_named_by_its_command(memx: Memx, repo: Path) -> None:
    memx.ok("ingest", listing(False).write(repo))
    assert stored(repo) == [(
        "knowledge", "Found in `tar -tzf dist/app-1.4.tar.gz | head`: The sdist holds "
        "`MANIFEST.in` but no icon files, so the package data is left out of the archive.")]


def test_what_a_failing_run_printed_gives_no_finding(memx: Memx, repo: Path) -> None:
    """The control: the same output from a run that failed is error evidence."""
    memx.ok("ingest", listing(True).write(repo))
    assert stored(repo) == []


def parsing(said: str) -> Reading:
    name = Reading().user("The date parsing tests fail.")
    name.run("pytest tests/test_parse.py", "FAILED tests/test_parse.py::test_utc - ValueError: "
             "unconverted data remains: Z\n1 failed in 0.05s", True)
    name.read("/repo/app/parse.py", 'STAMP_FORMAT = "%Y-%m-%dT%H:%M:%S"\n')
    name.say(said)
    name.edit("/repo/app/parse.py", 'STAMP_FORMAT = "%Y-%m-%dT%H:%M:%S"',
              'STAMP_FORMAT = "%Y-%m-%dT%H:%M:%S%z"')
    name.run("pytest tests/test_parse.py", "3 passed in 0.04s", False)
    name.user("Thanks. Next: the CSV export.")
    return name


@pytest.mark.parametrize("said", [
    # a statement quoting the code the edit then changes: diagnosis.py's Why
    '`STAMP_FORMAT` stops at `%H:%M:%S"` while the stamps carry `%S%z` at their end.',
    # a cause: diagnosis.py's, never a finding
    "The issue is that `STAMP_FORMAT` ends at the seconds, so the trailing Z of every UTC "
    "stamp is left over.",
])
def test_what_a_diagnosis_tells_is_one_memory(memx: Memx, repo: Path, said: str) -> None:
    memx.ok("ingest", parsing(said).write(repo))
    kept = stored(repo)
    assert [kind for kind, _ in kept] == ["pitfall"]
    assert said.split(" ", 1)[1][:30] in kept[0][1]


def test_a_search_is_named_by_its_pattern(memx: Memx, repo: Path) -> None:
    name = Reading().user("The nightly import stops after the first batch.")
    name.calls += 1
    name._add("assistant", [{"type": "tool_use", "id": "toolu_grep", "name": "Grep",
                             "input": {"pattern": "def next_batch", "path": "/repo/importer"}}])
    name._add("user", [{"type": "tool_result", "tool_use_id": "toolu_grep", "content":
                        "importer/batches.py:41:def next_batch(cursor, size=500):"}])
    name.say("The `next_batch(cursor, size=500)` helper takes the cursor the caller passes "
             "and never advances it.")
    name.edit("/repo/importer/batches.py", "return rows", "cursor.advance(len(rows))\n"
              "    return rows")
    memx.ok("ingest", name.user("Thanks. Next: the CSV export.").write(repo))
    assert stored(repo) == [(
        "knowledge", "Found searching for `def next_batch`: The `next_batch(cursor, size=500)` "
        "helper takes the cursor the caller passes and never advances it.")]
