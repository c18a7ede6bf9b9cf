"""Docs are part of the change: they must say what the code does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
