"""A change check of a store whose cost does not grow with the number of memories
(issue 15; the choice and its figures: docs/index.md).

A full scan stats every memory file. This check stats the two memory folders instead
(memx writes by atomic rename and git checks files out by unlink and create, so adding,
removing, renaming or replacing a file moves a folder's time) and asks git which tracked
files differ from its index (``git diff-files``: git's stat cache, compared in C), then
stats only the few files git does not track and the ones it lists. Equal stamps mean
no memory file changed. Whatever this cannot vouch for (no git, many untracked files,
times too recent to tell apart) gives no stamp, and the caller scans in full. The git
half may have been started as the command started (``ahead``), to run while it imports.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from memx_cli.freshness import ahead
from memx_cli.store.files import Store

# A folder or file changed this recently may change again within the same tick of the
# file system's clock without its time moving (the "racy git" problem): no stamp then.
# The kernel's file times lag its clock by up to one tick (10 ms at HZ=100).
RACY_NS = 50_000_000
# File systems with whole-second times (FAT keeps two seconds).
COARSE_RACY_NS = 2_000_000_000
# Past this many untracked (or modified) files, stat-ing them is most of a full scan.
LOOSE_LIMIT = 500
# Below this many memory files a full scan (about 6 µs a file) costs less than starting
# git (5-10 ms, more on a busy machine): paired runs at 1k were 1.36x slower with it.
MIN_FILES = 2000


class Basis(NamedTuple):
    """What a stamp covers, learnt at a full scan: git's index file (None outside a
    work tree) and the memory files git does not track, relative to the store root
    (None: too many, no stamp). ``key`` (folders and git index) says when to learn
    it again; ``root``: the store it was learnt for (a copied or moved repository
    starts over: its git index is elsewhere)."""

    git_index: str | None
    loose: tuple[str, ...] | None
    key: str
    root: str

    def covers(self, other: Basis | None) -> bool:
        return (other is not None and self.loose is not None
                and (self.git_index, self.loose) == (other.git_index, other.loose))

    def same(self, other: Basis | None) -> bool:
        """Covers the same files (the key matters only while ``loose`` is unknown)."""
        return (other is not None and (self.git_index, self.loose) == (other.git_index, other.loose)
                and (self.loose is not None or self.key == other.key))

    def moved(self, before: dict[str, tuple[int, int, bool]],
              after: dict[str, tuple[int, int, bool]]) -> Basis:
        """After memx wrote files: a path that is new (a new memory, an archive move)
        counts as untracked until the next full scan asks git, and a path gone leaves
        the list; rewriting a file in place of itself changes nothing for git."""
        if self.loose is None:
            return self
        loose = set(self.loose)
        for memory_id in before.keys() | after.keys():
            old = memory_path(memory_id, before[memory_id][2]) if memory_id in before else None
            new = memory_path(memory_id, after[memory_id][2]) if memory_id in after else None
            if old != new:
                loose.discard(old or "")
                if new is not None:
                    loose.add(new)
        if len(loose) > LOOSE_LIMIT:
            return self._replace(loose=None)
        return self._replace(loose=tuple(sorted(loose)))

    def to_json(self) -> dict[str, Any]:
        return {"index": self.git_index, "key": self.key, "root": self.root,
                "loose": list(self.loose) if self.loose is not None else None}

    @classmethod
    def from_json(cls, raw: Any, store: Store) -> Basis | None:
        if (not isinstance(raw, dict) or not isinstance(raw.get("key"), str)
                or raw.get("root") != str(store.root)):
            return None
        index, loose = raw.get("index"), raw.get("loose")
        return cls(index if isinstance(index, str) else None,
                   tuple(p for p in loose if isinstance(p, str))
                   if isinstance(loose, list) else None, raw["key"], raw["root"])


def worth_it(files: int) -> bool:
    """Whether a store of this many memory files gets a stamp at all."""
    return files >= MIN_FILES


def key(store: Store, index: str | None) -> str:
    """Changes when a memory file is added, removed or renamed, or git's index is
    rewritten: a few stats."""
    parts = []
    for path in (store.memories_dir, store.archive_dir, index):
        try:
            st = os.stat(path) if path is not None else None
        except OSError:
            st = None
        parts.append(f"{st.st_ino}.{st.st_mtime_ns}.{st.st_size}" if st else "-")
    return ":".join(parts)


def _git(args: list[str], store: Store) -> bytes | None:
    import subprocess

    env = {k: v for k, v in os.environ.items() if k not in ahead.GIT_ENV}
    try:
        proc = subprocess.run(["git", *args], cwd=store.root, env=env, capture_output=True,
                              check=False)
    except OSError:
        return None
    return proc.stdout if proc.returncode == 0 else None


def _diff_files(store: Store, now: int) -> tuple[bytes | None, int]:
    """What ``git diff-files`` lists (None: it failed) and the time before it began:
    the run ``ahead.start`` began as the command started, else a run now."""
    early = ahead.take(str(store.root))
    return early if early is not None else (_git(ahead.DIFF, store), now)


def memory_path(memory_id: str, archived: bool) -> str:
    """A memory file's path relative to the store root."""
    return f"{'archive' if archived else 'memories'}/{memory_id}.yaml"


