"""Automatic anchors on ACE writes (SPEC 3.5).

A memory whose text names a repository file (``src/app/db.py``, ``setup.cfg``,
``src/app/db.py:40-52``), a symbol defined in the repository (``def connect_pool``,
`` `RetryPolicy` ``) or quotes a fenced code block that occurs in a repository file is
anchored to that passage, so a later change to the code shows up as a stale memory.

Kept cheap, because it runs on every write: only what the text names is looked up — one
``git ls-files`` when the text has path-like words (remembered for a couple of seconds,
so a batch import lists once) and at most two ``git grep`` runs (definitions, code
blocks). Nothing here can fail a write: any problem means no automatic anchor.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from pathlib import Path

from memx_cli import git
from memx_cli.anchors import anchor as anchormod
from memx_cli.errors import MemxError
from memx_cli.store.memory import Anchor, Memory
from memx_cli.store.repo import STORE_DIR, Repo

log = logging.getLogger("memx")

MAX_AUTO_ANCHORS = 5
MAX_DEF_LINES = 80  # a definition longer than this is anchored by its first lines
MAX_BLOCK_LINES = 200
MIN_BLOCK_CHARS = 12  # shorter blocks (`x = 1`) occur everywhere and prove nothing
MAX_BLOCK_FILES = 5
LISTING_SECONDS = 2.0
_SPLIT_RE = re.compile(r"[\s`'\"()\[\]{}<>,;]+")
_LINES_RE = re.compile(r"^(?P<path>.+?):(?P<start>\d+)(?:-(?P<end>\d+))?$")
_NAMED_FILE_RE = re.compile(r"^[A-Z][A-Za-z]*file$")  # Makefile, Dockerfile, Procfile
_KEYWORDS = r"def|class|function|func|fn|struct|interface|trait|enum|type|module"
_DEF_RE = re.compile(rf"\b(?:{_KEYWORDS})\s+([A-Za-z_]\w*)")
_TICK_RE = re.compile(r"`(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)(?:\(\))?`")
_FENCE_RE = re.compile(r"^[ \t]*```[^\n]*\n(.*?)\n[ \t]*```", re.S | re.M)
_listing: dict[Path, tuple[float, list[str]]] = {}


def anchor(repo: Repo, memory: Memory) -> Memory:
    """``memory`` with automatic anchors added; unchanged when it already has anchors
    (the writer chose them), is global (not about this repository) or names nothing."""
    if memory.anchors or memory.scope == "global":
        return memory
    try:
        found = find(repo.worktree, memory.content)
    except (MemxError, OSError, ValueError) as exc:
        log.debug("automatic anchors skipped: %s", exc)
        return memory
    return memory.replace(anchors=found) if found else memory


def find(worktree: Path, text: str) -> tuple[Anchor, ...]:
    """Anchors for the files, definitions and code blocks ``text`` names."""
    spans: list[tuple[str, int | None, int | None]] = []
    words = [w.strip(".:!?") for w in _SPLIT_RE.split(text)]
    words = [w[2:] if w.startswith("./") else w for w in words if w]
    if any("." in w or "/" in w or _NAMED_FILE_RE.match(w) for w in words):
        spans += _named_files(worktree, words)
    named = {path for path, _, _ in spans}
    symbols = list(dict.fromkeys(_DEF_RE.findall(text) + _TICK_RE.findall(text)))
    spans += _definitions(worktree, [s for s in symbols if len(s) >= 3], named)
    spans += _blocks(worktree, _FENCE_RE.findall(text))
    with_lines = {path for path, start, _ in spans if start is not None}
    made: list[Anchor] = []
    commit: str | None = None
    cache: dict[str, list[str] | None] = {}
    for path, start, end in dict.fromkeys(spans):
        if start is None and path in with_lines:
            continue  # a passage of that file is anchored already
        commit = commit or git.head_commit(worktree)
        try:
            lines = _lines(worktree, path, cache) if start is not None else None
            made.append(anchormod.make(path, lines, start, end, commit))
        except (anchormod.AnchorError, OSError):
            continue
        if len(made) == MAX_AUTO_ANCHORS:
            break
    return tuple(made)


def _listed(worktree: Path) -> list[str]:
    stamp, paths = _listing.get(worktree, (0.0, []))
    if time.monotonic() - stamp > LISTING_SECONDS:
        paths = git.ls_files(worktree, skip=STORE_DIR)
        _listing[worktree] = (time.monotonic(), paths)
    return paths


def _named_files(worktree: Path, words: Sequence[str]) -> list[tuple[str, int | None, int | None]]:
    tracked = _listed(worktree)
    exact = set(tracked)
    by_name: dict[str, list[str]] = {}
    for path in tracked:
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    found: list[tuple[str, int | None, int | None]] = []
    for word in words:
        start = end = None
        match = _LINES_RE.match(word)
        if match:
            word, start = match["path"], int(match["start"])
            end = int(match["end"]) if match["end"] else start
        if word in exact and ("." in word or "/" in word or _NAMED_FILE_RE.match(word)):
            found.append((word, start, end))
        elif "." in word and "/" not in word and len(by_name.get(word, ())) == 1:
            found.append((by_name[word][0], start, end))  # `db.py`: the one file so named
    return found


def _definitions(worktree: Path, symbols: Sequence[str],
                 named: set[str]) -> list[tuple[str, int | None, int | None]]:
    if not symbols:
        return []
    names = "|".join(symbols)
    patterns = [rf"({_KEYWORDS})[[:space:]]+({names})([^[:alnum:]_]|$)",
                rf"func[[:space:]]*\([^)]*\)[[:space:]]*({names})[[:space:]]*\("]
    sites: dict[str, list[tuple[str, int]]] = {}
    for path, number, line in git.grep(worktree, patterns, exclude=(STORE_DIR,)):
        for symbol in symbols:
            if re.search(rf"\b(?:{_KEYWORDS})\s+{symbol}\b|\)\s*{symbol}\s*\(", line):
                sites.setdefault(symbol, []).append((path, number))
    found: list[tuple[str, int | None, int | None]] = []
    cache: dict[str, list[str] | None] = {}
    for places in sites.values():
        preferred = [p for p in places if p[0] in named] or places
        if len(preferred) != 1:
            continue  # defined in several places: which one the text means is a guess
        path, number = preferred[0]
        lines = _lines(worktree, path, cache)
        if lines is not None and number <= len(lines):
            found.append((path, number, block_end(lines, number)))
    return found


def block_end(lines: Sequence[str], start: int) -> int:
    """The last line (1-based) of the definition starting at ``start``: the lines indented
    deeper than it, plus a closing bracket line at its own depth."""
    indent = _indent(lines[start - 1])
    end = start
    for j in range(start, min(len(lines), start - 1 + MAX_DEF_LINES)):
        text = lines[j].strip()
        if not text:
            continue
        if _indent(lines[j]) > indent:
            end = j + 1
            continue
        if text[0] in ")]}" or text == "end":
            end = j + 1
            if text.endswith((":", "{")):
                continue  # the end of a wrapped signature, not of the body
        break
    return end


def _blocks(worktree: Path, blocks: Sequence[str]) -> list[tuple[str, int | None, int | None]]:
    wanted = []
    for block in blocks:
        norm = [anchormod.normalize(line) for line in block.splitlines()[:MAX_BLOCK_LINES]]
        norm = [n for n in norm if n]
        if norm and sum(map(len, norm)) >= MIN_BLOCK_CHARS:
            key = max((line.strip() for line in block.splitlines()), key=len)
            wanted.append((norm, key))
    if not wanted:
        return []
    hits = git.grep(worktree, [key for _, key in wanted], fixed=True, exclude=(STORE_DIR,))
    found: list[tuple[str, int | None, int | None]] = []
    cache: dict[str, list[str] | None] = {}
    for norm, key in wanted:
        files = list(dict.fromkeys(p for p, _, text in hits if key in text))[:MAX_BLOCK_FILES]
        for path in files:
            span = _find_lines(_lines(worktree, path, cache) or [], norm)
            if span:
                found.append((path, *span))
                break
    return found


def _find_lines(lines: Sequence[str], block: Sequence[str]) -> tuple[int, int] | None:
    """Where the non-blank lines ``block`` (normalised) occur in ``lines``, 1-based."""
    kept = [(i + 1, n) for i, n in enumerate(anchormod.normalize(x) for x in lines) if n]
    size = len(block)
    for k in range(len(kept) - size + 1):
        if kept[k][1] == block[0] and [n for _, n in kept[k:k + size]] == list(block):
            return kept[k][0], kept[k + size - 1][0]
    return None


def _lines(worktree: Path, path: str, cache: dict[str, list[str] | None]) -> list[str] | None:
    if path not in cache:
        try:
            data = anchormod.read_bytes(anchormod.locate(worktree, path))
        except (anchormod.AnchorError, OSError):
            data = b"\0"  # gone or outside the work tree: no lines to anchor to
        cache[path] = anchormod.decode_lines(data)
    return cache[path]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())
