"""Multi-file operations killed at random moments complete or roll back (issue 14): no
memory lost, none both archived and live, no dangling superseded_by, no temporary file
once the next memx command ran, and `memx validate` clean.

``MEMX_KILL_TRIALS`` kills per operation (a few in CI; hundreds for a long run),
``MEMX_KILL_SEED`` the seed of the moments."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import Memx

TRIALS = int(os.environ.get("MEMX_KILL_TRIALS", "2"))
SEED = int(os.environ.get("MEMX_KILL_SEED", "14"))
MEMX = [sys.executable, "-m", "memx_cli"]
OLD = "2025-01-01T00:00:00Z"
LATER = "2026-07-20T00:00:00Z"


def _files(repo: Path) -> dict[str, list[str]]:
    root = repo / ".memx"
    return {folder: sorted(p.name for p in (root / folder).iterdir())
            if (root / folder).is_dir() else [] for folder in ("memories", "archive")}


def _contents(repo: Path) -> dict[str, str]:
    found = {}
    for folder in ("memories", "archive"):
        for path in sorted((repo / ".memx" / folder).glob("*.yaml")):
            found[path.stem] = yaml.safe_load(path.read_text())["content"]
    return found


def _kill_at_random(repo: Path, command: list[str], rng: random.Random,
                    env: dict[str, str] | None = None) -> None:
    proc = subprocess.Popen(command, cwd=repo, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})})
    time.sleep(rng.uniform(0.05, 1.6))
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def _next_command_then_check(repo: Path, trial: int) -> None:
    """The next memx writer finishes or undoes what the kill left; then every invariant."""
    subprocess.run([*MEMX, "add", f"after kill {trial}"], cwd=repo, check=True,
                   capture_output=True)
    files = _files(repo)
    stray = [n for names in files.values() for n in names if not n.endswith(".yaml")]
    assert stray == [], (trial, stray)
    tmp = repo / ".memx" / "local" / "tmp"
    assert not tmp.exists() or os.listdir(tmp) == [], trial
    live = {n[:-5] for n in files["memories"]}
    archived = {n[:-5] for n in files["archive"]}
    assert live & archived == set(), (trial, "both archived and live")
    for folder in ("memories", "archive"):
        for path in (repo / ".memx" / folder).glob("*.yaml"):
            data = yaml.safe_load(path.read_text())
            links = {data.get("superseded_by"), *data.get("conflicts_with", ()),
                     *data.get("supersedes", ())} - {None}
            assert links <= live | archived, (trial, "dangling", path.name)
    result = subprocess.run([*MEMX, "validate"], cwd=repo, capture_output=True, text=True)
    assert result.returncode == 0, (trial, result.stdout, result.stderr)


def _seed_store(memx: Memx, count: int) -> None:
    records = [{"content": f"fact number {n}: service {n} restarts nightly",
                "created_at": OLD} for n in range(count)]
    memx.ok("import", "-", "--raw", input=json.dumps(records))


@pytest.mark.parametrize("operation", ["sweep", "restore"])
def test_kill_sweep_and_restore(memx: Memx, repo: Path, operation: str) -> None:
    rng = random.Random(SEED)
    _seed_store(memx, 40)
    before = _contents(repo)
    for trial in range(TRIALS):
        if operation == "sweep":
            _kill_at_random(repo, [*MEMX, "sweep"], rng, {"MEMX_NOW": LATER})
        else:
            subprocess.run([*MEMX, "sweep"], cwd=repo, check=True, capture_output=True,
                           env={**os.environ, "MEMX_NOW": LATER})
            archived = _files(repo)["archive"]
            if archived:
                target = rng.choice(archived)[:-5]
                _kill_at_random(repo, [*MEMX, "restore", target], rng)
        _next_command_then_check(repo, trial)
        now = _contents(repo)
        assert {k: now[k] for k in before} == before, trial  # nothing lost or changed


def test_kill_supersede(memx: Memx, repo: Path) -> None:
    rng = random.Random(SEED)
    for trial in range(TRIALS):
        old = memx.ok("add", f"the queue {trial} holds {trial} jobs").strip()
        script = ("import sys\nfrom pathlib import Path\nfrom memx_cli.operations.policy import "
                  "supersede\nfrom memx_cli.store.repo import Repo\n"
                  f"supersede(Repo.discover(Path('.')), {old!r}, 'the queue {trial} holds "
                  f"{trial + 100} jobs now', 'fact')\n")
        _kill_at_random(repo, [sys.executable, "-c", script], rng)
        _next_command_then_check(repo, trial)
        assert old in _contents(repo)


def test_kill_import(memx: Memx, repo: Path, tmp_path: Path) -> None:
    rng = random.Random(SEED)
    records = [{"content": f"endpoint /v{n} answers within {n} ms under load"}
               for n in range(120)]
    payload = tmp_path / "records.jsonl"
    payload.write_text("\n".join(json.dumps(r) for r in records))
    for trial in range(TRIALS):
        _kill_at_random(repo, [*MEMX, "import", str(payload)], rng)
        _next_command_then_check(repo, trial)
    counts = _contents(repo)
    # Running the same import to the end adds each record once, whatever was done before.
    memx.ok("import", str(payload))
    memx.ok("import", str(payload))
    after = _contents(repo)
    imported = [c for c in after.values() if c.startswith("endpoint /v")]
    assert len(imported) == len(set(imported)) <= len(records)
    assert set(counts) <= set(after)
