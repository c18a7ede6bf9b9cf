"""CI logs whose cause the readers before said too little of (issue 24): tsc's reason
indented under an error whose first line only says that something failed to fit. Each
with a control."""

from __future__ import annotations

from .test_reflector_cilog import gh, learned, post, setup


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
