"""Issue 24, a squash merge read commit by commit (``commit_message.subcommits``,
``commit._from_subcommits``): GitHub lists the pull request's commits as "* title", each
with its body; the lesson may sit in a later commit or in its ``BREAKING CHANGE:`` footer.
Each listed commit with a body is read as a commit of its own and its candidates compete
with the whole message's on lesson value. Each behaviour with the control that stays as
it was; the commits are written into a real repository and read by ``memx ingest
--git-log``."""

from __future__ import annotations

from pathlib import Path

from memx_cli.reflector import commit_message as msg

from .conftest import Memx
from .test_reflector_commit_changelog import candidates
from .test_reflector_gitlog import commit

RULE = "---------"
FIRST = ("* feat(grid): snap panels to the layout grid\n\n"
         "Panels dropped between two columns now land on the nearer one.\n\n")
LATER = ("* fix(grid): keep the snap target when the window is resized\n\n"
         "A resize recomputed the columns but kept the old pixel offsets, so a panel "
         "snapped before the resize landed between two columns afterwards. Store the "
         "column index instead of the pixel offset and recompute the position on resize.\n\n")
BOT = ("* [autofix.ci] apply automated fixes\n\n"
       "for more information, see https://autofix.example/docs\n\n")


def test_a_later_listed_commit_with_its_body_carries_the_lesson(memx: Memx, repo: Path) -> None:
    """The cause told in the second listed commit's body is the memory (the whole body,
    read as one, gave its first sentences to the first commit)."""
    base = commit(repo, "Start", {"README.md": "grid\n"})
    bodied = commit(repo, f"feat(grid): snap panels to the layout grid (#41)\n\n{FIRST}{LATER}"
                    f"{RULE}\n\nCo-authored-by: Ada <ada@example.invalid>",
                    {"grid.ts": "export const snap = 1\n"})
    by_sha = candidates(memx, base)
    assert "kept the old pixel offsets" in str(by_sha[bodied]["content"])
    assert "Store the column index instead of the pixel offset" in str(by_sha[bodied]["content"])


def test_a_listed_title_without_a_body_adds_nothing(memx: Memx, repo: Path) -> None:
    """Controls: the same later commit listed by its title alone, and a bot's autofix
    whose body only points to a link, leave the memory to the whole message."""
    base = commit(repo, "Start", {"README.md": "grid\n"})
    titled = commit(repo, "feat(grid): snap panels to the layout grid (#41)\n\n"
                    f"{FIRST}* fix(grid): keep the snap target when the window is resized\n\n"
                    f"{RULE}\n", {"grid.ts": "export const snap = 1\n"})
    bot = commit(repo, "feat(dock): dock panels to the window edge (#42)\n\n"
                 "* feat(dock): dock panels to the window edge\n\n"
                 "Panels dragged near an edge of the window now stick to it.\n\n"
                 f"{BOT}{RULE}\n", {"dock.ts": "export const dock = 2\n"})
    by_sha = candidates(memx, base)
    # the first listed commit, with its body, as the whole message alone would say it
    assert by_sha[titled]["content"] == ("grid: Snap panels to the layout grid: Panels "
                                         "dropped between two columns now land on the "
                                         "nearer one.")
    assert by_sha[bot]["content"] == ("dock: Dock panels to the window edge: Panels dragged "
                                      "near an edge of the window now stick to it.")


def test_a_breaking_change_footer_is_what_users_must_now_do(memx: Memx, repo: Path) -> None:
    """The footer of a listed commit marked breaking is the Fact, with its scope; control:
    the same commit without the footer says its title and first sentence."""
    base = commit(repo, "Start", {"README.md": "grid\n"})
    breaking = ("* feat(grid)!: measure columns in rem\n\n"
                "Column widths follow the root font size.\n\n"
                "BREAKING CHANGE: `columnWidth` is read in rem, not in pixels;\n"
                "divide a pixel width by the root font size before passing it.\n\n")
    footed = commit(repo, f"feat(grid): snap panels to the layout grid (#43)\n\n{FIRST}"
                    f"{breaking}{RULE}\n", {"grid.ts": "export const snap = 3\n"})
    by_sha = candidates(memx, base)
    assert by_sha[footed]["rule"] == "Fact"
    assert by_sha[footed]["content"] == (
        "grid: Measure columns in rem: `columnWidth` is read in rem, not in pixels; divide a "
        "pixel width by the root font size before passing it.")
    # a commit of its own with the footer says it too
    alone = commit(repo, "feat(rows)!: measure rows in rem\n\nRow heights follow the root "
                   "font size.\n\nBREAKING-CHANGE: `rowHeight` is read in rem; divide a "
                   "pixel height by the root font size.", {"rows.ts": "export const rows = 1\n"})
    # control: the same commit without the footer keeps its first sentence
    plain = commit(repo, "feat(cells): measure cells in rem\n\n"
                   "Cell paddings follow the root font size.", {"cells.ts": "export const c = 4\n"})
    by_sha = candidates(memx, base)
    assert by_sha[alone]["content"] == ("rows: Measure rows in rem: `rowHeight` is read in "
                                        "rem; divide a pixel height by the root font size.")
    assert by_sha[plain]["content"] == (
        "cells: Measure cells in rem: Cell paddings follow the root font size.")
    assert int(str(by_sha[alone]["score"])) > int(str(by_sha[plain]["score"]))


def test_only_a_squash_merges_list_is_read_as_commits() -> None:
    """A Markdown list in a commit that names no pull request and has no closing rule is
    no list of commits; nor is a list of titles alone (each item is read as before)."""
    squash = f"Snap panels (#41)\n\n{FIRST}{LATER}{RULE}\n\nCo-authored-by: Ada <a@b.invalid>"
    listed = msg.subcommits(squash)
    assert [m.splitlines()[0] for m in listed] == [
        "feat(grid): snap panels to the layout grid",
        "fix(grid): keep the snap target when the window is resized"]
    assert "Co-authored-by" not in listed[-1]
    assert msg.subcommits(f"Snap panels\n\n{FIRST}{LATER}") == []  # no PR, no rule
    assert msg.subcommits("Snap panels (#41)\n\n* snap to the grid\n* keep the target\n") == []
