"""The memory store: a directory of YAML files, the only source of truth (SPEC 2).

A ``Store`` is one directory with ``memories/``, ``archive/``, ``local/`` and
``cache/``: the project's ``.memx/`` or the user's global store. Writes are atomic and
hold the store lock; reads never modify tracked files.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from memx_cli.errors import (
    AmbiguousIdError,
    InvalidMemoryError,
    NotFoundError,
    StoreError,
    shown,
)
from memx_cli.fsutil import atomic_write, atomic_write_many, locked
from memx_cli.safeyaml import NotRegularFileError, read_regular
from memx_cli.store import memory as memfmt
from memx_cli.store import merge3
from memx_cli.store.ids import ID_LENGTH, abbreviate, normalize_prefix
from memx_cli.store.memory import Memory, Problem
from memx_cli.store.merge3 import ConcurrentChangeError

log = logging.getLogger("memx")

GITIGNORE = "# memx: per-clone state and derived indexes, never committed\nlocal/\ncache/\nconfig.local.yaml\n"
MAX_FILE_BYTES = 1_000_000  # a memory is a paragraph; anything this big is not one


class Written(NamedTuple):
    """A memory as ``write_many`` wrote it: the record, its file's bytes, and the file's
    inode, time and size right after the write (a later change moves one of them)."""

    memory: Memory
    data: bytes
    ino: int
    mtime_ns: int
    size: int


@dataclass
class Loaded:
    """Every memory that parsed, and a problem for every file that did not."""

    memories: list[Memory] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class LinkedStoreError(StoreError):
    """A folder of a project store is a symbolic link (``shown``: its path as shown)."""

    REASON = ("memx follows no link in its store (a committed one could send its writes "
              "out of the repository): remove it, then run memx again")

    def __init__(self, shown: str) -> None:
        self.shown = shown
        super().__init__(f"{shown} is a symbolic link; {self.REASON}")


class Store:
    def __init__(self, root: Path, label: str, display_base: Path | None = None,
                 masker: Callable[[Memory], Memory] | None = None):
        self.root = root
        self.label = label  # "project" or "global"
        self._display_base = display_base
        # The privacy gate (issue 12): every memory written passes it. The repository
        # gives the one its configuration asks for (custom patterns); else the built-in.
        self.masker = masker or _builtin_mask
        self._aside_dir: Path | bool | None = None  # _aside(): None until first asked
        self._links_checked: Path | None = None  # the root _refuse_links last found clean
        self._joined: tuple[Path, Path, Path] | None = None  # _folders()
        self._shown: tuple[Path, str, str] | None = None  # display_for()
        # The memory folders' marks (``folder_marks``) just before this process's
        # ``write_many`` and just after it, chained over several; the index's update
        # takes them (issue 29: the next write then needs no store-wide check).
        self.wrote: tuple[tuple[str, str], tuple[str, str]] | None = None

    # ------------------------------------------------------------ layout

    @property
    def memories_dir(self) -> Path:
        return self._folders()[1]

    @property
    def archive_dir(self) -> Path:
        return self._folders()[2]

    def _folders(self) -> tuple[Path, Path, Path]:
        """The root and its memories and archive folders, joined once per root: a bulk
        write asks for them a few times a record (issue 29: a tenth of an import's
        CPU went to joining the same paths)."""
        folders = self._joined
        if folders is None or folders[0] is not self.root:
            self._refuse_links()
            folders = self._joined = (self.root, self.root / "memories", self.root / "archive")
        return folders

    def _refuse_links(self) -> None:
        """A project store's own folders are no symbolic links: ``.memx/`` and what is in
        it arrive by ``git pull``, and a committed ``.memx/cache`` (or ``local``,
        ``archive``, ``memories``) that links out of the repository would send memx's
        writes, its index files, temporaries and archived memories, into any folder
        the user can write (walk17). Raises StoreError naming the link."""
        if self.label != "project" or self._links_checked is self.root:
            return
        for name in ("", "memories", "archive", "cache", "local"):
            path = self.root / name if name else self.root
            if os.path.islink(path):
                raise LinkedStoreError(self.display(path))
        self._links_checked = self.root

    def check_links(self) -> None:
        """Raise LinkedStoreError when a folder of the store is a symbolic link."""
        self._refuse_links()

    def folder_marks(self) -> tuple[str, str]:
        """The memories and archive folders' inode and modification time (``-``:
        missing, ``?``: unreadable): a mark moves whenever a name in the folder is added,
        removed or replaced (memx's renames, git's checkouts, an editor that saves by
        rename), not when a file is written in place."""
        marks = []
        for directory in (self.memories_dir, self.archive_dir):
            try:
                st = os.stat(directory)
            except FileNotFoundError:
                marks.append("-")
                continue
            except OSError:
                marks.append("?")
                continue
            marks.append(f"{st.st_ino}.{st.st_mtime_ns}")
        return marks[0], marks[1]

    @property
    def local_dir(self) -> Path:
        self._refuse_links()
        return self.root / "local"

    @property
    def cache_dir(self) -> Path:
        self._refuse_links()
        aside = self._aside()
        return aside / "cache" if aside is not None else self.root / "cache"

    @property
    def lock_path(self) -> Path:
        aside = self._aside()
        return aside / "write.lock" if aside is not None else self.local_dir / "write.lock"

    @property
    def state_dir(self) -> Path:
        """Where this machine's derived statistics live (recall counts, the anchors'
        verification cache): local/, or beside the caches for a read-only store."""
        aside = self._aside()
        return aside / "local" if aside is not None else self.local_dir

    def _aside(self) -> Path | None:
        """For a store this user cannot write (a read-only mount or checkout), a folder
        of the user's cache that holds its indexes, lock and statistics, so it can still
        be searched; None for a writable store. Its memories stay read-only."""
        if self._aside_dir is None:
            writable = not self.root.is_dir() or os.access(self.root, os.W_OK)
            if writable:
                self._aside_dir = False
            else:
                import hashlib

                base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
                key = hashlib.sha256(str(self.root.resolve()).encode()).hexdigest()[:20]
                self._aside_dir = Path(base) / "memx" / "read-only" / key
        return self._aside_dir if isinstance(self._aside_dir, Path) else None

    @property
    def tmp_dir(self) -> Path:
        """Where writes stage their temporary files: under local/, which is never
        committed, so ``git add .memx`` never meets one (issue 14)."""
        return self.local_dir / "tmp"

    def exists(self) -> bool:
        # git does not keep an empty memories/ folder: a fresh clone of a repository
        # with no memory yet has only .memx/config.yaml, and that is a store too.
        return self.memories_dir.is_dir() or (self.root / "config.yaml").is_file()

    def display(self, path: Path) -> str:
        """A path as users should see it: relative to the work tree when inside it, a
        control character in a name (a committed file called 'x\\n.yaml') written as its
        escape, so a notice about it stays one line (walk17)."""
        shown = str(path)
        if self._display_base is not None:
            with contextlib.suppress(ValueError):
                shown = path.relative_to(self._display_base).as_posix()
        if shown.isprintable():
            return shown
        return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                       for c in shown)

    def create(self) -> list[Path]:
        """Create the layout; returns what was newly made. Idempotent."""
        made = []
        for directory in (self.root, self.memories_dir):
            if not directory.is_dir():
                directory.mkdir(parents=True, exist_ok=True)
                made.append(directory)
        ignore = self.root / ".gitignore"
        if not ignore.exists():
            atomic_write(ignore, GITIGNORE.encode())
            made.append(ignore)
        return made

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        with locked(self.lock_path):
            if self.root not in _swept:
                _swept.add(self.root)
                remove_leftovers(self)
                from memx_cli.store import intents

                for line in intents.recover(self):
                    log.warning(line)
            yield

    # ------------------------------------------------------------ reading

    def files(self, archived: bool = False) -> list[Path]:
        directory = self.archive_dir if archived else self.memories_dir
        # Dot files are our temporaries (and editor swap files); never memories.
        return [directory / n for n in self._names(directory)]

    def ids(self, archived: bool = False) -> list[str]:
        """The ids of the memory files, sorted (cheaper than ``files`` for large stores)."""
        return [n[:-5] for n in self._names(self.archive_dir if archived else self.memories_dir)]

    def more_than(self, count: int) -> bool:
        """Whether more than ``count`` memory files are current (archived ones aside),
        reading the folder only that far: a large store costs what a small one does."""
        try:
            entries = os.scandir(self.memories_dir)
        except FileNotFoundError:
            return False
        except NotADirectoryError:
            return len(self.ids()) > count  # raises the store's one-line error
        with entries:
            found = 0
            for entry in entries:
                if entry.name.endswith(".yaml") and entry.name[0] != ".":
                    found += 1
                    if found > count:
                        return True
        return False

    def _names(self, directory: Path) -> list[str]:
        try:
            names = os.listdir(directory)
        except FileNotFoundError:
            return []
        except NotADirectoryError:
            raise StoreError(f"{self.display(directory)} is a file, not a directory; move it "
                             "aside (memories live in that directory)") from None
        return sorted(n for n in names if n.endswith(".yaml") and n[0] != ".")

    def unreadable(self, path: Path, exc: OSError) -> InvalidMemoryError:
        """The one-line problem of the memory file at ``path`` that could not be read
        (a link, a FIFO, over the size limit): the index records it as any parse problem,
        so a reader that trusts the index warns about it as one that reads the files."""
        if isinstance(exc, NotRegularFileError):
            return InvalidMemoryError(
                f"{self.display(path)}: not a regular file; move it out of the store")
        if exc.errno == errno.EFBIG:
            return InvalidMemoryError(
                f"{self.display(path)}: {exc.strerror}; too large for a memory file")
        return InvalidMemoryError(f"{self.display(path)}: cannot read: {exc.strerror}")

    def read_file(self, path: Path, data: bytes | None = None) -> Memory:
        """Parse the memory file at ``path`` (from ``data`` when read already)."""
        try:
            if data is None:
                data = read_regular(path, MAX_FILE_BYTES, follow=False)
            elif len(data) > MAX_FILE_BYTES:
                raise OSError(errno.EFBIG, f"{len(data)} bytes, over the limit of "
                              f"{MAX_FILE_BYTES}", str(path))
        except OSError as exc:
            raise self.unreadable(path, exc) from None
        mem = memfmt.load(data, self.display(path))
        if path.stem != mem.id:
            raise InvalidMemoryError(
                f"{self.display(path)}:2: id {mem.id} does not match the file name; "
                f"rename the file to {mem.id}.yaml"
            )
        return mem

    def load_all(self, archived: bool = False) -> Loaded:
        """Every memory in the store; one bad file is a problem, never a failure."""
        result = Loaded()
        for path in self.files(archived):
            try:
                result.memories.append(self.read_file(path))
            except InvalidMemoryError as exc:
                result.problems.append(_problem_from(exc, self.display(path)))
        return result

    def path_for(self, memory_id: str, archived: bool = False) -> Path:
        return (self.archive_dir if archived else self.memories_dir) / f"{memory_id}.yaml"

    def display_for(self, memory_id: str, archived: bool = False) -> str:
        """``display(path_for(memory_id, archived))`` from the folder's displayed form,
        made once per store: an index update names the file of every document it builds
        (issue 29: a path made and made relative per document was 7 ms a 1,000)."""
        shown = self._shown
        if shown is None or shown[0] is not self.root:
            shown = self._shown = (self.root, self.display(self.memories_dir),
                                   self.display(self.archive_dir))
        return f"{shown[2 if archived else 1]}/{memory_id}.yaml"

    def matching_ids(self, prefix: str, archived: bool = False) -> list[str]:
        key = normalize_prefix(prefix)
        return [p.stem for p in self.files(archived) if p.stem.startswith(key)]

    # ------------------------------------------------------------ writing

    def write(self, mem: Memory, archived: bool = False, *, raw: bool = False) -> Path:
        """Write one memory atomically under the store lock, masked (see ``write_many``)."""
        data = memfmt.dump(mem if raw else self.masker(mem))
        path = self.path_for(mem.id, archived)
        with self.lock():
            atomic_write(path, data, tmp_dir=self.tmp_dir)
        return path

    def update(self, memory_id: str, change: Callable[[Memory], Memory],
               archived: bool = False) -> Memory:
        """Read-modify-write under the lock: ``change`` sees the file as it is now, so
        concurrent writers (39 votes at once) never lose an increment (issue 14)."""
        path = self.path_for(memory_id, archived)
        with self.lock():
            if not path.exists():
                raise NotFoundError(f"no memory {memory_id}")
            new = change(self.read_file(path))
            new = self.masker(new)  # the privacy gate, as in write_many
            atomic_write(path, memfmt.dump(new), tmp_dir=self.tmp_dir)
        return new

    def write_over(self, base: Memory, new: Memory, archived: bool = False) -> Memory:
        """Write ``new``, a change of ``base`` as read earlier, without losing what
        another writer did to the file since: merged field by field when it changed
        (``merge3.merge``), a ConcurrentChangeError (nothing written) when both changed
        the same field. Returns what was written."""
        path = self.path_for(new.id, archived)
        with self.lock():
            try:
                current = self.read_file(path)
            except InvalidMemoryError:
                if path.exists():
                    raise
                raise ConcurrentChangeError(
                    f"{new.id} was removed or archived while you worked on it") from None
            if current != base:
                new = merge3.merge(base, new, current)
            new = self.masker(new)  # the privacy gate, as in write_many
            atomic_write(path, memfmt.dump(new), tmp_dir=self.tmp_dir)
        return new

    def write_over_broken(self, data: bytes, new: Memory) -> Memory:
        """Write ``new`` over its memory file that did not parse, read earlier as ``data``:
        a ConcurrentChangeError (nothing written) when the file changed or went away since.
        Masked like every write; returns what was written."""
        path = self.path_for(new.id)
        with self.lock():
            try:
                now: bytes | None = read_regular(path, MAX_FILE_BYTES, follow=False)
            except OSError:
                now = None
            if now != data:
                raise merge3.ConcurrentChangeError(
                    f"{self.display(path)} changed or went away while you edited it")
            new = self.masker(new)
            atomic_write(path, memfmt.dump(new), tmp_dir=self.tmp_dir)
        return new

    def write_many(self, memories: list[Memory], *, raw: bool = False,
                   encoded: Mapping[str, bytes] | None = None) -> dict[str, Written]:
        """Write several memories under one lock (each file still atomic).

        Every free-text field is masked first (the privacy gate, issue 12); ``raw=True``
        is ACE off (``--raw``, ``ace.enabled: false``), which SPEC 3 stores as given.
        Masking is idempotent, so text the ACE path masked already comes out the same.
        ``encoded`` (with ``raw``) holds the file bytes of some memories, made already.
        Returns what was written, by id: the index of this store takes its records from
        there instead of reading the files back (issue 29).
        """
        known = encoded if raw and encoded is not None else {}
        final = {m.id: m if raw else self.masker(m) for m in memories}
        data = {i: known.get(i) or memfmt.dump(m) for i, m in final.items()}
        paths = {i: self.path_for(i) for i in final}
        with self.lock():
            before = self.folder_marks()
            stats = atomic_write_many([(paths[i], d) for i, d in data.items()], self.tmp_dir)
            chain, after = self.wrote, self.folder_marks()
            self.wrote = (chain[0] if chain is not None and chain[1] == before else before,
                          after)
            if _swept_marks(self) == list(before):  # only memory files added: still swept
                _record_swept(self, after)
        return {i: Written(m, data[i], *stats[paths[i]]) for i, m in final.items()}

    def remove(self, memory_id: str) -> Path:
        path = self.path_for(memory_id)
        with self.lock():
            try:
                path.unlink()
            except FileNotFoundError:
                raise NotFoundError(f"no memory {memory_id}") from None
        return path


_swept: set[Path] = set()  # stores whose leftovers this process removed already


SWEPT_FILE = "swept.json"
# A folder changed this recently may change again within the same tick of the file
# system's clock without its time moving: its marks are not recorded as swept then.
SWEPT_RACY_NS = 2_000_000_000


def _swept_marks(store: Store) -> list[str] | None:
    try:
        marks = json.loads((store.local_dir / SWEPT_FILE).read_bytes())
    except (OSError, ValueError):
        return None
    return [str(m) for m in marks] if isinstance(marks, list) and len(marks) == 2 else None


def _record_swept(store: Store, marks: tuple[str, str]) -> None:
    if "?" not in marks:
        with contextlib.suppress(OSError):
            atomic_write(store.local_dir / SWEPT_FILE, json.dumps(marks).encode(),
                         durable=False, tmp_dir=store.tmp_dir)


def leftovers(store: Store, beside: bool = True) -> list[Path]:
    """Temporary files of writes that were killed: ``.NAME.PID.tmp`` whose process is
    gone, in local/tmp/ and (from older versions, and the repair of an interrupted
    supersede) beside the memories when ``beside``."""
    found = []
    folders = (store.tmp_dir, store.memories_dir, store.archive_dir)
    for directory in folders if beside else folders[:1]:
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            if name.startswith(".") and name.endswith(".tmp") and not _alive(name):
                found.append(directory / name)
    return sorted(found)


def remove_leftovers(store: Store) -> list[Path]:
    """Delete what ``leftovers`` finds (run under the store lock, once per process).
    The memory folders are listed only when their marks moved since a sweep found them
    clean (``local/swept.json``; memx's own writes carry the record forward): a listing
    of 100k names was a tenth of a `memx add` at 100k (issue 29). A temporary file
    created there moves the folder's time, so the next process lists it again."""
    marks = store.folder_marks()
    beside = list(marks) != _swept_marks(store)
    removed = []
    for path in leftovers(store, beside):
        with contextlib.suppress(OSError):
            path.unlink()
            removed.append(path)
    settled = time.time_ns() - SWEPT_RACY_NS
    if beside and not any(p.parent != store.tmp_dir for p in removed) and all(
            m == "-" or (m != "?" and int(m.partition(".")[2]) < settled) for m in marks):
        _record_swept(store, marks)
    return removed


def _alive(name: str) -> bool:
    """Whether the process that named this temporary file still runs."""
    pid = name[:-4].rsplit(".", 1)[-1]
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return int(pid) != os.getpid()  # under the lock, none of ours is half-written


def _builtin_mask(mem: Memory) -> Memory:
    from memx_cli.privacy.sanitizer import cached, sanitize_memory

    return sanitize_memory(mem, cached(()))


def resolve(stores: list[Store], prefix: str) -> tuple[Store, str]:
    """The store and full id a user-typed prefix names, like git resolves short shas."""
    key = normalize_prefix(prefix)
    if not key:
        raise NotFoundError("empty memory id; pass an id or a unique prefix of one")
    if len(key) > ID_LENGTH or not all(c in "0123456789abcdefghjkmnpqrstvwxyz" for c in key):
        raise NotFoundError(f"{shown(prefix)} is not a memory id; ids look like 01jd3k7m2x9q...")
    found = [(store, mid) for store in stores for mid in store.matching_ids(key)]
    if not found:
        raise NotFoundError(f"no memory matches {shown(prefix)}; see memx list")
    if len(found) > 1:
        short = abbreviate([mid for _, mid in found])
        names = ", ".join(short[mid] for _, mid in found[:10])
        more = f" and {len(found) - 10} more" if len(found) > 10 else ""
        raise AmbiguousIdError(
            f"id prefix {shown(prefix)} matches {len(found)} memories: {names}{more}; type more characters"
        )
    return found[0]


def _problem_from(exc: Exception, display: str) -> Problem:
    """Split a ``path:line: message`` error back into its parts."""
    text = str(exc)
    rest = text[len(display) + 1 :] if text.startswith(display + ":") else text
    line: int | None = None
    head, sep, tail = rest.partition(":")
    if sep and head.isdigit():
        line, rest = int(head), tail
    return Problem(display, line, rest.strip())
