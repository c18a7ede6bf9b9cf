"""Issue 24, what a commit adds to its documentation (``reflector/docnotes.py``): a block
whose form marks it as a caveat (a GitHub alert, a labelled "Note:" paragraph, a reST
directive, an MkDocs admonition, a VitePress container) added to a Markdown or reST file is
the commit's Fact, scoped by the heading above it; a pointer, a note moved, one in a page
the commit creates, one about its own page, one about another change and a changelog's
note are none. Each behaviour with its control; the commits are written into a real
repository and read by ``memx ingest --git-log`` and by the post-commit hook's reader."""

from __future__ import annotations

from pathlib import Path

from memx_cli.githooks import impl as hookimpl
from memx_cli.reflector import docnotes
from memx_cli.store.repo import Repo

from .conftest import Memx
from .test_reflector_commit_changelog import candidates
from .test_reflector_gitlog import commit

README = ("# fetchy\n\nA small HTTP client.\n\n## Options\n\n### retry\n\n"
          "How many times a request is retried.\n\n### timeout\n\n"
          "The timeout of one attempt, in milliseconds.\n")
JITTER = ("Jitter is not applied when the server sends a `Retry-After` header, as the "
          "server's timing is respected.")


def _under_retry(block: str) -> str:
    """README with ``block`` added after the retry option's paragraph."""
    return README.replace("is retried.\n", f"is retried.\n\n{block}\n")


def _content(by_sha: dict[str, dict[str, object]], sha: str) -> str:
    return str(by_sha[sha]["content"]) if sha in by_sha else ""


def test_an_alert_under_an_option_is_the_commits_fact(memx: Memx, repo: Path) -> None:
    """ky: "Add `retry.jitter` option" with no body; the lesson is the readme's note."""
    base = commit(repo, "Start", {"README.md": README, "src/retry.js": "a = 1\n"})
    noted = commit(repo, "Add the retry jitter option",
                   {"README.md": _under_retry(f"> [!NOTE]\n> {JITTER}"),
                    "src/retry.js": "a = 2\n"})
    commit(repo, "Reset the readme", {"README.md": README})
    # control: the same sentence as a plain paragraph is no caveat by its form
    plain = commit(repo, "Add the retry jitter option again",
                   {"README.md": _under_retry(JITTER), "src/retry.js": "a = 3\n"})
    by_sha = candidates(memx, base)
    assert _content(by_sha, noted) == f"`retry` (README.md): {JITTER}"
    assert by_sha[noted]["rule"] == "Fact"
    assert "Retry-After" not in _content(by_sha, plain)


def test_each_caveat_form_is_read_and_a_tip_is_not(memx: Memx, repo: Path) -> None:
    """A labelled paragraph, a reST directive with its indented body, an MkDocs admonition
    and a VitePress container; control: a tip (a suggestion, no caveat) in the same form."""
    guide = "Workers\n=======\n"
    base = commit(repo, "Start", {"README.md": README, "docs/workers.rst": guide,
                                  "docs/deploy.md": "# Deploy\n\nRun it.\n",
                                  "docs/config.md": "# Config\n\nSet it.\n"})
    label = commit(repo, "Document the retry jitter behaviour",
                   {"README.md": _under_retry(f"**Note:** {JITTER}")})
    rest = commit(repo, "Warn about the workers module",
                  {"docs/workers.rst": guide + "\n.. warning::\n\n   The workers module is "
                   "deprecated and will be removed; install the standalone workers "
                   "package.\n"})
    mkdocs = commit(repo, "Explain how deploy reloads its workers",
                    {"docs/deploy.md": "# Deploy\n\nRun it.\n\n!!! warning\n    A reload "
                     "restarts deploy workers one after another, so old code keeps serving "
                     "for a while.\n"})
    tip = commit(repo, "Explain the config reload",
                 {"docs/config.md": "# Config\n\nSet it.\n\n::: tip\nThe config reload "
                  "picks up new values without a restart of the server.\n:::\n"})
    by_sha = candidates(memx, base)
    assert _content(by_sha, label) == f"`retry` (README.md): {JITTER}"
    assert _content(by_sha, rest) == (
        "Workers (docs/workers.rst): The workers module is deprecated and will be removed; "
        "install the standalone workers package.")
    assert _content(by_sha, mkdocs) == (
        "Deploy (docs/deploy.md): A reload restarts deploy workers one after another, so "
        "old code keeps serving for a while.")
    assert "docs/config.md" not in _content(by_sha, tip)


