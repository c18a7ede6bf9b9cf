"""Issue 24, which words of a commit's body its memory carries (``commit_message.py``,
``commit_fix.py``, ``signals.py``, ``distiller.py``): a squash merge's rule comes from its
first own commit, not from a follow-up or a nested list; "e.g." and "i.e." end no
sentence; a clause announcing a code block and a Markdown link definition are not prose;
a phrasal verb's order ("Fall back to …") is the fix; the problem told twice before the
fix is all of it the Error. Each with the control that stays as it was."""

from __future__ import annotations

from pathlib import Path

from memx_cli.reflector import commit_message as msg

from .conftest import Memx
from .test_reflector_commit import reflect

PANE = [("M", "src/pane.go")]


def test_a_squash_rule_comes_from_its_first_own_commit(memx: Memx, repo: Path) -> None:
    """A rule in a later item of a squash merge is a follow-up of the pull request (a
    review's "Use the built-in … rather than the duplicated one"), not its lesson; the
    first item, or the one after an item that says the title again, is."""
    later = ("Add support for socket options (#668)\n\n"
             "* Add support for socket options\n\n"
             "* Pass the options to the pool\n\n"
             "* Use the built-in socket.create_connection method rather than the "
             "duplicated one\n")
    assert all(kind != "convention" for kind, _ in reflect(repo, later, PANE))
    first = later.replace("* Pass the options to the pool\n\n", "")  # control
    assert reflect(repo, first, PANE) == [
        ("convention", "Use the built-in socket.create_connection method rather than the "
                       "duplicated one.")]
    # the title said again with the rule: "Use ruff format" over "Use ruff format instead
    # of black"
    extended = "Use ruff format (#831)\n\n* Use ruff format instead of black\n\n* Lint\n"
    assert reflect(repo, extended, PANE) == [
        ("convention", "Use ruff format instead of black.")]


def test_a_nested_list_details_its_item(memx: Memx, repo: Path) -> None:
    """A list under a squash merge's item (another marker) details that commit: its
    "Use X instead of Y" is a review note, not the pull request's rule."""
    nested = ("Warn when fixtures get wrapped with a decorator (#13745)\n\n"
              "* Warn when fixtures get wrapped with a decorator\n\n"
              "* Address review comments\n\n"
              "- Use the pytest#214 reference instead of a bare issue number\n")
    assert all(kind != "convention" for kind, _ in reflect(repo, nested, PANE))
    top = nested.replace("* Address review comments\n\n- ", "* ")  # control: an own item
    assert reflect(repo, top, PANE) == [
        ("convention", "Use the pytest#214 reference instead of a bare issue number.")]


FIX_EG = ("fix(etag): match tags with whitespace before the comma (#5222)\n\n"
          "When whitespace preceded a comma (e.g. `\"a\" , \"b\"`), the preceding tag kept a "
          "trailing space, so the match failed and returned 200 instead of 304.\n\n"
          "Trim each token after splitting on the comma.\n")


def test_an_abbreviation_ends_no_sentence(memx: Memx, repo: Path) -> None:
    """"(e.g. `"a" , "b"`)" is inside its sentence: the Error is the whole sentence, not
    what follows the abbreviation; a full stop before a code span still ends one."""
    files = [("M", "src/etag.ts")]
    assert reflect(repo, FIX_EG, files) == [
        ("error-fix", "etag: Match tags with whitespace before the comma. Error: When "
                      "whitespace preceded a comma (e.g. `\"a\" , \"b\"`), the "
                      "preceding tag kept a trailing space, so the match failed and returned "
                      "200 instead of 304. Fix: Trim each token after splitting on the comma "
                      "(changed src/etag.ts).")]
    stop = FIX_EG.replace("(e.g. `\"a\" , \"b\"`)", "(as in the tests). `\"a\" , \"b\"` broke")
    [(_, memory)] = reflect(repo, stop, files)
    assert "Error: `\"a\" , \"b\"` broke, the preceding tag" in memory


