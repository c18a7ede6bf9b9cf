"""CI logs where people put them (issue 24). A run's page copied whole: the annotations,
then the failing steps' output one after another, each ending on the runner's verdict as
the page shows it; each tool that failed with a cause of its own is a memory, a script's
closing words on another tool's failure are none. A runner's log quoted at the end of a
report is read as one without ``--source ci``; one stamped line, a README, a conversation
quoting a log are not. Each with a control."""

from __future__ import annotations

import json
from pathlib import Path

from memx_cli.reflector import cilog

from .conftest import Memx
from .test_reflector_cilog import learned

VERDICT = "Error: Process completed with exit code 1."
# the jobs as the page lists them, each with the icon its name starts with
ANNOTATIONS = ["Annotations", "2 errors", "\U0001f50d Checks", "Process completed with exit code 1.",
               "\U0001f9ea Tests (22)", "Process completed with exit code 1."]
PRETTIER = ["Run pnpm format:check", "", "> shop@1.0.0 format:check /home/runner/work/shop/shop",
            "> prettier --check src", "", "Checking formatting...",
            "[warn] src/cart/total.ts", "[warn] src/cart/round.ts",
            "[warn] Code style issues found in 2 files. Run Prettier with --write to fix.",
            "\u2009ELIFECYCLE\u2009 Command failed with exit code 1.", VERDICT]
VITEST = [" \u2713 src/cart/empty.test.ts (3 tests) 12ms", "",
          " FAIL  src/cart/total.test.ts > cart > sums the prices",
          "AssertionError: expected 9.99 to be 10",
          " \u276f src/cart/total.test.ts:14:21", "",
          " Test Files  1 failed | 1 passed (2)", "      Tests  1 failed | 3 passed (4)", "",
          "Error: AssertionError: expected 9.99 to be 10",
          " \u276f src/cart/total.test.ts:14:21", "", VERDICT]


def test_a_copied_page_with_two_failing_tools_is_one_memory_per_tool() -> None:
    page = "\n".join([*ANNOTATIONS, "", *PRETTIER, "", "====", "", *VITEST]) + "\n"
    assert learned(page, source="ci") == [
        "The log (`pnpm format:check`, which runs `prettier --check src`) reports: "
        "Code style issues found in 2 files. Run Prettier with --write to fix: "
        "src/cart/total.ts, src/cart/round.ts.",
        "The log reports: AssertionError: expected 9.99 to be 10 at src/cart/total.test.ts:14 (test "
        "src/cart/total.test.ts > cart > sums the prices)."]
    # control: the test run alone is one memory, and the same run's words are not a second
    assert learned("\n".join(VITEST) + "\n", source="ci") == [
        "The log reports: AssertionError: expected 9.99 to be 10 at src/cart/total.test.ts:14 (test "
        "src/cart/total.test.ts > cart > sums the prices)."]


def test_a_script_s_closing_words_on_a_tool_s_failure_are_no_memory_of_their_own() -> None:
    closing = [*VITEST[:-1], "\u274c Tests failed", "\U0001f6d1 Deployment cancelled", VERDICT]
    [memory] = learned("\n".join(closing) + "\n", source="ci")
    assert memory.startswith("The log reports: AssertionError: expected 9.99 to be 10")
    # control: a tool that speaks after the tests about files of the project failed too
    after = [*VITEST[:-1], *PRETTIER]
    assert [m.split(" reports: ")[1][:30] for m in learned("\n".join(after) + "\n")] == [
        "AssertionError: expected 9.99 ", "Code style issues found in 2 f"]


REPORT_HEAD = ["# Build failure report", "", "**Status:** failed", "", "## Steps", "",
               "| Step | Status |", "|------|--------|", "| Build APK | failed |", ""] \
    + [f"Line {n} of the analysis, about the build and its dependencies." for n in range(240)]
QUOTED = ["2026-01-28T20:38:47.9104605Z lib/util/errors.dart:41:5: Error: Type 'PlayerError' "
          "not found.",
          "2026-01-28T20:38:50.5068102Z lib/util/errors.dart:12:18: Error: 'PlayerError' isn't "
          "a type.",
          *(f"2026-01-28T20:38:5{n}.1141789Z lib/pip.dart:{70 + n}:45: Error: Too many positional "
            "arguments: 0 allowed, but 1 found." for n in range(4)),
          "2026-01-28T20:38:57.5058709Z Target kernel_snapshot failed: Exception",
          "2026-01-28T20:39:10.5080817Z FAILURE: Build failed with an exception.",
          "2026-01-28T20:39:10.5088305Z Execution failed for task ':app:compileFlutterBuildRelease'.",
          "2026-01-28T20:39:10.5141745Z BUILD FAILED in 8m 18s"]


def _text(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def test_a_runner_s_log_quoted_at_the_end_of_a_report_is_read_as_a_ci_log() -> None:
    report = _text([*REPORT_HEAD, "## Appendix", "", "```", *QUOTED, "```", "", "*Generated*"])
    assert not cilog.looks_like_ci(report)  # (its first lines are the report's)
    assert cilog.reads(report, None)
    [memory] = learned(report.decode(), source=None)
    assert memory.startswith("The log reports: Too many positional arguments: 0 allowed, "
                             "but 1 found at lib/pip.dart:70 (4 times).")
    # controls: the same report quoting one stamped line, a README, a chat log with a
    # traceback, the same quoted log inside a conversation: none is a CI log
    one = _text([*REPORT_HEAD, "```", QUOTED[0], "```"])
    readme = _text(["# shop", "", "Install with `pip install shop`.", "", "## Usage", "",
                    "    shop --total cart.json", "", "Released 2024-05-02T08:00:00Z."])
    chat = _text(["User: the tests fail, see below", "Traceback (most recent call last):",
                  '  File "shop/cart.py", line 30, in total', "ValueError: bad price",
                  "Assistant: the price is parsed before it is cleaned."])
    talked = _text(["User: why does the build fail? It passed yesterday.",
                    *(f"Assistant: step {n}: I read the workflow and the lock file." for n in
                      range(20)), "User: here is the log", *QUOTED,
                    "Assistant: the PiP plugin's API changed."])
    for text in (one, readme, chat, talked):
        assert not cilog.reads(text, None)
    # and stamps that go back and forth are a list of dated items, not a run's log
    dated = _text([*REPORT_HEAD, *(line for pair in zip(QUOTED, reversed(QUOTED))
                                   for line in pair)])
    assert not cilog.reads(dated, None)


def test_a_claude_code_session_quoting_a_runner_s_log_stays_a_transcript(
        memx: Memx, repo: Path) -> None:
    said = "\n".join(QUOTED)
    session = [{"type": "user", "sessionId": "s1", "message": {"role": "user", "content":
                                                                "why does CI fail?"}},
               {"type": "assistant", "sessionId": "s1", "message": {
                   "role": "assistant", "content": [{"type": "text", "text": said}]}}]
    (repo / "s.jsonl").write_text("\n".join(json.dumps(line) for line in session) + "\n")
    out = memx.ok("ingest", "s.jsonl", "--dry-run", "--json")
    assert json.loads(out)["format"] == "jsonl"
    # control: the same lines saved as a report are read as a CI log
    (repo / "report.md").write_bytes(_text([*REPORT_HEAD, *QUOTED]))
    assert json.loads(memx.ok("ingest", "report.md", "--dry-run", "--json"))["format"] == "ci-log"
