"""Issue 24, ranking a history's changelog entries by the kind the maintainers filed them
under (``reflector/commit_fact.py``: ``filed``; ``commit_value.py``): an entry under a
section or of a towncrier type users must act on (deprecated, removed, breaking, security)
is a strong why, one filed as performance, documentation or misc gains nothing from being
told, any other kind keeps the weak why of a told change. The heading is read from the
diff: a context line above the entry, rst's underlined heading, or the hunk header, where
git's Markdown driver names the heading above however many entries (the history ingest
asks for it). Real temporary repositories through ``memx ingest --git-log``."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from memx_cli.reflector import commit as rules
from memx_cli.reflector import commit_fact

from .conftest import Memx
from .test_reflector_gitlog import commit

KEEP_A_CHANGELOG = """# Changelog

## Unreleased

### Deprecated

### Fixed

### Performance

## 1.1.0

- First release.
"""

RST = """Version 2.1.0
-------------

Performance
~~~~~~~~~~~

-   Templates are cached per loader.

Version 2.0.0
-------------
"""


def _diff(before: str, after: str, path: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True), f"a/{path}",
                                        f"b/{path}"))


def _under(section: str, entry: str, before: str = KEEP_A_CHANGELOG) -> str:
    return before.replace(f"### {section}\n", f"### {section}\n\n- {entry}\n", 1)


def _entry(section: str, entry: str = "The reader keeps its cache between calls.",
           path: str = "CHANGELOG.md") -> commit_fact.Entry | None:
    return commit_fact.own_entry({path: _diff(KEEP_A_CHANGELOG, _under(section, entry), path)},
                                 "keep the reader cache")


def test_the_kind_an_entry_is_filed_under() -> None:
    """Keep a Changelog's sections and towncrier's fragment types, by their whole name;
    a section that says nothing of the kind (Fixed, Added, a project's own) weighs
    nothing either way."""
    assert commit_fact.filed(_entry("Deprecated")) == commit_fact.ACT
    assert commit_fact.filed(_entry("Performance")) == commit_fact.ROUTINE
    assert commit_fact.filed(_entry("Fixed")) == ""
    assert commit_fact.filed(None) == ""
    for path, kind in (("changelog/12.removal.rst", commit_fact.ACT),
                       ("changelog.d/1856.performance.3.md", commit_fact.ROUTINE),
                       ("newsfragments/7.doc.rst", commit_fact.ROUTINE),
                       ("changelog/12.bugfix.rst", ""), (".changeset/brave-cats.md", "")):
        entry = commit_fact.own_entry({path: _diff("", "Keep the reader cache.\n", path)},
                                      "keep the reader cache")
        assert entry is not None and commit_fact.filed(entry) == kind, path
    # rst: the heading's text above its underline; the release heading above it resets it
    added = RST.replace("~~~\n\n", "~~~\n\n-   The reader keeps its cache.\n")
    entry = commit_fact.own_entry({"CHANGES.rst": _diff(RST, added, "CHANGES.rst")},
                                  "keep the reader cache")
    assert entry is not None and entry.section == "Performance"
    assert commit_fact.filed(entry) == commit_fact.ROUTINE
    # control: a heading-like line of prose is no section ("Removed the old loader.")
    assert not commit_fact.ACT_SECTION.match("Removed the old loader, see the docs.")
    assert commit_fact.ACT_SECTION.match("Removals and backward incompatible breaking changes")


def test_what_an_entry_is_filed_under_moves_its_value() -> None:
    """The same title and entry: under Deprecated it is what users must act on (a strong
    why, as a change marked breaking), under Fixed the weak why of a told change, under
    Performance nothing more than its words; a changed setting beside it gains nothing
    from any (its link to the entry is indirect)."""
    message = "Keep the reader cache between calls"
    files = [("M", "src/reader.py"), ("M", "CHANGELOG.md")]
    score = {}
    for section in ("Deprecated", "Fixed", "Performance"):
        diffs = {"CHANGELOG.md": _diff(KEEP_A_CHANGELOG, _under(
            section, "The reader keeps its cache between calls."), "CHANGELOG.md")}
        kept, _ = rules.reviewed(message, files, "", diffs, 0, facts=True)
        assert [k.candidate.rule for k in kept] == ["Fact"]
        score[section] = kept[0].score
    assert score["Deprecated"] == score["Fixed"] + 13
    assert score["Performance"] == score["Fixed"] - 12
    config = {"app/config.yaml": _diff("timeout: 30\n", "timeout: 60\n", "app/config.yaml")}
    setting = [("M", "app/config.yaml"), ("M", "CHANGELOG.md")]
    values = set()
    for section in ("Deprecated", "Performance"):
        diffs = {**config, "CHANGELOG.md": _diff(KEEP_A_CHANGELOG, _under(
            section, "Raise the request timeout."), "CHANGELOG.md")}
        _, dropped = rules.reviewed("Raise the timeout", setting, "", diffs, 0, facts=True)
        kept, _ = rules.reviewed("Raise the timeout", setting, "", diffs, 0, facts=True)
        values |= {d.score for d in dropped if d.rule == "ConfigChange"}
        values |= {k.score for k in kept if k.candidate.rule == "ConfigChange"}
    assert len(values) == 1


def test_the_history_ingest_reads_a_heading_far_above_the_entry(memx: Memx,
                                                                repo: Path) -> None:
    """An entry appended under "### Performance" below six others: the diff's three lines
    of context do not reach the heading, git's Markdown driver names it in the hunk
    header. The entry filed as performance ranks below the same kind of change filed as
    a fix; control: the heading a repository's own attributes leave unnamed is not
    guessed (the two score alike)."""
    listed = "".join(f"- Entry number {n} about another part of the reader.\n"
                     for n in range(6))
    start = KEEP_A_CHANGELOG.replace("### Fixed\n", f"### Fixed\n\n{listed}") \
                            .replace("### Performance\n", f"### Performance\n\n{listed}")
    base = commit(repo, "Start", {"CHANGELOG.md": start, "src/reader.py": "a = 1\n"})

    def told(section: str, subject: str, entry: str, source: str) -> str:
        text = (repo / "CHANGELOG.md").read_text()
        end = text.index(listed, text.index(f"### {section}\n")) + len(listed)
        return commit(repo, subject, {"CHANGELOG.md": f"{text[:end]}- {entry}{text[end:]}",
                                      source: f"# {subject}\n"})

    def pair(base: str, thing: str) -> tuple[int, int]:
        """The values of a change filed as performance and one filed as a fix."""
        fast = told("Performance", f"Cache parsed {thing} per request",
                    f"Parsed {thing} are cached for each request.\n", f"src/{thing}.py")
        fixed = told("Fixed", f"Close parsed {thing} streams per request",
                     f"Parsed {thing} streams are closed after each request.\n",
                     f"src/{thing}_streams.py")
        found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run",
                                   "--json", "--budget", "0"))
        score = {c["sha"]: c["score"] for c in found["candidates"]}
        return score[fast], score[fixed]

    fast, fixed = pair(base, "headers")
    assert fixed == fast + 12
    # control: the repository's own attributes win, and without a heading in sight the
    # kind is unknown: both are told changes alike
    since = commit(repo, "Keep attributes", {".gitattributes": "*.md diff=none\n"})
    fast, fixed = pair(since, "cookies")
    assert fixed == fast


def test_a_setext_release_heading_far_above_is_still_named(memx: Memx, repo: Path) -> None:
    """The Markdown hunk header names a "#" heading and, as git's default does, a line
    that starts with a letter: a CHANGES.md whose release is a setext heading ("Version
    2.1.0" over a line of dashes) six entries above the new one still names its release
    (git's own Markdown driver would name none)."""
    listed = "".join(f"- Entry number {n} about another part of the reader.\n"
                     for n in range(6))
    start = f"Version 2.1.0\n-------------\n\n{listed}\nVersion 2.0.0\n-------------\n\n- Old.\n"
    base = commit(repo, "Start", {"CHANGES.md": start, "src/reader.py": "a = 1\n"})
    sha = commit(repo, "Cache parsed headers per request", {
        "CHANGES.md": start.replace(listed, f"{listed}- Parsed headers are cached for each "
                                            "request.\n"),
        "src/headers.py": "b = 2\n"})
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json",
                               "--budget", "0"))
    content = {c["sha"]: c["content"] for c in found["candidates"]}
    assert content[sha].endswith("(in 2.1.0).")
