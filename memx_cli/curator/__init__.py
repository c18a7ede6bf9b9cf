"""The Curator (SPEC 3.2): on every ACE write, compare each new memory with the existing
memories of the same scope and decide: added, merged into, skipped (duplicate),
supersedes or conflicts with.

Order of the checks, for the most similar comparable memories first (issue 12: no
duplicate decision before the contradiction check):
1. the very same words (case and punctuation aside): skipped, one more mention;
2. contradiction (similarity >= the conflict band's low edge, or most content words
   shared): subjects are compared first (statement.subject_swap, and named_apart: the
   same words about two named things, "deployment/ledger" / "deployment/reports"), then
   values, tools, negation, opposite words and restatements (contradiction.detect); a
   clear change supersedes the old memory, an unclear one is recorded as a conflict on
   both;
3. duplicate (the same polarity, subject, numbers and identifier values such as
   "eu-west-1"; similarity >= ``dedup_threshold``
   with no word swapped for one of another meaning, or the same content words):
   near-identical text is skipped, otherwise merged; either way the existing memory
   counts a mention and gains confidence;
4. otherwise the memory is added as it is.

Nothing is deleted: supersede and conflict only add links to both files.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memx_cli.clock import now_iso
from memx_cli.curator.contradiction import SAME_STATEMENT, detect
from memx_cli.curator.merge import mention, merge
from memx_cli.curator.relations import same_word, swapped
from memx_cli.curator.similarity import Entry, Pool, Similarity
from memx_cli.curator.statement import (
    identifiers_apart,
    named_apart,
    overlap,
    relocated,
    same_statement,
    shape,
    subject_swap,
)
from memx_cli.curator.text import embedded_digits, numbers, tokenize, units
from memx_cli.errors import InvalidMemoryError, ModelUnavailableError
from memx_cli.store.files import Store, Written
from memx_cli.store.memory import Memory
from memx_cli.store.records import WriteResult
from memx_cli.store.repo import Repo
from memx_cli.textproc import query_terms, words

if TYPE_CHECKING:
    from memx_cli.index import StoreIndex

log = logging.getLogger("memx")

# Up to this many memory files, a write compares against all of them (loading and
# embedding a few hundred short texts costs a few ms); beyond, candidates come from the
# store's vector (or full-text) index.
SMALL_STORE = 200
CANDIDATES = 12
# Candidates below the conflict band are still read when they share most of their words.
CANDIDATE_FLOOR = 0.2
# At or above this similarity with the same content words the new text adds nothing.
NEAR_IDENTICAL = 0.98


@dataclass(frozen=True)
class Settings:
    dedup_threshold: float = 0.9
    band: tuple[float, float] = (0.5, 0.8)
    strategy: str = "keep_best"

    @classmethod
    def from_config(cls, cfg: object) -> Settings:
        get = cfg.get  # type: ignore[attr-defined]
        low, high = get("ace.curator.conflict_band")
        return cls(float(get("ace.curator.dedup_threshold")), (float(low), float(high)),
                   str(get("ace.curator.merge_strategy")))


@dataclass(frozen=True)
class Decision:
    action: str               # one of manage.WRITE_ACTIONS
    memory: Memory            # the memory that holds the text now (new, or merged into)
    other: str | None = None  # the existing memory's id
    similarity: float | None = None
    reason: str = ""


def comparable(new: Memory, old: Memory) -> bool:
    """Only current memories of the same kind and scope (and domain/topic when both
    have one) are compared."""
    if old.id == new.id or old.superseded_by or old.kind != new.kind or old.scope != new.scope:
        return False
    return all(not (a and b and a != b) for a, b in ((new.domain, old.domain),
                                                     (new.topic, old.topic)))


def similarity_spec(spec: str | None) -> str | None:
    """The model the Curator compares with: the configured one, except e5 (issue 16),
    whose cosines sit at 0.7-0.95 for any two texts, where the thresholds (duplicate
    0.9, substitution 0.5), calibrated on the bundled model's scale, would merge
    different facts: the Curator keeps the bundled model then."""
    from memx_cli.e5 import E5_SPEC

    return None if spec is not None and spec.strip() == E5_SPEC else spec


def load_similarity(repo: Repo) -> Similarity:
    from memx_cli.embed import load_encoder

    try:
        return Similarity(load_encoder(similarity_spec(repo.config["embedding.model"])))
    except ModelUnavailableError:
        log.warning("embedding model unavailable; the curator compares memories by shared "
                    "words (Jaccard)")
        return Similarity(None)


def is_duplicate(old: str, new: str, sim: float, similarity: Similarity,
                 settings: Settings) -> bool:
    """The same statement (the contradiction check has already run): the same polarity,
    the same subject and the same numbers; and either similar enough with no word swapped
    for one of another meaning, or the same content words in another order or form
    ("Use ruff for linting Python code" / "Python code is linted with ruff")."""
    a, b = shape(old), shape(new)
    if a.negative != b.negative or subject_swap(a, b) or named_apart(old, new) is not None:
        return False  # "never X" is not a copy of "X"; "auth service" is not "billing service"
    ta, tb = tokenize(old), tokenize(new)
    if numbers(ta) != numbers(tb) or embedded_digits(ta) != embedded_digits(tb):
        return False  # "pool size 10" and "pool size 50" are two facts, not one
    if identifiers_apart(old, new):
        return False  # "eu-west-1" / "us-east-1": one digit alike, two values
    swap = swapped(old, new)
    if swap is not None and not same_word(*swap):
        return False  # "GET" / "POST", "weekly" / "monthly": one word swapped, two facts
    if sim >= settings.dedup_threshold and similarity.same_meaning_words(old, new):
        return True
    return (sim >= settings.band[0] and same_statement(a, b)) or a.core == b.core


def close_enough(old: str, new: str) -> bool:
    """Worth a contradiction check whatever the similarity: most content words shared,
    or the newer text says the older one's subject moved ("The docs moved to ...")."""
    a, b = shape(old), shape(new)
    return overlap(a, b) >= SAME_STATEMENT or relocated(a, b) is not None


