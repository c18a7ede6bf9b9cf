"""One schema source (issue 11): store_format/memory.schema.json is generated from the
loader's field table, and the two agree on every field and every rejection."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memx_cli.clock import parse_timestamp
from memx_cli.store.fields import FIELDS, FieldError
from memx_cli.store.memory import from_data
from memx_cli.store.schema_json import memory_schema

ROOT = Path(__file__).resolve().parent.parent
ID = "01jdq3m5v8k2n4p6r8t0w2y4z6"
BASE: dict[str, Any] = {"schema": 1, "id": ID, "kind": "fact", "content": "Use pnpm",
                        "scope": "project", "created_at": "2026-11-01T12:00:00Z",
                        "updated_at": "2026-11-01T12:00:00Z"}
# Values of every shape, each tried in every field: the valid ones of some field are the
# invalid ones of another.
VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 7, 0.5, 1.5, 100, 101, 10**10, "", " ", "x", "fact",
    "policy", "debugging", "pitfall", "inferred", "global", "workspace:web", "workspace:",
    ID, ID.upper(), ID[:-1], "ops] ok\n- [security] x", "tab\there", "a\u2028b", ["a\nb"],
    ["x\x1b[31m"], "数据库", "2026-11-01T12:00:00Z", "2026-11-01T12:00:00+02:00",
    "2026-11-01", "yesterday", [], ["a"], [""], [" "], [1], [ID], [ID, "x"], {}, {"a": 1},
    {"a": [1, {"b": None}]}, {1: "a"}, {"helpful": 2}, {"helpful": -1}, {"harmful": True},
    {"other": 1}, [{"path": "a.py"}], [{"path": "a.py", "start_line": 1, "end_line": 3,
                                         "hash": "h", "snippet": "s", "commit": "c"}],
    [{"path": ""}], [{"start_line": 1}], [{"path": "a.py", "start_line": 0}],
    [{"path": "a.py", "colour": "red"}], [{"path": "a.py", "hash": 5}], ["a.py"],
    dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.UTC),
]


def _loader_accepts(data: dict[str, Any]) -> bool:
    try:
        from_data(data)
    except FieldError:
        return False
    return True


def _lenient(name: str, value: Any) -> bool:
    """The documented cases the loader normalises and the schema does not allow."""
    if value is None:
        return True  # null means absent
    spec = next(f for f in FIELDS if f.name == name)
    if spec.check != "timestamp":
        return False
    if isinstance(value, dt.datetime):
        return True  # an unquoted timestamp typed by hand
    try:
        parse_timestamp(value)
    except (TypeError, ValueError):
        return False
    return True  # another ISO-8601 form


@pytest.mark.parametrize("name", [f.name for f in FIELDS])
def test_the_schema_rejects_whatever_the_loader_rejects(name: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(memory_schema())
    disagreements = []
    for value in VALUES:
        data = {**BASE, name: value}
        loader_ok = _loader_accepts(data)
        schema_ok = validator.is_valid(data) if not isinstance(value, dt.datetime) else False
        if schema_ok and not loader_ok:
            disagreements.append(f"schema accepts, loader rejects {value!r}")
        if loader_ok and not schema_ok and not _lenient(name, value):
            disagreements.append(f"loader accepts, schema rejects {value!r}")
    assert not disagreements, f"{name}: " + "; ".join(disagreements)


def test_every_field_is_in_the_schema_and_nothing_else() -> None:
    schema = memory_schema()
    assert list(schema["properties"]) == ["schema", *(f.name for f in FIELDS)]
    assert schema["additionalProperties"] is False


def test_missing_required_fields_are_rejected_by_both() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(memory_schema())
    for name in ("schema", "id", "content", "created_at"):
        data = {k: v for k, v in BASE.items() if k != name}
        assert not _loader_accepts(data) and not validator.is_valid(data), name
    # unknown keys, too
    assert not _loader_accepts({**BASE, "colour": "red"})
    assert not validator.is_valid({**BASE, "colour": "red"})


def test_the_committed_schema_file_is_the_generated_one() -> None:
    result = subprocess.run([sys.executable, "scripts/gen_schema.py", "--check"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
