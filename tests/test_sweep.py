"""Decay end to end: `memx sweep`, `memx restore`, per-type curves and valid_until
(SPEC 3.3), with a pinned clock (MEMX_NOW)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from memx_cli import config as configmod
from memx_cli.decay.curve import DecayCurves, decay_weight
from memx_cli.errors import ConfigError

from .conftest import Memx

T0 = "2026-01-01T00:00:00Z"
DAY_200 = "2026-07-20T00:00:00Z"


def add_at(memx: Memx, monkeypatch: pytest.MonkeyPatch, when: str, *args: str) -> str:
    monkeypatch.setenv("MEMX_NOW", when)
    return memx.ok("add", *args).strip()


def every_file(repo: Path) -> set[str]:
    return {p.name for folder in ("memories", "archive")
            for p in (repo / ".memx" / folder).glob("*.yaml")}


def test_old_unrecalled_memory_is_archived_and_restored(memx: Memx, repo: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    old = add_at(memx, monkeypatch, T0, "The staging database is refreshed every Sunday")
    fresh = add_at(memx, monkeypatch, "2026-07-15T00:00:00Z", "Deploys freeze on Fridays")
    before = every_file(repo)
    monkeypatch.setenv("MEMX_NOW", DAY_200)
    assert memx.ok("sweep", "--dry-run") == (
        "Would archive 1 of 2 memories (weight below 0.02):\n"
        f"  {old}  weight 0.010 after 200 days, 0 recalls  The staging database is refreshed "
        "every Sunday\n")
    assert (repo / ".memx" / "memories" / f"{old}.yaml").exists()
    assert memx.ok("sweep") == (
        "Archived 1 of 2 memories (weight below 0.02):\n"
        f"  {old}  weight 0.010 after 200 days, 0 recalls  The staging database is refreshed "
        "every Sunday\n"
        "Review and commit .memx/; `memx restore ID` brings one back.\n")
    assert not (repo / ".memx" / "memories" / f"{old}.yaml").exists()
    assert (repo / ".memx" / "archive" / f"{old}.yaml").exists()
    assert every_file(repo) == before  # moved, never deleted
    assert [r["id"] for r in json.loads(memx.ok("search", "staging database", "--json"))
            ["results"]] == []
    archived = json.loads(memx.ok("search", "staging database", "--include-archived",
                                  "--json"))["results"]
    assert [r["id"] for r in archived] == [old]

    assert memx.ok("restore", old[:14]) == f"Restored {old} (.memx/memories/{old}.yaml)\n"
    assert every_file(repo) == before
    assert not (repo / ".memx" / "archive" / f"{old}.yaml").exists()
    assert memx.ok("sweep") == "Nothing to archive: 2 memories checked, none below 0.02.\n"
    assert f"{fresh}.yaml" in every_file(repo)


def test_sweep_json_and_recalls_keep_a_memory(memx: Memx, repo: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    kept = add_at(memx, monkeypatch, T0, "Use ruff for linting")
    gone = add_at(memx, monkeypatch, T0, "The old CI ran on Jenkins")
    monkeypatch.setenv("MEMX_NOW", "2026-01-02T00:00:00Z")
    for _ in range(15):  # SPEC 3.3: 15 recalls make a memory permanent
        memx.ok("search", "ruff linting")
    monkeypatch.setenv("MEMX_NOW", DAY_200)
    out = json.loads(memx.ok("sweep", "--json"))["sweep"]
    assert (out["threshold"], out["checked"], out["dry_run"]) == (0.02, 2, False)
    assert [(a["id"], a["recalls"], a["age_days"], a["path"]) for a in out["archived"]] == [
        (gone, 0, 200.0, f".memx/archive/{gone}.yaml")]
    assert (repo / ".memx" / "memories" / f"{kept}.yaml").exists()


def test_valid_until_expires_and_policies_are_never_swept(memx: Memx, repo: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMX_NOW", T0)
    records = [{"content": "The freeze lasts until the release",
                "valid_until": "2026-01-03T00:00:00Z"},
               {"content": "Never force-push to main", "kind": "policy"}]
    ids = json.loads(memx.ok("import", "-", "--json", input=json.dumps(records)))["imported"]
    monkeypatch.setenv("MEMX_NOW", "2026-01-04T00:00:00Z")  # 3 days: still protected by age
    out = json.loads(memx.ok("sweep", "--json"))["sweep"]["archived"]
    assert [(a["id"], a["reason"]) for a in out] == [
        (ids[0], "expired (valid_until 2026-01-03T00:00:00Z)")]
    monkeypatch.setenv("MEMX_NOW", "2030-01-01T00:00:00Z")
    assert memx.ok("sweep") == "Nothing to archive: 1 memory checked, none below 0.02.\n"
    assert (repo / ".memx" / "memories" / f"{ids[1]}.yaml").exists()


def test_restoring_an_expired_memory_makes_it_hold_again(memx: Memx, repo: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # The walk-through (issue 27): a restored memory kept its past valid_until, so search
    # still hid it and the next sweep archived it again.
    monkeypatch.setenv("MEMX_NOW", T0)
    records = [{"content": "The VPN is needed to reach the staging cluster",
                "valid_until": "2026-01-03T00:00:00Z"},
               {"content": "The release train leaves every second Thursday",
                "valid_until": "2027-01-01T00:00:00Z"}]
    expired, later = json.loads(memx.ok("import", "-", "--json",
                                        input=json.dumps(records)))["imported"]
    monkeypatch.setenv("MEMX_NOW", "2026-01-04T00:00:00Z")
    assert "expired" in memx.ok("sweep")
    assert memx.ok("restore", expired) == (
        f"Restored {expired} (.memx/memories/{expired}.yaml)\n")
    text = (repo / ".memx" / "memories" / f"{expired}.yaml").read_text()
    assert "valid_until" not in text and "updated_at: '2026-01-04T00:00:00Z'" in text
    found = json.loads(memx.ok("search", "VPN staging cluster", "--json"))["results"]
    assert [r["id"] for r in found] == [expired]
    assert memx.ok("sweep") == "Nothing to archive: 2 memories checked, none below 0.02.\n"
    # a valid_until still to come is the author's and stays
    later_file = repo / ".memx" / "memories" / f"{later}.yaml"
    archive = repo / ".memx" / "archive" / f"{later}.yaml"
    archive.parent.mkdir(exist_ok=True)
    later_file.rename(archive)
    memx.ok("restore", later)
    assert "valid_until: '2027-01-01T00:00:00Z'" in later_file.read_text()


def test_memory_type_curves_from_config(memx: Memx, repo: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / ".memx" / "config.yaml").write_text(
        "ace:\n  decay:\n    types:\n      commitment: {half_life: 3}\n"
        "      architecture: {scale: 2000, shape: 0.5}\n")
    monkeypatch.setenv("MEMX_NOW", T0)
    records = [{"content": "I will send the report on Monday", "memory_type": "commitment"},
               {"content": "Services talk through the event bus", "memory_type": "architecture"},
               {"content": "Run make check before pushing"}]
    ids = json.loads(memx.ok("import", "-", "--json", input=json.dumps(records)))["imported"]
    monkeypatch.setenv("MEMX_NOW", "2026-01-31T00:00:00Z")  # 30 days
    moved = [a["id"] for a in json.loads(memx.ok("sweep", "--json"))["sweep"]["archived"]]
    assert moved == [ids[0]]  # 2^-10 for the commitment; the default curve is at 0.5
    monkeypatch.setenv("MEMX_NOW", "2027-01-01T00:00:00Z")  # a year
    moved = [a["id"] for a in json.loads(memx.ok("sweep", "--json"))["sweep"]["archived"]]
    assert moved == [ids[2]]  # the architecture fact barely faded


def test_decay_types_config_is_validated() -> None:
    cfg = configmod.load(None, {"ace.decay.types": {"note": {"scale": 10, "shape": 2}}})
    curves = DecayCurves.from_config(cfg)
    assert curves.params("note").half_life == pytest.approx(10 * math.log(2))
    assert curves.weight("note", 20, 0) == pytest.approx(math.exp(-4))
    assert curves.weight(None, 30, 0) == decay_weight(30, 0) == 0.5
    assert curves.weight(None, 1, 0, expired=True) == 0.0
    with pytest.raises(ConfigError) as info:
        configmod.parse_value("ace.decay.types", {"note": {"half_life": 3, "scale": 4}})
    assert str(info.value) == (
        "configuration key 'ace.decay.types': expected {TYPE: {half_life: DAYS or scale: "
        "DAYS, shape: K}} (type 'note'), got {'note': {'half_life': 3, 'scale': 4}}")
    with pytest.raises(ConfigError) as info:
        configmod.parse_value("ace.decay.types", {"note": {"half_life": 0}})
    assert str(info.value) == ("configuration key 'ace.decay.types': type 'note': half_life "
                               "must be a positive number, got {'note': {'half_life': 0}}")


def test_decay_types_from_the_environment(memx: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMX_ACE_DECAY_TYPES", "{commitment: {half_life: 3}}")
    assert json.loads(memx.ok("config", "get", "ace.decay.types")) == {
        "commitment": {"half_life": 3.0}}


def test_a_failed_move_leaves_one_copy_and_the_next_sweep_finishes(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = add_at(memx, monkeypatch, T0, "The staging database is refreshed every Sunday")
    monkeypatch.setenv("MEMX_NOW", DAY_200)

    def crash(source: object, target: object) -> None:
        raise PermissionError("simulated crash")  # the one step of the move

    with monkeypatch.context() as patched:
        patched.setattr("memx_cli.decay.sweep.os.replace", crash)
        result = memx("sweep")
    assert result.code == 3
    # one copy, never two (a copy then a removal left a duplicate when killed between)
    assert copies(repo) == [f"memories/{old}.yaml"]
    assert memx.ok("sweep").startswith("Archived 1 of 1 memory")
    assert copies(repo) == [f"archive/{old}.yaml"]
    assert memx.ok("restore", old).startswith("Restored")
    assert copies(repo) == [f"memories/{old}.yaml"]


def copies(repo: Path) -> list[str]:
    """Every memory file and temporary file, archived or live."""
    root = repo / ".memx"
    return sorted(p.relative_to(root).as_posix() for folder in ("memories", "archive")
                  for p in (root / folder).glob("*") if p.is_file())


def test_restore_errors(memx: Memx) -> None:
    result = memx("restore", "01zz")
    assert (result.code, result.err) == (
        2, "memx: error: no archived memory matches '01zz'; see memx sweep --dry-run and "
           ".memx/archive/\n")


def test_show_finds_an_archived_memory(memx: Memx, repo: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    old = add_at(memx, monkeypatch, T0, "The staging database is refreshed every Sunday")
    monkeypatch.setenv("MEMX_NOW", DAY_200)
    memx.ok("sweep")
    assert memx.ok("show", old).startswith(f"# .memx/archive/{old}.yaml\nschema: 1\n")
    assert memx("show", "01zz").err == "memx: error: no memory matches '01zz'; see memx list\n"
