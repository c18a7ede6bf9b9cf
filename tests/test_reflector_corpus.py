"""Detection quality on a labelled corpus (tests/data/reflector_corpus.jsonl): developer
conversations, notes, commits and CI logs in five languages, each labelled with the rule
that should fire or "none" (nothing to learn).

A case is a hit when the expected rule is among the rules of the memories kept; every other
rule kept is a false positive (so a "none" case that yields anything counts against
precision). Cases with a ``split`` (heldout, blind2, blind3) were written in batches after
the rules and evaluated once before the rules learned from them; the figures are printed
per language and per split.
"""

from __future__ import annotations

import io
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from memx_cli.reflector import commit
from memx_cli.reflector.inputs import Reader
from memx_cli.reflector.llm import ChatClient
from memx_cli.reflector.pipeline import Item, Reflector, Settings, Stats
from memx_cli.reflector.scorer import scored

CORPUS = Path(__file__).parent / "data" / "reflector_corpus.jsonl"
RULES = ("ErrorFix", "RetrySuccess", "ConfigChange", "NewTool", "RepetitiveOp")


def load() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]


def predict(case: dict[str, Any], settings: Settings | None = None,
            client: ChatClient | None = None) -> tuple[list[Item], Stats]:
    reflector = Reflector(settings or Settings(), client)
    data = case["input"]
    if case["kind"] == "commit":
        found = commit.candidates(data["message"], [tuple(f) for f in data["files"]], "",
                                  data["diffs"])
        return reflector.items([scored(c) for c in found]), reflector.stats
    fmt = "json" if case["kind"] == "chat" else "text"
    text = json.dumps(data) if case["kind"] == "chat" else data
    reader = Reader(io.BytesIO(text.encode("utf-8")), fmt)
    return reflector.reflect(reader.turns()), reflector.stats


def evaluate(cases: list[dict[str, Any]]) -> dict[str, float]:
    tp = fp = fn = 0
    for case in cases:
        rules = {item.rule for item in predict(case)[0]}
        expected = case["expected"]
        tp += expected in rules
        fp += len(rules - {expected})
        fn += expected != "none" and expected not in rules
    return {"cases": len(cases), "tp": tp, "fp": fp, "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0}


def test_corpus_is_big_enough_and_well_formed() -> None:
    cases = load()
    assert len(cases) >= 60
    langs = defaultdict(int)
    for case in cases:
        assert case["expected"] in (*RULES, "none"), case["id"]
        assert case["kind"] in ("chat", "text", "ci", "commit"), case["id"]
        langs[case["lang"]] += 1
    assert langs["en"] >= 20 and langs["zh"] >= 20
    assert {"ja", "ko", "fr"} <= set(langs)
    assert all(any(c["expected"] == rule for c in cases) for rule in RULES)
    assert len({c["id"] for c in cases}) == len(cases)


def test_precision_and_recall_reach_the_targets() -> None:
    cases = load()
    overall = evaluate(cases)
    print(f"\nReflector detection on {overall['cases']} cases: precision "
          f"{overall['precision']:.2f}, recall {overall['recall']:.2f}")
    for lang in ("en", "zh", "ja", "ko", "fr"):
        part = evaluate([c for c in cases if c["lang"] == lang])
        print(f"  {lang}: {part['cases']} cases, precision {part['precision']:.2f}, "
              f"recall {part['recall']:.2f}")
    for split in ("heldout", "blind2", "blind3"):
        part = evaluate([c for c in cases if c.get("split") == split])
        print(f"  {split}: {part['cases']} cases, precision {part['precision']:.2f}, "
              f"recall {part['recall']:.2f}")
        assert part["precision"] >= 0.9 and part["recall"] >= 0.9, split
    # The targets of issue 4 are 0.85 / 0.75; these are the figures actually reached (1.00
    # and 1.00 today), with a little room. First-sight figures of the later batches, before
    # the rules learned from them, are in docs/pipeline.md.
    assert overall["precision"] >= 0.97
    assert overall["recall"] >= 0.95


def test_chit_chat_yields_nothing() -> None:
    for text in ("thanks!", "ok", "okay, thank you", "谢谢！", "好的", "merci !", "감사합니다",
                 "ありがとう", "lgtm", "👍"):
        items, stats = predict({"kind": "text", "input": text})
        assert (items, stats.candidates) == ([], 0), text
