"""CI logs whose cause sits where the last readers did not look (issue 24): an ESLint table
the runner annotated row by row, a Rust error whose reason is the linker's note or the line
it quotes, the go command's import stack, a status job comparing results, a matrix leg
cancelled while it ran. Each with a control."""

from __future__ import annotations

import json
from pathlib import Path

from memx_cli.reflector.cilog import QUOTE_SCAN

from .conftest import Memx
from .test_reflector_ci_pasted import QUOTED
from .test_reflector_cilog import gh, learned, post, setup


def lines(text: list[str]) -> str:
    return "".join(f"{line}\n" for line in text)


def lint_step(rows: list[str], count: str) -> str:
    return gh("lint", "Lint", [
        "##[group]Run npx eslint src", "npx eslint src", "##[endgroup]", "",
        "/home/runner/work/shop/shop/src/hooks/__tests__/useCart.test.ts", *rows, "",
        "/home/runner/work/shop/shop/src/pages/Settings.tsx",
        "  42:5  error  Error: Calling setState synchronously within an effect can trigger "
        "cascading renders", "",
        "Effects are intended to synchronize state with external systems.", "",
        "/home/runner/work/shop/shop/src/pages/Settings.tsx:42:5",
        "  41 |   useEffect(() => {",
        "> 42 |     setIcon(group?.icon || '');",
        "     |     ^^^^^^^ Avoid calling setState() directly within an effect",
        "  43 |   }, [group?.icon]);  react-hooks/set-state-in-effect", "",
        count, "##[error]Process completed with exit code 1."])


def test_eslint_rows_the_runner_annotated_are_read_under_their_file_with_their_rule() -> None:
    # a problem matcher turned each row into the runner's annotation
    annotated = lint_step([
        "##[warning]  3:10  warning  'unused' is defined but never used  no-unused-vars",
        "##[error]  21:22  error  A `require()` style import is forbidden  "
        "@typescript-eslint/no-require-imports"], "\u2716 3 problems (2 errors, 1 warning)")
    [memory] = learned(setup("lint") + annotated + post("lint"))
    assert "A `require()` style import is forbidden (@typescript-eslint/no-require-imports) " \
        "at src/hooks/__tests__/useCart.test.ts:21" in memory, memory
    # the message spanning lines is said with the rule closing its code frame
    assert "cascading renders (react-hooks/set-state-in-effect) at src/pages/Settings.tsx:42" \
        in memory, memory
    # ESLint's count of errors beside warnings: how many of its findings failed the step
    assert "3 problems in all: 2 errors, 1 warning" in memory, memory
    assert "##[" not in memory and "21:22" not in memory
    # control: the same rows as ESLint printed them, unannotated, say the same
    plain = lint_step([
        "  3:10  warning  'unused' is defined but never used  no-unused-vars",
        "  21:22  error  A `require()` style import is forbidden  "
        "@typescript-eslint/no-require-imports"], "\u2716 3 problems (2 errors, 1 warning)")
    assert learned(setup("lint") + plain + post("lint")) == [memory]
    # control: a count without warnings adds nothing
    errors = lint_step(["  21:22  error  A `require()` style import is forbidden  "
                        "@typescript-eslint/no-require-imports"],
                       "\u2716 2 problems (2 errors, 0 warnings)")
    [bare] = learned(setup("lint") + errors + post("lint"))
    assert "problems in all" not in bare


def test_a_rust_link_error_is_said_with_the_linkers_own_error_and_no_command_line() -> None:
    link = ["error: linking with `cc` failed: exit status: 1", "  |",
            '  = note:  "cc" "/home/dev/shop/target/debug/build/libc-1/symbols.o" '
            '"-fuse-ld=lld" "-nodefaultlibs"',
            "  = note: some arguments are omitted. use `--verbose` to show all linker arguments",
            "  = note: clang: error: invalid linker name in argument '-fuse-ld=lld'", "  ", ""]
    log = lines(["   Compiling libc v0.2.186", *link,
                 "error: could not compile `libc` (build script) due to 1 previous error"])
    [memory] = learned(log)
    assert memory == ("The log reports: linking with `cc` failed: exit status: 1: clang: error: "
                      "invalid linker name in argument '-fuse-ld=lld'."), memory
    # control: notes of rustc's own are said as notes, the command line never
    own = lines(["error[E0425]: cannot find value `total` in this scope",
                 "  --> src/cart.rs:9:5", "   |", " 9 |     total", "   |     ^^^^^", "   |",
                 "   = note: similarly named constant `TOTAL` defined here", "",
                 "error: could not compile `shop` (lib) due to 1 previous error"])
    [said] = learned(own)
    assert said == ("The log reports: cannot find value `total` in this scope at src/cart.rs:9:5 "
                    "— similarly named constant `TOTAL` defined here."), said


