from __future__ import annotations

from memx_cli.store.ids import (
    ID_LENGTH,
    abbreviate,
    is_valid_id,
    new_id,
    normalize_prefix,
)


def test_ids_are_valid_unique_and_sort_by_creation_time() -> None:
    ids = [new_id(now_ms=1_700_000_000_000 + i // 10) for i in range(1000)]
    assert len(set(ids)) == 1000
    assert ids == sorted(ids)
    assert all(is_valid_id(i) and len(i) == ID_LENGTH for i in ids)
    assert new_id(now_ms=1_800_000_000_000) > ids[-1]


def test_ids_are_file_name_safe_lowercase() -> None:
    value = new_id()
    assert value == value.lower() and value.isalnum()


def test_abbreviate_is_unique_and_at_least_twelve() -> None:
    ids = ["01jdq3m5v8k2n4p6r8t0w2y4z6", "01jdq3m5v8k2n4p6r8t0w2y4z7", "01jdz00000000000000000000a"]
    short = abbreviate(ids)
    assert short[ids[2]] == ids[2][:12]
    assert short[ids[0]] == ids[0] and short[ids[1]] == ids[1]
    assert len(set(short.values())) == 3


def test_prefix_normalisation_accepts_upper_case_and_lookalikes() -> None:
    assert normalize_prefix(" 01JDQ3 ") == "01jdq3"
    assert normalize_prefix("O1IL") == "0111"


def test_ids_made_in_one_millisecond_still_abbreviate_short() -> None:
    ids = [new_id(now_ms=1_900_000_000_000) for _ in range(300)]
    assert ids == sorted(ids) and len(set(ids)) == 300
    # Like random ids: the closest of 300 share ~3 characters past the 10 of the time
    # (birthday bound), never the 25 a +1 step would give.
    assert max(len(v) for v in abbreviate(ids).values()) <= 16
