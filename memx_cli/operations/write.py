"""The ACE write path (SPEC 3): every memory written by add, import, ingest or an agent
goes through here.

With ACE on: sanitize (Reflector's PrivacySanitizer) → curate (dedup, conflict,
supersede) → store. With ACE off (``ace.enabled: false`` or ``--raw``) the memory is
stored exactly as given: no sanitizing, no dedup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memx_cli.anchors import auto as autoanchor
from memx_cli.store.memory import Memory
from memx_cli.store.records import WriteResult
from memx_cli.store.repo import Repo


def ace_enabled(repo: Repo, raw: bool) -> bool:
    return not raw and bool(repo.config["ace.enabled"])


# progress(phase, done, total): "checking" (anchor, sanitize), then "curating"
Progress = Callable[[str, int, int], None]


def write(repo: Repo, memories: Sequence[Memory], *, raw: bool = False,
          progress: Progress | None = None) -> list[WriteResult]:
    """Store ``memories`` (all checked already); returns what happened to each, in order."""
    results: list[WriteResult] = []
    by_store: dict[int, list[Memory]] = {}
    total = len(memories)
    for done, mem in enumerate(memories, 1):
        if progress is not None:
            progress("checking", done, total)
        if ace_enabled(repo, raw):
            mem = autoanchor.anchor(repo, mem)  # SPEC 3.5
            # SPEC 3.1/10: secrets never reach .memx/, fail closed. Last, so the snippets
            # of automatic anchors are masked too.
            from memx_cli.privacy.sanitizer import for_config, sanitize_memory

            mem = sanitize_memory(mem, for_config(repo.config))
        store = repo.store_for(mem.scope)
        if store is repo.global_store:
            store.create()
        else:
            repo.require_store()
        by_store.setdefault(id(store), []).append(mem)
    by_id: dict[str, WriteResult] = {}
    for group in by_store.values():
        store = repo.store_for(group[0].scope)
        if ace_enabled(repo, raw):
            from memx_cli.curator import write_curated

            written = write_curated(repo, store, group,
                                    _offset(progress, len(by_id), total))
        else:
            store.write_many(group, raw=True)  # SPEC 3: ACE off stores it as given
            written = [WriteResult("added", m, store.path_for(m.id)) for m in group]
        by_id.update((m.id, r) for m, r in zip(group, written))
    results.extend(by_id[m.id] for m in memories if m.id in by_id)
    return results


def _offset(progress: Progress | None, before: int, total: int) -> Callable[[int], None] | None:
    """The curator counts one store's group; the user sees the whole import."""
    if progress is None:
        return None
    report = progress
    return lambda done: report("curating", before + done, total)
