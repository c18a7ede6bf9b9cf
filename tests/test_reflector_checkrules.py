"""A checker's rules learnt from a session (checkrules.py, issue 24): a lint or type-check
run fails with several rule-named findings, the agent edits, the same command passes. The
sessions are written in Claude Code's record shapes and ingested with `memx ingest`; the
checker outputs are synthetic, in each tool's own format."""

from __future__ import annotations

from pathlib import Path

import yaml

from memx_cli.reflector.checkrules import Finding, findings

from .conftest import Memx
from .test_reflector_sessions import Session, contents


def typed(repo: Path) -> list[tuple[str, str]]:
    """The memories stored: (knowledge type, text)."""
    mems = [yaml.safe_load(p.read_text()) for p in (repo / ".memx" / "memories").glob("*.yaml")]
    return sorted((m["type"], m["content"]) for m in mems)

GOLANGCI = """Exit code 1
[lint:gofmt] $ ~/src/app/mise-tasks/lint/gofmt
[lint:go] $ ~/src/app/mise-tasks/lint/go
[lint:gofmt] Finished in 49.4ms
[lint:go] internal/store/merge.go:41:12: appendAssign: append result not assigned to the same slice (gocritic)
[lint:go] \t\tkeys = append(base.Keys, extra...)
[lint:go] \t\t       ^
[lint:go] internal/store/merge_test.go:88:9: os/exec.Command must not be called. use os/exec.CommandContext (noctx)
[lint:go] \tcmd := exec.Command("git", "init")
[lint:go] \t       ^
[lint:go] 2 issues:
[lint:go] * gocritic: 1
[lint:go] * noctx: 1
[lint:go] ERROR task failed"""
GREEN = "[lint:go] $ ~/src/app/mise-tasks/lint/go\n[lint:go] 0 issues.\n[lint:go] Finished in 2.1s"


def _fixed(session: Session) -> Session:
    return (session
            .edit("/repo/internal/store/merge.go", "\t\tkeys = append(base.Keys, extra...)\n",
                  "\t\tkeys = base.Keys\n\t\tkeys = append(keys, extra...)\n")
            .edit("/repo/internal/store/merge_test.go",
                  '\tcmd := exec.Command("git", "init")\n\tcmd.Dir = dir',
                  '\tcmd := exec.CommandContext(context.Background(), "git", "init")\n'
                  '\tcmd.Dir = dir'))


def test_a_lint_run_red_then_green_after_edits_tells_each_rule_and_its_fix(memx: Memx,
                                                                         repo: Path) -> None:
    name = (_fixed(Session().user("Run the linters and fix what they find.")
                   .run("mise run lint 2>&1", GOLANGCI, True)
                   .say("Two lint issues to fix: appendAssign and noctx."))
            .run("mise run lint 2>&1 | tail -30", GREEN, False)
            .write(repo))
    memx.ok("ingest", name)
    assert typed(repo) == [("convention",
        "`mise run lint` failed on these rules, passed after edits: gocritic appendAssign "
        "— \"append result not assigned to the same slice\" (merge.go:41): `keys = "
        "append(base.Keys, extra...)` → `keys = base.Keys; keys = append(keys, extra...)`; "
        "noctx — \"os/exec.Command must not be called. use os/exec.CommandContext\" "
        "(merge_test.go:88): `cmd := exec.Command(\"git\", \"init\")` → `cmd := "
        "exec.CommandContext(context.Background(), \"git\", \"init\")`. "
        # what the target runs, from mise's own echo (runners.py)
        "`mise run lint` runs the tasks lint:go, lint:gofmt.")]


def test_a_lint_run_that_never_goes_green_tells_no_rules(memx: Memx, repo: Path) -> None:
    """Control: the same findings and edits, but the rerun still fails."""
    still = GOLANGCI.replace("2 issues:", "1 issues:")
    name = (_fixed(Session().user("Run the linters and fix what they find.")
                   .run("mise run lint 2>&1", GOLANGCI, True))
            .run("mise run lint 2>&1", still, True)
            .write(repo))
    memx.ok("ingest", name)
    assert [c for c in contents(repo) if "failed on these rules" in c] == []