def same_words(old: str, new: str) -> bool:
    """The same words in the same order, case and punctuation aside."""
    return words(old.lower()) == words(new.lower())


def is_near_identical(old: str, new: str, sim: float) -> bool:
    """The same words, or nearly the same vector with the same content words: nothing
    worth merging, the new text is skipped (asked only once no contradiction was found)."""
    if same_words(old, new):
        return True
    return sim >= NEAR_IDENTICAL and units(tokenize(old)) == units(tokenize(new))


class Curator:
    """Decides for a batch of new memories of one store; later ones see earlier ones."""

    def __init__(self, repo: Repo, store: Store, similarity: Similarity | None = None,
                 index: StoreIndex | None = None):
        self.store = store
        self.settings = Settings.from_config(repo.config)
        self.similarity = similarity or load_similarity(repo)
        self.pool = Pool(self.similarity)
        self.changed: dict[str, Memory] = {}  # id -> version to write, in decision order
        self._index = None
        self._model = repo.config["embedding.model"]
        if not store.more_than(SMALL_STORE):  # not a listing of every name (issue 15)
            for entry in self.similarity.entries(store.load_all().memories):
                self.pool.add(entry)
        else:
            from memx_cli.index import StoreIndex

            self._index = index or StoreIndex(store, self._model)
            # The index's vectors are found with the Curator's own model only.
            same = similarity_spec(self._model) == self._model
            self._index_vectors = self._index.sync_before_write(
                self.similarity.encoder is not None and same).vectors and same

    # ------------------------------------------------------------ candidates

    def _fetch_from_index(self, entry: Entry) -> None:
        """Bring the indexed memories nearest to ``entry`` into the pool."""
        index = self._index
        if index is None or not index.built():
            return
        if entry.vector is not None and self._index_vectors and index.vectors.exists():
            keys = list(index.vectors.search(entry.vector, 2 * CANDIDATES))
        else:
            terms = query_terms(entry.memory.content)[:64]
            keys = list(index.lexical.search(terms, [("stem", 1.0)], 2 * CANDIDATES, False))
        docs = index.lexical.fetch(keys)
        wanted = [d for d in docs.values()
                  if not d.get("archived") and d["id"] not in self.pool.entries]
        for fresh in self.similarity.entries(self._as_filed(index, wanted)):
            self.pool.add(fresh)

    def _as_filed(self, index: StoreIndex, docs: list[dict[str, Any]]) -> list[Memory]:
        """The memories of the index's stored documents ``docs``, as their files hold
        them. A document is the file's memory (``to_dict`` of the parsed file) while the
        file keeps the time and size the index recorded for it: the index was brought up
        to date under the store lock this Curator holds. Any other file is read and
        parsed, as every one was before (issue 29: ~24 files of YAML, ~15% of a `memx
        add`, and the YAML library's import)."""
        import copy
        import os

        from memx_cli.store.memory import SCHEMA_VERSION, from_data

        manifest = index.manifest()
        rows = manifest.rows([d["id"] for d in docs]) if manifest is not None else {}
        found = []
        for doc in docs:
            path = self.store.path_for(doc["id"])
            row = rows.get(doc["id"])
            memory = None
            if row is not None and not row.archived and not row.digest.startswith("!"):
                try:
                    st = os.stat(path)
                    if (st.st_mtime_ns, st.st_size) == (row.mtime_ns, row.size):
                        data = {k: copy.deepcopy(v) for k, v in doc.items()
                                if k not in ("path", "archived")}  # (nested: the cache's)
                        memory = from_data({**data, "schema": SCHEMA_VERSION})
                except Exception:  # any doubt: the file decides, below
                    memory = None
            if memory is None:
                try:
                    memory = self.store.read_file(path)
                except InvalidMemoryError:
                    continue
            found.append(memory)
        return found

    # ------------------------------------------------------------ deciding

    def curate(self, memory: Memory) -> Decision:
        [entry] = self.similarity.entries([memory])
        self._fetch_from_index(entry)
        decision = self._decide(entry)
        self.changed[decision.memory.id] = decision.memory
        if decision.action in ("added", "supersedes", "conflicts with"):
            entry.memory = decision.memory
            self.pool.add(entry)
        else:
            self.pool.add(self.similarity.entries([decision.memory])[0])
        return decision

    def _decide(self, entry: Entry) -> Decision:
        settings, new = self.settings, entry.memory
        floor = min(CANDIDATE_FLOOR, settings.band[0], settings.dedup_threshold)
        near = self.pool.nearest(entry, floor, CANDIDATES,
                                 keep=lambda e: comparable(new, e.memory))
        stamp = now_iso()
        if new.kind == "policy":
            promoted = self._promoted_fact(entry, floor, stamp)
            if promoted is not None:
                return promoted
        for other, sim in near:
            # Restating a current memory word for word adds a mention, nothing else: any
            # contradiction it has with other memories is already recorded on the original.
            # Only the very same words: one changed word ("always" -> "never") can be the
            # contradiction, which must be checked before any duplicate decision.
            old = other.memory
            if not old.superseded_by and same_words(old.content, new.content):
                return Decision("skipped", mention(old, new, stamp), old.id, sim,
                                "the same words")
        for other, sim in near:
            old = other.memory
            # A small static model underrates some pairs (CJK text, a swapped name): texts
            # that share most of their content words are compared whatever the cosine.
            if sim < settings.band[0] and not close_enough(old.content, new.content):
                continue
            found = detect(old.content, new.content)
            if found is None:
                continue
            if found.clear:
                self._update(old.replace(superseded_by=new.id, updated_at=stamp))
                return Decision("supersedes", new.replace(supersedes=new.supersedes + (old.id,)),
                                old.id, sim, found.why)
            self._update(old.replace(conflicts_with=old.conflicts_with + (new.id,),
                                     updated_at=stamp))
            return Decision("conflicts with",
                            new.replace(conflicts_with=new.conflicts_with + (old.id,)),
                            old.id, sim, found.why)
        for other, sim in near:
            old = other.memory
            if not is_duplicate(old.content, new.content, sim, self.similarity, settings):
                continue
            if is_near_identical(old.content, new.content, sim):
                return Decision("skipped", mention(old, new, stamp), old.id, sim,
                                "near-identical text")
            return Decision("merged into", merge(old, new, settings.strategy, stamp), old.id,
                            sim, f"similarity {sim:.2f} >= {settings.dedup_threshold}")
        return Decision("added", new, None, near[0][1] if near else None)

    def _promoted_fact(self, entry: Entry, floor: float, stamp: str) -> Decision | None:
        """A policy that says in the same words what a current fact says (a learned
        convention the user then made a rule with `memx policy add`, as review suggests)
        supersedes that fact: one rule, not a fact and a policy side by side."""
        new = entry.memory
        facts = self.pool.nearest(entry, floor, CANDIDATES, keep=lambda e: comparable(
            new.replace(kind="fact"), e.memory))
        for other, sim in facts:
            old = other.memory
            if same_words(old.content, new.content):
                self._update(old.replace(superseded_by=new.id, updated_at=stamp))
                return Decision("supersedes", new.replace(supersedes=new.supersedes + (old.id,)),
                                old.id, sim, "the same rule, now a policy")
        return None

    def _update(self, memory: Memory) -> None:
        self.changed[memory.id] = memory
        self.pool.entries[memory.id].memory = memory  # same text: words and vector stand


