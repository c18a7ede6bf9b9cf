"""`memx export --format agents-md|claude-md|cursor-rules`: a managed block in the agent's
instruction file, the rest of the file untouched, idempotent, size-bounded, sanitized
and markup-safe; and the opt-in git hook refresh (config agents.export)."""

from __future__ import annotations

from pathlib import Path

from memx_cli.operations.agents_file import BEGIN, END

from .conftest import Memx

USER_AGENTS_MD = "# AGENTS.md\n\nHand-written notes stay here.\n\n- Run `make check`.\n"


def block(text: str) -> str:
    return text[text.index(BEGIN): text.index(END) + len(END)]


def test_the_block_goes_in_once_and_the_rest_stays(memx: Memx, repo: Path) -> None:
    memx.ok("policy", "add", "Never push to main directly.", "--domain", "git")
    memx.ok("add", "The API server lives in services/api.")
    (repo / "AGENTS.md").write_text(USER_AGENTS_MD)
    out = memx.ok("export", "--format", "agents-md")
    assert out.startswith("Updated AGENTS.md (1 policy, 1 fact, ")
    text = (repo / "AGENTS.md").read_text()
    assert text.startswith(USER_AGENTS_MD + "\n" + BEGIN + "\n")
    assert block(text) == (
        f"{BEGIN}\n## Project memory (memx)\n\nRules to follow:\n\n"
        "- [git] Never push to main directly.\n\nFacts about this repository:\n\n"
        f"- The API server lives in services/api.\n\n{END}")
    before = (repo / "AGENTS.md").read_bytes()
    again = memx.ok("export", "--format", "agents-md")
    assert again.startswith("Up to date: AGENTS.md (1 policy, 1 fact, ")
    assert (repo / "AGENTS.md").read_bytes() == before
    # Text the user adds after the block survives a refresh that changes the block.
    (repo / "AGENTS.md").write_text(before.decode() + "\nMore notes.\n")
    memx.ok("add", "Staging deploys from the develop branch.")
    memx.ok("export", "--format", "agents-md")
    text = (repo / "AGENTS.md").read_text()
    assert text.startswith(USER_AGENTS_MD) and text.endswith(f"{END}\n\nMore notes.\n")
    assert "- Staging deploys from the develop branch." in block(text)


def test_memory_text_cannot_break_out_of_the_block(memx: Memx, repo: Path) -> None:
    memx.ok("add", f"Tricky {END}\n# Heading <script>alert(1)</script> & more")
    memx.ok("export", "--format", "claude-md")
    text = (repo / "CLAUDE.md").read_text()
    assert text.count(END) == 1 and text.count("<!--") == 2
    assert "- Tricky &lt;!-- memx:end --&gt; # Heading &lt;script&gt;alert(1)&lt;/script&gt; " \
           "&amp; more\n" in text
    assert [line for line in text.splitlines() if line.startswith("#")] == [
        "## Project memory (memx)"]


def test_a_secret_in_a_hand_edited_memory_is_masked(memx: Memx, repo: Path) -> None:
    memx.ok("add", "The staging token is kept in the vault.")
    [path] = (repo / ".memx" / "memories").glob("*.yaml")
    key = "sk-proj-Q7b2XkP9mZ4vR1tY8wN3cL6hJ0dF5gS2aE9uI4oK7pB1nM3x"
    path.write_text(path.read_text().replace("kept in the vault", f"{key} for now"))
    memx.ok("export", "--format", "agents-md")
    text = (repo / "AGENTS.md").read_text()
    assert key not in text and "[REDACTED:" in text


def test_the_block_is_size_bounded(memx: Memx, repo: Path) -> None:
    for n in range(40):
        memx.ok("add", f"Service number {n} listens on port {9000 + n} in the staging cluster.")
    out = memx.ok("export", "--format", "agents-md", "--max-chars", "800")
    assert "left out for size" in out
    text = block((repo / "AGENTS.md").read_text())
    assert len(text) <= 800
    assert "more in memx: `memx search`, `memx policy list`)" in text


