"""Issue 24, what a commit tells users beside its title (``reflector/commit.py``,
``commit_fact.py``, ``commit_message.py``, ``routine.py``): a dependency bump that adds its
own changelog entry ("Minimum supported version of X is 6.0"), a title whose verb is
"merge", a short title standing on its entry, a rule in the subject explained by the entry,
git's cherry-pick line, a squash merge's rule under a title naming its platform, a
quoted list item that only looks like ``key: value``, a list nested under an entry and a
long list cut to what fits. Each with the control that stays as
it was."""

from __future__ import annotations

from pathlib import Path

from memx_cli.reflector import commit as rules
from memx_cli.reflector import commit_fact

from .conftest import Memx
from .test_reflector_commit_changelog import CHANGES, _add, _diff, candidates
from .test_reflector_gitlog import commit


def _entry(text: str) -> dict[str, str]:
    return {"CHANGES.rst": _diff(CHANGES, _add(text), "CHANGES.rst")}


MANIFEST = '[project]\nname = "tiles"\ndependencies = [\n    "pillow>=9.1",\n]\n'
BUMPED = MANIFEST.replace("pillow>=9.1", "pillow>=11")


def test_a_bump_the_maintainers_announce_is_kept(memx: Memx, repo: Path) -> None:
    """"upgrade pillow" is a routine bump, unless the commit adds its own changelog entry
    about it: a raised floor users must know. A bump without an entry, and one whose only
    entry is about something else, stay routine."""
    base = commit(repo, "Start", {"CHANGES.rst": CHANGES, "pyproject.toml": MANIFEST})
    told = commit(repo, "upgrade pillow", {
        "pyproject.toml": BUMPED,
        "CHANGES.rst": _add("-   Minimum supported version of Pillow is 11.0.\n")})
    quiet = commit(repo, "upgrade pillow again", {"pyproject.toml": MANIFEST})
    other = commit(repo, "bump pillow", {
        "pyproject.toml": BUMPED,
        "CHANGES.rst": _add("-   Tiles are cached per zoom level.\n",
                            (repo / "CHANGES.rst").read_text())})
    by_sha = candidates(memx, base)
    assert by_sha[told]["rule"] == "Fact"
    assert by_sha[told]["content"] == ("Upgrade pillow: Minimum supported version of Pillow "
                                       "is 11.0 (in 2.1.0).")
    assert quiet not in by_sha and other not in by_sha


def test_a_title_whose_verb_is_merge_is_no_merge(memx: Memx, repo: Path) -> None:
    """"merge runs of blank lines" changes what the project does; git's own merge titles
    ("Merge branch 'x'", "Merge pull request #3 from …") name no change even beside an
    entry."""
    base = commit(repo, "Start", {"CHANGES.rst": CHANGES})
    merged = commit(repo, "merge runs of blank lines", {
        "CHANGES.rst": _add("-   ``squeeze`` merges any number of blank lines.\n"),
        "src/text.py": "a = 1\n"})
    by_sha = candidates(memx, base)
    assert by_sha[merged]["content"] == ("Merge runs of blank lines: ``squeeze`` merges any "
                                         "number of blank lines (in 2.1.0).")
    entry = _entry("-   ``squeeze`` merges any number of blank lines.\n")
    files = [("M", "src/text.py"), ("M", "CHANGES.rst")]
    for title in ("Merge branch 'squeeze-lines' into main",
                  "Merge pull request #31 from someone/squeeze-lines",
                  "Merge develop into main"):
        kept, _ = rules.reviewed(title, files, "", entry, 0, facts=True)
        assert kept == []
    kept, _ = rules.reviewed("merge blank lines into one line", files, "", entry, 0,
                             facts=True)
    assert [k.candidate.rule for k in kept] == ["Fact"]


