"""How well the semantic layer alone finds Chinese memories from paraphrased queries
(issue 16): bench/data/zh_paraphrase.json holds 25 developer memories in Chinese, each
with a query that says the same thing in other words, plus 5 held-out pairs. Every
query is embedded and ranked against all 30 memories by cosine; the figures are the
share of queries of each part whose memory is first, and in the first five.

    python bench/zh_paraphrase.py [MODEL_DIR ...]   # default: the bundled model
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "zh_paraphrase.json"


def ranks(model_dir: Path | None, part: str) -> list[int]:
    """The rank of each query's own memory of ``part`` among all memories."""
    from memx_cli.embed import BUNDLED, StaticEncoder, load_encoder

    encoder = load_encoder(BUNDLED) if model_dir is None else StaticEncoder(model_dir)
    data = json.loads(DATA.read_text(encoding="utf-8"))
    pool = [p["memory"] for p in data["pairs"] + data["held_out"]]
    memories = encoder.encode(pool)
    mine = data[part]
    queries = encoder.encode([p["query"] for p in mine])
    sims = queries @ memories.T
    own = [pool.index(p["memory"]) for p in mine]
    return [int((sims[i] > sims[i, j]).sum()) + 1 for i, j in enumerate(own)]


def main(argv: list[str]) -> int:
    print("| model | part | top-1 | top-5 |\n|---|---|---|---|")
    for model in [Path(a) for a in argv] or [None]:
        for part in ("pairs", "held_out"):
            found = ranks(model, part)
            top1 = sum(r == 1 for r in found) / len(found)
            top5 = sum(r <= 5 for r in found) / len(found)
            print(f"| {model or 'bundled'} | {part} | {top1:.2f} | {top5:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
