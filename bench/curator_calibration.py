"""Calibrate the Curator's duplicate threshold on STS and SICK (SPEC 3.2, data/README.md).

    python bench/curator_calibration.py

``run()`` returns the table rows as ``(figure, value, target)`` string triples
(``HEADER`` names the columns, ``table()`` renders Markdown), so bench/run.py can print
them beside its other tables. It reads ``../shared/data/sts/`` relative to the
repository root; when the folder is absent it returns one row saying so.

Figures, with the bundled model (cosine) and without it (Jaccard):
- the similarity distribution of STS-dev pairs with gold >= 4.5 (paraphrases: should
  merge) against pairs with gold < 3 (different statements: must not);
- how many of each would be merged at several thresholds, through the Curator's own
  rules (contradiction first, then the duplicate guards);
- on SICK_trial, how many CONTRADICTION pairs would be merged as duplicates (target:
  none) and how many the contradiction rules flag.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
STS_DIR = REPO_ROOT.parent / "shared" / "data" / "sts"
HEADER = ("figure", "value", "target")
THRESHOLDS = (0.85, 0.88, 0.9, 0.92, 0.95)
Row = tuple[str, str, str]
Pair = tuple[float, str, str]  # (gold score, sentence a, sentence b)


def read_sts(path: Path) -> list[Pair]:
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if len(cols) >= 7:
            pairs.append((float(cols[4]), cols[5], cols[6]))
    return pairs


def read_sick(path: Path) -> list[tuple[str, str, str]]:
    rows = path.read_text(encoding="utf-8").splitlines()[1:]
    return [(c[1], c[2], c[4]) for c in (r.split("\t") for r in rows) if len(c) >= 5]


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def _spread(values: Sequence[float]) -> str:
    return (f"mean {statistics.fmean(values):.3f}, median {statistics.median(values):.3f}, "
            f"p5 {_pct(values, 0.05):.3f}, p95 {_pct(values, 0.95):.3f}, "
            f"max {max(values):.3f}")


def _scores(similarity: object, pairs: Sequence[tuple[str, str]]) -> list[float]:
    from memx_cli.curator.similarity import Entry, word_set

    sim = similarity  # a memx_cli.curator.similarity.Similarity
    encoder = getattr(sim, "encoder", None)
    if encoder is None:
        return [sim.score(Entry(None, word_set(a)), Entry(None, word_set(b)))  # type: ignore[attr-defined, arg-type]
                for a, b in pairs]
    va = encoder.encode([a for a, _ in pairs])
    vb = encoder.encode([b for _, b in pairs])
    return [max(0.0, min(1.0, float(x @ y))) for x, y in zip(va, vb)]


def verdict(a: str, b: str, sim: float, similarity: object, threshold: float) -> str:
    """What the Curator would do with b written after a: flag, merge or add."""
    from memx_cli.curator import Settings, is_duplicate
    from memx_cli.curator.contradiction import detect

    settings = Settings(dedup_threshold=threshold)
    if sim >= settings.band[0] and detect(a, b) is not None:
        return "flag"
    if is_duplicate(a, b, sim, similarity, settings):  # type: ignore[arg-type]
        return "merge"
    return "add"


def _method_rows(name: str, similarity: object, sts: list[Pair],
                 sick: list[tuple[str, str, str]]) -> list[Row]:
    sims = _scores(similarity, [(a, b) for _, a, b in sts])
    high = [(s, p) for s, p in zip(sims, sts) if p[0] >= 4.5]
    low = [(s, p) for s, p in zip(sims, sts) if p[0] < 3]
    rows: list[Row] = [
        (f"{name}: STS gold ≥ 4.5 (n={len(high)})", _spread([s for s, _ in high]), ""),
        (f"{name}: STS gold < 3 (n={len(low)})", _spread([s for s, _ in low]), ""),
    ]
    contra = [(a, b) for a, b, label in sick if label == "CONTRADICTION"]
    sick_sims = _scores(similarity, contra)
    rows.append((f"{name}: similarity alone ≥ 0.9 (no contradiction check, no guards)",
                 f"gold ≥ 4.5: {sum(s >= 0.9 for s, _ in high)}/{len(high)}; gold < 3: "
                 f"{sum(s >= 0.9 for s, _ in low)}/{len(low)}; SICK contradictions: "
                 f"{sum(s >= 0.9 for s in sick_sims)}/{len(contra)}", ""))
    for threshold in THRESHOLDS:
        merged_high = sum(verdict(p[1], p[2], s, similarity, threshold) == "merge" for s, p in high)
        merged_low = sum(verdict(p[1], p[2], s, similarity, threshold) == "merge" for s, p in low)
        merged_contra = sum(verdict(a, b, s, similarity, threshold) == "merge"
                            for (a, b), s in zip(contra, sick_sims))
        rows.append((f"{name}: merged at dedup_threshold {threshold:g}",
                     f"gold ≥ 4.5: {merged_high}/{len(high)}; gold < 3: {merged_low}/{len(low)}; "
                     f"SICK contradictions: {merged_contra}/{len(contra)}",
                     "SICK contradictions: 0"))
    flagged = sum(verdict(a, b, s, similarity, 0.9) == "flag"
                  for (a, b), s in zip(contra, sick_sims))
    others = [(a, b) for a, b, label in sick if label != "CONTRADICTION"]
    false = sum(verdict(a, b, s, similarity, 0.9) == "flag"
                for (a, b), s in zip(others, _scores(similarity, others)))
    rows.append((f"{name}: SICK pairs flagged as contradictions",
                 f"CONTRADICTION {flagged}/{len(contra)}; ENTAILMENT or NEUTRAL "
                 f"{false}/{len(others)}", ""))
    return rows


def run(data_dir: Path = STS_DIR) -> list[Row]:
    sts_file, sick_file = data_dir / "sts-dev.csv", data_dir / "SICK_trial.txt"
    if not sts_file.is_file() or not sick_file.is_file():
        return [("curator calibration", f"skipped: {data_dir} is not present", "")]
    from memx_cli.curator.similarity import Similarity
    from memx_cli.embed import load_encoder

    sts, sick = read_sts(sts_file), read_sick(sick_file)
    rows = _method_rows("cosine (bundled model)", Similarity(load_encoder(None)), sts, sick)
    rows += _method_rows("Jaccard (no model)", Similarity(None), sts, sick)
    return rows


def table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.path.insert(0, str(REPO_ROOT))
    print("## Curator calibration: STS dev and SICK trial\n")
    print(table(run()))
