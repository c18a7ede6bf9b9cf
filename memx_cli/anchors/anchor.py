"""Source anchors (SPEC 3.5): the passage of a repository file a memory is about.

An anchor names a file by its repository-relative POSIX path and, optionally, a line
range. Its hash is taken over the passage with every whitespace character removed, so
re-indenting or re-wrapping code does not change it; the snippet is a short, sanitized
preview for people reading the memory file, never used to decide anything alone.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memx_cli import git
from memx_cli.errors import MemxError
from memx_cli.store.memory import Anchor, Memory

if TYPE_CHECKING:
    from memx_cli.store.repo import Repo

HASH_PREFIX = "sha256:"
HASH_HEX = 16  # 64 bits: plenty to tell one passage of one file from another
SNIPPET_CHARS = 400
MAX_FILE_BYTES = 5_000_000  # larger files are not source code worth anchoring to
SEARCH_SLACK = 20  # extra lines a reformatted passage may span when searched for
_SPEC_RE = re.compile(r"^(?P<path>.+?)(?::(?P<start>\d+)(?:-(?P<end>\d+))?)?$")


class AnchorError(MemxError):
    """An anchor names something that cannot be anchored to."""


@dataclass(frozen=True)
class AnchorSpec:
    """``path[:start[-end]]`` as typed on the command line."""

    text: str
    path: str
    start: int | None
    end: int | None


def parse_spec(text: str) -> AnchorSpec:
    match = _SPEC_RE.match(text.strip())
    if not match or not match["path"]:
        raise AnchorError(f"anchor {text!r}: expected PATH, PATH:LINE or PATH:START-END")
    start = int(match["start"]) if match["start"] else None
    end = int(match["end"]) if match["end"] else start
    if start is not None and (start < 1 or end is None or end < start):
        raise AnchorError(f"anchor {text!r}: lines must be START-END with 1 <= START <= END")
    return AnchorSpec(text, match["path"], start, end)


def normalize(text: str) -> str:
    """The passage with all whitespace removed: the form hashes are taken over."""
    return "".join(text.split())


def passage_hash(lines: Sequence[str]) -> str:
    digest = hashlib.sha256(normalize("".join(lines)).encode("utf-8")).hexdigest()
    return HASH_PREFIX + digest[:HASH_HEX]


def find_passage(lines: Sequence[str], digest: str, start: int, end: int,
                 first: str | None = None) -> tuple[int, int] | None:
    """1-based (start, end) of the passage with hash ``digest``, nearest the old place.

    Tries every window as long as the old range first (moved code), then windows of
    other lengths starting at lines equal to ``first`` (the snippet's first line), which
    finds a passage whose blank lines or wrapping changed.
    """
    norm = [normalize(line) for line in lines]
    size = end - start + 1
    found = [i for i in range(len(norm) - size + 1) if norm[i]
             and _hash(norm[i:i + size]) == digest]
    if found:
        best = min(found, key=lambda i: (abs(i + 1 - start), i))
        return best + 1, best + size
    key = normalize(first or "")
    if not key:
        return None
    for i in sorted((i for i, n in enumerate(norm) if n == key),
                    key=lambda i: (abs(i + 1 - start), i)):
        running = hashlib.sha256()
        for j in range(i, min(len(norm), i + size + SEARCH_SLACK)):
            running.update(norm[j].encode("utf-8"))
            if norm[j] and _digest(running.copy()) == digest:
                return i + 1, j + 1
    return None


def _hash(parts: Sequence[str]) -> str:
    return _digest(hashlib.sha256("".join(parts).encode("utf-8")))


def _digest(running: Any) -> str:
    return HASH_PREFIX + str(running.hexdigest())[: HASH_HEX]


def read_bytes(path: Path) -> bytes:
    """Read one anchored file (the single read point, which tests count)."""
    with open(path, "rb") as handle:
        return handle.read(MAX_FILE_BYTES + 1)


def decode_lines(data: bytes) -> list[str] | None:
    """The text lines of a file's bytes; None for binary or oversized files."""
    if len(data) > MAX_FILE_BYTES or b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace").splitlines()


def label(path: str, start: int | None, end: int | None) -> str:
    if start is None:
        return path
    return f"{path}:{start}" if end in (None, start) else f"{path}:{start}-{end}"


def locate(worktree: Path, path: str) -> Path:
    """The file a stored anchor path names; AnchorError when it escapes the work tree."""
    root = worktree.resolve()
    if os.path.isabs(path) or path.startswith("\\"):
        raise AnchorError(f"anchor {path!r} is not a repository-relative path")
    lexical = Path(os.path.normpath(root / path))
    if not _inside(lexical, root) or lexical == root:
        raise AnchorError(f"anchor {path!r} is outside the repository")
    if not _inside(Path(os.path.realpath(lexical)), root):
        raise AnchorError(f"anchor {path!r} goes through a symlink out of the repository")
    return lexical


def resolve(worktree: Path, raw: str, cwd: Path, shown: str | None = None) -> tuple[str, Path]:
    """A user-typed path (relative to ``cwd``) as (repo-relative POSIX path, real file).

    Refuses paths outside the work tree, through a symlink leading out of it, inside
    ``.git`` and anything that is not a regular file (SPEC 10).
    """
    shown = shown or raw
    root = worktree.resolve()
    lexical = Path(os.path.normpath(Path(os.path.abspath(cwd)) / raw))
    real = Path(os.path.realpath(lexical))
    if not _inside(real, root):
        if _inside(lexical, root):
            raise AnchorError(f"anchor {shown!r} goes through a symlink out of the repository; "
                              "anchor the file inside the repository instead")
        raise AnchorError(f"anchor {shown!r} is outside the repository; "
                          "anchors must name files inside it")
    rel = real.relative_to(root).as_posix()
    if rel == "." or rel.split("/")[0] == ".git":
        raise AnchorError(f"anchor {shown!r}: not a file of the work tree")
    if not real.exists():
        head, colon, tail = raw.rpartition(":")
        if colon and head and (Path(os.path.abspath(cwd)) / head).is_file():  # PATH:typo
            raise AnchorError(f"anchor {shown!r}: bad line range {tail!r}; expected PATH, "
                              "PATH:LINE or PATH:START-END")
        raise AnchorError(f"anchor {shown!r}: no such file in the repository")
    if not real.is_file():
        raise AnchorError(f"anchor {shown!r}: not a regular file")
    return rel, real


def make(rel: str, lines: Sequence[str] | None, start: int | None, end: int | None,
         commit: str | None, shown: str | None = None) -> Anchor:
    """An anchor to lines ``start``-``end`` of ``rel`` (the whole file when no lines)."""
    shown = shown or label(rel, start, end)
    if start is None:
        return Anchor(path=rel, commit=commit)
    if lines is None:
        raise AnchorError(f"anchor {shown!r}: binary or oversized file; anchor a text file")
    end = end or start
    if end > len(lines):
        raise AnchorError(f"anchor {shown!r}: {rel} has only {len(lines)} lines")
    passage = lines[start - 1:end]
    if not normalize("".join(passage)):
        raise AnchorError(f"anchor {shown!r}: those lines are blank; anchor lines with content")
    return Anchor(path=rel, start_line=start, end_line=end, hash=passage_hash(passage),
                  snippet=snippet(passage), commit=commit)


def create(worktree: Path, specs: Iterable[str], cwd: Path) -> tuple[Anchor, ...]:
    """Anchors for ``memx add --anchor`` / ``memx anchor``, each checked (SPEC 3.5)."""
    made: list[Anchor] = []
    commit: str | None = None
    for text in specs:
        spec = parse_spec(text)
        rel, real = resolve(worktree, spec.path, cwd, shown=text)
        lines = None
        if spec.start is not None:
            try:
                lines = decode_lines(read_bytes(real))
            except OSError as exc:
                raise AnchorError(f"anchor {text!r}: cannot read: {exc.strerror}") from None
        commit = commit or git.head_commit(worktree)
        anchor = make(rel, lines, spec.start, spec.end, commit, shown=text)
        if anchor not in made:
            made.append(anchor)
    return tuple(made)


def attach(repo: Repo, prefix: str, specs: Iterable[str],
           cwd: Path) -> tuple[Memory, tuple[Anchor, ...]]:
    """``memx anchor ID PATH...``: add anchors to a stored memory; returns it and the
    anchors that were new (the file is rewritten only when there are some)."""
    from memx_cli.clock import now_iso
    from memx_cli.store.queries import find

    store, mem = find(repo, prefix)
    require_repo_scope(mem.scope)
    have = {_identity(a) for a in mem.anchors}
    new = tuple(a for a in create(repo.worktree, specs, cwd) if _identity(a) not in have)
    if new:
        # The same lines anchored again after they changed: the new anchor takes the
        # stale one's place (kept beside it, the stale one would fail every check).
        again = {_place(a): a for a in new}
        anchors: list[Anchor] = []
        for anchor in (*(again.get(_place(a), a) for a in mem.anchors), *new):
            if anchor not in anchors:
                anchors.append(anchor)
        mem = mem.replace(anchors=tuple(anchors), updated_at=now_iso())
        store.write(mem)
    return mem, new


def require_repo_scope(scope: str) -> None:
    if scope == "global":
        raise AnchorError("a global memory cannot be anchored to one repository's files; "
                          "use --scope project")


def snippet(passage: Sequence[str]) -> str:
    """A dedented, sanitized preview of at most SNIPPET_CHARS characters."""
    import textwrap

    text = textwrap.dedent("\n".join(line.rstrip() for line in passage)).strip("\n")
    text = sanitize(text)
    if len(text) <= SNIPPET_CHARS:
        return text
    cut = text.rfind("\n", 0, SNIPPET_CHARS - 1)
    return text[: cut if cut > 0 else SNIPPET_CHARS - 1] + "…"


def sanitize(text: str) -> str:
    """The privacy gate for source previews: every pattern of the sanitizer, then
    conservative ones for secret assignments, random-looking tokens and e-mail addresses
    (source files can hold credentials, and a snippet is only a preview)."""
    from memx_cli.privacy import mask
    from memx_cli.privacy.sanitizer import for_snippets

    return mask(text, for_snippets())


def _place(anchor: Anchor) -> tuple[str, int | None, int | None]:
    return anchor.path, anchor.start_line, anchor.end_line


def _identity(anchor: Anchor) -> tuple[str, int | None, int | None, str | None]:
    return anchor.path, anchor.start_line, anchor.end_line, anchor.hash


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