def test_a_lint_run_whose_edits_touch_none_of_its_lines_claims_no_fix(memx: Memx,
                                                                     repo: Path) -> None:
    """Control: the run goes green, but no edit replaced a line a finding quotes."""
    name = (Session().user("Run the linters and fix what they find.")
            .run("mise run lint 2>&1", GOLANGCI, True)
            .edit("/repo/.golangci.yml", "  enable:\n    - gocritic\n", "  enable:\n")
            .run("mise run lint 2>&1", GREEN, False)
            .write(repo))
    memx.ok("ingest", name)
    assert [c for c in contents(repo) if "failed on these rules" in c] == []


NOLINT = """Exit code 1
internal/git/refs.go:57:2: G104: Errors unhandled (gosec)
\trefs.ForEach(func(ref *plumbing.Reference) error {
\t\treturn nil
\t})
internal/git/refs.go:31:2: directive `//nolint:noctx,gosec // test helper` is unused for linter "gosec" (nolintlint)
\t//nolint:noctx,gosec // test helper
\t^
2 issues:
* gosec: 1
* nolintlint: 1"""


def test_a_finding_silenced_with_a_directive_says_so(memx: Memx, repo: Path) -> None:
    """gosec's finding is silenced by naming it in the line's nolint (not fixed); the
    nolint that named a linter which did not fire is a finding fixed like any other."""
    name = (Session().user("make lint is red, please fix")
            .run("golangci-lint run ./...", NOLINT, True)
            .edit("/repo/internal/git/refs.go",
                  "\t//nolint:errcheck // iteration stops early\n"
                  "\trefs.ForEach(func(ref *plumbing.Reference) error {",
                  "\t//nolint:errcheck,gosec // iteration stops early\n"
                  "\trefs.ForEach(func(ref *plumbing.Reference) error {")
            .edit("/repo/internal/git/refs.go", "\t//nolint:noctx,gosec // test helper\n",
                  "\t//nolint:noctx // test helper\n")
            .run("golangci-lint run ./...", "0 issues.", False)
            .write(repo))
    memx.ok("ingest", name)
    assert typed(repo) == [("convention",
        "`golangci-lint run ./...` failed on these rules, passed after edits: gosec G104 — "
        "\"Errors unhandled\" (refs.go:57): silenced with `//nolint:errcheck,gosec // iteration "
        "stops early`, not fixed; nolintlint — \"directive `//nolint:noctx,gosec // test "
        "helper` is unused for linter \"gosec\"\" (refs.go:31): `//nolint:noctx,gosec // test "
        "helper` → `//nolint:noctx // test helper`.")]


RUFF = """src/app/cli.py:3:8: F401 [*] `os` imported but unused
src/app/cli.py:40:5: F841 Local variable `total` is assigned to but never used
Found 2 errors.
[*] 1 fixable with the `--fix` option."""


def _ruff(output: str) -> Session:
    """ruff red with ``output``, the unused import removed."""
    return (Session().user("ruff is failing in CI")
            .run("ruff check src", output, True)
            .edit("/repo/src/app/cli.py", "import os\nimport sys\n", "import sys\n"))


def test_ruff_findings_are_tied_to_edits_by_the_names_they_quote(memx: Memx,
                                                                repo: Path) -> None:
    name = (_ruff(RUFF)
            .edit("/repo/src/app/cli.py", "    total = len(rows)\n    return rows\n",
                  "    return rows\n")
            .run("ruff check src", "All checks passed!", False)
            .write(repo))
    memx.ok("ingest", name)
    assert typed(repo) == [("convention",
        "`ruff check src` failed on these rules, passed after edits: F401 — \"`os` "
        "imported but unused\" (cli.py:3): removed `import os`; F841 — \"Local variable "
        "`total` is assigned to but never used\" (cli.py:40): removed `total = len(rows)`.")]


