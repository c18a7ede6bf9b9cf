"""CI logs as people save them (issue 24): ``gh run view --log`` and raw Actions job logs,
plain tool output; each failure with the line that explains it, never an invented fix;
setup, passing steps and cascades teach nothing of their own."""

from __future__ import annotations

import codecs
import io
from pathlib import Path

import yaml

from memx_cli.reflector import cilog
from memx_cli.reflector.inputs import Reader
from memx_cli.reflector.pipeline import Reflector, Settings

from .conftest import Memx

STAMP = "2024-05-02T08:{:02d}:{:02d}.1234567Z"


def gh(job: str, step: str, lines: list[str], minute: int = 0) -> str:
    """Lines as `gh run view --log` prints them: job, step, timestamp, text."""
    return "".join(f"{job}\t{step}\t{STAMP.format(minute, n % 60)} {line}\n"
                   for n, line in enumerate(lines))


def setup(job: str) -> str:
    return gh(job, "Set up job", [
        "Current runner version: '2.316.1'", "##[group]Runner Image", "Image: ubuntu-22.04",
        "Version: 20240428.1.0", "##[endgroup]", "##[group]GITHUB_TOKEN Permissions",
        "Contents: read", "##[endgroup]"]) + gh(job, "Run actions/checkout@v4", [
        "##[group]Run actions/checkout@v4", "with:", "  repository: acme/shop", "##[endgroup]",
        "hint: Using 'master' as the name for the initial branch. This default branch name",
        "hint: is subject to change. To configure the initial branch name to use in all",
        "Note: switching to 'refs/remotes/pull/7/merge'."])


def post(job: str) -> str:
    return gh(job, "Post Run actions/checkout@v4", [
        "Post job cleanup.", "[command]/usr/bin/git version", "git version 2.44.0",
        "[command]/usr/bin/git config --local --unset-all http.https://github.com/.extraheader"])


PYTEST_STEP = [
    "##[group]Run pytest -q --cov=shop --cov-fail-under=80", "pytest -q --cov=shop --cov-fail-under=80",
    "shell: /usr/bin/bash -e {0}", "env:", "  pythonLocation: /opt/hostedtoolcache/Python/3.12.3/x64",
    "##[endgroup]", "..FF..",
    "=================================== FAILURES ===================================",
    "_________________________________ test_total __________________________________",
    "tests/test_cart.py:12: in test_total", "    assert cart.total() == 10",
    "shop/cart.py:30: in total", "    return sum(Decimal(p) for p in self.prices)",
    "E   decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]",
    "_________________________________ test_empty __________________________________",
    "shop/cart.py:30: in total", "    return sum(Decimal(p) for p in self.prices)",
    "E   decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]",
    "FAIL Required test coverage of 80% not reached. Total coverage: 61.20%",
    "=========================== short test summary info ============================",
    "FAILED tests/test_cart.py::test_total - decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]",
    "FAILED tests/test_cart.py::test_empty - decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]",
    "2 failed, 4 passed in 0.52s", "##[error]Process completed with exit code 1."]


def learned(log: str | bytes, source: str | None = "ci") -> list[str]:
    raw = log.encode() if isinstance(log, str) else log
    reader = Reader(io.BytesIO(raw), "auto", "ci.log")
    head = reader.prepare()
    assert cilog.reads(head, source)
    items = Reflector(Settings()).reflect_candidates(
        cilog.candidates(reader.numbered_lines(), head))
    return [item.content for item in items]


def test_a_failing_step_is_one_memory_with_its_job_step_command_and_diagnosis() -> None:
    log = setup("test") + gh("test", "Tests", PYTEST_STEP) + post("test")
    [memory] = learned(log)
    assert memory.startswith("CI job 'test', step 'Tests' (`pytest -q --cov=shop "
                             "--cov-fail-under=80`) failed: decimal.InvalidOperation: [<class "
                             "'decimal.ConversionSyntax'>] at shop/cart.py:30 (`return "
                             "sum(Decimal(p) for p in self.prices)`) (in 2 tests).")
    # the coverage gate is reported with it, not as a second problem
    assert memory.endswith("Also: FAIL Required test coverage of 80% not reached. Total "
                           "coverage: 61.20%.")
    for runner_line in ("Runner Image", "ubuntu-22.04", "hint:", "extraheader",
                        "pythonLocation", "Fix:"):
        assert runner_line not in memory


def test_setup_checkout_and_passing_steps_teach_nothing() -> None:
    log = setup("build") + gh("build", "Build", [
        "##[group]Run npm run build", "npm run build", "##[endgroup]",
        "> shop@1.0.0 build", "warning: 3 deprecated packages", "built in 2.1s"]) + post("build")
    assert learned(log) == []


def test_one_cause_in_every_matrix_job_is_one_memory() -> None:
    log = "".join(setup(job) + gh(job, "Tests", PYTEST_STEP) + post(job)
                  for job in ("test (3.11)", "test (3.12)"))
    [memory] = learned(log)
    assert memory.startswith("CI job 'test (3.11)', 'test (3.12)', step 'Tests'")


def test_an_aggregate_job_is_context_of_the_real_failure_never_a_memory_of_its_own() -> None:
    status = gh("all-green", "Check", [
        "##[group]Run echo \"tests: failure\"", "echo \"tests: failure\"",
        "echo \"docs: success\"", "exit 1", "##[endgroup]",
        "tests: failure", "docs: success", "##[error]Process completed with exit code 1."])
    # fail-fast: a matrix job stopped while it was busy, because the other one failed
    stopped = gh("tests (3.12)", "Tests", ["##[group]Run pytest -q", "pytest -q", "##[endgroup]",
                                           "....", "##[error]The operation was canceled."])
    log = gh("tests (3.11)", "Tests", PYTEST_STEP) + stopped + status
    [memory] = learned(log)
    assert memory.startswith("CI job 'tests (3.11)', step 'Tests'")
    assert memory.endswith("Job 'all-green' only aggregates other jobs' results and failed "
                           "because tests failed (a cascade).")
    [alone] = learned(status)
    assert alone == ("CI job 'all-green' only aggregates other jobs' results and fails when "
                     "one of them failed (here: tests): the cause is in those jobs' logs.")


def test_a_timeout_says_how_long_the_step_was_silent_and_what_it_said_last() -> None:
    stamp = "2024-05-02T09:{:02d}:00.0000000Z "
    log = (f"\ufeff{stamp.format(0)}Current runner version: '2.316.1'\n"
           f"{stamp.format(0)}Complete job name: e2e\n"
           f"{stamp.format(1)}##[group]Run ./scripts/start-api.sh\n"
           f"{stamp.format(1)}./scripts/start-api.sh\n"
           f"{stamp.format(1)}shell: /usr/bin/bash -e {{0}}\n{stamp.format(1)}##[endgroup]\n"
           f"{stamp.format(2)}Listening on :8080\n"
           f"{stamp.format(20)}##[error]The operation was canceled.\n"
           f"{stamp.format(20)}Post job cleanup.\n"
           f"{stamp.format(20)}##[error]The job running on runner GitHub Actions 4 has "
           "exceeded the maximum execution time of 20 minutes.\n")
    [memory] = learned(log)
    assert memory == ("CI job 'e2e' (`./scripts/start-api.sh`) timed out ('The job running on "
                      "runner GitHub Actions 4 has exceeded the maximum execution time of 20 "
                      "minutes'), with no output for 18 min before the cancel; its last line "
                      "was 'Listening on :8080': the command never finished.")


