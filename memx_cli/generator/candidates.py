"""What the rankings and fusions share: candidates, scored hits, the lexical field
weights, the floor for meaning-only candidates, and the scoring interface a fusion
calls (``Scorer``). ``search`` implements it;
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

# A memory with no word in common with the query is a result only when its cosine stands
# out among the query's own candidates (issue 16): at least SEMANTIC_Z standard deviations
# above their mean. The scale of cosines depends on the model, the store and the query, so
# a fixed floor of 0.45 dropped the nearest memory by meaning (cosine 0.30-0.38) and showed
# instead an unrelated memory that shared one word; a margin under the best cosine (0.15)
# kept that memory but also let every mediocre neighbour in (the demo's "which package
# manager do we use" listed the deploy script and type hints after pnpm). Recall on LoCoMo
# does not move with either rule (bench/loo.py): meaning-only turns rarely reach its top 10.
SEMANTIC_Z = 1.5
# ... and above the level where the bundled model says nothing: queries of words a store
# never touches reach 0.06-0.10 against a small developer store and 0.16-0.18 against a
# 419-turn conversation, while 95% of the LoCoMo questions' nearest turns are above 0.5.
# Without it a query that matches nothing would list the whole store at a score of zero.
NOISE_COSINE = 0.2
# ... unless it is the best candidate and clearly so: at least CLEAR_GAP deviations above
# the second best. A fixed floor must not empty the list while one memory stands far out
# ("babies" finds the parental-leave memory at 0.15, the next at 0.05, 1.5 deviations
# below); nonsense words reach 0.09-0.15 with the second close behind (0.75-0.95).
CLEAR_GAP = 1.25


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
    relevance: float = 0.0  # calibrated, 0-1 (generator/relevance.py)


def voices(hit: Hit) -> dict[str, Any]:
    """What each voice said about ``hit`` (issue 25: --explain shows every one). Scores
    that add are 0-1 (``None``: the fusion has no such voice); the others multiply."""
    lay, fac = hit.layers, hit.factors
    return {
        "keyword": lay.get("norm_keyword", 0.0),
        "meaning": lay.get("semantic", 0.0),
        # the e5 voice (generator/e5voice.py; None: off)
        "e5": lay.get("e5"),
        # the role voice (generator/roles.py): part of the keyword score, for a memory
        # naming a tool of the role the query asks for
        "role": lay.get("role", 0.0),
        # polyphonic adds a temporal and a graph voice; the blended formula multiplies
        # by recency and by the date factor instead, and has no graph.
        "temporal": lay.get("temporal"),
        "temporal_factor": fac.get("recency", 1.0) * fac.get("date", 1.0),
        "graph": lay.get("graph"),
        "feedback": fac.get("feedback", 1.0),
        "decay": fac.get("decay", 1.0),
        "relevance": hit.relevance,
    }


@dataclass
class Candidate:
    """A memory found by one of the rankings, before it is scored."""

    key: int
    index: StoreIndex
    keyword: float = 0.0  # L1 + L2 + L3: the weighted BM25 sum over the fields
    semantic: float | None = None
    doc: dict[str, Any] | None = None
    dated: bool = False  # dated in the range of days the query names
    e5: float | None = None  # the e5 voice's cosine (generator/e5voice.py), when on
    e5_z: float | None = None  # ... in deviations above the query's candidates' mean
    role: float = 0.0  # the role voice's part of ``keyword`` (generator/roles.py)


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


def semantic_floor(candidates: Sequence[Candidate], hard_floor: float | None = None) -> float:
    """The lowest cosine a candidate with no lexical match may have: SEMANTIC_Z standard
    deviations above the mean cosine of the query's candidates (a candidate that clearly
    stands out is kept, whatever the scale), and at least NOISE_COSINE unless the best is
    CLEAR_GAP deviations ahead of the second (1.0, i.e. none, without vectors). With fewer
    candidates than a deviation can be measured on, only the best one above noise level.
    ``hard_floor``: an encoder's own noise level, with no exception (e5, memx_cli/e5.py:
    its cosines spread so little that a best 0.014 above the second "stands out")."""
    noise = NOISE_COSINE if hard_floor is None else hard_floor  # read now: bench/loo.py sets it
    cosines = sorted((c.semantic for c in candidates if c.semantic is not None), reverse=True)
    if not cosines:
        return 1.0
    if len(cosines) - 1 < SEMANTIC_Z ** 2:
        # Too few to tell a stand-out from noise: with n cosines the best is at most
        # sqrt(n - 1) deviations above their mean, so the rule below would drop even a
        # clear best match on a store of two or three memories. Only the best passes.
        return max(cosines[0], noise)
    mean = sum(cosines) / len(cosines)
    spread = (sum((x - mean) ** 2 for x in cosines) / len(cosines)) ** 0.5
    floor = mean + SEMANTIC_Z * spread
    best, second = cosines[0], (cosines[1] if len(cosines) > 1 else mean)
    if hard_floor is None and floor <= best < noise and best - second >= CLEAR_GAP * spread > 0:
        return best  # the one clearly best candidate, however low its cosine
    return max(floor, noise)