def test_a_narrower_or_filtered_run_passing_proves_nothing(memx: Memx, repo: Path) -> None:
    """Control: after the same edits, a run over one other file and a run whose output grep
    filtered pass; neither is the failing check again."""
    name = (_ruff(RUFF)
            .edit("/repo/src/app/cli.py", "    total = len(rows)\n    return rows\n",
                  "    return rows\n")
            .run("ruff check src/app/other.py", "All checks passed!", False)
            .run("ruff check src | grep cli.py", "", False)
            .write(repo))
    memx.ok("ingest", name)
    assert [c for c in contents(repo) if "failed on these rules" in c] == []


def test_a_single_finding_stays_todays_error_fix(memx: Memx, repo: Path) -> None:
    """Control: one finding is an episode's Error/Fix, as before; no rules memory. (Its
    edit changes code: an unused import only dropped is no Error/Fix at all.)"""
    name = (Session().user("ruff is failing in CI")
            .run("ruff check src", RUFF.splitlines()[1] + "\nFound 1 error.", True)
            .edit("/repo/src/app/cli.py", "    total = len(rows)\n    return rows\n",
                  "    return rows\n")
            .run("ruff check src", "All checks passed!", False)
            .say("Removed the unused `total` variable; ruff passes now.")
            .write(repo))
    memx.ok("ingest", name)
    assert [(kind, text[:24]) for kind, text in typed(repo)] == [
        ("pitfall", "Error: `ruff check src` ")]


GO_TEST = """Exit code 1
--- FAIL: TestMerge (0.00s)
    merge_test.go:41:3: got 3 keys (want 4)
    merge_test.go:52:3: got nil error (expected)
FAIL
FAIL\tgithub.com/acme/app/internal/store\t0.012s"""


def test_a_test_failure_is_no_checker_rule(memx: Memx, repo: Path) -> None:
    """Control: a test run red → edits → green names no rule, whatever its lines end with."""
    name = (Session().user("the store tests fail")
            .run("go test ./internal/store/...", GO_TEST, True)
            .edit("/repo/internal/store/merge.go", "\tkeys = keys[1:]\n", "\tkeys = keys[:]\n")
            .run("go test ./internal/store/...", "ok  \tgithub.com/acme/app/internal/store",
                 False)
            .write(repo))
    memx.ok("ingest", name)
    assert [c for c in contents(repo) if "failed on these rules" in c] == []


def test_the_checkers_formats_are_read_by_their_shape() -> None:
    mypy = ('src/app/db.py:12: error: Argument 1 to "connect" has incompatible type "int"; '
            'expected "str"  [arg-type]\nFound 1 error in 1 file (checked 9 source files)')
    tsc = "src/api.ts(14,7): error TS2345: Argument of type 'string' is not assignable."
    eslint = ("/home/dev/web/src/form.tsx\n"
              "  12:5  error  'draft' is assigned a value but never used  "
              "@typescript-eslint/no-unused-vars\n"
              "  30:1  warning  Unexpected console statement  no-console\n\n"
              "✖ 2 problems (1 error, 1 warning)")
    clippy = ("warning: unneeded `return` statement\n --> src/main.rs:7:5\n  |\n"
              "7 |     return total;\n  |     ^^^^^^^^^^^^^\n  |\n"
              "  = note: `-D clippy::needless-return` implied by `-D warnings`")
    ruff_full = ("F401 [*] `os` imported but unused\n --> src/app/cli.py:3:8\n  |\n"
                 "3 | import os\n  |        ^^\n")
    assert findings(mypy) == [Finding(
        "src/app/db.py", 12, "arg-type",
        'Argument 1 to "connect" has incompatible type "int"; expected "str"')]
    assert findings(tsc) == [Finding("src/api.ts", 14, "TS2345",
                                     "Argument of type 'string' is not assignable.")]
    assert [(f.path, f.line, f.rule) for f in findings(eslint)] == [
        ("/home/dev/web/src/form.tsx", 12, "@typescript-eslint/no-unused-vars"),
        ("/home/dev/web/src/form.tsx", 30, "no-console")]
    assert findings(clippy) == [Finding("src/main.rs", 7, "clippy::needless_return",
                                        "unneeded `return` statement", "return total;")]
    assert findings(ruff_full) == [Finding("src/app/cli.py", 3, "F401",
                                           "`os` imported but unused", "import os")]
    # controls: a compiler's error and a test's line name no rule; rustc's error takes no
    # lint from the warning block after it
    assert findings("cmd/app/main.go:12:2: undefined: store.Open\n"
                    "merge_test.go:41: got nil (want error)") == []
    assert [f.line for f in findings("error[E0308]: mismatched types\n --> src/db.rs:3:9\n"
                                     "3 |     let n: u32 = name;\n\n" + clippy)] == [7]


