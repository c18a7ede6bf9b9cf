"""Issue 24, the sentence of a lesson commit that carries the lesson (``commit_message.py``,
``commit_fact.py``): a reason keeps the sentence that carries it on (one leaning on it, the
code-naming sentence closing its paragraph, a one-order paragraph after it), a reason that
goes on against the sentence before ("However, …") or leans on it ("… accordingly") takes
that one, a sentence too long to keep ends at a clause, a bare word before the subject's
colon that is no kind of change names the part changed, and a plural noun with its relative
clause ("Tests that …") is no order. Each with the control that stays as it was; the
commits are written into a real repository and read by ``memx ingest --git-log``."""

from __future__ import annotations

from pathlib import Path

from memx_cli.reflector import commit_message as msg

from .conftest import Memx
from .test_reflector_commit_changelog import candidates
from .test_reflector_gitlog import commit


def _content(by_sha: dict[str, dict[str, object]], sha: str) -> str:
    return str(by_sha[sha]["content"])


def test_a_reason_keeps_the_sentence_that_carries_it_on(memx: Memx, repo: Path) -> None:
    """The reason alone said what was wrong; the sentence after it says what it led to or
    what the change does about it: one leaning on it ("Their …"), the sentence closing
    its paragraph that names code, or a paragraph of one short order after it."""
    base = commit(repo, "Start", {"README.md": "tiles\n"})
    leaning = commit(repo, "Drop encoded control runes from rendered names\n\n"
                     "The renderer already dropped raw 8-bit control bytes because they "
                     "decode as invalid runes on their own. Their two-byte encodings decode "
                     "to the same code points but were passed through, letting a file name "
                     "move the cursor.", {"render.go": "package tiles\n"})
    closing = commit(repo, "Inherit the linter's default rule set\n\n"
                     "The `select` key replaces the linter's default selection rather than "
                     "adding to it, so the default rules never applied here. Switching to "
                     "`extend-select` makes them run again.", {"lint.go": "package tiles\n"})
    ordered = commit(repo, "Guard the score table against overflow on 32-bit builds\n\n"
                     "On 32-bit targets the product of both lengths wraps negative, so the "
                     "small-table fallback is skipped and the allocation panics.\n\n"
                     "Widen to int64 before multiplying.", {"score.go": "package tiles\n"})
    by_sha = candidates(memx, base)
    assert _content(by_sha, leaning).endswith(
        "because they decode as invalid runes on their own. Their two-byte encodings decode "
        "to the same code points but were passed through, letting a file name move the "
        "cursor.")
    assert _content(by_sha, closing).endswith(
        "so the default rules never applied here. Switching to `extend-select` makes them run "
        "again.")
    assert _content(by_sha, ordered).endswith(
        "so the small-table fallback is skipped and the allocation panics. Widen to int64 "
        "before multiplying.")


