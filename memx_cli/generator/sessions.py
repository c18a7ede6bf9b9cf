"""Session-level retrieval, then turns (issue 16): the memories of one source (a
transcript session, a commit, a CI run) are scored together, and each memory's score is
raised by its session's.

A session's score is the sum of its ``SESSION_TOP`` best composites among the ranked
hits; divided by the best session's, it is 0-1. Each hit's composite is multiplied by
``1 + SESSION_WEIGHT x`` its session's share, so the turns of the session the question
is about rise together, and a lone hit in an otherwise silent session does not.
"""

from __future__ import annotations

from memx_cli.generator.candidates import Hit
from memx_cli.generator.fusion import final_score
from memx_cli.index.keys import source_group

SESSION_WEIGHT = 0.0  # 0 turns the layer off
SESSION_TOP = 3  # a session counts its best this many hits
SESSION_POOL = 50  # hits looked at (the head of the ranking)


def apply(hits: list[Hit]) -> list[Hit]:
    """Hits re-ranked with the ``session`` factor (shown by --explain)."""
    if SESSION_WEIGHT <= 0 or len(hits) < 2:
        return hits
    best: dict[str, list[float]] = {}
    for hit in hits[:SESSION_POOL]:
        group = source_group(hit.doc.get("source") or {})
        if group is not None:
            best.setdefault(group, []).append(max(hit.composite, 0.0))
    totals = {g: sum(sorted(v, reverse=True)[:SESSION_TOP]) for g, v in best.items()}
    top = max(totals.values(), default=0.0)
    if top <= 0:
        return hits
    for hit in hits:
        group = source_group(hit.doc.get("source") or {})
        factor = 1.0 + SESSION_WEIGHT * totals.get(group or "", 0.0) / top
        hit.factors["session"] = factor
        hit.composite *= factor
        hit.score = final_score(hit.composite)
    hits.sort(key=lambda h: (-h.composite, h.id))
    return hits