def test_lint_type_check_dependency_and_permission_failures_keep_their_diagnostic() -> None:
    eslint = gh("lint", "ESLint", [
        "##[group]Run npx eslint src", "npx eslint src", "##[endgroup]", "",
        "/home/runner/work/shop/shop/src/cart.ts",
        "  8:7  error  'unused' is assigned a value but never used  no-unused-vars",
        "  9:1  warning  Unexpected console statement  no-console", "",
        "\u2716 2 problems (1 error, 1 warning)", "##[error]Process completed with exit code 1."])
    assert learned(eslint) == ["CI job 'lint', step 'ESLint' (`npx eslint src`) failed: 'unused' "
                               "is assigned a value but never used (no-unused-vars) at "
                               "src/cart.ts:8 — 2 problems in all: 1 error, 1 warning."]
    tsc = ("src/cart.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n"
           "Found 1 error in src/cart.ts:3\n")
    assert learned(tsc) == ["The log reports: error TS2322: Type 'string' is not assignable to "
                            "type 'number' at src/cart.ts:3."]
    npm = gh("e2e", "Install", [
        "##[group]Run npm ci", "npm ci", "##[endgroup]", "npm error code ERESOLVE",
        "npm error ERESOLVE could not resolve", "npm error", "npm error While resolving: shop@1.0.0",
        "npm error Found: react@19.1.0", "npm error node_modules/react",
        "npm error   react@\"^19.1.0\" from the root project", "npm error",
        "npm error Could not resolve dependency:",
        "npm error peer react@\"^18.0.0\" from charts@2.3.0", "npm error node_modules/charts",
        "npm error", "npm error Fix the upstream dependency conflict, or retry",
        "npm error this command with --force or --legacy-peer-deps",
        "npm error A complete log of this run can be found in: /home/runner/.npm/_logs/x.log",
        "##[error]Process completed with exit code 1."])
    # the facts npm lists (what it resolved, what it found, the requirement it could not
    # meet), not its advice or the address of its own log
    assert learned(npm) == ["CI job 'e2e', step 'Install' (`npm ci`) failed: npm error: code "
                            "ERESOLVE; ERESOLVE could not resolve; While resolving: shop@1.0.0; "
                            "Found: react@19.1.0; Could not resolve dependency: peer "
                            "react@\"^18.0.0\" from charts@2.3.0."]
    push = gh("release", "Tag", [
        "##[group]Run git push origin v2.0.0", "git push origin v2.0.0", "##[endgroup]",
        "remote: Permission to acme/shop.git denied to github-actions[bot].",
        "##[error]Process completed with exit code 128."])
    assert learned(push) == ["CI job 'release', step 'Tag' (`git push origin v2.0.0`) failed: "
                             "remote: Permission to acme/shop.git denied to "
                             "github-actions[bot]."]


def test_a_crash_at_a_prompt_says_the_run_could_not_answer_it() -> None:
    out = ("Installing missing stub packages:\n/usr/bin/python3 -m pip install types-requests\n\n"
           "Install? [yN] Traceback (most recent call last):\n"
           '  File "/home/dev/shop/.venv/bin/mypy", line 8, in <module>\n'
           "    sys.exit(console_entry())\n"
           "EOFError: EOF when reading a line\n")
    assert learned(out) == ["The log reports: EOFError: EOF when reading a line — it stopped at "
                            "the prompt 'Install? [yN]', which a non-interactive run cannot "
                            "answer."]


def test_a_log_of_commands_and_reruns_stays_with_the_episode_reader() -> None:
    reruns = "$ npm test\nError: Cannot find module 'zod'\n[exit 1]\n$ npm i zod\n[exit 0]\n"
    assert not cilog.reads(reruns.encode(), "ci")
    assert not cilog.reads(b"plain notes about the build", None)


def test_a_utf16_gh_log_is_ingested_as_a_ci_failure(memx: Memx, repo: Path) -> None:
    log = setup("test") + gh("test", "Tests", PYTEST_STEP) + post("test")
    (repo / "ci.log").write_bytes(codecs.BOM_UTF16_LE + log.encode("utf-16-le"))
    out = memx.ok("ingest", "ci.log", "--dry-run", "--stats")
    assert out.splitlines()[0].endswith(" from 4 steps; nothing written")
    assert "\ninput: ci-log, 4 steps read," in out
    memx.ok("ingest", "ci.log")  # recognised as a runner's log without --source
    [path] = sorted((repo / ".memx" / "memories").glob("*.yaml"))
    mem = yaml.safe_load(path.read_text())
    assert mem["source"] == {"type": "ci", "lines": [16, 39]}
    assert mem["content"].startswith("CI job 'test', step 'Tests'")
    assert "ci-failure" in mem["tags"]


def test_a_formatter_check_names_the_unformatted_files_once() -> None:
    """rustfmt prints a hunk per difference; black and ruff a line per file: one failure
    naming the files, and the step's command even when the script starts with `cd DIR &&`."""
    rust = gh("fmt", "Check formatting", [
        "##[group]Run cd engine && cargo fmt --all -- --check",
        "cd engine && cargo fmt --all -- --check", "shell: /usr/bin/bash -e {0}", "##[endgroup]",
        "Diff in /home/runner/work/shop/shop/engine/src/price.rs:14:",
        "     let total = items", "-        .iter().map(|i| i.cents).sum::<u64>();",
        "+        .iter()", "+        .map(|i| i.cents)", "+        .sum::<u64>();",
        "Diff in /home/runner/work/shop/shop/engine/src/price.rs:40:",
        "-fn round(x: u64)->u64 { x }", "+fn round(x: u64) -> u64 {", "+    x", "+}",
        "Diff in /home/runner/work/shop/shop/engine/src/cart.rs:3:",
        "-use std::fmt;use std::io;", "+use std::fmt;", "+use std::io;",
        "##[error]Process completed with exit code 1."])
    assert learned(rust) == [
        "CI job 'fmt', step 'Check formatting' (`cd engine && cargo fmt --all -- --check`) "
        "failed: 2 files are not formatted as the formatter's check requires: "
        "engine/src/price.rs, engine/src/cart.rs."]
    black = gh("lint", "Black", [
        "##[group]Run black --check .", "black --check .", "##[endgroup]",
        "would reformat /home/runner/work/shop/shop/shop/cart.py",
        "Oh no! \U0001f4a5 \U0001f494 \U0001f4a5", "1 file would be reformatted, 12 files would be left unchanged.",
        "##[error]Process completed with exit code 1."])
    assert learned(black) == ["CI job 'lint', step 'Black' (`black --check .`) failed: 1 file is "
                              "not formatted as the formatter's check requires: shop/cart.py."]


