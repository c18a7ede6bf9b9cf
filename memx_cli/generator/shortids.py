"""Short ids for search results: the shortest prefix of each hit's id (at least
``MIN_ABBREV`` characters) that no other memory of the searched stores shares."""

from __future__ import annotations

from collections.abc import Sequence

from memx_cli.generator.candidates import Scorer
from memx_cli.store.ids import abbreviate


def short_ids(searcher: Scorer, ids: Sequence[str]) -> dict[str, str]:
    """Unique prefixes for ``ids`` among every memory the last search saw: each needs
    only its neighbours in id order, which each store's manifest gives by its key's
    index (issue 15: listing every file of a 100k store took longer than the search)."""
    near = set(ids)
    for index in searcher.indexes:
        manifest = index.manifest() if index.built() else None
        if manifest is None:  # no index to ask: every id the last check saw
            near.update(index.ids)
            continue
        for memory_id in ids:
            near.update(manifest.neighbours(memory_id))
    return abbreviate(near, wanted=ids)
