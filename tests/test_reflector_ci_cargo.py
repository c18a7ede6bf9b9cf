"""CI logs from cargo: a lint said by the name the code gives it, a build script's panic
that is the error it sits under, the program ``cargo run`` ran, and a wrapper's verdict
that only names an exit status (issue 24)."""

from __future__ import annotations

from .test_reflector_cilog import gh, learned, raw


def lines(text: list[str]) -> str:
    return "".join(f"{line}\n" for line in text)


def lint(message: str, path: str, dashed: str, snake: str) -> list[str]:
    """A lint denied by ``-D warnings`` as clippy prints it."""
    return [f"error: {message}", f"  --> {path}", "   |", "12 |     let x = 1;",
            "   |         ^", "   |",
            f"   = note: `-D {dashed}` implied by `-D warnings`",
            f"   = help: to override `-D warnings` add `#[allow({snake})]`", ""]


def test_a_denied_lint_is_said_by_its_attribute_name_and_the_flag_once_in_short() -> None:
    # the flag's note is said once, with the first cause; the others leave it out
    log = lines([
        "    Checking kiln v0.3.0 (/home/dev/kiln)",
        *lint("unused import: `Mode`", "src/status.rs:11:30", "unused-imports",
              "unused_imports"),
        *lint("this function has too many arguments (9/7)", "src/boot.rs:40:1",
              "clippy::too-many-arguments", "clippy::too_many_arguments"),
        *lint("field assignment outside of initializer for an instance created with "
              "Default::default()", "src/state.rs:332:9",
              "clippy::field-reassign-with-default", "clippy::field_reassign_with_default"),
        "error: could not compile `kiln` (lib) due to 3 previous errors"])
    [memory] = learned(log)
    assert memory == (
        "The log reports: unused import: `Mode` (unused_imports) at src/status.rs:11:30 — an "
        "error under `-D warnings`. Also: this function has too many arguments (9/7) "
        "(clippy::too_many_arguments) at src/boot.rs:40:1. Also: field assignment outside "
        "of initializer for an instance created with Default::default() "
        "(clippy::field_reassign_with_default) at src/state.rs:332:9.")
    # rustc offers the attribute at a lint's first place only: the same words later are
    # the same lint, one cause said with how often it hit
    again = lines([*lint("variables can be used directly in the `format!` string",
                         "src/a.rs:3:5", "clippy::uninlined-format-args",
                         "clippy::uninlined_format_args"),
                   "error: variables can be used directly in the `format!` string",
                   "  --> src/b.rs:8:5", "",
                   "error: could not compile `kiln` (lib) due to 2 previous errors"])
    assert learned(again) == ["The log reports: variables can be used directly in the "
                              "`format!` string (clippy::uninlined_format_args) at src/a.rs:3:5 "
                              "(`let x = 1;`) (2 times) — an error under `-D warnings`."]
    # control: rustc errors with notes of their own keep each note's words (an other
    # cause's note differs from the first's, so it is said), and no lint name is made up
    plain = lines(["error[E0425]: cannot find value `total` in this scope",
                   "  --> src/cart.rs:9:5", "   |", "9  |     total", "   |     ^^^^^",
                   "   = note: similarly named constant `TOTAL` defined here", "",
                   "error[E0308]: mismatched types", "  --> src/cart.rs:20:9",
                   "   = note: expected type `u32` found type `i64`", "",
                   "error: could not compile `kiln` (lib) due to 2 previous errors"])
    assert learned(plain) == ["The log reports: cannot find value `total` in this scope at "
                              "src/cart.rs:9:5 — similarly named constant `TOTAL` defined "
                              "here. Also: mismatched types at src/cart.rs:20:9 — expected "
                              "type `u32` found type `i64`."]


BUILD_SCRIPT = [
    "   Compiling ocsf v0.1.0 (/home/runner/work/prism/prism/crates/ocsf)",
    "error: failed to run custom build command for `ocsf v0.1.0 "
    "(/home/runner/work/prism/prism/crates/ocsf)`", "",
    "Caused by:",
    "  process didn't exit successfully: `/home/runner/work/prism/prism/target/release/build/"
    "ocsf-1a2b/build-script-build` (exit status: 101)",
    "  --- stdout", "  cargo:rerun-if-changed=proto", "", "  --- stderr", "",
    "  thread 'main' panicked at crates/ocsf/build.rs:68:10:",
    "  prost-build failed: Could not find `protoc`",
    "  note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
    "warning: build failed, waiting for other jobs to finish...",
    "##[error]Process completed with exit code 101."]


def test_a_build_scripts_panic_is_said_with_the_cargo_error_it_sits_under() -> None:
    log = gh("build (linux)", "Build", ["##[group]Run cargo build --release",
                                        "cargo build --release", "##[endgroup]", *BUILD_SCRIPT])
    assert learned(log) == [
        "CI job 'build (linux)', step 'Build' (`cargo build --release`) failed: failed to run "
        "custom build command for `ocsf v0.1.0 (crates/ocsf)` at crates/ocsf/build.rs:68 — it "
        "panicked: prost-build failed: Could not find `protoc`."]
    # control: a panic not under an error (a program that crashed on its own) is the cause
    # itself, as before
    alone = raw(["thread 'main' panicked at src/main.rs:12:5:", "config file not found",
                 "##[error]Process completed with exit code 101."])
    assert learned(alone) == ["The log reports: panicked: config file not found at "
                              "src/main.rs:12."]