def test_kotlin_compiler_errors_are_the_diagnosis_of_a_gradle_build() -> None:
    log = gh("build", "Assemble", [
        "##[group]Run ./gradlew assembleDebug", "./gradlew assembleDebug", "##[endgroup]",
        "> Task :app:compileDebugKotlin FAILED",
        "e: file:///home/runner/work/trail/trail/app/src/main/java/org/trail/MapScreen.kt:41:17 "
        "Unresolved reference: rememberCameraState",
        "e: /home/runner/work/trail/trail/app/src/main/java/org/trail/Route.kt: (9, 5): "
        "Unresolved reference: rememberCameraState",
        "w: file:///home/runner/work/trail/trail/app/src/main/java/org/trail/Old.kt:3:1 "
        "'Handler' is deprecated",
        "", "FAILURE: Build failed with an exception.", "", "* What went wrong:",
        "Execution failed for task ':app:compileDebugKotlin'.",
        "> A failure occurred while executing org.jetbrains.kotlin.compilerRunner.GradleCompilerRunnerWithWorkers$GradleKotlinCompilerWorkAction",
        "", "* Try:", "> Run with --stacktrace option to get the stack trace.",
        "BUILD FAILED in 1m 2s", "##[error]Process completed with exit code 1."])
    [memory] = learned(log)
    assert memory.startswith("CI job 'build', step 'Assemble' (`./gradlew assembleDebug`) "
                             "failed: Unresolved reference: rememberCameraState at "
                             "app/src/main/java/org/trail/MapScreen.kt:41 (2 times).")
    assert "deprecated" not in memory


def test_a_rust_test_panic_names_the_test_and_the_values_assert_eq_printed() -> None:
    # Rust 1.88+ prints the thread's id after its name; assert_eq! prints the operands
    # on the lines under its message
    log = gh("test", "Run tests", [
        "##[group]Run cargo test --verbose", "cargo test --verbose", "##[endgroup]",
        "running 3 tests", "test units::tests::test_parse_hours ... FAILED",
        "test units::tests::test_parse_minutes ... ok", "", "failures:", "",
        "---- units::tests::test_parse_hours stdout ----", "",
        "thread 'units::tests::test_parse_hours' (4711) panicked at src/units.rs:88:9:",
        "assertion `left == right` failed", "  left: Some(60)", " right: Some(3600)",
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace", "",
        "failures:", "    units::tests::test_parse_hours", "",
        "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out",
        "error: test failed, to rerun pass `--lib`",
        "##[error]Process completed with exit code 101."])
    [memory] = learned(log)
    assert memory == ("CI job 'test', step 'Run tests' (`cargo test --verbose`) failed: test "
                      "units::tests::test_parse_hours panicked: assertion `left == right` "
                      "failed (left: Some(60), right: Some(3600)) at src/units.rs:88. Also: "
                      "test failed, to rerun pass `--lib`.")
    binary = gh("smoke", "Run", [
        "##[group]Run ./target/release/tool --check", "./target/release/tool --check",
        "##[endgroup]",
        "thread 'main' panicked at src/main.rs:12:5:", "config file not found",
        "##[error]Process completed with exit code 101."])
    assert learned(binary) == ["CI job 'smoke', step 'Run' (`./target/release/tool --check`) "
                               "failed: panicked: config file not found at src/main.rs:12."]


def test_a_matrix_of_rust_jobs_is_one_memory_whatever_the_os_prints_first() -> None:
    def job(name: str, sep: str, verdict_first: bool) -> str:
        verdict = ["error: test failed, to rerun pass `--lib`"]
        panic = [f"thread 'units::tests::test_parse_hours' (9) panicked at src{sep}units.rs:88:9:",
                 "assertion failed: hours.is_some()"]
        return gh(name, "Run tests", [
            "##[group]Run cargo test", "cargo test", "##[endgroup]",
            *(verdict + panic if verdict_first else panic + verdict),
            "##[error]Process completed with exit code 101."])
    [memory] = learned(job("test (ubuntu)", "/", False) + job("test (windows)", "\\", False)
                       + job("test (macos)", "/", True))
    assert memory.startswith("CI job 'test' in 3 matrix legs (ubuntu, windows, macos), step "
                             "'Run tests' (`cargo test`) failed: test "
                             "units::tests::test_parse_hours panicked: assertion failed: "
                             "hours.is_some() at src/units.rs:88.")


def test_scala3_errors_under_sbt_keep_the_compiler_words_without_the_quoted_code() -> None:
    log = "".join(f"{line}\n" for line in [
        "[info] welcome to sbt 1.10.0", "[info] compiling 3 Scala sources to target ...",
        "[error] -- [E007] Type Mismatch Error: src/main/scala/shop/Cart.scala:21:17 ",
        "[error] 21 |    val total: Int = prices.sum",
        "[error]    |                     ^^^^^^^^^^",
        "[error]    |                     Found:    BigDecimal",
        "[error]    |                     Required: Int",
        "[error]    |",
        "[error]    | longer explanation available when compiling with `-explain`",
        "[error] one error found",
        "[error] (Compile / compileIncremental) Compilation failed",
        "[error] Total time: 4 s"])
    assert learned(log) == ["The log reports: Type Mismatch Error: Found: BigDecimal; Required: "
                            "Int at src/main/scala/shop/Cart.scala:21."]


def test_maven_compiler_errors_name_the_file_and_line() -> None:
    log = "".join(f"{line}\n" for line in [
        "[INFO] --- maven-compiler-plugin:3.11.0:compile (default-compile) @ shop ---",
        "[ERROR] COMPILATION ERROR : ",
        "[ERROR] /home/runner/work/shop/shop/src/main/java/shop/Cart.java:[14,9] cannot find "
        "symbol",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:"
        "compile (default-compile) on project shop: Compilation failure"])
    [memory] = learned(log)
    assert memory.startswith("The log reports: cannot find symbol at "
                             "src/main/java/shop/Cart.java:14.")


def test_a_pin_that_needs_a_newer_python_says_so() -> None:
    log = gh("test", "Install dependencies", [
        "##[group]Run pip install -r requirements.txt", "pip install -r requirements.txt",
        "##[endgroup]", "Collecting fastapi==0.110.0",
        "ERROR: Ignored the following yanked versions: 1.0.1",
        "ERROR: Ignored the following versions that require a different python version: "
        "1.9 Requires-Python >=3.9; 2.1 Requires-Python >=3.12; 2.2 Requires-Python >=3.12",
        "ERROR: Could not find a version that satisfies the requirement polars==2.1 (from "
        "versions: 0.1, 0.2, 1.9)",
        "ERROR: No matching distribution found for polars==2.1",
        "##[error]Process completed with exit code 1."])
    assert learned(log) == ["CI job 'test', step 'Install dependencies' (`pip install -r "
                            "requirements.txt`) failed: No matching distribution found for "
                            "polars==2.1 (polars 2.1 requires Python >=3.12: the job's Python "
                            "is not one of them)."]


def test_go_test_verbose_names_the_failing_test_and_the_line_it_printed_above() -> None:
    # `go test -v` prints a test's own lines between its `=== RUN` and its `--- FAIL`; the
    # line after `--- FAIL` is the next test's, never the diagnosis
    log = gh("unit", "Test", [
        "##[group]Run go test -v ./...", "go test -v ./...", "##[endgroup]",
        "=== RUN   TestParseDuration", "--- PASS: TestParseDuration (0.00s)",
        "=== RUN   TestParseDuration_Negative",
        "    parse_test.go:41: want error for \"-5m\", got 300s",
        "--- FAIL: TestParseDuration_Negative (0.00s)",
        "=== RUN   TestParseDuration_Hours", "--- PASS: TestParseDuration_Hours (0.00s)",
        "FAIL", "FAIL\tgithub.com/acme/clock/internal/parse\t0.004s", "FAIL",
        "##[error]Process completed with exit code 1."])
    assert learned(log) == ["CI job 'unit', step 'Test' (`go test -v ./...`) failed: "
                            "parse_test.go:41: want error for \"-5m\", got 300s (test "
                            "TestParseDuration_Negative)."]


