"""Bringing the vectors of one store in step with its text index (SPEC 9): embed what
changed, or everything when the model changed or the vector file is unreadable."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from memx_cli.index.documents import edge_documents, embed_documents, stored_documents
from memx_cli.index.keys import is_index_error, memory_key
from memx_cli.index.lexical import IndexDoc, LexicalIndex
from memx_cli.index.manifest import Manifest
from memx_cli.index.vectors import VectorIndex

log = logging.getLogger("memx")


def update_vectors(manifest: Manifest, docs: list[IndexDoc], remove: set[str], *,
                   want: bool, rebuilt: bool, fingerprint: str | None,
                   encoder: Callable[[], Any], lexical: LexicalIndex, vectors: VectorIndex,
                   where: str) -> bool:
    """Update ``vectors`` for ``docs`` (re-indexed) and ``remove`` (gone); True when the
    vectors are current for the model ``fingerprint`` afterwards. ``manifest``'s model and
    pending lists are set, not written."""
    if not want:
        # A keyword-only read updated the text index: remember which vectors are now
        # behind, so the next semantic search embeds those only.
        if manifest.model is not None:
            fresh = {d.memory_id for d in docs}
            manifest.pending = sorted(set(manifest.pending) | fresh)
            manifest.pending_removed = sorted(set(manifest.pending_removed) | (remove - fresh))
        return False
    model = encoder()
    if model is None:
        manifest.model = None
        manifest.pending, manifest.pending_removed = [], []
        return False
    everything = rebuilt or manifest.model != fingerprint
    if everything:
        docs = stored_documents(lexical)
        remove = set()
    else:
        behind = set(manifest.pending) - {d.memory_id for d in docs}
        docs = docs + stored_documents(lexical, behind)
        remove = remove | set(manifest.pending_removed) | behind
    # A vector mixes its neighbours' own embeddings: those ``docs`` lacks are embedded
    # beside them (issue 29: not whole groups), their vectors left as they are.
    edges = [] if everything else edge_documents(lexical, manifest, docs)
    matrix = embed_documents(model, docs + edges)[:len(docs)] if docs else None
    try:
        vectors.update(model.dim, [memory_key(i) for i in sorted(remove)],
                       [d.key for d in docs], matrix, rebuild=everything)
    except BaseException as exc:
        if everything or not is_index_error(exc):
            raise
        # A damaged vector file must not fail every search until reindex --full
        # (issue 14): rebuild the vectors from the text index, with one notice.
        detail = " ".join(str(exc).split())[:100]
        log.warning(f"vector index in {where} is unreadable ({detail}); rebuilding it")
        docs = stored_documents(lexical)
        matrix = embed_documents(model, docs) if docs else None
        vectors.update(model.dim, [], [d.key for d in docs], matrix, rebuild=True)
    manifest.model = fingerprint
    manifest.pending, manifest.pending_removed = [], []
    return True