def test_a_container_of_a_caveat_kind_is_read() -> None:
    """The control of the tip above: the same container marked as a warning."""
    diff = ("--- a/docs/config.md\n+++ b/docs/config.md\n@@ -1,3 +1,7 @@\n # Config\n \n"
            " Set it.\n+\n+::: warning\n+The config reload picks up new values without a "
            "restart of the server.\n+:::\n")
    found = docnotes.note({"docs/config.md": diff}, "Explain the config reload")
    assert found == docnotes.Note("The config reload picks up new values without a restart "
                                  "of the server.", "docs/config.md", "Config", "warning")
    assert docnotes.note({"docs/config.md": diff.replace("warning", "tip")},
                         "Explain the config reload") is None


def test_a_pointer_teaches_nothing(memx: Memx, repo: Path) -> None:
    base = commit(repo, "Start", {"README.md": README})
    pointer = commit(repo, "Point to the retry guide",
                     {"README.md": _under_retry("> [!NOTE]\n> See [the retry guide]"
                                                "(https://example.org/retry) for details.")})
    commit(repo, "Reset the readme", {"README.md": README})
    said = commit(repo, "Explain the retry guide",
                  {"README.md": _under_retry("> [!NOTE]\n> Retries wait for the "
                                             "[retry guide](https://example.org/retry)'s "
                                             "backoff before each attempt.")})
    by_sha = candidates(memx, base)
    assert "README.md" not in _content(by_sha, pointer)
    assert _content(by_sha, said) == ("`retry` (README.md): Retries wait for the retry "
                                      "guide's backoff before each attempt.")


def test_a_note_in_a_page_the_commit_writes_is_the_pages(memx: Memx, repo: Path) -> None:
    """uvicorn: "docs: add section about Docker" writes a page with a warning in it: one
    paragraph of the page the commit is about. Control: the same note added to a page
    already there."""
    page = ("# Docker\n\nBuild the image.\n\n> [!WARNING]\n> The docker image runs as root "
            "unless a user is created in the Dockerfile.\n")
    base = commit(repo, "Start", {"README.md": README, "docs/old.md": "# Docker\n\nBuild "
                                  "the image.\n"})
    new_page = commit(repo, "Add a docker page", {"docs/docker.md": page})
    added = commit(repo, "Warn about the docker user", {"docs/old.md": page})
    by_sha = candidates(memx, base)
    assert "runs as root" not in _content(by_sha, new_page)
    assert _content(by_sha, added) == ("Docker (docs/old.md): The docker image runs as root "
                                       "unless a user is created in the Dockerfile.")


def test_a_note_about_another_change_or_its_own_page_is_none(memx: Memx, repo: Path) -> None:
    """ky: "Tweaks" adds a warning about returned requests (the subject names nothing of
    it), and "Add note about readme being dev version" adds "This readme is for the next
    version" (a note about the document). Control: a subject that names the note's
    subject."""
    base = commit(repo, "Start", {"README.md": README, "src/retry.js": "a = 1\n"})
    tweaks = commit(repo, "Tweaks", {"README.md": _under_retry(f"> [!NOTE]\n> {JITTER}"),
                                     "src/retry.js": "a = 2\n"})
    commit(repo, "Reset the readme", {"README.md": README})
    own_page = commit(repo, "Say which version the docs cover",
                      {"README.md": _under_retry("> [!NOTE]\n> This readme covers the next "
                                                 "version of fetchy, not the released one.")})
    commit(repo, "Reset the readme again", {"README.md": README})
    related = commit(repo, "Say when jitter applies",
                     {"README.md": _under_retry(f"> [!NOTE]\n> {JITTER}")})
    by_sha = candidates(memx, base)
    assert JITTER not in _content(by_sha, tweaks)
    assert "next version" not in _content(by_sha, own_page)
    assert _content(by_sha, related) == f"`retry` (README.md): {JITTER}"


def test_a_note_moved_is_not_new(memx: Memx, repo: Path) -> None:
    """A note taken out under one option and written under another is older than the
    commit. Control: the note written where none was."""
    noted = README.replace("milliseconds.\n", f"milliseconds.\n\n> [!NOTE]\n> {JITTER}\n")
    base = commit(repo, "Start", {"README.md": noted})
    moved = commit(repo, "Move the jitter note to retry",
                   {"README.md": _under_retry(f"> [!NOTE]\n> {JITTER}")})
    commit(repo, "Drop the jitter note", {"README.md": README})
    written = commit(repo, "Write the jitter note under retry",
                     {"README.md": _under_retry(f"> [!NOTE]\n> {JITTER}")})
    by_sha = candidates(memx, base)
    assert JITTER not in _content(by_sha, moved)
    assert _content(by_sha, written) == f"`retry` (README.md): {JITTER}"


