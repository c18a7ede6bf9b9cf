"""Per-clone recall statistics (SPEC 2, 3.3): how often and when each memory was shown.

Kept in ``local/recalls.json``, never in the tracked memory files, so reading memory
never dirties the work tree.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from memx_cli.clock import now_iso
from memx_cli.fsutil import atomic_write
from memx_cli.store.files import Store


def _path(store: Store) -> Path:
    return store.local_dir / "recalls.json"


def load(store: Store) -> dict[str, tuple[int, str]]:
    """id -> (recall count, last recall time); {} when missing or unreadable."""
    try:
        raw = json.loads(_path(store).read_bytes())
        return {k: (int(v[0]), str(v[1])) for k, v in raw.items()}
    except (OSError, ValueError, TypeError, IndexError, AttributeError):
        return {}


def record(store: Store, ids: Iterable[str]) -> None:
    """Count one recall for each id (results actually returned to a user or agent)."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return
    with store.lock():
        stats = load(store)
        stamp = now_iso()
        for memory_id in wanted:
            count, _ = stats.get(memory_id, (0, stamp))
            stats[memory_id] = (count + 1, stamp)
        # Statistics, not memories: a lost recall after a power cut is harmless, and this
        # runs after every search.
        atomic_write(_path(store), json.dumps(stats, sort_keys=True).encode(), durable=False)
