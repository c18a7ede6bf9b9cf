"""Docs are part of the change: they must say what the code does."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import click

from memx_cli.config import SETTINGS, env_name

ROOT = Path(__file__).resolve().parent.parent


def test_cli_reference_matches_help_output() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_cli_docs.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_setting_is_documented() -> None:
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = [key for key in SETTINGS if f"| `{key}` |" not in text]
    assert missing == []


def test_environment_variable_naming_is_as_documented() -> None:
    assert env_name("ace.retrieval.max_results") == "MEMX_ACE_RETRIEVAL_MAX_RESULTS"


def _package_rows() -> dict[str, str]:
    """The rows of docs/architecture.md's package table, by their first cell without
    backticks, ``/`` or ``.py`` ("store", "api", "base modules")."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = page.split("## The packages", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = line.split(" | ")
        if line.startswith("| ") and len(cells) >= 2:
            rows[cells[0][2:].strip("`").rstrip("/").removesuffix(".py")] = line
    return rows


def _architecture_gaps() -> list[str]:
    """Modules of memx_cli/ that the package table does not name: a module of a package by
    its path inside that package (``sync.py`` or ``sync``, ``setup/plan.py``) in the
    package's row, a top-level module by a row of its own or in the base modules' row."""
    rows = _package_rows()
    package = ROOT / "memx_cli"
    missing = []
    for path in sorted(package.rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        parts = path.relative_to(package).with_suffix("").parts
        if len(parts) == 1:
            if parts[0] in rows:
                continue
            row, inner = rows.get("base modules", ""), parts[0]
        else:
            row, inner = rows.get(parts[0], ""), "/".join(parts[1:])
        spans = set(re.findall(r"`([^`]+)`", row.split(" | ", 1)[-1]))
        if not spans & {inner, inner + ".py"}:
            missing.append(str(path.relative_to(package)))
    return missing


def test_architecture_names_every_module() -> None:
    assert _architecture_gaps() == []


def test_architecture_names_only_modules_that_exist() -> None:
    """A `name.py` in a package's row is a module of that package (or a path from the
    package root or the repository), so a moved or removed module leaves no stale name."""
    package = ROOT / "memx_cli"
    stale = []
    for name, row in _package_rows().items():
        folder = package / name if (package / name).is_dir() else package
        for span in re.findall(r"`([\w/]+\.py)`", row):
            if not any((base / span).is_file() for base in (folder, package, ROOT)):
                stale.append(f"{name}: {span}")
    assert stale == []


def test_command_list_names_every_export_format() -> None:
    """`memx --help` lists export by its one-line summary; each --format it writes must be
    in that line (issue 27: it said "JSON, JSONL or Markdown" and left the three agent
    instruction files out). ``agents-md`` is read as AGENTS.md, ``cursor-rules`` as
    "Cursor rules"."""
    from memx_cli.cli import COMMANDS, cli

    export = cli.get_command(click.Context(cli), "export")
    assert export is not None
    option = next(p for p in export.params if "--format" in p.opts)
    assert isinstance(option.type, click.Choice)
    summary = COMMANDS["export"][2].lower()
    spoken = [str(c).replace("-md", ".md").replace("-", " ") for c in option.type.choices]
    assert [name for name in spoken if name not in summary] == []
