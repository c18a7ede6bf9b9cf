"""The memory record and its file format (store format v1, SPEC section 2).

One memory is one YAML file. ``dump`` gives the same bytes for the same memory
(fixed key order, block style, UTF-8, trailing newline); ``load`` checks every field
and reports problems with the line they are on, so ``memx validate`` can say
``file:line: problem``. The written spec is ``store_format/SPEC.md``.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memx_cli.clock import format_timestamp, parse_timestamp
from memx_cli.errors import InvalidMemoryError, SchemaTooNewError
from memx_cli.store.ids import is_valid_id

SCHEMA_VERSION = 1

KINDS = ("fact", "policy")
SECTIONS = (
    "commands", "debugging", "architecture", "workflow", "tools", "patterns",
    "preferences", "general",
)
KNOWLEDGE_TYPES = ("method", "trick", "pitfall", "preference", "knowledge")
VERACITIES = ("stated", "inferred", "imported", "tool")
SCOPE_RE = re.compile(r"^(global|project|workspace:[A-Za-z0-9._/-]{1,100})$")
CONFLICT_MARKER_RE = re.compile(r"^(<{7}|={7}|>{7}|\|{7})(\s|$)")



@functools.cache
def _yaml() -> tuple[Any, Any, Any]:
    """(yaml module, loader, block dumper), imported on first use: PyYAML costs ~25 ms
    to import and the search path reads stored JSON, not YAML (SPEC 11)."""
    import yaml

    # SPEC 11: the C loader/dumper is ~9x faster; the output is the same.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    class BlockDumper(base):  # type: ignore[misc, valid-type]
        pass

    BlockDumper.add_representer(str, _represent_str)
    return yaml, loader, BlockDumper


@dataclass(frozen=True)
class Anchor:
    """A passage of a repository file the memory is about (SPEC 3.5)."""

    path: str
    start_line: int | None = None
    end_line: int | None = None
    hash: str | None = None
    snippet: str | None = None
    commit: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path}
        for name in ("start_line", "end_line", "hash", "snippet", "commit"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        return data


@dataclass(frozen=True)
class Memory:
    id: str
    content: str
    created_at: str
    updated_at: str
    kind: str = "fact"
    active: bool = True
    required_role: str | None = None
    section: str | None = None
    type: str | None = None
    domain: str | None = None
    topic: str | None = None
    scope: str = "project"
    tags: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    source: Mapping[str, Any] = field(default_factory=dict)
    veracity: str | None = None
    confidence: float | None = None
    instructivity: int | None = None
    memory_type: str | None = None
    anchors: tuple[Anchor, ...] = ()
    valid_until: str | None = None
    mention_count: int = 1
    supersedes: tuple[str, ...] = ()
    superseded_by: str | None = None
    conflicts_with: tuple[str, ...] = ()
    feedback: Mapping[str, int] = field(default_factory=dict)

    def replace(self, **changes: Any) -> Memory:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain data in file key order; fields at their default are omitted."""
        data: dict[str, Any] = {"schema": SCHEMA_VERSION}
        for spec in FIELDS:
            value = getattr(self, spec.name)
            if spec.name == "anchors":
                value = [a.to_dict() for a in value]
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, Mapping):
                value = dict(value)
            if spec.always or not _is_default(spec, value):
                data[spec.name] = value
        return data

    @property
    def created(self) -> datetime:
        return parse_timestamp(self.created_at)


@dataclass(frozen=True)
class _Field:
    name: str
    check: str
    always: bool = False
    default: Any = None


# File key order (SPEC 2). `active`/`required_role` come from SPEC 5 (policies) and sit
# beside `kind`, the field they qualify.
FIELDS: tuple[_Field, ...] = (
    _Field("id", "id", always=True),
    _Field("kind", "kind", always=True),
    _Field("active", "bool", default=True),
    _Field("required_role", "str"),
    _Field("content", "content", always=True),
    _Field("section", "section"),
    _Field("type", "ktype"),
    _Field("domain", "str"),
    _Field("topic", "str"),
    _Field("scope", "scope", always=True),
    _Field("tags", "strlist", default=[]),
    _Field("tools", "strlist", default=[]),
    _Field("entities", "strlist", default=[]),
    _Field("source", "mapping", default={}),
    _Field("veracity", "veracity"),
    _Field("confidence", "unit"),
    _Field("instructivity", "score"),
    _Field("memory_type", "str"),
    _Field("anchors", "anchors", default=[]),
    _Field("created_at", "timestamp", always=True),
    _Field("updated_at", "timestamp", always=True),
    _Field("valid_until", "timestamp"),
    _Field("mention_count", "count", default=1),
    _Field("supersedes", "idlist", default=[]),
    _Field("superseded_by", "oneid"),
    _Field("conflicts_with", "idlist", default=[]),
    _Field("feedback", "feedback", default={}),
)
FIELD_NAMES = ("schema",) + tuple(f.name for f in FIELDS)
REQUIRED = ("schema", "id", "content", "created_at")
ANCHOR_KEYS = ("path", "start_line", "end_line", "hash", "snippet", "commit")


def _is_default(spec: _Field, value: Any) -> bool:
    if value is None:
        return True
    return spec.default is not None and value == spec.default


# ---------------------------------------------------------------- dumping


def _represent_str(dumper: Any, value: str) -> Any:
    # Multi-line text as a literal block: readable in files and in PR diffs.
    style = "|" if "\n" in value.strip("\n") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def dump_data(data: Mapping[str, Any]) -> str:
    yaml, _, dumper = _yaml()
    text: str = yaml.dump(
        dict(data),
        Dumper=dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
        indent=2,
    )
    return text


