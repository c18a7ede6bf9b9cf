"""How well the semantic layer alone finds Chinese memories from paraphrased queries
(issue 16). bench/data/zh_paraphrase.json holds developer memories in Chinese (some mixed
with English terms), each with a query that says the same thing in other words, in four
parts: ``pairs`` (25) and ``held_out`` (5) from the first session, ``pairs_2`` (20) and
``held_out_2`` (10) added in the second; all were written before any measurement. Every
query is embedded and ranked by cosine against all memories of all parts; the figures are
the share of a part's queries whose own memory is first, and in the first five.

The held-out parts are for the end of a change: tune on ``pairs`` and ``pairs_2`` only.

    python bench/zh_paraphrase.py [MODEL_DIR ...]   # dev parts; default: the bundled model
    python bench/zh_paraphrase.py --misses [MODEL_DIR]   # also list the dev misses
    python bench/zh_paraphrase.py --held-out [MODEL_DIR]   # all parts (at the end only)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "zh_paraphrase.json"
PARTS = ("pairs", "pairs_2", "held_out", "held_out_2")
DEV = ("pairs", "pairs_2")


def ranks(model_dir: Path | None) -> dict[str, list[int]]:
    """Per part, the rank of each query's own memory among all memories of the set."""
    from memx_cli.embed import BUNDLED, StaticEncoder, load_encoder

    encoder = load_encoder(BUNDLED) if model_dir is None else StaticEncoder(model_dir)
    data = json.loads(DATA.read_text(encoding="utf-8"))
    pool = [p["memory"] for part in PARTS for p in data[part]]
    memories = encoder.encode(pool)
    found: dict[str, list[int]] = {}
    for part in PARTS:
        mine = data[part]
        queries = encoder.encode([p["query"] for p in mine])
        sims = queries @ memories.T
        own = [pool.index(p["memory"]) for p in mine]
        found[part] = [int((sims[i] > sims[i, j]).sum()) + 1 for i, j in enumerate(own)]
    return found


def row(label: str, part: str, found: list[int]) -> str:
    top1 = sum(r == 1 for r in found) / len(found)
    top5 = sum(r <= 5 for r in found) / len(found)
    return f"| {label} | {part} ({len(found)}) | {top1:.2f} | {top5:.2f} |"


def main(argv: list[str]) -> int:
    misses = "--misses" in argv
    held_out = "--held-out" in argv
    models = [Path(a) for a in argv if not a.startswith("--")]
    print("| model | part | top-1 | top-5 |\n|---|---|---|---|")
    for model in models or [None]:
        label = str(model or "bundled")
        found = ranks(model)
        for part in PARTS if held_out else DEV:
            print(row(label, part, found[part]))
        print(row(label, "dev = pairs + pairs_2", found["pairs"] + found["pairs_2"]))
        if held_out:
            print(row(label, "held-out = both held-out parts", found["held_out"] + found["held_out_2"]))
        if misses:
            data = json.loads(DATA.read_text(encoding="utf-8"))
            for part in DEV:
                for pair, rank in zip(data[part], found[part]):
                    if rank > 5:
                        print(f"  miss {part}: rank {rank}: {pair['query']} -> {pair['memory']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
