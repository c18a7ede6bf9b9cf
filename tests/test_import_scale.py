"""Bulk import talks (issue 17): progress on standard error when asked or on a terminal,
and a summary instead of one line per decision."""

from __future__ import annotations

import json

import pytest

from .conftest import Memx

SERVICES = [f"Service {name} listens on port {8000 + n} behind the {name} gateway"
            for n, name in enumerate(["alpha", "bravo", "charlie", "delta", "echo", "foxtrot",
                                      "golf", "hotel", "india", "juliet", "kilo", "lima"])]


def _jsonl(contents: list[str], origin: str | None = None) -> str:
    """Records to import; ``origin`` makes them other records naming the same facts (the
    same records again are skipped as already imported, issue 14)."""
    source = {"source": {"type": "import", "file": origin}} if origin else {}
    return "\n".join(json.dumps({"content": c, **source}) for c in contents)


def test_progress_only_when_asked_and_never_with_json(memx: Memx,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    records = _jsonl([f"Imported fact number {n} about module m{n}" for n in range(250)])
    quiet = memx("import", "--raw", "-", input=records)
    assert (quiet.code, quiet.out, quiet.err) == (0, "Imported 250 memories\n", "")
    monkeypatch.setenv("MEMX_PROGRESS", "1")
    shown = memx("import", "--raw", "-", input=_jsonl(
        [f"Second batch fact {n} about module q{n}" for n in range(250)]))
    assert shown.code == 0 and shown.out == "Imported 250 memories\n"
    assert "\rmemx: reading 100" in shown.err
    assert "\rmemx: checking 250/250 (100%)" in shown.err
    assert shown.err.endswith("\r" + " " * len("memx: checking 250/250 (100%)") + "\r")
    as_json = memx("import", "--raw", "--json", "-", input=_jsonl(["One more fact for json"]))
    assert as_json.err == "" and json.loads(as_json.out)["imported"]


def test_many_decisions_are_summarised_with_examples(memx: Memx) -> None:
    memx.ok("import", "-", input=_jsonl(SERVICES))
    result = memx("import", "-", input=_jsonl(SERVICES, "again.jsonl"))
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "Imported 0 memories, 12 folded into existing memories"
    assert lines[1] == "  12 skipped as duplicates, for example:"
    assert [line.split(": ", 1)[1] for line in lines[2:5]] == [
        s if len(s) <= 60 else s[:59] + "…" for s in SERVICES[:3]]
    assert all(line.startswith("    skipped (duplicate of ") for line in lines[2:5])
    assert lines[5:] == ["  (memx -v import ... lists every decision)"]
    every = memx.ok("-v", "import", "-", input=_jsonl(SERVICES, "third.jsonl")).splitlines()
    assert len(every) == 13 and every[0] == lines[0]