def test_ts_jest_type_errors_are_read_through_their_indent() -> None:
    # ts-jest prints tsc's `PATH:L:C - error TSnnnn:` indented under `FAIL suite`; npm's
    # closing "Lifecycle script failed" is no diagnosis
    log = gh("test", "Test", [
        "##[group]Run npm test", "npm test", "##[endgroup]",
        "FAIL test/quota.spec.ts",
        "  ● Test suite failed to run", "",
        "    test/quota.spec.ts:12:31 - error TS2339: Property 'consume' does not exist on "
        "type 'QuotaService'.", "",
        "    test/quota.spec.ts:19:31 - error TS2339: Property 'consume' does not exist on "
        "type 'QuotaService'.", "",
        "Test Suites: 1 failed, 1 total",
        "npm error Lifecycle script `test` failed with error:", "npm error code 1",
        "##[error]Process completed with exit code 1."])
    assert learned(log) == ["CI job 'test', step 'Test' (`npm test`) failed: error TS2339: "
                            "Property 'consume' does not exist on type 'QuotaService' at "
                            "test/quota.spec.ts:12 (2 times). Also: npm error: Lifecycle script "
                            "`test` failed with error:; code 1."]


def test_a_verdict_whose_words_are_on_the_indented_line_under_it() -> None:
    # Android's manifest merger: `PATH:L:C-L:C Error:` and the message on a tab-indented
    # line; Gradle's "What went wrong" only says "see logs"
    log = gh("build", "Assemble", [
        "##[group]Run ./gradlew assembleDebug", "./gradlew assembleDebug", "##[endgroup]",
        "> Task :app:processDebugMainManifest FAILED",
        "/home/runner/work/notes/notes/app/src/main/AndroidManifest.xml:31:9-36:20 Error:",
        "\tElement activity#org.notes.EditActivity at AndroidManifest.xml:31:9-36:20 "
        "duplicated with element declared at AndroidManifest.xml:20:9-29:20", "",
        "FAILURE: Build failed with an exception.", "", "* What went wrong:",
        "Execution failed for task ':app:processDebugMainManifest'.",
        "> Manifest merger failed with multiple errors, see logs", "",
        "##[error]Process completed with exit code 1."])
    assert learned(log) == ["CI job 'build', step 'Assemble' (`./gradlew assembleDebug`) failed: "
                            "Element activity#org.notes.EditActivity at "
                            "AndroidManifest.xml:31:9-36:20 duplicated with element declared at "
                            "AndroidManifest.xml:20:9-29:20 at app/src/main/AndroidManifest.xml:31."]


def test_a_404_says_what_the_step_was_fetching() -> None:
    log = gh("lint", "Lint", [
        "##[group]Run some/lint-action@v2", "with:", "  version: v9.9.9", "##[endgroup]",
        "##[group]prepare environment", "Installing linter v9.9.9...",
        "Downloading https://example.org/releases/download/v9.9.9/linter-9.9.9-linux-amd64.tar.gz ...",
        "##[endgroup]",
        "##[error]Failed to run: Error: Unexpected HTTP response: 404",
        "##[error]Unexpected HTTP response: 404"])
    assert learned(log) == ["CI job 'lint', step 'Lint' (`some/lint-action@v2`) failed: Failed to "
                            "run: Error: Unexpected HTTP response: 404 — it was fetching "
                            "linter-9.9.9-linux-amd64.tar.gz."]


def test_plain_output_of_several_tools_is_one_memory_per_tool() -> None:
    # a saved run of cargo, ruff, pip and a script: four causes, four memories; cargo's
    # "... required by" chain and the tool's own `run` advice are part of what it said
    log = "".join(f"{line}\n" for line in [
        "error: 'cargo-clippy' is not installed for the toolchain 'stable-x86_64-unknown-linux-gnu'.",
        "To install, run `rustup component add clippy`",
        "lib:1:1: E902 No such file or directory (os error 2)", "Found 1 error.",
        "    Updating crates.io index",
        "error: failed to select a version for `subtle`.",
        "    ... required by package `ed25519 v1.0.0`",
        "    ... which satisfies dependency `ed25519 = \"^1\"` of package `signer v0.1.0`",
        "versions that meet the requirements `>=2, <2.3` are: 2.2.3", "",
        "ERROR: Could not find a version that satisfies the requirement fastcsv-rs (from "
        "versions: none)",
        "ERROR: No matching distribution found for fastcsv-rs",
        "bash: ./scripts/smoke.sh: Permission denied"])
    memories = learned(log)
    assert len(memories) == 4
    assert any("failed to select a version for `subtle`. ... required by package `ed25519 "
               "v1.0.0`" in m and "the tool says to run `rustup component add clippy`" in m
               for m in memories)
    assert "The log reports: E902 No such file or directory (os error 2) at lib:1." in memories
    assert "The log reports: No matching distribution found for fastcsv-rs." in memories
    assert "The log reports: bash: ./scripts/smoke.sh: Permission denied." in memories


def test_a_green_build_teaches_nothing_whatever_its_crate_names_say() -> None:
    log = "".join(f"{line}\n" for line in [
        "  Downloaded serde_yaml v0.9.34+deprecated", "  Downloaded proc-macro-error2 v2.0.1",
        "   Compiling thiserror v2.0.18", "   Compiling app v0.1.0 (/work/app)",
        "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 3m 06s"])
    assert learned(log) == []


def raw(lines: list[str]) -> str:
    """Lines as the raw job log (the web UI's download) has them: timestamp, text."""
    return "".join(f"{STAMP.format(0, n % 60)} {line}\n" for n, line in enumerate(lines))


def test_a_test_module_that_does_not_compile_is_its_exception_at_the_file() -> None:
    # pytest's E block of a collection error opens with the file and the quoted code; the
    # exception that says why is its last line
    log = "".join(f"{line}\n" for line in [
        "collecting ... collected 12 items / 1 error", "",
        "_______________ ERROR collecting tests/test_io.py _______________",
        "/opt/hostedtoolcache/Python/3.12.3/x64/lib/python3.12/site-packages/_pytest/python.py:"
        "508: in importtestmodule", "    mod = import_path(",
        'E     File "/home/runner/work/shop/shop/tests/test_io.py", line 7',
        "E       <<<<<<< HEAD", "E       ^^", "E   SyntaxError: invalid syntax",
        "ERROR tests/test_io.py", "!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!"])
    assert learned(log) == ["The log reports: SyntaxError: invalid syntax at tests/test_io.py:7 "
                            "(`<<<<<<< HEAD`)."]
    # control: an assertion's E block keeps its first line, the assertion
    failing = "".join(f"{line}\n" for line in [
        "____________________ test_total ____________________",
        "tests/test_cart.py:12: in test_total", "    assert total() == 4",
        "E   assert 3 == 4", "E    +  where 3 = total()",
        "FAILED tests/test_cart.py::test_total - assert 3 == 4"])
    [memory] = learned(failing)
    assert memory.startswith("The log reports: assert 3 == 4 at tests/test_cart.py:12")