def test_a_rust_error_says_the_source_line_it_quotes_when_its_words_do_not() -> None:
    log = lines([
        "error: couldn't read `crates/core/src/../../../data/manifest.json`: No such file or "
        "directory (os error 2)",
        "  --> crates/core/src/registry.rs:13:5", "   |",
        '13 |     include_str!("../../../data/manifest.json");',
        "   |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^", "",
        "error: could not compile `core` (lib) due to 1 previous error"])
    [memory] = learned(log)
    assert memory.endswith("at crates/core/src/registry.rs:13:5 "
                           "(`include_str!(\"../../../data/manifest.json\");`)."), memory
    # cargo-deny's gutter quotes the lock file's entry: the crate, without its registry
    deny = lines(["error[unsound]: Unsoundness in `Error::downcast_mut()`",
                  "   ┌─ /github/workspace/Cargo.lock:13:1", "   │",
                  "13 │ anyhow 1.0.102 registry+https://github.com/rust-lang/crates.io-index",
                  "   │ ------------------------------------------------------------------",
                  "   ├ ID: RUSTSEC-2026-0190", "", "advisories FAILED, licenses ok"])
    [advisory] = learned(deny)
    assert "(RUSTSEC-2026-0190) at Cargo.lock:13:1 (`anyhow 1.0.102`)" in advisory, advisory
    assert "https" not in advisory
    # control: a quoted line the words already say is not said again
    again = lines(["error[E0425]: cannot find value `total` in this scope",
                   "  --> src/cart.rs:9:5", "   |", " 9 |     total", ""])
    [plain] = learned(again)
    assert plain.endswith("in this scope at src/cart.rs:9:5."), plain
    # nor a line holding the name the words quote (the unused import among others)
    named = lines(["error: unused import: `Rollback`", "  --> src/state.rs:3:25", "   |",
                   " 3 | use crate::mode::{Mode, Rollback, State};", ""])
    [unused] = learned(named)
    assert unused.endswith("unused import: `Rollback` at src/state.rs:3:25."), unused


def test_the_go_import_stack_says_the_package_at_its_end_and_why() -> None:
    tidy = gh("modules", "Tidy", [
        "##[group]Run go mod tidy", "go mod tidy", "git diff --exit-code -- .",
        "shell: /usr/bin/bash -e {0}", "##[endgroup]",
        "go: finding module for package example.com/shop/core",
        "go: example.com/shop/tests tested by",
        "\texample.com/shop/tests.test imports",
        "\texample.com/shop/core: no matching versions for query \"latest\"",
        "##[error]Process completed with exit code 1."])
    [memory] = learned(setup("modules") + tidy + post("modules"))
    assert memory.endswith("failed: example.com/shop/core: no matching versions for query "
                           "\"latest\" (imported by example.com/shop/tests)."), memory
    # control: the stack's first line alone (cut before its end) is no import stack
    cut = gh("modules", "Tidy", [
        "##[group]Run go mod tidy", "go mod tidy", "##[endgroup]",
        "go: example.com/shop/tests tested by",
        "##[error]Process completed with exit code 1."])
    [short] = learned(setup("modules") + cut + post("modules"))
    assert "imported by" not in short


def test_golangci_lints_related_information_is_no_cause_and_a_clipped_cause_keeps_its_rule(
) -> None:
    store = '"example.com/very/long/module/path/of/the/key/value/store/package"'
    said = [
        f"##[error]internal/store/a.go:7:2: ST1019: package {store} is being imported more "
        "than once (staticcheck)",
        f"##[error]internal/store/a.go:8:2: ST1019(related information): other import of "
        f"{store} (staticcheck)",
        f"##[error]internal/store/b.go:7:2: ST1019: package {store} is being imported more "
        "than once (staticcheck)",
        f"##[error]internal/store/b.go:8:2: ST1019(related information): other import of "
        f"{store} (staticcheck)",
        "##[error]api/activity.go:45:1: cognitive complexity 46 of func "
        "`(*Activity).GetFieldDeserializersForEveryKnownFieldOfTheActivityRecord` is high "
        "(> 30) (gocognit)",
        "##[error]api/models.go:80:1: File is not properly formatted (gofmt)",
        "##[error]api/constants.go:26:1: File is not properly formatted (gofmt)",
        "##[error]api/builder.go:43:1: File is not properly formatted (gofmt)",
        "##[error]issues found"]
    step = gh("lint", "Run golangci-lint", ["##[group]Run golangci/golangci-lint-action@v9",
                                            "with:", "  version: latest", "##[endgroup]", *said])
    [memory] = learned(setup("lint") + step + post("lint"))
    assert "related information" not in memory, memory
    assert "ST1019: package" in memory and "(gocognit) at api/activity.go:45" in memory, memory
    # control: unclipped, the other cause is said whole
    short = [line for line in said if "gocognit" not in line and "ST1019" not in line] + [
        "##[error]api/activity.go:45:1: cognitive complexity 46 of func `f` is high (> 30) "
        "(gocognit)"]
    step = gh("lint", "Run golangci-lint", ["##[group]Run golangci/golangci-lint-action@v9",
                                            "##[endgroup]", *short])
    [whole] = learned(setup("lint") + step + post("lint"))
    assert "Also: cognitive complexity 46 of func `f` is high (> 30) (gocognit) at " \
        "api/activity.go:45." in whole, whole


