"""Scoring formulas of the Generator (SPEC 3.4), as pure functions."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Weights:
    keyword: float = 0.6
    semantic: float = 0.4
    full_score: float = 35.0


def norm_keyword(l1: float, l2: float, l3: float, full_score: float) -> float:
    """min((L1 + L2 + L3) / full_score, 1)."""
    return normalize_keyword(l1 + l2 + l3, full_score)


def normalize_keyword(total: float, full_score: float) -> float:
    """A keyword score already summed over the layers, on the 0-1 scale."""
    return min(total / full_score, 1.0)


def blended(keyword: float, semantic: float, weights: Weights, has_vector: bool = True) -> float:
    """keyword x 0.6 + semantic x 0.4; with no query vector the weights become 1.0 / 0.0."""
    if not has_vector:
        return keyword
    return keyword * weights.keyword + max(semantic, 0.0) * weights.semantic


def recency_factor(age_days: float, recency_days: float, max_boost: float) -> float:
    """Up to +max_boost for a memory created now, falling linearly to 0 at recency_days."""
    if recency_days <= 0 or age_days >= recency_days:
        return 1.0
    return 1.0 + max_boost * (1.0 - max(age_days, 0.0) / recency_days)


def composite(blend: float, decay: float, recency: float, scope: float,
              other: float = 1.0) -> float:
    """The unclamped product used for ranking (boosts still order saturated results)."""
    return blend * decay * recency * scope * other


def final_score(value: float) -> float:
    return min(max(value, 0.0), 1.0)


def rrf(ranks: list[int | None], k: float = 60.0) -> float:
    """Reciprocal rank fusion over 1-based ranks (None: not retrieved by that list)."""
    return sum(1.0 / (k + r) for r in ranks if r is not None)
