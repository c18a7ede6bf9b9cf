"""CI logs whose cause the readers before said too little of (issue 24): tsc's reason
indented under an error whose first line only says that something failed to fit. Each
with a control."""

from __future__ import annotations

from .test_reflector_cilog import PYTEST_STEP, gh, learned, post, setup


def tsc_step(error: str, below: list[str], annotated: bool = True) -> str:
    marked = f"##[error]{error}" if annotated else error
    return gh("quality", "Type check", [
        "##[group]Run npm run typecheck", "npm run typecheck", "shell: /usr/bin/bash -e {0}",
        "##[endgroup]", "", "> shop@0.0.0 typecheck", "> tsc --noEmit -p tsconfig.json", "",
        marked, *below, "##[error]Process completed with exit code 2."])


OVERLOAD = "src/view.test.ts(30,39): error TS2769: No overload matches this call."
REASONS = [
    "  The last overload gave the following error.",
    "    Argument of type '() => unknown' is not assignable to parameter of type "
    "'string | FunctionComponent<{}>'.",
    "      Type '() => unknown' is not assignable to type 'FunctionComponent<{}>'.",
    "        Type 'unknown' is not assignable to type 'ReactNode'."]


def test_tscs_deepest_reason_under_an_error_is_said_with_it() -> None:
    for annotated in (True, False):  # the runner's annotation, or tsc's own line
        log = setup("quality") + tsc_step(OVERLOAD, REASONS, annotated) + post("quality")
        [memory] = learned(log)
        assert memory.endswith(
            "failed: error TS2769: No overload matches this call at src/view.test.ts:30 — "
            "Type 'unknown' is not assignable to type 'ReactNode'."), (annotated, memory)
        # the levels between say less than the deepest: not repeated
        assert "FunctionComponent" not in memory, memory
    # several overloads, each with its reason: the last one's, said once
    overloads = [
        "  Overload 1 of 2, '(obj: \"Saving failed:\", msg?: never): void', gave the "
        "following error.",
        "    Argument of type 'Error' is not assignable to parameter of type 'never'.",
        "  Overload 2 of 2, '(obj: unknown, msg?: string): void', gave the following error.",
        "    Argument of type 'Error' is not assignable to parameter of type 'string'."]
    [both] = learned(setup("quality") + tsc_step(OVERLOAD, overloads) + post("quality"))
    assert both.endswith("— Argument of type 'Error' is not assignable to parameter of "
                         "type 'string'."), both
    # control: an error with nothing indented under it is said alone, and the output
    # after it (a warning of the runner's, unindented) is no reason of it
    [alone] = learned(setup("quality") + tsc_step(
        "src/cart.ts(4,7): error TS2322: Type 'string' is not assignable to type 'number'.",
        ["Node 20 is being deprecated."]) + post("quality"))
    assert alone.endswith("failed: error TS2322: Type 'string' is not assignable to type "
                          "'number' at src/cart.ts:4."), alone
    # control: a blank line ends the reasons: tsc's code frame after it is none
    framed = ["", "30   render(View)", "            ~~~~"]
    [frame] = learned(setup("quality") + tsc_step(OVERLOAD, framed, False) + post("quality"))
    assert "—" not in frame and "render" not in frame, frame


def dart_output(rows: list[str]) -> str:
    return "".join(f"{row}\n" for row in [*rows, "Target kernel_snapshot failed: Exception"])


MAIN = ["lib/pip.dart:70:45: Error: Too many positional arguments: 0 allowed, but 1 found.",
        "lib/pip.dart:145:30: Error: Too many positional arguments: 0 allowed, but 1 found."]
NOT_A_TYPE = "lib/errors.dart:121:18: Error: 'PlayerException' isn't a type."
VOID = "lib/errors.dart:91:24: Error: This expression has type 'void' and can't be used."
ASSIGNED = ("lib/net.dart:88:29: Error: The argument type 'List<Result>' can't be assigned "
            "to the parameter type 'Result'.")


def test_among_equal_other_causes_one_in_a_file_not_yet_said_goes_first() -> None:
    [memory] = learned(dart_output([*MAIN, NOT_A_TYPE, VOID, ASSIGNED]))
    assert memory.endswith("Also: 'PlayerException' isn't a type at lib/errors.dart:121. "
                           "Also: The argument type 'List<Result>' can't be assigned to the "
                           "parameter type 'Result' at lib/net.dart:88."), memory
    assert "'void'" not in memory, memory
    # control: said more often, a second slip in a file already said still goes first
    twice = VOID.replace(":91:24:", ":95:3:")
    [often] = learned(dart_output([*MAIN, NOT_A_TYPE, VOID, twice, ASSIGNED]))
    assert "Also: This expression has type 'void' and can't be used at lib/errors.dart:91" \
        in often, often


