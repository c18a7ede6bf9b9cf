"""`memx import` of agent instruction files and Markdown (issue 18).

Reads CLAUDE.md, AGENTS.md, GEMINI.md, Cursor rules (``.cursor/rules/*.mdc`` with their
front matter, ``.cursorrules``), ``.github/copilot-instructions.md`` and
``*.instructions.md``, Windsurf rules (``.windsurf/rules/*``, ``.windsurfrules``), a
Cline ``memory-bank/`` and any Markdown file or folder of them. Every item (markdown.py:
a top-level bullet, a paragraph, a table, a code block kept whole) becomes one memory:
a policy or a fact (rules.py), its domain the nearest heading under the title (else the
rule file's name), its tags the file's origin and the heading path, its ``source`` the
file, line and a hash of the text. Re-importing an unchanged file changes nothing: an
item whose file and hash are already in a memory (or were folded into one before, per
``.memx/local/imported.json``) is skipped, wherever it moved in the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memx_cli.errors import MemxError
from memx_cli.operations import write as ace
from memx_cli.operations.markdown import Item, front_matter, items
from memx_cli.operations.rules import classify
from memx_cli.operations.transfer import NAMES, SUFFIXES
from memx_cli.store.records import WriteResult, build
from memx_cli.store.repo import Repo

LEDGER = "imported.json"
_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Candidate:
    item: Item
    path: str  # as stored in source.file: relative to the work tree when inside it
    kind: str
    domain: str | None
    tags: tuple[str, ...]
    digest: str
    present: bool  # imported before: skipped

    def source(self, extra: dict[str, Any]) -> dict[str, Any]:
        return {"type": "import", "file": self.path, "line": self.item.line,
                "hash": self.digest, **extra}


def origin(path: Path) -> str:
    parts = [p.lower() for p in path.parts]
    name = path.name.lower()
    if name in ("claude.md", "claude.local.md"):
        return "claude-md"
    if name == "agents.md":
        return "agents-md"
    if name == "gemini.md":
        return "gemini-md"
    if name.endswith(".mdc") or name == ".cursorrules" or ".cursor" in parts:
        return "cursor-rules"
    if name == "copilot-instructions.md" or name.endswith(".instructions.md"):
        return "copilot-instructions"
    if ".windsurf" in parts or name == ".windsurfrules":
        return "windsurf-rules"
    if "memory-bank" in parts:
        return "memory-bank"
    if name == ".clinerules" or ".clinerules" in parts:
        return "cline-rules"
    return "markdown"


def expand(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(_walk(path))
        elif path.is_file():
            found.append(path)
        else:
            raise MemxError(f"import: {path}: no such file or directory")
    if not found:
        raise MemxError(f"import: no Markdown files in {', '.join(map(str, paths))}")
    return found


def _walk(folder: Path) -> list[Path]:
    """The rule files under ``folder``, without git's and memx's own folders (an agent's
    private notes live in .memx/local/) and without what git ignores there."""
    from memx_cli import git

    files = []
    # os.walk passes over a folder that goes away or cannot be read while it walks
    # (pathlib's rglob raised: importing a busy shared folder was an internal error)
    for root, folders, names in os.walk(folder):
        folders[:] = [name for name in folders if name not in (".git", ".memx")]
        files += [Path(root, name) for name in names
                  if (os.path.splitext(name)[1].lower() in SUFFIXES or name in NAMES)
                  and os.path.isfile(os.path.join(root, name))]
    files.sort()
    if not files:
        return files
    try:  # outside a repository git answers nothing, and nothing is left out
        listed = "\0".join(str(p.relative_to(folder)) for p in files).encode()
        out = git.run_bytes(["check-ignore", "--stdin", "-z"], cwd=folder, stdin=listed,
                            check=False)
    except MemxError:
        return files
    ignored = {folder / name.decode() for name in out.split(b"\0") if name}
    return [p for p in files if p not in ignored]


def slug(text: str) -> str:
    return _SLUG.sub("-", _strip_markup(text).lower()).strip("-")[:40]


def _strip_markup(text: str) -> str:
    return re.sub(r"[`*_~\[\]()]", "", text)


def digest(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]


def _display(repo: Repo, path: Path) -> str:
    try:
        return path.resolve().relative_to(repo.worktree.resolve()).as_posix()
    except ValueError:
        return str(path.resolve())


def _known(repo: Repo) -> set[tuple[str, str]]:
    """(file, hash) of every item imported before: from memories' sources and the ledger."""
    seen: set[tuple[str, str]] = set(_ledger(repo))
    for archived in (False, True):
        for mem in repo.store.load_all(archived=archived).memories:
            src = mem.source
            if src.get("type") == "import" and "file" in src and "hash" in src:
                seen.add((str(src["file"]), str(src["hash"])))
    return seen


