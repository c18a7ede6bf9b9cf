"""Judging hits' calibrated relevance on demand (issue 29): a search judges the hits it
reads, in rank order until one is relevant and then those it shows, not every ranked
candidate. The measure itself is generator/relevance.py's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memx_cli.generator import e5voice, rolevoice
from memx_cli.generator.candidates import Hit
from memx_cli.generator.relevance import RELEVANT, WordEvidence, combine
from memx_cli.index import StoreIndex, memory_key


@dataclass
class StoreJudge:
    """One store's part of judging relevance: its baseline (None: keyword-only, or too
    few vectors to judge meaning), its word weights and the query's name it never
    mentions."""

    index: StoreIndex
    base: Any
    words: WordEvidence
    absent: str | None


class Relevance:
    """Judges hits' relevance (generator/relevance.py) on demand, each hit once: a
    hit's relevance depends only on the hit, its store and the query, so judging the
    hits that are read (those shown, and in rank order until one is relevant) gives
    them what judging all the ranked ones gave."""

    def __init__(self, judges: dict[str, StoreJudge], role_words: dict[tuple[str, int],
                 frozenset[str]], unread: bool, qvec: Any):
        self.judges = judges
        self.role_words = role_words
        self.unread = unread
        self.qvec = qvec
        self.judged: set[int] = set()  # id() of the hits judged
        # A store with hits has no baseline to judge meaning on: the threshold was
        # calibrated with meaning. The query's name that some store with hits never
        # mentions, if any.
        self.uncalibrated = any(j.base is None for j in judges.values())
        self.absent = next((j.absent for j in judges.values() if j.absent is not None), None)

    def any_relevant(self, hits: list[Hit], batch: int) -> bool:
        """Whether some hit is relevant, judged ``batch`` at a time in rank order."""
        for start in range(0, len(hits), max(batch, 1)):
            part = hits[start:start + max(batch, 1)]
            self(part)
            if any(h.relevance >= RELEVANT for h in part):
                return True
        return False

    def __call__(self, hits: list[Hit]) -> None:
        """Judge those of ``hits`` not judged yet."""
        for label, judge in self.judges.items():
            mine = [h for h in hits if h.store == label and id(h) not in self.judged]
            if mine:
                self._judge(judge, mine)

    def _judge(self, judge: StoreJudge, mine: list[Hit]) -> None:
        index, base, words = judge.index, judge.base, judge.words
        cosines = (index.vectors.similarities(self.qvec, [memory_key(h.id) for h in mine])
                   if base is not None else {})
        for hit in mine:
            self.judged.add(id(hit))
            cosine = cosines.get(memory_key(hit.id))
            meaning = base.relevance(cosine) if base is not None and cosine is not None else 0.0
            if (e5voice.EVIDENCE or self.unread) and "e5_z" in hit.layers:
                # e5's own evidence (for a query only e5 reads, the static model's
                # cosine is none)
                size = base.size if base is not None else index.lexical.num_docs()
                meaning = max(meaning, e5voice.relevance(hit.layers["e5_z"], size))
            if judge.absent is not None:
                meaning = 0.0
                hit.layers["subject_absent"] = 1.0
            said = self.role_words.get((index.store.label, memory_key(hit.id)), ())
            share = words.share(hit.doc["content"], said, rolevoice.ROLE_EVIDENCE)
            hit.relevance = combine(meaning, share)
            hit.layers.update({"meaning_relevance": meaning, "word_share": share,
                               "relevance": hit.relevance})
