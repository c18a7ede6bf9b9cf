"""The forgetting curve (SPEC 3.3) as pure functions of age and recalls."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class DecayParams:
    half_life: float = 30.0          # days for the weight to halve without recalls
    boost_factor: float = 0.1        # boost per recall
    protection_days: float = 7.0     # weight fixed at 1.0 while age <= this
    permanent_threshold: int = 15    # recalls >= this: weight fixed at 1.0
    # Weibull shape; 1.0 is the exponential curve with scale half_life / ln 2 (SPEC 3.3).
    shape: float = 1.0

    @classmethod
    def from_config(cls, cfg: object) -> DecayParams:
        get = cfg.get  # type: ignore[attr-defined]
        return cls(
            half_life=float(get("ace.decay.half_life")),
            boost_factor=float(get("ace.decay.boost_factor")),
            protection_days=float(get("ace.decay.protection_days")),
            permanent_threshold=int(get("ace.decay.permanent_threshold")),
        )


def decay_weight(age_days: float, recall_count: int, params: DecayParams = DecayParams()) -> float:
    """weight = clamp(base x (1 + boost_factor x recalls), 0, 1), base = 2^(-age/half_life).

    The general curve is Weibull, exp(-(t/lambda)^k); k = 1 and lambda = half_life/ln 2
    give exactly 2^(-t/half_life).
    """
    if recall_count >= params.permanent_threshold or age_days <= params.protection_days:
        return 1.0
    scale = params.half_life / math.log(2)
    base = math.exp(-((max(age_days, 0.0) / scale) ** params.shape))
    return min(max(base * (1 + params.boost_factor * recall_count), 0.0), 1.0)
