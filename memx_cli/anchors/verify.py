"""Retrieval-time verification of source anchors (SPEC 3.5).

Each anchor is re-checked against the work tree: ``verified`` (the passage is at its
lines, elsewhere in the file, or in the file git says it was renamed to), ``stale`` (the
file is there, the passage is not) or ``unverifiable`` (the file is missing, unreadable or
outside the repository).

Cost stays near zero for repeated searches: results are cached in ``local/anchors.json``
by the file's content hash, and a file's content hash is remembered with its stat
signature, so an unchanged file is not even read again (the "racy git" rule: a file
modified within RACY_NS of being hashed is re-read). Relocations are recorded there too;
reading never modifies a tracked memory file — ``memx verify --fix`` does that on request.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memx_cli import git
from memx_cli.anchors import anchor as anchormod
from memx_cli.fsutil import atomic_write
from memx_cli.store.memory import Anchor, Memory, Problem
from memx_cli.store.repo import Repo

VERIFIED, STALE, UNVERIFIABLE, UNANCHORED = "verified", "stale", "unverifiable", "unanchored"
# The memory's status is its worst anchor's: a changed passage is evidence the memory is
# out of date; a missing file (sparse checkout, deleted) is only a lack of evidence.
_SEVERITY = {VERIFIED: 0, UNVERIFIABLE: 1, STALE: 2}
CACHE_NAME = "anchors.json"
CACHE_VERSION = 1
CACHE_MAX_RESULTS = 2000
RACY_NS = 2_000_000_000  # coarse file-system clocks (FAT: 2 s)


@dataclass(frozen=True)
class AnchorCheck:
    """One anchor's status, and where its passage is now."""

    anchor: Anchor
    status: str
    path: str
    start_line: int | None
    end_line: int | None
    detail: str = ""

    @property
    def where(self) -> str:
        """The anchor as recorded, ``path:start-end``."""
        a = self.anchor
        return anchormod.label(a.path, a.start_line, a.end_line)

    @property
    def relocated(self) -> bool:
        return self.status == VERIFIED and (
            (self.path, self.start_line, self.end_line)
            != (self.anchor.path, self.anchor.start_line, self.anchor.end_line))

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.anchor.path, "start_line": self.anchor.start_line,
                                "end_line": self.anchor.end_line, "status": self.status,
                                "relocated": self.relocated}
        if self.relocated:
            data["current"] = {"path": self.path, "start_line": self.start_line,
                               "end_line": self.end_line}
        if self.detail:
            data["detail"] = self.detail
        return data


@dataclass(frozen=True)
class Verification:
    status: str
    checks: tuple[AnchorCheck, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "anchors": [c.to_json() for c in self.checks]}


def overall(checks: Sequence[AnchorCheck]) -> str:
    if not checks:
        return UNANCHORED
    return max((c.status for c in checks), key=_SEVERITY.__getitem__)


def anchor_key(anchor: Anchor) -> str:
    return f"{anchor.path}\0{anchor.start_line}\0{anchor.end_line}\0{anchor.hash}"


