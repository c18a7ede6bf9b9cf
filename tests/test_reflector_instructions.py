"""Rules written into an agent instruction file during a session (instructions.py, issue 24):
an accepted edit of CLAUDE.md, AGENTS.md, .cursor/rules/… adds rule lines, each a
Convention in the file's words. Sessions are written in Claude Code's record shapes and
ingested with `memx ingest` in a real repository."""

from __future__ import annotations

from pathlib import Path

import yaml

from memx_cli.reflector.instructions import instruction_file, rule_lines

from .conftest import Memx
from .test_reflector_replies import Replies

REFUSED = "<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>"


def stored(repo: Path) -> list[tuple[str, str]]:
    mems = [yaml.safe_load(p.read_text()) for p in (repo / ".memx" / "memories").glob("*.yaml")]
    return sorted((m["type"], m["content"]) for m in mems)


class Agent(Replies):
    def refused_edit(self, path: str, old: str, new: str) -> Agent:
        """An Edit the tool refuses: the file stays as it was."""
        self.calls += 1
        tid = f"toolu_{self.calls}"
        self._add("assistant", [{"type": "tool_use", "id": tid, "name": "Edit", "input": {
            "file_path": path, "old_string": old, "new_string": new}}])
        self._add("user", [{"type": "tool_result", "tool_use_id": tid, "content": REFUSED,
                            "is_error": True}])
        return self

    def multi_edit(self, path: str, pairs: list[tuple[str, str]]) -> Agent:
        self.calls += 1
        tid = f"toolu_{self.calls}"
        self._add("assistant", [{"type": "tool_use", "id": tid, "name": "MultiEdit", "input": {
            "file_path": path, "edits": [{"old_string": o, "new_string": n}
                                         for o, n in pairs]}}])
        self._add("user", [{"type": "tool_result", "tool_use_id": tid,
                            "content": f"Applied {len(pairs)} edits to {path}"}])
        return self

    def write_file(self, path: str, content: str) -> Agent:
        self.calls += 1
        tid = f"toolu_{self.calls}"
        self._add("assistant", [{"type": "tool_use", "id": tid, "name": "Write", "input": {
            "file_path": path, "content": content}}])
        self._add("user", [{"type": "tool_result", "tool_use_id": tid,
                            "content": f"File created successfully at: {path}"}])
        return self


NOTES = "## Testing\n- Run `make test` before pushing.\n"


def test_a_rule_line_added_to_claude_md_is_a_convention(memx: Memx, repo: Path) -> None:
    name = (Agent().user("update the agent notes about the release script")
            .edit("/repo/CLAUDE.md", NOTES,
                  NOTES + "\n## Releases\n```bash\n./scripts/release.sh --dry-run\n```\n"
                  "- **Never** tag a release by hand; run `scripts/release.sh`, which also "
                  "updates [the changelog](CHANGELOG.md).\n")
            .say("Added the release rule to CLAUDE.md.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [(
        "convention", "CLAUDE.md rule: Never tag a release by hand; run `scripts/release.sh`, "
        "which also updates the changelog.")]


def test_an_edit_turned_down_refused_or_taken_back_writes_no_rule(memx: Memx, repo: Path) -> None:
    rule = "- Keep every migration reversible and add its down step in the same file.\n"
    name = (Agent().user("note the migration rules for the agents")
            .rejected_edit("/repo/AGENTS.md", rule, None)
            .say("Stopped.")
            .refused_edit("/repo/AGENTS.md", "## Missing section\n", rule)
            .edit("/repo/db/AGENTS.md", NOTES, NOTES + rule)
            .edit("/repo/db/AGENTS.md", NOTES + rule, NOTES)
            .say("Done.")
            .write(repo))
    memx.ok("ingest", name)
    assert [kind for kind, _ in stored(repo) if kind == "convention"] == []


def test_rules_of_a_multi_edit_in_a_nested_rules_folder_are_kept_once(
        memx: Memx, repo: Path) -> None:
    rule = "- Always wrap an error returned across a package boundary with `fmt.Errorf` and %w."
    name = (Agent().user("tidy the cursor rules for the go code")
            .multi_edit("/repo/services/api/.cursor/rules/go.mdc",
                        [("# Go\n", "# Go\n" + rule + "\n"), ("", rule)])
            .say("Updated the rules file.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [(
        "convention", "services/api/.cursor/rules/go.mdc rule: Always wrap an error returned "
        "across a package boundary with `fmt.Errorf` and %w.")]


def test_a_whole_instruction_file_written_is_a_document_not_a_rule(
        memx: Memx, repo: Path) -> None:
    overview = "# Project\n\n" + "".join(
        f"- Module number {n} must hold the handlers for the {n}th part of the api.\n"
        for n in range(1, 9))
    name = (Agent().user("write an overview for agents")
            .write_file("/repo/CLAUDE.md", overview)
            .say("Wrote CLAUDE.md.")
            .write(repo))
    memx.ok("ingest", name)
    assert [kind for kind, _ in stored(repo) if kind == "convention"] == []


def test_the_lines_that_are_rules() -> None:
    old = "## Style\n- Use tabs.\n"
    new = (old + "### Imports\n| a | b |\n```\nmake lint\n```\nif err != nil {\n"
           "- Group the standard library imports first.\n"
           "- You should group the standard library imports first.\n"
           "- `internal/store`: the helpers that write the files to disk.\n"
           "continued from the line above without a period\n"
           "1. *Always* sort the keys of every JSON file the tools write.\n- ok\n")
    assert rule_lines(old, new) == ["You should group the standard library imports first.",
                                    "Always sort the keys of every JSON file the tools write."]


def test_the_files_agents_read_instructions_from() -> None:
    assert instruction_file("/home/dev/repo/CLAUDE.md") == "CLAUDE.md"
    assert instruction_file("docs/AGENTS.md") == "docs/AGENTS.md"
    assert instruction_file("/x/.github/copilot-instructions.md") == \
        ".github/copilot-instructions.md"
    assert instruction_file(".cursor/rules/a/b.mdc") == ".cursor/rules/a/b.mdc"
    assert instruction_file("README.md") is None
    assert instruction_file("docs/CLAUDE.md.bak") is None
