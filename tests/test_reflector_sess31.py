"""Sessions whose memories would teach nothing (issue 24): a build broken by the agent's own
change and mended by adding or dropping an import is bookkeeping, no lesson. The sessions
are written in Claude Code's record shapes and ingested with `memx ingest`; the compiler
output is synthetic, in Go's own format. Each guard has a control of the same shape that is
still kept."""

from __future__ import annotations

from pathlib import Path

from memx_cli.reflector.episodes import imports_only

from .conftest import Memx
from .test_reflector_sessions import Session, contents

IMPORTS = 'import (\n\t"context"\n\t"fmt"\n\t"time"\n\n\t"example.com/app/internal/store"\n)'
UNUSED = ("# example.com/app/internal/hooks\n"
          'internal/hooks/commit.go:9:2: "time" imported and not used\n')
UNDEFINED = ("# example.com/app/internal/hooks [example.com/app/internal/hooks.test]\n"
             "internal/hooks/commit_test.go:41:17: undefined: time\n"
             "FAIL\texample.com/app/internal/hooks [build failed]\n")
MOVED = ("internal/hooks/commit.go:11:2: no required module provides package "
         "example.com/app/internal/store; to add it:\n\tgo get example.com/app/internal/store\n")
GREEN = "ok  \texample.com/app/internal/hooks\t0.412s\n"


def _errorfixes(repo: Path) -> list[str]:
    return [c for c in contents(repo) if c.startswith("Error:")]


def _session(output: str, old: str, new: str, path: str = "/repo/internal/hooks/commit.go",
             command: str = "go build ./... 2>&1") -> Session:
    return (Session().user("Record the commit time through the phase transitions instead.")
            .edit("/repo/internal/hooks/commit.go", "\tstart := time.Now()\n", "")
            .run(command, output, True)
            .say("The build fails after that change.")
            .edit(path, old, new)
            .run(command, GREEN, False))


def test_an_unused_import_dropped_after_ones_own_change_is_no_lesson(memx: Memx,
                                                                    repo: Path) -> None:
    name = _session(UNUSED, IMPORTS, IMPORTS.replace('\t"time"\n', "")).write(repo)
    memx.ok("ingest", name)
    assert _errorfixes(repo) == []


def test_a_missing_import_added_for_a_name_just_used_is_no_lesson(memx: Memx,
                                                                 repo: Path) -> None:
    old = IMPORTS.replace('\t"time"\n', "")
    name = _session(UNDEFINED, old, IMPORTS, "/repo/internal/hooks/commit_test.go",
                    "go test ./internal/hooks/... 2>&1").write(repo)
    memx.ok("ingest", name)
    assert _errorfixes(repo) == []


def test_an_import_path_that_moves_is_still_the_lesson(memx: Memx, repo: Path) -> None:
    """Control: the same shape, but the fix takes one path out and puts another in (the
    package moved): that may be what was learnt, and is kept."""
    new = IMPORTS.replace("example.com/app/internal/store", "example.com/app/pkg/store")
    name = _session(MOVED, IMPORTS, new).write(repo)
    memx.ok("ingest", name)
    assert [c for c in _errorfixes(repo) if "pkg/store" in c and "no required module" in c]


def test_an_import_added_with_the_code_that_uses_it_is_still_the_lesson(memx: Memx,
                                                                      repo: Path) -> None:
    """Control: the fix adds the import and changes a line of code in the same edit."""
    old = IMPORTS.replace('\t"time"\n', "") + "\n\tstart := clock.Now()\n"
    new = IMPORTS + "\n\tstart := time.Now().UTC()\n"
    name = _session(UNDEFINED, old, new, "/repo/internal/hooks/commit_test.go",
                    "go test ./internal/hooks/... 2>&1").write(repo)
    memx.ok("ingest", name)
    assert [c for c in _errorfixes(repo) if "undefined: time" in c]


def test_import_entries_are_read_by_each_languages_grammar() -> None:
    assert imports_only("import os\n", "import os\nimport sys\n")
    assert imports_only("from a import b\nx = 1\n", "x = 1\n")
    assert imports_only("", "import { join } from 'node:path';\n")
    assert imports_only("use std::fs;\n", "use std::fs;\nuse std::io::Read;\n")
    assert imports_only('#include <stdio.h>\n', '#include <stdio.h>\n#include "app.h"\n')
    # controls: code changed, nothing changed, a path replaced by another
    assert not imports_only("x = 1\n", "import os\nx = 2\n")
    assert not imports_only("import os\n", "import os\n")
    assert not imports_only("import a.b\n", "import a.c\n")
    assert not imports_only('\tname := "time"\n', "")


LINT_GREEN = "[lint:go] $ ~/src/app/mise-tasks/lint/go\n[lint:go] 0 issues.\n[lint:go] Finished in 2.1s"
FIRST = ("What was happening: the agent uses the `replace` tool for file edits, but "
         "`FileModificationTools` in `types.go` only lists `write_file` and `edit_file`, so "
         "its edits were never seen and no shadow branch was made. Added `replace` to the "
         "list so those edits are tracked.")


def _reported_twice(second: str) -> Session:
    return (Session().user("The shadow branch is never created for gemini sessions, why?")
            .edit("/repo/internal/agent/types.go", '\t"write_file",\n\t"edit_file",\n',
                  '\t"write_file",\n\t"edit_file",\n\t"replace",\n')
            .run("mise run lint 2>&1", LINT_GREEN, False)
            .say(FIRST)
            .user("Nice. Also tidy the comments in that file and run the linters again.")
            .edit("/repo/internal/agent/types.go", "// tools\n",
                  "// Tools whose calls modify files.\n")
            .run("mise run lint 2>&1", LINT_GREEN, False)
            .say(second))


def _reports(repo: Path) -> list[str]:
    return [c for c in contents(repo) if "(checked: `mise run lint" in c]


def test_a_later_report_naming_only_what_an_earlier_one_named_is_a_recap(memx: Memx,
                                                                        repo: Path) -> None:
    name = _reported_twice("Done. Final state: the key fix was adding `replace` to "
                           "`FileModificationTools` - that's what was missing and causing "
                           "your shadow branch not to be created.").write(repo)
    memx.ok("ingest", name)
    assert [r[:40] for r in _reports(repo)] == [FIRST[:40]]


def test_a_later_report_naming_new_code_is_kept(memx: Memx, repo: Path) -> None:
    """Control: the same two reports, the second one names code the first did not."""
    name = _reported_twice("Done. The comment above `FileModificationTools` now says the "
                           "list must match `geminicli.ToolNames`, because a tool missing "
                           "there is never tracked.").write(repo)
    memx.ok("ingest", name)
    assert len(_reports(repo)) == 2


def test_a_python_import_left_unused_and_dropped_is_no_lesson(memx: Memx, repo: Path) -> None:
    """The same guard in Python's grammar; tests/test_reflector_checkrules.py's single
    finding mended by a code change is the control that stays an Error/Fix."""
    name = (Session().user("ruff is failing in CI")
            .run("ruff check src", "src/app/cli.py:3:8: F401 [*] `os` imported but unused\n"
                 "Found 1 error.", True)
            .edit("/repo/src/app/cli.py", "import os\nimport sys\n", "import sys\n")
            .run("ruff check src", "All checks passed!", False)
            .say("Removed the unused `os` import; ruff passes now.")
            .write(repo))
    memx.ok("ingest", name)
    assert _errorfixes(repo) == []
