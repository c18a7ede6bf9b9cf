"""Issue 24, histories whose lessons live in the changelog (``reflector/commit_fact.py``,
``commit_value.py``), in real temporary repositories: a short subject with no body whose
commit adds its own changelog entry is a change the maintainers told users about; its
memory is the subject with that entry and the release heading above it, it ranks above the
same title without an entry, and a fix whose entry gives its reason is kept. A release
commit, an entry moved or reworded and a setting read from the diff gain nothing."""

from __future__ import annotations

import json
from pathlib import Path

from memx_cli.reflector import commit as rules
from memx_cli.reflector import commit_fact

from .conftest import Memx
from .test_reflector_gitlog import commit

CHANGES = """Version 2.1.0
-------------

Unreleased

-   Templates can be loaded from a zip file. :issue:`88`


Version 2.0.0
-------------

Released 2024-03-01

-   Drop support for Python 3.7.
"""


def _add(entry: str, before: str = CHANGES) -> str:
    """The changelog with ``entry`` first under the unreleased version."""
    return before.replace("Unreleased\n\n", f"Unreleased\n\n{entry}", 1)


def told(repo: Path, subject: str, entry: str, source: str) -> str:
    """Commit ``subject`` changing ``source`` and adding ``entry`` to CHANGES.rst."""
    return commit(repo, subject, {"CHANGES.rst": _add(entry, (repo / "CHANGES.rst").read_text()),
                                  source: f"# {subject}\n"})


def candidates(memx: Memx, base: str) -> dict[str, dict[str, object]]:
    """The kept candidates of ``base..HEAD`` by commit, with no budget (--dry-run --json)."""
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json",
                               "--budget", "0"))
    return {c["sha"]: c for c in found["candidates"]}


def test_a_commit_that_adds_its_own_entry_is_told_to_users(memx: Memx, repo: Path) -> None:
    """pallets' histories: "attr filter uses env.getattr" with no body, its meaning in the
    entry it adds under "Version 3.1.6 / Unreleased". Before, the entry was attached but
    the memory scored as a bare title's (44-48) and the budget kept settings read from
    other commits' diffs first; the release it lands in was not said."""
    base = commit(repo, "Start", {"CHANGES.rst": CHANGES})
    entry = told(repo, "attr filter uses env.getattr for each attribute lookup",
                 "-   The ``|attr`` filter does not bypass the environment's attribute lookup,"
                 "\n    allowing the sandbox to apply its checks. :issue:`12`, :ghsa:`ab-12`\n",
                 "src/filters.py")
    untold = commit(repo, "map filter uses env.getitem for each item lookup",
                    {"src/filters.py": "a = 2\n"})
    by_sha = candidates(memx, base)
    assert by_sha[entry]["rule"] == "Fact"
    # the references after its last sentence are left out, whatever their role's name
    assert by_sha[entry]["content"] == (
        "Attr filter uses env.getattr for each attribute lookup: The ``|attr`` filter does "
        "not bypass the environment's attribute lookup, allowing the sandbox to apply its "
        "checks (in 2.1.0).")
    # control: the same kind of title, no entry: the title alone, worth less
    assert by_sha[untold]["content"] == "Map filter uses env.getitem for each item lookup."
    assert int(str(by_sha[entry]["score"])) >= int(str(by_sha[untold]["score"])) + 20


def test_a_fix_whose_entry_gives_its_reason_is_kept(memx: Memx, repo: Path) -> None:
    """"fix f-string syntax error in code generation" restates the code, but the entry it
    adds says why the change matters ("…, to avoid issues with names that contain f-string
    syntax"): it was dropped as a fixed bug with no cause. A fix whose entry only
    restates it ("Fix copy support …") stays dropped."""
    base = commit(repo, "Start", {"CHANGES.rst": CHANGES})
    fixes = {"fix f-string syntax error in code generation": "-   Escape the template name "
             "before formatting it into error messages, to avoid\n    issues with names that "
             "contain f-string syntax. :issue:`1792`\n",
             "Fix copy support for the missing singleton object": "-   Fix copy and pickle "
             "support for the internal ``missing`` object.\n"}
    reason, bare = (told(repo, subject, entry, f"src/fix{n}.py")
                    for n, (subject, entry) in enumerate(fixes.items()))
    by_sha = candidates(memx, base)
    assert by_sha[reason]["content"] == (
        "Fix f-string syntax error in code generation: Escape the template name before "
        "formatting it into error messages, to avoid issues with names that contain "
        "f-string syntax (in 2.1.0).")
    assert bare not in by_sha


