"""`memx list` in a long-lived process (the memx server, the MCP server) from the search
index instead of the memory files (issue 15).

The text index stores each memory whole (``documents.build_documents``: the memory's own
fields, as ``Memory.to_dict`` gives them, plus its path), and such a process keeps the
index in step with the files through its file watcher: a change is synced before the
listing, as before a search. Listing then reads the stored documents in one query and
never opens a memory file, except the few that did not parse (their problems are read
from the manifest). A one-shot process has no watcher and lists from the files, as it
always did: a scan would cost as much as the reading it saves.

The decoded listing is kept with the tantivy searcher it was read through (``Seen`` in
lexical.py): a searcher is a fixed view of the index, and a commit, a refresh or a
reopen starts a new view and so a new cache. A repeated ``list`` with no change in
between decodes nothing; after a change it is read and decoded afresh. A store of more
than ``KEPT_LISTING`` memories is decoded at every list, as before: the server would
otherwise hold ~2 KB per memory for as long as the view lives.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from memx_cli.store.fields import FIELDS
from memx_cli.store.files import Store
from memx_cli.store.memory import SCHEMA_VERSION, Anchor, Memory, from_data

# Keys build_documents adds to a memory's own fields.
_ADDED = ("path", "archived")
_FIELDS = frozenset(f.name for f in FIELDS)
_TUPLES = ("tags", "tools", "entities", "supersedes", "conflicts_with")
# Memories per store whose decoded listing is kept (~2 KB each with its Memory: ~40 MB
# held at most per store, measured 21 MB at 10k).
KEPT_LISTING = 20_000


class Entry:
    """One listed memory: its stored document (read it only: it is the cache's) and the
    Memory made from it, made once, when first asked for."""

    __slots__ = ("_memory", "doc")

    def __init__(self, doc: dict[str, Any]):
        self.doc = doc
        self._memory: Memory | None = None

    @property
    def memory(self) -> Memory:
        if self._memory is None:
            self._memory = memory(self.doc)
        return self._memory


def listed(searcher: Any, stores: Iterable[Store]) -> tuple[list[Entry], list[str]]:
    """The stored documents of every memory of ``stores`` that is not archived (stores in
    order, each in id order, as ``Store.load_all`` reads the files), and the parse
    problems of their memory files. ``searcher``: a generator.search.Searcher with a
    watcher; its indexes are synced first (keyword only: no model is loaded)."""
    roots = [store.root for store in stores]
    indexes = [i for root in roots for i in searcher.indexes if i.store.root == root]
    searcher.settle()
    entries: list[Entry] = []
    problems: list[str] = []
    for index in indexes:
        searcher.open_index(index, want_vectors=False)
        entries.extend(_live(index.lexical))
        manifest = index.manifest()
        if manifest is not None:
            problems.extend(manifest.problems(archived=False))
    return entries, problems


def _live(lexical: Any) -> list[Entry]:
    """The index's memories that are not archived, in id order: decoded once per view."""
    import tantivy

    searcher = lexical.searcher()
    seen = lexical.seen  # after searcher(): the cache of this view
    if seen.listing is not None:
        listing: list[Entry] = seen.listing
        return listing
    total = int(searcher.num_docs)
    docs = []
    if total:
        query = tantivy.Query.term_query(lexical.index.schema, "archived", 0)
        docs = [_decode(searcher.doc(address)["doc"][0])
                for _, address in searcher.search(query, total).hits]
    docs.sort(key=lambda d: str(d.get("id")))
    listing = [Entry(doc) for doc in docs]
    if len(listing) <= KEPT_LISTING:
        seen.listing = listing
    return listing


def _decode(raw: Any) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(bytes(raw))
    return doc


def memory(doc: dict[str, Any]) -> Memory:
    """The Memory a stored document was made from: ``Memory.to_dict`` undone (lists back
    to tuples, anchors back to Anchor). The document was written from a checked Memory,
    so its fields are not checked again (a third of the time of ``from_data``);
    ``checked`` is the slow way, which tests compare it with."""
    values = {k: v for k, v in doc.items() if k in _FIELDS}
    for name in _TUPLES:
        if name in values:
            values[name] = tuple(values[name])
    if "anchors" in values:
        values["anchors"] = tuple(Anchor(**a) for a in values["anchors"])
    return Memory(**values)


def checked(doc: dict[str, Any]) -> Memory:
    """``memory`` through every field check (``memory.from_data``)."""
    raw = {k: v for k, v in doc.items() if k not in _ADDED}
    raw["schema"] = SCHEMA_VERSION
    return from_data(raw)


def stored(index: Any) -> tuple[list[Entry], list[str]] | None:
    """The current memories of ``index``'s store as its text index stores them (each made
    a Memory when first asked for), in id order, and the parse problems of their files;
    for a one-shot command that syncs the index anyway (``memx conflicts``), instead of
    parsing every memory file again. Call it right after ``index.sync()``. None when the
    index does not account for every memory file of the folder (a name that is no memory
    id, a file added since the sync) or cannot be read: the caller reads the files
    instead."""
    try:
        entries = _live(index.lexical)
        manifest = index.manifest()
        problems = manifest.problems(archived=False) if manifest is not None else []
    except BaseException as exc:
        from memx_cli.index.keys import is_index_error

        if not is_index_error(exc):
            raise
        return None
    names = index.store.ids()
    ids = [str(e.doc.get("id")) for e in entries]
    if len(ids) + len(problems) != len(names) or not set(ids) <= set(names):
        return None
    return entries, problems
