"""The scan of a store's memory files that tells the index what changed (SPEC 9)."""

from __future__ import annotations

import os
import stat
import zlib
from collections.abc import Iterable, Iterator

from memx_cli.store.files import Store

# A scanned memory file: (mtime_ns, size, archived). A plain tuple: the scan runs before
# every read command and a dataclass per file costs more than the stat itself.
Seen = tuple[int, int, bool]


def scan(store: Store, linked: set[str] | None = None) -> tuple[dict[str, Seen], str]:
    """Every memory file with its stat, and a fingerprint of them all (equal
    fingerprints: nothing was added, removed, moved or edited). One ``stat`` per
    file is the floor of this check, so the loop does nothing else; but for
    ``linked``, which gets the ids of the files with more than one name, read from the
    same stat (a watcher's note, freshness/journal.py: at 100k a second listing with a
    stat of every file cost as much as the scan)."""
    seen: dict[str, Seen] = {}
    parts = []
    for archived, directory in ((True, store.archive_dir),
                                (False, store.memories_dir)):
        found: dict[str, Seen] = {}
        try:
            entries = os.scandir(directory)
        except FileNotFoundError:
            parts.append("-")
            continue
        except NotADirectoryError:
            store.files(archived)  # raises the store's one-line StoreError
            raise
        with entries:
            for entry in entries:
                name = entry.name
                if name[0] == "." or not name.endswith(".yaml"):
                    continue
                try:
                    st = entry.stat()
                except FileNotFoundError:
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue  # a FIFO named *.yaml must not hang the index (issue 14)
                found[name[:-5]] = (st.st_mtime_ns, st.st_size, archived)
                if linked is not None and st.st_nlink > 1:
                    linked.add(name[:-5])
        parts.append(fingerprint(found))
        # memories/ wins over archive/ when both hold an id (validate reports it).
        seen.update(found)
    return seen, ":".join(parts)


_MASK = (1 << 64) - 1


def fingerprint(found: dict[str, Seen]) -> str:
    """Count, sums of times and sizes, and a sum of the names' checksums: equal for the
    same files whatever order the directory lists them in, and updated for a few files
    without the others (``shift``)."""
    values = found.values()
    names = sum(zlib.crc32(name.encode()) for name in found) & _MASK
    return f"{len(found)}.{sum(v[0] for v in values)}.{sum(v[1] for v in values)}.{names}"


def shift(full: str, before: dict[str, Seen], after: dict[str, Seen],
          archive_exists: bool) -> str | None:
    """The fingerprint of a full scan whose files of ``before`` are now ``after``
    (absent ids: no file), from the earlier one ``full``; None when it is malformed."""
    parts = full.split(":")
    if len(parts) != 2:
        return None
    sums: list[list[int]] = []
    for part in parts:
        try:
            sums.append([0, 0, 0, 0] if part == "-" else [int(x) for x in part.split(".")])
        except ValueError:
            return None
        if len(sums[-1]) != 4:
            return None
    for sign, files in ((-1, before), (1, after)):
        for name, (mtime_ns, size, archived) in files.items():
            into = sums[0 if archived else 1]
            into[0] += sign
            into[1] += sign * mtime_ns
            into[2] += sign * size
            into[3] = (into[3] + sign * zlib.crc32(name.encode())) & _MASK
    archive = ".".join(map(str, sums[0])) if archive_exists else "-"
    return f"{archive}:{'.'.join(map(str, sums[1]))}"


def stat_ids(store: Store, ids: Iterable[str]) -> dict[str, Seen]:
    """The files of ``ids`` as a scan would see them (memories/ wins over archive/)."""
    seen: dict[str, Seen] = {}
    for memory_id in ids:
        for archived in (False, True):
            try:
                st = os.stat(store.path_for(memory_id, archived))
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                seen[memory_id] = (st.st_mtime_ns, st.st_size, archived)
                break
    return seen


class ListedIds:
    """The store's memory ids, listed when first asked for: a quick check (no scan)
    does not know them, and most commands never ask."""

    def __init__(self, store: Store):
        self.store = store

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self.store.ids(), *self.store.ids(archived=True)]))
