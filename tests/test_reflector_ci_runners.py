"""CI logs as other runners and retries leave them (issue 24): a retried line is one cause
and a crash outranks it, a self-hosted runner's or a GitLab checkout's paths cut to the
project's, a GitLab job named where a header gives its name, the targets a test runner
skipped, and a third warning about a file of the project; each with a control."""

from __future__ import annotations

import io

from memx_cli.reflector import cilog
from memx_cli.reflector.cisteps import _split
from memx_cli.reflector.inputs import Reader

from .test_reflector_ci_gitlab import gitlab
from .test_reflector_ci_wrapped import run_group
from .test_reflector_cilog import gh, learned, post, raw, setup
from .test_reflector_citools import step as failing
from .test_reflector_ciwarn import green, step

WAIT = ["until curl -fsS http://localhost:8000/healthz; do", "  sleep 5", "done"]
REFUSED = "curl: (7) Failed to connect to localhost port 8000 after 2 ms: Connection refused"
# a Python service crashing at import, read through the prefix docker compose puts on it
CRASH = ["api-1  | Traceback (most recent call last):",
         'api-1  |   File "/srv/app/main.py", line 4, in <module>',
         "api-1  |     from app.settings import DATABASE_URL",
         "api-1  | ImportError: cannot import name 'DATABASE_URL' from 'app.settings'"]


def waited(crash: list[str]) -> str:
    return raw(["##[group]Run actions/checkout@v4", "##[endgroup]",
                *run_group(WAIT + ["docker compose logs api"], caret=False),
                *[REFUSED] * 9, *crash, "##[error]Process completed with exit code 1."])


def test_a_retried_line_is_one_cause_and_the_crash_it_waits_on_comes_first() -> None:
    [memory] = learned(waited(CRASH))
    assert "reports: ImportError: cannot import name 'DATABASE_URL' from 'app.settings'" \
        in memory
    assert "Also: curl: (7) Failed to connect" in memory and "9 times" not in memory
    # control: without the crash the retried line is all there is, said with its count
    [memory] = learned(waited([]))
    assert "reports: curl: (7) Failed to connect to localhost port 8000" in memory
    assert "(9 times)" in memory and "ImportError" not in memory


TSC = "{}src/cart.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'."


def test_a_self_hosted_runner_s_checkout_is_cut_to_the_project_s_paths() -> None:
    for prefix in ("/home/runner/_work/shop/shop/", "/srv/actions-runner/_work/shop/shop/",
                   "C:\\actions-runner\\_work\\shop\\shop\\"):
        log = setup("web") + gh("web", "Types", [
            "##[group]Run npx tsc --noEmit", "npx tsc --noEmit", "##[endgroup]",
            TSC.format(prefix), "##[error]Process completed with exit code 2."]) + post("web")
        [memory] = learned(log)
        assert "at src/cart.ts:12." in memory, prefix
    # control: a folder under the work folder that is not the checkout stays whole
    log = setup("web") + gh("web", "Types", [
        "##[group]Run npx tsc --noEmit", "npx tsc --noEmit", "##[endgroup]",
        TSC.format("/home/runner/_work/shop/tools/"),
        "##[error]Process completed with exit code 2."]) + post("web")
    [memory] = learned(log)
    assert "at /home/runner/_work/shop/tools/src/cart.ts:12." in memory


def fetched(into: str | None) -> str:
    """A GitLab job whose runner said where it fetched the repository (or did not)."""
    log = gitlab(["$ mypy billing",
                  "/builds/acme/payments/billing/billing/ledger.py:8: error: Name \"Entry\" "
                  "is not defined  [name-defined]", "Found 1 error in 1 file"])
    if into is None:
        return log
    return log.replace("Fetching changes with git depth set to 20...\n",
                       "Fetching changes with git depth set to 20...\n"
                       f"Initialized empty Git repository in {into}/.git/\n")


