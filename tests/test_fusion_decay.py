"""The Generator's formulas (SPEC 3.4) and the forgetting curve (SPEC 3.3)."""

from __future__ import annotations

import pytest

from memx_cli.decay.curve import DecayParams, decay_weight
from memx_cli.generator.fusion import (
    Weights,
    blended,
    composite,
    final_score,
    norm_keyword,
    recency_factor,
    rrf,
)
from memx_cli.textproc import cjk_bigrams, estimate_tokens, query_terms


def test_spec_worked_example_holds_exactly() -> None:
    nk = norm_keyword(8, 5, 3, full_score=35)
    assert round(nk, 3) == 0.457
    blend = blended(nk, 0.72, Weights())
    assert round(blend, 3) == 0.562
    # The spec rounds each step to three decimals: 0.562 x 0.89 x 1.0 x 1.3 = 0.650.
    assert round(final_score(composite(0.562, 0.89, 1.0, 1.3)), 3) == 0.650
    # Unrounded, the same chain gives 0.6506: equal to the spec's figure within its rounding.
    assert final_score(composite(blend, 0.89, 1.0, 1.3)) == pytest.approx(0.650, abs=1e-3)


def test_keyword_saturates_and_no_vector_means_keyword_only() -> None:
    assert norm_keyword(30, 20, 10, 35) == 1.0
    assert blended(0.4, 0.9, Weights(), has_vector=False) == 0.4


def test_final_is_clamped_but_composite_keeps_order() -> None:
    a, b = composite(1.0, 1.0, 1.2, 1.5), composite(1.0, 1.0, 1.0, 1.5)
    assert final_score(a) == final_score(b) == 1.0
    assert a > b


def test_recency_boost_falls_linearly_to_zero_at_seven_days() -> None:
    assert recency_factor(0, 7, 0.2) == pytest.approx(1.2)
    assert recency_factor(3.5, 7, 0.2) == pytest.approx(1.1)
    assert recency_factor(7, 7, 0.2) == 1.0
    assert recency_factor(30, 7, 0.2) == 1.0


def test_rrf() -> None:
    assert rrf([1, 1]) == pytest.approx(2 / 61)
    assert rrf([None, 3]) == pytest.approx(1 / 63)


@pytest.mark.parametrize(
    ("age", "recalls", "weight"),
    [(0, 0, 1.0), (30, 0, 0.5), (60, 0, 0.25), (30, 5, 0.75), (90, 15, 1.0)],
)
def test_decay_worked_examples(age: float, recalls: int, weight: float) -> None:
    assert decay_weight(age, recalls) == pytest.approx(weight, abs=1e-12)


def test_decay_protection_and_weibull_shape() -> None:
    assert decay_weight(7, 0) == 1.0
    assert decay_weight(7.5, 0) < 1.0
    slow = DecayParams(shape=0.5)
    assert decay_weight(120, 0, slow) > decay_weight(120, 0)


def test_cjk_bigrams_and_token_estimates() -> None:
    assert cjk_bigrams("超时时间").split() == ["超时", "时时", "时间"]
    assert query_terms("数据库连接池") == ["数据", "据库", "库连", "连接", "接池"]
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("连接池大小") == 3


def test_query_terms_drop_stop_words_but_never_everything() -> None:
    assert query_terms("What did Caroline research?") == ["caroline", "research"]
    assert query_terms("what is it") == ["what", "is", "it"]
    assert query_terms("REDIS_URL in tests/conftest.py") == ["redis", "url", "tests", "conftest", "py"]
