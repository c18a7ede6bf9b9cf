"""The ACE write path (SPEC 3): every memory written by add, import, ingest or an agent
goes through here.

With ACE on: sanitize (Reflector's PrivacySanitizer) → curate (dedup, conflict,
supersede) → store. With ACE off (``ace.enabled: false`` or ``--raw``) the memory is
stored exactly as given: no sanitizing, no dedup.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from memx_cli.errors import MemxError
from memx_cli.index import StoreIndex
from memx_cli.store.files import Written
from memx_cli.store.memory import Memory
from memx_cli.store.records import WriteResult
from memx_cli.store.repo import Repo

if TYPE_CHECKING:
    from memx_cli.services import Services

log = logging.getLogger("memx")

def ace_enabled(repo: Repo, raw: bool) -> bool:
    return not raw and bool(repo.config["ace.enabled"])


# progress(phase, done, total): "checking" (anchor, sanitize), then "curating"
Progress = Callable[[str, int, int], None]


def write(repo: Repo, memories: Sequence[Memory], *, raw: bool = False,
          progress: Progress | None = None,
          encoded: Mapping[str, bytes] | None = None,
          services: Services | None = None) -> list[WriteResult]:
    """Store ``memories`` (all checked already); returns what happened to each, in order.
    ``encoded``: file bytes of some of them, made by the caller's check, for ACE off.
    ``services``: a host's (the memx server's) warm index of a store, whose check its
    file watcher vouches for; without one, a fresh StoreIndex."""
    results: list[WriteResult] = []
    by_store: dict[int, list[Memory]] = {}
    total = len(memories)
    for done, mem in enumerate(memories, 1):
        if progress is not None:
            progress("checking", done, total)
        if ace_enabled(repo, raw):
            from memx_cli.anchors import auto as autoanchor  # ACE off (--raw) never anchors

            mem = autoanchor.anchor(repo, mem)  # SPEC 3.5
            # SPEC 3.1/10: secrets never reach .memx/, fail closed. Last, so the snippets
            # of automatic anchors are masked too.
            from memx_cli.privacy.sanitizer import for_config, sanitize_memory

            mem = sanitize_memory(mem, for_config(repo.config))
        store = repo.store_for(mem.scope)
        if id(store) not in by_store:  # once a store, not once a record
            if store is repo.global_store:
                store.create()
            else:
                repo.require_store()
        by_store.setdefault(id(store), []).append(mem)
    by_id: dict[str, WriteResult] = {}
    for group in by_store.values():
        store = repo.store_for(group[0].scope)
        model = repo.config["embedding.model"]
        index = (services.write_index(store, model) if services is not None else None) \
            or StoreIndex(store, model)
        if ace_enabled(repo, raw):
            from memx_cli.curator import write_curated

            records: dict[str, Written] = {}
            written = write_curated(repo, store, group,
                                    _offset(progress, len(by_id), total), index, records)
        else:
            # SPEC 3: stored as given
            records = store.write_many(group, raw=True, encoded=encoded)
            written = [WriteResult("added", m, store.path_for(m.id)) for m in group]
        by_id.update((m.id, r) for m, r in zip(group, written))
        # Every file written: a merge, supersede or conflict changes the other memory too.
        index_written(index, [i for r in written for i in (r.memory.id, r.other) if i],
                      records)
    results.extend(by_id[m.id] for m in memories if m.id in by_id)
    return results


def _offset(progress: Progress | None, before: int, total: int) -> Callable[[int], None] | None:
    """The curator counts one store's group; the user sees the whole import."""
    if progress is None:
        return None
    report = progress
    return lambda done: report("curating", before + done, total)


def index_written(index: StoreIndex, ids: list[str],
                  records: Mapping[str, Written] | None = None) -> None:
    """Bring an existing index up to date with the files of ``ids`` just written, so the
    next command does not pay for it (issue 15). Vectors only when this process has the
    model loaded already (the Curator's): a raw add does not load it just for this; the
    next semantic search then embeds what is behind. A store never indexed is left for
    its first read, and an index that cannot be updated now is the next command's to
    retry: the memories themselves are written either way. ``records``: what the
    write returned, indexed from memory instead of read back (issue 29)."""
    from memx_cli.embed import is_loaded

    if not index.built():
        return
    try:
        index.sync_written(ids, want_vectors=is_loaded(index.model_spec), written=records)
    except (MemxError, OSError, ValueError) as exc:
        log.warning(f"the search index was not updated ({exc}); the next search will")
