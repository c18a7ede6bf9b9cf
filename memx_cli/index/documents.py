"""What the indexes hold for each memory: its text, its neighbours' text as context, its
metadata, and (for the vector index) its embedding mixed with its neighbours'."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from memx_cli.index.keys import memory_key, source_group
from memx_cli.index.lexical import IndexDoc, LexicalIndex
from memx_cli.index.manifest import FileState, Manifest
from memx_cli.store.files import Store
from memx_cli.store.memory import SCHEMA_VERSION, Memory, from_data

# Neighbours on each side whose text is indexed as a memory's context (same source group):
# a transcript turn is often only answerable with the turns around it (measured on the
# LoCoMo dev split: +0.07 recall@10 for a window of 2 over 1; see docs/search.md).
CONTEXT_WINDOW = 2
ENCODE_BATCH = 1024
# A memory's vector is its own embedding plus this share of each adjacent neighbour's.
VECTOR_NEIGHBOUR_WEIGHT = 0.25


def order_key(memories: Mapping[str, Memory], times: Mapping[str, str] | None = None
              ) -> Callable[[str], tuple[str, str]]:
    """The order of a source group's members: by time (from ``times`` or the memory),
    then id (one with neither first)."""
    known = times or {}
    return lambda i: (known[i] if i in known else
                      memories[i].created_at if i in memories else "", i)


def build_documents(store: Store, ids: Iterable[str], memories: dict[str, Memory],
                    files: dict[str, FileState], members: dict[str, list[str]],
                    times: Mapping[str, str] | None = None) -> list[IndexDoc]:
    """The index documents of ``ids``: each memory with its neighbours' text as context.
    ``times``: the times of members whose memory is not needed (``order_key``)."""
    ordered: dict[str, list[str]] = {}
    places: dict[str, int] = {}  # where each member stands in its group's order
    for group, group_ids in members.items():
        ordered[group] = sorted(group_ids, key=order_key(memories, times))
        places.update((memory_id, at) for at, memory_id in enumerate(ordered[group]))
    docs = []
    for memory_id in sorted(ids):
        mem = memories.get(memory_id)
        if mem is None:
            continue
        state = files[memory_id]
        context = ""
        if state.group is not None:
            order = ordered[state.group]
            at = places[memory_id]
            around = order[max(0, at - CONTEXT_WINDOW):at] + order[at + 1:at + 1 + CONTEXT_WINDOW]
            context = "\n".join(memories[i].content for i in around if i in memories)
        stored = mem.to_dict()
        stored.pop("schema", None)
        stored["path"] = store.display_for(memory_id, state.archived)
        stored["archived"] = state.archived
        meta = " ".join([*mem.tags, *mem.tools, *mem.entities,
                         *(x for x in (mem.domain, mem.topic) if x)])
        docs.append(IndexDoc(memory_key(memory_id), memory_id, state.archived, mem.content,
                             meta, context, stored))
    return docs


def embed_documents(encoder: Any, docs: list[IndexDoc]) -> Any:
    """Each memory's embedding plus a share of its adjacent neighbours' (same group).

    Every neighbour must be in the batch: a rebuild passes whole groups, an update the
    changed documents with their ``edge_documents`` (whose own rows then lack their
    outer neighbours and are not kept).
    """
    import numpy as np

    # In batches: the encoder's working arrays grow with texts x tokens x dims.
    own = np.empty((len(docs), encoder.dim), dtype=np.float32)
    for i in range(0, len(docs), ENCODE_BATCH):
        own[i:i + ENCODE_BATCH] = encoder.encode([d.content for d in docs[i:i + ENCODE_BATCH]])
    by_group: dict[str, list[int]] = {}
    for row, doc in enumerate(docs):
        group = source_group(doc.stored.get("source") or {})
        if group is not None:
            by_group.setdefault(group, []).append(row)
    # A second matrix only when neighbours mix (issue 15: no three full float32 copies).
    mixed = own.copy() if any(len(rows) > 1 for rows in by_group.values()) else own
    for rows in by_group.values():
        rows.sort(key=lambda r: (docs[r].stored["created_at"], docs[r].memory_id))
        for at, row in enumerate(rows):
            for near in (at - 1, at + 1):
                if 0 <= near < len(rows):
                    mixed[row] += VECTOR_NEIGHBOUR_WEIGHT * own[rows[near]]
    norms = np.linalg.norm(mixed, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    mixed /= norms
    return mixed


def edge_documents(lexical: LexicalIndex, manifest: Manifest,
                   docs: Sequence[IndexDoc]) -> list[IndexDoc]:
    """The adjacent neighbours (same source group, in its order) of ``docs`` that
    ``docs`` lacks, as the text index holds them: ``embed_documents`` mixes each vector
    with its neighbours' own embeddings, so a batch of some members of a group needs
    those beside it. Called after the text index took the change: the members are the
    group's manifest rows (as before the change) and ``docs``, as their documents say
    now."""
    groups: set[str] = set()
    for doc in docs:
        group = source_group(doc.stored.get("source") or {})
        if group is not None:
            groups.add(group)
    have = {d.memory_id for d in docs}
    others = [i for i in manifest.members(groups) if i not in have] if groups else []
    if not others:
        return []
    found = {d.memory_id: d for d in stored_documents(lexical, others)
             if source_group(d.stored.get("source") or {}) in groups}
    orders: dict[str, list[IndexDoc]] = {}
    for doc in [*docs, *found.values()]:
        group = source_group(doc.stored.get("source") or {})
        if group is not None:
            orders.setdefault(group, []).append(doc)
    edges: dict[str, IndexDoc] = {}
    for order in orders.values():
        order.sort(key=lambda d: (d.stored["created_at"], d.memory_id))
        for at, doc in enumerate(order):
            if doc.memory_id in have:
                for near in order[max(0, at - 1):at + 2]:
                    if near.memory_id not in have:
                        edges[near.memory_id] = near
    return list(edges.values())


def stored_documents(lexical: LexicalIndex, ids: Iterable[str] | None = None) -> list[IndexDoc]:
    """Indexed memories' contents (all, or those of ``ids``) for (re-)embedding, read
    from the lexical index's stored documents."""
    import tantivy

    searcher = lexical.searcher()
    if ids is None:
        total = int(searcher.num_docs)
        query = tantivy.Query.all_query()
    else:
        keys = [memory_key(i) for i in ids]
        total = len(keys)
        query = tantivy.Query.term_set_query(lexical.index.schema, "key", keys)
    if total == 0:
        return []
    docs = []
    for _, address in searcher.search(query, total).hits:
        doc = searcher.doc(address)
        stored = json.loads(bytes(doc["doc"][0]))
        docs.append(IndexDoc(int(doc["key"][0]), stored["id"], bool(stored.get("archived")),
                             stored["content"], "", "", stored))
    return docs


