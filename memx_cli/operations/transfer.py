"""Import and export of memories as JSON, JSONL or Markdown (SPEC 7)."""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from memx_cli.clock import format_timestamp, parse_timestamp
from memx_cli.errors import MemxError
from memx_cli.operations import write as ace
from memx_cli.store import intents
from memx_cli.store import memory as memfmt
from memx_cli.store.files import Store
from memx_cli.store.ids import is_valid_id
from memx_cli.store.memory import VERACITIES, Memory
from memx_cli.store.records import WriteResult, build
from memx_cli.store.repo import Repo

# Fields build() handles; every other memory field is passed through and checked.
BUILT = {"content", "tags", "source", "created_at", "kind", "scope", "domain", "topic",
         "veracity"}
PASS_THROUGH = set(memfmt.FIELD_NAMES) - BUILT - {"schema"}
IMPORT_KEYS = BUILT | PASS_THROUGH | {"schema"}


def read_records(stream: IO[bytes]) -> Iterator[tuple[int, Any]]:
    """(line or position, object) for a JSON array, a {"memories": [...]} object, JSONL or
    memx's own Markdown export."""
    head = stream.read(1)
    while head in (b" ", b"\n", b"\r", b"\t"):
        head = stream.read(1)
    if head in (b"[", b"{"):
        rest = stream.read()
        try:
            data = json.loads((head + rest).decode("utf-8"))
        except UnicodeDecodeError:
            raise MemxError("import: input is not UTF-8 text") from None
        except RecursionError:
            raise MemxError("import: JSON nested too deep; records are flat objects") from None
        except json.JSONDecodeError as exc:
            if head == b"{" and b"\n{" in rest:
                yield from _jsonl(head + rest)
                return
            raise MemxError(f"import: invalid JSON at line {exc.lineno}: {exc.msg}") from None
        if isinstance(data, dict) and isinstance(data.get("memories"), list):
            data = data["memories"]
        elif isinstance(data, dict):
            data = [data]
        if not isinstance(data, list):
            raise MemxError("import: expected a JSON array of memory objects")
        yield from enumerate(data, 1)
    elif head == b"#":
        try:
            text = (head + stream.read()).decode("utf-8")
        except UnicodeDecodeError:
            raise MemxError("import: input is not UTF-8 text") from None
        records = markdown_export_records(text)
        if records is None:
            raise MemxError("import: Markdown that is not memx's own export; import it as a "
                            "file (memx import NOTES.md) to split it into policies and facts")
        yield from enumerate(records, 1)
    elif head:
        raise MemxError("import: expected JSON (an array of objects) or JSONL (one per line)")


def _jsonl(data: bytes) -> Iterator[tuple[int, Any]]:
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise MemxError(f"import: line {number}: invalid JSON ({exc})") from None
        except RecursionError:
            raise MemxError(f"import: line {number}: JSON nested too deep") from None


def to_memory(repo: Repo, record: Any, where: int, raw: bool) -> Memory:
    """Check one import record; errors name the record."""
    return checked_record(repo, record, where, raw)[0]


def checked_record(repo: Repo, record: Any, where: int,
                   raw: bool) -> tuple[Memory, bytes | None]:
    """``to_memory``, and the memory's file bytes when the check produced them already
    (the record was in the file's own form): a raw import then writes them as they are
    instead of dumping the memory a second time (issue 15)."""
    if not isinstance(record, dict):
        raise MemxError(f"import: record {where}: expected an object with at least 'content'")
    unknown = sorted(set(record) - IMPORT_KEYS)
    if unknown:
        raise MemxError(f"import: record {where}: unknown field {unknown[0]!r}")
    content = record.get("content")
    if not isinstance(content, str) or not content.strip():
        raise MemxError(f"import: record {where}: 'content' must be non-empty text")
    problem = _shape_problem(record)
    if problem:
        raise MemxError(f"import: record {where}: {problem}")
    try:
        source = record.get("source") or {"type": "import"}
        if not isinstance(source, dict):
            raise MemxError("'source' must be an object")
        veracity = record.get("veracity", "imported")
        if veracity not in VERACITIES:
            raise MemxError(f"'veracity' must be one of {', '.join(VERACITIES)}")
        created = record.get("created_at")
        try:
            stamp = format_timestamp(parse_timestamp(created)) if created else None
        except ValueError:
            raise MemxError(f"field 'created_at': expected an ISO 8601 time such as "
                            f"2026-01-02T10:00:00Z, got {_short(created)}") from None
        tags = record.get("tags") or []
        if not isinstance(tags, list):
            raise MemxError("'tags' must be a list")
        mem = build(content, kind=record.get("kind", "fact"),
                    scope=repo.normalize_scope(record.get("scope")), tags=tags,
                    domain=record.get("domain"), topic=record.get("topic"), source=source,
                    veracity=veracity, created_at=stamp, raw=raw)
        data = mem.to_dict()
        for name, value in record.items():
            if name in PASS_THROUGH and value is not None:
                data[name] = value
        if "id" in record and not is_valid_id(str(record["id"])):
            data["id"] = mem.id  # a foreign id is kept in source, not as the file name
        data = {name: data[name] for name in memfmt.FIELD_NAMES if name in data}
        # Every field is checked exactly as it would be in a file.
        text, mem = memfmt.dump_checked(data)
        same = list(mem.to_dict().items()) == list(data.items())
        return mem, text.encode("utf-8") if same else None
    except (MemxError, ValueError, TypeError) as exc:
        message = str(exc).split(": ", 1)[1] if str(exc).startswith("<memory>") else str(exc)
        raise MemxError(f"import: record {where}: {message}") from None