def test_release_and_rearranged_entries_stay_noise(memx: Memx, repo: Path) -> None:
    """A release that moves "Unreleased" to a date and a commit that moves an entry tell
    users nothing new: no memory, with or without a version heading in sight."""
    base = commit(repo, "Start", {"CHANGES.rst": CHANGES, "src/__init__.py": "v = '2.1.0.dev'\n"})
    released = commit(repo, "release version 2.1.0", {
        "CHANGES.rst": CHANGES.replace("Unreleased", "Released 2024-05-05"),
        "src/__init__.py": "v = '2.1.0'\n"})
    moved = commit(repo, "rearrange change entry", {
        "CHANGES.rst": CHANGES.replace("Released 2024-03-01\n\n-   Drop support for Python "
                                       "3.7.\n", "Released 2024-03-01\n")
                              .replace("Unreleased\n\n", "Unreleased\n\n-   Drop support for "
                                       "Python 3.7.\n")})
    by_sha = candidates(memx, base)
    assert released not in by_sha and moved not in by_sha


def _diff(before: str, after: str, path: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True), f"a/{path}",
                                        f"b/{path}"))


KEEP_A_CHANGELOG = """# Changelog

## [Unreleased]

## [1.2.0] - 2024-05-01
### Fixed
- Keep the cache when a read fails.

## [1.1.0] - 2024-01-01

- First release.
"""


def test_the_version_is_the_release_heading_above_the_entry() -> None:
    """keep-a-changelog's "## [1.2.0] - …" above the entry names its release (a section's
    "### Fixed" between them is no release of its own); an entry
    under "## [Unreleased]" names none, nor does the heading of an older release shown
    below it, nor an entry's wrapped line that starts with a number."""
    path = "CHANGELOG.md"
    fixed = KEEP_A_CHANGELOG.replace("- Keep the cache", "- Retry a read once after a "
                                     "timeout of the\n  2.5 second default.\n- Keep the cache")
    entry = commit_fact.own_entry({path: _diff(KEEP_A_CHANGELOG, fixed, path)}, "Retry reads")
    assert entry is not None and entry.version == "1.2.0"
    assert entry.text == "Retry a read once after a timeout of the 2.5 second default."
    unreleased = KEEP_A_CHANGELOG.replace("## [Unreleased]\n", "## [Unreleased]\n\n- Retry "
                                          "a read once after a timeout.\n")
    entry = commit_fact.own_entry({path: _diff(KEEP_A_CHANGELOG, unreleased, path)},
                                  "Retry reads")
    assert entry is not None and entry.version == ""
    assert commit_fact.version_of("Version 3.1.6") == "3.1.6"
    assert commit_fact.version_of("## 24.1.0") == "24.1.0"
    assert commit_fact.version_of("    2.5 second default") == ""
    assert commit_fact.version_of("Released 2024-05-05") == ""


def test_a_setting_read_from_the_diff_gains_nothing_from_the_entry() -> None:
    """The bonus is for what the maintainers told users, read from the message and the
    entry: a changed setting beside an entry scores as it does without one, and the entry's
    Fact competes with it."""
    config = "timeout: 30\n"
    diffs = {"app/config.yaml": _diff(config, "timeout: 60\n", "app/config.yaml")}
    message = "Raise the request timeout"
    files = [("M", "app/config.yaml"), ("M", "CHANGES.rst")]
    alone, _ = rules.reviewed(message, files[:1], "", diffs, 0, facts=True)
    entry = _diff(CHANGES, _add("-   The request timeout is 60 seconds, so that slow uploads "
                                "finish.\n"), "CHANGES.rst")
    told, dropped = rules.reviewed(message, files, "", {**diffs, "CHANGES.rst": entry}, 0,
                                   facts=True)
    assert [k.candidate.rule for k in alone] == ["ConfigChange"]
    assert [k.candidate.rule for k in told] == ["Fact"]
    setting = [d for d in dropped if d.rule == "ConfigChange"]
    assert [d.score for d in setting] == [alone[0].score]


def test_an_entry_is_a_weak_why_not_a_second_one() -> None:
    """A commit whose message explains itself ("… because …") keeps its value with or
    without an entry (a history whose bodies explain keeps its order); a title whose only
    why is its entry gains the weak link's 12 over the same title with an entry that is
    not its own (a release's list of other commits' news)."""
    message = ("Read the lock file before the index\n\nThe index names the lock's packages, "
               "because an older index has no hashes for them.")
    files = [("M", "src/lock.py"), ("M", "CHANGES.rst")]
    entry = {"CHANGES.rst": _diff(CHANGES, _add("-   The lock file is read before the "
                                                "index.\n"), "CHANGES.rst")}
    plain, _ = rules.reviewed(message, files[:1], "", {}, 0, facts=True)
    told, _ = rules.reviewed(message, files, "", entry, 0, facts=True)
    assert [k.candidate.rule for k in told] == [k.candidate.rule for k in plain] == ["Decision"]
    assert told[0].score == plain[0].score
    title = "Read the lock file before the package index"
    others = {"CHANGES.rst": _diff(CHANGES, _add("-   Templates are cached per loader.\n"
                                                 "-   Undefined names are reported once.\n"),
                                   "CHANGES.rst")}
    own, _ = rules.reviewed(title, files, "", entry, 0, facts=True)
    news, _ = rules.reviewed(title, files, "", others, 0, facts=True)
    assert news[0].candidate.text == "Read the lock file before the package index."
    assert own[0].score >= news[0].score + 12