def dump(memory: Memory) -> bytes:
    return dump_data(memory.to_dict()).encode("utf-8")


# ---------------------------------------------------------------- loading


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one file, at a line when known."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class _FieldError(Exception):
    def __init__(self, key: str | None, message: str, index: int | None = None):
        super().__init__(message)
        self.key = key
        self.message = message
        self.index = index


def find_conflict_marker(text: str) -> int | None:
    """1-based line of the first merge-conflict marker, or None."""
    for number, line in enumerate(text.splitlines(), 1):
        if CONFLICT_MARKER_RE.match(line):
            return number
    return None


def load(data: bytes | str, path: str = "<memory>") -> Memory:
    """Parse and check one memory file. Raises InvalidMemoryError naming path and line."""
    if isinstance(data, bytes):
        if b"\x00" in data:
            raise InvalidMemoryError(f"{path}: binary file, not a memory")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidMemoryError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    else:
        text = data
    marker = find_conflict_marker(text)
    if marker is not None:
        raise InvalidMemoryError(
            f"{path}:{marker}: merge-conflict marker; resolve the conflict, then run memx validate"
        )
    yaml, loader, _ = _yaml()
    try:
        raw = yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InvalidMemoryError(f"{path}{line}: invalid YAML: {problem}") from None
    try:
        return from_data(raw)
    except _FieldError as exc:
        number = _line_of(text, exc.key, exc.index)
        where = f"{path}:{number}" if number else path
        if isinstance(exc, _SchemaError):
            raise SchemaTooNewError(f"{where}: {exc.message}") from None
        raise InvalidMemoryError(f"{where}: {exc.message}") from None


class _SchemaError(_FieldError):
    pass


def from_data(raw: Any) -> Memory:
    """Build a Memory from plain data, checking every field (raises _FieldError)."""
    if not isinstance(raw, dict):
        raise _FieldError(None, "expected a mapping of fields at the top level")
    schema = raw.get("schema")
    if schema is None:
        raise _FieldError(None, "missing field 'schema' (expected 1)")
    if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
        raise _FieldError("schema", f"field 'schema': expected a positive integer, got {schema!r}")
    if schema > SCHEMA_VERSION:
        raise _SchemaError(
            "schema",
            f"schema {schema} is newer than this memx supports ({SCHEMA_VERSION}); upgrade memx",
        )
    unknown = [k for k in raw if k not in FIELD_NAMES]
    if unknown:
        raise _FieldError(str(unknown[0]), f"unknown field {unknown[0]!r}")
    for name in REQUIRED:
        if name not in raw or raw[name] is None:
            raise _FieldError(None, f"missing field {name!r}")
    values: dict[str, Any] = {}
    for spec in FIELDS:
        if spec.name not in raw or raw[spec.name] is None:
            continue
        values[spec.name] = _check(spec, raw[spec.name])
    values.setdefault("updated_at", values["created_at"])
    return Memory(**values)


def _fail(name: str, expected: str, value: Any, index: int | None = None) -> _FieldError:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return _FieldError(name, f"field {name!r}: expected {expected}, got {shown}", index)


def _check(spec: _Field, value: Any) -> Any:
    name, check = spec.name, spec.check
    if check == "id":
        if not isinstance(value, str) or not is_valid_id(value):
            raise _fail(name, "a 26-character lowercase ULID", value)
        return value
    if check in ("str", "content"):
        if not isinstance(value, str):
            raise _fail(name, "text", value)
        if check == "content" and not value.strip():
            raise _fail(name, "non-empty text", value)
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
    if check in ("strlist", "idlist"):
        if not isinstance(value, list):
            raise _fail(name, "a list", value)
        for i, item in enumerate(value):
            ok = isinstance(item, str) and item.strip() != ""
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
        return tuple(_anchor(item, i) for i, item in enumerate(value))
    raise AssertionError(f"unknown check {check}")  # pragma: no cover


def _anchor(item: Any, index: int) -> Anchor:
    if not isinstance(item, dict) or not isinstance(item.get("path"), str) or not item["path"]:
        raise _fail("anchors", "a mapping with at least a 'path'", item, index)
    unknown = set(item) - set(ANCHOR_KEYS)
    if unknown:
        raise _FieldError("anchors", f"field 'anchors': unknown anchor key {sorted(unknown)[0]!r}",
                          index)
    for key in ("start_line", "end_line"):
        value = item.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise _fail("anchors", f"a positive line number for {key}", value, index)
    for key in ("hash", "snippet", "commit"):
        if item.get(key) is not None and not isinstance(item[key], str):
            raise _fail("anchors", f"text for {key}", item[key], index)
    return Anchor(**{k: item[k] for k in ANCHOR_KEYS if item.get(k) is not None})


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


def _line_of(text: str, key: str | None, index: int | None) -> int | None:
    """The 1-based line of a top-level key (or of its index-th list item)."""
    if key is None:
        return 1
    yaml, loader, _ = _yaml()
    try:
        node = yaml.compose(text, Loader=loader)
    except yaml.YAMLError:
        return None
    if not isinstance(node, yaml.MappingNode):
        return 1
    for key_node, value_node in node.value:
        if key_node.value == key:
            if (index is not None and isinstance(value_node, yaml.SequenceNode)
                    and index < len(value_node.value)):
                return int(value_node.value[index].start_mark.line) + 1
            return int(key_node.start_mark.line) + 1
    return None