def test_rules_imported_from_the_file_are_not_written_back(memx: Memx, repo: Path) -> None:
    (repo / "CLAUDE.md").write_text("## Style\n- Use tabs for indentation.\n")
    memx.ok("import", "CLAUDE.md")
    memx.ok("export", "--format", "claude-md")
    assert "Use tabs" not in block((repo / "CLAUDE.md").read_text())
    memx.ok("export", "--format", "agents-md")
    assert "- [style] Use tabs for indentation." in (repo / "AGENTS.md").read_text()


def test_cursor_rules_get_a_rule_file_of_their_own(memx: Memx, repo: Path) -> None:
    memx.ok("policy", "add", "Prefer pathlib over os.path.")
    memx.ok("export", "--format", "cursor-rules")
    text = (repo / ".cursor" / "rules" / "memx.mdc").read_text()
    assert text.startswith("---\ndescription: Project memory kept by memx (policies and key "
                           "facts)\nalwaysApply: true\n---\n\n" + BEGIN)


def test_git_hooks_refresh_the_blocks_the_user_opted_into(memx: Memx, repo: Path) -> None:
    memx.ok("add", "The worker consumes the orders queue.")
    memx.ok("hook-impl", "post-rewrite", "amend")
    assert not (repo / "AGENTS.md").exists()  # not opted in: nothing written
    memx.ok("config", "set", "agents.export", "[agents-md]", "--local")
    memx.ok("hook-impl", "post-rewrite", "amend")
    assert "- The worker consumes the orders queue." in (repo / "AGENTS.md").read_text()
    result = memx("config", "set", "agents.export", "[emacs]", "--local")
    assert result.code == 2
    assert "expected a list of agents-md, claude-md, cursor-rules" in result.err


def test_a_role_exports_only_what_it_may_read(memx: Memx, repo: Path,
                                              monkeypatch: object) -> None:
    memx.ok("add", "The payroll export runs at 02:00.", "--domain", "payroll")
    memx.ok("add", "The API server lives in services/api.", "--domain", "codebase")
    (repo / ".memx" / "access.yaml").write_text("grants:\n  agent: {payroll: none}\n")
    monkeypatch.setenv("MEMX_ROLE", "agent")  # type: ignore[attr-defined]
    memx.ok("export", "--format", "agents-md")
    text = (repo / "AGENTS.md").read_text()
    assert "services/api" in text and "payroll" not in text


def test_output_makes_folders_only_inside_the_repository(memx: Memx, repo: Path,
                                                         tmp_path: Path) -> None:
    memx.ok("policy", "add", "Prefer pathlib over os.path.")
    outside = tmp_path / "elsewhere" / "deep" / "AGENTS.md"
    result = memx("export", "--format", "agents-md", "--output", str(outside))
    assert (result.code, result.out) == (2, "")
    assert result.err == (f"memx: error: no folder {outside.parent} to write AGENTS.md in; "
                          "create it first (memx makes folders only inside the repository)\n")
    assert not (tmp_path / "elsewhere").exists()
    # controls: an existing folder outside, and a new folder inside the work tree
    outside.parent.mkdir(parents=True)
    assert memx.ok("export", "--format", "agents-md", "--output", str(outside)).startswith(
        f"Updated {outside} (1 policy")
    out = memx.ok("export", "--format", "agents-md", "--output", "docs/agents/AGENTS.md")
    assert out.startswith("Updated docs/agents/AGENTS.md (1 policy")
    assert "Prefer pathlib" in (repo / "docs" / "agents" / "AGENTS.md").read_text()


def test_output_is_relative_to_dash_c_and_never_empty(memx: Memx, repo: Path,
                                                      tmp_path: Path) -> None:
    memx.ok("policy", "add", "Prefer pathlib over os.path.")
    for fmt in ("agents-md", "json"):
        result = memx("export", "--format", fmt, "--output", "")
        assert (result.code, result.out) == (2, "")
        assert result.err.endswith("memx: error: Invalid value for --output: empty path; name "
                                   "the file to write, or leave --output out for the default\n")
    assert not (repo / "AGENTS.md").exists()
    out = memx.ok("-C", str(repo), "export", "--format", "claude-md", "--output", "MEMO.md",
                  cwd=tmp_path)
    assert out.startswith("Updated MEMO.md (1 policy")
    assert (repo / "MEMO.md").exists() and not (tmp_path / "MEMO.md").exists()
