"""What the rankings and fusions share: candidates, scored hits, the lexical field
weights, and the scoring interface a fusion calls (``Scorer``). ``search`` implements it;
``polyphonic`` uses it, so neither imports the other's internals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from memx_cli.index import StoreIndex

# Weights of the BM25 score of each index field in the layers (see docs/search.md for
# how they were measured). The memory's own words count once, split between their exact
# and stemmed forms, so identifiers still win on exact spelling; a query word that is a
# tag, tool or entity of the memory counts four times; the neighbouring memories of the
# same source (context) count at three quarters of the memory's own text.
EXACT_WEIGHT = 0.5
STEM_WEIGHT = 0.5
META_WEIGHT = 4.0
CONTEXT_WEIGHT = 0.75
# index field -> (weight, the layer it belongs to, its name in --explain)
FIELDS = {
    "exact": (EXACT_WEIGHT, "L1", "exact"),
    "stem": (STEM_WEIGHT, "L2", "fuzzy"),
    "context": (CONTEXT_WEIGHT, "L2", "context"),
    "meta": (META_WEIGHT, "L3", "metadata"),
}
LEXICAL_WEIGHTS = [(name, weight) for name, (weight, _, _) in FIELDS.items()]


@dataclass
class Hit:
    """A scored search result."""

    id: str
    doc: dict[str, Any]
    store: str
    score: float
    composite: float
    layers: dict[str, float]
    factors: dict[str, float]
    tokens: int  # estimated when the hit is considered for the result list
    verification: Any = None  # verify.Verification for anchored results


@dataclass
class Candidate:
    """A memory found by one of the rankings, before it is scored."""

    key: int
    index: StoreIndex
    keyword: float = 0.0  # L1 + L2 + L3: the weighted BM25 sum over the fields
    semantic: float | None = None
    doc: dict[str, Any] | None = None
    dated: bool = False  # dated in the range of days the query names


class Scorer(Protocol):
    """Turns candidates into scored hits (the Searcher). A fusion layer calls it for the
    candidates it brings in itself."""

    @property
    def indexes(self) -> Sequence[StoreIndex]:
        """The index of each store searched, in scope order."""
        ...

    def fetch(self, candidates: list[Candidate]) -> None:
        """Load each candidate's stored document (one lookup per index)."""
        ...

    def score(self, candidates: list[Candidate], mode: str, current: str, has_vector: bool,
              include_archived: bool) -> list[Hit]:
        """Score and rank ``candidates`` for ``mode`` from scope ``current``."""
        ...
