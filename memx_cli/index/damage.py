"""Damage in the tantivy index that makes a command fail, found and repaired (issue 26).

tantivy names a segment's deleted-documents file ``<segment hex>.<opstamp>.del``, the
opstamp being that of the commit that wrote it, and meta.json (``opstamp``, and each
segment's ``deletes.opstamp``) names the ones in force. A writer killed between writing
that file and writing meta.json leaves an orphan with an opstamp beyond meta.json's; the
next commit that deletes from the same segment at that opstamp then fails
("FileAlreadyExists"), so every add, keyword search and `memx reindex` exited 3 while
`memx doctor` saw nothing. Such a file belongs to a commit that never happened: it is
safe to remove while holding tantivy's writer lock (no other writer can be at work).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

_DELETES = re.compile(r"^([0-9a-f]{32})\.(\d{1,20})\.del$")
MAX_META = 64 << 20  # meta.json lists segments: a few KB; a larger one is damage


@dataclass
class Damage:
    orphans: list[Path] = field(default_factory=list)  # delete files of no commit
    problem: str | None = None  # meta.json or a file it names is missing or unreadable

    def __bool__(self) -> bool:
        return bool(self.orphans or self.problem)

    def describe(self) -> str:
        if self.problem:
            return self.problem
        names = ", ".join(p.name for p in self.orphans[:2])
        more = f" and {len(self.orphans) - 2} more" if len(self.orphans) > 2 else ""
        return (f"{len(self.orphans)} orphan delete file(s) from an interrupted write "
                f"({names}{more})")


def _meta(path: Path) -> dict[str, object] | None:
    try:
        with open(path / "meta.json", "rb") as handle:
            data = json.loads(handle.read(MAX_META + 1)[:MAX_META + 1])
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def inspect(path: Path) -> Damage:
    """What in the index folder ``path`` would make a read or the next write fail."""
    damage = Damage()
    if not path.is_dir():
        return damage
    meta = _meta(path)
    if meta is None:
        if (path / "meta.json").exists():
            damage.problem = "meta.json is unreadable"
        return damage
    opstamp = meta.get("opstamp")
    segments = meta.get("segments")
    if not isinstance(opstamp, int) or not isinstance(segments, list):
        damage.problem = "meta.json has no opstamp or segment list"
        return damage
    in_force: dict[str, int | None] = {}
    for segment in segments:
        if not isinstance(segment, dict) or not isinstance(segment.get("segment_id"), str):
            damage.problem = "meta.json lists a segment without an id"
            return damage
        hex_id = segment["segment_id"].replace("-", "")
        deletes = segment.get("deletes")
        stamp = deletes.get("opstamp") if isinstance(deletes, dict) else None
        in_force[hex_id] = stamp if isinstance(stamp, int) else None
        if not (path / f"{hex_id}.store").is_file():
            damage.problem = f"segment {hex_id} named in meta.json is missing"
            return damage
        if in_force[hex_id] is not None and not (path / f"{hex_id}.{stamp}.del").is_file():
            damage.problem = f"delete file {hex_id}.{stamp}.del named in meta.json is missing"
            return damage
    for entry in path.iterdir():
        match = _DELETES.match(entry.name)
        if match and int(match.group(2)) > opstamp:
            damage.orphans.append(entry)
    damage.orphans.sort()
    return damage


def drop_orphans(path: Path) -> int:
    """Remove the orphan delete files (call with tantivy's writer lock held)."""
    removed = 0
    for orphan in inspect(path).orphans:
        try:
            orphan.unlink()
        except OSError:  # gone already, or not a file: the commit fails, sync rebuilds
            continue
        removed += 1
    return removed
