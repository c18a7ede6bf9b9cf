"""The fast memory-file writer (issue 15) writes exactly what YAML's emitter writes, and
what it writes reads back as the same data; outside its shape it steps aside."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from memx_cli import safeyaml
from memx_cli.store import emit
from memx_cli.store import memory as memfmt
from memx_cli.store.records import build

# Pieces that meet every rule of the emitter: indicators, quotes, words YAML reads as
# something else than text, characters at the edges of its printable set, spaces in runs.
PIECES = [
    "deploy", "the", "cache", "x", "Fix", "a", "é", "ß", "用", "缓存失效", "ｱ", "\u00a0",
    " ", " ", " ", "  ", "   ", ": ", ":", " #", "#", "'", "''", '"', "-", "- ", "?", "? ",
    "---", "...", "`", "|", ">", "%", "@", "&", "*", "!", ",", "[", "]", "{", "}", "=",
    "<<", "~", "yes", "No", "ON", "off", "true", "False", "null", "Null", "123", "-7",
    "1.5", "1e5", ".inf", "-.Inf", ".NaN", "0x1F", "0o17", "017", "1_000", "12:30:00",
    "2026-01-02", "2026-01-02T10:00:00Z", "1:20", "+1", "y", "n", "\\", "/", "(see x)",
    "\t", "\n", "\r", "\x85", "\u2028", "\ufeff", "\ufffd", "\ufffe", "\x7f", "\x01",
    "😀", "\U00010348", "\ue000", "\ud7ff",
]
KEYS = ["type", "session", "dia_id", "speaker", "url", "yes", "null", "on", "Key", "_x",
        "x" * 64, "true", "n", "note", "path"]
ODD_KEYS = ["a b", "1", "x" * 70, "k-v", "ünï", "~"]


def _text(rng: random.Random, pieces: list[str]) -> str:
    size = rng.choice([1, 1, 2, 3, 5, 8, 20, 40, 80])
    return "".join(rng.choice(pieces) for _ in range(size))


def _scalar(rng: random.Random, pieces: list[str]) -> Any:
    roll = rng.random()
    if roll < 0.7:
        return _text(rng, pieces)
    if roll < 0.97:
        return rng.choice([0, 7, -3, 10**20, True, False, None, 0.6, -12.5, 0.1, -0.0, 3.0])
    return rng.choice([1e16, 1e-7, 2.5e-3, float("inf"), ""])


def _value(rng: random.Random, pieces: list[str]) -> Any:
    roll = rng.random()
    if roll < 0.6:
        return _scalar(rng, pieces)
    if roll < 0.8:
        return [_scalar(rng, pieces) for _ in range(rng.choice([0, 1, 1, 2, 5]))]
    inner: dict[str, Any] = {}
    for _ in range(rng.choice([0, 1, 1, 2, 4])):
        key = rng.choice(ODD_KEYS if rng.random() < 0.03 else KEYS)
        inner[key] = _value(rng, pieces) if rng.random() < 0.03 else _scalar(rng, pieces)
    return inner


def _record(rng: random.Random, pieces: list[str]) -> dict[str, Any]:
    names = ["content", "source", "tags", "created_at", "confidence", *KEYS]
    return {name: _value(rng, pieces) for name in rng.sample(names, rng.randint(1, 6))}


def _same(a: Any, b: Any) -> bool:
    """Equal, with types (1 is not True, 1.0 is not 1) and nan equal to nan."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


@pytest.mark.parametrize(("pieces", "least"), [(PIECES, 800), (PIECES[:24], 2500)],
                         ids=["all", "usual"])
def test_fast_writer_equals_the_emitter_on_generated_records(pieces: list[str],
                                                             least: int) -> None:
    rng = random.Random(len(pieces))
    fast = 0
    for _ in range(10_000):
        data = _record(rng, pieces)
        text = emit.dump(data)
        if text is None:
            continue
        fast += 1
        assert text == memfmt.yaml_dump(data), data
        assert _same(safeyaml.loads(text), data), data
    assert fast >= least  # the fast path is taken, not stepped around


def test_long_text_folds_as_the_emitter_folds() -> None:
    rng = random.Random(3)
    words = ["a", "bb", "cache", "invalidation", "用户", "x" * 30, "'q'", "k: v", "#1"]
    for width in range(1, 400, 3):
        text = " ".join(rng.choice(words) for _ in range(width))
        for data in ({"content": text}, {"source": {"dia_id": text}}, {"tags": [text]},
                     {"created_at": text, "a_much_longer_key_name": text}):
            fast = emit.dump(data)
            assert fast is not None
            assert fast == memfmt.yaml_dump(data)
            assert safeyaml.loads(fast) == data


def test_usual_memories_take_the_fast_path_and_dump_the_same_bytes() -> None:
    rng = random.Random(5)
    for n in range(300):
        mem = build(_text(rng, PIECES[:12]) + " (see OPS-" + str(n) + ")",
                    tags=[f"t{n % 5}"], source={"type": "transcript", "session": f"s{n}"},
                    veracity="imported")
        data = mem.to_dict()
        assert emit.dump(data) is not None
        assert memfmt.dump(mem) == memfmt.yaml_dump(data).encode("utf-8")


@pytest.mark.parametrize("data", [
    {"content": "two\nlines"}, {"content": "tab\there"}, {"content": ""}, {"tags": []},
    {"source": {}}, {"source": {"nested": {"a": "b"}}}, {"content": "emoji 😀"},
    {"confidence": 1e16}, {"confidence": float("nan")}, {"a b": "x"},
    {"tags": ["x"] * (emit.MAX_VALUES + 1)}, {"content": "x " * emit.MAX_CHARS},
])
def test_outside_the_shape_the_emitter_writes(data: dict[str, Any]) -> None:
    assert emit.dump(data) is None
    assert memfmt.dump_data(data) == memfmt.yaml_dump(data)