class Verifier:
    """Checks anchors against one work tree, with its cache in a store's ``local/``."""

    def __init__(self, worktree: Path, local_dir: Path):
        self.root = worktree.resolve()
        self.cache_path = local_dir / CACHE_NAME
        self._cache: dict[str, Any] | None = None
        self._dirty = False
        self._lines: dict[str, list[str] | None] = {}  # this process: path -> lines
        self._renames: dict[str | None, dict[str, str]] = {}

    # ------------------------------------------------------------ public

    def verify(self, anchors: Sequence[Anchor]) -> Verification:
        checks = tuple(self.check(a) for a in anchors)
        return Verification(overall(checks), checks)

    def check(self, anchor: Anchor) -> AnchorCheck:
        cache = self._state()
        key = anchor_key(anchor)
        moved = cache["moved"].get(key)
        path, start, end = moved if moved else (anchor.path, anchor.start_line,
                                                anchor.end_line)
        result = self._check_at(anchor, path, start, end)
        if result.status == UNVERIFIABLE and moved:
            self._forget_move(key)  # the relocation target went away: start over
            result = self._check_at(anchor, anchor.path, anchor.start_line, anchor.end_line)
        if result.relocated:
            if moved != [result.path, result.start_line, result.end_line]:
                cache["moved"][key] = [result.path, result.start_line, result.end_line]
                self._dirty = True
        elif moved:
            self._forget_move(key)
        return result

    def save(self) -> None:
        """Write the cache back when it changed; a cache that cannot be written is skipped."""
        if not self._dirty or self._cache is None:
            return
        # Results for contents no file has any more are garbage: keep the file small.
        live = {str(entry[3]) for entry in self._cache["files"].values()}
        results = {k: v for k, v in self._cache["results"].items()
                   if k.split("\0", 1)[0] in live}
        self._cache["results"] = dict(list(results.items())[-CACHE_MAX_RESULTS:])
        with contextlib.suppress(OSError):
            atomic_write(self.cache_path, json.dumps(self._cache, sort_keys=False,
                                                     separators=(",", ":")).encode())
        self._dirty = False

    def current_lines(self, path: str) -> list[str] | None:
        """The lines of a work-tree file (for describing what changed); None if unreadable."""
        if path in self._lines:
            return self._lines[path]
        try:
            return self._read(path, anchormod.locate(self.root, path))[1]
        except (anchormod.AnchorError, OSError):
            return None

    # ------------------------------------------------------------ checking

    def _check_at(self, anchor: Anchor, path: str, start: int | None,
                  end: int | None) -> AnchorCheck:
        def result(status: str, detail: str = "", where: str = path, s: int | None = start,
                   e: int | None = end) -> AnchorCheck:
            return AnchorCheck(anchor, status, where, s, e, detail)

        try:
            file = anchormod.locate(self.root, path)
        except anchormod.AnchorError:
            return result(UNVERIFIABLE, "points outside the repository")
        if not file.is_file():
            renamed = self._renamed(anchor.path, anchor.commit)
            if renamed is None:
                return result(UNVERIFIABLE, "the file is missing")
            path = renamed
            try:
                file = anchormod.locate(self.root, path)
            except anchormod.AnchorError:
                return result(UNVERIFIABLE, "points outside the repository")
        try:
            sha = self._content_hash(path, file)
        except OSError:
            return result(UNVERIFIABLE, "the file is unreadable", path)
        if anchor.hash is None or start is None:
            return result(VERIFIED, "", path)  # a file anchor: the file is there
        if not anchor.hash.startswith(anchormod.HASH_PREFIX):
            return result(UNVERIFIABLE, f"unknown hash format {anchor.hash!r}", path)
        rkey = f"{sha}\0{anchor.hash}\0{start}\0{end or start}"
        cache = self._state()
        found = cache["results"].get(rkey)
        if found is None:
            lines = self._lines[path] if path in self._lines else self._read(path, file)[1]
            span = None
            if lines is not None:
                first = (anchor.snippet or "").split("\n", 1)[0]
                span = anchormod.find_passage(lines, anchor.hash, start, end or start, first)
            found = [VERIFIED, *span] if span else [STALE if lines is not None
                                                    else UNVERIFIABLE, None, None]
            cache["results"][rkey] = found
            self._dirty = True
        status, s, e = found
        if status == VERIFIED:
            return result(VERIFIED, _moved_detail(anchor, path, s, e), path, s, e)
        if status == UNVERIFIABLE:
            return result(UNVERIFIABLE, "binary or oversized file", path)
        renamed = f" (the file was renamed to {path})" if path != anchor.path else ""
        return result(STALE, "the passage changed or was removed" + renamed, path)

    def _content_hash(self, path: str, file: Path) -> str:
        """The file's content hash, read only when its stat signature changed (SPEC 3.5)."""
        st = file.stat()
        signature = [st.st_mtime_ns, st.st_size, st.st_ino]
        known = self._state()["files"].get(path)
        if known and known[:3] == signature and st.st_mtime_ns + RACY_NS < known[4]:
            return str(known[3])
        return self._read(path, file)[0]

    def _read(self, path: str, file: Path) -> tuple[str, list[str] | None]:
        data = anchormod.read_bytes(file)
        st = file.stat()
        sha = hashlib.sha1(data).hexdigest()
        self._state()["files"][path] = [st.st_mtime_ns, st.st_size, st.st_ino, sha,
                                        time.time_ns()]
        self._dirty = True
        lines = anchormod.decode_lines(data)
        self._lines[path] = lines
        return sha, lines

    def _renamed(self, path: str, commit: str | None) -> str | None:
        """Where git says ``path`` went (asked only when an anchored file is missing)."""
        if commit not in self._renames:
            try:
                self._renames[commit] = git.renames_since(self.root, commit)
            except Exception:
                self._renames[commit] = {}
        seen, current = {path}, self._renames[commit].get(path)
        while current and current in self._renames[commit] and current not in seen:
            seen.add(current)
            current = self._renames[commit][current]
        return current if current and (self.root / current).is_file() else None

    # ------------------------------------------------------------ cache file

    def _state(self) -> dict[str, Any]:
        if self._cache is None:
            self._cache = _empty()
            with contextlib.suppress(OSError, ValueError):
                raw = json.loads(self.cache_path.read_bytes())
                if isinstance(raw, dict) and raw.get("version") == CACHE_VERSION:
                    for name, shape in _SHAPES.items():
                        entries = raw.get(name)
                        if isinstance(entries, dict):  # a damaged entry is only a miss
                            self._cache[name] = {k: v for k, v in entries.items()
                                                 if _fits(v, shape)}
        return self._cache

    def forget(self, anchor: Anchor) -> None:
        """Drop the relocation record of an anchor that was rewritten (``--fix``)."""
        self._forget_move(anchor_key(anchor))

    def _forget_move(self, key: str) -> None:
        if self._state()["moved"].pop(key, None) is not None:
            self._dirty = True


