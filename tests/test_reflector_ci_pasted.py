"""A run's page copied whole (issue 24): the annotations, then the failing steps' output one
after another, each ending on the runner's verdict as the page shows it. Each tool that
failed with a cause of its own is a memory; a script's closing words on another tool's
failure, and a tool that only repeats another's words, are none. Each with a control."""

from __future__ import annotations

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
