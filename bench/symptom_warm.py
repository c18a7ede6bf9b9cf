"""Warm hybrid searches of symptoms on the synthetic store, the pitfall prior against the
prior before it (issue 25).

    python bench/symptom_warm.py [--size 10000] [--runs 30]

One store is written and committed as `run.py` does. In one process and one warm
Searcher, each symptom query is searched with ``questions.pitfall`` as memx has it and
with the reading before it (the predicates of malfunction only, and a stated cause or fix
as the memory's shape), the two alternating query by query; a first pass warms both.
Also the pitfall prior of a fresh process (its cache empty) for each query. Prints
medians and p95 in ms.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from run import SEED, print_medians, queries, warm_searcher

from memx_cli.generator import questions

# Symptoms told with the grammar the change reads ("but", "again", "keeps ...ing") and with
# a predicate of malfunction, around the words of the synthetic store's queries.
FORMS = ("{} fails again after the deploy", "{} keeps timing out but staging works",
         "{} passed but nothing changed", "{} crashes whenever we release")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as tmp:
        searcher = warm_searcher(Path(tmp), args.size, rng)
        # (a question of the synthetic set, "how to fix ...", keeps its own prior)
        told = (rng.choice(FORMS).format(q) for q in queries(rng, args.runs * 4))
        asked = [q for q in told if questions.intent(q) is None][:args.runs]
        now = questions.pitfall
        plain_symptom = questions.symptom

        def before_symptom(query: str) -> bool:
            low = query.lower()
            return not questions._asks_else().match(query) and (
                questions._exception().search(query) is not None
                or questions._symptom().search(low) is not None)

        def timed(query: str) -> float:
            start = time.perf_counter()
            searcher.search(query, mode="hybrid", record_recalls=False)
            return (time.perf_counter() - start) * 1000

        def run(setup: Callable[[], None]) -> Callable[[str], float]:
            def one(query: str) -> float:
                setup()
                return timed(query)
            return one

        def change() -> None:
            questions.symptom, questions.pitfall = plain_symptom, now

        def before() -> None:
            questions.symptom = before_symptom
            questions.pitfall = questions.states_cause  # type: ignore[assignment]

        def cold_cache() -> None:
            change()
            now.cache_clear()

        sides = {"before": run(before), "change, warm": run(change),
                 "change, empty cache": run(cold_cache)}
        times: dict[str, list[float]] = {name: [] for name in sides}
        for query in asked:  # warm-up pass
            for one in sides.values():
                one(query)
        for query in asked:
            for name, one in sides.items():
                times[name].append(one(query))
        change()
    print_medians(args.size, times, "symptoms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