def test_a_report_quoting_the_logs_error_above_it_counts_it_once_and_whole() -> None:
    # a failure report lists the errors, one of them broken over two lines, then quotes the
    # log that holds them whole: the same place said twice is one finding, and the telling
    # cut short is the whole one's
    report = [*MAIN, NOT_A_TYPE, VOID, "lib/net.dart:88:29: Error: The argument type",
              "'List<Result>' can't be assigned to the parameter type 'Result'.", ""]
    [memory] = learned(dart_output([*report, *MAIN, NOT_A_TYPE, VOID, ASSIGNED]))
    assert "Also: The argument type 'List<Result>' can't be assigned to the parameter type " \
        "'Result' at lib/net.dart:88" in memory, memory
    assert "'void'" not in memory, memory
    # control: the log alone, each error once, reads the same
    [alone] = learned(dart_output([*MAIN, NOT_A_TYPE, VOID, ASSIGNED]))
    assert alone.split(" Also: ")[1:] == memory.split(" Also: ")[1:], (alone, memory)


def legs(names: list[str]) -> str:
    return "".join(setup(job) + gh(job, "Tests", PYTEST_STEP) + post(job) for job in names)


def test_three_or_more_legs_of_one_matrix_are_said_by_its_name_once() -> None:
    crossed = [f"E2E ({os}, {py})" for py in ("3.12", "3.11") for os in ("ubuntu-latest",
                                                                          "macos-latest")]
    [memory] = learned(legs(crossed))
    assert memory.startswith("CI job 'E2E' in 4 matrix legs (ubuntu-latest, macos-latest; "
                             "3.12, 3.11), step 'Tests' (`pytest -q"), memory
    # legs that are no full cross of their values are said leg by leg, the name once
    [some] = learned(legs(crossed[:3]))
    assert some.startswith("CI job 'E2E' in 3 matrix legs (ubuntu-latest, 3.12; macos-latest, "
                           "3.12; ubuntu-latest, 3.11), step 'Tests'"), some
    # control: two legs are still short, said by their names; other jobs are not a matrix
    [two] = learned(legs(crossed[:2]))
    assert two.startswith("CI job 'E2E (ubuntu-latest, 3.12)', 'E2E (macos-latest, 3.12)', "
                          "step 'Tests'"), two
    [apart] = learned(legs(["lint (node 24)", "unit (node 24)", "e2e (node 24)"]))
    assert apart.startswith("CI job 'lint (node 24)', 'unit (node 24)', 'e2e (node 24)', "), apart


def test_a_finding_that_names_its_rule_is_of_that_rules_kind_wherever_it_was_found() -> None:
    # a linter names each finding's rule: another rule is another kind, in the same file too
    rows = ["src/a.py:3:1: W293 Blank line contains whitespace",
            "src/a.py:5:1: W293 Blank line contains whitespace",
            "src/a.py:11:5: F401 `os` imported but unused",
            "src/a.py:20:9: SIM108 Use ternary operator instead of `if`-`else`-block",
            "src/b.py:4:1: I001 Import block is un-sorted or un-formatted",
            "Found 5 errors."]
    [memory] = learned("".join(f"{row}\n" for row in rows))
    assert "Also: F401 `os` imported but unused at src/a.py:11" in memory, memory
    assert "Also: SIM108" in memory and "I001" not in memory, memory
    # control: a second finding of a rule already said gives way to another rule's
    again = [*rows[:3], rows[3].replace("SIM108 Use ternary operator instead of "
                                        "`if`-`else`-block", "F401 `re` imported but unused"),
             *rows[4:]]
    [other] = learned("".join(f"{row}\n" for row in again))
    assert "Also: I001 Import block is un-sorted" in other, other


def build_step(rows: list[str]) -> str:
    return setup("build") + gh("build", "Build", [
        "##[group]Run flutter build apk", "flutter build apk", "shell: /usr/bin/bash -e {0}",
        "##[endgroup]", *rows, "##[error]Process completed with exit code 1."]) + post("build")


def test_among_equal_other_causes_one_at_a_line_of_the_project_goes_first() -> None:
    emitted = "error: emit-module command failed with exit code 1 (use -v to see invocation)"
    [memory] = learned(build_step([*MAIN, emitted, ASSIGNED]))
    assert memory.split(" Also: ")[1:] == [
        "The argument type 'List<Result>' can't be assigned to the parameter type 'Result' at "
        "lib/net.dart:88.", "emit-module command failed with exit code 1 (use -v to see "
        "invocation)."], memory
    # control: with no other cause at a line, the line without one is said
    [alone] = learned(build_step([*MAIN, emitted]))
    assert alone.endswith("Also: emit-module command failed with exit code 1 (use -v to see "
                          "invocation)."), alone
