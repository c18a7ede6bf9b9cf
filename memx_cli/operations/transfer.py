"""Import and export of memories as JSON, JSONL or Markdown (SPEC 7)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import IO, Any

from memx_cli.clock import format_timestamp, parse_timestamp
from memx_cli.errors import MemxError
from memx_cli.operations import write as ace
from memx_cli.store import memory as memfmt
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
    """(line or position, object) for a JSON array, a {"memories": [...]} object or JSONL."""
    head = stream.read(1)
    while head in (b" ", b"\n", b"\r", b"\t"):
        head = stream.read(1)
    if head in (b"[", b"{"):
        rest = stream.read()
        try:
            data = json.loads((head + rest).decode("utf-8"))
        except UnicodeDecodeError:
            raise MemxError("import: input is not UTF-8 text") from None
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


def to_memory(repo: Repo, record: Any, where: int, raw: bool) -> Memory:
    """Check one import record; errors name the record."""
    if not isinstance(record, dict):
        raise MemxError(f"import: record {where}: expected an object with at least 'content'")
    unknown = sorted(set(record) - IMPORT_KEYS)
    if unknown:
        raise MemxError(f"import: record {where}: unknown field {unknown[0]!r}")
    content = record.get("content")
    if not isinstance(content, str) or not content.strip():
        raise MemxError(f"import: record {where}: 'content' must be non-empty text")
    try:
        source = record.get("source") or {"type": "import"}
        if not isinstance(source, dict):
            raise MemxError("'source' must be an object")
        veracity = record.get("veracity", "imported")
        if veracity not in VERACITIES:
            raise MemxError(f"'veracity' must be one of {', '.join(VERACITIES)}")
        created = record.get("created_at")
        stamp = format_timestamp(parse_timestamp(created)) if created else None
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
        # Every field is checked exactly as it would be in a file.
        return memfmt.load(memfmt.dump_data(data))
    except (MemxError, ValueError, TypeError) as exc:
        message = str(exc).split(": ", 1)[1] if str(exc).startswith("<memory>") else str(exc)
        raise MemxError(f"import: record {where}: {message}") from None


def import_records(repo: Repo, stream: IO[bytes], raw: bool = False,
                   progress: ace.Progress | None = None) -> tuple[list[WriteResult], int]:
    """Check every record first, then write them all: bad input changes nothing.

    Returns what the write did with each record (the Curator may merge one into an
    existing memory) and how many were skipped because their id exists.
    """
    repo.require_store()
    memories = []
    for where, rec in read_records(stream):
        memories.append(to_memory(repo, rec, where, raw))
        if progress is not None and len(memories) % 100 == 0:
            progress("reading", len(memories), 0)
    fresh: list[Memory] = []
    skipped = 0
    for mem in memories:
        store = repo.store_for(mem.scope)
        if store.path_for(mem.id).exists() or store.path_for(mem.id, archived=True).exists():
            skipped += 1
        else:
            fresh.append(mem)
    return ace.write(repo, fresh, raw=raw, progress=progress), skipped


def export_text(memories: Iterable[Memory], fmt: str) -> Iterator[str]:
    if fmt == "json":
        items = [_plain(m) for m in memories]
        yield json.dumps({"memories": items}, ensure_ascii=False, indent=2) + "\n"
    elif fmt == "jsonl":
        for mem in memories:
            yield json.dumps(_plain(mem), ensure_ascii=False) + "\n"
    elif fmt == "markdown":
        yield "# Memories\n\n"
        for mem in memories:
            labels = ", ".join(mem.tags)
            head = f"- **{mem.kind}** `{mem.id}`" + (f" ({labels})" if labels else "")
            body = "\n".join("  " + line for line in mem.content.splitlines())
            yield f"{head}\n\n{body}\n\n"
    else:
        raise MemxError(f"unknown export format {fmt!r}; use json, jsonl or markdown")


def _plain(mem: Memory) -> dict[str, Any]:
    data = mem.to_dict()
    data.pop("schema", None)
    return data