def test_scalac_errors_under_sbt_name_the_file_the_code_and_how_often() -> None:
    said = [
        "[info] compiling 4 Scala sources to /home/runner/work/shop/shop/target/scala-2.13 ...",
        "[warn] /home/runner/work/shop/shop/src/test/scala/shop/CartSpec.scala:9:7: local val "
        "unused in method spec is never used", "[warn]   val unused = 1", "[warn]       ^",
        "[error] /home/runner/work/shop/shop/src/test/scala/shop/CartSpec.scala:12:18: value totl "
        "is not a member of shop.Cart", "[error]     assert(cart.totl == 4)",
        "[error]                  ^", "[error] one error found"]
    log = gh("test", "Run tests", ["##[group]Run sbt +test", "sbt +test", "##[endgroup]",
                                   *said, *said[4:],
                                   "[error] (shopJVM / Test / compileIncremental) Compilation "
                                   "failed", "##[error]Process completed with exit code 1."])
    assert learned(log) == ["CI job 'test', step 'Run tests' (`sbt +test`) failed: value totl is "
                            "not a member of shop.Cart at src/test/scala/shop/CartSpec.scala:12 "
                            "(`assert(cart.totl == 4)`) (2 times)."]
    # control: the same shape under [warn] or [info] is no failure
    assert learned(gh("test", "Run tests", ["##[group]Run sbt +test", "sbt +test",
                                            "##[endgroup]", *said[:4]])) == []


def test_playwright_names_the_failing_spec_and_its_error_once_for_all_browsers() -> None:
    out = ["Running 40 tests using 2 workers", ""]
    for n, project in enumerate(("chromium", "firefox"), 1):
        out += [f"  {n}) [{project}] › tests/cart.spec.ts:21:5 › adds an item ─────────", "",
                "    TimeoutError: locator.click: Timeout 5000ms exceeded.", "",
                "      21 |   await page.getByRole('button').click();", ""]
    out += ["  2 failed", "    [chromium] › tests/cart.spec.ts:21:5 › adds an item",
            "    [firefox] › tests/cart.spec.ts:21:5 › adds an item", "  38 passed (1.2m)"]
    log = raw(["##[group]Run npx playwright test", "npx playwright test", "##[endgroup]", *out,
               "##[error]Process completed with exit code 1."])
    assert learned(log) == ["The log (`npx playwright test`) reports: TimeoutError: "
                            "locator.click: Timeout 5000ms exceeded (test tests/cart.spec.ts:21 "
                            "› adds an item)."]
    # control: the same run, green, teaches nothing
    assert learned(raw(["##[group]Run npx playwright test", "npx playwright test",
                        "##[endgroup]", "Running 40 tests using 2 workers",
                        "  40 passed (1.1m)"])) == []


def test_a_powershell_error_says_what_the_script_ran_and_what_powershell_answered() -> None:
    log = gh("e2e (windows-latest)", "Start Redis", [
        "##[group]Run choco install redis-64 -y", "choco install redis-64 -y",
        "redis-server --service-install", "shell: C:\\Program Files\\PowerShell\\7\\pwsh.EXE "
        "-command \". '{0}'\"", "##[endgroup]", "Chocolatey installed 1/1 packages.",
        "redis-server: D:\\a\\_temp\\5e1c.ps1:3", "Line |",
        "   3 |  redis-server --service-install", "     |  ~~~~~~~~~~~~",
        "     | The term 'redis-server' is not recognized as a name of a cmdlet, function, "
        "script file, or executable program.",
        "##[error]Process completed with exit code 1."])
    [memory] = learned(log)
    assert memory.endswith("failed: The term 'redis-server' is not recognized as a name of a "
                           "cmdlet, function, script file, or executable program. — at line 3 "
                           "of the script: `redis-server --service-install`.")
    # control: a table that happens to start with "Line |" is no error
    table = gh("report", "Summary", [
        "##[group]Run ./report.ps1", "./report.ps1", "##[endgroup]", "Line |",
        "   1 | total 12", "   2 | failed 0", "##[error]Process completed with exit code 1."])
    assert not any("total 12" in m for m in learned(table))


def test_the_tail_of_a_raw_log_is_read_and_an_indented_panic_is_the_cause() -> None:
    # a log saved from the middle of a job: no runner setup before its first line
    tail = raw(["        PASS [   0.008s] (41/42) shop cart::tests::adds",
                "        FAIL [   0.203s] (42/42) shop cart::tests::waits",
                "    thread 'cart::tests::waits' (4711) panicked at src/cart.rs:88:9:",
                "    reply should be written after delay",
                "error: test run failed", "##[error]Process completed with exit code 100."])
    [memory] = learned(tail)
    assert memory.startswith("The log reports: test cart::tests::waits panicked: reply should "
                             "be written after delay at src/cart.rs:88.")
    # control: a whole job's setup (the runner names the job at its end) teaches nothing,
    # whatever its lines look like
    setup_only = raw(["Current runner version: '2.316.1'", "error: no such runner label",
                      "Complete job name: build", "##[group]Run make", "make", "##[endgroup]",
                      "built"])
    assert learned(setup_only) == []


def test_a_lint_suite_of_several_tools_is_one_memory_per_tool_with_its_rule() -> None:
    def step(name: str, command: str, said: list[str]) -> str:
        return gh("lint", name, [f"##[group]Run {command}", command, "##[endgroup]", *said,
                                 "##[error]Process completed with exit code 1."])
    log = (setup("lint")
           + step("cargo deny", "cargo deny check", [
               "error[vulnerability]: `idna` accepts Punycode labels that do not decode",
               "    ┌─ /github/workspace/Cargo.lock:94:1", "    │",
               " 94 │ idna 0.5.0 registry+https://github.com/rust-lang/crates.io-index",
               "    │ ---------- security vulnerability detected", "    │",
               "    ├ ID: RUSTSEC-2024-0421", "", "advisories FAILED, licenses ok"])
           + step("codespell", "codespell", [
               "./docs/install.md:14: recieve ==> receive"])
           + step("ktlint", "./gradlew ktlintCheck", [
               "app/src/main/kotlin/shop/Cart.kt:12:1: Unexpected blank line(s) before \"}\" "
               "(standard:no-blank-line-before-rbrace)"])
           + post("lint"))
    memories = learned(log)
    assert len(memories) == 3
    assert memories[0].endswith("failed: vulnerability: `idna` accepts Punycode labels that do "
                                "not decode (RUSTSEC-2024-0421) at Cargo.lock:94:1.")
    assert memories[1].endswith("failed: misspelled 'recieve' (the checker suggests receive) "
                                "at ./docs/install.md:14.")
    assert memories[2].endswith("failed: Unexpected blank line(s) before \"}\" "
                                "(standard:no-blank-line-before-rbrace) at "
                                "app/src/main/kotlin/shop/Cart.kt:12.")
    # control: rustc's own codes stay out of the message, as before
    rustc = gh("build", "Build", ["##[group]Run cargo build", "cargo build", "##[endgroup]",
                                  "error[E0308]: mismatched types", " --> src/main.rs:4:18",
                                  "", "##[error]Process completed with exit code 101."])
    assert learned(rustc) == ["CI job 'build', step 'Build' (`cargo build`) failed: mismatched "
                              "types at src/main.rs:4:18."]


