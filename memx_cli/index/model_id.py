"""The identity of an embedding model by its content (issue 15).

The vectors record which model made them; a different model means embedding every
memory again. Identifying a model directory by its files' times made a reinstall of the
same model (new files, same bytes) re-embed the whole store. The identity is a hash of
the files the model is loaded from, cached by their (name, size, time, inode), so it is
computed once per install rather than once per command.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from memx_cli.fsutil import atomic_write

# What model loading reads (config, tokenizer, weights); a README or LICENSE is not
# part of what the vectors depend on.
_SUFFIXES = (".json", ".safetensors")


def _files(path: Path) -> list[tuple[Path, list[Any]]] | None:
    try:
        found = sorted(p for p in path.iterdir() if p.suffix in _SUFFIXES)
    except OSError:
        return None
    files = []
    for file in found:
        try:
            st = file.stat()
        except OSError:
            return None
        files.append((file, [file.name, st.st_size, st.st_mtime_ns, st.st_ino]))
    if not any(f.suffix == ".safetensors" for f, _ in files):
        return None
    return files


def identity(path: Path, cache: Path) -> str | None:
    """``sha256:<hex>`` of the model in the directory ``path``, or None when it has no
    weights file; ``cache`` (a small JSON file) keeps it for unchanged files."""
    files = _files(path)
    if files is None:
        return None
    stamp = [meta for _, meta in files]
    try:
        cached = json.loads(cache.read_bytes())
        if cached.get("path") == str(path) and cached.get("files") == stamp:
            return str(cached["id"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        pass
    digest = hashlib.sha256()
    for file, _ in files:
        digest.update(file.name.encode() + b"\0")
        try:
            digest.update(file.read_bytes())
        except OSError:
            return None
        digest.update(b"\0")
    ident = f"sha256:{digest.hexdigest()[:32]}"
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(cache, json.dumps({"path": str(path), "files": stamp, "id": ident}).encode(),
                     durable=False)
    except OSError:
        pass  # uncached: computed again next time, still right
    return ident


def configured(model_spec: str | None, cache: Path) -> str | None:
    """The identity of the configured model (``embedding.model``): by content for a
    directory (the bundled model included), e5 by its package version, else the name as given."""
    from memx_cli.e5 import E5_SPEC
    from memx_cli.embed import BUNDLED, bundled_model_path

    spec = (model_spec or BUNDLED).strip() or BUNDLED
    if spec == E5_SPEC:
        from memx_cli.e5 import identity as e5_identity

        return e5_identity()
    path = bundled_model_path() if spec == BUNDLED else Path(spec).expanduser()
    return identity(path, cache) if path.is_dir() else spec
