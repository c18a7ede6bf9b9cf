"""CI failures that are no failing test (issue 24): a coverage gate over passing tests, a
step's own time limit, a token permission an action asks for, the legs fail-fast
cancelled, and Vitest's annotations as a run's page lists them. Each with its control."""

from __future__ import annotations

from .test_reflector_cilog import gh, learned, post, raw, setup

COVERED = [
    "##[group]Run pytest tests/core -q --cov=shop.core", "pytest tests/core -q --cov=shop.core",
    "shell: /usr/bin/bash -e {0}", "##[endgroup]",
    "........................................................................ [ 50%]",
    "......................................sss...",
    "ERROR: Coverage failure: total of 41 is less than fail-under=85",
    "                                                                         [100%]",
    "Name                  Stmts   Miss  Cover", "shop/core/cart.py        40      0   100%",
    "shop/views.py           60     60     0%", "TOTAL                  100     60    41%",
    "FAIL Required test coverage of 85% not reached. Total coverage: 40.63%",
]


def test_a_coverage_gate_over_passing_tests_says_the_tests_passed_and_the_exact_total() -> None:
    log = setup("core") + gh("core", "Tests", [
        *COVERED, "112 passed, 3 skipped in 9.31s",
        "##[error]Process completed with exit code 1."]) + post("core")
    [memory] = learned(log)
    assert memory.startswith("CI job 'core', step 'Tests' (`pytest tests/core -q --cov=shop.core`) "
                             "failed: Coverage failure: total of 41 is less than fail-under=85 — "
                             "every test passed (112 passed, 3 skipped).")
    # pytest-cov's telling gives the total coverage.py rounded; pytest's progress column
    # pushed under the gate's line is no word of it
    assert memory.endswith("Also: FAIL Required test coverage of 85% not reached. "
                           "Total coverage: 40.63%.")
    assert "[100%]" not in memory


def test_a_coverage_gate_beside_failing_tests_claims_no_passing_run() -> None:
    # control: the same gate, but the run's count opens with failures
    log = setup("core") + gh("core", "Tests", [
        *COVERED, "1 failed, 111 passed in 9.31s",
        "##[error]Process completed with exit code 1."]) + post("core")
    [memory] = learned(log)
    assert "every test passed" not in memory
    assert "fail-under=85" in memory


def test_a_second_telling_of_the_gate_with_the_same_figures_is_not_said_again() -> None:
    # control: two tools saying the gate with no figure the first lacks
    log = setup("core") + gh("core", "Tests", [
        "##[group]Run coverage report --fail-under=85", "coverage report --fail-under=85",
        "##[endgroup]", "TOTAL                  100     60    40%",
        "Coverage failure: total of 40 is less than fail-under=85",
        "Coverage failure: total of 40 is less than fail-under=85 (after combine)",
        "##[error]Process completed with exit code 2."]) + post("core")
    [memory] = learned(log)
    assert "Also:" not in memory


def test_a_step_over_its_own_time_limit_timed_out() -> None:
    log = raw(["Complete job name: e2e", "##[group]Run npx playwright test",
               "npx playwright test", "##[endgroup]",
               "  ✓  6136 [mobile] › tests/e2e/banner.spec.ts:894:7 › keeps its row",
               "##[error]The action 'Run npx playwright test' has timed out after 150 minutes."])
    [memory] = learned(log)
    assert "timed out ('The action 'Run npx playwright test' has timed out after 150 " \
           "minutes')" in memory


def test_a_step_cancelled_by_hand_is_no_time_out() -> None:
    # control: the runner's cancel without a time limit, while the step was busy
    log = raw(["Complete job name: e2e", "##[group]Run npx playwright test",
               "npx playwright test", "##[endgroup]",
               "  ✓  6136 [mobile] › tests/e2e/banner.spec.ts:894:7 › keeps its row",
               "##[error]The operation was canceled."])
    assert not any("timed out" in memory for memory in learned(log))


def test_a_refused_upload_names_no_permission_a_later_warning_asks_for() -> None:
    # the warning names the least the action's API endpoints need ('read'); the upload
    # that was refused needs 'write': a note from it would send the reader the wrong way
    log = setup("sast") + gh("sast", "Upload SARIF", [
        "##[group]Run github/codeql-action/upload-sarif@v3", "with:", "  sarif_file: sast.sarif",
        "##[endgroup]", "Uploading results",
        "##[warning]Resource not accessible by integration - https://docs.github.com/rest",
        "##[error]Resource not accessible by integration - https://docs.github.com/rest",
        "##[warning]This run of the CodeQL Action does not have permission to access the "
        "CodeQL Action API endpoints. Please ensure the workflow has at least the "
        "'security-events: read' permission."]) + post("sast")
    [memory] = learned(log)
    assert "Resource not accessible by integration" in memory
    assert "security-events" not in memory


