"""What the derived indexes were built from (SPEC 9): per-file stat and content hash,
the model, and the versions of the index layout and store schema.

One SQLite file (standard library), one row per memory file, so that an update after
one changed memory reads and writes that memory's rows, not every entry (issue 15: the
JSON manifest it replaces was loaded and saved whole, 0.9 s per update at 100k). The
file is a cache like the rest of ``cache/``: unreadable, it is rebuilt.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memx_cli.store.memory import SCHEMA_VERSION

if TYPE_CHECKING:
    import sqlite3

# Bump when the tantivy schema, the stored document or the vector layout changes:
# an index with another version is rebuilt automatically.
# 6: the files table holds a group member's time (``created``); 7: the stemmed fields
# hold the words of a name written together (textproc.with_name_words)
INDEX_VERSION = 7
# Batches of ids per query: SQLite's default limit of bound parameters is 32766.
_BATCH = 900

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (id TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL, digest TEXT NOT NULL, archived INTEGER NOT NULL, grp TEXT,
    created TEXT) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS files_grp ON files (grp) WHERE grp IS NOT NULL;
CREATE INDEX IF NOT EXISTS files_problem ON files (id) WHERE substr(digest, 1, 1) = '!';
"""


class FileState(NamedTuple):
    """One indexed memory file: enough to notice a change without reading it."""

    mtime_ns: int
    size: int
    digest: str  # "!<problem>" for a file that does not parse
    archived: bool
    group: str | None
    # A group member's time (created_at), which orders the group (documents.order_key):
    # an update takes the unchanged members' order from their rows (issue 29: not from
    # 2,000 stored documents for a turn added to a long session); None outside a group,
    # and in a row moved from a JSON manifest (the order then asks the text index).
    created: str | None = None

    @classmethod
    def from_list(cls, raw: list[Any]) -> FileState:
        if len(raw) != 5 or not isinstance(raw[2], str):
            raise ValueError(f"malformed file entry {raw!r}")
        return cls(int(raw[0]), int(raw[1]), raw[2], bool(raw[3]), raw[4])


_COLUMNS = "mtime_ns, size, digest, archived, grp, created"  # a FileState's, in order


def _state(row: tuple[Any, ...]) -> FileState:
    return FileState(row[0], row[1], row[2], bool(row[3]), row[4], row[5])


