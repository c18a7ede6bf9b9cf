"""The fast memory-file writer (issue 15) writes exactly what YAML's emitter writes, and
what it writes reads back as the same data; outside its shape it steps aside."""

from __future__ import annotations

import itertools
import math
import random
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# Issue 29: the fast writer answers "does this plain scalar read back as text?" itself
# where the first character makes it certain, and asks YAML's resolver otherwise.
_NEAR_WORDS = sorted({"".join(form) for word in ("yes", "no", "true", "false", "on",
                                                 "off", "null", "y", "n", "nul", "offf")
                      for form in itertools.product(*[(c.lower(), c.upper()) for c in word])})


@pytest.mark.parametrize("text", [*_NEAR_WORDS, *PIECES[:70], "yes please", "No.", "on-call",
                                  "Null pointer", "TRUE!", "ok", "o", "f", "t"])
def test_the_resolver_shortcut_agrees_with_yaml_on_the_awkward_words(text: str) -> None:
    if not text or "\n" in text:
        return
    assert emit._reads_as_text(text) == emit._yaml_reads_as_text(text)


@given(st.text(min_size=1, max_size=12).filter(lambda t: "\n" not in t and "\r" not in t))
@settings(max_examples=3000, deadline=None)
def test_the_resolver_shortcut_agrees_with_yaml(text: str) -> None:
    assert emit._reads_as_text.__wrapped__(text) == emit._yaml_reads_as_text(text)


@given(st.text(alphabet="yesnotrufalYESNOTRUFAL~<=!&*", min_size=1, max_size=6))
@settings(max_examples=3000, deadline=None)
def test_the_resolver_shortcut_agrees_with_yaml_near_its_words(text: str) -> None:
    assert emit._reads_as_text.__wrapped__(text) == emit._yaml_reads_as_text(text)


# numbers, dates and times: what they are made of, and a few characters they are not
_NUMBERISH = "0123456789+-._: \tabcdefABCDEFxtTZiInNoOkK"


@given(st.one_of(
    st.text(alphabet=_NUMBERISH, min_size=1, max_size=30),
    st.builds(lambda a, b: a + b, st.sampled_from(
        ["2026-01-02", "2026-1-2T10:00:00", "2025-11-02T02:37:08Z", "2025-11-02t02:37:08.25",
         "2025-11-02T02:37:08+01:00", "-12", "+0", "00", "2026-01-02 10:00:00.5 +01:00", "0x1F", "0b101",
         "017", "1_000", "12:30:00", "1:20.5", "-.Inf", ".NaN", "1.5e+3", "+7", "01k9"]),
        st.text(alphabet=_NUMBERISH, max_size=4))))
@settings(max_examples=5000, deadline=None)
def test_the_resolver_shortcut_agrees_with_yaml_on_numbers_and_times(text: str) -> None:
    assert emit._reads_as_text.__wrapped__(text) == emit._yaml_reads_as_text(text)


def test_every_first_character_yaml_resolves_is_one_the_shortcut_knows() -> None:
    import yaml

    table = yaml.resolver.Resolver.yaml_implicit_resolvers
    assert None not in table  # no resolver for any first character
    letters = {word[0] for word in emit._WORDS}
    for first in table:
        assert (first == "" or first in emit._NUMBER_FIRST or first in emit._WHOLE_FIRST
                or first in letters), first


def test_a_usual_memory_is_written_without_importing_yaml() -> None:
    code = ("import sys\n"
            "from memx_cli.store import memory\n"
            "from memx_cli.store.records import build\n"
            "mem = build('The deploy script needs the VPN (see OPS-12)', tags=['ops'],\n"
            "            source={'type': 'transcript', 'session': 's1'})\n"
            "text = memory.dump(mem)\n"
            "print('yaml' in sys.modules, len(text) > 0)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.split() == ["False", "True"]
