"""Issue 24, what maintainers write in a changelog besides its entries (``commit_fact.note``),
in real temporary repositories: the paragraphs under the release heading a release commit
adds ("From version 1.0 our async support is now optional, …") and the items a later commit
nests under an entry already there (a squash-merged project whose release notes a bot
writes: the maintainer explains the entry afterwards). Each is a Fact of that commit. A
release of entries only, a bot-style commit adding an entry, a lead-in to a list and a
changelog written whole stay noise. And a fix whose changed settings only went from one
address to another is a corrected link (``commit_diff``)."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import Memx
from .test_reflector_gitlog import commit

NOTES = """# Release Notes

## Latest Changes

## 0.9.0 (March 2, 2024)

### Fixed

- Keep the pool lock while a connection closes. PR [#41](https://example.org/pr/41) by \
[@ana](https://example.org/ana).
"""


def run(memx: Memx, base: str) -> dict[str, object]:
    """``--dry-run --json --all`` of ``base..HEAD`` with no budget."""
    return dict(json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run",
                                   "--json", "--all", "--budget", "0")))


def kept(found: dict[str, object]) -> dict[str, dict[str, object]]:
    return {str(c["sha"]): c for c in found["candidates"]}  # type: ignore[attr-defined]


def dropped(found: dict[str, object], sha: str) -> list[str]:
    return [str(d["reason"]) for d in found["dropped"]  # type: ignore[attr-defined]
            if d["sha"] == sha]


def test_a_release_note_is_the_release_commits_fact(memx: Memx, repo: Path) -> None:
    """httpcore's "Version 1.0": its commit adds the release heading, two paragraphs for
    users and the entries. Before, the commit kept only a dependency read from its
    pyproject (or nothing): the paragraphs are the lesson."""
    base = commit(repo, "Start", {"docs/release-notes.md": NOTES, "pkg/__init__.py": "v = 0\n"})
    release = NOTES.replace("## 0.9.0", (
        "## 1.0.0 (May 1, 2024)\n\n"
        "From version 1.0 async support is optional, as the package has minimal\n"
        "dependencies by default. Install `pkg[trio]` for Trio.\n\n"
        "This release introduces the new style, stabilizing the following changes:\n\n"
        "- Async support becomes optional. (#80)\n- Add support for Python 3.12. (#79)\n\n"
        "## 0.9.0"))
    noted = commit(repo, "Version 1.0 (#81)", {"docs/release-notes.md": release,
                                                "pkg/__init__.py": "v = 1\n"})
    # control: a release of entries only (each entry is its own commit's news)
    plain = commit(repo, "Version 1.0.1 (#83)", {
        "docs/release-notes.md": release.replace(
            "## 1.0.0", "## 1.0.1 (May 9, 2024)\n\n- Fix a leak. (#82)\n\n## 1.0.0"),
        "pkg/__init__.py": "v = 2\n"})
    found = run(memx, base)
    by_sha = kept(found)
    assert by_sha[noted]["rule"] == "Fact"
    # the note, not the lead-in to the list nor the list's entries
    assert by_sha[noted]["content"] == (
        "From version 1.0 async support is optional, as the package has minimal dependencies "
        "by default. Install `pkg[trio]` for Trio (in 1.0.0).")
    assert plain not in by_sha


def test_a_release_of_one_change_says_it_with_its_note(memx: Memx, repo: Path) -> None:
    """starlette's 0.40.0: "This release fixes a Denial of service (DoS) via …" above its
    one entry, filed under "Fixed", that names the remedy; the entry's link to its commit
    is left out. The two-entry release above keeps its note alone."""
    base = commit(repo, "Start", {"docs/release-notes.md": NOTES})
    fixed = commit(repo, "Version 1.0.0 (#90)", {"docs/release-notes.md": NOTES.replace(
        "## 0.9.0", "## 1.0.0 (May 1, 2024)\n\nThis release fixes a denial of service via "
        "multipart requests.\n\n### Fixed\n\n- Add `max_part_size` to `MultiPartParser` "
        "to limit the size of\n  parts [ab12cd3](https://example.org/commit/ab12cd3).\n\n"
        "## 0.9.0")})
    assert kept(run(memx, base))[fixed]["content"] == (
        "This release fixes a denial of service via multipart requests: Add `max_part_size` "
        "to `MultiPartParser` to limit the size of parts (in 1.0.0).")


def test_an_item_nested_under_an_entry_is_its_note(memx: Memx, repo: Path) -> None:
    """typer's "Update release notes" by its maintainer: sub-items under the Click
    vendoring entry a bot wrote. Before, a commit of the changelog only was routine."""
    base = commit(repo, "Start", {"docs/release-notes.md": NOTES})
    bot = commit(repo, "Update release notes", {"docs/release-notes.md": NOTES.replace(
        "## Latest Changes\n", "## Latest Changes\n\n* ➖ Vendor Click instead of depending "
        "on it. PR [#77](https://example.org/pr/77) by [@ana](https://example.org/ana).\n")})
    text = (repo / "docs/release-notes.md").read_text()
    explained = commit(repo, "Update release notes", {"docs/release-notes.md": text.replace(
        "[@ana](https://example.org/ana).\n\n## 0.9.0",
        "[@ana](https://example.org/ana).\n"
        "    * The package no longer depends on Click: it includes its source code.\n"
        "    * It solves dependency conflicts between packages that pin Click.\n\n## 0.9.0")})
    found = run(memx, base)
    by_sha = kept(found)
    assert by_sha[explained]["content"] == (
        "Vendor Click instead of depending on it: The package no longer depends on Click: it "
        "includes its source code. It solves dependency conflicts between packages that pin "
        "Click.")
    # control: the entry itself, added alone, is the routine release-notes update
    assert bot not in by_sha
    assert dropped(found, bot) == ["routine: changelog or lockfiles only"]


def test_a_changelog_written_whole_has_no_note(memx: Memx, repo: Path) -> None:
    """A changelog moved or written in one commit adds every release heading and their
    paragraphs: none of it is this commit's note."""
    base = commit(repo, "Start", {"pkg/__init__.py": "v = 0\n"})
    whole = commit(repo, "Add the changelog", {"CHANGELOG.md": (
        "# Changelog\n\n## 2.0.0\n\nThis release drops the old configuration format.\n\n"
        "- Remove the ini loader.\n\n## 1.0.0\n\nThe first stable release of the package.\n")})
    assert whole not in kept(run(memx, base))


def test_a_link_corrected_is_not_a_setting(memx: Memx, repo: Path) -> None:
    """typer's "Fix GitHub link in docs": mkdocs.yml's link went from one repository's
    address to another's; the budget kept it over lessons (63)."""
    def site(link: str, theme: str = "classic") -> dict[str, str]:
        return {"mkdocs.yml": f"site_name: pkg\nrepo_url: https://example.org/other\n"
                              f"link: {link}\ntheme: {theme}\n"}

    base = commit(repo, "Start", site("https://example.org/other"))
    relinked = commit(repo, "Fix GitHub link in docs (#54)", site("https://example.org/pkg"))
    # controls: a link moved with what it points at, and a fix of a setting that is no address
    moved = commit(repo, "Move link to the new docs site", site("https://docs.example.org/pkg"))
    themed = commit(repo, "Fix theme in docs", site("https://docs.example.org/pkg", "material"))
    found = run(memx, base)
    by_sha = kept(found)
    assert relinked not in by_sha
    assert any(r.startswith("a wrong link corrected") for r in dropped(found, relinked))
    assert by_sha[moved]["rule"] == "ConfigChange"
    assert by_sha[themed]["rule"] == "ConfigChange"