class Manifest:
    """The rows of one index. ``model``, ``pending`` and ``pending_removed`` are read at
    open and written with the rows by ``write`` (one transaction per update)."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        self.index_version = int(meta.get("index_version", "0"))
        self.schema = int(meta.get("schema", "0"))
        model = meta.get("model")
        self.model: str | None = json.loads(model) if model else None
        # Memories whose vectors lag behind the text index (a keyword-only read).
        self.pending: list[str] = json.loads(meta.get("pending", "[]"))
        self.pending_removed: list[str] = json.loads(meta.get("pending_removed", "[]"))
        # False from ``create`` until the caller says the indexes hold every row: a
        # rebuild records its rows a batch at a time, before the text index commits
        # them, so a rebuild killed midway leaves rows that describe nothing.
        self.complete = meta.get("complete", "1") == "1"
        self._files: dict[str, FileState] | None = None

    # ------------------------------------------------------------ opening

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        import sqlite3

        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        # WAL: one append per update, readers never blocked; NORMAL: no sync per commit
        # (a cache; a lost update is found again by the next scan). docs/index.md.
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        return db

    @classmethod
    def create(cls, path: Path) -> Manifest:
        """A new, empty manifest in place of whatever ``path`` held."""
        for stale in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm"))):
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)
        db = cls._connect(path)
        db.executescript(_SCHEMA)
        db.executemany("INSERT INTO meta VALUES (?, ?)",
                       [("index_version", str(INDEX_VERSION)), ("schema", str(SCHEMA_VERSION)),
                        ("complete", "0")])
        return cls(db)

    @classmethod
    def load(cls, path: Path, legacy: Path | None = None) -> Manifest | None:
        """The manifest, or None when there is none; raises ValueError when corrupt.
        A JSON manifest of an earlier memx (``legacy``) is moved into a new one once."""
        import sqlite3

        if not path.exists():
            return cls._migrate(path, legacy) if legacy is not None else None
        try:
            db = cls._connect(path)
            return cls(db)
        except (sqlite3.Error, ValueError, TypeError) as exc:
            raise ValueError(f"unreadable manifest: {exc}") from None

    @classmethod
    def _migrate(cls, path: Path, legacy: Path) -> Manifest | None:
        try:
            raw = json.loads(legacy.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise ValueError(f"unreadable manifest: {exc}") from None
        try:
            files = {str(k): FileState.from_list(v) for k, v in raw["files"].items()}
            manifest = cls.create(path)
            manifest.index_version, manifest.schema = (int(raw["index_version"]),
                                                       int(raw["schema"]))
            manifest.model = raw.get("model")
            manifest.pending = list(raw.get("pending", []))
            manifest.pending_removed = list(raw.get("pending_removed", []))
            manifest.complete = True  # it describes the indexes beside it
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"malformed manifest: {exc!r}") from None
        manifest.write(files, ())
        legacy.unlink()
        return manifest

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------ reading

    def compatible(self) -> bool:
        """Whether this manifest describes indexes this memx can use as they are."""
        return (self.complete and self.index_version == INDEX_VERSION
                and self.schema == SCHEMA_VERSION)

    @property
    def files(self) -> dict[str, FileState]:
        """Every row (a full comparison, the relation graph); read once, then kept."""
        if self._files is None:
            rows = self._db.execute(f"SELECT id, {_COLUMNS} FROM files").fetchall()
            self._files = {row[0]: _state(row[1:]) for row in rows}
        return self._files

    def stats(self) -> dict[str, tuple[int, int, bool]]:
        """Every file's (mtime_ns, size, archived), as a scan sees it: a full comparison
        then fetches whole rows for the few that differ."""
        if self._files is not None:
            return {i: (s.mtime_ns, s.size, s.archived) for i, s in self._files.items()}
        return {row[0]: (row[1], row[2], bool(row[3])) for row in self._db.execute(
            "SELECT id, mtime_ns, size, archived FROM files")}

    def rows(self, ids: Iterable[str]) -> dict[str, FileState]:
        """The rows of ``ids`` that exist."""
        if self._files is not None:
            return {i: self._files[i] for i in ids if i in self._files}
        found: dict[str, FileState] = {}
        wanted = list(dict.fromkeys(ids))
        for start in range(0, len(wanted), _BATCH):
            batch = wanted[start:start + _BATCH]
            query = (f"SELECT id, {_COLUMNS} FROM files "
                     f"WHERE id IN ({','.join('?' * len(batch))})")
            found.update((row[0], _state(row[1:])) for row in self._db.execute(query, batch))
        return found

    def members(self, groups: Iterable[str]) -> dict[str, FileState]:
        """The rows of every memory (parse problems aside) in ``groups``."""
        found: dict[str, FileState] = {}
        wanted = list(dict.fromkeys(groups))
        for start in range(0, len(wanted), _BATCH):
            batch = wanted[start:start + _BATCH]
            query = (f"SELECT id, {_COLUMNS} FROM files "
                     f"WHERE grp IN ({','.join('?' * len(batch))}) "
                     "AND substr(digest, 1, 1) != '!'")
            found.update((row[0], _state(row[1:])) for row in self._db.execute(query, batch))
        return found

    def grouped(self) -> dict[str, list[str]]:
        """Every source group's memories (parse problems aside), ids in order: the rows
        with a group only, through their index."""
        groups: dict[str, list[str]] = {}
        for memory_id, group in self._db.execute(
                "SELECT id, grp FROM files WHERE grp IS NOT NULL "
                "AND substr(digest, 1, 1) != '!' ORDER BY id"):
            groups.setdefault(group, []).append(memory_id)
        return groups

    def neighbours(self, memory_id: str) -> list[str]:
        """The ids just before and just after ``memory_id`` in id order, itself left out:
        all a unique prefix of it must differ from (two lookups in the key's index)."""
        found = []
        for query in ("SELECT id FROM files WHERE id < ? ORDER BY id DESC LIMIT 1",
                      "SELECT id FROM files WHERE id > ? ORDER BY id LIMIT 1"):
            row = self._db.execute(query, (memory_id,)).fetchone()
            if row is not None:
                found.append(str(row[0]))
        return found

    def problems(self, archived: bool | None = None) -> list[str]:
        """The parse problems, in memory id order (an index of the few problem rows);
        ``archived``: only those of archived (True) or current (False) files."""
        return [row[0][1:] for row in self._db.execute(
            "SELECT digest, archived FROM files WHERE substr(digest, 1, 1) = '!' ORDER BY id")
            if archived is None or bool(row[1]) == archived]

    # ------------------------------------------------------------ writing

    def write(self, upserts: dict[str, FileState], deletes: Iterable[str]) -> None:
        """Store changed rows, removed ids and the model and pending lists, in one
        transaction."""
        deletes = list(deletes)
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?)",
                           [(i, s.mtime_ns, s.size, s.digest, int(s.archived), s.group,
                             s.created)
                            for i, s in upserts.items()])
            db.executemany("DELETE FROM files WHERE id = ?", [(i,) for i in deletes])
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [
                ("index_version", str(self.index_version)), ("schema", str(self.schema)),
                ("model", json.dumps(self.model)), ("pending", json.dumps(self.pending)),
                ("pending_removed", json.dumps(self.pending_removed)),
                ("complete", str(int(self.complete)))])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if self._files is not None:
            self._files.update(upserts)
            for memory_id in deletes:
                self._files.pop(memory_id, None)
