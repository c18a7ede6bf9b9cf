"""Issue 24, lesson commits that got no candidate at all: a test, CI or refactoring commit
whose body says what the platform or a library does (the title of such a commit teaches
nothing, its body may), and a commit that adds a CI workflow (its title says little, the
file says what the project now runs). Real temporary repositories through
``memx ingest --git-log --dry-run --json``; each with controls."""

from __future__ import annotations

from pathlib import Path

from memx_cli.reflector import commit_ci

from .conftest import Memx
from .test_reflector_commit_outside import dry
from .test_reflector_gitlog import commit


def by_sha(found: dict[str, list[dict[str, object]]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for c in found["candidates"]:
        out.setdefault(str(c["sha"]), []).append(f"{c['rule']}: {c['content']}")
    return out


def test_a_housekeeping_body_that_states_a_platform_fact_is_a_fact(memx: Memx,
                                                                   repo: Path) -> None:
    """A test commit whose body says what an interpreter stopped doing (and, in the next
    sentence, what still works) and one whose body names the exception an interpreter
    raises are facts; a refactoring whose reason names only the project's code, a test
    whose sentence is about the tests themselves and the same platform sentence in a
    list of commits (controls) give nothing."""
    base = commit(repo, "Start", {"README.md": "app\n", "app/loader.py": "x = 0\n"})
    gone = commit(repo, "testing: fix the bytecode test for Python 3.15\n\nPython 3.15 no "
                        "longer sets `module.__cached__` on imported modules. But "
                        "`module.__spec__.cached` is still set.", {"tests/test_bytecode.py": "x = 1\n"})
    raised = commit(repo, "test: use hex escapes in the filename literal\n\nPyPy 3.11 "
                          "rejects the octal escape in this literal with SyntaxError while "
                          "the module is rewritten.", {"tests/test_paths.py": "x = 2\n"})
    own = commit(repo, "refactor: share the marker parsing\n\nThe loader's "
                       "`read_markers()` no longer copies the parsing of `load_all()`.",
                 {"app/loader.py": "x = 3\n"})
    about_tests = commit(repo, "test: cover the legacy loader paths\n\nThese tests exist "
                               "to keep coverage until the deprecated loader is removed "
                               "for Python 3.15.", {"tests/test_loader.py": "x = 4\n"})
    listed = commit(repo, "test: tidy the path tests\n\n* PyPy 3.11 rejects octal escapes "
                          "with SyntaxError\n* rename the fixtures",
                    {"tests/test_paths.py": "x = 5\n"})
    found = by_sha(dry(memx, base))
    assert found[gone] == ["Fact: Fix the bytecode test for Python 3.15: Python 3.15 no "
                           "longer sets `module.__cached__` on imported modules. But "
                           "`module.__spec__.cached` is still set."]
    assert len(found[raised]) == 1 and "PyPy 3.11 rejects the octal escape" in \
        found[raised][0] and "SyntaxError" in found[raised][0]
    for quiet in (own, about_tests, listed):
        assert quiet not in found


def test_an_added_workflow_is_a_tool_named_by_what_it_runs(memx: Memx, repo: Path) -> None:
    """A new workflow is named by its actions (not GitHub's own checkout and setup), its
    container image, its first command past the shell's own lines and its events; a
    composite action added is one too. Controls: a workflow that only checks out and
    echoes runs nothing of its own, and a changed workflow is read as settings, as
    before."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    scan = commit(repo, "ci: add a workflow audit (#12)\n\nA compromised tag could run here "
                  "because the actions were unpinned.", {".github/workflows/audit.yml": (
        "name: Audit the workflows\n"
        "on:\n  push:\n    branches: [main]\n  pull_request:\n    branches: ['**']\n"
        "permissions: {}\n"
        "jobs:\n  audit:\n    runs-on: ubuntu-latest\n    container:\n"
        "      image: example/auditor:1.2.0@sha256:abc123\n    steps:\n"
        "      - uses: actions/checkout@0123456789abcdef # v6\n"
        "      - uses: example-org/audit-action@fedcba9876543210 # v0.3.0\n"
        "      - run: |\n          set -eu\n          auditor check --sarif out.sarif .\n")})
    action = commit(repo, "ci: install tox once for every job\n\nThe jobs drifted apart "
                    "because each one installed tox its own way.", {
        ".github/actions/setup-tox/action.yml": (
            "name: Set up tox\nruns:\n  using: composite\n  steps:\n"
            "    - uses: example-org/setup-uv@v8\n"
            "    - run: uv tool install tox --with tox-uv\n      shell: bash\n")})
    idle = commit(repo, "ci: add a hello workflow", {".github/workflows/hello.yml": (
        "on: [push]\njobs:\n  hi:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n      - run: echo hello\n")})
    changed = commit(repo, "ci: audit on a schedule too", {".github/workflows/audit.yml": (
        "name: Audit the workflows\non:\n  schedule:\n    - cron: '0 0 * * 2'\n")})
    found = by_sha(dry(memx, base))
    assert found[scan] == [
        "NewTool: Added the CI workflow .github/workflows/audit.yml \"Audit the workflows\" "
        "(ci: add a workflow audit (#12)): uses example/auditor, example-org/audit-action; "
        "runs `auditor check --sarif out.sarif .`; on push, pull_request. Why: A compromised "
        "tag could run here because the actions were unpinned."]
    assert found[action] == [
        "NewTool: Added the CI action .github/actions/setup-tox/action.yml \"Set up tox\" "
        "(ci: install tox once for every job): uses example-org/setup-uv; runs "
        "`uv tool install tox --with tox-uv`. Why: The jobs drifted apart because each one "
        "installed tox its own way."]
    assert idle not in found
    assert not any(c.startswith("NewTool") for c in found.get(changed, []))


def test_an_added_workflow_is_read_past_the_other_diffs_limit(memx: Memx,
                                                               repo: Path) -> None:
    """A commit that touches four other workflows and adds a fifth still has the new one
    read (its diff past the four other config files' limit); a fifth changed workflow
    (control) is not read, as before."""
    base = commit(repo, "Start", {f".github/workflows/w{n}.yml": f"name: w{n}\non: push\n"
                                  for n in range(5)})
    touched = {f".github/workflows/w{n}.yml": f"name: w{n}\non: pull_request\n"
               for n in range(4)}
    added = commit(repo, "ci: scan the workflows", {**touched, ".github/workflows/zz.yml": (
        "on: push\njobs:\n  scan:\n    steps:\n      - uses: example-org/scan-action@v1\n")})
    found = dry(memx, base)
    # read, and then dropped under the floor: a workflow added with no why
    read = [*by_sha(found).get(added, []), *(str(d["content"]) for d in found["dropped"])]
    assert any("example-org/scan-action" in c for c in read)
    # control: the fifth changed workflow's diff is not read (no setting or drop names it)
    fifth = commit(repo, "ci: run on tags", {**{f".github/workflows/w{n}.yml": (
        f"name: w{n}\non: create\n") for n in range(5)}})
    found = dry(memx, added)
    said = [*by_sha(found).get(fifth, []), *(str(d["content"]) for d in found["dropped"])]
    assert said and not any("w4.yml" in s for s in said)


def test_reading_a_workflow() -> None:
    """The reader by the file's structure: events as a list or a block (a schedule's
    cron list is no event), an action's ref and comment and an image's tag left out, a
    one-line command and a block's first program."""
    name, events, used, commands = commit_ci.read([
        "name: Nightly", "on:", "  schedule:", "    - cron: '0 3 * * *'",
        "  workflow_dispatch:", "jobs:", "  build:", "    steps:",
        "      - uses: actions/setup-node@v4", "      - uses: docker://example/tool:2.0",
        "      - run: >-", "          if [ -n \"$X\" ]; then", "          npm ci --quiet",
        "      - run: npm test"])
    assert (name, events, used) == ("Nightly", ["schedule", "workflow_dispatch"],
                                    ["example/tool"])
    assert commands == ["npm ci --quiet", "npm test"]
    assert commit_ci.read(["on: [push, pull_request]"])[1] == ["push", "pull_request"]
    assert commit_ci.is_pipeline(".github/workflows/a.yaml")
    assert not commit_ci.is_pipeline(".github/dependabot.yml")


def test_an_added_workflow_is_the_commits_one_tool(memx: Memx, repo: Path) -> None:
    """A workflow added beside a setting the message explains is one memory, the better
    valued, not a pair; a setting changed beside a dependency added with it (control)
    stays two, as before."""
    base = commit(repo, "Start", {"tox.ini": "[testenv]\ntimeout = 30\n",
                                  "requirements.txt": "click==8.1\n"})
    workflow = commit(repo, "ci: scan the workflows, with a longer timeout because the "
                            "scan is slow", {
        "tox.ini": "[testenv]\ntimeout = 90\n",
        ".github/workflows/scan.yml": ("on: push\njobs:\n  scan:\n    steps:\n"
                                       "      - uses: example-org/scan-action@v1\n")})
    paired = commit(repo, "Raise the timeout because the report plugin is slow", {
        "tox.ini": "[testenv]\ntimeout = 120\n",
        "requirements.txt": "click==8.1\npytest-report==2.0\n"})
    found = by_sha(dry(memx, base))
    assert len(found[workflow]) == 1
    assert sorted(c.split(":")[0] for c in found[paired]) == ["ConfigChange", "NewTool"]
