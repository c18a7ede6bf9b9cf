"""The JSON Schema of a memory file, generated from the field table (``store.fields``).

``store_format/memory.schema.json`` is this function's output (``python
scripts/gen_schema.py``); a test fails when the two differ, and another checks that the
schema rejects everything the loader rejects. The schema describes the canonical file, as
memx writes it; the loader also accepts what it can normalise (see ``LENIENT``).
"""

from __future__ import annotations

import json
from typing import Any

from memx_cli.store.fields import (
    ANCHOR_KEYS,
    FIELDS,
    KINDS,
    KNOWLEDGE_TYPES,
    LABEL_RE,
    REQUIRED,
    ROLE_RE,
    SCHEMA_VERSION,
    SCOPE_RE,
    SECTIONS,
    VERACITIES,
    Field,
)
from memx_cli.store.ids import ALPHABET, ID_LENGTH

# What the loader accepts and rewrites to the canonical form, so the schema (which states
# that form) is stricter on these points only.
LENIENT = (
    "a field given as null is treated as absent",
    "kind, scope and updated_at may be left out (fact, project, created_at)",
    "timestamps in any ISO-8601 form are converted to UTC with a Z suffix",
)

_ID = {"type": "string", "pattern": f"^[{''.join(sorted(ALPHABET))}]{{{ID_LENGTH}}}$"}
_TIMESTAMP = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"}
_LABELS = {"type": "array", "items": {"type": "string", "pattern": r"\S"}}
_LINE = {"type": "integer", "minimum": 1}
_PLAIN_SCALAR = ["string", "number", "boolean", "null"]

_CHECKS: dict[str, dict[str, Any]] = {
    "id": {"$ref": "#/$defs/id"},
    "oneid": {"$ref": "#/$defs/id"},
    "idlist": {"type": "array", "items": {"$ref": "#/$defs/id"}},
    "kind": {"enum": list(KINDS)},
    "section": {"enum": list(SECTIONS)},
    "ktype": {"enum": list(KNOWLEDGE_TYPES)},
    "veracity": {"enum": list(VERACITIES)},
    "bool": {"type": "boolean"},
    "str": {"type": "string"},
    "content": {"type": "string", "minLength": 1, "pattern": r"\S"},
    "scope": {"type": "string", "pattern": SCOPE_RE.pattern},
    "role": {"type": "string", "pattern": ROLE_RE.pattern},
    "strlist": {"$ref": "#/$defs/labels"},
    "label": {"type": "string", "pattern": LABEL_RE.pattern},
    "labellist": {"type": "array", "items": {"type": "string",
                                             "allOf": [{"pattern": r"\S"},
                                                       {"pattern": LABEL_RE.pattern}]}},
    "mapping": {"type": "object", "propertyNames": {"type": "string"},
                "additionalProperties": {"$ref": "#/$defs/plain"}},
    "unit": {"type": "number", "minimum": 0, "maximum": 1},
    "score": {"type": "integer", "minimum": 0, "maximum": 100},
    "count": {"type": "integer", "minimum": 1, "maximum": 10**9},
    "timestamp": {"$ref": "#/$defs/timestamp"},
    "feedback": {
        "type": "object",
        "additionalProperties": False,
        "properties": {"helpful": {"type": "integer", "minimum": 0},
                       "harmful": {"type": "integer", "minimum": 0}},
    },
    "anchors": {
        "type": "array",
        "items": {
            "type": "object",
            "additionalProperties": False,
            "required": ["path"],
            "properties": {key: ({"type": "string", "minLength": 1} if key == "path" else
                                 _LINE if key.endswith("_line") else {"type": "string"})
                           for key in ANCHOR_KEYS},
        },
    },
}


def _property(spec: Field) -> dict[str, Any]:
    return dict(_CHECKS[spec.check])


def memory_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one canonical memory file."""
    # A canonical file has every field that is always written (REQUIRED is what the
    # loader insists on; the rest of these it fills in).
    required = ["schema", *(f.name for f in FIELDS if f.always)]
    assert set(REQUIRED) <= set(required)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"memx-memory-v{SCHEMA_VERSION}.schema.json",
        "title": f"memx memory file, store format v{SCHEMA_VERSION}",
        "description": ("One memory per YAML file under .memx/memories/ (or .memx/archive/). "
                        "Generated from memx_cli/store/fields.py; see SPEC.md beside this "
                        "file. memx also reads, and rewrites canonically: "
                        + "; ".join(LENIENT) + "."),
        "type": "object",
        "additionalProperties": False,
        "required": required,
        "properties": {"schema": {"const": SCHEMA_VERSION},
                       **{f.name: _property(f) for f in FIELDS}},
        "$defs": {
            "id": _ID,
            "labels": _LABELS,
            "timestamp": _TIMESTAMP,
            "plain": {"anyOf": [{"type": _PLAIN_SCALAR},
                                {"type": "array", "items": {"$ref": "#/$defs/plain"}},
                                {"type": "object",
                                 "additionalProperties": {"$ref": "#/$defs/plain"}}]},
        },
    }


def render() -> str:
    """The schema file's text: indented JSON with a trailing newline."""
    return json.dumps(memory_schema(), indent=2, ensure_ascii=False) + "\n"
