"""Issue 24, a commit whose subject is the fact (``reflector/commit_fact.py``), in real
temporary repositories: a history ingest reads a behaviour stated by a title ("feat(css):
minify …", "Accept X as Y") with the first sentence of the body's prose, never a fix's
title, a housekeeping commit or a squash merge's list of commits; the post-commit hook,
which has no budget, leaves such titles."""

from __future__ import annotations

import json
from pathlib import Path

from memx_cli.reflector import commit as rules

from .conftest import Memx
from .test_reflector_gitlog import commit

FACTS = {
    "title": ("feat(css): minify the CSS inside `<style>` tags (#23183)", "src/css.ts"),
    "body": ("Accept `MarkDecorator` as the `get_closest_marker` default\n\n`Mark` is "
             "private and warns when it is built directly, which left no supported way to "
             "build the default.\nAccept a `MarkDecorator` such as `pytest.mark.foo(1)`.\n\n"
             "Closes #13354", "src/marks.py"),
    "colon": ("Support type asserts in the `ptrtoerror` analyzer\n\nThe previous change "
              "missed two cases where the syntax implies an implementation:\n\n"
              "    var _ = x.(error)\n", "src/ptr.go"),
    "squash": ("Validate `include` and `force-exclude` config types (#5193)\n\n* Add "
               "validation for the include and force_exclude config keys\n* Update "
               "test_black.py\n\nCo-authored-by: A Person <a@example.invalid>", "src/cfg.py"),
}
NOT_FACTS = [
    ("fix: handle a malformed URI in `indexHtmlMiddleware`", "src/html.ts"),
    ("docs: describe the `cache_dir` option in the guide", "src/guide.py"),
    ("test(router): cover the `:name{...}` pattern", "src/router_test.ts"),
    ("chore: update `bun.lock` for the new workspace", "src/lockfile.txt"),
    ("[refactor] Use match case in `_get_auto_indent`", "src/indent.py"),
    ("Merge commit from fork", "src/jsx.ts"),
    ("Describe the `cache_dir` option better", "docs/options.md"),
]


def candidates(memx: Memx, base: str) -> dict[str, dict[str, object]]:
    """The kept candidates of ``base..HEAD`` by commit, with no budget (--dry-run --json)."""
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json",
                               "--budget", "0"))
    return {c["sha"]: c for c in found["candidates"]}


def test_a_title_that_is_the_fact_is_read_by_a_history_ingest(memx: Memx, repo: Path) -> None:
    """Before, none of these commits gave a candidate: no norm, no reason, no fix, no
    setting; the history's most common lesson was never read."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    shas = {key: commit(repo, message, {path: "x = 1\n"}) for key, (message, path) in
            FACTS.items()}
    for n, (message, path) in enumerate(NOT_FACTS):
        commit(repo, message, {path: f"y = {n}\n"})
    by_sha = candidates(memx, base)
    assert set(by_sha) == set(shas.values())
    assert {c["rule"] for c in by_sha.values()} == {"Fact"}
    assert by_sha[shas["title"]]["content"] == "css: Minify the CSS inside `<style>` tags."
    assert by_sha[shas["body"]]["content"] == (
        "Accept `MarkDecorator` as the `get_closest_marker` default: `Mark` is private and "
        "warns when it is built directly, which left no supported way to build the default. "
        "Accept a `MarkDecorator` such as `pytest.mark.foo(1)`.")
    # a sentence that led into a quoted block ends the memory, without its colon
    assert by_sha[shas["colon"]]["content"] == (
        "Support type asserts in the `ptrtoerror` analyzer: The previous change missed two "
        "cases where the syntax implies an implementation.")
    # a squash merge's items are its commits' titles, not a sentence about this one
    assert by_sha[shas["squash"]]["content"] == (
        "Validate `include` and `force-exclude` config types.")
    # the body's sentence is worth more than a title alone
    assert by_sha[shas["body"]]["score"] > by_sha[shas["squash"]]["score"] >= 30


def test_the_post_commit_hook_leaves_a_title_that_is_the_fact() -> None:
    message, path = FACTS["title"]
    kept, _ = rules.reviewed(message, [("A", path)], "", {}, 30)
    assert kept == []
    kept, _ = rules.reviewed(message, [("A", path)], "", {}, 30, facts=True)
    assert [k.candidate.rule for k in kept] == ["Fact"]


def test_a_scope_that_leads_a_memory_is_no_cut_sentence(memx: Memx, repo: Path) -> None:
    """"utils/ipaddr: Do not compress …" begins with the subject's scope, as the memory is
    written: it scored 20 points below the same rule without a scope (a "fragment")."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    scoped = commit(repo, "fix(utils/ipaddr): do not compress a single 0 group to `::`",
                    {"src/ip.ts": "x\n"})
    bare = commit(repo, "Do not compress a single 0 group to `::` in the parser",
                  {"src/ip2.ts": "x\n"})
    by_sha = candidates(memx, base)
    score = {sha: c["score"] for sha, c in by_sha.items()}
    assert str(by_sha[scoped]["content"]).startswith("utils/ipaddr: Do not")
    assert score[scoped] >= score[bare] >= 30