SWITCH = """[lint] $ golangci-lint run ./...
internal/sync/status.go:40:2: missing cases in switch of type sync.Kind: sync.Renamed, sync.Copied (exhaustive)
\tswitch kind {
\t^
internal/sync/status.go:72:10: error returned from external package is unwrapped: sig: func (*git.Repository).Worktree() (*git.Worktree, error) (wrapcheck)
\t\treturn nil, err
\t\t            ^
2 issues:
* exhaustive: 1
* wrapcheck: 1
[lint] ERROR task failed"""


def _cases(session: Session) -> Session:
    """The switch's missing cases added under it."""
    return session.edit("/repo/internal/sync/status.go",
                        "\tswitch kind {\n\tcase sync.Added:\n\t\tn++\n\t}",
                        "\tswitch kind {\n\tcase sync.Added:\n\t\tn++\n"
                        "\tcase sync.Renamed, sync.Copied:\n\t\t// nothing to count\n\t}")


def test_lines_added_under_a_finding_and_a_long_line_changed_show_the_change(
        memx: Memx, repo: Path) -> None:
    """exhaustive's switch line stays and its missing cases are added under it; a long
    line changed at its end shows the words that changed."""
    name = (_cases(Session().user("lint fails").run("mise run lint", SWITCH, True))
            .edit("/repo/internal/sync/status.go",
                  "\twt, err := repo.Worktree()\n\tif err != nil {\n\t\treturn nil, err\n\t}",
                  "\twt, err := repo.Worktree()\n\tif err != nil {\n"
                  "\t\treturn nil, fmt.Errorf(\"opening the worktree of the checkout: %w\", err)"
                  "\n\t}")
            .run("mise run lint", "[lint] $ golangci-lint run ./...\n0 issues.", False)
            .write(repo))
    memx.ok("ingest", name)
    assert typed(repo) == [("convention",
        "`mise run lint` failed on these rules, passed after edits: exhaustive — \"missing "
        "cases in switch of type sync.Kind: sync.Renamed, sync.Copied\" (status.go:40): added "
        "`case sync.Renamed, sync.Copied:` under `switch kind {`; wrapcheck — \"error returned "
        "from external package is unwrapped: sig: func (*git.Repository).Worktree() "
        "(*git.Worktree, err…\" (status.go:72): `return nil, err` → `return nil, "
        "fmt.Errorf(\"opening the worktree of the checkout: %w\", err)`.")]