def test_a_short_title_stands_on_its_entry() -> None:
    """"Initialize _pin" is two words: too little alone, a fact with the entry it adds; a
    release's version ("Version 2.1.0") is no title that stands on the notes it adds."""
    files = [("M", "src/debug.py"), ("M", "CHANGES.rst")]
    entry = _entry("-   ``Console`` starts with an empty history when ``persist=False``.\n")
    kept, _ = rules.reviewed("Initialize history", files, "", entry, 0, facts=True)
    assert [k.candidate.text for k in kept] == [
        "Initialize history: ``Console`` starts with an empty history when "
        "``persist=False``."]
    alone, _ = rules.reviewed("Initialize history", files[:1], "", {}, 0, facts=True)
    assert alone == []
    # a release titled by its version adds the notes of the changes it ships: others' news
    notes = [("M", "docs/release-notes.md"), ("M", "src/__init__.py")]
    shipped = {"docs/release-notes.md": _diff("# Release notes\n", "# Release notes\n\n"
                                              "## 2.1.0\n\n* Keep the history of a "
                                              "persistent console.\n",
                                              "docs/release-notes.md")}
    for title in ("Version 2.1.0", "v2.1.0"):
        released, _ = rules.reviewed(title, notes, "", shipped, 0, facts=True)
        assert released == []


def test_a_rule_in_the_subject_is_explained_by_its_entry() -> None:
    """"use blake2b instead of md5" with no body: the entry it adds says why. A body that
    gives the reason keeps it; git's "(cherry picked from commit …)" is no reason."""
    files = [("M", "src/digest.py"), ("M", "CHANGES.rst")]
    entry = _entry("-   Use BLAKE2b instead of MD5 for cache keys. MD5 is refused on hosts\n"
                   "    in FIPS mode.\n")
    kept, _ = rules.reviewed("use blake2b instead of md5", files, "", entry, 0, facts=True)
    assert [k.candidate.text for k in kept] == [  # the entry begins with the title: once
        "Use BLAKE2b instead of MD5 for cache keys. MD5 is refused on hosts in FIPS mode."]
    picked = "use blake2b instead of md5\n\n(cherry picked from commit 0123456789abcdef)"
    kept, _ = rules.reviewed(picked, files, "", entry, 0, facts=True)
    assert "cherry" not in kept[0].candidate.text and "FIPS" in kept[0].candidate.text
    explained = ("use blake2b instead of md5\n\nThe keys are shorter, so the index fits in "
                 "one page.")
    kept, _ = rules.reviewed(explained, files, "", entry, 0, facts=True)
    assert [k.candidate.text for k in kept] == [
        "Use blake2b instead of md5: The keys are shorter, so the index fits in one page."]
    alone, _ = rules.reviewed(picked, files[:1], "", {}, 0, facts=True)
    assert [k.candidate.text for k in alone] == ["Use blake2b instead of md5."]


def test_a_squash_rule_carries_the_platform_its_title_names() -> None:
    """A squash merge titled for a platform or version ("Support Python 3.14"): its rule is
    for that ("Support Python 3.14: Use …"); a title naming nothing outside the project
    leaves the item alone, and an item that says the title again is not doubled."""
    body = ("\n\n* Support Python 3.14\n\n* Use `frame.f_lineno` instead of "
            "`frame.f_lasti`\n\n* Close the zip file\n")
    files = [("M", "src/trace.py")]
    kept, _ = rules.reviewed("Support Python 3.14 (#812)" + body, files, "", {}, 0)
    assert [k.candidate.text for k in kept] == [
        "Support Python 3.14: Use `frame.f_lineno` instead of `frame.f_lasti`."]
    kept, _ = rules.reviewed("Tidy the tracer (#813)" + body.replace("Support Python 3.14",
                                                                    "Tidy the tracer"),
                             files, "", {}, 0)
    assert [k.candidate.text for k in kept] == [
        "Use `frame.f_lineno` instead of `frame.f_lasti`."]