def stored_times(lexical: LexicalIndex, ids: Iterable[str]) -> dict[str, str]:
    """The times (created_at) of ``ids`` as the lexical index's documents hold them, for
    a group's order where a member's memory is not needed (the time a document holds is
    its memory's: the manifest row says the file is the one indexed); an id without a
    document, or whose time is not text, is left out (the caller takes its memory)."""
    found: dict[str, str] = {}
    for doc in stored_documents(lexical, ids):
        stamp = doc.stored.get("created_at")
        if isinstance(stamp, str) and stamp:
            found[doc.memory_id] = stamp
    return found


def stored_memories(lexical: LexicalIndex, ids: Iterable[str]) -> dict[str, Memory]:
    """The memories of ``ids`` as the lexical index holds them (their stored documents,
    checked field by field as a file is), for neighbours whose file did not change: a
    group's new member needs their text as context, not a read and a YAML parse of each
    file (issue 29). An id without a stored document, or whose document does not check,
    is left out (the caller reads its file)."""
    from memx_cli.store.fields import FieldError

    found: dict[str, Memory] = {}
    for doc in stored_documents(lexical, ids):
        data = {key: value for key, value in doc.stored.items()
                if key not in ("path", "archived")}
        try:
            found[doc.memory_id] = from_data({"schema": SCHEMA_VERSION, **data})
        except (FieldError, TypeError, ValueError):
            continue
    return found