def test_a_cause_printed_by_the_passing_step_before_the_failure_is_named() -> None:
    # uv's error went into a file through a pipe (the step passed); the next step wrote it
    # to $GITHUB_OUTPUT, which the runner refused: its verdict hides the cause
    resolve = gh("plan", "Resolve", [
        "##[group]Run uv lock --check 2>&1 | tee plan.txt", "uv lock --check 2>&1 | tee plan.txt",
        "##[endgroup]", "Using CPython 3.12.3",
        "  × No solution found when resolving dependencies:",
        "  ╰─▶ Because only shop-core<2 is available and app depends on shop-core>=2, we can "
        "conclude that your requirements are unsatisfiable."])
    publish = gh("plan", "Publish plan", [
        "##[group]Run echo \"plan=$(cat plan.txt)\" >> \"$GITHUB_OUTPUT\"",
        "echo \"plan=$(cat plan.txt)\" >> \"$GITHUB_OUTPUT\"", "##[endgroup]",
        "##[error]Unable to process file command 'output' successfully.",
        "##[error]Invalid format 'Using CPython 3.12.3'"])
    [memory] = learned(setup("plan") + resolve + publish + post("plan"))
    assert memory.startswith("CI job 'plan', step 'Publish plan'")
    assert memory.endswith("The step 'Resolve' (`uv lock --check 2>&1 | tee plan.txt`) had "
                           "printed, and passed: No solution found when resolving dependencies: "
                           "╰─▶ Because only shop-core<2 is available and app depends on "
                           "shop-core>=2, we can conclude that your requirements are "
                           "unsatisfiable.")
    # a step that failed without a word after a clean step: nothing to say
    clean = gh("plan", "Resolve", ["##[group]Run uv lock --check", "uv lock --check",
                                   "##[endgroup]", "Resolved 12 packages in 3ms"])
    silent = gh("plan", "Check", ["##[group]Run test -s plan.txt", "test -s plan.txt",
                                  "##[endgroup]", "##[error]Process completed with exit code 1."])
    assert learned(setup("plan") + clean + silent + post("plan")) == []
    # control: a failing step that printed its own cause is not blamed on the step before
    own = gh("plan", "Check", ["##[group]Run make check", "make check", "##[endgroup]",
                               "error: plan.txt is empty",
                               "##[error]Process completed with exit code 1."])
    [memory] = learned(setup("plan") + resolve + own + post("plan"))
    assert "had printed" not in memory and "plan.txt is empty" in memory


NODE20 = ("##[warning]Node.js 20 actions are deprecated. The following actions are running on "
          "Node.js 20 and may not work as expected: actions/checkout@v4. Actions will be forced "
          "to run with Node.js 24 by default starting June 2nd, 2026. For more information see: "
          "https://github.blog/changelog/2025-09-19-deprecation-of-node-20-on-github-actions-runners/")


def test_a_green_run_keeps_what_the_runner_warned_about_the_workflow_once() -> None:
    def job(name: str) -> str:
        return (setup(name) + gh(name, "Build", [
            "##[group]Run make", "make", "##[endgroup]", "built",
            "##[warning]No files were found with the provided path: dist/. No artifacts will "
            "be uploaded."]) + post(name) + gh(name, "Complete job", [
            NODE20, "Cleaning up orphan processes"]))
    [memory] = learned(job("build (ubuntu)") + job("build (macos)"))
    assert memory == ("CI job 'build (ubuntu)', 'build (macos)' passed, and the runner warned: "
                      "Node.js 20 actions are deprecated. The following actions are running on "
                      "Node.js 20 and may not work as expected: actions/checkout@v4. Actions "
                      "will be forced to run with Node.js 24 by default starting June 2nd, 2026.")
    # control: in a failing run the failure is the lesson, not the runner's warning
    failing = setup("test") + gh("test", "Tests", PYTEST_STEP) + post("test") + gh(
        "test", "Complete job", [NODE20])
    [memory] = learned(failing)
    assert "Node.js 20" not in memory and "decimal.InvalidOperation" in memory
    # a failing step whose cause the reader cannot tell (a tool's own log format) makes the
    # run no green one: nothing is said rather than "passed"
    unread = setup("ios") + gh("ios", "Upload", [
        "##[group]Run bundle exec fastlane beta", "bundle exec fastlane beta", "##[endgroup]",
        "[17:56:36]: [altool] upload refused by the store, see above",
        "##[error]Process completed with exit code 1."]) + post("ios") + gh(
        "ios", "Complete job", [NODE20])
    assert not any("passed" in m for m in learned(unread))


def test_a_broken_wrapper_script_is_the_shell_or_the_jvm_in_its_own_words() -> None:
    def build(said: list[str]) -> str:
        return gh("android", "Build", ["##[group]Run ./gradlew assembleDebug",
                                       "./gradlew assembleDebug", "##[endgroup]", *said,
                                       "##[error]Process completed with exit code 1."])
    assert learned(build(["./gradlew: 234: eval: Syntax error: Unterminated quoted string"])) \
        == ["CI job 'android', step 'Build' (`./gradlew assembleDebug`) failed: eval: Syntax "
            "error: Unterminated quoted string at ./gradlew:234."]
    assert learned(build(["Error: Could not find or load main class \"-Xmx64m\"",
                          "Caused by: java.lang.ClassNotFoundException: \"-Xmx64m\""])) \
        == ["CI job 'android', step 'Build' (`./gradlew assembleDebug`) failed: Could not find "
            "or load main class \"-Xmx64m\" (caused by java.lang.ClassNotFoundException: "
            "\"-Xmx64m\")."]
    # the step's own script is the runner's temporary file: no place in the project
    assert learned(build(["/home/runner/work/_temp/5e1c.sh: line 3: uvx: command not found"])) \
        == ["CI job 'android', step 'Build' (`./gradlew assembleDebug`) failed: uvx: command "
            "not found."]
    # control: a level and a count are no script and line
    assert learned(build(["WARNING: 12: deprecated flag"])) == []


