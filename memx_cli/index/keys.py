"""Keys and groups shared by the indexes: how a memory id becomes an index key, which
memories are neighbours, and which errors mean "the index files are damaged"."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from typing import Any


# A warm search keys each candidate and result again and again (~110 a search, issue
# 29); a key is a pure function of its id.
@functools.lru_cache(maxsize=16384)
def memory_key(memory_id: str) -> int:
    """A stable 63-bit integer key for the indexes, derived from the id."""
    digest = hashlib.blake2b(memory_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def source_group(src: Mapping[str, Any]) -> str | None:
    """Memories from the same session, commit or CI run are neighbours of each other."""
    for name in ("session", "sha", "run"):
        value = src.get(name)
        if isinstance(value, (str, int)) and str(value):
            return f"{src.get('type', '')}:{name}:{value}"
    return None


def is_index_error(exc: BaseException) -> bool:
    """An error from reading damaged index files (tantivy raises ValueError, or a Rust
    panic that pyo3 surfaces as a BaseException named PanicException)."""
    return isinstance(exc, (OSError, ValueError, RuntimeError)) or (
        type(exc).__name__ == "PanicException")