CHANGES = """# Changelog

## Unreleased

### Fixes

- Keep the cache when a read fails (#10)

## 1.0.0

- First release
"""
ADDED = CHANGES.replace("- Keep the cache", """- Reject requests from a browser's origin by default, and bound request bodies to
  1 MiB so a client cannot exhaust the workers (#12)

```
server --allow-origin https://example.invalid
```

- Keep the cache""")


def test_a_fact_carries_the_entry_its_commit_adds_to_a_changelog(memx: Memx,
                                                                  repo: Path) -> None:
    """A squash merge whose body only lists its commits says what it means in the
    changelog entry it adds (a CHANGES.md line, a towncrier fragment): the memory is the
    title with that entry, never the changelog's older lines, a heading or a code block,
    and it is worth more than the title alone."""
    base = commit(repo, "Start", {"CHANGES.md": CHANGES, "src/server.py": "x = 0\n"})
    harden = commit(repo, "Harden the server's request handling (#12)\n\n* Harden the "
                          "request handling\n* update changelog",
                    {"CHANGES.md": ADDED, "src/server.py": "x = 1\n"})
    fragment = commit(repo, "Add `pytest.register_fixture`",
                      {"changelog/12376.feature.rst": "Added :func:`pytest.register_fixture` "
                       "to register fixtures imperatively.\n\n-- by :user:`someone`\n",
                       "src/fixtures.py": "y = 1\n"})
    title = commit(repo, "Harden the parser's handling of the input", {"src/parse.py": "z\n"})
    by_sha = candidates(memx, base)
    assert by_sha[harden]["content"] == (
        "Harden the server's request handling: Reject requests from a browser's origin by "
        "default, and bound request bodies to 1 MiB so a client cannot exhaust the workers.")
    assert by_sha[fragment]["content"] == (
        "Add `pytest.register_fixture`: Added :func:`pytest.register_fixture` to register "
        "fixtures imperatively.")
    assert by_sha[title]["content"] == "Harden the parser's handling of the input."
    assert by_sha[harden]["score"] > by_sha[title]["score"]


RELEASE = """# Changes

## Unreleased

- When loading a `.env` file on top level directory, the working directory is not
  changed to the location of dotenv files, in order to prevent confusion. (#3560)
"""
REWORDED = RELEASE.replace("""- When loading a `.env` file on top level directory, the working directory is not
  changed to the location of dotenv files, in order to prevent confusion. (#3560)""",
                           """- Python 3.8 is no longer supported. (#4100)
- When loading a `.env` file, the working directory is no longer changed to the
  location of the file. (#3560)
- When a view returns a `(response, headers)` tuple, the headers replace the
  response's headers rather than extend them. (#3628)""")