def curate(repo: Repo, memory: Memory) -> Decision:
    """What the Curator would do with ``memory`` (nothing is written)."""
    return Curator(repo, repo.store_for(memory.scope)).curate(memory)


def write_curated(repo: Repo, store: Store, memories: Sequence[Memory],
                  progress: Callable[[int], None] | None = None,
                  index: StoreIndex | None = None,
                  records: dict[str, Written] | None = None) -> list[WriteResult]:
    """Curate ``memories`` (in order) against ``store`` and write every changed file;
    one result per memory, in order. ``records`` gets what was written (for the index).

    The store lock is held from reading the existing memories to writing the results,
    so two writers never both add the same memory, and a merge never overwrites a
    change another process made meanwhile. The model loads before the lock is taken.
    """
    similarity = load_similarity(repo)
    with store.lock():
        curator = Curator(repo, store, similarity, index)
        decisions = []
        for mem in memories:
            decisions.append(curator.curate(mem))
            if progress is not None:
                progress(len(decisions))  # bulk imports report as they go (issue 17)
        wrote = store.write_many(list(curator.changed.values()))
    if records is not None:
        records.update(wrote)
    results = []
    for decision in decisions:
        final = curator.changed.get(decision.memory.id, decision.memory)
        results.append(WriteResult(decision.action, final, store.path_for(final.id),
                                   decision.other))
    return results
