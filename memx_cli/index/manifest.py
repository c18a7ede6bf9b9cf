"""What the derived indexes were built from (SPEC 9): per-file stat and content hash,
the model, and the versions of the index layout and store schema."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from memx_cli.fsutil import atomic_write
from memx_cli.store.memory import SCHEMA_VERSION

# Bump when the tantivy schema, the stored document or the vector layout changes:
# an index with another version is rebuilt automatically.
INDEX_VERSION = 5


class FileState(NamedTuple):
    """One indexed memory file: enough to notice a change without reading it.

    A named tuple rather than a dataclass: the manifest holds one per memory and is read
    on every index update, where building 100k dataclasses costs a tenth of a second.
    """

    mtime_ns: int
    size: int
    digest: str  # "!<problem>" for a file that does not parse
    archived: bool
    group: str | None

    def to_list(self) -> list[Any]:
        return list(self)

    @classmethod
    def from_list(cls, raw: list[Any]) -> FileState:
        if len(raw) != 5 or not isinstance(raw[2], str):
            raise ValueError(f"malformed file entry {raw!r}")
        return cls(*raw)


@dataclass
class Manifest:
    files: dict[str, FileState] = field(default_factory=dict)
    model: str | None = None  # fingerprint of the model the vectors came from; None: no vectors
    # Memories whose vectors lag behind the text index (updated by a keyword-only read).
    pending: list[str] = field(default_factory=list)
    pending_removed: list[str] = field(default_factory=list)
    index_version: int = INDEX_VERSION
    schema: int = SCHEMA_VERSION

    def problems(self) -> list[str]:
        """The parse problems, in memory id order: sorting the few problems, not every
        entry (issue 15: two full sorts per update at 100k)."""
        return [st.digest[1:] for _, st in sorted((i, st) for i, st in self.files.items()
                                                   if st.digest.startswith("!"))]

    def compatible(self) -> bool:
        return self.index_version == INDEX_VERSION and self.schema == SCHEMA_VERSION

    def save(self, path: Path) -> None:
        data = {
            "index_version": self.index_version,
            "schema": self.schema,
            "model": self.model,
            "pending": self.pending,
            "pending_removed": self.pending_removed,
            "files": self.files,  # named tuples dump as lists; unsorted: not read by people
        }
        atomic_write(path, json.dumps(data, separators=(",", ":")).encode())

    @classmethod
    def load(cls, path: Path) -> Manifest | None:
        """The manifest, or None when it is missing; raises ValueError when corrupt."""
        try:
            raw = json.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"unreadable manifest: {exc}") from None
        try:
            return cls(
                files={k: FileState.from_list(v) for k, v in raw["files"].items()},
                model=raw.get("model"),
                pending=list(raw.get("pending", [])),
                pending_removed=list(raw.get("pending_removed", [])),
                index_version=int(raw["index_version"]),
                schema=int(raw["schema"]),
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"malformed manifest: {exc!r}") from None
