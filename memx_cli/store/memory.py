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

from memx_cli import safeyaml
from memx_cli.clock import parse_timestamp
from memx_cli.errors import InvalidMemoryError, SchemaTooNewError
from memx_cli.store.fields import ANCHOR_KEYS as ANCHOR_KEYS
from memx_cli.store.fields import FIELD_NAMES as FIELD_NAMES
from memx_cli.store.fields import FIELDS, REQUIRED, Field, FieldError, SchemaError, check
from memx_cli.store.fields import KINDS as KINDS
from memx_cli.store.fields import KNOWLEDGE_TYPES as KNOWLEDGE_TYPES
from memx_cli.store.fields import SCHEMA_VERSION as SCHEMA_VERSION
from memx_cli.store.fields import SCOPE_RE as SCOPE_RE
from memx_cli.store.fields import SECTIONS as SECTIONS
from memx_cli.store.fields import VERACITIES as VERACITIES

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


MAX_GLOBS, MAX_GLOB_CHARS = 20, 200  # a rule's path scope, from a committed rule file


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
            if value is None:  # the default of every optional field
                if spec.always:
                    data[spec.name] = value
                continue
            if type(value) not in _SCALARS:  # (a bulk import calls this twice a record)
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

    @property
    def applies_to(self) -> tuple[str, ...]:
        """The path globs a rule is limited to, when it was imported from a rule file that
        scopes it (a Cursor rule with ``globs:`` and ``alwaysApply: false``, a Windsurf
        rule triggered by a glob); () for a rule that applies everywhere. Read from the
        source a committed file recorded: only short one-line globs count."""
        src = self.source
        scoped = src.get("alwaysApply") is False or src.get("trigger") == "glob"
        globs = src.get("globs")
        if not scoped or not globs:
            return ()
        listed = globs.split(",") if isinstance(globs, str) else globs
        if not isinstance(listed, list):
            return ()
        return tuple(g.strip() for g in listed[:MAX_GLOBS] if isinstance(g, str)
                     and g.strip() and len(g) <= MAX_GLOB_CHARS and g.isprintable())

    @property
    def scope_note(self) -> str:
        """`` (only for files matching a, b)`` for a rule limited to some paths, else ''."""
        globs = self.applies_to
        return f" (only for files matching {', '.join(globs)})" if globs else ""


_SCALARS = frozenset({str, int, float, bool})


def _is_default(spec: Field, value: Any) -> bool:
    if value is None:
        return True
    return spec.default is not None and value == spec.default


# ---------------------------------------------------------------- dumping


def _represent_str(dumper: Any, value: str) -> Any:
    # Multi-line text as a literal block: readable in files and in PR diffs.
    style = "|" if "\n" in value.strip("\n") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def dump_data(data: Mapping[str, Any]) -> str:
    """The file text of ``data``: the fast writer's when the record has its shape (the
    same text, issue 15), else YAML's emitter's."""
    from memx_cli.store import emit

    text = emit.dump(data)
    return text if text is not None else yaml_dump(data)


def yaml_dump(data: Mapping[str, Any]) -> str:
    """The file text of ``data`` as YAML's emitter writes it (the reference format)."""
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


def dump_checked(data: Mapping[str, Any]) -> tuple[str, Memory]:
    """The file text of ``data`` and the memory that text loads as, checked as ``load``
    checks a file (raises as it does). Text of the fast writer reads back as ``data``
    itself (tests/test_emit.py), so its fields are checked without a second parse."""
    from memx_cli.store import emit

    text = emit.dump(data)
    if text is not None and find_conflict_marker(text) is None:
        try:
            return text, from_data(dict(data))
        except FieldError:
            pass  # the full read below names the line
    text = yaml_dump(data)
    return text, load(text)


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


# A marker is one of these runs at the start of a line: text holding none of them has
# none, found without splitting it into lines (every file read and written checks).
_MARKER_RUNS = tuple(c * 7 for c in "<=>|")


def find_conflict_marker(text: str) -> int | None:
    """1-based line of the first merge-conflict marker, or None."""
    if not any(run in text for run in _MARKER_RUNS):
        return None
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
    try:
        raw = safeyaml.loads(text)
    except safeyaml.YamlInputError as exc:
        raise InvalidMemoryError(f"{exc.where(path)}: {exc.message}") from None
    if raw is None:
        lines = [line.strip() for line in text.splitlines()]
        if not any(lines):
            raise InvalidMemoryError(f"{path}: empty file, no fields")
        if all(not line or line.startswith("#") for line in lines):
            raise InvalidMemoryError(f"{path}: no fields, only comments")
    try:
        return from_data(raw)
    except FieldError as exc:
        number = _line_of(text, exc.key, exc.index)
        where = f"{path}:{number}" if number else path
        if isinstance(exc, SchemaError):
            raise SchemaTooNewError(f"{where}: {exc.message}") from None
        raise InvalidMemoryError(f"{where}: {exc.message}") from None


def from_data(raw: Any) -> Memory:
    """Build a Memory from plain data, checking every field (raises FieldError)."""
    if not isinstance(raw, dict):
        raise FieldError(None, "expected a mapping of fields at the top level")
    schema = raw.get("schema")
    if schema is None:
        raise FieldError(None, "missing field 'schema' (expected 1)")
    if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
        raise FieldError("schema", f"field 'schema': expected a positive integer, got {schema!r}")
    if schema > SCHEMA_VERSION:
        raise SchemaError(
            "schema",
            f"schema {schema} is newer than this memx supports ({SCHEMA_VERSION}); upgrade memx",
        )
    unknown = [k for k in raw if k not in FIELD_NAMES]
    if unknown:
        raise FieldError(str(unknown[0]), f"unknown field {unknown[0]!r}")
    for name in REQUIRED:
        if name not in raw or raw[name] is None:
            raise FieldError(None, f"missing field {name!r}")
    values: dict[str, Any] = {}
    for spec in FIELDS:
        if spec.name not in raw or raw[spec.name] is None:
            continue
        values[spec.name] = check(spec, raw[spec.name])
    if "anchors" in values:
        values["anchors"] = tuple(Anchor(**a) for a in values["anchors"])
    values.setdefault("updated_at", values["created_at"])
    return Memory(**values)


def _line_of(text: str, key: str | None, index: int | None) -> int | None:
    """The 1-based line of a top-level key (or of its index-th list item)."""
    if key is None:
        return 1
    yaml = _yaml()[0]
    try:
        node = safeyaml.compose(text)
    except safeyaml.YamlInputError:
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
