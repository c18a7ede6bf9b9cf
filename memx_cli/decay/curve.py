"""The forgetting curve (SPEC 3.3) as pure functions of age and recalls."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from memx_cli.clock import parse_timestamp


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


@dataclass(frozen=True)
class DecayCurves:
    """The default curve plus one per ``memory_type`` (SPEC 3.3, ``ace.decay.types``).

    A type's curve is a Weibull ``exp(-(t/scale)^shape)``; it may be given by its scale
    or by its half-life (``scale = half_life / ln 2``, exact for shape 1). Protection,
    recall boost and the permanent threshold are shared by every type.
    """

    default: DecayParams = DecayParams()
    types: Mapping[str, DecayParams] = field(default_factory=dict)

    @classmethod
    def from_config(cls, cfg: object) -> DecayCurves:
        from memx_cli.reflector.rules import decay_defaults

        base = DecayParams.from_config(cfg)
        # What the Reflector's rules write (decisions, conventions, preferences) fades
        # slowly unless the configuration says otherwise (rules.Rule.half_life).
        types = {name: replace(base, half_life=days) for name, days in decay_defaults().items()}
        for name, curve in cfg.get("ace.decay.types").items():  # type: ignore[attr-defined]
            half_life = curve["half_life"] if "half_life" in curve else curve["scale"] * math.log(2)
            types[name] = replace(base, half_life=half_life, shape=curve.get("shape", 1.0))
        return cls(base, types)

    def params(self, memory_type: str | None) -> DecayParams:
        return self.types.get(memory_type or "", self.default)

    def weight(self, memory_type: str | None, age_days: float, recall_count: int,
               expired: bool = False) -> float:
        """The decay weight; 0.0 once ``valid_until`` has passed (a hard expiry)."""
        if expired:
            return 0.0
        return decay_weight(age_days, recall_count, self.params(memory_type))


def age_days(record: Mapping[str, object], moment: datetime) -> float:
    """Days since the memory last changed (``updated_at``: written, merged with a new
    mention, edited or restored), the age the forgetting curve counts."""
    stamp = record.get("updated_at") or record["created_at"]
    return (moment - parse_timestamp(str(stamp))).total_seconds() / 86400


def is_expired(record: Mapping[str, object], moment: datetime) -> bool:
    until = record.get("valid_until")
    return bool(until) and parse_timestamp(str(until)) <= moment
