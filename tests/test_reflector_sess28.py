"""A linter's report that the code does not build is no rule (checkrules.py, issue 24):
golangci-lint passes the compiler's errors on under ``(typecheck)``, after the build's
package line. Sessions in Claude Code's record shapes, ingested with `memx ingest`; the
outputs are synthetic, in the tool's own format; each behaviour with its control."""

from __future__ import annotations

from pathlib import Path

from memx_cli.reflector.checkrules import findings

from .conftest import Memx
from .test_reflector_checkrules import typed
from .test_reflector_sessions import Session, contents

UNBUILT = """Exit code 1
[lint] $ golangci-lint run ./...
internal/sweep/a.go:1: : # example.com/app/internal/sweep [example.com/app/internal/sweep.test]
internal/sweep/sweep.go:40:9: not enough arguments in call to store.Open
\thave ()
\twant (string)
internal/sweep/sweep.go:40:9: assignment mismatch: 2 variables but store.Open returns 1 value (typecheck)
package sweep
1 issues:
* typecheck: 1
[lint] ERROR task failed"""
RULES = """Exit code 1
[lint] $ golangci-lint run ./...
internal/sweep/sweep.go:52:3: error is not nil (line 50) but it returns nil (nilerr)
\t\treturn nil, nil // nothing stored yet
\t\t^
internal/sweep/sweep.go:70:30: Stale - result 1 (error) is always nil (unparam)
func Stale(items []Item) ([]Item, error) {
                             ^
2 issues:
* nilerr: 1
* unparam: 1
[lint] ERROR task failed"""
GREEN = "[lint] $ golangci-lint run ./...\n0 issues."


def _built(session: Session) -> Session:
    """The call given its argument: the package builds again."""
    return session.edit("/repo/internal/sweep/sweep.go", "\tst, err := store.Open()\n",
                        "\tst, err := store.Open(dir)\n")


def _ruled(session: Session) -> Session:
    return (session
            .edit("/repo/internal/sweep/sweep.go",
                  "\tif err != nil {\n\t\treturn nil, nil // nothing stored yet\n\t}\n",
                  "\tif err != nil {\n\t\treturn nil, nil //nolint:nilerr // nothing stored yet is "
                  "no error\n\t}\n")
            .edit("/repo/internal/sweep/sweep.go",
                  "func Stale(items []Item) ([]Item, error) {\n",
                  "func Stale(items []Item) []Item {\n"))


def test_compile_errors_a_linter_passes_on_are_no_rules(memx: Memx, repo: Path) -> None:
    """The typecheck block is told by no rule; the rules the edits answer are, a directive
    that took the place of the line's own comment as a silence."""
    session = _built(Session().user("make lint pass").run("mise run lint 2>&1", UNBUILT, True))
    name = (_ruled(session.run("mise run lint 2>&1", RULES, True))
            .run("mise run lint 2>&1", GREEN, False).write(repo))
    memx.ok("ingest", name)
    rules = [text for kind, text in typed(repo) if kind == "convention"]
    assert rules == [
        "`mise run lint` failed on these rules, passed after edits: nilerr — \"error is not "
        "nil (line 50) but it returns nil\" (sweep.go:52): silenced with `//nolint:nilerr // "
        "nothing stored yet is no error`, not fixed; unparam — \"Stale - result 1 (error) is "
        "always nil\" (sweep.go:70): `func Stale(items []Item) ([]Item, error) {` → `func "
        "Stale(items []Item) []Item {`."]


def test_compile_errors_and_one_rule_make_no_rules_memory(memx: Memx, repo: Path) -> None:
    """Control: with the compile errors set aside one finding is left, an episode's
    Error/Fix as for any single finding; no memory lists typecheck as a rule."""
    one = "\n".join(RULES.splitlines()[:5] + ["1 issues:", "* nilerr: 1", "[lint] ERROR task failed"])
    session = _built(Session().user("make lint pass").run("mise run lint 2>&1", UNBUILT, True))
    name = (_ruled(session.run("mise run lint 2>&1", one, True))
            .run("mise run lint 2>&1", GREEN, False).write(repo))
    memx.ok("ingest", name)
    assert [c for c in contents(repo) if "failed on these rules" in c] == []
    assert not any("typecheck —" in c for c in contents(repo))


def test_a_block_tagged_after_the_build_line_is_set_aside_by_shape() -> None:
    """Any name the linter tags the compiler's block with is set aside in that output; the
    same name with no build line before it (control) is a rule like any other."""
    relayed = UNBUILT.replace("(typecheck)", "(loader)") + "\n" + RULES
    assert [f.rule for f in findings(relayed)] == ["nilerr", "unparam"]
    alone = "internal/sweep/sweep.go:40:9: result of store.Open is dropped (loader)\n" + RULES
    assert [f.rule for f in findings(alone)] == ["loader", "nilerr", "unparam"]
    # golangci-lint's own name for them is known without the build line
    tagged = "internal/sweep/sweep.go:40:9: undefined: store.Open (typecheck)\n" + RULES
    assert [f.rule for f in findings(tagged)] == ["nilerr", "unparam"]
