"""A build's console saved as it was (Gradle's task headers), Gradle's failed tests in its
full and short exception formats, and a cause ranked by the files it hit (issue 24); each
with a control."""

from __future__ import annotations

import io

from memx_cli.reflector import cilog
from memx_cli.reflector.inputs import Reader

from .test_reflector_cilog import learned
from .test_reflector_citools import step


def lines(*text: str) -> str:
    return "".join(f"{line}\n" for line in text)


TASKS = ["> Task :core:compileKotlin UP-TO-DATE", "> Task :core:compileJava NO-SOURCE",
         "> Task :core:classes UP-TO-DATE", "> Task :core:compileTestKotlin", ""]
VERDICT = ["> Task :core:test FAILED", "", "FAILURE: Build failed with an exception.", "",
           "* What went wrong:", "Execution failed for task ':core:test'.",
           "> There were failing tests. See the report at: file:///build/reports/tests/index.html",
           "", "BUILD FAILED in 21s"]


def _reads(text: str) -> bool:
    reader = Reader(io.BytesIO(text.encode()), "auto", "notes.txt")
    return cilog.reads(reader.prepare(), None)


def test_a_gradle_console_is_read_as_a_build_log_with_its_failed_tests_cause() -> None:
    # JUnit 5 under the `test` task, the full exception format: the exception wraps
    # another, its frames and a Caused by under it
    failed = []
    for name in ("parsesEmptyLedger()", "parsesLedgerWithTotals()"):
        failed += [f"LedgerParserTest > {name} FAILED",
                   "    java.lang.IllegalStateException: ledger schema not loaded",
                   "        at org.acme.ledger.Schema.require(Schema.kt:40)",
                   "        at org.acme.ledger.LedgerParserTest.parse(LedgerParserTest.kt:18)",
                   "",
                   "        Caused by:",
                   "        java.io.FileNotFoundException: schema/ledger-v2.json (No such file or directory)",
                   ""]
    log = lines(*TASKS, *failed, "2 tests completed, 2 failed", "", *VERDICT)
    assert _reads(log)
    [memory] = learned(log, source=None)
    # the innermost cause, under its own "Caused by:" line past a blank one
    assert "java.io.FileNotFoundException: schema/ledger-v2.json (No such file or directory) " \
        "(at org.acme.ledger.Schema.require, Schema.kt:40)" in memory
    assert "(in 2 tests)" in memory
    # control: a note that quotes one task header is a note, not a build's console
    assert not _reads(lines("We saw this on Friday:", "> Task :core:test FAILED",
                            "and reran it after the schema landed."))


def test_a_jvm_exception_wrapping_others_on_one_line_is_said_by_its_innermost() -> None:
    # Android instrumentation under Gradle: the device in brackets, ANSI colour on the
    # verdict, a tab before the exception and its frames
    failed = []
    for name in ("opensDrawer", "closesDrawer", "keepsScroll"):
        failed += [f"org.acme.ui.DrawerTest > {name}[Tablet - 14] \x1b[31mFAILED \x1b[0m",
                   "\tjava.lang.RuntimeException: java.lang.IllegalAccessError: "
                   "android.view.Choreographer.getSfInstance is hidden",
                   "\tat androidx.test.core.app.ActivityScenario.launch(ActivityScenario.java:41)",
                   ""]
    log = lines(*TASKS, "> Task :app:connectedDebugAndroidTest", *failed,
                "Tests on Tablet - 14 failed: There was 3 failure(s).", *VERDICT)
    [memory] = learned(log, source=None)
    assert "java.lang.IllegalAccessError: android.view.Choreographer.getSfInstance is hidden " \
        "(at androidx.test.core.app.ActivityScenario.launch" in memory
    assert "RuntimeException" not in memory and "(in 3 tests)" in memory
    # control: Gradle's own task verdict is no test of its own
    [task] = learned(lines(*TASKS, *VERDICT), source=None)
    assert "There were failing tests" in task and " (at " not in task