def test_the_leg_that_printed_the_panic_tells_the_cause_for_the_legs_that_did_not() -> None:
    # a report quoting each matrix leg's lines: one leg kept the panic, the others not
    def leg(home: str, panic: bool) -> list[str]:
        return ["```", f"error: failed to run custom build command for `ocsf v0.1.0 "
                f"({home}/crates/ocsf)`",
                *(["  thread 'main' panicked at crates/ocsf/build.rs:68:10:"] if panic else []),
                "  prost-build failed: Could not find `protoc`", "```", ""]
    log = lines(["# Release dry run", "", *leg("/home/runner/work/p/p", False),
                 *leg("/Users/runner/work/p/p", True)])
    [memory] = learned(log)
    assert "at crates/ocsf/build.rs:68 — it panicked: prost-build failed" in memory


def test_the_program_cargo_run_ran_names_the_failure_and_its_exit_verdict_is_none() -> None:
    log = lines(["   Compiling clap v4.6.0", "   Compiling gate v0.1.0 (/home/dev/gate/tools/gate)",
                 "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 1m 12s",
                 "     Running `target/debug/gate doctor --strict`",
                 "Error: required command missing or failing: cargo deny --version",
                 "Error: command failed with status exit status: 1"])
    assert learned(log) == ["The log (`target/debug/gate doctor --strict`) reports: required "
                            "command missing or failing: cargo deny --version."]
    # control: cargo test names its test binaries without backticks: no command is said
    tests = lines(["     Running unittests src/lib.rs (target/debug/deps/gate-1a2b3c)",
                   "Error: required command missing or failing: cargo deny --version"])
    assert learned(tests) == ["The log reports: required command missing or failing: cargo "
                              "deny --version."]


def test_a_headline_printed_twice_without_its_place_hits_no_second_file() -> None:
    # a log whose lines were copied twice in places: the lint's headline is there once more
    # without its `-->` line; the type error hit its file twice (two columns)
    trait = ["error[E0277]: the trait bound `Walk<Rows>: ParallelSource` is not satisfied",
             "  --> src/index/check.rs:11:14", "   |",
             "11 |     par_each(index.rows()).for_each(|row| {",
             "   |              ^^^^^^^^^^^^ the trait `ParallelSource` is not implemented", ""]
    # (an older rustc: the note, no help line naming the attribute)
    unused = lint("unused import: `ParallelSource`", "src/index/check.rs:3:41",
                  "unused-imports", "unused_imports")[:-2] + [""]
    log = lines(["    Checking tally v0.2.0 (/home/dev/tally)", *trait,
                 *[line.replace("11:14", "11:5") for line in trait], unused[0], *unused,
                 "error: aborting due to 3 previous errors"])
    [memory] = learned(log)
    # the type error leads: the unlocated headline is no second file for the lint
    assert memory.startswith("The log reports: the trait bound `Walk<Rows>: ParallelSource` "
                             "is not satisfied at src/index/check.rs:11:14 (2 times)"), memory
    # said by its located telling, with the flag that made it an error
    assert memory.endswith("Also: unused import: `ParallelSource` at src/index/check.rs:3:41 "
                           "— an error under `-D warnings`."), memory
    # control: a lint that really hit two files leads over the error that hit one
    other = [line.replace("src/index/check.rs:3:41", "src/index/load.rs:2:9") for line in unused]
    [spread] = learned(lines([*trait, *[line.replace("11:14", "11:5") for line in trait],
                              *unused, *other, "error: aborting due to 4 previous errors"]))
    assert spread.startswith("The log reports: unused import: `ParallelSource`"), spread


def test_long_types_are_said_by_their_names_and_azures_exit_verdict_is_none() -> None:
    spelled = ("`std::iter::Map<std::iter::Enumerate<std::slice::Iter<'_, core::index::Table<"
               "core::index::RowId, std::option::Option<core::index::Row<'_>>>>>, "
               "core::index::ToId<core::ids::TableId>>: core::sync::ParallelSource`")
    log = raw(["##[section]Starting: Check", "    Checking tally v0.2.0 (/checkout/tally)",
               f"error[E0277]: the trait bound {spelled} is not satisfied",
               "  --> src/index/check.rs:11:14", "   |", "11 |     par_each(rows)", "",
               "error: aborting due to previous error", "",
               "##[error]Bash exited with code '101'.", "##[section]Finishing: Check"])
    [memory] = learned(log)
    assert memory == ("The log reports: the trait bound `Map<Enumerate<…>, ToId<…>>: "
                      "ParallelSource` is not satisfied at src/index/check.rs:11:14 "
                      "(`par_each(rows)`)."), memory
    # control: a type short enough to read whole keeps its module path, and a verdict
    # that is no exit code's is still said
    short = raw(["error[E0308]: mismatched types: expected `std::collections::HashMap<String, "
                 "u8>`", "  --> src/index/load.rs:4:9", "",
                 "##[error]Bash wrote to stderr: the index is locked"])
    [said] = learned(short)
    assert "`std::collections::HashMap<String, u8>`" in said
    assert "the index is locked" in said, said