def test_a_gitlab_checkout_is_cut_where_the_runner_says_it_fetched_into() -> None:
    # the group path has no fixed depth (a subgroup here): the log's own word decides
    [memory] = learned(fetched("/builds/acme/payments/billing"))
    assert "at billing/ledger.py:8." in memory
    # control: a log that does not say where it fetched keeps the path whole
    [memory] = learned(fetched(None))
    assert "at /builds/acme/payments/billing/billing/ledger.py:8." in memory


def test_a_gitlab_job_is_named_where_a_header_over_its_log_gives_the_name() -> None:
    log = gitlab(["$ ./scripts/publish.sh", "Uploading billing-1.4.0.tar.gz",
                  "repository billing-internal: unknown credential \"deploy_token\""])
    # glab ci trace writes its own header over the runner's log
    [memory] = learned("Getting job trace...\nShowing logs for release-pypi job #8812.\n" + log)
    assert memory.startswith("CI job 'release-pypi', step 'step_script' (`./scripts/publish.sh`)")
    # a debug trace exports the job's name in the stage it runs
    traced = log.replace("Executing \"step_script\" stage of the job script\n",
                         "Executing \"step_script\" stage of the job script\n"
                         "++ export CI_JOB_NAME=release-pypi\n")
    assert learned(traced)[0].startswith("CI job 'release-pypi', step 'step_script'")
    # control: the runner's own log names no job
    [memory] = learned(log)
    assert memory.startswith("step 'step_script' (`./scripts/publish.sh`)")


INSTRUMENTED = ["> Task :app:connectedDebugAndroidTest",
                "Starting 2 tests on Galaxy Tab S9 - 14", "",
                "org.acme.ScanTest > scansBarcode[Galaxy Tab S9 - 14] FAILED",
                "\tjava.lang.SecurityException: camera permission not granted",
                "\tat org.acme.Scanner.open(Scanner.kt:22)", "",
                "> Task :app:connectedDebugAndroidTest FAILED", "", "BUILD FAILED in 40s"]


def test_the_targets_a_test_runner_skipped_are_said_with_the_failure() -> None:
    skipping = ["Skipping device 'Pixel_7_API_34' (emulator-5556): Device is UNAUTHORIZED."]
    log = "".join(f"{line}\n" for line in [*INSTRUMENTED[:1], *skipping, *INSTRUMENTED[1:]])
    [memory] = learned(log)
    assert "camera permission not granted" in memory
    assert "The run skipped device 'Pixel_7_API_34' (Device is UNAUTHORIZED)." in memory
    # control: a task Gradle skips for want of work is no target left out
    log = "".join(f"{line}\n" for line in [
        *INSTRUMENTED[:1], "Skipping task ':app:lintVital' as it has no source files.",
        *INSTRUMENTED[1:]])
    [memory] = learned(log)
    assert "skipped" not in memory


PACKAGED = ["> Task :app:mergeDebugNativeLibs",
            "2 files found for path 'lib/x86_64/libscan.so'. Future versions of the Android "
            "Gradle Plugin may throw an error in this case.", "Inputs:",
            " - /home/runner/work/acme/acme/app/src/main/jniLibs/x86_64/libscan.so",
            " - /home/runner/.gradle/caches/transforms-4/ab12/transformed/scanner-v2.4.0/jni/"
            "x86_64/libscan.so"]
BUILD = ["WARNING: Some problems were found with the signing setup:",
         "Location: keystore.path property in signing.properties file. Problem: File is missing",
         "> Task :app:processDebugMainManifest",
         "/home/runner/work/acme/acme/app/src/main/AndroidManifest.xml:9:5-40 Warning:",
         "\tandroid:debuggable should not be hardcoded in the manifest.",
         "Deprecated Gradle features were used in this build, making it incompatible with "
         "Gradle 9.0."]