def _ledger(repo: Repo) -> list[tuple[str, str]]:
    try:
        data = json.loads((repo.store.local_dir / LEDGER).read_text(encoding="utf-8"))
        return [(str(f), str(h)) for f, h in data.get("items", [])]
    except (OSError, ValueError, TypeError, AttributeError):
        return []


def _remember(repo: Repo, pairs: list[tuple[str, str]]) -> None:
    from memx_cli.fsutil import atomic_write

    merged = sorted(set(_ledger(repo)) | set(pairs))
    atomic_write(repo.store.local_dir / LEDGER,
                 json.dumps({"items": merged}, indent=1).encode("utf-8"), durable=False)


def _without_managed_block(text: str) -> str:
    """``text`` with the block ``memx export`` manages (agents_file) blanked, line for
    line so that line numbers hold: it holds memories of this store, not the user's text."""
    from memx_cli.operations.agents_file import BEGIN, END

    lines = text.split("\n")
    inside = False
    for number, line in enumerate(lines):
        mark = line.strip()
        if mark == BEGIN:
            inside = True
        if inside:
            lines[number] = ""
        if mark == END:
            inside = False
    return "\n".join(lines)


def candidates(repo: Repo, paths: list[Path]) -> tuple[list[Candidate], dict[str, dict[str, Any]]]:
    """Every item of every file, classified; and each file's front matter to record."""
    known = _known(repo)
    found: list[Candidate] = []
    extras: dict[str, dict[str, Any]] = {}
    for path in expand(paths):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise MemxError(f"import: {path}: not UTF-8 text") from None
        meta, body, skipped = front_matter(_without_managed_block(text))
        shown = _display(repo, path)
        extras[shown] = {k: meta[k] for k in ("globs", "alwaysApply", "trigger")
                         if isinstance(meta.get(k), (str, bool, list))}
        kind_of = origin(path)
        for item in items(body, first_line=skipped + 1):
            # A level-1 heading is the document's title ("# CLAUDE.md"), except in notes
            # that have no other heading.
            deeper = [h for h, level in zip(item.headings, item.levels) if level > 1]
            under = deeper if deeper or kind_of != "markdown" else list(item.headings)
            named = [slug(h) for h in under if slug(h)]
            domain = named[-1] if named else (slug(path.stem) if kind_of != "markdown" and
                                               path.stem.lower() not in ("claude", "agents")
                                               else None)
            tags = tuple(dict.fromkeys([kind_of, *named[-2:], *([domain] if domain else [])]))
            mark = digest(item.text)
            found.append(Candidate(item, shown, classify(item.text), domain or None, tags, mark,
                                   (shown, mark) in known))
    return found, extras


def import_instructions(repo: Repo, paths: list[Path], dry_run: bool = False,
                        raw: bool = False, check: Callable[[Candidate], None] | None = None
                        ) -> tuple[list[Candidate], list[WriteResult]]:
    """Import the files' items; returns every candidate and what writing the new ones did.
    ``check`` (the caller's access grants) sees every new item before anything is written
    and raises to refuse: then nothing is written."""
    repo.require_store()
    found, extras = candidates(repo, paths)
    fresh = [c for c in found if not c.present]
    if dry_run or not fresh:
        return found, []
    for candidate in fresh:
        if check is not None:
            check(candidate)
    memories = [build(c.item.text, kind=c.kind, tags=c.tags, domain=c.domain,
                      source=c.source(extras.get(c.path, {})), veracity="stated", raw=raw)
                for c in fresh]
    results = ace.write(repo, memories, raw=raw)
    _remember(repo, [(c.path, c.digest) for c in fresh])
    return found, results