def _paths(out: bytes) -> list[str]:
    return [p for p in os.fsdecode(out).split("\0") if p]


def basis(store: Store, files: Iterable[tuple[str, bool]], index: str | None = None) -> Basis:
    """The basis for the scanned ``files`` (id, archived); without ``loose`` when a stamp
    would not save a full scan (too many files outside git). ``index``: git's index
    file as an earlier basis found it (saves asking git where it is)."""
    if index is None or not os.path.isfile(index):
        index_out = _git(["rev-parse", "--path-format=absolute", "--git-path", "index"],
                         store)
        index = os.fsdecode(index_out).strip() if index_out is not None else None
    at = key(store, index)
    tracked: set[str] = set()
    if index is not None:
        listed = _git(["ls-files", "-z", "--", "memories", "archive"], store)
        if listed is None:
            return Basis(index, None, at, str(store.root))
        tracked = set(_paths(listed))
    loose = []
    for memory_id, archived in files:
        path = memory_path(memory_id, archived)
        if path not in tracked:
            loose.append(path)
            if len(loose) > LOOSE_LIMIT:
                return Basis(index, None, at, str(store.root))
    return Basis(index, tuple(sorted(loose)), at, str(store.root))


def _racy(mtime_ns: int, now: int) -> bool:
    margin = COARSE_RACY_NS if mtime_ns % 1_000_000_000 == 0 else RACY_NS
    return mtime_ns >= now - margin


def held_marks(store: Store) -> list[str] | None:
    """The memory folders' marks (``Store.folder_marks``) as a check about to look at
    every file takes them, for the state it leaves (``held``: the index held every file
    when the folders were so); None when a mark is unreadable or too recent to tell a
    later change in the same tick of the file system's clock apart."""
    now = time.time_ns()
    marks = store.folder_marks()
    for mark in marks:
        if mark == "?" or (mark != "-" and _racy(int(mark.partition(".")[2]), now)):
            return None
    return list(marks)


class Look(NamedTuple):
    """What a stamp is a digest of, kept apart so a writer can tell its own changes
    from anyone else's (``Claim``): the two folders, git's index file, the files
    git lists as changed and the untracked ones of the basis, each ``path: stat``."""

    dirs: tuple[str, str]  # memories/, archive/
    git: str | None  # git's index file
    listed: dict[str, str]
    loose: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {"dirs": list(self.dirs), "git": self.git, "listed": self.listed,
                "loose": self.loose}

    @classmethod
    def from_json(cls, raw: Any) -> Look | None:
        try:
            dirs, git, listed, loose = raw["dirs"], raw["git"], raw["listed"], raw["loose"]
            return cls((str(dirs[0]), str(dirs[1])), git if isinstance(git, str) else None,
                       {str(k): str(v) for k, v in listed.items()},
                       {str(k): str(v) for k, v in loose.items()})
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            return None

    def digest(self) -> str:
        parts = [*self.dirs, *([self.git] if self.git is not None else [])]
        for group in (self.listed, self.loose):
            parts.append("|")
            parts.extend(group.values())
        return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogateescape")
                              ).hexdigest()[:32]


def stamp(store: Store, on: Basis) -> str | None:
    """A digest of everything that can show a change of a memory file, given ``on``;
    None when it cannot vouch for the files (git failed, too many modified files, or
    a time too recent to trust)."""
    found = look(store, on)
    return found.digest() if found is not None else None


def look(store: Store, on: Basis) -> Look | None:
    """``stamp`` before its digest."""
    if on.loose is None:
        return None
    now = time.time_ns()
    out: bytes | None = b""
    if on.git_index is not None:
        # git's look may have begun earlier (``ahead.start``): the times are then judged
        # against that moment, which can only find more of them too recent.
        out, now = _diff_files(store, now)
    dirs = store.folder_marks()
    for mark in dirs:
        if mark == "?" or (mark != "-" and _racy(int(mark.partition(".")[2]), now)):
            return None
    listed: list[str] = []
    index = None
    if on.git_index is not None:
        index = index_mark(on.git_index)
        if index is None or out is None:
            return None
        listed = _paths(out)
        if len(listed) > LOOSE_LIMIT:
            return None
    groups: list[dict[str, str]] = []
    for group in (listed, on.loose):
        parts = {}
        for path in group:
            part = _file_part(store, path, now)
            if part is None:
                return None
            parts[path] = part
        groups.append(parts)
    return Look(dirs, index, groups[0], groups[1])