def test_a_sentence_that_does_not_carry_the_reason_on_stays_out(memx: Memx, repo: Path) -> None:
    """Controls: a next paragraph that is no order ("Reported by …"), a code-naming
    sentence in the middle of the paragraph or closing it without pointing back, a longer paragraph after the reason, a next
    paragraph's "That helper …" (what it means may have been said before), and a squash
    merge's list item (another commit's title)."""
    base = commit(repo, "Start", {"README.md": "tiles\n"})
    credit = commit(repo, "Guard the score table against overflow on 32-bit builds\n\n"
                    "On 32-bit targets the product of both lengths wraps negative, so the "
                    "small-table fallback is skipped and the allocation panics.\n\n"
                    "Reported by the packaging team.", {"score.go": "package tiles\n"})
    middle = commit(repo, "Inherit the linter's default rule set\n\n"
                    "The `select` key replaces the linter's default selection rather than "
                    "adding to it, so the default rules never applied here. Switching to "
                    "`extend-select` makes them run again. The new rules are ignored for now.",
                    {"lint.go": "package tiles\n"})
    longer = commit(repo, "Widen the tile index on 32-bit builds\n\n"
                    "On 32-bit targets the index wraps negative, so the cache lookup misses "
                    "every tile.\n\n"
                    "Rewrite the index arithmetic in the loader and in the cache, where the "
                    "same product was computed twice for every tile of the level.",
                    {"index.go": "package tiles\n"})
    unrelated = commit(repo, "Inspect the legacy environment once\n\n"
                       "The helper inspects the environment each time. A reinstall runs two "
                       "inspections instead of eleven because it still needs fresh metadata "
                       "after the install. The helper module now lists `__all__` at its end.",
                       {"legacy.py": "once = 1\n"})
    apart = commit(repo, "Select installed packages by name\n\n"
                   "Selection runs through the helper the health command uses. The outdated "
                   "check keeps its own selection, because the upgrade command calls it for "
                   "every environment.\n\n"
                   "That helper keyed its result by the name as typed, which listed one "
                   "package twice.", {"select.py": "names = 1\n"})
    squash = commit(repo, "Keep the zoom level between reloads (#12)\n\n"
                    "* The zoom level was lost because the viewer state was rebuilt\n\n"
                    "* Add tests for the zoom level", {"viewer.go": "package tiles\n"})
    by_sha = candidates(memx, base)
    assert _content(by_sha, credit).endswith("the allocation panics.")
    assert "Switching to" not in _content(by_sha, middle)
    assert _content(by_sha, middle).endswith("so the default rules never applied here.")
    assert _content(by_sha, longer).endswith("so the cache lookup misses every tile.")
    assert _content(by_sha, unrelated).endswith("it still needs fresh metadata after the install.")
    assert _content(by_sha, apart).endswith("calls it for every environment.")
    assert "Add tests" not in _content(by_sha, squash)


def test_a_reason_against_or_from_the_sentence_before_takes_it(memx: Memx, repo: Path) -> None:
    """"However, we only do this for …" and "Adjusting accordingly …" say why about the
    sentence before: the memory says that one too. Control: a reason that stands alone."""
    base = commit(repo, "Start", {"README.md": "tiles\n"})
    contrast = commit(repo, "Stop preview processes on Windows\n\n"
                      "The preview runs in a process group of its own and gets a "
                      "CTRL_BREAK_EVENT to stop. However, we only do this for pwsh, because "
                      "cmd.exe does not always exit on Ctrl-Break.",
                      {"preview.go": "package tiles\n"})
    accordingly = commit(repo, "Prepare the command line for the next release of the parser\n\n"
                         "In version 9.0 the parser library deprecated `MultiCommand` in favour "
                         "of `Group`. Adjusting accordingly to prevent a break, as `Group` "
                         "already exists in version 8.",
                         {"cli.py": "group = 1\n"})
    alone = commit(repo, "Rename the command group of the parser\n\n"
                   "The old name reads badly in the help. Renaming it to prevent a clash with "
                   "the plugin's own group.", {"cli2.py": "group = 2\n"})
    by_sha = candidates(memx, base)
    assert "The preview runs in a process group of its own and gets a CTRL_BREAK_EVENT to " \
           "stop. However, we only do this for pwsh" in _content(by_sha, contrast)
    assert "In version 9.0 the parser library deprecated `MultiCommand` in favour of `Group`. " \
           "Adjusting accordingly" in _content(by_sha, accordingly)
    assert "reads badly" not in _content(by_sha, alone)
    assert "Renaming it to prevent a clash" in _content(by_sha, alone)