TEXT_KEYS = ("id", "kind", "scope", "domain", "topic", "created_at", "updated_at",
             "valid_until", "veracity", "section", "type", "memory_type", "required_role",
             "superseded_by")
LIST_KEYS = ("tags", "tools", "entities", "supersedes", "conflicts_with")


def _shape_problem(record: dict[str, Any]) -> str | None:
    """The first field whose JSON type is wrong, as one line (issue 14: ``"tags": [1]``
    and ``"created_at": 12345`` crashed the import)."""
    for key in TEXT_KEYS:
        value = record.get(key)
        if value is not None and not isinstance(value, str):
            return f"field {key!r}: expected text, got {_short(value)}"
    for key in LIST_KEYS:
        value = record.get(key)
        if value is not None and (not isinstance(value, list)
                                  or not all(isinstance(v, str) for v in value)):
            return f"field {key!r}: expected a list of text, got {_short(value)}"
    for key in ("source", "feedback"):
        value = record.get(key)
        if value is not None and not isinstance(value, dict):
            return f"field {key!r}: expected an object, got {_short(value)}"
        if value is not None and _depth(value) > MAX_NESTING:
            return f"field {key!r}: nested more than {MAX_NESTING} levels deep"
    return None


MAX_NESTING = 16  # a source is a flat object; JSON 900 deep overflowed the YAML writer


