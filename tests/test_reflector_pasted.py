"""A review finding the session acts on (pasted.py, issue 24): the user pastes what a
reviewer found, quoting the code, and the agent's next edit replaces that very code.
Sessions are written in Claude Code's record shapes and ingested with `memx ingest`."""

from __future__ import annotations

from pathlib import Path

from .conftest import Memx
from .test_reflector_sessions import Session, contents

FINDING = ("The cut -d= -f2 in the config loader keeps the trailing carriage return. If the "
           "file was saved with Windows line endings, the port becomes \"8080\\r\" and the "
           "parse silently fails, so the default port is used.")


def test_a_finding_whose_quoted_code_the_next_edit_replaces_is_kept(memx: Memx,
                                                                    repo: Path) -> None:
    name = (Session().user(FINDING)
            .say("Good catch.")
            .edit("/repo/scripts/load.sh", "cut -d= -f2", "cut -d= -f2 | tr -d '\\r'")
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        "Error: " + FINDING + " Fix: `cut -d= -f2` → `cut -d= -f2 | tr -d '\\r'` in "
        "scripts/load.sh."]


def test_findings_not_acted_on_or_turned_down_give_nothing(memx: Memx, repo: Path) -> None:
    name = (Session().user(FINDING)  # the edit changes other code than the finding quotes
            .say("Let me look at the loader.")
            .edit("/repo/scripts/load.sh", "PORT=8080", "PORT=9090")
            .user(FINDING)  # acted on, then the user says it still fails
            .edit("/repo/scripts/load.sh", "cut -d= -f2", "cut -d= -f2 | tr -d '\\r'")
            .user("still broken, the port is still 8080 after the change")
            .say("Let me check again.")
            .write(repo))
    memx.ok("ingest", name)
    assert [c for c in contents(repo) if "cut -d= -f2" in c] == []


def test_a_list_of_test_names_or_an_order_is_no_finding(memx: Memx, repo: Path) -> None:
    name = (Session()
            .user("Please add these tests: TestLoadPort, TestLoadPortCRLF and TestLoadDefault "
                  "to the loader suite, and run them all before you push the branch")
            .edit("/repo/scripts/load_test.sh", "TestLoadPort", "TestLoadPort TestLoadPortCRLF")
            .user("rename `cut -d= -f2` to use awk in scripts/load.sh and keep the rest as is "
                  "for the whole file")
            .edit("/repo/scripts/load.sh", "cut -d= -f2", "awk -F= '{print $2}'")
            .user("thanks")
            .write(repo))
    memx.ok("ingest", name)
    assert [c for c in contents(repo) if c.startswith("Error: ")] == []
