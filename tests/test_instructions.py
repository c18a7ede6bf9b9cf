"""`memx import` of agent instruction files and Markdown: realistic CLAUDE.md, AGENTS.md
and .cursor/rules in a temporary repository give the expected policies and facts, with
their source file and line; --dry-run writes nothing; re-importing changes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from memx_cli.operations.markdown import items
from memx_cli.operations.rules import classify

from .conftest import Memx

CLAUDE_MD = """# CLAUDE.md

## Commands

- `make dev` starts the app on port 8000.
- Run a single test with:
  ```bash
  pytest tests/test_api.py -k name
  ```

## Code style

- Use pnpm, not npm, for every package command.
- Never commit directly to main.
- Database migrations live in `db/migrations` and use Alembic.
<!-- reviewed 2026-10 -->
@docs/architecture.md
"""
AGENTS_MD = """# AGENTS.md

## Testing
1. All public functions must have type hints.
2. Mock external APIs in unit tests.

## Architecture
FastAPI serves the public API; Celery runs background jobs.

| service | port |
|---------|------|
| api     | 8000 |
"""
CURSOR_RULE = """---
description: TypeScript conventions
globs: ["**/*.ts", "**/*.tsx"]
alwaysApply: false
---
# TypeScript

- Avoid `any`.
- Name React components in PascalCase.
"""


def memories(repo: Path) -> list[dict[str, object]]:
    found = [yaml.safe_load(p.read_text()) for p in (repo / ".memx" / "memories").glob("*.yaml")]
    return sorted(found, key=lambda m: (m["source"]["file"], m["source"]["line"]))  # type: ignore[index]


def fixture(repo: Path) -> None:
    (repo / "CLAUDE.md").write_text(CLAUDE_MD)
    (repo / "AGENTS.md").write_text(AGENTS_MD)
    (repo / ".cursor" / "rules").mkdir(parents=True)
    (repo / ".cursor" / "rules" / "typescript.mdc").write_text(CURSOR_RULE)


def test_instruction_files_become_policies_and_facts(memx: Memx, repo: Path) -> None:
    fixture(repo)
    out = memx.ok("import", "CLAUDE.md", "AGENTS.md", ".cursor/rules")
    assert out == "Imported 11 memories (6 policies, 5 facts)\n"
    got = [(m["source"]["file"], m["source"]["line"], m["kind"], m.get("domain"),  # type: ignore[index]
            m["tags"], m["content"]) for m in memories(repo)]
    assert got == [
        (".cursor/rules/typescript.mdc", 8, "policy", "typescript", ["cursor-rules", "typescript"],
         "Avoid `any`."),
        (".cursor/rules/typescript.mdc", 9, "policy", "typescript", ["cursor-rules", "typescript"],
         "Name React components in PascalCase."),
        ("AGENTS.md", 4, "policy", "testing", ["agents-md", "testing"],
         "All public functions must have type hints."),
        ("AGENTS.md", 5, "policy", "testing", ["agents-md", "testing"],
         "Mock external APIs in unit tests."),
        ("AGENTS.md", 8, "fact", "architecture", ["agents-md", "architecture"],
         "FastAPI serves the public API; Celery runs background jobs."),
        ("AGENTS.md", 10, "fact", "architecture", ["agents-md", "architecture"],
         "| service | port |\n|---------|------|\n| api     | 8000 |"),
        ("CLAUDE.md", 5, "fact", "commands", ["claude-md", "commands"],
         "`make dev` starts the app on port 8000."),
        ("CLAUDE.md", 6, "fact", "commands", ["claude-md", "commands"],
         "Run a single test with:\n  ```bash\n  pytest tests/test_api.py -k name\n  ```"),
        ("CLAUDE.md", 13, "policy", "code-style", ["claude-md", "code-style"],
         "Use pnpm, not npm, for every package command."),
        ("CLAUDE.md", 14, "policy", "code-style", ["claude-md", "code-style"],
         "Never commit directly to main."),
        ("CLAUDE.md", 15, "fact", "code-style", ["claude-md", "code-style"],
         "Database migrations live in `db/migrations` and use Alembic."),
    ]
    [rule] = [m for m in memories(repo) if m["source"]["file"].endswith(".mdc")][:1]  # type: ignore[index]
    assert rule["source"]["globs"] == ["**/*.ts", "**/*.tsx"]  # type: ignore[index]
    assert rule["source"]["alwaysApply"] is False  # type: ignore[index]
    assert rule["veracity"] == "stated"


def test_reimporting_an_unchanged_file_changes_nothing(memx: Memx, repo: Path) -> None:
    fixture(repo)
    memx.ok("import", "CLAUDE.md", "AGENTS.md", ".cursor/rules")
    store = repo / ".memx" / "memories"
    before = {p.name: p.read_bytes() for p in store.iterdir()}
    out = memx.ok("import", "CLAUDE.md", "AGENTS.md", ".cursor/rules")
    assert out == "Nothing new to import (11 items already imported)\n"
    assert {p.name: p.read_bytes() for p in store.iterdir()} == before
    # One new rule, and the others moved down a line: only the new rule is imported.
    (repo / "CLAUDE.md").write_text(CLAUDE_MD.replace("## Code style\n\n",
                                                      "## Code style\n\n- Keep functions short.\n"))
    out = memx.ok("import", "CLAUDE.md")
    assert out == "Imported 1 memory (1 policy, 0 facts), 5 already imported\n"
    assert len(list(store.iterdir())) == 12


def test_dry_run_shows_the_split_and_writes_nothing(memx: Memx, repo: Path) -> None:
    fixture(repo)
    out = memx.ok("import", "AGENTS.md", "--dry-run")
    assert out == (
        "Dry run: 4 new items (2 policies, 2 facts); nothing written\n"
        "+ policy AGENTS.md:4                  [testing] All public functions must have type hints.\n"
        "+ policy AGENTS.md:5                  [testing] Mock external APIs in unit tests.\n"
        "+ fact   AGENTS.md:8                  [architecture] FastAPI serves the public API; Celery "
        "runs background jobs.\n"
        "+ fact   AGENTS.md:10                 [architecture] | service | port | |---------|------| "
        "| api | 8000 |\n")
    assert not list((repo / ".memx" / "memories").glob("*.yaml"))
    data = json.loads(memx.ok("import", "AGENTS.md", "--dry-run", "--json"))
    assert [(i["line"], i["kind"], i["block"], i["present"]) for i in data["items"]] == [
        (4, "policy", "bullet", False), (5, "policy", "bullet", False),
        (8, "fact", "paragraph", False), (10, "fact", "table", False)]


def test_other_agents_files_and_plain_notes(memx: Memx, repo: Path) -> None:
    (repo / ".github").mkdir()
    (repo / ".github" / "copilot-instructions.md").write_text("- Prefer small pull requests.\n")
    (repo / ".windsurf" / "rules").mkdir(parents=True)
    (repo / ".windsurf" / "rules" / "deploy.md").write_text(
        "---\ntrigger: always_on\n---\nStaging deploys automatically from `develop`.\n")
    (repo / "memory-bank").mkdir()
    (repo / "memory-bank" / "techContext.md").write_text("# Tech\n\n- Node 20, pnpm 9\n")
    (repo / "notes.md").write_text("# Deploy notes\n\nDeploy with:\n\n```sh\nfly deploy\n```\n")
    memx.ok("import", ".github/copilot-instructions.md", ".windsurf", "memory-bank", "notes.md")
    got = {m["source"]["file"]: (m["kind"], m.get("domain"), m["tags"], m["content"])  # type: ignore[index]
           for m in memories(repo)}
    assert got == {
        ".github/copilot-instructions.md": ("policy", "copilot-instructions",
                                            ["copilot-instructions"], "Prefer small pull requests."),
        ".windsurf/rules/deploy.md": ("fact", "deploy", ["windsurf-rules", "deploy"],
                                      "Staging deploys automatically from `develop`."),
        "memory-bank/techContext.md": ("fact", "techcontext", ["memory-bank", "techcontext"],
                                       "Node 20, pnpm 9"),
        "notes.md": ("fact", "deploy-notes", ["markdown", "deploy-notes"],
                     "Deploy with:\n\n```sh\nfly deploy\n```"),
    }


def test_secrets_in_instruction_files_are_masked(memx: Memx, repo: Path) -> None:
    key = "sk-proj-Q7b2XkP9mZ4vR1tY8wN3cL6hJ0dF5gS2aE9uI4oK7pB1nM3x"
    (repo / "AGENTS.md").write_text(f"- Use the staging key {key} for smoke tests.\n")
    memx.ok("import", "AGENTS.md")
    [mem] = memories(repo)
    assert key not in str(mem["content"]) and "[REDACTED:" in str(mem["content"])


def test_bad_paths_and_json_mixing_are_one_line(memx: Memx, repo: Path) -> None:
    result = memx("import", "missing.md")
    assert result.code == 2
    assert result.err.endswith("memx: error: Invalid value for 'FILE...': Path 'missing.md' "
                               "does not exist.\n")
    (repo / "a.json").write_text("[]")
    (repo / "b.json").write_text("[]")
    result = memx("import", "a.json", "b.json")
    assert result.err.endswith("memx: error: JSON/JSONL and memx's Markdown export: import one "
                               "file at a time, without --dry-run (Markdown notes and folders "
                               "can be combined)\n")
    (repo / "empty").mkdir()
    result = memx("import", "empty")
    assert (result.code, result.err) == (2, "memx: error: import: no Markdown files in empty\n")


def test_markdown_items_keep_code_blocks_whole() -> None:
    text = "## Setup\nInstall with:\n\n```sh\npip install -e .\n\nmake\n```\n\n- a\n  - nested\n- b\n"
    assert [(i.line, i.kind, i.text) for i in items(text)] == [
        (2, "paragraph", "Install with:\n\n```sh\npip install -e .\n\nmake\n```"),
        (10, "bullet", "a\n  - nested"), (12, "bullet", "b")]


def test_policy_or_fact_on_labelled_rules() -> None:
    """tests/data/instruction_rules.tsv was written before the classifier (see docs)."""
    rows = [line.rstrip("\n").split("\t") for line in
            (Path(__file__).parent / "data" / "instruction_rules.tsv").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    for split, floor in (("dev", 0.95), ("heldout", 0.85)):
        chosen = [(label, text) for s, label, text in rows if s == split]
        right = sum(classify(text) == label for label, text in chosen)
        assert right / len(chosen) >= floor, (split, right, len(chosen))


def test_a_role_needs_write_on_the_domain_and_nothing_is_written_otherwise(
        memx: Memx, repo: Path, monkeypatch: object) -> None:
    fixture(repo)
    (repo / ".memx" / "access.yaml").write_text(
        "grants:\n  agent: {testing: read, architecture: write}\n")
    monkeypatch.setenv("MEMX_ROLE", "agent")  # type: ignore[attr-defined]
    result = memx("import", "AGENTS.md")
    assert result.code == 2
    assert result.err.startswith("memx: error: role 'agent' has read access to domain 'testing'")
    assert not list((repo / ".memx" / "memories").glob("*.yaml"))
    (repo / ".memx" / "access.yaml").write_text("grants:\n  agent: {'*': write}\n")
    assert memx.ok("import", "AGENTS.md").startswith("Imported 4 memories")


def test_the_facade_checks_the_grants_of_a_markdown_import(memx: Memx, repo: Path) -> None:
    """The check is the library's (Memx.import_instructions), not the CLI's: a Python
    caller with a role is refused the same way and nothing is written."""
    from memx_cli.api import Memx as Facade
    from memx_cli.store.access import AccessDeniedError

    fixture(repo)
    (repo / ".memx" / "access.yaml").write_text(
        "grants:\n  agent: {testing: read, architecture: write}\n")
    with pytest.raises(AccessDeniedError, match="role 'agent' has read access to domain"):
        Facade.open(repo, role="agent").import_instructions([repo / "AGENTS.md"])
    assert not list((repo / ".memx" / "memories").glob("*.yaml"))
    found, results = Facade.open(repo).import_instructions([repo / "AGENTS.md"])
    assert len(results) == len(found) == 4


def test_a_folder_gone_while_the_import_walks_is_passed_over(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Importing a busy shared folder was an internal error when a folder under it went
    away between its listing and its reading (pathlib's rglob raised FileNotFoundError).
    The walk passes over it and imports the rest; the folders that are there (the
    control) are read, .git and .memx are not."""
    rules = repo / "rules"
    (rules / "gone").mkdir(parents=True)
    (rules / "kept").mkdir()
    (rules / "gone" / "a.md").write_text("- Never commit generated files\n")
    (rules / "kept" / "b.md").write_text("- Always run the linter before pushing\n")
    (rules / ".memx").mkdir()
    (rules / ".memx" / "c.md").write_text("- An agent's private note\n")
    scandir = os.scandir

    def vanishing(path: object = ".") -> object:
        if Path(str(path)).name == "gone":
            raise FileNotFoundError(2, "No such file or directory", str(path))
        return scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", vanishing)
    out = memx.ok("import", "rules", "--dry-run")
    assert "Always run the linter" in out
    assert "generated files" not in out and "private note" not in out