class Claim(NamedTuple):
    """What a write without the server leaves for the next reader (issue 29): the look
    behind the recorded stamp (the index was current then; ``state.json`` keeps its
    parts beside the digest) and the files written since, as indexed (``path:
    (mtime_ns, size)``, None for a file removed). The writer runs no git at all: the
    next reader looks anyway and checks that nothing but these files changed since
    (``holds``), then records its look as the stamp. A second write before that reader
    adds its files to the claim."""

    before: Look
    ours: dict[str, tuple[int, int] | None]

    def to_json(self) -> dict[str, Any]:
        return {**self.before.to_json(),
                "ours": {p: list(s) if s is not None else None for p, s in self.ours.items()}}

    @classmethod
    def from_json(cls, raw: Any) -> Claim | None:
        before = Look.from_json(raw)
        try:
            ours = {str(p): (int(s[0]), int(s[1])) if s is not None else None
                    for p, s in raw["ours"].items()}
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            return None
        return cls(before, ours) if before is not None else None

    def holds(self, store: Store, now: Look, fingerprint: str) -> bool:
        """Whether the index (current at ``before``, plus the written files) is current
        at ``now``, a look over the basis the write left: git's index, every other
        listed or untracked file as ``before`` saw it, the written files as indexed, and
        each folder whose time moved holding the names the index counts (a listing, no
        stat per file, against the count and name checksum of ``fingerprint``: a file
        someone else added or removed moves only a folder's time, as the write's own
        files do). ``now`` is a look: none of its times is too recent to trust."""
        if now.git != self.before.git:
            return False
        for old, new in ((self.before.listed, now.listed), (self.before.loose, now.loose)):
            for path in old.keys() | new.keys():
                if path not in self.ours and old.get(path) != new.get(path):
                    return False
        checked = time.time_ns()
        for path, indexed in self.ours.items():
            try:
                st = os.stat(store.root / path)
            except FileNotFoundError:
                if indexed is not None:
                    return False
                continue
            except OSError:
                return False
            if indexed != (st.st_mtime_ns, st.st_size) or _racy(st.st_mtime_ns, checked):
                return False
        # The fingerprint lists archive/ first, the look memories/ first.
        sums = fingerprint.split(":")
        if len(sums) != 2:
            return False
        for directory, then, at, expected in ((store.memories_dir, self.before.dirs[0],
                                               now.dirs[0], sums[1]),
                                              (store.archive_dir, self.before.dirs[1],
                                               now.dirs[1], sums[0])):
            if then != at and not _names_match(directory, expected):
                return False
        return True


def index_mark(path: str) -> str | None:
    """git's index file as a mark (``Look.git``): git replaces it by rename, a new
    inode; None when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return f"{st.st_ino}.{st.st_mtime_ns}.{st.st_size}"


def marks_before(store: Store, on: Basis | None, held: list[str] | None
                 ) -> dict[str, Any] | None:
    """For a store whose stamp cannot cover its untracked files (``Basis.loose`` None:
    more than LOOSE_LIMIT of them, a large import not yet committed), the marks a full
    check takes before it looks at every file, kept as ``unstamped`` for the next
    write's Curator (``settled``): the folders' (``held``, None while too recent to
    tell apart) and git's index. None when there is a stamp, or no such marks."""
    if on is None or on.loose is not None or held is None:
        return None
    git = index_mark(on.git_index) if on.git_index is not None else None
    if on.git_index is not None and git is None:
        return None
    return {"dirs": list(held), "git": git}


def settled(state: dict[str, Any]) -> tuple[tuple[str, str], str | None] | None:
    """The memory folders' marks and git's index mark (``Look.dirs``, ``Look.git``) at
    which the index of ``state`` was last known to hold every file memx had written:
    the look behind its stamp, or, after writes that left a claim, the folders as the
    last write left them (``left``, with the claim's git index); in a store with no
    stamp (too many untracked files), the marks its last full check took before it
    began, or its writes left since (``unstamped``). None when it names none (the
    write's Curator then checks as a reader does)."""
    if state.get("unstamped") and not state.get("written"):
        unstamped = state["unstamped"]
        dirs = unstamped.get("dirs") if isinstance(unstamped, dict) else None
        git = unstamped.get("git") if isinstance(unstamped, dict) else None
        if (isinstance(dirs, list) and len(dirs) == 2 and all(isinstance(d, str) for d in dirs)
                and (git is None or isinstance(git, str))):
            return (dirs[0], dirs[1]), git
        return None
    if state.get("written"):
        claim = Claim.from_json(state["written"])
        left = state.get("left")
        if claim is None or not isinstance(left, list) or len(left) != 2:
            return None
        return (str(left[0]), str(left[1])), claim.before.git
    seen = Look.from_json(state["look"]) if state.get("look") else None
    if seen is None or seen.digest() != state.get("quick"):
        return None
    return seen.dirs, seen.git


