"""The small files beside a store's index that say what it holds (SPEC 9, issue 15):
``state.json``, a summary of the manifest read before anything else, so the common
"nothing changed" check reads a few bytes instead of one row per memory (with the change
stamp a full scan leaves for the next reader), and the manifest itself, loaded only when
it is of this memx's index version."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memx_cli.freshness.quick import Basis, Claim, Look, basis, key, worth_it
from memx_cli.freshness.scan import Seen
from memx_cli.fsutil import atomic_write
from memx_cli.index.manifest import INDEX_VERSION, Manifest
from memx_cli.store.files import Store


def read_state(path: Path) -> dict[str, Any] | None:
    """The state of an index of this version, or None (missing, unreadable, other)."""
    try:
        state = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(state, dict) or state.get("index_version") != INDEX_VERSION:
        return None
    return state


def write_state(path: Path, fingerprint: str, manifest: Manifest | None, quick: str | None,
                on: Basis | None, written: Claim | None = None,
                seen: Look | None = None, left: tuple[str, str] | None = None,
                held: list[str] | None = None,
                unstamped: dict[str, Any] | None = None) -> None:
    """Record what ``manifest`` now holds: the files' fingerprint, the model, the parse
    problems, how many vectors are behind, and the change stamp with its basis and,
    when ``seen`` is the look the stamp is the digest of, its parts (a later write
    claims against them); or what a write left for the next reader to check instead
    (``written``), with the memory folders' marks as that write left them (``left``,
    for the next write: ``quick.unmoved``); ``held``: the folders' marks at which the
    index held every memory file (``quick.held_marks``, for the memx server's first
    open: ``StoreIndex.open_trusted``); ``unstamped``: without a stamp (``on`` covers no
    untracked files), the folders' and git's index marks at which the index held every
    file (``quick.marks_before``, for the next write: ``quick.unmoved``)."""
    if manifest is None:
        return
    save_state(path, {
        "index_version": INDEX_VERSION, "fingerprint": fingerprint,
        "model": manifest.model, "problems": manifest.problems(),
        "pending": len(manifest.pending) + len(manifest.pending_removed),
        "quick": quick, "basis": on.to_json() if on is not None else None,
        **({"written": written.to_json()} if written is not None else {}),
        **({"left": list(left)} if written is not None and left is not None else {}),
        **({"look": seen.to_json()} if seen is not None and quick is not None
           and seen.digest() == quick else {}),
        **({"held": held} if held is not None else {}),
        **({"unstamped": unstamped} if unstamped is not None and on is not None
           and on.loose is None else {}),
    })


def save_state(path: Path, state: dict[str, Any]) -> None:
    """Replace ``state.json`` at once, without syncing it to disk (issue 29: with its
    folder, 2 of a write's ~25 syncs, twice a write). It is written after the index
    files it describes were committed (tantivy syncs its own), so after a power cut it
    is at worst an older or unreadable one: the next check then finds the files moved
    on from it, or no state, and looks at every file, as without a stamp."""
    atomic_write(path, json.dumps(state).encode(), durable=False)


def load_manifest(path: Path, legacy: Path) -> Manifest | None:
    """The manifest when it can be read and matches this memx's index, else None."""
    try:
        manifest = Manifest.load(path, legacy)
    except ValueError:
        return None
    if manifest is not None and not manifest.compatible():
        return None
    return manifest


def stamp_for(store: Store, seen: dict[str, Seen], on: Basis | None, before: str | None
              ) -> tuple[str | None, Basis | None]:
    """The stamp to record after a full scan, and the basis for the next one. The
    stamp taken before the scan holds only if the basis it used is still right;
    else the next reader scans once more and records one. A store with too many
    files outside git learns its basis again only when its ``key`` moves; a small
    one has none (scanning it costs less than starting git)."""
    if not worth_it(len(seen)):
        return None, None
    if on is not None and on.loose is None and on.key == key(store, on.git_index):
        return None, on
    new = basis(store, ((i, s[2]) for i, s in seen.items()),
                on.git_index if on is not None else None)
    return (before if new.covers(on) else None), new


def wipe(paths: Iterable[Path]) -> None:
    """Delete these files and folders of an index, in order, where they are."""
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def dir_times(store: Store) -> tuple[int, ...]:
    """The modification times of the two memory folders (0: missing): they move when a
    file is added, removed or renamed, not when one is written in place."""
    times = []
    for directory in (store.memories_dir, store.archive_dir):
        try:
            times.append(os.stat(directory).st_mtime_ns)
        except FileNotFoundError:
            times.append(0)
    return tuple(times)
