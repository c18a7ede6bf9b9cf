"""Optimistic concurrency for read-modify-write of one memory (issue 14).

A writer that read a memory some time ago (``memx edit`` while the editor was open, a
vote, a supersede) must not write back over a change made meanwhile: under the store
lock, what is on disk is compared with what was read. When they differ, the change is
merged field by field (a three-way merge with what was read as the base): a field only
one side changed takes that side's value; counters both sides bumped add up; a field
both sides changed to different values is a conflict, and nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memx_cli.errors import MemxError
from memx_cli.store.memory import FIELDS, Memory

# Fields a writer never edits on purpose: the bookkeeping of the write itself.
_STAMPS = ("updated_at",)


class ConcurrentChangeError(MemxError):
    """The memory changed on disk since it was read, in the same field as this change."""


def merge(base: Memory, ours: Memory, theirs: Memory) -> Memory:
    """``ours`` (an edit of ``base``) with the changes ``theirs`` (on disk) made to it.

    Raises ConcurrentChangeError naming the fields both sides changed differently.
    """
    values: dict[str, Any] = {}
    clashes: list[str] = []
    for spec in FIELDS:
        name = spec.name
        old, mine, other = (getattr(m, name) for m in (base, ours, theirs))
        if mine == other or other == old:
            values[name] = mine
        elif mine == old:
            values[name] = other
        elif name == "feedback":
            values[name] = _add_counts(old, mine, other)
        elif name == "mention_count":
            values[name] = int(mine) + int(other) - int(old)
        elif name in _STAMPS:
            values[name] = max(mine, other)
        elif isinstance(old, tuple) and isinstance(mine, tuple) and isinstance(other, tuple):
            values[name] = _merge_sets(old, mine, other)
        else:
            clashes.append(name)
    if clashes:
        raise ConcurrentChangeError(
            f"{base.id} changed on disk while you worked on it (field "
            f"{', '.join(repr(c) for c in clashes)} changed both ways)")
    return base.replace(**values)


def _add_counts(old: Mapping[str, int], mine: Mapping[str, int],
                other: Mapping[str, int]) -> dict[str, int]:
    """Votes are increments: both sides' increments count."""
    keys = dict.fromkeys([*old, *mine, *other])
    return {k: mine.get(k, 0) + other.get(k, 0) - old.get(k, 0) for k in keys}


def _merge_sets(old: tuple[Any, ...], mine: tuple[Any, ...],
                other: tuple[Any, ...]) -> tuple[Any, ...]:
    """Tags, links...: keep what either side added, drop what either side removed."""
    removed = (set(old) - set(mine)) | (set(old) - set(other))
    merged = [v for v in mine if v not in removed]
    merged += [v for v in other if v not in removed and v not in merged]
    return tuple(merged)