def test_a_quoted_list_item_is_a_setting_of_its_own() -> None:
    """A warning filter in pyproject.toml ("ignore:The 'x' argument is deprecated:…",) is
    an item of a list, the setting whole: one filter swapped for another is one added and
    one removed, not a key "ignore" changed from one to the other ("ignore removed" said
    nothing). A quoted key closed by its own quote is a key."""
    filters = ('[tool.pytest.ini_options]\nfilterwarnings = [\n    "error",\n'
               '    "ignore:The \'follow\' argument is deprecated:DeprecationWarning",\n]\n')
    swapped = filters.replace("ignore:The 'follow' argument is deprecated",
                              "ignore:unclosed file:ResourceWarning:spool")  # same ending
    diff = _diff(filters, swapped, "pyproject.toml")
    message = "Ignore unclosed spool files, because the follow argument is gone"
    kept, _ = rules.reviewed(message, [("M", "pyproject.toml")], "", {"pyproject.toml": diff},
                             0)
    assert [k.candidate.text for k in kept] == [
        "In pyproject.toml, `\"ignore:unclosed file:ResourceWarning:spool:DeprecationWarning\"`; "
        "ignore:The 'follow' argument is deprecated:DeprecationWarning removed (Ignore "
        "unclosed spool files, because the follow argument is gone)."]
    # named by the kind of item it is ("ignore"), not by a word of its text: "Add clean
    # coverage" does not name the exclusion "pragma: full coverage"
    report = '[tool.coverage.report]\nexclude_lines = [\n    "if TYPE_CHECKING:",\n]\n'
    diff = _diff(report, report.replace(']\n', '    "pragma: full coverage",\n]\n'),
                 "pyproject.toml")
    kept, dropped = rules.reviewed("Add clean coverage for the reloader",
                                   [("M", "pyproject.toml")], "", {"pyproject.toml": diff}, 0)
    assert kept == [] and [d.reason for d in dropped] == [
        "a setting changed by the way: the message neither names it nor says why"]
    settings = '{\n  "timeout": 30\n}\n'
    diff = _diff(settings, settings.replace("30", "60"), "app/settings.json")
    kept, _ = rules.reviewed("Raise the timeout, because uploads are slow",
                             [("M", "app/settings.json")], "", {"app/settings.json": diff}, 0)
    assert [k.candidate.rule for k in kept] == ["ConfigChange"]
    assert "`\"timeout\": 60` (changed from 30)" in kept[0].candidate.text


NESTED = """-   ``Session.retry`` settings were reworked: :pr:`40`

    -   ``backoff`` is a float in seconds, not milliseconds. Values over 60
        are rejected.
    -   ``attempts`` is ``None`` when not set, rather than ``0``. :issue:`41`
-   Sessions close their pool on exit.
"""


def test_a_nested_list_is_its_entrys_details() -> None:
    """An entry that says "… were reworked." over a list indented under it: the first
    sentence of each nested item follows it, not a neighbour; a list at the entry's own
    depth stays separate entries (the subject picks its own)."""
    entry = commit_fact.own_entry(_entry(NESTED), "rework the retry settings")
    assert entry is not None and entry.text == (
        "``Session.retry`` settings were reworked: ``backoff`` is a float in seconds, not "
        "milliseconds. ``attempts`` is ``None`` when not set, rather than ``0``.")
    flat = NESTED.replace("    -   ``backoff``", "-   ``backoff``").replace(
        "    -   ``attempts``", "-   ``attempts``")
    entry = commit_fact.own_entry(_entry(flat), "rework the retry settings")
    assert entry is not None and entry.text == "``Session.retry`` settings were reworked:"


def test_a_long_list_in_an_entry_is_shortened_not_dropped() -> None:
    """The entry's second sentence lists the names it deprecates: the names that fit in
    the 300 characters are kept with "…", not the whole sentence left out. A sentence
    without such a list is left out whole, as before."""
    names = ", ".join(f"``parse_{word}_header``" for word in (
        "accept", "cache_control", "content_range", "csp", "etags", "if_range", "range",
        "set", "options", "authorization"))
    text = ("-   Header classes have a ``from_header`` class method and a ``to_header`` "
            f"method.\n    The parsing functions are deprecated: {names}.\n")
    entry = commit_fact.own_entry(_entry(text), "move header parsing to class methods")
    assert entry is not None
    assert entry.text.startswith("Header classes have a ``from_header`` class method and a "
                                 "``to_header`` method. The parsing functions are "
                                 "deprecated: ``parse_accept_header``, ")
    assert entry.text.endswith(", …") and len(entry.text) <= 300
    prose = ("-   Header classes have a ``from_header`` class method and a ``to_header`` "
             "method.\n    " + "The parsing functions are deprecated and will be removed "
             "in the next feature release, " * 4 + "so callers should move now.\n")
    entry = commit_fact.own_entry(_entry(prose), "move header parsing to class methods")
    assert entry is not None and entry.text == ("Header classes have a ``from_header`` class "
                                                "method and a ``to_header`` method.")
