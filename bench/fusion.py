"""Blended vs polyphonic fusion of hybrid search on the LoCoMo dev split (issue 8).

Same protocol as the quality part of bench/run.py (whose functions it imports): every
turn of every conversation is one memory (`memx import --raw`), every category 1-4
question with evidence is searched, recall@1/5/10/25 is the share of evidence turns
found. Each fusion searches the same store through its own warm Searcher.

    python bench/fusion.py [--workdir DIR]   # DIR keeps the imported stores for reruns
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import (
    KS,
    LOCOMO_DIR,
    QUALITY_CONFIG,
    Quality,
    asked_at,
    conversation_turns,
    evidence_ids,
    isolate,
    log,
    memx,
    new_repo,
)

FUSIONS = ("blended", "polyphonic")
TARGETS = {5: 0.65, 10: 0.75}  # bench/run.py's hybrid targets; the default must keep them


def _store(path: Path, root: Path) -> tuple[Path, list[dict[str, Any]], dict[str, Any]]:
    import json

    conv = json.loads(path.read_text(encoding="utf-8"))
    records = conversation_turns(conv, path.stem)
    if not (root / ".memx").is_dir():
        new_repo(root)
        jsonl = root.parent / f"{path.stem}.jsonl"
        jsonl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                         encoding="utf-8")
        memx(root, "import", "--raw", str(jsonl))
        memx(root, "reindex")
    return root, records, conv


def measure(data_dir: Path, work: Path) -> dict[str, Quality]:
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    results = {f: Quality(recall={"hybrid": [[] for _ in KS]}, latency_ms={"hybrid": []})
               for f in FUSIONS}
    for path in sorted(data_dir.glob("*.json")):
        root, records, conv = _store(path, work / f"locomo-{path.stem}")
        log(f"{path.stem}: searching with each fusion")
        searchers = {}
        os.environ["MEMX_NOW"] = asked_at(records)
        for fusion in FUSIONS:
            repo = Repo.discover(root, {**QUALITY_CONFIG, "ace.retrieval.fusion": fusion})
            searchers[fusion] = Searcher(repo)
            searchers[fusion].search("warm up", mode="hybrid", record_recalls=False)
        known = {r["source"]["dia_id"] for r in records}
        for qa in conv["qa"]:
            if qa.get("category") not in (1, 2, 3, 4) or not qa.get("evidence"):
                continue
            for fusion, searcher in searchers.items():
                quality = results[fusion]
                gold = evidence_ids(qa["evidence"], known, known, quality)
                quality.questions += 1
                start = time.perf_counter()
                result = searcher.search(qa["question"], mode="hybrid", limit=max(KS),
                                         budget=10**6, record_recalls=False)
                quality.latency_ms["hybrid"].append((time.perf_counter() - start) * 1000)
                found = [h.doc.get("source", {}).get("dia_id") for h in result.hits]
                for slot, k in enumerate(KS):
                    quality.recall["hybrid"][slot].append(len(gold & set(found[:k])) / len(gold))
    os.environ.pop("MEMX_NOW", None)
    return results


def table(results: dict[str, Quality]) -> str:
    lines = ["| fusion | " + " | ".join(f"R@{k}" for k in KS) + " | p50 latency |",
             "|---|---|---|---|---|---|"]
    for fusion, q in results.items():
        means = [statistics.fmean(v) for v in q.recall["hybrid"]]
        lines.append(f"| {fusion} | " + " | ".join(f"{v:.3f}" for v in means)
                     + f" | {statistics.median(q.latency_ms['hybrid']):.1f} ms |")
    questions = next(iter(results.values())).questions
    lines.append(f"\n{questions} questions (LoCoMo dev, categories 1-4 with evidence).")
    return "\n".join(lines)


def run(workdir: Path | None = None) -> list[tuple[str, str, str]]:
    """Rows (figure, measured, target) for bench/run.py's pipeline table."""
    with tempfile.TemporaryDirectory(prefix="memx-fusion-") as name:
        tmp = Path(name)
        isolate(tmp / "home")
        results = measure(LOCOMO_DIR, workdir or tmp)
    rows = []
    for fusion, q in results.items():
        means = dict(zip(KS, (statistics.fmean(v) for v in q.recall["hybrid"])))
        rows.append((f"LoCoMo hybrid, {fusion} fusion: R@1 / R@5 / R@10 / R@25",
                     " / ".join(f"{means[k]:.3f}" for k in KS),
                     " / ".join(f"R@{k} ≥ {t:.2f}" for k, t in TARGETS.items())))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, help="keep the imported stores here")
    args = parser.parse_args()
    if not LOCOMO_DIR.is_dir():
        print(f"Skipped: {LOCOMO_DIR} is not present on this machine.")
        return 0
    with tempfile.TemporaryDirectory(prefix="memx-fusion-") as name:
        work = args.workdir.resolve() if args.workdir else Path(name)
        work.mkdir(parents=True, exist_ok=True)
        isolate(Path(name) / "home")
        print(table(measure(LOCOMO_DIR, work)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