def test_the_clause_announcing_a_code_block_is_cut(memx: Memx, repo: Path) -> None:
    """", so e.g." before an indented example ends its sentence where the clause before
    it does; a Markdown link definition ("[rfc]: https://…") is no sentence, so it is not
    the fix."""
    message = ("fix: show long collections in assertion messages\n\n"
               "The message went through `saferepr(obj, maxsize)`. That lifts the length "
               "cap, but it keeps the per-container limits (`maxlist=6`), so e.g.\n\n"
               "    assert False, dir('')\n\n"
               "stayed elided at any verbosity.\n\n"
               "Use the `_saferepr` helper instead.\n\n"
               "[saferepr]: https://example.org/saferepr\n")
    [(_, memory)] = reflect(repo, message, [("M", "src/rewrite.py")])
    assert "(`maxlist=6`). Fix: Use the `_saferepr` helper instead" in memory
    assert "e.g." not in memory and "example.org" not in memory
    kept = message.replace(", so e.g.\n\n    assert False, dir('')\n\n", ", so `dir('')` ")
    [(_, memory)] = reflect(repo, kept, [("M", "src/rewrite.py")])  # control: no block
    assert "(`maxlist=6`), so `dir('')` stayed elided at any verbosity. Fix:" in memory


def test_a_phrasal_order_is_the_fix(memx: Memx, repo: Path) -> None:
    """"Fall back to linecache…, matching …" is an order (a verb with its particle): the
    fix, not a second telling of the problem."""
    message = ("Fix missing traceback source for relative filenames (#14744)\n\n"
               "inspect.findsource() fails for code objects whose co_filename is relative "
               "to another directory, so tracebacks show `???` instead of the source.\n\n"
               "Fall back to linecache.getlines(), which also searches sys.path for bare "
               "filenames, matching the behavior of the traceback module.\n")
    [(_, memory)] = reflect(repo, message, [("M", "src/code.py")])
    assert memory == ("Error: inspect.findsource() fails for code objects whose co_filename "
                      "is relative to another directory, so tracebacks show `???` instead of "
                      "the source. Fix: Fall back to linecache.getlines(), which also "
                      "searches sys.path for bare filenames, matching the behavior of the "
                      "traceback module (changed src/code.py).")


def test_the_problem_told_twice_is_the_error(memx: Memx, repo: Path) -> None:
    """A body that tells what happened, then why it failed, then the order: both tellings
    are the Error, the order the Fix; with the order first, the statement after it is no
    Error (control)."""
    message = ("fix: deduplicate directory nodes on re-collection (#14635)\n\n"
               "When the session re-collects a parent directory, fresh child nodes were "
               "created. Since fixtures are matched by node identity, the new children "
               "didn't match the fixtures registered before.\n\n"
               "Reuse the children already seen (by path) when re-collecting a parent.\n")
    [(_, memory)] = reflect(repo, message, [("M", "src/main.py")])
    assert memory == ("Error: When the session re-collects a parent directory, fresh child "
                      "nodes were created. Since fixtures are matched by node identity, the "
                      "new children didn't match the fixtures registered before. Fix: Reuse "
                      "the children already seen (by path) when re-collecting a parent "
                      "(changed src/main.py).")
    # control: the order told first, the problem after it: what follows the order is no
    # part of the Error
    ordered = ("fix: deduplicate directory nodes on re-collection (#14635)\n\n"
               "Reuse the children already seen (by path) when re-collecting a parent. "
               "Since fixtures are matched by node identity, the new children didn't match "
               "the fixtures registered before.\n")
    [(_, memory)] = reflect(repo, ordered, [("M", "src/main.py")])
    assert memory.startswith("Deduplicate directory nodes on re-collection: Reuse the "
                             "children already seen (by path)")
    assert "Error:" not in memory and "Why: Since fixtures are matched" in memory


def test_a_verb_with_its_particle_is_an_order() -> None:
    """The particle stands between the verb and its object ("Set up the cache", "Fall back
    to `x`"); a noun before "back" says no order."""
    assert msg.imperative("Set up the cache before the first request")
    assert msg.imperative("Fall back to `linecache` when the file is relative")
    assert not msg.imperative("Set up quickly, the cache was warm")
    assert not msg.imperative("Things back then were slow")