def test_a_changelogs_note_is_no_documentation() -> None:
    """A release note's alert repeats the release's news (``commit_fact`` reads it)."""
    diff = ("--- a/CHANGELOG.md\n+++ b/CHANGELOG.md\n@@ -1,2 +1,5 @@\n # Changelog\n \n"
            f"+> [!NOTE]\n+> {JITTER}\n+\n")
    assert docnotes.note({"CHANGELOG.md": diff}, "Explain jitter") is None
    guide = diff.replace("CHANGELOG", "docs/guide").replace("# Changelog", "# Guide")
    assert docnotes.note({"docs/guide.md": guide}, "Explain jitter") == docnotes.Note(
        JITTER, "docs/guide.md", "Guide", "note")


def test_a_hunk_that_begins_inside_a_code_block() -> None:
    """ky: the hunk opens on an example's closing fence; the alert after it is prose.
    Control: a fence with a language opens a block, and an alert inside it is code."""
    closing = ("--- a/README.md\n+++ b/README.md\n@@ -10,3 +10,6 @@ const x = 1;\n"
               " }).json();\n ```\n \n"
               f"+> [!NOTE]\n+> {JITTER}\n+\n")
    assert docnotes.note({"README.md": closing}, "Explain jitter") == docnotes.Note(
        JITTER, "README.md", "", "note")
    inside = closing.replace(" ```\n \n", " ```\n \n+```md\n").replace("+\n", "+```\n")
    assert docnotes.note({"README.md": inside}, "Explain jitter") is None


def test_the_docs_do_not_take_a_settings_room(memx: Memx, repo: Path) -> None:
    """Documentation files are read in a room of their own: five pages changed before a
    setting (by path order) leave the setting read. Control: the setting's commit alone."""
    pages = {f"a{n}.md": f"# Page {n}\n" for n in range(5)}
    base = commit(repo, "Start", {**pages, "setup.cfg": "[tool]\nworkers = 2\n"})
    both = commit(repo, "Raise workers to 8 for the sale traffic",
                  {**{p: t + "\nMore.\n" for p, t in pages.items()},
                   "setup.cfg": "[tool]\nworkers = 8\n"})
    alone = commit(repo, "Set workers to 9 because the pool starved",
                   {"setup.cfg": "[tool]\nworkers = 9\n"})
    by_sha = candidates(memx, base)
    assert "`workers = 8`" in _content(by_sha, both)
    assert "`workers = 9`" in _content(by_sha, alone)


def test_the_post_commit_hook_reads_the_note(memx: Memx, repo: Path) -> None:
    """The hook's own reader (``githooks.impl.reflect_on``) gives the documentation files'
    diffs too (without git's hunk header for Markdown: the heading is the one the context
    lines show). Control: the same commit with the note as plain prose stores nothing."""
    commit(repo, "Start", {"README.md": README, "src/retry.js": "a = 1\n"})
    noted = commit(repo, "Add the retry jitter option",
                   {"README.md": _under_retry(f"> [!NOTE]\n> {JITTER}"),
                    "src/retry.js": "a = 2\n"})
    _, written = hookimpl.reflect_on(Repo(repo), noted, [])
    assert [w.memory.content for w in written] == [f"README.md: {JITTER}"]
    commit(repo, "Reset the readme", {"README.md": README})
    plain = commit(repo, "Add the retry jitter option again",
                   {"README.md": _under_retry(JITTER), "src/retry.js": "a = 3\n"})
    _, none = hookimpl.reflect_on(Repo(repo), plain, [])
    assert none == []


def test_notes_of_commits_alike_are_no_series(memx: Memx, repo: Path) -> None:
    """ky: "Add `retry.jitter` option" and "Add `context` option" are one series by their
    subjects, but each writes another note: both are kept. Control: two commits alike
    whose lesson is their message's are one memory."""
    base = commit(repo, "Start", {"README.md": README, "src/retry.js": "a = 1\n"})
    jitter = commit(repo, "Add `jitter` option",
                    {"README.md": _under_retry(f"> [!NOTE]\n> {JITTER}"),
                     "src/retry.js": "a = 2\n"})
    context = commit(repo, "Add `context` option",
                     {"README.md": (repo / "README.md").read_text().replace(
                         "milliseconds.\n", "milliseconds.\n\n> [!NOTE]\n> The context is "
                         "shallow merged: nested objects are replaced, not merged.\n"),
                      "src/retry.js": "a = 3\n"})
    alpha = commit(repo, "Register `alpha` with a Literal type\n\nThe checker let typos "
                   "through because the option took any string.", {"src/a.py": "a = 1\n"})
    beta = commit(repo, "Register `beta` with a Literal type\n\nThe checker let typos "
                  "through because the option took any string.", {"src/b.py": "b = 1\n"})
    by_sha = candidates(memx, base)
    assert _content(by_sha, jitter) == f"`retry` (README.md): {JITTER}"
    assert _content(by_sha, context) == ("`timeout` (README.md): The context is shallow "
                                         "merged: nested objects are replaced, not merged.")
    assert (alpha in by_sha) != (beta in by_sha)