def test_gradle_s_short_exception_format_names_the_exception_and_its_line() -> None:
    log = lines(*TASKS, "CartTest > rejects an empty cart FAILED",
                "    org.opentest4j.AssertionFailedError at CartTest.kt:26", "",
                "CartTest > totals a discount FAILED",
                "    org.opentest4j.AssertionFailedError at CartTest.kt:41", "",
                "4 tests completed, 2 failed", "", *VERDICT)
    [memory] = learned(log, source=None)
    assert "org.opentest4j.AssertionFailedError (at CartTest.kt:26)" in memory
    assert "(in 2 tests)" in memory
    # control: a test line with nothing indented under it is not read as a test's failure
    [bare] = learned(lines(*TASKS, "CartTest > totals a discount FAILED", "", *VERDICT),
                     source=None)
    assert "AssertionFailedError" not in bare


def test_a_cause_that_hit_more_files_goes_before_one_repeated_in_one_file() -> None:
    # one name undefined 4 times in one file; a generated module missing from 3 files,
    # each quoting its own path: the missing module is the cause, the name beside it
    said = [f"src/report.ts({n},3): error TS2304: Cannot find name 'fmt'." for n in (4, 9, 15, 22)]
    said += [f"src/{name}.ts(1,20): error TS2307: Cannot find module './gen/{name}.pb' or its "
             "corresponding type declarations." for name in ("orders", "users", "stock")]
    [memory] = learned(step("types", "Typecheck", "npx tsc --noEmit", said))
    head, _, also = memory.partition("Also:")
    assert "Cannot find module './gen/orders.pb'" in head and "(3 times)" in head
    assert "Cannot find name 'fmt'" in also
    # control: when the undefined name is the one spread over more files, it is the cause
    spread = [f"src/{name}.ts(4,3): error TS2304: Cannot find name 'fmt'."
              for name in ("a", "b", "c", "d")]
    spread += ["src/orders.ts(1,20): error TS2307: Cannot find module './gen/orders.pb' or "
               "its corresponding type declarations."] * 2
    [other] = learned(step("types", "Typecheck", "npx tsc --noEmit", spread))
    assert "Cannot find name 'fmt'" in other.partition("Also:")[0]


def _script_error(kotlin_line: list[str]) -> list[str]:
    """A Gradle run whose Kotlin build script does not compile: the compiler's line (if it
    printed one), then the ``* Where:`` and ``* What went wrong:`` blocks, the heading
    ``Script compilation error:`` with the script's line and a caret under a blank line."""
    return ["> Configure project :plugins:radio", *kotlin_line, "",
            "FAILURE: Build failed with an exception.", "", "* Where:",
            "Build file '/home/runner/work/tv/tv/plugins/radio/build.gradle.kts' line: 12", "",
            "* What went wrong:", "Script compilation error:", "",
            "  Line 12:     pluginLabel = \"Radio\"",
            "               ^ Unresolved reference: pluginLabel", "", "1 error", "", "* Try:",
            "> Run with --stacktrace option to get the stack trace.", "", "BUILD FAILED in 41s"]


def test_a_build_script_that_does_not_compile_is_said_by_the_compilers_words() -> None:
    # Kotlin 2's `e: file:///PATH:L:C: message` (a colon after the column)
    said = ["e: file:///home/runner/work/tv/tv/plugins/radio/build.gradle.kts:12:5: "
            "Unresolved reference: pluginLabel"]
    [memory] = learned(step("build", "Build plugins", "./gradlew make", _script_error(said)))
    assert memory == ("CI job 'build', step 'Build plugins' (`./gradlew make`) failed: "
                      "Unresolved reference: pluginLabel at plugins/radio/build.gradle.kts:12.")
    # without the compiler's line, Gradle's heading is said with the caret's words under it
    [heading] = learned(step("build", "Build plugins", "./gradlew make", _script_error([])))
    assert "Script compilation error: Unresolved reference: pluginLabel at " \
        "plugins/radio/build.gradle.kts:12" in heading, heading
    # control: a block that is no heading is said as it is, without the paragraph under it
    [task] = learned(step("build", "Build plugins", "./gradlew make", [
        "FAILURE: Build failed with an exception.", "", "* What went wrong:",
        "Execution failed for task ':plugins:radio:compileKotlin'.", "",
        "  Line 12: not part of it", "", "BUILD FAILED in 41s"]))
    assert "Execution failed for task ':plugins:radio:compileKotlin'" in task
    assert "Line 12" not in task, task
