"""Issue 24, ranking an unseen history's lessons under the budget: a memory that names
something outside the project (a platform, a standard, another tool, a module of the
standard library, a product with its version) ranks above one whose explanation names only
the project's own modules; a squash merge's body line that repeats the subject is no prose;
a dependency the message does not name, added for another change, is by the way. Real
temporary repositories through ``memx ingest --git-log --dry-run --json``."""

from __future__ import annotations

import json
from pathlib import Path

from memx_cli.reflector import commit_value, outside

from .conftest import Memx
from .test_reflector_gitlog import commit


def dry(memx: Memx, base: str) -> dict[str, list[dict[str, object]]]:
    return json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json",
                              "--budget", "0"))


def scores(found: dict[str, list[dict[str, object]]]) -> dict[str, int]:
    return {str(c["sha"]): int(str(c["score"])) for c in found["candidates"]}


def test_own_names_are_the_changed_paths_folders_and_stems() -> None:
    own = outside.own_names(["src/_pipx/commands/run.py", "tests/test_run.py", "README.md"])
    assert {"pipx", "commands", "run", "test_run", "src", "readme"} <= own
    assert "pip" not in own


def test_what_counts_as_outside_the_project() -> None:
    own = outside.own_names(["src/pipx/venv.py", "src/pipx/commands/upgrade.py"])
    outside_ones = [
        ("Windows sends CTRL_C_EVENT only after a flush of stdout", ["platform"]),
        ("Support PEP 751 lock files, so lockers agree", ["standard"]),
        ("include the root path as the ASGI spec says", ["standard"]),
        ("pip intersects `pip==20` with the floor and keeps both", ["tool", "versioned"]),
        ("call `sys.stdin.fileno()` guarded: IIS has no stdin", ["module"]),
        ("Traefik 2.10 sets the header the middleware reads", ["versioned"]),
    ]
    for text, kinds in outside_ones:
        assert outside.named(text, own) == kinds, text
    # the project's own modules and commands, words that are tools' names too, a sentence's
    # number: nothing outside
    inside = ["`pipx upgrade` skips `venv.py`'s marker when the commands list is empty",
              "Add 100% clean coverage to the node walker",
              "Add notes about 0.34.3 to the upgrade page",
              "`upgrade.run()` reads `commands.TABLE` twice"]
    for text in inside:
        assert outside.named(text, own) == [], text
    # the project's own name is no tool of someone else's
    assert outside.named("pipx runs pipx again", own) == []
    assert outside.named("pipx runs pip again", own) == ["tool"]


