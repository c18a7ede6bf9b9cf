"""Leave-one-conversation-out tuning of retrieval constants on the LoCoMo dev split
(issue 16).

For a constant and a few candidate values, every value is measured on every
conversation (same protocol as bench/run.py's quality part: one memory per turn,
hybrid search, recall@k over the evidence turns). Then, for each conversation in turn,
the value with the best recall@10 on the OTHER conversations is chosen and measured on
the held-out one; the held-out figures, pooled over the questions, are the
leave-one-out figure. The fitted figure is the value that is best on all three. A new
constant is worth keeping only when its leave-one-out R@10 beats the current value's by
at least 0.01 (``GAIN``).

    python bench/loo.py [--workdir DIR] [--grid NAME ...] [--dated]   # DIR keeps the stores
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fusion import _store
from run import KS, LOCOMO_DIR, QUALITY_CONFIG, asked_at, isolate, log

GAIN = 0.01
# --dated: only the questions that name a date ("in May 2023", "last year"), the ones the
# date layer (generator/temporal.py) acts on.
DATED_ONLY = False
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "inference", 4: "single-hop"}
# name -> (what it sets, current value, values tried). What it sets is a module constant
# ("package.module.NAME"), one weight in a constant list of (name, weight) pairs
# ("package.module.NAME:name") or a configuration key ("config:KEY"); "config:A=1-B" sets
# key A to the value and key B to one minus it (a pair of weights that sum to one).
GRIDS: dict[str, tuple[str, Any, list[Any]]] = {
    "semantic_z": ("memx_cli.generator.candidates.SEMANTIC_Z", 1.5,
                   [0.0, 0.5, 1.0, 1.5, 2.0]),
    "noise_cosine": ("memx_cli.generator.candidates.NOISE_COSINE", 0.2, [0.0, 0.1, 0.2, 0.3, 0.45]),
    "semantic_weight": ("config:ace.retrieval.semantic_weight=1-ace.retrieval.keyword_weight",
                        0.4, [0.3, 0.35, 0.4, 0.45, 0.5]),
    "keyword_full_score": ("config:ace.retrieval.keyword_full_score", 35.0,
                           [25.0, 30.0, 35.0, 40.0, 50.0]),
    "candidates": ("memx_cli.generator.search.CANDIDATES", 30, [30]),
    # The metadata and context field weights (candidates.py), as the list search uses.
    "meta_weight": ("memx_cli.generator.search.LEXICAL_WEIGHTS:meta", 4.0, [2.0, 3.0, 4.0, 6.0, 8.0]),
    "exact_weight": ("memx_cli.generator.search.LEXICAL_WEIGHTS:exact", 0.5, [0.25, 0.5, 0.75, 1.0]),
    "stem_weight": ("memx_cli.generator.search.LEXICAL_WEIGHTS:stem", 0.5, [0.25, 0.5, 0.75, 1.0]),
    "context_weight": ("memx_cli.generator.search.LEXICAL_WEIGHTS:context", 0.75,
                       [0.5, 0.75, 1.0, 1.25]),
    # Dates in the query (generator/temporal.py); the current value of a new layer is
    # "off", so the gain printed is the layer's own.
    "date_boost": ("memx_cli.generator.temporal.DATE_BOOST", 0.0, [0.0, 0.1, 0.25, 0.5, 1.0]),
    # Second-pass layers measured and not kept (bench/second_pass.py), each off at 0.
    "prf_terms": ("second_pass.PRF_TERMS", 0, [0, 3, 5, 10, 20]),
    "rocchio": ("second_pass.ROCCHIO", 0.0, [0.0, 0.1, 0.25, 0.5, 1.0]),
    "neighbour": ("second_pass.NEIGHBOUR", 0.0, [0.0, 0.05, 0.1, 0.2, 0.4]),
    "near_penalty": ("second_pass.NEAR_PENALTY", 0.0, [0.0, 0.1, 0.2, 0.3, 0.5]),
    "late": ("second_pass.LATE", 0.0, [0.0, 0.1, 0.25, 0.5, 1.0]),
    "common_share": ("second_pass.COMMON_SHARE", 0.0,
                     [0.0, 0.02, 0.05, 0.1, 0.2]),
    "date_slack": ("memx_cli.generator.temporal.SLACK_DAYS", 7, [0, 3, 7, 14, 30]),
    # Issue 16: the optional multilingual-e5-small encoder against the bundled model (the
    # stores are embedded again when the model changes; needs memx-cli[multilingual]).
    "embedding_model": ("config:embedding.model", "bundled", ["bundled", "e5"]),
}
# One question's recall at each k, with its conversation and category.
Row = tuple[str, int, tuple[float, ...]]


@contextmanager
def setting(target: str, value: Any) -> Iterator[dict[str, Any]]:
    """Set ``target`` to ``value`` for the block; yields the configuration overrides."""
    if target.startswith("config:"):
        key, _, other = target[len("config:"):].partition("=1-")
        yield {key: value, **({other: round(1 - value, 6)} if other else {})}
        return
    target, _, field = target.partition(":")
    module_name, attr = target.rsplit(".", 1)
    module = importlib.import_module(module_name)
    saved = getattr(module, attr)
    if field:  # one entry of a list of (name, weight) pairs
        value = [(name, value if name == field else w) for name, w in saved]
    setattr(module, attr, value)
    try:
        if module_name == "second_pass":  # not in memx_cli: hooked in for the block
            with module.installed():
                yield {}
        else:
            yield {}
    finally:
        setattr(module, attr, saved)


def stores(work: Path, data_dir: Path) -> list[tuple[str, Path, dict[str, Any]]]:
    out = []
    for path in sorted(data_dir.glob("*.json")):
        root, records, conv = _store(path, work / f"locomo-{path.stem}")
        out.append((path.stem, root, {**conv, "asked_at": asked_at(records)}))
    return out


def measure(convs: list[tuple[str, Path, dict[str, Any]]],
            overrides: dict[str, Any]) -> list[Row]:
    from memx_cli.clock import parse_timestamp
    from memx_cli.generator.search import Searcher
    from memx_cli.generator.temporal import resolve
    from memx_cli.store.repo import Repo

    rows: list[Row] = []
    for stem, root, conv in convs:
        os.environ["MEMX_NOW"] = conv["asked_at"]
        searcher = Searcher(Repo.discover(root, {**QUALITY_CONFIG, **overrides}))
        for qa in conv["qa"]:
            if qa.get("category") not in CATEGORIES or not qa.get("evidence"):
                continue
            if DATED_ONLY and resolve(qa["question"], parse_timestamp(conv["asked_at"])) is None:
                continue
            gold = {p.strip() for item in qa["evidence"] for p in item.replace(";", ",").split(",")
                    if p.strip()}
            result = searcher.search(qa["question"], mode="hybrid", limit=max(KS),
                                     budget=10**6, record_recalls=False)
            found = [h.doc.get("source", {}).get("dia_id") for h in result.hits]
            rows.append((stem, qa["category"],
                         tuple(len(gold & set(found[:k])) / len(gold) for k in KS)))
    os.environ.pop("MEMX_NOW", None)
    return rows


def means(rows: list[Row]) -> tuple[float, ...]:
    return tuple(statistics.fmean(r[2][i] for r in rows) for i in range(len(KS)))


def leave_one_out(by_value: dict[Any, list[Row]]) -> tuple[list[Row], dict[str, Any]]:
    """The held-out rows of each conversation under the value best on the others."""
    stems = sorted({r[0] for rows in by_value.values() for r in rows})
    held: list[Row] = []
    chosen = {}
    r10 = KS.index(10)
    for stem in stems:
        best = max(by_value, key=lambda v: means([r for r in by_value[v] if r[0] != stem])[r10])
        chosen[stem] = best
        held += [r for r in by_value[best] if r[0] == stem]
    return held, chosen


def line(name: str, rows: list[Row]) -> str:
    cells = [" / ".join(f"{v:.3f}" for v in means(rows))]
    for cat in CATEGORIES:
        mine = [r for r in rows if r[1] == cat]
        cells.append(" / ".join(f"{v:.3f}" for v in means(mine)) if mine else "-")
    return f"| {name} | " + " | ".join(cells) + " |"


def report(name: str, current: Any, by_value: dict[Any, list[Row]]) -> list[str]:
    r10 = KS.index(10)
    fitted = max(by_value, key=lambda v: means(by_value[v])[r10])
    held, chosen = leave_one_out(by_value)
    out = [f"### {name}", "",
           "| value | all R@1/5/10/25 | " + " | ".join(CATEGORIES.values()) + " |",
           "|---|---|---|---|---|---|"]
    out += [line(f"{v}{' (current)' if v == current else ''}", rows)
            for v, rows in by_value.items()]
    out.append(line(f"leave-one-out ({', '.join(f'{s}: {v}' for s, v in chosen.items())})",
                    held))
    gain = means(held)[r10] - means(by_value[current])[r10]
    out += ["", f"fitted value {fitted} (R@10 {means(by_value[fitted])[r10]:.3f}); "
            f"leave-one-out R@10 {means(held)[r10]:.4f}, {gain:+.4f} over the current value: "
            + ("worth changing" if gain >= GAIN else "keep the current value"), ""]
    return out


# The grids bench/run.py prints beside its quality table: the constants of hybrid ranking.
DEFAULT_GRIDS = ("semantic_weight", "keyword_full_score", "semantic_z", "noise_cosine", "date_boost")


def run(work: Path, data_dir: Path = LOCOMO_DIR,
        grids: tuple[str, ...] | list[str] = DEFAULT_GRIDS) -> list[str]:
    """Markdown sections, one per grid (the conversations of ``data_dir`` are imported
    under ``work`` once)."""
    convs = stores(work, data_dir)
    out: list[str] = []
    for grid in grids:
        target, current, values = GRIDS[grid]
        by_value = {}
        for value in values:
            log(f"leave-one-out: {grid} = {value}")
            with setting(target, value) as overrides:
                by_value[value] = measure(convs, overrides)
        out += report(grid, current, by_value)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, help="keep the imported stores here")
    parser.add_argument("--grid", nargs="*", choices=sorted(GRIDS), help="grids to run")
    parser.add_argument("--dated", action="store_true",
                        help="only the questions that name a date")
    args = parser.parse_args()
    global DATED_ONLY
    DATED_ONLY = args.dated
    if not LOCOMO_DIR.is_dir():
        print(f"Skipped: {LOCOMO_DIR} is not present on this machine.")
        return 0
    with tempfile.TemporaryDirectory(prefix="memx-loo-") as name:
        work = args.workdir.resolve() if args.workdir else Path(name)
        work.mkdir(parents=True, exist_ok=True)
        isolate(Path(name) / "home")
        out = run(work, LOCOMO_DIR, args.grid or DEFAULT_GRIDS)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
