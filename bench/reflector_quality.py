"""Blind quality of the Reflector on labelled batches (issue 13).

Each batch in ``tests/data/reflector_<name>.jsonl`` was written before the rules it
measures were changed: developer chats, notes, CI logs, commits and agent transcripts
(Claude Code and Codex JSONL, OpenAI-style function calls) in five languages, each with
the rule that should fire (or ``none``), the words its lesson must contain (what worked)
and must not contain (the failed attempt). ``heldout`` is measured only at the end.

    python bench/reflector_quality.py [BATCH ...] [--cases]

Figures per batch:
- precision: expected rules found / all rules kept (a ``none`` case that yields anything
  counts against it; rules listed in a case's ``also`` are neither required nor wrong)
- recall: positive cases whose expected rule was kept
- lesson: positive cases where a kept memory of the expected rule contains every ``must``
  word and no ``must_not`` word (case-insensitive); a missed case counts as a failure
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
DATA = REPO_ROOT / "tests" / "data"
BATCHES = ("blind1", "blind2", "blind3", "blind4", "heldout", "heldout2", "heldout3",
           "heldout4")
# improved on after their blind run
DEVELOPMENT = ("blind1", "blind2", "blind3", "blind4", "heldout3")
# Where each development batch was brought (precision, recall, lesson); the regression
# test holds them there. blind4's three misses are labels the rules read otherwise: two
# corrections stating a team rule ("ici on n'installe jamais …", "我们项目里统一用 dayjs")
# kept as Conventions where the label says Preference, and a fix the user rejected although
# it passed, which counts as no failed try (ErrorFix) where the label says RetrySuccess.
# heldout3 was measured once (1.00 / 0.65 / 0.55) and then tuned on for the outcome read
# from evidence (evidence.py): its misses were confirmations no word list had.
BROUGHT = {"blind1": (1.0, 1.0, 1.0), "blind2": (1.0, 1.0, 1.0), "blind3": (1.0, 1.0, 1.0),
           "blind4": (1.0, 0.91, 0.91), "heldout3": (1.0, 0.90, 0.85)}
# heldout4, written blind before evidence.py and measured once at the end: held as a floor,
# never tuned on.
# heldout4: first sight 0.94 / 0.55 / 0.52; at the end 0.95 / 0.66 / 0.66, and 0.95 / 0.66
# / 0.62 once rebased on the privacy masker of the same day, which masked the edit of h4-22
# (`next-auth.d.ts: \`declare module ...\``) as a password; 0.66 again once a file's name
# was no longer read as a setting's (privacy/keys.py). 0.62 after evidence.covers stopped
# taking a command with other targets for a rerun (`pytest -k slow` after `pytest -k
# smoke`): h4-20's `terraform import` had passed as a rerun of `terraform apply` by that
# loose reading; it is now an ErrorFix with the same lesson, not the labelled RetrySuccess.
# Then 1.00 / 0.62 / 0.62: an assistant's setting change the user turns down is not kept
# (detector.py; heldout4's one false positive, noted by the helper that wrote it).
MEASURED_ONCE = {"heldout4": (1.00, 0.62, 0.62)}
# The figures each batch had at first sight (precision / recall / lesson), recorded before
# the rules learned from it: blind1 and blind2 (and heldout) on the Reflector of issue 4,
# blind3 after the first round of changes of issue 13; heldout2 was written after the
# rules were final and measured once. blind4 (51 cases) and heldout3 (30) were written blind
# on the Reflector of issue 13 (long agent sessions, corrections, late or missing
# confirmations, eight languages) and measured before any change.
FIRST_SIGHT = {"blind1": "0.81 / 0.46 / 0.39", "blind2": "0.78 / 0.50 / 0.32",
               "blind3": "1.00 / 0.75 / 0.75", "heldout": "0.79 / 0.39 / 0.32",
               "heldout2": "0.93 / 0.96 / 0.96", "blind4": "1.00 / 0.32 / 0.21",
               "heldout3": "1.00 / 0.45 / 0.40", "heldout4": "0.94 / 0.55 / 0.52"}


def load(batch: str) -> list[dict[str, Any]]:
    path = DATA / f"reflector_{batch}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def predict(case: dict[str, Any]) -> list[Any]:
    """The items the Reflector (rules mode) keeps for one case."""
    from memx_cli.reflector import commit
    from memx_cli.reflector.inputs import Reader
    from memx_cli.reflector.pipeline import Reflector, Settings
    from memx_cli.reflector.scorer import scored

    reflector = Reflector(Settings())
    data = case["input"]
    if case["kind"] == "commit":
        found = commit.candidates(data["message"], [tuple(f) for f in data["files"]], "",
                                  data["diffs"])
        return reflector.items([scored(c) for c in found])
    if case["kind"] == "jsonl":
        raw, fmt = "\n".join(json.dumps(r, ensure_ascii=False) for r in data), "jsonl"
    elif case["kind"] == "chat":
        raw, fmt = json.dumps(data, ensure_ascii=False), "json"
    else:
        raw, fmt = data, "text"
    return reflector.reflect(Reader(io.BytesIO(raw.encode("utf-8")), fmt).turns())


def lesson_ok(case: dict[str, Any], items: list[Any]) -> bool:
    for item in items:
        if item.rule != case["expected"]:
            continue
        text = item.content.lower()
        if all(w.lower() in text for w in case["must"]) and \
                not any(w.lower() in text for w in case["must_not"]):
            return True
    return False


def evaluate(cases: list[dict[str, Any]]) -> dict[str, Any]:
    tp = fp = fn = lessons = positives = 0
    misses: list[str] = []
    for case in cases:
        items = predict(case)
        rules = {item.rule for item in items}
        expected = case["expected"]
        allowed = {expected, *case.get("also", ())}
        wrong = rules - allowed
        fp += len(wrong)
        if expected != "none":
            positives += 1
            hit = expected in rules
            tp += hit
            fn += not hit
            good = lesson_ok(case, items)
            lessons += good
            if not hit:
                misses.append(f"{case['id']}: missed {expected}")
            elif not good:
                kept = " | ".join(i.content for i in items if i.rule == expected)
                misses.append(f"{case['id']}: lesson lacks {case['must']} or has "
                              f"{case['must_not']}: {kept[:160]}")
        if wrong:
            misses.append(f"{case['id']}: wrongly kept {sorted(wrong)}")
    return {"cases": len(cases), "positives": positives, "tp": tp, "fp": fp, "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0,
            "lesson": lessons / positives if positives else 1.0, "misses": misses}


def rows(batches: tuple[str, ...] = DEVELOPMENT) -> list[tuple[str, str, str]]:
    out = []
    for batch in batches:
        found = evaluate(load(batch))
        now = f"{found['precision']:.2f} / {found['recall']:.2f} / {found['lesson']:.2f}"
        out.append((f"Reflector batch {batch} ({found['cases']} cases, {found['positives']} to "
                    "learn): precision / recall / lesson",
                    f"{now} (first sight {FIRST_SIGHT.get(batch, 'not recorded')})",
                    "≥ 0.90 / ≥ 0.85 / ≥ 0.85 blind"))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("batches", nargs="*", default=list(BATCHES))
    parser.add_argument("--cases", action="store_true", help="list each miss")
    args = parser.parse_args()
    for batch in args.batches:
        found = evaluate(load(batch))
        print(f"{batch:<8} {found['cases']} cases: precision {found['precision']:.2f}  "
              f"recall {found['recall']:.2f}  lesson {found['lesson']:.2f}  "
              f"(tp {found['tp']}, fp {found['fp']}, fn {found['fn']})")
        if args.cases:
            for line in found["misses"]:
                print("   ", line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
