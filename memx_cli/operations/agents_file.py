"""`memx export --format agents-md|claude-md|cursor-rules`: memory for agents without MCP,
written into a managed block of their instruction file (issue 18).

The block sits between two HTML comment markers; everything outside them is left byte
for byte, and a block whose text did not change is not rewritten. It holds every active
policy (the rules an agent must follow) and then the best facts, as one escaped line
each (``&``, ``<``, ``>`` escaped and newlines flattened, so no memory can close the
block, open a comment or start a heading), masked by the sanitizer once more (a
hand-edited memory file may hold what the write path would have masked), and cut at
``max_chars``. Memories imported from the target file itself are not written back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memx_cli import external
from memx_cli.errors import MemxError
from memx_cli.fsutil import atomic_write
from memx_cli.store.memory import Memory
from memx_cli.store.repo import Repo

TARGETS = {"agents-md": "AGENTS.md", "claude-md": "CLAUDE.md",
           "cursor-rules": ".cursor/rules/memx.mdc"}
BEGIN = "<!-- memx:begin (written by `memx export`; edits inside this block are replaced) -->"
END = "<!-- memx:end -->"
CURSOR_HEADER = ("---\ndescription: Project memory kept by memx (policies and key facts)\n"
                 "alwaysApply: true\n---\n")
DEFAULT_MAX_CHARS = 6000
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


@dataclass(frozen=True)
class ExportResult:
    path: Path
    display: str  # the path relative to the work tree when inside it
    changed: bool
    policies: int
    facts: int
    chars: int
    left_out: int  # facts (or policies) that did not fit in max_chars


def _line(mem: Memory, sanitize: Callable[[str], str]) -> str:
    kept = [x for x in mem.content.splitlines() if not _FENCE.match(x)]  # code: inline
    text = " ".join(sanitize("\n".join(kept)).split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    label = f"[{external.one_line(mem.domain)}] " if mem.domain else ""  # issue 26
    scope = mem.scope_note.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"- {label}{text}{scope}"


def _rank(mem: Memory) -> tuple[float, int, str]:
    return (-(mem.confidence or 0.0), -(mem.mention_count or 1), mem.updated_at or "")


def _more(left: int) -> str:
    return f"({left} more in memx: `memx search`, `memx policy list`)"


def render(repo: Repo, target: str, max_chars: int,
           readable: Callable[[Memory], bool] | None = None) -> tuple[str, int, int, int]:
    """The block's text and (policies, facts, left out)."""
    from memx_cli.privacy.sanitizer import for_config
    from memx_cli.store.queries import load_visible

    sanitize = for_config(repo.config).sanitize
    found, _ = load_visible(repo)
    # The file is committed: the user's own global memories stay out of it.
    current = [m for _, m in found if not m.superseded_by and m.scope != "global"
               and (m.source or {}).get("file") != target
               and (readable is None or readable(m))]
    policies = [m for m in current if m.kind == "policy" and m.active]
    facts = sorted((m for m in current if m.kind == "fact"), key=_rank)
    lines = [BEGIN, "## Project memory (memx)", ""]
    # Room is kept for the closing note that says how much was left out.
    size = sum(len(x) + 1 for x in lines) + len(END) + 1 + len(_more(999_999)) + 2
    written_p = written_f = 0
    for title, group in (("Rules to follow:", policies), ("Facts about this repository:", facts)):
        if not group:
            continue
        chosen = []
        for mem in group:
            line = _line(mem, sanitize)
            if size + len(line) + 1 + len(title) + 2 > max_chars:
                break
            chosen.append(line)
            size += len(line) + 1
        if chosen:
            lines += [title, "", *chosen, ""]
            size += len(title) + 2
        if group is policies:
            written_p = len(chosen)
        else:
            written_f = len(chosen)
    left = len(policies) + len(facts) - written_p - written_f
    if left:
        lines += [_more(left), ""]
    lines.append(END)
    return "\n".join(lines) + "\n", written_p, written_f, left


def splice(text: str, block: str) -> str:
    """``text`` with its managed block replaced by ``block`` (appended when absent)."""
    start = text.find(BEGIN)
    if start >= 0:
        end = text.find(END, start)
        if end < 0:
            raise MemxError(f"the memx block has a start marker but no {END!r}; "
                            "fix the file by hand")
        stop = end + len(END)
        if text[stop:stop + 1] == "\n":
            stop += 1
        return text[:start] + block + text[stop:]
    if not text:
        return block
    return text + ("\n" if text.endswith("\n") else "\n\n") + block


def _refuse_link(worktree: Path, path: Path) -> None:
    """A file of the work tree is written only as itself: a link there, the file or a
    folder on the way, may have come with a pull (trust18: a committed ``AGENTS.md``
    linking to the reviewer's ``~/.bashrc`` was read, and its text written back into the
    repository with the block; ``.cursor`` linking out took the write out of it)."""
    import os

    try:
        inside = Path(os.path.abspath(path)).relative_to(os.path.abspath(worktree))
    except ValueError:
        return  # a file the user named outside the repository: theirs to name
    step = Path(os.path.abspath(worktree))
    for part in inside.parts:
        step = step / part
        if step.is_symlink():
            shown = step.relative_to(os.path.abspath(worktree)).as_posix()
            raise MemxError(f"{external.one_line(shown)} is a symbolic link; memx writes its "
                            "block only into a regular file of the work tree (replace the "
                            "link with the file)")


def export_block(repo: Repo, fmt: str, output: Path | None = None,
                 max_chars: int = DEFAULT_MAX_CHARS,
                 readable: Callable[[Memory], bool] | None = None) -> ExportResult:
    """Write the block; ``readable`` (a role's grants) filters the memories shown."""
    if fmt not in TARGETS:
        raise MemxError(f"unknown format {fmt!r}; use one of {', '.join(TARGETS)}")
    path = output or repo.worktree / TARGETS[fmt]
    _refuse_link(repo.worktree, path)
    try:
        shown = path.resolve().relative_to(repo.worktree.resolve()).as_posix()
    except ValueError:
        shown = str(path)
        # Folders are made only inside the work tree (.cursor/rules/ of a fresh clone);
        # elsewhere a mistyped path should not leave folders around the disk.
        if not path.parent.is_dir():
            raise MemxError(f"no folder {path.parent} to write {path.name} in; create it "
                            "first (memx makes folders only inside the repository)") from None
    block, policies, facts, left = render(repo, shown, max_chars, readable)
    try:
        before = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        before = CURSOR_HEADER if fmt == "cursor-rules" else ""
        exists = False
    else:
        exists = True
    after = splice(before, block)
    changed = not exists or after != before
    if changed:
        atomic_write(path, after.encode("utf-8"))
    return ExportResult(path, shown, changed, policies, facts, len(block), left)
