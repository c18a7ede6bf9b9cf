"""Issue 24, a fix commit's body says the fix and the cause (``commit_fix``): the body's
sentence that states what the code does since the change ("the launcher now passes …")
is the fix, as an order is, where the title alone was said before; a sentence told in
the past tense before the fix ("`render(0n)` returned a single colon") is the problem,
not the fix. Each behaviour with the control that stays as it was; the commits are
written into a real repository and read by ``memx ingest --git-log``."""

from __future__ import annotations

from pathlib import Path

from memx_cli.reflector.commit_fix import now

from .conftest import Memx
from .test_reflector_commit_changelog import candidates
from .test_reflector_gitlog import commit

FAILURE = ("`launch run git+file:///src/demo` fails with `An executable named 'demo-cli' "
           "is not provided by package 'demo-cli'`, while `launch run --backend pip` on "
           "the same URL runs it. The same guess breaks `launch run pip_search`, where the "
           "launcher normalizes the typed name to `pip-search` and the installed script "
           "keeps its underscore. Both failures start in the launcher.\n\n")
BEHAVIOUR = ("Inferred names go through the venv path, which reads the entry points the "
             "package declares. A lone script runs under its own name.")


def test_what_the_code_does_now_is_the_fix(memx: Memx, repo: Path) -> None:
    """pipx's "pipx now passes `uv tool run` a script name only when the user typed one":
    the body states no order, so the memory's Fix was the title ("Discover entry points
    for inferred names") and the lesson, in the sentence with "now", was lost. Control:
    the same sentence without "now" describes the old code; the Fix stays the title."""
    base = commit(repo, "Start", {"README.md": "launch\n"})
    told = commit(repo, "fix(run): discover entry points for inferred names (#12)\n\n"
                  f"{FAILURE}The launcher now passes `--from` a script name only when the "
                  f"user typed one. {BEHAVIOUR}", {"run.py": "a = 1\n"})
    untold = commit(repo, "fix(exec): discover entry points for guessed names (#13)\n\n"
                    f"{FAILURE}The launcher passes `--from` a script name it guessed. "
                    f"{BEHAVIOUR}", {"exec.py": "a = 1\n"})
    by_sha = candidates(memx, base)
    content = str(by_sha[told]["content"])
    assert content.startswith("Error: `launch run git+file:///src/demo` fails with")
    assert "Fix: The launcher now passes `--from` a script name only when the user typed " \
           "one. Inferred names go through the venv path, which reads the entry points" in content
    control = str(by_sha[untold]["content"])
    assert "Fix: Discover entry points for guessed names" in control
    assert "passes `--from`" not in control


def test_the_story_told_in_the_past_before_the_fix_is_the_problem(memx: Memx,
                                                                   repo: Path) -> None:
    """hono's "`convertIPv6BinaryToString(0n)` returned a single ':' …" stood as the Fix
    and "Handle the all-zero value explicitly" was lost; told in the past tense before
    the order, it leads the Error. Control: a sentence on how the code works, in the
    present tense ("`upgrade` uses the truthiness …"), stays out of the Error and follows
    the order in the Fix, as before."""
    base = commit(repo, "Start", {"README.md": "net\n"})
    past = commit(repo, "fix(net): render the unspecified address as \"::\" (#21)\n\n"
                  "`formatAddress(0n)` returned a single colon instead of the canonical "
                  "\"::\" for the unspecified address. This produced an invalid address "
                  "string and broke the round trip with `parseAddress`, which throws on "
                  "a lone colon.\n\nHandle the all-zero value explicitly, mirroring the "
                  "early return for mapped addresses.", {"net.ts": "a = 1\n"})
    present = commit(repo, "fix(pins): enforce the pip floor (#22)\n\n"
                     "`SharedLibs.upgrade` uses the truthiness of a specifier intersection "
                     "to decide whether a user pin enforces `>=23.1`. The intersection of "
                     "`pip==20` and `>=23.1` retains both specifiers and remains truthy, so "
                     "the command omits the floor.\n\nAppend the floor to every shared "
                     "pip upgrade.", {"pins.py": "a = 1\n"})
    by_sha = candidates(memx, base)
    content = str(by_sha[past]["content"])
    assert "Error: `formatAddress(0n)` returned a single colon instead of the canonical" \
           in content
    assert "Fix: Handle the all-zero value explicitly" in content
    control = str(by_sha[present]["content"])
    assert "Error: The intersection of `pip==20` and `>=23.1` retains both" in control
    assert "Fix: Append the floor to every shared pip upgrade. `SharedLibs.upgrade` uses " \
           "the truthiness of a specifier" in control
    assert not control.split("Fix:")[0].count("truthiness")


def test_a_statement_of_the_new_behaviour_is_read_by_its_shape() -> None:
    """"now" between a short subject and a verb in the present tense, or after "is"; a
    test or CI passing now is how the fix was checked, a modal or "Now that" opening the
    sentence states no behaviour, and "now fails" on invalid input is a symptom."""
    assert now("Package validation now checks both the native and alternate separators.")
    assert now("The cache is now read once per run.")
    assert not now("The suite now passes on Windows.")
    assert not now("CI now mirrors the release path.")
    assert not now("Now that the index exists, lookups are cheap.")
    assert not now("It can now be used from a hook.")
    assert not now("The parser now fails on invalid input.")
