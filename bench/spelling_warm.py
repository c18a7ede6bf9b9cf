"""Warm hybrid searches on the synthetic store with the query's words respelled as the
store writes them (generator/spelling.py) and without, alternating query by query
(issue 25).

    python bench/spelling_warm.py [--size 10000] [--runs 30]

One store is written and committed as `run.py` does. In one process and one warm
Searcher, each query of the synthetic set, and the same query with two neighbouring
words written together and one word written as two ("lock file", "prerelease": the cases
the respelling reads), is searched with ``spelling.respell`` and with the terms left
as they are; a first pass warms both. Also ``respell`` alone. Prints medians and p95 in ms.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from run import SEED, print_medians, queries, warm_searcher

from memx_cli.generator import spelling


def _respelled(query: str) -> str:
    """``query`` with its first two words joined and its last word split in two."""
    words = query.split()
    if len(words) >= 3:
        words[:2] = [words[0] + words[1]]
        last = words[-1]
        if len(last) >= 6:
            words[-1:] = [last[:3], last[3:]]
    return " ".join(words)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(SEED)
    plain = queries(rng, args.runs)
    asked = [q for pair in zip(plain, map(_respelled, plain)) for q in pair]
    respell = spelling.respell

    def kept(text: str, terms: Sequence[str], indexes: Sequence[object]) -> list[str]:
        return list(terms)

    with tempfile.TemporaryDirectory() as tmp:
        searcher = warm_searcher(Path(tmp), args.size, rng)
        built = [index for index in searcher.indexes if index.built()]

        def timed(query: str, alone: bool = False) -> float:
            start = time.perf_counter()
            if alone:
                respell(query, query.lower().split(), built)
            else:
                searcher.search(query, mode="hybrid", record_recalls=False)
            return (time.perf_counter() - start) * 1000

        times: dict[str, list[float]] = {"without": [], "with": [], "respell alone": []}
        for warm in (True, False):
            for query in asked:
                spelling.respell = kept  # type: ignore[assignment]
                without = timed(query)
                spelling.respell = respell
                found = timed(query), timed(query, alone=True)
                if not warm:
                    times["without"].append(without)
                    times["with"].append(found[0])
                    times["respell alone"].append(found[1])
    print_medians(args.size, times, "queries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