def test_a_fact_carries_its_own_changelog_entry_not_its_neighbours() -> None:
    """flask's history: a commit that rewords one entry and adds two more was stored with
    the first added line (the reworded one, another change's news); a commit that adds
    several entries is read with the one that names what its subject names, and with none
    when no entry names anything of it."""
    diffs = {"CHANGES.md": _diff(RELEASE, REWORDED)}
    kept, _ = rules.reviewed("Change make_response to use headers.update",
                             [("M", "CHANGES.md"), ("M", "src/app.py")], "", diffs, 30,
                             facts=True)
    assert [k.candidate.text for k in kept] == [
        "Change make_response to use headers.update: When a view returns a "
        "`(response, headers)` tuple, the headers replace the response's headers rather "
        "than extend them."]
    kept, _ = rules.reviewed("Speed up the router's matching of static paths",
                             [("M", "CHANGES.md"), ("M", "src/router.py")], "", diffs, 0,
                             facts=True)
    assert [k.candidate.text for k in kept] == [
        "Speed up the router's matching of static paths."]
    # one entry added is the commit's own, whatever words it uses
    one = {"CHANGES.md": _diff(RELEASE, RELEASE.replace("## Unreleased\n", "## Unreleased"
                                                       "\n\n- Matching is 3x faster.\n"))}
    kept, _ = rules.reviewed("Speed up the router's matching of static paths",
                             [("M", "CHANGES.md"), ("M", "src/router.py")], "", one, 0,
                             facts=True)
    assert [k.candidate.text for k in kept] == [
        "Speed up the router's matching of static paths: Matching is 3x faster."]


def _diff(before: str, after: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True), "a/CHANGES.md",
                                        "b/CHANGES.md"))


def test_a_generated_commits_script_gives_no_reason(memx: Memx, repo: Path) -> None:
    """A body that is the script which made the commit ("(cd x && go mod tidy)", an echo
    saying "skipping because …") is code, not a why: it was stored as the commit's
    Decision, its reason the echo; a sentence quoting a command in a code span still is
    one."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    generated = commit(repo, "Raise the go directive of every module to 1.26.0\n\n"
                             "[git-generate]\n(cd . && go get go@1.26.0 && go mod tidy)\n"
                             "(cd tools && echo 'skipping because it already has go1.26.0')",
                       {"src/a.go": "package a\n"})
    quoted = commit(repo, "Run the linters before the tests in `make check`\n\nThe tests "
                          "take minutes, so `make lint && make test` fails fast because "
                          "lint errors are the most common ones.", {"Makefile": "check:\n"})
    by_sha = candidates(memx, base)
    assert "skipping because" not in json.dumps(list(by_sha.values()))
    assert by_sha[generated]["rule"] == "Fact"
    assert by_sha[quoted]["rule"] == "Decision"
    assert "`make lint && make test` fails fast because" in str(by_sha[quoted]["content"])


def test_how_a_change_works_is_no_breakage(memx: Memx, repo: Path) -> None:
    """"by no longer rebuilding …" says how the change works, not that something broke:
    it scored as high as a platform's breakage ("Python 3.15 no longer sets …") and five
    such performance notes filled half of a history's budget."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    means = commit(repo, "Avoid a quadratic rescan in `Node.replace`\n\nImprove performance "
                         "by no longer rebuilding the children list of a node on every call.",
                   {"src/node.py": "x = 1\n"})
    broke = commit(repo, "Read the bytecode path from `module.__spec__`\n\nPython 3.15 no "
                         "longer sets `module.__cached__`, and the spec's path works on every "
                         "version.", {"src/cache.py": "y = 1\n"})
    score = {sha: int(c["score"]) for sha, c in candidates(memx, base).items()}
    assert score[means] + 20 <= score[broke]


def test_what_the_code_now_is_instead_of_before_is_no_rule(memx: Memx, repo: Path) -> None:
    """A squash merge's item "Node#insert is now a loop instead of recursion" states what
    the code is, not a rule: it was stored as a Convention; "Use X instead of Y" stays
    one."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    stated = commit(repo, "perf(router): speed up route registration for large route tables (#5171)\n\n* Node#insert "
                          "is now a loop instead of recursion with array spreads, making "
                          "registration faster\n* add tests", {"src/router.ts": "x\n"})
    rule = commit(repo, "Use `indexOf` instead of regular expressions in the URL helpers",
                  {"src/url.ts": "y\n"})
    by_sha = candidates(memx, base)
    assert by_sha[rule]["rule"] == "Convention"
    assert by_sha[stated]["rule"] == "Fact"
    assert by_sha[stated]["content"] == "router: Speed up route registration for large route tables."
