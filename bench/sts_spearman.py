"""English sentence similarity of an embedding model: Spearman correlation between the
cosine of each pair and its gold score, on STS-dev (1,500 pairs) and SICK trial
relatedness (500 pairs). A check that a model change (issue 16: Chinese rows) leaves
English meaning where it was.

    MEMX_BENCH_DATA=DIR python bench/sts_spearman.py [MODEL_DIR | e5 ...]   # default: bundled

``e5``: the optional encoder (memx_cli/e5.py), both sentences as memories (passages).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DATA = Path(os.environ.get("MEMX_BENCH_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def pairs(name: str) -> list[tuple[float, str, str]]:
    lines = (DATA / "sts" / name).read_text(encoding="utf-8").splitlines()
    if name.startswith("SICK"):  # header; pair_ID, sentence_A, sentence_B, relatedness_score, ...
        return [(float(c[3]), c[1], c[2]) for c in (line.split("\t") for line in lines[1:]) if len(c) >= 4]
    return [(float(c[4]), c[5], c[6]) for c in (line.split("\t") for line in lines) if len(c) >= 7]


def spearman(x: list[float], y: list[float]) -> float:
    import numpy as np

    def ranks(v: list[float]) -> object:
        order = np.argsort(v, kind="stable")
        r = np.empty(len(v))
        r[order] = np.arange(len(v))
        values = np.asarray(v)
        for value in np.unique(values):  # ties share their mean rank
            tied = values == value
            r[tied] = r[tied].mean()
        return r

    return float(np.corrcoef(ranks(x), ranks(y))[0, 1])


def main(argv: list[str]) -> int:
    from memx_cli.embed import BUNDLED, StaticEncoder, load_encoder

    print("| model | STS-dev Spearman | SICK trial Spearman |\n|---|---|---|")
    for model in [a if a == "e5" else Path(a) for a in argv] or [None]:
        encoder = load_encoder(BUNDLED if model is None else "e5") if not isinstance(model, Path) \
            else StaticEncoder(model)
        figures = []
        for name in ("sts-dev.csv", "SICK_trial.txt"):
            data = pairs(name)
            a = encoder.encode([p[1] for p in data])
            b = encoder.encode([p[2] for p in data])
            figures.append(spearman([float(x) for x in (a * b).sum(axis=1)], [p[0] for p in data]))
        print(f"| {model or 'bundled'} | {figures[0]:.4f} | {figures[1]:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