def test_python_and_shell_linters_name_their_rule_and_place() -> None:
    def lint(command: str, said: list[str]) -> list[str]:
        return learned(gh("lint", "Lint", [f"##[group]Run {command}", command, "##[endgroup]",
                                           *said, "##[error]Process completed with exit code 1."]))
    assert lint("ruff check", ["F401 [*] `os` imported but unused", " --> shop/cart.py:1:8",
                               "  |", "1 | import os", "  |        ^^", "",
                               "Found 1 error."]) \
        == ["CI job 'lint', step 'Lint' (`ruff check`) failed: F401 `os` imported but unused at "
            "shop/cart.py:1:8."]
    assert lint("npx pyright", [
        "/home/runner/work/shop/shop/shop/cart.py",
        "  /home/runner/work/shop/shop/shop/cart.py:12:5 - error: \"totl\" is not a known "
        "attribute of class \"Cart\" (reportAttributeAccessIssue)",
        "1 error, 0 warnings, 0 informations"]) \
        == ["CI job 'lint', step 'Lint' (`npx pyright`) failed: \"totl\" is not a known attribute "
            "of class \"Cart\" (reportAttributeAccessIssue) at shop/cart.py:12."]
    assert lint("shellcheck scripts/*.sh", [
        "", "In scripts/deploy.sh line 7:", "rm -rf $TARGET/", "       ^-----^ SC2086 (info): "
        "Double quote to prevent globbing and word splitting."]) \
        == ["CI job 'lint', step 'Lint' (`shellcheck scripts/*.sh`) failed: SC2086 (info): Double "
            "quote to prevent globbing and word splitting at scripts/deploy.sh:7."]
    assert lint("./gradlew ktlintCheck", [
        "/home/runner/work/shop/shop/app/src/main/kotlin/Cart.kt:3:1 Lint error > "
        "[standard:no-wildcard-imports] Wildcard import"]) \
        == ["CI job 'lint', step 'Lint' (`./gradlew ktlintCheck`) failed: Wildcard import "
            "(standard:no-wildcard-imports) at app/src/main/kotlin/Cart.kt:3."]
    # control: a rule-like word that no place follows is no finding
    assert lint("make check", ["E501 checks are disabled in this profile"]) == []


def unknown_steps(job: str, lines: list[str]) -> str:
    """A job as `gh run view --log` prints it when it could not tell the steps apart."""
    return gh(job, "UNKNOWN STEP", lines)


JOB_SETUP = ["Current runner version: '2.333.1'", "##[group]Runner Image", "Image: ubuntu-24.04",
             "##[endgroup]", "Complete job name: {job}", "##[group]Run actions/checkout@v4",
             "with:", "  repository: acme/shop", "##[endgroup]", "Syncing repository: acme/shop"]


def test_a_job_whose_steps_gh_could_not_tell_apart_is_read_as_a_raw_job_log() -> None:
    def shard(n: int, said: list[str], verdict: str) -> str:
        command = f"npx vitest run --shard={n}/2"
        return unknown_steps(f"test ({n}/2)", [
            *(line.format(job=f"test ({n}/2)") for line in JOB_SETUP),
            "##[group]Run npm ci", "npm ci", "##[endgroup]", "added 812 packages in 9s",
            f"##[group]Run {command}", command, "shell: /usr/bin/bash -e {0}", "##[endgroup]",
            *said, f"##[error]{verdict}", "Post job cleanup.", "[command]/usr/bin/git version"])
    failing = shard(2, [
        " FAIL  src/cart/Basket.test.tsx > Basket > shows the Pay button",
        "TestingLibraryElementError: Unable to find an element with the text: Pay.",
        " Test Files  1 failed | 9 passed (10)"],
        "TestingLibraryElementError: Unable to find an element with the text: Pay.")
    # the other shard, stopped by fail-fast while it was still running its tests
    stopped = shard(1, [" ✓ src/cart/Total.test.tsx (4 tests) 20ms"],
                    "The operation was canceled.")
    [memory] = learned(stopped + failing)
    # the step that failed, with its command (not the checkout the job opened with), and the
    # test vitest named above the error the runner repeated
    assert memory == ("CI job 'test (2/2)' (`npx vitest run --shard=2/2`) failed: "
                      "TestingLibraryElementError: Unable to find an element with the text: Pay "
                      "(test src/cart/Basket.test.tsx > Basket > shows the Pay button). Its "
                      "matrix leg 'test (1/2)': 'The operation was canceled' while running "
                      "(a cascade).")
    assert "UNKNOWN STEP" not in memory and "checkout" not in memory
    # control: without vitest's header the runner's words are all there is
    [bare] = learned(shard(2, ["TestingLibraryElementError: Unable to find an element with the "
                               "text: Pay."],
                           "TestingLibraryElementError: Unable to find an element with the "
                           "text: Pay."))
    assert bare == ("CI job 'test (2/2)' (`npx vitest run --shard=2/2`) failed: "
                    "TestingLibraryElementError: Unable to find an element with the text: Pay. "
                    "(2 times).")


BUILDKIT_BLOCK = [
    "#13 [deps 4/4] RUN if [ -f package-lock.json ]; then npm ci; else echo \"Lockfile not "
    "found.\" && exit 1; fi", "#13 0.051 Lockfile not found.",
    "#13 ERROR: process \"/bin/sh -c if [ -f package-lock.json ]; then npm ci; else echo "
    "\\\"Lockfile not found.\\\" && exit 1; fi\" did not complete successfully: exit code: 1",
    "------", " > [deps 4/4] RUN if [ -f package-lock.json ]; then npm ci; else echo \"Lockfile "
    "not found.\" && exit 1; fi:", "0.051 Lockfile not found.", "------", "Dockerfile:14",
    "--------------------", "  14 | >>> RUN if [ -f package-lock.json ]; then npm ci; \\",
    "--------------------",
    "ERROR: failed to solve: process \"/bin/sh -c if [ -f package-lock.json ]; then npm ci; "
    "else echo \\\"Lockfile not found.\\\" && exit 1; fi\" did not complete successfully: exit "
    "code: 1"]


def test_a_docker_build_is_the_failing_commands_own_words_at_its_dockerfile_line() -> None:
    # a deploy platform's build log: stamped, with none of the Actions runner's marks
    deploy = raw(["==> Cloning from https://github.com/acme/shop",
                  "#1 [internal] load build definition from Dockerfile", "#1 DONE 0.0s",
                  *BUILDKIT_BLOCK, "error: exit status 1"])
    assert learned(deploy, None) == [
        "The log reports: Lockfile not found (image build step [deps 4/4] `RUN if [ -f "
        "package-lock.json ]; then npm ci; else echo \"Lockfile not found.\" &…`) at "
        "Dockerfile:14."]
    # in an Actions step, the tool's own error inside the block is the cause, not buildkit's
    # or the action's verdict about it
    npm = [line.replace("Lockfile not found.", "npm error code EUSAGE") for line in BUILDKIT_BLOCK]
    step = gh("image", "Build and push", [
        "##[group]Run docker/build-push-action@v6", "with:", "  push: true", "##[endgroup]",
        *npm, "##[error]buildx failed with: ERROR: failed to solve: process did not complete "
        "successfully: exit code: 1"])
    [memory] = learned(step)
    assert memory.startswith("CI job 'image', step 'Build and push' "
                             "(`docker/build-push-action@v6`) failed: npm error: code EUSAGE "
                             "(image build step [deps 4/4]")
    assert memory.endswith("at Dockerfile:14.")  # the action's verdict adds nothing
    # control: a raw Actions log's unmarked first lines (a job saved from its middle) are not
    # read whole: only the failing step is
    tail = raw(["Error: retrying the fetch (it passed the second time)", "fetched 3 files",
                "##[group]Run make", "make", "##[endgroup]",
                "src/cart.c:3:1: error: expected ';' before '}' token", "make: *** [all] Error 2",
                "##[error]Process completed with exit code 2."])
    assert learned(tail) == ["The log (`make`) reports: expected ';' before '}' token at "
                             "src/cart.c:3."]


