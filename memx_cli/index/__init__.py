"""Derived indexes of one store, kept in step with its YAML files (SPEC 9).

``StoreIndex.sync`` compares the memory files with the manifest (stat first, content
hash only for files whose stat changed) and updates only what changed: new, edited,
deleted, archived files, whether memx wrote them or git, an editor or a merge did.
A missing, corrupt or incompatible index is rebuilt with a one-line notice. The YAML
stays the only truth: deleting ``cache/`` loses nothing.

Modules: ``sync`` (StoreIndex: compare files with the manifest, update what changed),
``rebuild`` (the full rebuild, streamed), ``documents`` (what is indexed per memory),
``keys``, ``lexical`` (tantivy), ``vectors`` (usearch: graph plus delta), ``manifest``.
"""

from memx_cli.index.keys import is_index_error, memory_key, source_group
from memx_cli.index.sync import StoreIndex, SyncReport

__all__ = ["StoreIndex", "SyncReport", "is_index_error", "memory_key", "source_group"]