def _tests(job: str, said: list[str], verdict: str) -> str:
    return setup(job) + gh(job, "Tests", [
        "##[group]Run go test ./...", "go test ./...", "##[endgroup]", *said,
        f"##[error]{verdict}"]) + post(job)


FAILING = ["--- FAIL: TestTotal (0.00s)", "    cart_test.go:12: total = 9, want 10", "FAIL"]


def test_a_matrix_leg_cancelled_while_it_ran_is_said_with_its_matrixs_failure() -> None:
    log = (_tests("Test (oldstable)", FAILING, "Process completed with exit code 1.")
           + _tests("Test (stable)", ["ok  \texample.com/shop/api\t0.2s"],
                    "The operation was canceled."))
    [memory] = learned(log)
    assert memory.startswith("CI job 'Test (oldstable)'"), memory
    assert memory.endswith("Its matrix leg 'Test (stable)': 'The operation was canceled' "
                           "while running (a cascade)."), memory
    # control: a job of another name cancelled while it ran is no leg of this matrix
    other = (_tests("Test (oldstable)", FAILING, "Process completed with exit code 1.")
             + _tests("Build", ["compiling"], "The operation was canceled."))
    [alone] = learned(other)
    assert "matrix leg" not in alone


def _status(script: list[str], printed: list[str]) -> str:
    return setup("CI Summary") + gh("CI Summary", "Check Status", [
        f"##[group]Run {script[0]}", *script, "shell: /usr/bin/bash -e {0}", "##[endgroup]",
        *printed, "##[error]Process completed with exit code 1."]) + post("CI Summary")


def test_a_status_job_comparing_results_written_into_its_script_is_a_cascade() -> None:
    script = ['if [ "failure" != "success" ]; then', '  echo "❌ Security check failed"',
              "  exit 1", "fi", 'if [ "success" != "success" ]; then',
              '  echo "❌ Lint check failed"', "  exit 1", "fi", 'echo "✅ All checks passed"']
    log = (_tests("Test", FAILING, "Process completed with exit code 1.")
           + _status(script, ["❌ Security check failed"]))
    [memory] = learned(log)
    assert memory.startswith("CI job 'Test'"), memory
    assert memory.endswith("Job 'CI Summary' only compares other jobs' results and failed "
                           "saying '❌ Security check failed' (a cascade)."), memory
    # control: a script that runs a tool between its tests is no status job
    tool = ['if [ "failure" != "success" ]; then', "  cargo deny check", "fi",
            'if [ "success" != "success" ]; then', "  exit 1", "fi"]
    both = learned(_tests("Test", FAILING, "Process completed with exit code 1.")
                   + _status(tool, ["error: advisories FAILED"]))
    assert not any("only compares" in m for m in both), both


def test_a_runner_s_log_quoted_past_the_first_64_kb_of_a_report_is_found(
        memx: Memx, repo: Path) -> None:
    # a long failure report (its analysis, ~150 KB) ending on the run's failing lines
    analysis = [f"Line {n} of the analysis, about the build, its cache and its dependencies."
                for n in range(2000)]
    report = "\n".join(["# Build failure report", "", *analysis, "", "```", *QUOTED, "```"])
    assert len(report.encode()) > 2 * 64 * 1024
    (repo / "report.md").write_text(report + "\n")
    out = json.loads(memx.ok("ingest", "report.md", "--dry-run", "--json"))
    assert out["format"] == "ci-log", out
    # control: the same report without the quoted log stays a text
    (repo / "plain.md").write_text("\n".join(["# Build failure report", "", *analysis]) + "\n")
    assert json.loads(memx.ok("ingest", "plain.md", "--dry-run", "--json"))["format"] == "text"
    # control: a log quoted past the bound of the look is not looked for
    far = [*analysis] * 8
    assert len("\n".join(far).encode()) > QUOTE_SCAN
    (repo / "far.md").write_text("\n".join([*far, "```", *QUOTED, "```"]) + "\n")
    assert json.loads(memx.ok("ingest", "far.md", "--dry-run", "--json"))["format"] == "text"