# The cache entries' shapes: files (mtime, size, inode, content hash, when hashed),
# results (status, start, end), moved (path, start, end).
_LINE = (int, type(None))
_SHAPES: dict[str, tuple[Any, ...]] = {"files": (int, int, int, str, int),
                                       "results": (str, _LINE, _LINE), "moved": (str, _LINE, _LINE)}


def _fits(value: Any, shape: tuple[Any, ...]) -> bool:
    return (isinstance(value, list) and len(value) == len(shape)
            and all(isinstance(v, t) for v, t in zip(value, shape, strict=True)))


def _empty() -> dict[str, Any]:
    return {"version": CACHE_VERSION, "files": {}, "results": {}, "moved": {}}


def _moved_detail(anchor: Anchor, path: str, start: int | None, end: int | None) -> str:
    notes = []
    if path != anchor.path:
        notes.append(f"renamed to {path}")
    if (start, end) != (anchor.start_line, anchor.end_line):
        notes.append(f"moved to lines {anchormod.label('', start, end)[1:]}")
    return "; ".join(notes)


# ---------------------------------------------------------------- memx verify


@dataclass(frozen=True)
class Checked:
    """One anchored memory and its verification."""

    memory: Memory
    store: str
    verification: Verification


@dataclass(frozen=True)
class Report:
    checked: tuple[Checked, ...]
    problems: tuple[Problem, ...]

    def counts(self) -> dict[str, int]:
        counts = {VERIFIED: 0, STALE: 0, UNVERIFIABLE: 0}
        for item in self.checked:
            counts[item.verification.status] += 1
        return counts


@dataclass(frozen=True)
class FixResult:
    memory: Memory
    fixed: tuple[tuple[Anchor, Anchor], ...]  # (as it was, as it is now)
    failed: tuple[tuple[Anchor, str], ...]  # (anchor, why it could not be fixed)


def verifier_for(repo: Repo) -> Verifier:
    return Verifier(repo.worktree, repo.store.state_dir)


def verify_all(repo: Repo) -> Report:
    """Check every anchor of every visible memory (archived ones excepted)."""
    from memx_cli.store.queries import load_visible

    found, problems = load_visible(repo)
    verifier = verifier_for(repo)
    checked = tuple(Checked(mem, store.label, verifier.verify(mem.anchors))
                    for store, mem in found if mem.anchors)
    verifier.save()
    return Report(checked, tuple(problems))


def changes(verifier: Verifier, check: AnchorCheck, limit: int = 8) -> list[str]:
    """What changed in a stale passage: a short diff of the recorded snippet against the
    lines now at its place (both sanitized the same way)."""
    import difflib

    anchor = check.anchor
    lines = verifier.current_lines(check.path)
    if not anchor.snippet or lines is None or anchor.start_line is None:
        return []
    old = anchor.snippet.removesuffix("…").splitlines()
    end = anchor.end_line or anchor.start_line
    new = anchormod.snippet(lines[anchor.start_line - 1:end]).removesuffix("…").splitlines()
    diff = [d for d in difflib.unified_diff(old, new, lineterm="", n=0)
            if not d.startswith(("---", "+++", "@@"))]
    return diff[:limit] + (["…"] if len(diff) > limit else [])


def fix(repo: Repo, prefix: str) -> FixResult:
    """``memx verify --fix ID``: rewrite the memory's anchors to where their passages are
    now. An anchor whose passage cannot be found is left alone, with the reason."""
    from memx_cli.clock import now_iso
    from memx_cli.store.queries import find

    store, mem = find(repo, prefix)
    verifier = verifier_for(repo)
    commit = git.head_commit(repo.worktree)
    kept: list[Anchor] = []
    fixed: list[tuple[Anchor, Anchor]] = []
    failed: list[tuple[Anchor, str]] = []
    for anchor in mem.anchors:
        check = verifier.check(anchor)
        if check.status == VERIFIED and check.relocated:
            lines = verifier.current_lines(check.path)
            new = anchormod.make(check.path, lines, check.start_line, check.end_line, commit)
            fixed.append((anchor, new))
            kept.append(new)
            verifier.forget(anchor)
            continue
        kept.append(anchor)
        if check.status == STALE:
            failed.append((anchor, f"the passage is no longer in {check.path} (changed or "
                                   "removed); check the memory, then re-anchor it with "
                                   f"memx anchor {mem.id} PATH:START-END"))
        elif check.status == UNVERIFIABLE:
            why = check.detail
            if why == "the file is missing":
                why = f"{anchor.path} is missing and git reports no rename of it"
            failed.append((anchor, why))
    if fixed:
        mem = mem.replace(anchors=tuple(kept), updated_at=now_iso())
        store.write(mem)
    verifier.save()
    return FixResult(mem, tuple(fixed), tuple(failed))
