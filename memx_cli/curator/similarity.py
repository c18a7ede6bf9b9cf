"""How alike two memories are (SPEC 3.2): cosine of embeddings with the model, Jaccard
over word sets without it; and a pool that finds the nearest memories of a batch.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memx_cli.curator.text import surface_units, tokenize
from memx_cli.store.memory import Memory
from memx_cli.textproc import cjk_bigrams, words

# A "duplicate" whose differing words mean something else ("standing" vs "running",
# "woman" vs "man") describes another fact. Below this cosine between the words only
# one side has, the pair is not merged (calibrated on STS/SICK: bench/curator_calibration.py).
SUBSTITUTION_MIN = 0.5
# Without vectors, a word in more memories than this proposes no candidates of its own.
COMMON_WORD = 500
_DIGITS = re.compile(r"\d+(?:\.\d+)*")


def word_set(text: str, mask_numbers: bool = True) -> frozenset[str]:
    """Lowercased words, CJK text as character bigrams. Digits are masked ("300ms" and
    "500ms" are both "#ms") so a changed value still reads as the same sentence; the
    Curator compares the numbers themselves separately."""
    found = words(cjk_bigrams(text).lower())
    if mask_numbers:
        found = [_DIGITS.sub("#", w) for w in found]
    return frozenset(found)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


@dataclass
class Entry:
    """A memory as the Curator compares it."""

    memory: Memory
    words: frozenset[str]
    vector: Any = None


class Similarity:
    """Scores pairs with the encoder when there is one, else with Jaccard."""

    def __init__(self, encoder: Any | None):
        self.encoder = encoder

    @property
    def method(self) -> str:
        return "cosine" if self.encoder is not None else "jaccard"

    def entries(self, memories: Sequence[Memory]) -> list[Entry]:
        found = [Entry(m, word_set(m.content)) for m in memories]
        if self.encoder is not None and found:
            vectors = self.encoder.encode([m.content for m in memories])
            for entry, vector in zip(found, vectors):
                entry.vector = vector
        return found

    def score(self, a: Entry, b: Entry) -> float:
        if a.vector is not None and b.vector is not None:
            return max(0.0, min(1.0, float(a.vector @ b.vector)))
        return jaccard(a.words, b.words)

    def same_meaning_words(self, a: str, b: str) -> bool:
        """Do the words only one text has mean about the same as the other's?"""
        ua, ub = surface_units(tokenize(a)), surface_units(tokenize(b))
        only_a = sorted(w for u, w in ua.items() if u not in ub)
        only_b = sorted(w for u, w in ub.items() if u not in ua)
        if not only_a or not only_b:
            return True  # one text adds words to the other: a fuller copy, not a swap
        if self.encoder is None:
            return False
        va, vb = self.encoder.encode([" ".join(only_a), " ".join(only_b)])
        return float(va @ vb) >= SUBSTITUTION_MIN


@dataclass
class Pool:
    """Memories compared in this write (the batch so far, and a small store's memories)."""

    similarity: Similarity
    entries: dict[str, Entry] = field(default_factory=dict)
    _by_word: dict[str, set[str]] = field(default_factory=dict)
    _matrix: Any = None
    _ids: list[str] = field(default_factory=list)
    _rows: dict[str, int] = field(default_factory=dict)

    def add(self, entry: Entry) -> None:
        """Add ``entry``, or replace the entry of the same id (a merge changed its text)."""
        memory_id = entry.memory.id
        old = self.entries.get(memory_id)
        if old is not None:
            for word in old.words - entry.words:
                self._by_word[word].discard(memory_id)
        self.entries[memory_id] = entry
        for word in entry.words:
            self._by_word.setdefault(word, set()).add(memory_id)
        if entry.vector is not None:
            if memory_id not in self._rows:
                self._rows[memory_id] = len(self._ids)
                self._ids.append(memory_id)
            self._put(self._rows[memory_id], entry.vector)

    def _put(self, row: int, vector: Any) -> None:
        import numpy as np

        if self._matrix is None:
            self._matrix = np.zeros((64, len(vector)), dtype=np.float32)
        if row >= len(self._matrix):
            grown = np.zeros((2 * len(self._matrix), self._matrix.shape[1]), dtype=np.float32)
            grown[: len(self._matrix)] = self._matrix
            self._matrix = grown
        self._matrix[row] = vector

    def nearest(self, entry: Entry, floor: float, count: int,
                keep: Callable[[Entry], bool]) -> list[tuple[Entry, float]]:
        """Up to ``count`` entries that ``keep`` accepts with similarity >= ``floor``,
        most similar first. With vectors, entries that share words (Jaccard >= ``floor``)
        are candidates too, scored by their cosine: a small static model can put "构建时
        缓存依赖包" and "构建时没有缓存依赖包" far apart."""
        scored: dict[str, tuple[Entry, float]] = {}
        if entry.vector is not None and self._ids:
            import numpy as np

            sims = self._matrix[: len(self._ids)] @ entry.vector
            for i in np.argsort(-sims):
                if sims[i] < floor or len(scored) >= count:
                    break
                other = self.entries[self._ids[i]]
                if keep(other):
                    scored[other.memory.id] = (other, float(sims[i]))
            for other, _ in self._sharing_words(entry, floor, count, keep):
                if other.memory.id not in scored and other.vector is not None:
                    sim = float(self._matrix[self._rows[other.memory.id]] @ entry.vector)
                    scored[other.memory.id] = (other, sim)
        elif entry.vector is None:
            scored = {e.memory.id: (e, s)
                      for e, s in self._sharing_words(entry, floor, count, keep)}
        ranked = sorted(scored.values(), key=lambda p: -p[1])
        return [(e, min(max(s, 0.0), 1.0)) for e, s in ranked]

    def _sharing_words(self, entry: Entry, floor: float, count: int,
                       keep: Callable[[Entry], bool]) -> list[tuple[Entry, float]]:
        """Entries with Jaccard >= ``floor`` over words, best first."""
        seen: set[str] = set()
        postings = sorted((self._by_word.get(w, set()) for w in entry.words), key=len)
        for posting in postings:
            if seen and len(posting) > COMMON_WORD:
                break  # "the", "to": rarer shared words already found the candidates
            seen |= posting
        seen.discard(entry.memory.id)
        pairs = [(self.entries[i], jaccard(entry.words, self.entries[i].words))
                 for i in sorted(seen)]
        return sorted((p for p in pairs if p[1] >= floor and keep(p[0])),
                      key=lambda p: -p[1])[:count]