def test_a_third_warning_about_a_file_of_the_project_is_kept_the_others_are_not() -> None:
    memories = learned(green("android", step("android", "Assemble", "./gradlew assembleDebug",
                                             BUILD + PACKAGED)))
    assert len(memories) == 3
    assert "libscan.so" in memories[2] and "app/…/libscan.so, scanner-v2.4.0" in memories[2]
    assert not any("Gradle 9.0" in m for m in memories)
    # control: the same warning listing only other packages' files is cut at two
    foreign = PACKAGED[:3] + [PACKAGED[4], PACKAGED[4].replace("scanner-v2.4.0", "cam-v1.1.0")]
    memories = learned(green("android", step("android", "Assemble", "./gradlew assembleDebug",
                                             BUILD + foreign)))
    assert len(memories) == 2 and not any("libscan.so" in m for m in memories)


def copied(*output: str) -> str:
    """A step copied from a run's web page: its title, its output, the runner's verdict as
    the page shows it."""
    return "".join(f"{line}\n" for line in ["Run npm run test:integration", *output])


# a Unix shell's variable assignment, which cmd.exe (a Windows job's shell) reads as a program
NOT_RECOGNIZED = ["> audio@1.2.0 test:integration", "> SUITE=integration mocha test",
                  "'SUITE' is not recognized as an internal or external command,",
                  "operable program or batch file."]


def test_a_step_copied_from_the_run_s_page_is_read_with_its_title_and_verdict() -> None:
    [memory] = learned(copied(*NOT_RECOGNIZED, "Error: Process completed with exit code 1."))
    assert memory == ("The log (`npm run test:integration`, which runs `SUITE=integration mocha "
                      "test`) reports: 'SUITE' is not recognized as an internal or external "
                      "command, operable program or batch file.")
    # control: without the runner's verdict the first line is no step's title
    [memory] = learned(copied(*NOT_RECOGNIZED))
    assert "npm run test:integration" not in memory and "is not recognized" in memory
    # control: a verdict with no words of a tool above it says nothing worth keeping
    assert learned(copied("Running tests...", "Tests completed with expected failures",
                          "Error: Process completed with exit code 1.")) == []


def paged(script: list[str], after: list[str] | None = None) -> str:
    """A GitLab job log copied from the job's page: the stages by their titles, each with
    the time it took under it, no section lines; artifacts uploaded after the failure."""
    lines = ["Running with gitlab-runner 17.9.2 (14c5775c)", "  on shared-4 Ab12Cd34",
             'Preparing the "docker" executor', "00:01", "Using Docker executor with image x",
             "Getting source from Git repository", "00:03",
             "Initialized empty Git repository in /builds/acme/platform/billing/.git/",
             "Checking out 629d5aa4 as detached HEAD (ref is main)...",
             'Executing "step_script" stage of the job script', "00:08", *script]
    if after is not None:
        lines += ["Running after_script", "00:01", *after]
    lines += ["Uploading artifacts for failed job", "00:00", "Uploading artifacts...",
              "WARNING: build.env: no matching files. Ensure that the artifact path is "
              "relative to the working directory (/builds/acme/platform/billing)",
              "ERROR: No files to upload", "Cleaning up project directory and file based "
              "variables", "00:01", "ERROR: Job failed: exit code 1"]
    return "".join(f"{line}\n" for line in lines)


MYPY = ["$ mypy billing", "/builds/acme/platform/billing/billing/ledger.py:8: error: Name "
        "\"Entry\" is not defined  [name-defined]", "Found 1 error in 1 file"]


def test_a_gitlab_log_copied_from_its_page_is_read_by_its_stage_titles() -> None:
    [memory] = learned(paged(MYPY, after=["$ echo cleanup", "cleanup"]), source=None)
    assert memory == ("step 'step_script' (`mypy billing`) failed: Name \"Entry\" is not "
                      "defined [name-defined] at billing/ledger.py:8.")
    # control: the same lines with no runner's banner are no runner's log: a log of
    # commands (``$ cmd``), left to the episode reader
    plain = paged(MYPY).split("\n", 2)[2].encode()
    assert not cilog.reads(Reader(io.BytesIO(plain), "auto", "ci.log").prepare(), "ci")


