"""The ACE write path (SPEC 3): every memory written by add, import, ingest or an agent
goes through here.

With ACE on: sanitize (Reflector's PrivacySanitizer) → curate (dedup, conflict,
supersede) → store. With ACE off (``ace.enabled: false`` or ``--raw``) the memory is
stored exactly as given: no sanitizing, no dedup.
"""

from __future__ import annotations

from collections.abc import Sequence

from .manage import WriteResult
from .memory import Memory
from .repo import Repo


def ace_enabled(repo: Repo, raw: bool) -> bool:
    return not raw and bool(repo.config["ace.enabled"])


def write(repo: Repo, memories: Sequence[Memory], *, raw: bool = False) -> list[WriteResult]:
    """Store ``memories`` (all checked already); returns what happened to each, in order."""
    results: list[WriteResult] = []
    by_store: dict[int, list[Memory]] = {}
    for mem in memories:
        store = repo.store_for(mem.scope)
        if store is repo.global_store:
            store.create()
        else:
            repo.require_store()
        by_store.setdefault(id(store), []).append(mem)
    for group in by_store.values():
        store = repo.store_for(group[0].scope)
        store.write_many(group)
        results.extend(WriteResult("added", m, store.path_for(m.id)) for m in group)
    order = {m.id: i for i, m in enumerate(memories)}
    results.sort(key=lambda r: order[r.memory.id])
    return results