def test_a_refusal_with_no_permission_named_after_it_gets_no_such_note() -> None:
    # control: a later warning about something else names no permission
    log = setup("sast") + gh("sast", "Upload SARIF", [
        "##[group]Run github/codeql-action/upload-sarif@v3", "##[endgroup]", "Uploading results",
        "##[error]Resource not accessible by integration - https://docs.github.com/rest",
        "##[warning]Node.js 20 actions are deprecated: 'actions/checkout: v4'."]) + post("sast")
    [memory] = learned(log)
    assert "Resource not accessible by integration" in memory
    assert "asks for" not in memory


ANNOTATIONS = [
    "Annotations", "11 errors", "Run Tests (22)", "Process completed with exit code 1.",
    *[line for n, test in enumerate(("echoes messages", "rejects unmatched path",
                                      "enforces maxConnections"))
      for line in (f"src/ws.test.ts > WsPlugin > {test}: src/ws.test.ts#L{25 + 20 * n}",
                   f"ReferenceError: WebSocket is not defined ❯ src/ws.test.ts:{25 + 20 * n}:16")],
    "src/paths.test.ts > Paths > mtime: src/paths.test.ts#L280",
    "AssertionError: expected 1759289246888 to be less than or equal to 1759289246887 "
    "❯ src/paths.test.ts:280:33",
]


def test_vitest_annotations_are_failed_tests_and_the_cause_names_the_file_they_share() -> None:
    log = "".join(f"{line}\n" for line in [
        *ANNOTATIONS, "Run Tests (20)",
        'The strategy configuration was canceled because "test._22" failed'])
    [memory] = learned(log)
    assert memory.startswith("The log reports: ReferenceError: WebSocket is not defined "
                             "(in 3 tests of src/ws.test.ts) — fail-fast cancelled the other "
                             "matrix legs because 'test._22' failed.")
    assert "Also: AssertionError: expected 1759289246888 to be less than or equal to " \
           "1759289246887 (test src/paths.test.ts > Paths > mtime)" in memory
    assert "❯" not in memory


def test_tests_of_several_files_name_no_one_file_and_no_fail_fast_unsaid() -> None:
    # control: the same error in tests of two files, and no leg cancelled
    log = "".join(f"{line}\n" for line in [
        "src/a.test.ts > A > one: src/a.test.ts#L5",
        "ReferenceError: WebSocket is not defined ❯ src/a.test.ts:5:3",
        "src/b.test.ts > B > two: src/b.test.ts#L9",
        "ReferenceError: WebSocket is not defined ❯ src/b.test.ts:9:3"])
    [memory] = learned(log)
    assert "(in 2 tests)" in memory
    assert "fail-fast" not in memory


def test_vitest_console_arrow_under_an_error_places_it() -> None:
    log = "".join(f"{line}\n" for line in [
        "TypeError: cart.total is not a function", " ❯ src/cart.ts:30:12", "",
        " Test Files  1 failed (1)"])
    [memory] = learned(log)
    assert "TypeError: cart.total is not a function at src/cart.ts:30" in memory


def test_vitest_verdict_on_a_test_is_not_said_again_as_another_cause() -> None:
    # Vitest's default reporter marks the failed test with its time, then prints why in
    # its FAIL block: the marked line is the verdict, not a second cause
    log = "".join(f"{line}\n" for line in [
        " ❯ src/auth.test.tsx (3 tests | 1 failed) 40ms",
        "   × src/auth.test.tsx > Route > shows a spinner 11ms", "",
        "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯", "",
        " FAIL  src/auth.test.tsx > Route > shows a spinner",
        "TestingLibraryElementError: Found multiple elements with the text: Loading", "",
        " Test Files  1 failed (1)"])
    [memory] = learned(log)
    assert "Found multiple elements with the text: Loading" in memory
    assert "11ms" not in memory and "Also:" not in memory


def test_a_marked_error_that_is_no_test_verdict_is_still_a_cause() -> None:
    # control: the same mark before words of its own
    log = "".join(f"{line}\n" for line in [
        "src/build.ts", "  × Expected ';', got 'ident'", "", "Build failed"])
    [memory] = learned(log)
    assert "Expected ';', got 'ident'" in memory


def test_vitest_frames_after_an_error_are_no_words_of_it() -> None:
    log = "".join(f"{line}\n" for line in [
        "Error: Worker exited unexpectedly ❯ ChildProcess.onUnexpectedExit "
        "node_modules/tinypool/dist/index.js:118:30 ❯ ChildProcess.emit node:events:536:35",
        "", " Test Files  1 failed (1)"])
    [memory] = learned(log)
    assert "Worker exited unexpectedly." in memory
    assert "ChildProcess" not in memory and "tinypool" not in memory
