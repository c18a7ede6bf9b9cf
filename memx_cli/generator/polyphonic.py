"""Polyphonic fusion for hybrid search (SPEC 3.4, issue 8): four voices, weighted by
what the query asks for, each candidate scaled by its decay weight, then MMR.

Voices, each a score from 0 to 1 for every candidate:
- lexical: the keyword layers (L1-L3), normalised as in the blended formula;
- semantic: the cosine of query and memory (L4);
- temporal: how recently the memory was written (recent active memories);
- graph: a two-hop walk from the strongest lexical and semantic seeds over edges
  between memories of the same source (commit, transcript session, CI run: nearby
  members of the group), supersede links and co-recall (returned together before).

A small classifier reads the query's intent (identifiers and paths → lexical, "latest",
"recently" → temporal, prose → semantic) and picks the voice weights. The fused score
is multiplied by the same factors as the blended score (decay, recency, scope,
superseded, feedback); MMR then keeps rephrasings of one memory from crowding the list.
Selected with ``ace.retrieval.fusion: polyphonic``; the blended formula stays the
other choice (docs/search.md has both measured on LoCoMo).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memx_cli.clock import now, parse_timestamp
from memx_cli.generator.candidates import LEXICAL_WEIGHTS, Candidate, Hit, Scorer
from memx_cli.generator.fusion import final_score
from memx_cli.index import memory_key
from memx_cli.textproc import words as split_words

if TYPE_CHECKING:
    from memx_cli.index import StoreIndex


@dataclass(frozen=True)
class Voices:
    lexical: float
    semantic: float
    temporal: float
    graph: float


# Voice weights per intent. Lexical and semantic keep the blended formula's 0.6 / 0.4
# for prose. The graph voice is an absolute bonus: the blended score of each seed times
# the edge weights, so a weak seed lends little (graph 0.1 measured best of 0.05-0.2 on
# the LoCoMo dev split, bench/fusion.py; a relative, max-normalised graph voice cost
# 0.04 recall@1).
INTENTS = {
    "prose": Voices(lexical=0.6, semantic=0.4, temporal=0.0, graph=0.1),
    "identifier": Voices(lexical=0.8, semantic=0.2, temporal=0.0, graph=0.05),
    "temporal": Voices(lexical=0.55, semantic=0.35, temporal=0.15, graph=0.1),
}
TEMPORAL_WORDS = frozenset(["latest", "recent", "recently", "newest", "last", "lately", "current", "currently", "now", "today", "yesterday", "ago", "new", "changed"])
IDENTIFIER = re.compile(r"`|[A-Za-z0-9]_[A-Za-z0-9]|\w/\w|\.\w{1,4}\b|--?\w|::|\(\)|"
                        r"\b[a-z]+[A-Z]\w*|\b[A-Z]{2,}\w*\d|\w+\d+\w*")
SEEDS = 8                 # strongest seeds taken from each of the lexical and semantic voices
GROUP_WINDOW = 2          # members of the same source this many places apart are adjacent
GROUP_DECAY = 0.5         # edge weight per place apart (0.5 next door, 0.25 two away)
SUPERSEDE_EDGE = 0.8
HOP2 = 0.5                # a second hop counts half
GRAPH_NODES = 30          # graph-only candidates brought in (scored like any other)
RECENT_HALF_LIFE = 14.0   # days: the temporal voice halves every two weeks
MMR_LAMBDA = 0.85         # relevance vs novelty; 1.0 turns MMR off
MMR_POOL = 30             # MMR reorders this many (or 3 x limit) top candidates


def classify(query: str) -> str:
    """'identifier', 'temporal' or 'prose'."""
    words = set(split_words(query.lower()))
    if words & TEMPORAL_WORDS:
        return "temporal"
    if IDENTIFIER.search(query) and len(query.split()) <= 8:
        return "identifier"
    return "prose"


class Graph:
    """The edges of one store's memories, from the index manifest (source groups) and
    the per-clone co-recall counts."""

    def __init__(self, index: StoreIndex):
        manifest = index.manifest()
        self.position: dict[str, tuple[str, int]] = {}
        # The grouped rows only, not one per memory (issue 15).
        self.groups: dict[str, list[str]] = manifest.grouped() if manifest else {}
        for group, ids in self.groups.items():  # ids sort by creation time (ULIDs)
            for at, memory_id in enumerate(ids):
                self.position[memory_id] = (group, at)
        from memx_cli.store import corecall

        self.corecalled = corecall.load(index.store)  # store/corecall.py

    def edges(self, memory_id: str, doc: dict[str, Any] | None) -> Iterable[tuple[str, float]]:
        if memory_id in self.position:
            group, at = self.position[memory_id]
            members = self.groups[group]
            for place in range(max(0, at - GROUP_WINDOW), min(len(members), at + GROUP_WINDOW + 1)):
                if place != at:
                    yield members[place], GROUP_DECAY ** abs(place - at)
        if doc is not None:
            for linked in [*doc.get("supersedes", []), doc.get("superseded_by")]:
                if linked:
                    yield linked, SUPERSEDE_EDGE
        for partner, count in self.corecalled.get(memory_id, {}).items():
            yield partner, min(count / 3.0, 1.0) * 0.5  # three co-recalls: a full edge


def _walk(graph: Graph, seeds: dict[str, float], docs: dict[str, dict[str, Any]],
          fetch: Any) -> dict[str, float]:
    """Two hops from each seed; a node's score sums, over the paths that reach it, the
    seed's strength times the edge weights (the second hop at HOP2). A path never
    returns to its own seed: a memory is not its own evidence."""
    first = {seed: dict(graph.edges(seed, docs.get(seed))) for seed in seeds}
    docs.update(fetch(list({n for hop in first.values() for n in hop} - set(docs))))
    total: dict[str, float] = {}
    for seed, hop in first.items():
        strength = seeds[seed]
        for node, weight in hop.items():
            if node == seed:
                continue
            total[node] = total.get(node, 0.0) + strength * weight
            for far, second in graph.edges(node, docs.get(node)):
                if far != seed:
                    total[far] = total.get(far, 0.0) + HOP2 * strength * weight * second
    return total


class Polyphonic:
    def __init__(self, searcher: Scorer):
        self.searcher = searcher
        self._graphs: dict[int, tuple[Any, Graph]] = {}

    def graph(self, index: StoreIndex) -> Graph:
        """One Graph per store, rebuilt when the index manifest changes (a warm server)."""
        manifest = index.manifest()
        cached = self._graphs.get(id(index))
        if cached is None or cached[0] is not manifest:
            cached = (manifest, Graph(index))
            self._graphs[id(index)] = cached
        return cached[1]

    def rank(self, candidates: list[Candidate], query: str, terms: Sequence[str], qvec: Any,
             current: str, include_archived: bool, limit: int) -> list[Hit]:
        searcher = self.searcher
        searcher.fetch(candidates)
        hits = searcher.score(candidates, "hybrid", current, qvec is not None, include_archived)
        extra, graph = self._graph_hits(hits, terms, qvec, current, include_archived)
        hits += extra
        weights = INTENTS[classify(query)]
        moment = now()
        for hit in hits:
            age = (moment - parse_timestamp(hit.doc["created_at"])).total_seconds() / 86400
            recent = 0.0 if hit.doc.get("superseded_by") else 2 ** (-max(age, 0) / RECENT_HALF_LIFE)
            voices = Voices(hit.layers["norm_keyword"], hit.layers["semantic"], recent,
                            graph.get((hit.store, hit.id), 0.0))
            fused = (weights.lexical * voices.lexical + weights.semantic * voices.semantic
                     + weights.temporal * voices.temporal + weights.graph * voices.graph)
            hit.layers.update({"temporal": voices.temporal, "graph": voices.graph,
                               "fused": fused})
            hit.composite = fused * math.prod(hit.factors.values())
        hits.sort(key=lambda h: (-h.composite, h.id))
        return self._diversify(hits, max(MMR_POOL, 3 * limit))

    # ------------------------------------------------------------ graph voice

    def _graph_hits(self, hits: list[Hit], terms: Sequence[str], qvec: Any, current: str,
                    include_archived: bool) -> tuple[list[Hit], dict[tuple[str, str], float]]:
        """Walk from the seeds of each store: the graph voice of every node reached
        (by (store, id)), and the best nodes that were not candidates yet, scored."""

        graph: dict[tuple[str, str], float] = {}
        extra: list[Candidate] = []
        for index in self.searcher.indexes:
            mine = [h for h in hits if h.store == index.store.label]
            if not mine:
                continue
            seeds: dict[str, float] = {}
            for layer in ("keyword", "semantic"):
                for hit in sorted(mine, key=lambda h: -h.layers[layer])[:SEEDS]:
                    if hit.layers[layer] > 0:
                        seeds[hit.id] = hit.layers["blended"]
            docs = {h.id: h.doc for h in mine}

            def fetch(ids: list[str], index: StoreIndex = index) -> dict[str, dict[str, Any]]:
                found = index.lexical.fetch([memory_key(i) for i in ids])
                return {d["id"]: d for d in found.values()}

            scores = _walk(self.graph(index), seeds, docs, fetch)
            for memory_id, value in scores.items():
                graph[(index.store.label, memory_id)] = value
            known = {h.id for h in mine}
            new = sorted((i for i in scores if i not in known), key=lambda i: -scores[i])
            keys = [memory_key(i) for i in new[:GRAPH_NODES]]
            if not keys:
                continue
            found = {k: Candidate(k, index) for k in keys}
            for key, score in index.lexical.search(terms, LEXICAL_WEIGHTS, len(keys),
                                                   include_archived, keys=keys).items():
                found[key].keyword = score
            if qvec is not None and index.vectors.exists():
                for key, sim in index.vectors.similarities(qvec, keys).items():
                    found[key].semantic = sim
            extra.extend(found.values())
        if not extra:
            return [], graph
        self.searcher.fetch(extra)
        return (self.searcher.score(extra, "hybrid", current, qvec is not None,
                                     include_archived), graph)

    # ------------------------------------------------------------ diversity

    def _diversify(self, ranked: list[Hit], pool: int) -> list[Hit]:
        """Greedy MMR over the top ``pool``: each pick maximises
        lambda x relevance - (1 - lambda) x its highest similarity to the picks so far.
        The pick's value becomes its composite, so the order (which only falls) holds."""
        if MMR_LAMBDA >= 1.0 or len(ranked) < 2:
            return ranked
        head, tail = ranked[:pool], ranked[pool:]
        similar = self._similarity(head)
        chosen: list[int] = []
        closest = [0.0] * len(head)
        left = set(range(len(head)))
        values: dict[int, float] = {}
        while left:
            best = max(left, key=lambda i: (MMR_LAMBDA * head[i].composite
                                            - (1 - MMR_LAMBDA) * closest[i], -i))
            values[best] = MMR_LAMBDA * head[best].composite - (1 - MMR_LAMBDA) * closest[best]
            chosen.append(best)
            left.discard(best)
            for i in left:
                closest[i] = max(closest[i], similar(best, i))
        floor = values[chosen[-1]]
        result = []
        for i in chosen:
            head[i].layers["mmr"] = values[i]
            head[i].composite = values[i]
            head[i].score = final_score(values[i])
            result.append(head[i])
        for hit in tail:  # below every MMR pick, in their own order
            hit.composite = min(hit.composite * MMR_LAMBDA, floor)
            hit.score = final_score(hit.composite)
        return result + tail

    def _similarity(self, hits: list[Hit]) -> Any:
        """Pairwise similarity of memories: cosine of stored vectors, else shared words."""
        vectors: dict[int, Any] = {}
        for index in self.searcher.indexes:
            keys = [memory_key(h.id) for h in hits if h.store == index.store.label]
            if keys and index.vectors.exists():
                try:
                    vectors.update(index.vectors.get(keys))
                except (OSError, ValueError):
                    continue
        keys = [memory_key(h.id) for h in hits]
        words = [frozenset(split_words(h.doc["content"].lower())) for h in hits]

        def similar(a: int, b: int) -> float:
            va, vb = vectors.get(keys[a]), vectors.get(keys[b])
            if va is not None and vb is not None:
                return float(va @ vb)
            union = words[a] | words[b]
            return len(words[a] & words[b]) / len(union) if union else 0.0

        return similar
