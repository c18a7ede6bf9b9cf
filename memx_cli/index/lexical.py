"""The tantivy full-text index: one document per memory (SPEC 9).

Fields: ``exact`` (lowercased words: layer L1), ``stem`` (English stemming, and the
words of a name written together, useQueryClient: use, query, client: L2),
``meta`` (tags, tools, entities, domain, topic: L3) and ``context`` (the neighbouring
memories of the same source, e.g. the turns around a transcript turn, searched with a
lower weight). The whole memory is stored as JSON so results need no YAML parsing.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memx_cli.textproc import index_text

log = logging.getLogger("memx")
FIELDS = ("exact", "stem", "meta", "context")
WRITER_HEAP = 64_000_000
# tantivy's default merge policy (LogMergePolicy) merges a level of 8 segments when a
# commit leaves them; every segment under 10,000 documents is in the lowest level, so in
# a store of up to ~17k memories each eighth write rewrote the whole index in the
# foreground (~0.5 s at 10k, issue 29). A write's commit no longer waits for that merge
# (the process ends before it does: it is dropped); the merge runs where no command
# waits (``merge``: the memx server when idle, the detached worker of index/fold.py).
MERGE_AT = 8
# ...unless nothing merged for long: then the write waits for it, which bounds the
# segments a search reads (each one is another set of term dictionaries to look up).
MERGE_HARD = 24
# The memx server sets this True: in a process that lives on, a merge left running would
# go on in the background and be thrown away with its writer at every later write until
# the idle upkeep (several full merges at once in a burst), so its writes wait as before.
merge_in_foreground = False


@dataclass(frozen=True)
class IndexDoc:
    """What goes into the index for one memory."""

    key: int
    memory_id: str
    archived: bool
    content: str
    meta: str
    context: str
    stored: dict[str, Any]


def _schema() -> Any:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("key", stored=True, indexed=True, fast=True)
    builder.add_text_field("id", stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_unsigned_field("archived", stored=False, indexed=True, fast=True)
    # The memory's date (created_at) in days since 1970: a query's date range (issue 16).
    builder.add_unsigned_field("day", stored=False, indexed=True, fast=True)
    builder.add_text_field("exact", stored=False, tokenizer_name="default", index_option="freq")
    builder.add_text_field("stem", stored=False, tokenizer_name="en_stem", index_option="freq")
    builder.add_text_field("meta", stored=False, tokenizer_name="default", index_option="freq")
    builder.add_text_field("context", stored=False, tokenizer_name="en_stem", index_option="freq")
    builder.add_bytes_field("doc", stored=True, indexed=False)
    return builder.build()


def day_number(stamp: Any) -> int:
    """Days since 1970-01-01 of an ISO-8601 time (0 when absent or unreadable)."""
    from memx_cli.clock import parse_timestamp

    try:
        return max(int(parse_timestamp(str(stamp)).timestamp() // 86400), 0)
    except (ValueError, OverflowError):
        return 0


class LexicalIndex:
    def __init__(self, path: Path):
        self.path = path
        self._index: Any = None
        self._searcher: Any = None
        self._seen = Seen()  # what the current searcher's reads found, for the next ones
        self.merge_wanted = False  # a commit left MERGE_AT segments or more: ``merge``

    # ------------------------------------------------------------ lifecycle

    def open(self, create: bool = False) -> LexicalIndex:
        import tantivy

        if create:
            self.path.mkdir(parents=True, exist_ok=True)
        self._index = tantivy.Index(_schema(), path=str(self.path), reuse=True)
        self._searcher = None
        return self

    @property
    def index(self) -> Any:
        if self._index is None:
            self.open()
        return self._index

    def searcher(self) -> Any:
        if self._searcher is None:
            self.index.reload()
            self._searcher = self.index.searcher()
            # Addresses and documents belong to one searcher (one view of the index): a
            # new view starts empty, so no document of an older index is ever served.
            self._seen = Seen()
        return self._searcher

    @property
    def seen(self) -> Seen:
        """What reads through the current searcher found (call ``searcher()`` first)."""
        return self._seen

    def refresh(self) -> None:
        """Read the index anew at the next search (another process committed to it)."""
        self._searcher = None

    # ------------------------------------------------------------ writing

    def apply(self, remove_ids: Iterable[str], add: Sequence[IndexDoc]) -> None:
        """Delete documents by memory id and add new ones, in one commit."""
        with self.writer() as write:
            write([], remove_ids)
            write(add)

    def segments(self) -> int:
        """How many segments the last commit left (its meta.json; 0 when unreadable)."""
        try:
            meta = json.loads((self.path / "meta.json").read_bytes())
            return len(meta["segments"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0

    def merge(self, lock: Callable[[], contextlib.AbstractContextManager[Any]]) -> bool:
        """Merge the segments the writes left, when there are ``MERGE_AT`` or more (an
        empty commit lets tantivy's merge policy choose them, and this waits for it);
        False when there were too few. ``lock`` is the store lock: tantivy allows one
        writer at a time, and a write must wait for this one rather than fail."""
        if self.segments() < MERGE_AT:
            return False
        with lock():
            if self.segments() < MERGE_AT:
                return False
            with self.writer(wait=True):
                pass
        return True

    @contextlib.contextmanager
    def writer(self, wait: bool = False) -> Iterator[Callable[..., None]]:
        """One commit for many batches: yields ``write(docs, remove_ids=())``; commits
        when the block ends, rolls back when it raises. The writer's heap is bounded, so
        a rebuild streams documents through it (issue 15). The commit waits for the
        merges it starts only with ``wait`` or past ``MERGE_HARD`` segments; else
        ``merge_wanted`` says when ``merge`` has segments to merge."""
        import tantivy

        writer = self.index.writer(heap_size=WRITER_HEAP, num_threads=1)
        # With tantivy's writer lock held: a delete file left by a writer killed before
        # its commit would make this commit fail (index/damage.py).
        from memx_cli.index.damage import drop_orphans

        dropped = drop_orphans(self.path)
        if dropped:
            log.warning(f"search index: removed {dropped} delete file(s) left by an "
                        "interrupted write")

        def write(add: Sequence[IndexDoc], remove_ids: Iterable[str] = ()) -> None:
            for memory_id in remove_ids:
                writer.delete_documents_by_term("id", memory_id)
            for doc in add:
                entry = tantivy.Document()
                entry.add_unsigned("key", doc.key)
                entry.add_text("id", doc.memory_id)
                entry.add_unsigned("archived", int(doc.archived))
                entry.add_unsigned("day", day_number(doc.stored.get("created_at")))
                entry.add_text("exact", index_text(doc.content))
                # the stemmed fields hold a name written together and its words too
                # (compileDevDebugKotlin: compile, dev, debug, kotlin); ``exact`` holds
                # the words as written, so the name typed whole ranks first
                entry.add_text("stem", index_text(doc.content, name_parts=True))
                entry.add_text("meta", index_text(doc.meta))
                entry.add_text("context", index_text(doc.context, name_parts=True))
                entry.add_bytes("doc", json.dumps(doc.stored, ensure_ascii=False,
                                                  separators=(",", ":")).encode())
                writer.add_document(entry)

        try:
            yield write
            writer.commit()
        except BaseException:
            writer.rollback()
            raise
        self._searcher = None
        left = self.segments()
        if wait or merge_in_foreground or left >= MERGE_HARD:
            writer.wait_merging_threads()
            left = self.segments()
        self.merge_wanted = left >= MERGE_AT

    # ------------------------------------------------------------ reading

    def num_docs(self) -> int:
        return int(self.searcher().num_docs)

    def search(self, terms: Sequence[str], weights: Sequence[tuple[str, float]], limit: int,
               include_archived: bool, keys: Sequence[int] | None = None,
               days: tuple[int, int] | None = None) -> dict[int, float]:
        """Score per document key: the weighted sum of each field's BM25 score for
        ``terms`` (OR-ed), in one query. ``keys`` restricts the search to those documents;
        ``days`` to the memories dated in that range (first and last day, inclusive), and
        then a memory matching no term is found too (at score 0).
        """
        import tantivy

        if not terms and days is None:
            return {}
        text = " ".join(terms)
        should = []
        for field, weight in weights if terms else ():
            try:
                query = self.index.parse_query(text, [field])
            except ValueError:
                continue
            should.append((tantivy.Occur.Should, tantivy.Query.boost_query(query, weight)))
        if not should and days is None:
            return {}
        schema = self.index.schema
        clauses = []
        if should:
            clauses.append((tantivy.Occur.Must if days is None else tantivy.Occur.Should,
                            tantivy.Query.boolean_query(should)))
        if days is not None:
            dated = tantivy.Query.range_query(schema, "day", tantivy.FieldType.Unsigned,
                                              days[0], days[1], True, True)
            clauses.append((tantivy.Occur.Must, tantivy.Query.const_score_query(dated, 0.0)))
        if not include_archived:
            live = tantivy.Query.term_query(schema, "archived", 0)
            clauses.append((tantivy.Occur.Must, tantivy.Query.const_score_query(live, 0.0)))
        if keys is not None:
            chosen = tantivy.Query.term_set_query(schema, "key", list(keys))
            clauses.append((tantivy.Occur.Must, tantivy.Query.const_score_query(chosen, 0.0)))
        searcher = self.searcher()
        hits = _top(searcher, tantivy.Query.boolean_query(clauses), limit)
        keys = self._seen.keys(searcher, [address for _, address in hits])
        return {key: float(score) for key, (score, _) in zip(keys, hits)}

    def shaped(self, field: str, pattern: str, limit: int,
               include_archived: bool) -> list[int]:
        """The keys of up to ``limit`` documents holding a term of ``field`` that the
        regular expression ``pattern`` matches whole (tantivy's regex syntax)."""
        import tantivy

        schema = self.index.schema
        clauses = [(tantivy.Occur.Must, tantivy.Query.regex_query(schema, field, pattern))]
        if not include_archived:
            live = tantivy.Query.term_query(schema, "archived", 0)
            clauses.append((tantivy.Occur.Must, tantivy.Query.const_score_query(live, 0.0)))
        searcher = self.searcher()
        hits = _top(searcher, tantivy.Query.boolean_query(clauses), limit)
        return self._seen.keys(searcher, [address for _, address in hits])

    def holding(self, words: Sequence[tuple[str, str]], limit: int) -> list[int]:
        """The keys of up to ``limit`` live documents holding every (field, term) of
        ``words`` (terms as the field stores them)."""
        import tantivy

        schema = self.index.schema
        clauses = [(tantivy.Occur.Must, tantivy.Query.term_query(schema, field, word))
                   for field, word in words]
        live = tantivy.Query.term_query(schema, "archived", 0)
        clauses.append((tantivy.Occur.Must, tantivy.Query.const_score_query(live, 0.0)))
        searcher = self.searcher()
        hits = _top(searcher, tantivy.Query.boolean_query(clauses), limit)
        return self._seen.keys(searcher, [address for _, address in hits])

    def absent(self, field: str, terms: Sequence[str]) -> bool:
        """Whether no document holds any of ``terms`` in ``field`` (one of the default
        tokenizer's: split at what is not a letter or a digit, lowercased), read from the
        term dictionary: a lookup a term, where a query costs ~0.35 ms. False when a term
        is not a single token of that tokenizer (it may then match in parts)."""
        searcher = self.searcher()
        return all(term.isalnum() and searcher.doc_freq(field, term.lower()) == 0
                   for term in terms)

    def known_terms(self, field: str, words: Sequence[str]) -> set[str]:
        """The words that occur as terms of ``field`` in some document."""
        searcher = self.searcher()
        return {w for w in words if searcher.doc_freq(field, w) > 0}

    def fetch(self, keys: Sequence[int]) -> dict[int, dict[str, Any]]:
        """The stored memory JSON for each key: a fresh dict per call, so callers may set
        or drop its keys, but its nested lists and dicts are the cache's (read them only).
        Documents a search of this searcher found are read by address, decoded ones
        come from the bounded cache; the rest in one term-set query."""
        import tantivy

        searcher = self.searcher()
        seen = self._seen
        result: dict[int, dict[str, Any]] = {}
        missing = []
        for key in keys:
            doc = seen.document(searcher, key)
            if doc is None:
                missing.append(key)
            else:
                result[key] = doc
        if not missing:
            return result
        query = tantivy.Query.term_set_query(self.index.schema, "key", missing)
        for _, address in searcher.search(query, len(missing)).hits:
            doc = searcher.doc(address)
            key = int(doc["key"][0])
            result[key] = seen.decoded(key, doc["doc"][0])
        return result


# Decoded documents a long-lived process keeps per searcher (~2 KB each as dicts).
CACHED_DOCS = 4096


class Seen:
    """What reads through one tantivy searcher found: each hit's key by address, and
    decoded stored documents by key (at most CACHED_DOCS, the oldest dropped first).

    A searcher is a fixed view of the index, so neither can go stale while it lives;
    ``LexicalIndex.searcher`` starts a new ``Seen`` whenever it opens a new view (after a
    commit, a refresh or a reopen). In a warm process (the MCP and memx servers) a search
    then reads a stored document only for candidates that may be ranked, and decodes
    each memory's JSON once per index version (issue 15: reading and decoding every
    candidate's document was the largest part of a warm search).
    """

    def __init__(self) -> None:
        self.key_at: dict[tuple[int, int], int] = {}
        self.address: dict[int, Any] = {}
        self.docs: dict[int, dict[str, Any]] = {}
        # `memx list` in a warm process: every live memory, decoded (index/listing.py)
        self.listing: Any = None

    def keys(self, searcher: Any, addresses: Sequence[Any]) -> list[int]:
        """The ``key`` of each address, from the fast field (no stored document read)."""
        places = [(a.segment_ord, a.doc) for a in addresses]  # DocAddress is unhashable
        unknown = [(place, a) for place, a in zip(places, addresses)
                   if place not in self.key_at]
        if unknown:
            found = [a for _, a in unknown]
            read = getattr(searcher, "fast_field_values", None)  # tantivy >= 0.26
            values = (read("key", found) if read is not None
                      else [searcher.doc(a)["key"][0] for a in found])
            if len(self.key_at) > 8 * CACHED_DOCS:
                self.key_at.clear()
                self.address.clear()
            for (place, address), value in zip(unknown, values):
                self.key_at[place] = int(value)
                self.address[int(value)] = address
        return [self.key_at[p] for p in places]

    def document(self, searcher: Any, key: int) -> dict[str, Any] | None:
        """The decoded document of ``key`` if this searcher's reads located it."""
        doc = self.docs.get(key)
        if doc is None:
            address = self.address.get(key)
            if address is None:
                return None
            doc = self._decode(key, searcher.doc(address)["doc"][0])
        return dict(doc)

    def decoded(self, key: int, raw: Any) -> dict[str, Any]:
        return dict(self._decode(key, raw))

    def _decode(self, key: int, raw: Any) -> dict[str, Any]:
        doc: dict[str, Any] = json.loads(bytes(raw))
        if len(self.docs) >= CACHED_DOCS:
            del self.docs[next(iter(self.docs))]
        self.docs[key] = doc
        return doc


def _top(searcher: Any, query: Any, limit: int) -> list[tuple[float, Any]]:
    """The best ``limit`` hits of ``query``, asked for no more than the index holds:
    tantivy reserves room for ``limit`` hits up front, and `memx search -n 9999999999`
    aborted the process (a failed allocation of 160 GB; 2**64 overflowed)."""
    wanted = max(1, min(limit, searcher.num_docs))
    hits: list[tuple[float, Any]] = searcher.search(query, wanted).hits
    return hits
