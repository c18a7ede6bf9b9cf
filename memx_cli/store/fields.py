"""The fields of a memory file and the check of each value (store format v1, SPEC 2).

``FIELDS`` is the file key order; ``check`` validates one value and returns it in the
record's type. ``store_format/memory.schema.json`` states the same rules for other tools;
tests/test_schema_agreement.py checks that the two agree on every field and rejection.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memx_cli import external
from memx_cli.clock import format_timestamp, parse_timestamp
from memx_cli.store.ids import is_valid_id

SCHEMA_VERSION = 1

KINDS = ("fact", "policy")
SECTIONS = (
    "commands", "debugging", "architecture", "workflow", "tools", "patterns",
    "preferences", "general",
)
KNOWLEDGE_TYPES = ("method", "trick", "pitfall", "preference", "knowledge", "convention",
                   "decision")
VERACITIES = ("stated", "inferred", "imported", "tool")
# Short fields that reach an agent's preamble on one line (domain, topic, tags): no control
# character and no line or paragraph separator, so a hand-edited file cannot forge extra
# preamble lines (issue 12; new memories are checked more strictly in store.records).
LABEL_RE = re.compile("^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029]*$")
SCOPE_RE = re.compile(r"^(global|project|workspace:[A-Za-z0-9._/-]{1,100})$")
# A policy's role is shown in every agent's preamble: one word, the shape --role takes
# (issue 26: a newline in it forged a policy line, and validate said OK).
ROLE_RE = external.WORD_RE


@dataclass(frozen=True)
class Field:
    name: str
    check: str
    always: bool = False
    default: Any = None


# File key order (SPEC 2). `active`/`required_role` come from SPEC 5 (policies) and sit
# beside `kind`, the field they qualify.
FIELDS: tuple[Field, ...] = (
    Field("id", "id", always=True),
    Field("kind", "kind", always=True),
    Field("active", "bool", default=True),
    Field("required_role", "role"),
    Field("content", "content", always=True),
    Field("section", "section"),
    Field("type", "ktype"),
    Field("domain", "label"),
    Field("topic", "label"),
    Field("scope", "scope", always=True),
    Field("tags", "labellist", default=[]),
    Field("tools", "strlist", default=[]),
    Field("entities", "strlist", default=[]),
    Field("source", "mapping", default={}),
    Field("veracity", "veracity"),
    Field("confidence", "unit"),
    Field("instructivity", "score"),
    Field("memory_type", "str"),
    Field("anchors", "anchors", default=[]),
    Field("created_at", "timestamp", always=True),
    Field("updated_at", "timestamp", always=True),
    Field("valid_until", "timestamp"),
    Field("mention_count", "count", default=1),
    Field("supersedes", "idlist", default=[]),
    Field("superseded_by", "oneid"),
    Field("conflicts_with", "idlist", default=[]),
    Field("feedback", "feedback", default={}),
)
FIELD_NAMES = ("schema",) + tuple(f.name for f in FIELDS)
REQUIRED = ("schema", "id", "content", "created_at")
ANCHOR_KEYS = ("path", "start_line", "end_line", "hash", "snippet", "commit")


class FieldError(Exception):
    def __init__(self, key: str | None, message: str, index: int | None = None):
        super().__init__(message)
        self.key = key
        self.message = message
        self.index = index


class SchemaError(FieldError):
    pass


def _fail(name: str, expected: str, value: Any, index: int | None = None) -> FieldError:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return FieldError(name, f"field {name!r}: expected {expected}, got {shown}", index)


def check(spec: Field, value: Any) -> Any:
    name, check = spec.name, spec.check
    if check == "id":
        if not isinstance(value, str) or not is_valid_id(value):
            raise _fail(name, "a 26-character lowercase ULID", value)
        return value
    if check in ("str", "content", "label"):
        if not isinstance(value, str):
            raise _fail(name, "text", value)
        if check == "label" and not LABEL_RE.match(value):
            raise _fail(name, "one line without control characters", value)
        if check == "content" and not value.strip():
            raise _fail(name, "non-empty text", value)
        return value
    if check == "role":
        if not isinstance(value, str) or not ROLE_RE.match(value):
            raise _fail(name, "one word (letters, digits, . _ -)", value)
        return value
    if check == "bool":
        if not isinstance(value, bool):
            raise _fail(name, "true or false", value)
        return value
    if check in ("kind", "section", "ktype", "veracity"):
        choices = {"kind": KINDS, "section": SECTIONS, "ktype": KNOWLEDGE_TYPES,
                   "veracity": VERACITIES}[check]
        if value not in choices:
            raise _fail(name, "one of " + ", ".join(choices), value)
        return value
    if check == "scope":
        if not isinstance(value, str) or not SCOPE_RE.match(value):
            raise _fail(name, "global, project or workspace:<name>", value)
        return value
    if check in ("strlist", "labellist", "idlist"):
        if not isinstance(value, list):
            raise _fail(name, "a list", value)
        for i, item in enumerate(value):
            ok = isinstance(item, str) and item.strip() != ""
            if check == "labellist" and ok and not LABEL_RE.match(item):
                raise _fail(name, "a list of one-line text without control characters",
                            item, i)
            if check == "idlist":
                ok = isinstance(item, str) and is_valid_id(item)
            if not ok:
                raise _fail(name, "a list of " + ("ids" if check == "idlist" else "text"),
                            item, i)
        return tuple(value)
    if check == "oneid":
        if not isinstance(value, str) or not is_valid_id(value):
            raise _fail(name, "a memory id", value)
        return value
    if check == "mapping":
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise _fail(name, "a mapping with text keys", value)
        return _plain(value, name)
    if check == "unit":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise _fail(name, "a number between 0 and 1", value)
        return float(value)
    if check in ("score", "count"):
        low, high = (0, 100) if check == "score" else (1, 10**9)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise _fail(name, f"an integer from {low} to {high}", value)
        return value
    if check == "timestamp":
        if isinstance(value, datetime):  # an unquoted timestamp typed by hand
            return format_timestamp(parse_timestamp(value.isoformat()))
        if not isinstance(value, str):
            raise _fail(name, "an ISO-8601 UTC timestamp", value)
        try:
            return format_timestamp(parse_timestamp(value))
        except ValueError:
            raise _fail(name, "an ISO-8601 UTC timestamp", value) from None
    if check == "feedback":
        if not isinstance(value, dict) or set(value) - {"helpful", "harmful"}:
            raise _fail(name, "a mapping with helpful and harmful counts", value)
        for key, count in value.items():
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise _fail(name, f"a non-negative integer for {key}", count)
        return dict(value)
    if check == "anchors":
        if not isinstance(value, list):
            raise _fail(name, "a list of anchors", value)
        return tuple(check_anchor(item, i) for i, item in enumerate(value))
    raise AssertionError(f"unknown check {check}")  # pragma: no cover


def check_anchor(item: Any, index: int) -> dict[str, Any]:
    """The checked keys of one anchor (the record builds the Anchor from them)."""
    if not isinstance(item, dict) or not isinstance(item.get("path"), str) or not item["path"]:
        raise _fail("anchors", "a mapping with at least a 'path'", item, index)
    unknown = set(item) - set(ANCHOR_KEYS)
    if unknown:
        raise FieldError("anchors", f"field 'anchors': unknown anchor key {sorted(unknown)[0]!r}",
                          index)
    for key in ("start_line", "end_line"):
        value = item.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise _fail("anchors", f"a positive line number for {key}", value, index)
    for key in ("hash", "snippet", "commit"):
        if item.get(key) is not None and not isinstance(item[key], str):
            raise _fail("anchors", f"text for {key}", item[key], index)
    return {k: item[k] for k in ANCHOR_KEYS if item.get(k) is not None}


def _plain(value: Any, name: str) -> Any:
    """Keep JSON-compatible data only, so a file never carries Python-specific tags."""
    if isinstance(value, dict):
        return {str(k): _plain(v, name) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, name) for v in value]
    if isinstance(value, datetime):
        return format_timestamp(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise _fail(name, "plain text, numbers, lists and mappings", value)
