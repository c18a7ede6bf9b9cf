"""Three-way, field-by-field merge of one memory file: what git's ``memx`` merge driver
runs (``memx merge-file %O %A %B %P``, issue 17).

Two clones that touch the same memory should not meet a conflict in ``updated_at``:

- tags, tools, entities, supersedes and conflicts_with are sets: what either side added
  is in, what either side removed from the base is out;
- counters (mention_count, feedback helpful/harmful) add up: base + both deltas;
- updated_at and valid_until take the later value, created_at the earlier;
- any other field one side changed takes that side's value; both changed: the side
  edited last wins;
- content edited differently on both sides: this side's text stays in the file, the
  other side's becomes a new memory file beside it, and the two are linked by a
  recorded conflict (conflicts_with) that ``memx conflicts`` lists and ``memx resolve``
  settles. Never conflict markers in YAML.

The driver never breaks git: whatever goes wrong, it leaves the file as this side wrote
it (valid YAML), says why on standard error and exits 1, so git reports a conflict.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memx_cli.clock import parse_timestamp
from memx_cli.errors import InvalidMemoryError
from memx_cli.fsutil import atomic_write
from memx_cli.operations.merge_driver import record_copy
from memx_cli.store import memory as memfmt
from memx_cli.store.ids import copy_id
from memx_cli.store.memory import Memory

# The files the driver merges field by field: the store's memories, current or archived
# (git gives the path from the top of the work tree).
MEMORY_PATH_RE = re.compile(r"^\.memx/(memories|archive)/[^/]+\.yaml$")
SET_FIELDS = ("tags", "tools", "entities", "supersedes", "conflicts_with")
_ABSENT: Any = object()  # the base of an add/add merge: nothing to compare against


class MergeRefused(Exception):
    """The file cannot be merged field by field; git should report a conflict."""


@dataclass(frozen=True)
class MergeOutcome:
    memory: Memory  # what the merged file holds
    copy: Memory | None = None  # the other side's content, kept as a new memory


def merge_memories(base: Memory | None, ours: Memory, theirs: Memory) -> MergeOutcome:
    """Merge two edits of one memory (``base`` None: both sides added it)."""
    if ours.id != theirs.id or (base is not None and base.id != ours.id):
        raise MergeRefused("the two sides are different memories (their ids differ)")
    ours_newer = _stamp(ours.updated_at) >= _stamp(theirs.updated_at)
    values: dict[str, Any] = {}
    for name in memfmt.FIELD_NAMES[1:]:
        if name in ("id", "content"):
            continue
        b = _ABSENT if base is None else getattr(base, name)
        o, t = getattr(ours, name), getattr(theirs, name)
        if name in SET_FIELDS:
            values[name] = _merge_set(() if base is None else b, o, t)
        elif name == "mention_count":
            values[name] = max(1, _add_deltas(b, o, t))
        elif name == "feedback":
            values[name] = _merge_feedback(b, o, t)
        elif name == "source":
            values[name] = _merge_mapping(b, o, t, ours_newer)
        elif name in ("updated_at", "valid_until", "created_at"):
            values[name] = _merge_time(name, b, o, t)
        else:
            values[name] = _pick(b, o, t, ours_newer)
    base_content = None if base is None else base.content
    content, copy = ours.content, None
    if ours.content == base_content:
        content = theirs.content
    elif theirs.content not in (ours.content, base_content):  # edited on both sides
        copy = _conflict_copy(ours, theirs)
        values["conflicts_with"] = tuple(dict.fromkeys((*values["conflicts_with"], copy.id)))
    merged = Memory(id=ours.id, content=content, **values)
    return MergeOutcome(_checked(merged), None if copy is None else _checked(copy))


def _stamp(value: str) -> float:
    return parse_timestamp(value).timestamp()


def _pick(base: Any, ours: Any, theirs: Any, ours_newer: bool) -> Any:
    if ours == theirs:
        return ours
    if base is not _ABSENT and ours == base:
        return theirs
    if base is not _ABSENT and theirs == base:
        return ours
    return ours if ours_newer else theirs


def _merge_set(base: Sequence[str], ours: Sequence[str], theirs: Sequence[str]) -> tuple[str, ...]:
    removed = (set(base) - set(ours)) | (set(base) - set(theirs))
    return tuple(x for x in dict.fromkeys((*ours, *theirs)) if x not in removed)


def _add_deltas(base: Any, ours: int, theirs: int) -> int:
    if base is _ABSENT:  # no common ancestor: the deltas are unknown; keep the larger count
        return max(ours, theirs)
    return int(base) + (ours - base) + (theirs - base)


def _merge_feedback(base: Any, ours: Mapping[str, int],
                    theirs: Mapping[str, int]) -> dict[str, int]:
    result = {}
    for key in ("helpful", "harmful"):
        b = _ABSENT if base is _ABSENT else base.get(key, 0)
        count = max(0, _add_deltas(b, ours.get(key, 0), theirs.get(key, 0)))
        if count or key in ours or key in theirs:
            result[key] = count
    return result


def _merge_mapping(base: Any, ours: Mapping[str, Any], theirs: Mapping[str, Any],
                   ours_newer: bool) -> dict[str, Any]:
    result = {}
    for key in dict.fromkeys((*ours, *theirs)):
        b = _ABSENT if base is _ABSENT else base.get(key, _MISSING)
        value = _pick(b, ours.get(key, _MISSING), theirs.get(key, _MISSING), ours_newer)
        if value is not _MISSING:
            result[key] = value
    return result


_MISSING: Any = object()  # a key one side of a mapping does not have


def _merge_time(name: str, base: Any, ours: str | None, theirs: str | None) -> str | None:
    if name == "valid_until":
        # a change on one side wins; on both: the later date, and no date (forever) is latest
        if base is not _ABSENT and ours == base:
            return theirs
        if (base is not _ABSENT and theirs == base) or ours == theirs:
            return ours
        if ours is None or theirs is None:
            return None
        return max(ours, theirs, key=_stamp)
    assert ours is not None and theirs is not None
    if name == "created_at":
        return min(ours, theirs, key=_stamp)
    return max(ours, theirs, key=_stamp)


def _conflict_copy(ours: Memory, theirs: Memory) -> Memory:
    """The other side's edit as a memory of its own. Its id is derived from what it holds,
    so two clones that make the same merge make the same file (git sees one addition)."""
    return theirs.replace(id=copy_id(ours.id, theirs.content, theirs.updated_at),
                          created_at=theirs.updated_at, mention_count=1,
                          feedback={}, supersedes=(), superseded_by=None,
                          conflicts_with=(ours.id,))


def _checked(mem: Memory) -> Memory:
    """Round-trip through the file format: what the driver writes must load back."""
    data = memfmt.dump(mem)
    return memfmt.load(data, f"{mem.id}.yaml")


# ---------------------------------------------------------------- the driver


@dataclass(frozen=True)
class DriverResult:
    clean: bool  # git's exit status: 0 when clean, 1 for "conflict"
    message: str | None = None  # one line for standard error
    copy_path: Path | None = None  # the other side's content, written as a new memory


def run_driver(base: Path, ours: Path, theirs: Path, pathname: str,
               worktree: Path | None) -> DriverResult:
    """Merge ``theirs`` into ``ours`` (the file git reads the result from). Never raises:
    on any problem ``ours`` is left as it was and the result says git has a conflict."""
    try:
        if not MEMORY_PATH_RE.match(pathname):
            return _merge_text(base, ours, theirs, pathname)
        return _run(base, ours, theirs, pathname, worktree)
    except MergeRefused as exc:
        reason = str(exc)
    except Exception as exc:  # a merge driver must never break git
        reason = f"internal error: {type(exc).__name__}: {exc}"
    return DriverResult(False, f"memx merge-file: {pathname}: {reason}; kept this side's "
                               "version unchanged, settle it by hand (memx validate checks it)")


def _merge_text(base: Path, ours: Path, theirs: Path, pathname: str) -> DriverResult:
    """A file that is no memory file, given to the driver by a ``.gitattributes`` that
    says ``merge=memx`` for more than the store (a committed ``* merge=memx``; walk17):
    merged as git merges it without the driver, conflict markers and all."""
    from memx_cli import git

    if git.merge_text(ours, base, theirs):
        return DriverResult(True)
    return DriverResult(False, f"memx merge-file: {pathname}: not a memory file; merged as "
                               "text, with conflict markers where both sides changed it")


def _read(path: Path, pathname: str, side: str) -> Memory | None:
    from memx_cli.safeyaml import read_regular

    try:  # bounded: a 300 MB file was read whole (issue 26); refused from its size
        data = read_regular(path)
    except OSError as exc:
        raise MergeRefused(f"{side} side cannot be read ({exc.strerror})") from None
    if not data.strip():
        return None
    try:
        return memfmt.load(data, pathname)
    except InvalidMemoryError as exc:
        raise MergeRefused(f"{side} side is not a valid memory ({exc})") from None


def _run(base_path: Path, ours_path: Path, theirs_path: Path, pathname: str,
         worktree: Path | None) -> DriverResult:
    ours = _read(ours_path, pathname, "this")
    theirs = _read(theirs_path, pathname, "the other")
    if ours is None or theirs is None:
        raise MergeRefused("one side is empty")
    outcome = merge_memories(_read(base_path, pathname, "the base"), ours, theirs)
    copy_path = None
    if outcome.copy is not None:
        if worktree is None:
            raise MergeRefused("both sides edited the content and there is no work tree to "
                               "keep the other version in")
        copy_path = worktree / Path(pathname).parent.parent / "memories" / \
            f"{outcome.copy.id}.yaml"
        data = memfmt.dump(outcome.copy)
        if copy_path.exists() and copy_path.read_bytes() != data:
            raise MergeRefused(f"{copy_path.name} already exists with other content")
        atomic_write(copy_path, data)
        record_copy(worktree, copy_path)
    atomic_write(ours_path, memfmt.dump(outcome.memory), durable=False)
    return DriverResult(True, copy_path=copy_path)
