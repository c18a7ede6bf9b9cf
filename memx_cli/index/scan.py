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


def scan(store: Store) -> tuple[dict[str, Seen], str]:
    """Every memory file with its stat, and a fingerprint of them all (equal
    fingerprints: nothing was added, removed, moved or edited). One ``stat`` per
    file is the floor of this check, so the loop does nothing else."""
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
        parts.append(fingerprint(found))
        # memories/ wins over archive/ when both hold an id (validate reports it).
        seen.update(found)
    return seen, ":".join(parts)


def fingerprint(found: dict[str, Seen]) -> str:
    """Count, sums of times and sizes, and a checksum of the sorted names: equal for the
    same files whatever order the directory lists them in, so ``rescan`` can compute it
    without listing the directory again (sorting 100k names costs about what the
    checksum does)."""
    values = found.values()
    names = zlib.crc32(" ".join(sorted(found)).encode())
    return f"{len(found)}.{sum(v[0] for v in values)}.{sum(v[1] for v in values)}.{names}"


def rescan(store: Store, seen: dict[str, Seen], ids: Iterable[str]
           ) -> tuple[dict[str, Seen], str]:
    """``seen`` (an earlier scan) with the files of ``ids`` stat-ed again, and the
    fingerprint a full scan would give if nothing else changed (issue 15)."""
    seen = dict(seen)
    for memory_id in ids:
        seen.pop(memory_id, None)
        for archived in (False, True):
            try:
                st = os.stat(store.path_for(memory_id, archived))
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            seen[memory_id] = (st.st_mtime_ns, st.st_size, archived)
            break
    archive = (fingerprint({k: v for k, v in seen.items() if v[2]})
               if store.archive_dir.is_dir() else "-")
    return seen, f"{archive}:{fingerprint({k: v for k, v in seen.items() if not v[2]})}"


class ListedIds:
    """The store's memory ids, listed when first asked for: a quick check (no scan)
    does not know them, and most commands never ask."""

    def __init__(self, store: Store):
        self.store = store

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self.store.ids(), *self.store.ids(archived=True)]))
