"""The agent's report of work a check bore out (reports.py, issue 24): after its edits and
a passing run, the assistant says what it changed and found; the user moving on keeps it.
Sessions are written in Claude Code's record shapes and ingested with `memx ingest` in a
real repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import Memx
from .test_reflector_replies import Replies, stored

REPORT = ("Done. `loadConfig` now decodes with `json.Decoder` and `DisallowUnknownFields()`; "
          "a misspelled key in `.app/settings.json` now stops the load and names the key.")


def worked(asked: str, path: str, edit: tuple[str, str], check: tuple[str, str]) -> Replies:
    """The user asks, the assistant edits a file and the check passes."""
    session = Replies()
    session.user(asked)
    session.edit(path, *edit)
    session.run(check[0], check[1], False)
    return session


def strict_settings() -> Replies:
    return worked("Make the parsing of .app/settings.json strict.",
                  "/home/dev/app/config/load.go",
                  ("json.Unmarshal(data, &cfg)",
                   "dec := json.NewDecoder(bytes.NewReader(data))\ndec.DisallowUnknownFields()"),
                  ("go test ./config/...", "ok  \texample.com/app/config\t0.02s"))


def test_the_report_after_a_passing_check_is_a_memory(memx: Memx, repo: Path) -> None:
    name = strict_settings().say(REPORT).user("Also add a test with a misspelled key.") \
        .write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == [("knowledge", REPORT + " (checked: `go test ./config/...` passed).")]


def test_no_check_a_failing_check_or_a_denial_keeps_no_report(memx: Memx, repo: Path) -> None:
    unchecked = Replies().user("Make the parsing of .app/settings.json strict.")
    unchecked.edit("/home/dev/app/config/load.go", "json.Unmarshal(data, &cfg)",
                   "dec := json.NewDecoder(bytes.NewReader(data))")
    unchecked.say(REPORT).user("Also add a test with a misspelled key.")
    memx.ok("ingest", unchecked.write(repo))
    assert stored(repo) == []
    failing = strict_settings()
    failing.run("go vet ./config/...", "config/load.go:12:2: unreachable code\nFAIL", True)
    failing.say(REPORT).user("Also add a test with a misspelled key.")
    memx.ok("ingest", failing.write(repo))
    assert stored(repo) == []
    denied = strict_settings().say(REPORT).user("no, that's wrong, the old keys still load")
    memx.ok("ingest", denied.write(repo))
    assert stored(repo) == []


def test_a_plan_or_a_question_after_the_check_is_no_report(memx: Memx, repo: Path) -> None:
    name = (strict_settings()
            .say("Now let me also update `docs/settings.md` to say unknown keys are rejected.")
            .say("Should `loadConfig` also reject unknown keys in `.app/local.json`?")
            .user("yes")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == []


def test_work_an_episode_made_a_memory_of_keeps_that_memory_only(
        memx: Memx, repo: Path) -> None:
    """A failing check, the edit, the same check green, the report: the episode's memory
    (with the report's words as its Why) stands for the piece of work, not a second one."""
    name = (Replies().user("The config tests fail.")
            .run("go test ./config/...", "--- FAIL: TestLoad (0.00s)\n    load_test.go:9: "
                 "want error for key \"colour\"\nFAIL\texample.com/app/config\t0.02s", True)
            .edit("/home/dev/app/config/load.go", "json.Unmarshal(data, &cfg)",
                  "dec := json.NewDecoder(bytes.NewReader(data))\ndec.DisallowUnknownFields()")
            .run("go test ./config/...", "ok  \texample.com/app/config\t0.02s", False)
            .say(REPORT)
            .user("Also add a test with a misspelled key.")
            .write(repo))
    memx.ok("ingest", name)
    assert [kind for kind, _ in stored(repo)] == ["pitfall"]


def test_a_closing_offer_is_left_out_of_the_report(memx: Memx, repo: Path) -> None:
    name = strict_settings().say(REPORT + "\n\nWould you like me to commit these changes?") \
        .user("Also add a test with a misspelled key.").write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == [("knowledge", REPORT + " (checked: `go test ./config/...` passed).")]


def test_a_long_report_keeps_its_list_of_changes(memx: Memx, repo: Path) -> None:
    """Too long for one memory: the list, from the line that introduces it, says what
    changed; the timings before it do not."""
    timings = " ".join(f"Run {n} took {100 + n} ms after the change, {800 + n} ms before it."
                       for n in range(1, 9))
    report = (timings + "\n\n**Summary of changes:**\n\n"
              "1. The telemetry client sets `ShutdownTimeout: 100ms`, so `Close()` stops "
              "waiting for the upload\n2. A no-op `Logger` hides the timeout warnings")
    name = strict_settings().say(report).user("Also add a test with a misspelled key.") \
        .write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == [("knowledge", (
        "Summary of changes: The telemetry client sets `ShutdownTimeout: 100ms`, so "
        "`Close()` stops waiting for the upload; A no-op `Logger` hides the timeout warnings "
        "(checked: `go test ./config/...` passed)."))]


def test_a_correction_answered_by_the_report_is_one_memory(memx: Memx, repo: Path) -> None:
    """The user corrects the work; the assistant's report after the edit and a green run is
    the correction's answer: one memory, the correction."""
    name = (Replies().user("Add retries to the uploader.")
            .edit("/home/dev/up/uploader.py", "def upload(f):",
                  "def upload(f):\n    # retry up to 5 times\n    # each retry waits\n")
            .say("Added retries with comments on each step.")
            .user("we don't need a comment on every line, one docstring is enough")
            .edit("/home/dev/up/uploader.py", "    # retry up to 5 times\n    # each retry waits\n",
                  '    """Upload f, retrying up to 5 times."""\n')
            .run("pytest tests/test_uploader.py", "4 passed in 0.12s", False)
            .say("Done. Replaced the line comments with one docstring on `upload()`; the "
                 "uploader tests pass.")
            .user("Also add a test with a misspelled key.")
            .write(repo))
    memx.ok("ingest", name)
    assert [kind for kind, _ in stored(repo)] == ["preference"]


def test_a_long_list_gives_up_its_last_items_before_the_closing_line(
        memx: Memx, repo: Path) -> None:
    """Too long for one memory, with a line after the list that says what the work came
    to: the list loses its last items (marked "…"), the closing line stays whole."""
    steps = "\n".join(f"{n}. Step {n} of the migration renames `table_{n}` to `item_{n}` and "
                      f"keeps a view under the old name" for n in range(1, 7))
    closing = ("The invalid `errors.Is(err, *store.NotFound)` check is gone: `Load` now "
               "uses `errors.As()`.")
    report = f"Summary of changes:\n\n{steps}\n\n{closing}"
    name = strict_settings().say(report).user("Also add a test with a misspelled key.") \
        .write(repo)
    memx.ok("ingest", name)
    kept = "; ".join(f"Step {n} of the migration renames `table_{n}` to `item_{n}` and keeps "
                     f"a view under the old name" for n in range(1, 4))
    assert stored(repo) == [("knowledge", f"Summary of changes: {kept} …; {closing} "
                                          "(checked: `go test ./config/...` passed).")]


def invoice_work() -> Replies:
    return worked("Address the review comments on the invoice PR.",
                  "/home/dev/shop/billing/invoice.py",
                  ("return round(sum(lines), 2)",
                   "return sum(line.quantize(CENT) for line in lines)"),
                  ("pytest billing", "31 passed in 0.84s"))


# The report's lead-in makes a claim of its own about why ("because …"), the agent's
# account; the parts under the file's name each say why or what instead on their own words.
LEAD = ("All green. The review failed because the ledger export changed its rounding on "
        "main last week, so here is what changed for the review:")
REVIEWED = (
    f"{LEAD}\n\n"
    "**`billing/invoice.py`:**\n"
    "1. **Rounding** — `total()` now rounds each line with `Decimal.quantize` instead of "
    "rounding the sum, so a ten-line invoice no longer drifts by a cent.\n"
    "2. **Currency codes** — `parse_amount()` raises `ValueError` on an unknown code "
    "instead of falling back to EUR.\n\n"
    "**`billing/tests/test_invoice.py`:**\n"
    "- Added `test_total_rounds_per_line` and `test_unknown_currency` with twelve cases "
    "covering every rounding mode the ledger exports, the empty invoice and a refund line.\n"
    "- Renamed the fixtures `inv_a` and `inv_b` to `invoice_eur` and `invoice_usd`.")
CHECKED = " (checked: `pytest billing` passed)."


def test_a_long_report_of_titled_parts_is_a_memory_per_part_on_its_own_words(
        memx: Memx, repo: Path) -> None:
    """Too long for one memory and made of parts (a review's comments): each part that says
    why or what instead is a memory, under the bare file name that heads it and with nothing
    of the lead-in; the parts that only add tests or rename are not memories."""
    assert len(REVIEWED) > 500
    name = invoice_work().say(REVIEWED).user("Thanks, merging.").write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == sorted([
        ("knowledge", "`billing/invoice.py`: Rounding — `total()` now rounds each line with "
                      "`Decimal.quantize` instead of rounding the sum, so a ten-line invoice no "
                      "longer drifts by a cent." + CHECKED),
        ("knowledge", "`billing/invoice.py`: Currency codes — `parse_amount()` raises "
                      "`ValueError` on an unknown code instead of falling back to EUR."
                      + CHECKED),
    ])


def test_a_lead_in_that_gives_the_why_does_not_make_its_parts_memories(
        memx: Memx, repo: Path) -> None:
    """The lead-in heads the parts directly and claims their cause; the parts only say what
    moved. The lead-in's cause is not the parts' own why: no part is a memory of its own,
    and the report stays the one memory it was."""
    moved = (
        "All green now. The merge stopped because `main` moved several things the branch "
        "used:\n\n"
        + "\n".join(f"{n}. **`{old}`** moved from the `checkpoint` package to `agent` along "
                    f"with its constructor and the helpers around it, used in {n + 2} files"
                    for n, old in enumerate(["TokenUsage", "SessionState", "Strategy",
                                             "Reader"], 1))
        + "\n\nAll tests pass on the merged tree.")
    assert len(moved) > 500
    name = invoice_work().say(moved).user("ok").write(repo)
    memx.ok("ingest", name)
    [(kind, content)] = stored(repo)
    assert kind == "knowledge" \
        and content.startswith("All green now. The merge stopped because `main` moved")


def test_the_lead_in_is_no_part_of_a_parts_memory(memx: Memx, repo: Path) -> None:
    """Control of the heading: with parts directly under the causal lead-in, each part that
    says why on its own words is a memory without the lead-in before it."""
    direct = REVIEWED.replace("**`billing/invoice.py`:**\n", "")
    name = invoice_work().say(direct).user("Thanks, merging.").write(repo)
    memx.ok("ingest", name)
    memories = [content for _, content in stored(repo)]
    assert memories == sorted([
        "Rounding — `total()` now rounds each line with `Decimal.quantize` instead of "
        "rounding the sum, so a ten-line invoice no longer drifts by a cent." + CHECKED,
        "Currency codes — `parse_amount()` raises `ValueError` on an unknown code instead of "
        "falling back to EUR." + CHECKED])
    assert not any("ledger export" in content for content in memories)


def test_a_long_report_with_one_part_that_says_why_stays_one_memory(
        memx: Memx, repo: Path) -> None:
    """Control: only one part explains, so the report is one memory (its list, cut to fit),
    as before."""
    one = REVIEWED.replace("instead of falling back to EUR", "for codes outside ISO 4217")
    name = invoice_work().say(one).user("Thanks, merging.").write(repo)
    memx.ok("ingest", name)
    [(kind, content)] = stored(repo)
    assert kind == "knowledge" and "Rounding" in content and "Currency codes" in content


BORNE = ("Done. `total()` now rounds each line with `Decimal.quantize` instead of rounding "
         "the sum, so a ten-line invoice no longer drifts by a cent.")


def test_a_command_turned_down_leaves_the_work_and_its_report(memx: Memx, repo: Path) -> None:
    """The user turns down a slow command, not the edits: the check that passed before it
    still bears the report out."""
    name = (invoice_work().rejected_run("pytest -m slow billing", "skip the slow suite here")
            .say(BORNE).user("Thanks, merging.").write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [("knowledge", BORNE + CHECKED)]


def test_an_edit_turned_down_drops_the_work_and_its_report(memx: Memx, repo: Path) -> None:
    """Control: the user turns down an edit of the work; its report is not borne out."""
    name = (invoice_work().rejected_edit("/home/dev/shop/billing/invoice.py", "CENT = 1",
                                         "leave the constant alone")
            .say(BORNE).user("Thanks, merging.").write(repo))
    memx.ok("ingest", name)
    assert ("knowledge", BORNE + CHECKED) not in stored(repo)


TOOLS = ('const (\n\tToolWrite = "write_file"\n\tToolEdit  = "edit_file"\n\tToolSave  = "save_file"\n'
         '\tToolReplace = "replace"\n)\n')
PRUNED = 'const (\n\tToolWrite = "write_file"\n\tToolReplace = "replace"\n)\n'
PRUNE_REPORT = ("Done. `edit_file` and `save_file` were removed from the tool names because "
                "the documentation does not list them.")


def pruned(then: tuple[str, str, str]) -> Replies:
    """Work that takes two constants out, a check, its report; the user's doubt; then an edit."""
    session = worked("Keep only the tool names the documentation lists.",
                     "/home/dev/cli/agent/types.go", (TOOLS, PRUNED),
                     ("go test ./agent/...", "ok  \texample.com/cli/agent\t0.03s"))
    session.say(PRUNE_REPORT).user("leave the others, I'll ask their author first")
    return session.edit(*then).say("Done.")  # type: ignore[return-value]


def test_a_report_whose_work_is_put_back_later_is_no_lesson(memx: Memx, repo: Path) -> None:
    """The constants the work took out are written back: the report no longer holds."""
    memx.ok("ingest", pruned(("/home/dev/cli/agent/types.go", PRUNED, TOOLS)).write(repo))
    assert stored(repo) == []


@pytest.mark.parametrize("then", [
    ("/home/dev/cli/docs/tools.go", PRUNED, TOOLS),  # the same lines, in another file
    ("/home/dev/cli/agent/types.go", PRUNED,  # the same file, built on
     PRUNED + "\nvar Known = []string{ToolWrite, ToolReplace}\n"),
])
def test_a_report_whose_work_a_later_edit_builds_on_is_kept(memx: Memx, repo: Path,
                                                           then: tuple[str, str, str]) -> None:
    """Controls: lines written again elsewhere, or another edit of the same file, undo
    nothing."""
    memx.ok("ingest", pruned(then).write(repo))
    assert ("knowledge", PRUNE_REPORT + " (checked: `go test ./agent/...` passed).") \
        in stored(repo)
