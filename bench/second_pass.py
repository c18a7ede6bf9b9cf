"""Second-pass layers over a first ranking, measured for issue 16 and not kept: pseudo-
relevance feedback on the lexical side (the top hits' distinctive words as a second,
lighter query) and on the semantic side (the query vector moved towards the top hits'
vectors), propagation between neighbouring memories of one source group (adjacent turns
of a session) or its reverse (a hit next to a better one loses a share), and leaving the
words of many memories out of the semantic query.

None gained the 0.01 held-out R@10 a layer needs (docs/search.md), so none is in
memx_cli; ``installed()`` hooks them into the Searcher for bench/loo.py, which measures
them (grids prf_terms, rocchio, neighbour, near_penalty, common_share, late). Each layer
is off when its constant is 0. They were measured one at a time: ROCCHIO re-takes every
candidate's cosine, so it overwrites the LATE mix when both are on.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from memx_cli.generator import search as search_module
from memx_cli.generator.candidates import LEXICAL_WEIGHTS, Candidate, Hit, Scorer
from memx_cli.generator.fusion import final_score
from memx_cli.textproc import query_terms, words

# Lexical feedback: this many words of the top PRF_DOCS hits, each word weighted by its
# share of each hit's text times the hit's score relative to the best, times its IDF; the
# second query's BM25 counts PRF_WEIGHT of the first's. 0 words: off.
PRF_DOCS = 5
PRF_TERMS = 0
PRF_WEIGHT = 0.3
# Semantic feedback (Rocchio): the query vector plus ROCCHIO times the mean vector of the
# top PRF_DOCS hits. 0: off.
ROCCHIO = 0.0
# Neighbours: a hit gains NEIGHBOUR times the composite of each hit next to it in its
# source group, times NEIGHBOUR_DECAY per further step (up to NEIGHBOUR_SPAN). 0: off.
NEIGHBOUR = 0.0
NEIGHBOUR_DECAY = 0.5
NEIGHBOUR_SPAN = 2
NEIGHBOUR_SIDE = "both"
# ... or, when NEAR_PENALTY > 0, the reverse: a hit next to a better one loses this share
# of its score (its context words are that neighbour's, so it repeats the same evidence).
NEAR_PENALTY = 0.0
# Word-level soft match ("late interaction" with the static model's word vectors): for
# each query word its best cosine to a word of the memory, averaged with IDF weights;
# the candidate's cosine becomes (1 - LATE) x itself + LATE x that. 0: off.
LATE = 0.0
_WORD_VECTORS: dict[str, Any] = {}
# Query side: a word found in more than this share of the memories is left out of the
# semantic query (it says little about which memory is meant but moves the averaged
# vector as much as any other word). 0: off.
COMMON_SHARE = 0.0


def common(lexical: Any, words: Sequence[str]) -> set[str]:
    """The ``words`` in more than COMMON_SHARE of the memories of one lexical index."""
    if COMMON_SHARE <= 0 or not words:
        return set()
    docs = lexical.num_docs()
    searcher = lexical.searcher()
    return {w for w in words if docs and searcher.doc_freq("exact", w) > COMMON_SHARE * docs}


def expansion(scorer: Scorer, top: Sequence[Hit], terms: Sequence[str],
              count: int) -> list[str]:
    """The ``count`` words most typical of ``top`` and rare in the store (none of
    ``terms``; a word of one memory only adds nothing the first query did not find)."""
    if not top or count <= 0:
        return []
    best = top[0].composite or 1.0
    weights: dict[str, float] = {}
    for hit in top:
        counts = Counter(query_terms(hit.doc.get("content", "")))
        total = sum(counts.values()) or 1
        for word, n in counts.items():
            if word not in terms and len(word) > 2 and not word.isdigit():
                weights[word] = weights.get(word, 0.0) + n / total * max(hit.composite, 0.0) / best
    lexical = [i.lexical for i in scorer.indexes if i.built()]
    docs = sum(x.num_docs() for x in lexical) or 1
    scored = {}
    for word, weight in weights.items():
        freq = sum(x.searcher().doc_freq("exact", word) for x in lexical)
        if freq >= 2:
            scored[word] = weight * math.log(docs / freq)
    return sorted(scored, key=lambda w: (-scored[w], w))[:count]


def feedback(scorer: Scorer, candidates: list[Candidate], ranked: list[Hit],
             terms: Sequence[str], qvec: Any, depth: int, include_archived: bool) -> bool:
    """Add the feedback layers' scores to ``candidates`` (new ones appended); True when
    anything changed and the candidates must be scored again."""
    top = ranked[:PRF_DOCS]
    extra = expansion(scorer, top, terms, PRF_TERMS) if PRF_WEIGHT > 0 else []
    moved = _rocchio(scorer, top, qvec) if ROCCHIO > 0 and qvec is not None else None
    if not extra and moved is None:
        return False
    for index in scorer.indexes:
        found = {c.key: c for c in candidates if c.index is index}

        def get(key: int, found: dict[int, Candidate] = found, index: Any = index) -> Candidate:
            if key not in found:
                found[key] = Candidate(key, index)
                candidates.append(found[key])
            return found[key]

        if extra:
            for key, score in index.lexical.search(extra, LEXICAL_WEIGHTS, depth,
                                                   include_archived).items():
                get(key).keyword += PRF_WEIGHT * score
        if moved is not None and index.vectors.exists():
            for key in index.vectors.search(moved, depth):
                get(key)
            for key, sim in index.vectors.similarities(moved, list(found)).items():
                found[key].semantic = sim
        elif qvec is not None and index.vectors.exists():
            missing = [k for k, c in found.items() if c.semantic is None]
            for key, sim in index.vectors.similarities(qvec, missing).items():
                found[key].semantic = sim
    return True


def _rocchio(scorer: Scorer, top: Sequence[Hit], qvec: Any) -> Any:
    import numpy as np

    from memx_cli.index import memory_key

    vectors: list[Any] = []
    for index in scorer.indexes:
        keys = [memory_key(h.id) for h in top if h.store == index.store.label]
        if keys and index.vectors.exists():
            vectors.extend(index.vectors.get(keys).values())
    if not vectors:
        return None
    moved = np.asarray(qvec, dtype=np.float32) + ROCCHIO * np.mean(vectors, axis=0)
    norm = float(np.linalg.norm(moved))
    return moved / norm if norm > 0 else None


def neighbours(scorer: Scorer, ranked: list[Hit]) -> list[Hit]:
    """Each hit plus a decaying share of the hits adjacent to it in its source group."""
    if (NEIGHBOUR <= 0 and NEAR_PENALTY <= 0) or not ranked:
        return ranked
    from memx_cli.index.keys import source_group

    for index in scorer.indexes:
        mine = [h for h in ranked if h.store == index.store.label]
        groups = {h.id: source_group(h.doc.get("source") or {}) for h in mine}
        wanted = {g for g in groups.values() if g}
        if not wanted:
            continue
        order = _group_order(index, wanted)
        score = {h.id: h.composite for h in mine}
        positions: dict[str, dict[str, int]] = {}
        for hit in mine:
            group = groups[hit.id]
            ids = order.get(group or "", [])
            at = positions.setdefault(group or "", {i: n for n, i in enumerate(ids)}).get(hit.id)
            if at is None:
                continue
            gain = 0.0
            for step in range(1, NEIGHBOUR_SPAN + 1):
                share = NEIGHBOUR * NEIGHBOUR_DECAY ** (step - 1)
                for pos in {"both": (at - step, at + step), "previous": (at - step,),
                            "next": (at + step,)}[NEIGHBOUR_SIDE]:
                    if 0 <= pos < len(ids):
                        other = score.get(ids[pos], 0.0)
                        if NEAR_PENALTY:  # only a neighbour ranked above counts, against
                            if other > hit.composite:
                                gain = min(gain, -NEAR_PENALTY * NEIGHBOUR_DECAY ** (step - 1)
                                           * hit.composite)
                        else:
                            gain += share * other
            hit.factors["neighbours"] = 1.0 + gain / hit.composite if hit.composite > 0 else 1.0
            hit.composite += gain
            hit.score = final_score(hit.composite)
    ranked.sort(key=lambda h: (-h.composite, h.id))
    return ranked


def soft_match(scorer: Scorer, candidates: Sequence[Candidate], terms: Sequence[str]) -> None:
    """Mix each candidate's cosine with its word-level soft match to ``terms`` (LATE)."""
    import numpy as np

    index = next((i for i in scorer.indexes if i.built() and i.vectors.exists()), None)
    encoder = index.encoder() if index is not None else None
    if encoder is None or not terms:
        return

    def vectors(words: Sequence[str]) -> Any:
        missing = [w for w in words if w not in _WORD_VECTORS]
        if missing:
            _WORD_VECTORS.update(zip(missing, encoder.encode(missing), strict=True))
        return np.array([_WORD_VECTORS[w] for w in words])

    lexical = index.lexical
    docs, searcher = lexical.num_docs(), lexical.searcher()
    idf = np.array([math.log(1 + docs / (1 + searcher.doc_freq("exact", t))) for t in terms])
    query = vectors(terms)
    for cand in candidates:
        if cand.doc is None:
            continue
        words = list(dict.fromkeys(query_terms(cand.doc.get("content", ""))))
        if not words:
            continue
        best = (query @ vectors(words).T).max(axis=1)
        soft = float((best * idf).sum() / idf.sum())
        cand.semantic = (1 - LATE) * (cand.semantic or 0.0) + LATE * soft