def test_a_finding_no_edit_shows_keeps_its_own_error_fix(memx: Memx, repo: Path) -> None:
    """The last finding left (a function too complex, the file rewritten whole) is the
    episode's Error/Fix with the agent's why; the rules memory tells the others only."""
    complex_ = ("internal/sync/status.go:12:1: Function name: run, Cyclomatic Complexity: 36, "
                "Maintainability Index: 19 (maintidx)\nfunc run(w io.Writer) error {\n^\n"
                "1 issues:\n* maintidx: 1\n[lint] ERROR task failed")
    both = SWITCH.replace("2 issues:", complex_.split("\n1 issues:")[0] + "\n3 issues:")
    session = (_cases(Session().user("lint fails").run("mise run lint", both, True))
               .run("mise run lint", complex_, True)
               .say("Let me refactor to reduce complexity by extracting helper functions."))
    session._add("assistant", [{"type": "tool_use", "id": "toolu_w", "name": "Write", "input": {
        "file_path": "/repo/internal/sync/status.go", "content": "package sync\n"}}])
    session._add("user", [{"type": "tool_result", "tool_use_id": "toolu_w",
                           "content": "File written."}])
    name = session.run("mise run lint", "[lint] $ golangci-lint run ./...\n0 issues.",
                       False).write(repo)
    memx.ok("ingest", name)
    assert [text[:60] for _, text in typed(repo)] == [
        "`mise run lint` failed on these rules, passed after edits: e",
        "Error: `mise run lint` — internal/sync/status.go:12:1: Funct"]
    assert "maintidx" not in typed(repo)[0][1]


TRACE = """cmd/app/main.go:19:13: G304: Potential file inclusion via variable (gosec)
\tf, err := os.Create(path)
\t          ^
cmd/app/main.go:24:3: G104: Errors unhandled (gosec)
\t\tdefer f.Close()
\t\t^
2 issues:
* gosec: 2"""


def test_a_directive_silences_only_the_line_it_is_on_or_above(memx: Memx, repo: Path) -> None:
    """One edit silences G304 above its line and fixes G104 a few lines down: the nolint
    naming gosec is not G104's silencing."""
    name = (Session().user("lint please")
            .run("make lint", TRACE, True)
            .edit("/repo/cmd/app/main.go",
                  "\tf, err := os.Create(path)\n\tif err == nil {\n\t\tdefer f.Close()\n\t}",
                  "\t//nolint:gosec // the trace path comes from our own env var\n"
                  "\tf, err := os.Create(path)\n\tif err == nil {\n"
                  "\t\tdefer func() { _ = f.Close() }()\n\t}")
            .run("make lint", "0 issues.", False)
            .write(repo))
    memx.ok("ingest", name)
    assert typed(repo) == [("convention",
        "`make lint` failed on these rules, passed after edits: gosec G304 — \"Potential file "
        "inclusion via variable\" (main.go:19): silenced with `//nolint:gosec // the trace "
        "path comes from our own env var`, not fixed; gosec G104 — \"Errors unhandled\" "
        "(main.go:24): `defer f.Close()` → `defer func() { _ = f.Close() }()`.")]


def test_a_default_replaced_by_the_missing_cases_is_their_addition(memx: Memx,
                                                                  repo: Path) -> None:
    """The switch's `default:` becomes the missing cases (a new line in its block); a case
    only widened above them (`case sync.Added:` → `case sync.Added, sync.Moved:`) is not
    what the check wanted."""
    name = (Session().user("lint fails")
            .run("mise run lint", SWITCH, True)
            .edit("/repo/internal/sync/status.go",
                  "\tswitch kind {\n\tcase sync.Added:\n\t\tn++\n\tdefault:\n\t\tm++\n\t}",
                  "\tswitch kind {\n\tcase sync.Added, sync.Moved:\n\t\tn++\n"
                  "\tcase sync.Renamed, sync.Copied:\n\t\tm++\n\t}")
            .edit("/repo/internal/sync/status.go", "\t\treturn nil, err\n",
                  "\t\treturn nil, fmt.Errorf(\"worktree: %w\", err)\n")
            .run("mise run lint", "0 issues.", False)
            .write(repo))
    memx.ok("ingest", name)
    assert [text.split("; wrapcheck")[0] for _, text in typed(repo)] == [
        "`mise run lint` failed on these rules, passed after edits: exhaustive — \"missing "
        "cases in switch of type sync.Kind: sync.Renamed, sync.Copied\" (status.go:40): added "
        "`case sync.Renamed, sync.Copied:` under `switch kind {`"]