def _depth(value: Any) -> int:
    """How deep lists and objects nest in ``value`` (iterative: no recursion limit)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if level > MAX_NESTING:
                break
            children = item.values() if isinstance(item, dict) else item
            todo.extend((child, level + 1) for child in children)
    return deepest


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def import_records(repo: Repo, stream: IO[bytes], raw: bool = False,
                   progress: ace.Progress | None = None) -> tuple[list[WriteResult], int]:
    """Check every record first, then write them all: bad input changes nothing.

    Returns what the write did with each record (the Curator may merge one into an
    existing memory) and how many were skipped because their id exists.
    """
    repo.require_store()
    memories: list[Memory] = []
    digests: list[str] = []
    encoded: dict[str, bytes] = {}  # raw: the file bytes the check made already
    first: dict[str, int] = {}
    for where, rec in read_records(stream):
        mem, blob = checked_record(repo, rec, where, raw)
        digests.append("" if raw else _digest(rec))
        if raw and blob is not None:
            encoded[mem.id] = blob
        if mem.id in first:  # the second would overwrite the first (issue 14)
            raise MemxError(f"import: records {first[mem.id]} and {where} have the same id "
                            f"{mem.id}; keep one of them")
        first[mem.id] = where
        memories.append(mem)
        if progress is not None and len(memories) % 100 == 0:
            progress("reading", len(memories), 0)
    fresh: list[Memory] = []
    fresh_digests: list[str] = []
    skipped = 0
    # Re-running an import (after a crash, say) adds nothing twice: a record whose id is
    # stored, or (unless --raw) that this clone imported before, is skipped rather than
    # merged again (a merge counts one more mention on every run). A per-clone journal
    # of imported records remembers them, the ones the Curator folded into another
    # memory too. Repeats within one import are the Curator's to fold, as before.
    done = set() if raw else intents.read_journal(repo.store)
    by_store: dict[int, tuple[Store, list[str]]] = {}
    for mem in memories:
        store = repo.store_for(mem.scope)
        by_store.setdefault(id(store), (store, []))[1].append(mem.id)
    stored = _stored_names(by_store.values())
    for mem, digest in zip(memories, digests):
        store = repo.store_for(mem.scope)
        if f"{mem.id}.yaml" in stored.get(id(store), ()) or digest in done:
            skipped += 1
        else:
            fresh.append(mem)
            fresh_digests.append(digest)
    # An intent naming the new ids and records: killed midway, the next memx writer
    # journals the records whose memories were written and removes links to the ones
    # never written (issue 14: hundreds of dangling conflict links).
    entries = [[m.id, d] for m, d in zip(fresh, fresh_digests)] if not raw else [
        [m.id, None] for m in fresh]
    with intents.intent(repo.store, "import", entries=entries):
        results = ace.write(repo, fresh, raw=raw, progress=progress, encoded=encoded)
        if not raw:
            intents.append_journal(repo.store, fresh_digests)
    return results, skipped


def _stored_names(stores: Iterable[tuple[Store, list[str]]]) -> dict[int, set[str]]:
    """The file names, among those of ``ids``, of the live and archived memories of each
    store: a look-up per id (two stats) when listing the folders would cost more (issue
    29: 100k names listed for 1,000 records were a tenth of the import), else one
    listing of each folder (a bulk import, a small store)."""
    names: dict[int, set[str]] = {}
    for store, ids in stores:
        found = names.setdefault(id(store), set())
        folders = [os.fspath(store.memories_dir), os.fspath(store.archive_dir)]
        if 2 * len(ids) * STAT_NAMES < _entries(folders):
            found.update(f"{i}.yaml" for i in ids
                         if any(os.path.lexists(f"{d}/{i}.yaml") for d in folders))
            continue
        for directory in folders:
            with contextlib.suppress(FileNotFoundError):
                found.update(os.listdir(directory))
    return names


# A stat costs about as much as listing this many names (measured in a 10k store: ~4 us
# against ~0.5 us a name, file system cache warm).
STAT_NAMES = 8
# Bytes a folder's size grows by per name, about (a memory file's name takes ~57 on
# ext4, 20 on tmpfs): too high a guess only lists where stats would have been cheaper.
NAME_BYTES = 64


def _entries(folders: list[str]) -> int:
    """About how many names ``folders`` hold, from their sizes (no listing): what
    listing them would cost, in names."""
    total = 0
    for folder in folders:
        with contextlib.suppress(OSError):
            total += os.stat(folder).st_size
    return total // NAME_BYTES


def _digest(record: Any) -> str:
    import hashlib

    text = json.dumps(record, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def export_text(memories: Iterable[Memory], fmt: str) -> Iterator[str]:
    if fmt == "json":
        items = [_plain(m) for m in memories]
        yield json.dumps({"memories": items}, ensure_ascii=False, indent=2) + "\n"
    elif fmt == "jsonl":
        for mem in memories:
            yield json.dumps(_plain(mem), ensure_ascii=False) + "\n"
    elif fmt == "markdown":
        yield MARKDOWN_TITLE + "\n\n"
        for mem in memories:
            labels = ", ".join(mem.tags)
            head = (f"- **{mem.kind}** `{mem.id}`" + (f" [{mem.domain}]" if mem.domain else "")
                    + (f" ({labels})" if labels else ""))
            body = "\n".join("  " + line for line in mem.content.splitlines())
            yield f"{head}\n\n{body}\n\n"
    else:
        raise MemxError(f"unknown export format {fmt!r}; use json, jsonl or markdown")


MARKDOWN_TITLE = "# Memories"
# One item of the Markdown export: "- **kind** `id`", the domain in brackets (as a
# preamble shows it; an older export has none) and the tags in parentheses.
_MARKDOWN_HEAD = re.compile(r"- \*\*([a-z_]+)\*\* `([0-9a-z]{26})`(?: \[(.+?)\])?(?: \((.*)\))?")


# Markdown that `memx import` splits into policies and facts (operations/instructions.py);
# here so that telling a JSON import from it does not import the Markdown reader.
SUFFIXES = (".md", ".mdc", ".markdown")
NAMES = (".cursorrules", ".windsurfrules", ".clinerules")


def is_instructions(path: Path) -> bool:
    """A folder, or a file of agent instructions or notes in Markdown."""
    return path.is_dir() or path.suffix.lower() in SUFFIXES or path.name in NAMES


def is_markdown_export(path: Path) -> bool:
    """Whether the file at ``path`` is memx's own Markdown export (read back as records,
    not split into policies and facts like other Markdown)."""
    try:
        with path.open("rb") as file:
            if file.read(len(MARKDOWN_TITLE) + 1).rstrip(b"\r\n") != MARKDOWN_TITLE.encode():
                return False
            return markdown_export_records(
                MARKDOWN_TITLE + "\n" + file.read().decode("utf-8")) is not None
    except (OSError, UnicodeDecodeError):
        return False


def markdown_export_records(text: str) -> list[dict[str, Any]] | None:
    """The records of memx's own Markdown export (``export --format markdown``), or None
    when ``text`` is not one: its title, then only items of the export's shape (a head
    line, then the content indented by two spaces). Reading them back keeps each
    memory's id, kind, domain, tags and content, so export -> import -> export is the
    identity."""
    lines = text.splitlines()
    if not lines or lines[0] != MARKDOWN_TITLE:
        return None
    records: list[dict[str, Any]] = []
    body: list[str] = []
    for line in lines[1:]:
        head = _MARKDOWN_HEAD.fullmatch(line)
        if head is not None:
            _close(records, body)
            kind, memory_id, domain, labels = head.groups()
            records.append({"id": memory_id, "kind": kind, "content": "",
                            "tags": labels.split(", ") if labels else []})
            if domain:
                records[-1]["domain"] = domain
        elif line and (not records or not line.startswith("  ")):
            return None  # prose of the user's own: a Markdown note, not an export
        else:
            body.append(line[2:])
    _close(records, body)
    return records if records else None


def _close(records: list[dict[str, Any]], body: list[str]) -> None:
    if records:
        records[-1]["content"] = "\n".join(body).strip("\n")
    body.clear()


def _plain(mem: Memory) -> dict[str, Any]:
    data = mem.to_dict()
    data.pop("schema", None)
    return data