def _group_order(index: Any, groups: set[str]) -> dict[str, list[str]]:
    """The memories of each source group in ``groups``, ids in order (creation)."""
    manifest = index._manifest if index._manifest is not None else index._load_manifest()
    order: dict[str, list[str]] = {}
    if manifest is not None:
        for memory_id, state in sorted(manifest.members(groups).items()):
            order.setdefault(state.group or "", []).append(memory_id)
    return order


@contextmanager
def installed() -> Iterator[None]:
    """The layers hooked into ``Searcher`` (hybrid, blended fusion) for the block: after
    the first scoring, the feedback candidates are added and scored again, then the
    neighbour step; the semantic query leaves out the common words."""
    searcher_class = search_module.Searcher
    saved = (searcher_class.search, searcher_class.score, searcher_class._semantic_text)

    def search(self: Any, query: str, **options: Any) -> Any:
        self._second = (query, options.get("limit") or 10)
        self._softened: set[int] = set()
        return saved[0](self, query, **options)

    def score(self: Any, candidates: list[Candidate], mode: str, current: str,
              has_vector: bool, include_archived: bool) -> list[Hit]:
        text, limit = self._second
        terms = list(dict.fromkeys(query_terms(text)))[:search_module.MAX_QUERY_TERMS]
        if LATE > 0 and mode == "hybrid" and has_vector:
            soft_match(self, [c for c in candidates if id(c) not in self._softened], terms)
            self._softened.update(id(c) for c in candidates)
        ranked = saved[1](self, candidates, mode, current, has_vector, include_archived)
        if mode != "hybrid" or getattr(self, "_in_second", False):
            return ranked
        qvec = None
        if has_vector:
            encoder = next((i.encoder() for i in self.indexes if i.vectors.exists()), None)
            qvec = encoder.encode([self._semantic_text(text)])[0] if encoder else None
        depth = max(search_module.CANDIDATES, limit * 6)
        if feedback(self, candidates, ranked, terms, qvec, depth, include_archived):
            self.fetch([c for c in candidates if c.doc is None])
            self._in_second = True
            try:
                ranked = saved[1](self, candidates, mode, current, has_vector,
                                  include_archived)
            finally:
                self._in_second = False
        return neighbours(self, ranked)

    def semantic_text(self: Any, text: str) -> str:
        plain = saved[2](self, text)
        said = plain.split() if plain != text else words(text.lower())
        common_words: set[str] = set()
        for index in self.indexes:
            if index.built():
                common_words |= common(index.lexical, said)
        kept = [w for w in said if w not in common_words]
        return " ".join(kept) if kept and common_words else plain

    searcher_class.search, searcher_class.score = search, score  # type: ignore[method-assign]
    searcher_class._semantic_text = semantic_text  # type: ignore[method-assign]
    try:
        yield
    finally:
        searcher_class.search, searcher_class.score = saved[0], saved[1]  # type: ignore[method-assign]
        searcher_class._semantic_text = saved[2]  # type: ignore[method-assign]
