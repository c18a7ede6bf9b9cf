"""Store format v1: golden files round-trip byte for byte; every field is checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from memx_cli.errors import InvalidMemoryError, SchemaTooNewError
from memx_cli.store import memory as memfmt

FORMAT_DIR = Path(__file__).resolve().parent.parent / "store_format"
EXAMPLES = sorted((FORMAT_DIR / "examples").glob("*.yaml"))


def test_there_are_golden_examples() -> None:
    assert {p.stem for p in EXAMPLES} >= {"minimal", "full", "policy", "superseded-cjk"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_golden_file_round_trips_byte_for_byte(path: Path) -> None:
    data = path.read_bytes()
    assert memfmt.dump(memfmt.load(data, str(path))) == data


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_golden_file_matches_json_schema(path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((FORMAT_DIR / "memory.schema.json").read_text())
    jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), schema)


def test_full_example_sets_every_field() -> None:
    """The golden files exercise every field of the format, so none can rot unnoticed."""
    keys: set[str] = set()
    for path in EXAMPLES:
        keys |= set(yaml.safe_load(path.read_text(encoding="utf-8")))
    assert keys == set(memfmt.FIELD_NAMES)


def test_pure_python_dumper_gives_the_same_bytes() -> None:
    mem = memfmt.load((FORMAT_DIR / "examples" / "full.yaml").read_bytes())
    pure = yaml.dump(mem.to_dict(), Dumper=_pure_dumper(), sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100, indent=2)
    assert pure.encode() == memfmt.dump(mem)


def _pure_dumper() -> type:
    class Pure(yaml.SafeDumper):
        pass

    def rep(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
        style = "|" if "\n" in value.strip("\n") else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Pure.add_representer(str, rep)
    return Pure


GOOD = (FORMAT_DIR / "examples" / "minimal.yaml").read_text(encoding="utf-8")


def _broken(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_broken("kind: fact", " kind: fact"),
         "f.yaml:3: invalid YAML: mapping values are not allowed in this context"),
        (_broken("kind: fact\n", "kind: fact\n<<<<<<< HEAD\n"),
         "f.yaml:4: merge-conflict marker; resolve the conflict, then run memx validate"),
        (_broken("confidence: 1.0", "confidence: high"),
         "f.yaml:11: field 'confidence': expected a number between 0 and 1, got 'high'"),
        (_broken("kind: fact", "kind: rumour"),
         "f.yaml:3: field 'kind': expected one of fact, policy, got 'rumour'"),
        (GOOD + "colour: blue\n", "f.yaml:14: unknown field 'colour'"),
        (_broken("tags:\n- tooling", "tags:\n- tooling\n- ''"),
         "f.yaml:8: field 'tags': expected a list of text, got ''"),
        (_broken("scope: project", "scope: team"),
         "f.yaml:5: field 'scope': expected global, project or workspace:<name>, got 'team'"),
        (_broken("created_at: '2026-11-02T09:15:00Z'", "created_at: yesterday"),
         "f.yaml:12: field 'created_at': expected an ISO-8601 UTC timestamp, got 'yesterday'"),
        (_broken("schema: 1\n", ""), "f.yaml:1: missing field 'schema' (expected 1)"),
        ("- just\n- a list\n", "f.yaml:1: expected a mapping of fields at the top level"),
        ("~\n", "f.yaml:1: expected a mapping of fields at the top level"),  # control
        ("", "f.yaml: empty file, no fields"),
        (" \n\n  \n", "f.yaml: empty file, no fields"),
        ("# kept for later\n\n", "f.yaml: no fields, only comments"),
    ],
)
def test_invalid_files_name_line_and_problem(text: str, message: str) -> None:
    with pytest.raises(InvalidMemoryError) as info:
        memfmt.load(text.encode(), "f.yaml")
    assert str(info.value) == message


def test_newer_schema_is_refused_with_upgrade_hint() -> None:
    with pytest.raises(SchemaTooNewError) as info:
        memfmt.load(_broken("schema: 1", "schema: 99").encode(), "f.yaml")
    assert str(info.value) == (
        "f.yaml:1: schema 99 is newer than this memx supports (1); upgrade memx"
    )


def test_binary_and_non_utf8_input_are_refused() -> None:
    with pytest.raises(InvalidMemoryError, match=r"^f.yaml: binary file, not a memory$"):
        memfmt.load(b"schema: 1\x00\x01", "f.yaml")
    with pytest.raises(InvalidMemoryError, match=r"^f.yaml: not UTF-8 text \(byte 6\)$"):
        memfmt.load(b"id: x \xff\xfe", "f.yaml")


def test_hand_typed_unquoted_timestamp_is_accepted_and_normalised() -> None:
    mem = memfmt.load(_broken("created_at: '2026-11-02T09:15:00Z'",
                              "created_at: 2026-11-02 10:15:00+01:00").encode())
    assert mem.created_at == "2026-11-02T09:15:00Z"


def test_empty_optional_fields_are_omitted() -> None:
    mem = memfmt.load(GOOD.encode())
    text = memfmt.dump(mem.replace(tags=(), source={})).decode()
    assert "tags" not in text and "source" not in text and "mention_count" not in text


@pytest.mark.parametrize(("text", "line"), [
    ("schema: 1\ncontent: a\n<<<<<<< ours\n", 3),
    ("a\n=======\n", 2),
    ("a\n|||||||\n>>>>>>> theirs", 2),
    ("a\x0c>>>>>>> theirs\n", 2),  # any line break splitlines knows starts a line
    ("content: x <<<<<<< y\n", None),  # a run inside a line is no marker
    ("a\n========\n", None),  # eight at the start: no marker (seven, then a space or the end)
    ("content: <<<<<< six\n", None),
    ("schema: 1\ncontent: plain text\n", None),
])
def test_conflict_markers_are_found_at_the_start_of_a_line(text: str, line: int | None) -> None:
    from memx_cli.store.memory import find_conflict_marker

    assert find_conflict_marker(text) == line