def multi_platform(first_failed: str, other_said: str) -> list[str]:
    """A buildx build for two platforms whose base image one of them lacks: buildkit's
    progress (``#N [stage] step`` and ``#N ERROR:``), its error blocks with no output of
    their own, one Dockerfile line, and its verdict."""
    step = "load metadata for docker.io/library/python:3.12-alpine"
    return [
        f"#2 [linux/arm64 internal] {step}", "#2 ...",
        f"#4 [linux/s390x internal] {step}", "#4 ERROR: no match for platform in manifest: "
        "not found",
        f"#2 [linux/arm64 internal] {step}", f"#2 ERROR: {other_said}",
        *[line for first in (first_failed == "s390x", first_failed != "s390x")
          for line in (["------", f" > [linux/s390x internal] {step}:", "------"] if first
                       else ["------", f" > [linux/arm64 internal] {step}:", "------"])],
        "Dockerfile:3", "--------------------", "   3 | >>> FROM python:3.12-alpine AS base",
        "--------------------",
        "ERROR: failed to build: failed to solve: python:3.12-alpine: failed to resolve source "
        "metadata for docker.io/library/python:3.12-alpine: no match for platform in manifest: "
        "not found"]


def test_a_multi_platform_build_leads_with_the_step_buildkits_verdict_names() -> None:
    locked = ("ref buildkit/1/index-sha256:" + "ab" * 32 + " locked for 12.5ms (since "
              "2026-01-05 10:00:00.1 +0000 UTC m=+25.738448103): unavailable")
    for order in ("s390x", "arm64"):  # whichever block buildkit printed last
        [memory] = learned(gh("publish", "Build and push", [
            "##[group]Run docker/build-push-action@v6", "with:", "  push: true",
            "##[endgroup]", *multi_platform(order, locked),
            "##[error]buildx failed with: ERROR: failed to build: failed to solve: "
            "python:3.12-alpine: no match for platform in manifest: not found"]))
        # the platform's own error from buildkit's progress, at the Dockerfile line, not
        # the lock the cancelled arm64 step reported (nor a bare "failed")
        assert memory.startswith(
            "CI job 'publish', step 'Build and push' (`docker/build-push-action@v6`) failed: "
            "no match for platform in manifest: not found (image build step [linux/s390x "
            "internal] `load metadata for docker.io/library/python:3.12-alpine`) at "
            "Dockerfile:3."), memory
        assert "m=+25.738448103" in memory and "[REDACTED" not in memory
    # control: with no verdict to read, the Dockerfile line stays with the block it follows
    alone = " ".join(learned(raw([*multi_platform("s390x", locked)[:-1], "error: exit status 1"]),
                             None))
    assert "[linux/arm64 internal] `load metadata for docker.io/library/python:3.12-alpine`) at " \
        "Dockerfile:3" in alone, alone


def test_a_tool_that_stops_on_its_warning_is_read_with_what_it_listed() -> None:
    def install(said: list[str]) -> list[str]:
        return learned(gh("test", "Install", [
            "##[group]Run composer install --no-interaction", "composer install --no-interaction",
            "##[endgroup]", "Installing dependencies from lock file (including require-dev)",
            *said, "##[error]Process completed with exit code 4."]))
    lock = ["Warning: The lock file is not up to date with the latest changes in composer.json. "
            "You may be getting outdated dependencies.",
            "- Required package \"laravel/reverb\" is not present in the lock file.",
            "- Required package \"spatie/pdf\" is not present in the lock file.",
            "- Required package \"acme/chat\" is not present in the lock file.",
            "This usually happens when composer files are incorrectly merged."]
    assert install(lock) == [
        "CI job 'test', step 'Install' (`composer install --no-interaction`) failed: The lock "
        "file is not up to date with the latest changes in composer.json. — Required package "
        "\"laravel/reverb\" is not present in the lock file; Required package \"spatie/pdf\" is "
        "not present in the lock file and 1 more."]
    # control: a warning printed on the way is no cause when the step's own error follows
    assert install([*lock, *["Downloading vendor/pkg"] * 12,
                    "Error: Your requirements could not be resolved to an installable set of "
                    "packages."]) == [
        "CI job 'test', step 'Install' (`composer install --no-interaction`) failed: Your "
        "requirements could not be resolved to an installable set of packages."]


def test_a_second_cause_is_clipped_to_the_room_a_memory_has_left_not_dropped() -> None:
    def tests(error: str) -> str:
        return learned(gh("backend", "Unit tests", [
            "##[group]Run go test ./...", "go test ./...", "##[endgroup]",
            "=== RUN   TestRepo_Active", "    repo_test.go:28: Expected no error, got Query: "
            "could not match actual sql: \"SELECT shames.*, users.name FROM shames LEFT JOIN "
            "users ON users.id = shames.user_id WHERE shames.expires_at > $1\"",
            "--- FAIL: TestRepo_Active (0.00s)", "FAIL",
            f"##[error]internal/services/shame_test.go:79:29: {error}",
            f"##[error]internal/services/shame_test.go:111:29: {error}",
            "##[error]Process completed with exit code 1."]))[0]
    long = ("cannot use repo (variable of type *mockRepo) as repository.ShameRepository value "
            "in argument to NewService: *mockRepo does not implement repository.ShameRepository "
            "(wrong type for method Active)")
    memory = tests(long)
    assert len(memory) <= 500 and "does not implement" in memory
    assert "Also: repo_test.go:28: Expected no error, got Query: could not match actual sql" \
        in memory and memory.endswith("… (test TestRepo_Active).")
    # control: with room to spare the other cause is whole
    short = tests("undefined: NewService")
    assert short.endswith("Also: repo_test.go:28: Expected no error, got Query: could not "
                          "match actual sql: \"SELECT shames.*, users.name FROM shames LEFT "
                          "JOIN users ON users.id = shames.user_id WHERE shames.expires_at > "
                          "$1\" (test TestRepo_Active).")


def test_a_job_told_to_fail_by_the_workflow_is_no_finding_beside_the_real_failure() -> None:
    def report(name: str, said: str) -> str:
        return setup(name) + gh(name, "Report", [
            f'##[group]Run echo "❌ {said}"', f'echo "❌ {said}"', 'echo ""',
            'echo "Fix it before merging."', "exit 1", "##[endgroup]",
            f"❌ {said}", "", "Fix it before merging.",
            "##[error]Process completed with exit code 1."]) + post(name)
    tests = setup("test") + gh("test", "Tests", PYTEST_STEP) + post("test")
    [memory] = learned(tests + report("Coverage Report", "Coverage threshold NOT met!"))
    assert "decimal.InvalidOperation" in memory and "Coverage threshold" not in memory
    # control: alone in its run, the report is what the log holds, kept as before
    [memory] = learned(report("Coverage Report", "Coverage threshold NOT met!"))
    assert "Coverage threshold NOT met" in memory
    # control: a script that decides (a test, then the exit) is a check, not a report
    checked = setup("version") + gh("version", "Check", [
        '##[group]Run if [ "$A" = "$B" ]; then', 'if [ "$A" = "$B" ]; then',
        '  echo "::error::Bump the version in package.json"', "  exit 1", "fi",
        "##[endgroup]", "##[error]Bump the version in package.json",
        "##[error]Process completed with exit code 1."]) + post("version")
    assert any("Bump the version" in m for m in learned(tests + checked))
