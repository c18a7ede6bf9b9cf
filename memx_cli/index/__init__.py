"""Derived indexes of one store, kept in step with its YAML files (SPEC 9).

``StoreIndex.sync`` compares the memory files with the manifest (stat first, content
hash only for files whose stat changed) and updates only what changed: new, edited,
deleted, archived files, whether memx wrote them or git, an editor or a merge did.
A missing, corrupt or incompatible index is rebuilt with a one-line notice. The YAML
stays the only truth: deleting ``cache/`` loses nothing.

Modules: ``sync`` (StoreIndex: compare files with the manifest, update what changed),
``rebuild`` (the full rebuild, streamed), ``documents`` (what is indexed per memory),
``keys``, ``lexical`` (tantivy), ``vectors`` (usearch: graph plus delta), ``manifest``.

``ahead`` (the change check's git process, started early) is imported by the thin
client before anything else: this package loads its modules on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memx_cli.index.keys import is_index_error, memory_key, source_group
    from memx_cli.index.sync import StoreIndex, SyncReport

_WHERE = {"StoreIndex": "sync", "SyncReport": "sync", "is_index_error": "keys",
          "memory_key": "keys", "source_group": "keys"}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"memx_cli.index.{_WHERE[name]}"), name)


__all__ = ["StoreIndex", "SyncReport", "is_index_error", "memory_key", "source_group"]