def unmoved(store: Store, state: dict[str, Any]) -> bool:
    """Whether no name in the memory folders and nothing in git's index changed since
    ``settled`` (issue 29): a few stats, for a write's Curator, which then uses the
    index as it is. Not a reader's check: a file edited in place, or one added within
    the same tick of the file system's clock as memx's own last write, moves no mark;
    the Curator reads its candidates' files when their stat differs from the index's,
    and the next reader's look (``Claim.holds``), or its full scan where there is no
    stamp (``unstamped``), still sees both."""
    on = Basis.from_json(state.get("basis"), store)
    marks = settled(state)
    if on is None or marks is None or "?" in marks[0]:
        return False
    return ahead.unchanged(str(store.root), (list(marks[0]), marks[1]), on.git_index)


def _names_match(directory: Path, expected: str) -> bool:
    """Whether the memory files in ``directory`` are the ones a fingerprint part
    (``count.times.sizes.names``, index/scan.py) counts: their number and the sum of
    their names' checksums. A listing, no stat per file."""
    import zlib

    want = expected.split(".")
    count = names = 0
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                name = entry.name
                if name[0] == "." or not name.endswith(".yaml"):
                    continue
                count += 1
                names += zlib.crc32(name[:-5].encode())
    except FileNotFoundError:
        return expected == "-"
    except OSError:
        return False
    if len(want) != 4:
        return False
    return [str(count), str(names & ((1 << 64) - 1))] == [want[0], want[3]]


def _file_part(store: Store, path: str, now: int) -> str | None:
    try:
        st = os.stat(store.root / path)
    except FileNotFoundError:
        return f"{path}:-"
    except OSError:
        return f"{path}:?"
    if _racy(st.st_mtime_ns, now):
        return None
    return f"{path}:{st.st_ino}.{st.st_mtime_ns}.{st.st_size}"


def same_index(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """Whether two states describe the same index: a reader that records a stamp
    (``quick``, ``basis``) changes the state file, not the index."""
    if a is None or b is None:
        return a is b
    skip = ("quick", "basis", "written", "look", "left", "held", "unstamped")
    return ({k: v for k, v in a.items() if k not in skip}
            == {k: v for k, v in b.items() if k not in skip})


# What one memory file costs the check without the memx server, measured on a 2-core
# machine (docs/index.md): git's lstat per tracked file, the Python scan's stat.
GIT_US_PER_FILE, SCAN_US_PER_FILE = 1.3, 6.0
# Past this estimate `memx doctor` says that only the server keeps commands fast.
SLOW_MS = 500


def describe(store: Store, files: int) -> tuple[str, str | None]:
    """How a command without the memx server checks ``store`` (``files`` memory files)
    for changes, and a note when that check alone takes longer than SLOW_MS."""
    import json

    try:
        state = json.loads((store.cache_dir / "state.json").read_bytes())
    except (OSError, ValueError):
        state = None
    how, estimate = check_cost(store, files, state)
    if estimate <= SLOW_MS:
        return how, None
    return how, (f"each command without the memx server checks {files} memory files "
                 f"for changes (about {estimate:.0f} ms); the server watches the store "
                 "instead (see docs/index.md)")


def check_cost(store: Store, files: int, state: Any) -> tuple[str, float]:
    """Which check of every file a store of ``files`` memory files gets, given its index
    ``state`` (the stamp's basis), and its estimated cost in milliseconds."""
    on = Basis.from_json(state.get("basis"), store) if isinstance(state, dict) else None
    if not worth_it(files):
        how, cost = "a stat of every file (a small store)", SCAN_US_PER_FILE
    elif on is not None and on.loose is not None and on.git_index is not None:
        how, cost = (f"git's stat cache (git diff-files) and {len(on.loose)} untracked "
                     "files", GIT_US_PER_FILE)
    else:
        how, cost = ("a stat of every file (outside git, or more than "
                     f"{LOOSE_LIMIT} memory files git does not track)", SCAN_US_PER_FILE)
    return how, files * cost / 1000


def counted(fingerprint: Any) -> int | None:
    """The number of memory files a scan's fingerprint (index/scan.py) counts, or None
    when it is malformed."""
    if not isinstance(fingerprint, str):
        return None
    total = 0
    for part in fingerprint.split(":"):
        if part != "-":
            count = part.split(".", 1)[0]
            if not count.isdigit():
                return None
            total += int(count)
    return total