SCRIPT_FAILED = ["$ gradle build", "FAILURE: Build failed with an exception.", "",
                 "* Where:", "Build file '/builds/acme/platform/billing/build.gradle' line: 18",
                 "", "* What went wrong:",
                 "Could not compile build file '/builds/acme/platform/billing/build.gradle'.",
                 "> startup failed:", "", "* Try:", "> Run with --stacktrace option.",
                 "BUILD FAILED in 5s"]


def test_a_build_script_gradle_could_not_compile_is_placed_at_its_line() -> None:
    [memory] = learned(paged(SCRIPT_FAILED), source=None)
    # (the checkout the runner fetched into is cut out of Gradle's own words too)
    assert memory.endswith("Could not compile build file 'build.gradle'. startup failed at "
                           "build.gradle:18.")
    # control: a failure Gradle names no script for is placed nowhere
    [memory] = learned(paged([line for line in SCRIPT_FAILED if "line: 18" not in line
                              and line != "* Where:"]), source=None)
    assert memory.endswith("startup failed.")  # (its colon announced nothing)


def test_a_stamped_gitlab_trace_reads_as_the_trace_without_stamps() -> None:
    trace = gitlab(["$ ./scripts/publish.sh", "Uploading billing-1.4.0.tar.gz",
                    "repository billing-internal: unknown credential \"deploy_token\""])
    # FF_TIMESTAMPS: each line's stamp, then its stream and whether it continues the line
    stamped = "".join(f"2024-11-15T13:54:{n % 60:02d}.458225Z 00O{'+' if n % 3 else ' '}{line}\n"
                      for n, line in enumerate(trace.splitlines()))
    assert learned(stamped) == learned(trace) != []
    # control: the same letters at the start of a line with no stamp before them are text
    assert _split("00O  rows copied\n")[3] == "00O  rows copied"


def test_darts_capitalised_error_and_v8s_fatal_error_are_causes() -> None:
    # flutter build: the Dart front end's `PATH:L:C: Error: message`, then Gradle's verdict
    dart = ["Running Gradle task 'assembleRelease'...",
            "lib/net/probe.dart:88:29: Error: The argument type 'List<Link>' can't be assigned "
            "to the parameter type 'Link'.", "Target kernel_snapshot failed: Exception",
            "FAILURE: Build failed with an exception."]
    [memory] = learned(failing("android", "Build APK", "flutter build apk --release", dart))
    assert "The argument type 'List<Link>' can't be assigned to the parameter type 'Link' " \
        "at lib/net/probe.dart:88" in memory, memory
    # a test runner's worker that ran out of heap: the crash is said with the test's failure
    heap = ["FAIL  src/auth/Guard.test.tsx > Guard > shows the spinner",
            "TestingLibraryElementError: Found multiple elements with the text: Checking",
            "<--- JS stacktrace --->",
            "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
            " 1: 0xb8cf03 node::OOMErrorHandler(char const*, v8::OOMDetails const&)",
            "Error: Worker exited unexpectedly"]
    [crashed] = learned(failing("web", "Test", "npx vitest run", heap))
    assert "Also: Reached heap limit Allocation failed - JavaScript heap out of memory" \
        in crashed, crashed
    # control: the same words quoted inside a sentence, and a lower-case word after the
    # place, are not those shapes
    [quoted] = learned(failing("web", "Test", "npx vitest run", [
        "note: we saw FATAL ERROR: Reached heap limit last week",
        "src/a.ts:3:1: Errors were reported above", "Error: tests failed"]))
    assert "heap limit" not in quoted and "Errors were reported" not in quoted, quoted
