"""The Curator on labelled memory pairs (issue 12): does it keep every contradiction?

    python bench/curator_pairs.py [--heldout] [--set NAME ...] [--no-model] [--show-errors]

Each line of tests/data/curator_pairs.jsonl (tuning) and curator_pairs_heldout.jsonl
(held out: measured only to report) names an older memory, a newer one and what the
Curator should do with the newer: ``skip`` (near-identical), ``merge`` (a paraphrase),
``supersede`` (a contradiction that states a change), ``conflict`` (a contradiction
without one) or ``independent`` (added beside the old one).

Every pair goes through the real write path: a fresh store in a temporary git
repository, the old memory written, then the new one; the write's action is the
Curator's answer. Figures per category: exact accuracy; accuracy with skip and merge
counted as one decision (both keep one memory and count a mention); and "lost"
contradictions (a supersede or conflict pair that was skipped, merged or added), split
into those skipped or merged (the text is gone: must be 0) and those added beside the old.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA = REPO_ROOT / "tests" / "data"
FILES = {"tuning": DATA / "curator_pairs.jsonl", "held-out": DATA / "curator_pairs_heldout.jsonl",
         "dev2": DATA / "curator_pairs_dev2.jsonl",
         "heldout2": DATA / "curator_pairs_heldout2.jsonl",
         "names-dev": DATA / "curator_pairs_names_dev.jsonl",
         "names-heldout": DATA / "curator_pairs_names_heldout.jsonl",
         "ids-dev": DATA / "curator_pairs_idvalues_dev.jsonl",
         "ids-heldout": DATA / "curator_pairs_idvalues_heldout.jsonl"}
ACTIONS = {"added": "independent", "skipped": "skip", "merged into": "merge",
           "supersedes": "supersede", "conflicts with": "conflict"}
CONTRADICTIONS = ("supersede", "conflict")
DUPLICATE = {"skip": "duplicate", "merge": "duplicate"}
Row = tuple[str, str, str, str]


def read_pairs(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def decide_all(pairs: Sequence[dict[str, str]], model: bool) -> list[str]:
    """The Curator's decision for each pair, through ``operations.write``."""
    from common import isolated_env

    from memx_cli.operations.write import write
    from memx_cli.store.records import build
    from memx_cli.store.repo import Repo, init

    got = []
    with tempfile.TemporaryDirectory() as tmp, isolated_env(tmp):
        root = Path(tmp) / "repo"
        root.mkdir()
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
        overrides = {} if model else {"embedding.model": str(Path(tmp) / "no-model")}
        repo = Repo(root, overrides)
        init(repo)
        for pair in pairs:
            shutil.rmtree(repo.store.root / "memories", ignore_errors=True)
            (repo.store.root / "memories").mkdir()
            write(repo, [build(pair["old"], created_at="2026-01-01T00:00:00Z")])
            [result] = write(repo, [build(pair["new"])])
            got.append(ACTIONS[result.action])
    return got


def _pct(right: int, n: int) -> str:
    return f"{right}/{n} ({100 * right / n:.0f}%)"


def score(pairs: Sequence[dict[str, str]], got: Sequence[str]) -> list[Row]:
    """One row per category and a total: exact accuracy, accuracy with skip = merge, and
    contradictions lost (skipped or merged + added)."""
    by_cat: dict[str, list[tuple[str, str]]] = {}
    for pair, answer in zip(pairs, got):
        by_cat.setdefault(pair["category"], []).append((pair["expected"], answer))
        by_cat.setdefault("all", []).append((pair["expected"], answer))
    rows = []
    for cat, items in by_cat.items():
        right = sum(e == a for e, a in items)
        same = sum(DUPLICATE.get(e, e) == DUPLICATE.get(a, a) for e, a in items)
        contra = [a for e, a in items if e in CONTRADICTIONS]
        gone = sum(a in DUPLICATE for a in contra)
        added = sum(a == "independent" for a in contra)
        lost = f"{gone} + {added} / {len(contra)}" if contra else "-"
        rows.append((cat, _pct(right, len(items)), _pct(same, len(items)), lost))
    return rows


def run(heldout: bool = False, model: bool = True, errors: list[str] | None = None,
        sets: Sequence[str] = ()) -> list[Row]:
    """Rows ``(category, exact, skip = merge, lost)`` for the named sets; by default
    tuning (and held-out)."""
    names = list(sets) or ["tuning", *(["held-out"] if heldout else [])]
    rows: list[Row] = []
    for name in names:
        pairs = read_pairs(FILES[name])
        got = decide_all(pairs, model)
        rows += [(f"{name}: {row[0]}", *row[1:]) for row in score(pairs, got)]
        if errors is not None:
            errors += [f"{p['id']}: expected {p['expected']}, got {a}: {p['old']!r} -> "
                       f"{p['new']!r}" for p, a in zip(pairs, got) if a != p["expected"]]
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--heldout", action="store_true", help="also measure the held-out file")
    parser.add_argument("--set", action="append", choices=sorted(FILES), dest="sets",
                        help="measure this set (repeatable); default: tuning (+ held-out)")
    parser.add_argument("--no-model", action="store_true", help="without the embedding model")
    parser.add_argument("--show-errors", action="store_true")
    args = parser.parse_args(argv)
    errors: list[str] = []
    rows = run(args.heldout, not args.no_model, errors, args.sets or ())
    method = "Jaccard (no model)" if args.no_model else "cosine (bundled model)"
    print(f"## Curator pairs, {method}\n")
    print("| category | exact | skip = merge | contradictions skipped or merged + added |\n"
          "|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if args.show_errors:
        print("\n" + "\n".join(errors))


if __name__ == "__main__":
    sys.path.insert(0, str(REPO_ROOT))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