def test_a_cause_naming_the_platform_ranks_above_one_naming_only_own_code(
        memx: Memx, repo: Path) -> None:
    """Two fixes alike in form (a title, a body sentence with "because", code spans): the
    one whose cause is Windows' and a standard library module's ranks higher; the internal
    one, naming only the project's own functions, does not gain."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    inner = commit(repo, "fix: keep the sweep going after a broken probe\n\nThe sweep "
                         "stopped early because `probe_all()` raised from `_check_one()` "
                         "before `sweep_rest()` ran.", {"app/sweep.py": "x = 1\n"})
    world = commit(repo, "fix: keep the reload going after a Ctrl+C event\n\nThe reload "
                         "hung on Windows because `sys.stdout` was not flushed after "
                         "`os.kill()` sent the event.", {"app/reload.py": "x = 1\n"})
    kept = scores(dry(memx, base))
    assert set(kept) == {inner, world}
    assert kept[world] - kept[inner] >= outside.OUTSIDE


def test_a_body_line_repeating_the_subject_is_the_title() -> None:
    """A squash merge lists the pull request's commits, the first titled as the merge: that
    line is no sentence of the body, so a memory of the title carries no prose. A memory
    with a sentence of its own from the list does (control), and so did the title before."""
    subject = "Speed up the test suite with pytest-xdist (#2537)"
    body = "* Speed up the test suite with pytest-xdist\n\n* add combine\n\n* lint"
    title = "In pyproject.toml, `parallel = true` (Speed up the test suite with pytest-xdist)."
    assert not commit_value.from_body(title, body, subject)
    assert commit_value.from_body(title, body)  # the subject unknown: the old reading
    told = ("Skip the reload tests off Linux: the runners on other systems time out "
            "while the watcher starts.")
    listed = body + "\n\n* " + told
    assert commit_value.from_body(f"{subject}: {told}", listed, subject)


def test_a_dependency_the_message_does_not_name_is_by_the_way(memx: Memx,
                                                              repo: Path) -> None:
    """A docs page adding its plugin to the requirements teaches nothing about the
    dependency; a commit naming the library it adds (control), or one about dependencies,
    keeps it."""
    base = commit(repo, "Start", {"requirements.txt": "httpx==0.27.0\n"})
    docs = commit(repo, "docs: add the lifespan page (#40)", {
        "requirements.txt": "httpx==0.27.0\nmkdocstrings-python==1.16.12\n",
        "docs/lifespan.md": "# Lifespan\n"})
    named = commit(repo, "Add winloop support on Windows (#41)", {
        "requirements.txt": "httpx==0.27.0\nmkdocstrings-python==1.16.12\nwinloop==0.5.0\n",
        "app/loops.py": "x = 1\n"})
    deps = commit(repo, "Add the test requirements (#42)", {
        "requirements.txt": "httpx==0.27.0\nmkdocstrings-python==1.16.12\nwinloop==0.5.0\n"
                            "trustme==1.2.0\n"})
    found = dry(memx, base)
    rules = {(str(c["sha"]), str(c["rule"])) for c in found["candidates"]}
    assert (named, "NewTool") in rules and (deps, "NewTool") in rules
    assert (docs, "NewTool") not in rules
    assert any(d["sha"] == docs and str(d["reason"]).startswith(
        "a dependency the message does not name") for d in found["dropped"])


def test_a_title_about_tests_ci_or_docs_only_is_no_fact(memx: Memx, repo: Path) -> None:
    """In a history without Conventional types, a title-only fact of a commit changing only
    tests, CI or docs is plumbing, dropped with the reason; the same title over shipped
    code (control) and a plumbing commit whose body explains (control) are kept."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    plumbing = commit(repo, "Use module markers to simplify the test suite (#7)", {
        "tests/test_http.py": "pytestmark = 1\n", ".github/workflows/ci.yml": "on: push\n"})
    shipped = commit(repo, "Use module markers to simplify the request parser (#8)", {
        "app/parser.py": "x = 1\n", "tests/test_parser.py": "y = 1\n"})
    explained = commit(repo, "Publish the wheels with trusted publishing (#9)\n\nThe upload "
                             "token expired twice last year; the index now trusts the "
                             "workflow's identity instead.",
                       {".github/workflows/publish.yml": "on: release\n"})
    found = dry(memx, base)
    kept = {str(c["sha"]) for c in found["candidates"]}
    assert shipped in kept and explained in kept
    assert plumbing not in kept
    assert any(d["sha"] == plumbing and "tests, CI or docs only" in str(d["reason"])
               for d in found["dropped"])


def test_a_commit_adding_notes_about_a_version_is_a_release(memx: Memx, repo: Path) -> None:
    """"Add notes about 0.34.3": the release notes of a version, whose entries are other
    commits' news; a subject with a version and no release word (control) is read."""
    base = commit(repo, "Start", {"docs/release-notes.md": "# Notes\n", "app/a.py": "x\n"})
    notes = commit(repo, "Add notes about 0.34.3 and the analytics snippet", {
        "docs/release-notes.md": "# Notes\n\n## 0.34.3\n\n* Apply the address format to "
                                 "the WebSocket log lines.\n", "mkdocs.yml": "extra: 1\n"})
    other = commit(repo, "Read the proxy's X-Forwarded-Proto on 0.34.3 and later servers",
                   {"app/a.py": "y\n"})
    found = dry(memx, base)
    kept = {str(c["sha"]) for c in found["candidates"]}
    assert notes not in kept and other in kept


def test_a_name_outside_the_project_is_worth_a_weak_link_not_a_cause() -> None:
    """What Windows does, the code does not say: a memory naming the platform is worth as
    much as the same memory saying "so that" about the project's own module, and less
    than one giving a cause ("because") about it."""
    from memx_cli.reflector.candidate import Candidate

    own = outside.own_names(["src/relay/writer.py"])
    title = "Flush the relay log before the exit"

    def scored(body: str) -> int:
        text = f"{title}: {body}"
        return commit_value.value(Candidate("Decision", 1, 1, "en", text),
                                  f"{title}\n\n{body}", own)

    # each names one thing: the platform, or the project's own class
    world = scored("On Windows the console drops the last line of the log at the exit.")
    weak = scored("The RelayWriter keeps the last line of the log, so that it is written.")
    plain = scored("The RelayWriter keeps the last line of the log until it is written.")
    cause = scored("The RelayWriter drops the last line of the log because it buffers.")
    assert plain < world == weak < cause