def test_a_housekeeping_reason_keeps_the_code_naming_sentence_closing_it(
        memx: Memx, repo: Path) -> None:
    """A chore's body sentence about a platform ("… on Windows") is kept with the sentence
    closing its paragraph that names the code to use; a next paragraph of other cases
    stays out (control)."""
    base = commit(repo, "Start", {"README.md": "tiles\n"})
    told = commit(repo, "chore(bench): correct the source path on Windows\n\n"
                  "The default path came from `URL.pathname`, which yields `/C:/src` on "
                  "Windows and a broken path after `pathToFileURL`. `fileURLToPath` is correct "
                  "on all platforms.", {"bench/run.ts": "export {}\n"})
    other = commit(repo, "chore(store): read the cache folder from its file URL\n\n"
                   "The cache path came from `URL.pathname`, which yields `/C:/cache` on "
                   "Windows and a broken path after `pathToFileURL`.\n\n"
                   "Also adds two cases that measure the JSON response path and the "
                   "middleware chain, which no case measured before.",
                   {"store/cache.ts": "export {}\n"})
    by_sha = candidates(memx, base)
    assert _content(by_sha, told).endswith(
        "a broken path after `pathToFileURL`. `fileURLToPath` is correct on all platforms.")
    assert _content(by_sha, other).endswith("a broken path after `pathToFileURL`.")


def test_a_long_sentence_ends_at_a_clause() -> None:
    """A sentence over the limit ends at a clause: the one running past the limit when it
    ends soon after, else the last one that fits; a sentence within the limit or just
    past it, and one with no clause to end at, as before (controls)."""
    listed = ", ".join(f"`command{n}`" for n in range(14))
    lead = (f"The reference was written by hand from a fixed list, so it had drifted: "
            f"fourteen subcommands ({listed}) were missing")
    assert msg.MAX_SENTENCE - 60 < len(lead) < msg.MAX_SENTENCE
    running = f"{lead}, several defaults were wrong, and the examples named options that " \
              f"were removed two releases ago and that nobody had noticed since then."
    assert msg.sentences(running) == [f"{lead}, several defaults were wrong."]
    far = f"{lead}, and several of the defaults it listed for the environment variables " \
          f"were wrong in ways that nobody who read the page could have noticed by then."
    assert msg.sentences(far) == [f"{lead}."]
    just_past = f"{lead}, so users of the tool were lost."
    assert len(just_past) > msg.MAX_SENTENCE
    assert msg.sentences(just_past) == [just_past]
    short = "The reference was written by hand, so it had drifted."
    assert msg.sentences(short) == [short]
    unbroken = "word " * 80
    assert msg.sentences(unbroken) == [unbroken.strip()[:msg.MAX_SENTENCE]]


def test_a_bare_word_before_the_colon_names_the_part(memx: Memx, repo: Path) -> None:
    """"powershell: escape …" is about the PowerShell completion: the word stays as the
    subject's scope, as "feat(powershell):" keeps it; a kind of change ("docs:", "fix:",
    "feat:") goes, as before."""
    assert msg.core("powershell: escape variable with curly brackets (#1960)") == \
        "powershell: Escape variable with curly brackets"
    assert msg.core("feat(powershell): escape the variable") == "powershell: Escape the variable"
    # a word git's prefix rule leaves on the subject is said once
    assert msg.core("tests_black: always use the runner") == "tests_black: always use the runner"
    assert msg.core("axum-extra: remove unused feature") == "Axum-extra: remove unused feature"
    for kind in ("docs", "fix", "feat", "chore", "perf"):
        assert msg.core(f"{kind}: escape the variable") == "Escape the variable"
    base = commit(repo, "Start", {"README.md": "tiles\n"})
    scoped = commit(repo, "powershell: escape variable with curly brackets (#1960)\n\n"
                    "This fixes an issue with program names that include a dot, because the "
                    "shell reads the dot as a member access.",
                    {"powershell_completions.go": "package tiles\n"})
    by_sha = candidates(memx, base)
    assert _content(by_sha, scoped).startswith("powershell: Escape variable with curly brackets:")


def test_a_plural_noun_and_its_relative_clause_is_no_order() -> None:
    """"Tests that install …" states what some tests do; "Remove that check …" and "Adds
    the flag …" are what a change does (controls)."""
    assert not msg.imperative("Tests that install a package need the network.")
    assert not msg.imperative("Plugins which register hooks run first.")
    assert msg.imperative("Remove that check from the loop.")
    assert msg.imperative("Adds the flag to the parser.")
    assert msg.imperative("Process the queue before the timer fires.")