def test_job_names_with_a_failed_icon_in_a_copied_annotation_list_are_no_cause() -> None:
    listed = ["Annotations", "2 errors", "\u2717 Checks", "Process completed with exit code 1.",
              "\u2717 Tests (22)", "src/cart/total.ts#L14",
              "AssertionError: expected 9.99 to be 10"]
    failing = ["Run pnpm vitest run", "", " FAIL  src/cart/total.test.ts > cart > sums the prices",
               "AssertionError: expected 9.99 to be 10", " \u276f src/cart/total.test.ts:14:21",
               "", "Error: Process completed with exit code 1."]
    memories = learned("\n".join([*listed, "", *failing]) + "\n")
    assert memories == ["The log reports: AssertionError: expected 9.99 to "
                        "be 10 at src/cart/total.test.ts:14 (test src/cart/total.test.ts > cart > "
                        "sums the prices)."], memories
    # control: the same marked line in a tool's own output is its finding
    marked = ["Run ./scripts/check-size.sh", "\u2717 bundle is 512 kB, over the 400 kB budget",
              "Error: Process completed with exit code 1."]
    [said] = learned("\n".join(marked) + "\n")
    assert "bundle is 512 kB, over the 400 kB budget" in said, said


def test_the_quoted_source_line_gives_way_to_an_other_cause_the_room_would_leave_out() -> None:
    def block(message: str, where: str, code: str) -> list[str]:
        return [f"error: {message}", f"  --> {where}", "   |", f"11 |     {code}",
                "   |     ^^^^", ""]
    long = ("the trait bound `Map<Enumerate<Iter<'_, Row>>, IntoIdx<RowId>>: ParallelSource` "
            "is not satisfied because the rows are walked by a sequential adaptor here and "
            "the pool expects a parallel source of rows for every owner of the map")
    code = ("par_each(rows.iter().enumerate().map(IntoIdx::new)).for_each(|(owner, rows)| "
            "{ check(owner, rows, &index, &pool) });")
    other = ("mismatched types: expected `u32`, found `i64` in the total of the cart, which "
             "sums prices kept in cents")
    log = lines([*block(long, "crates/shop-index/src/index/consistency/check.rs:11:14", code),
                 *block(other, "src/cart.rs:20:9", "let total: u32 = cents;"),
                 "error: could not compile `shop` (lib) due to 2 previous errors"])
    [memory] = learned(log)
    assert "Also: mismatched types" in memory and "par_each" not in memory, memory
    # control: with room for both, the line is quoted
    short = lines([*block("the trait bound `Rows: ParallelSource` is not satisfied",
                          "src/index/check.rs:11:14", "par_each(rows)"),
                   *block("mismatched types", "src/cart.rs:20:9", "let total: u32 = cents;"),
                   "error: could not compile `shop` (lib) due to 2 previous errors"])
    [both] = learned(short)
    assert "(`par_each(rows)`)" in both and "Also: mismatched types" in both, both


def test_a_status_job_is_said_beside_the_failure_of_the_job_its_words_name() -> None:
    script = ['if [ "failure" != "success" ]; then', '  echo "❌ Security check failed"',
              "  exit 1", "fi", 'if [ "failure" != "success" ]; then',
              '  echo "❌ Tests failed"', "  exit 1", "fi"]
    audit = setup("Security") + gh("Security", "Audit", [
        "##[group]Run npm audit", "npm audit", "##[endgroup]",
        "npm error code EAUDIT", "npm error audit found 2 high severity vulnerabilities",
        "##[error]Process completed with exit code 1."]) + post("Security")
    memories = learned(_tests("Test", FAILING, "Process completed with exit code 1.") + audit
                       + _status(script, ["❌ Security check failed"]))
    assert len(memories) == 2, memories
    assert "only compares" not in memories[0] and "only compares" in memories[1], memories
    # control: words naming no job's failure go beside the first failure they fit with
    memories = learned(_tests("Test", FAILING, "Process completed with exit code 1.") + audit
                       + _status(script, ["❌ Some gate failed"]))
    assert "only compares" in memories[0], memories
