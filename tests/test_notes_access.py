"""Working notes (`memx notes`) and access grants (.memx/access.yaml), SPEC 5."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memx_cli.store.access import Grants, load
from memx_cli.store.repo import Repo

from .conftest import Memx


def test_notes_set_append_show_clear_per_agent(memx: Memx, repo: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMX_NOW", "2026-11-02T09:00:00Z")
    assert memx.ok("notes", "--agent", "claude", "set", "refactoring auth") == \
        "Notes of agent claude: 17 characters.\n"
    memx.ok("notes", "--agent", "claude", "append", "tests   pass\nagain")
    assert memx.ok("notes", "--agent", "claude") == (
        "refactoring auth\n- 2026-11-02T09:00:00Z tests pass again\n")
    path = repo / ".memx" / "local" / "notes" / "claude.md"
    assert path.read_text() == memx.ok("notes", "--agent", "claude", "show")
    empty = memx("notes")  # another agent has none
    monkeypatch.setenv("MEMX_AGENT", "")  # an empty variable is an unset one
    assert memx("notes") == empty
    assert (empty.out, empty.err) == ("", "No notes for agent default.\n")
    monkeypatch.setenv("MEMX_AGENT", "claude")
    assert json.loads(memx.ok("notes", "--json"))["notes"]["agent"] == "claude"
    assert memx.ok("notes", "clear") == "Cleared the notes of agent claude.\n"
    assert not path.exists()
    assert "notes" not in (repo / ".memx" / ".gitignore").read_text()  # local/ covers it


@pytest.mark.parametrize("args, message", [
    (("notes", "--agent", "../evil", "set", "x"),
     "invalid agent name '../evil': use one word (letters, digits, . _ -)"),
    (("notes", "--agent", "", "append", "x"), "empty agent name; pass one word (letters, "
     "digits, . _ -), or leave --agent out for $MEMX_AGENT or 'default'"),
    (("context", "fix the flaky payment webhook", "--agent", ""), "empty agent name; pass "
     "one word (letters, digits, . _ -), or leave --agent out for $MEMX_AGENT or 'default'"),
    (("notes", "set"), "memx notes set needs TEXT (or - for standard input)"),
    (("notes", "append", "   "), "nothing to add; pass the text of the note"),
    (("notes", "set", "x" * 8000), "notes would be 8001 characters (limit 8000); keep them "
     "short: memx notes set or clear, promote lasting facts with memx add"),
])
def test_notes_errors(memx: Memx, args: tuple[str, ...], message: str) -> None:
    result = memx(*args)
    assert result.code == 2
    assert result.err.splitlines()[-1] == f"memx: error: {message}"


def test_grant_lookup_order_and_fail_open_default() -> None:
    grants = Grants({"agent": {"conventions": "write", "*": "none"},
                     "*": {"decisions": "write", "general": "none"}})
    assert grants.level("agent", "conventions") == "write"
    assert grants.level("agent", "decisions") == "none"   # the role's own "*" first
    assert grants.level("reviewer", "decisions") == "write"
    assert grants.level("reviewer", None) == "none"       # no domain is "general"
    assert grants.level("reviewer", "codebase") == "read"  # missing grant: read
    assert grants.level(None, "anything") == "read"
    assert Grants().can_read("agent", "secrets")


def test_policy_needs_write_with_a_role(memx: Memx, repo: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / ".memx" / "access.yaml").write_text(
        "grants:\n  lead: {conventions: write}\n  intern: {conventions: none}\n")
    assert memx.ok("policy", "add", "Squash before merging", "--domain", "conventions",
                   "--role", "lead").strip()
    for role, level in (("intern", "none"), ("guest", "read")):
        result = memx("policy", "add", "Rebase daily", "--domain", "conventions",
                      "--role", role)
        assert (result.code, result.err) == (2, (
            f"memx: error: role '{role}' has {level} access to domain 'conventions'; "
            "proposing a policy needs write (grant it in .memx/access.yaml)\n"))
    monkeypatch.setenv("MEMX_ROLE", "intern")
    assert memx("policy", "add", "Rebase daily", "--domain", "conventions").code == 2
    assert memx("add", "Rebase daily works", "--domain", "conventions").code == 2  # issue 12
    monkeypatch.delenv("MEMX_ROLE")
    assert memx.ok("policy", "add", "Rebase daily", "--domain", "conventions").strip()


def test_broken_access_file_fails_open_with_a_warning(memx: Memx, repo: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    (repo / ".memx" / "access.yaml").write_text("grants:\n  intern: {secrets: maybe}\n")
    assert load(Repo.discover(repo)) == Grants()
    assert caplog.messages == [".memx/access.yaml: role 'intern', domain 'secrets': expected "
                               "none, read or write, got 'maybe'; every grant is read"]


def test_a_misspelt_grants_key_is_a_problem_not_silence(memx: Memx, repo: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # The walk-through (issue 27): `roles:` for `grants:` gave every role read on every
    # domain with no word from validate, doctor or any command.
    (repo / ".memx" / "access.yaml").write_text("roles:\n  intern: {decisions: none}\n")
    problem = ("unknown key 'roles'; expected grants: {ROLE: {DOMAIN: none|read|write}}")
    result = memx("validate")
    assert (result.code, result.out) == (1, f".memx/access.yaml: {problem}\n")
    monkeypatch.setenv("MEMX_ROLE", "intern")
    assert memx("search", "anything").err.splitlines()[0] == (
        f"memx: warning: .memx/access.yaml: {problem}; every grant is read")
