"""Create, find, change and delete memories: the verbs behind add, list, show, edit, rm."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import memory as memfmt
from .clock import now_iso
from .errors import InvalidMemoryError, MemxError
from .ids import new_id
from .memory import KINDS, Memory
from .repo import Repo
from .store import Loaded, Store, resolve

MAX_CONTENT_CHARS = 100_000
# SPEC 3.2: veracity sets the starting confidence.
VERACITY_CONFIDENCE = {"stated": 1.0, "inferred": 0.7, "imported": 0.6, "tool": 0.5}


# What a write did (SPEC 3.2). `other` is the existing memory involved, if any.
WRITE_ACTIONS = ("added", "merged into", "skipped", "supersedes", "conflicts with")


@dataclass(frozen=True)
class WriteResult:
    """What a write did, for the user. ``memory``/``path`` are the memory that now holds
    the text: the new one, or for ``merged into``/``skipped`` the existing one."""

    action: str
    memory: Memory
    path: Path
    other: str | None = None

    @property
    def message(self) -> str:
        """``added``, ``merged into ID``, ``skipped (duplicate of ID)``, ``supersedes ID``
        or ``conflicts with ID``."""
        if self.other is None:
            return self.action
        if self.action == "skipped":
            return f"skipped (duplicate of {self.other})"
        return f"{self.action} {self.other}"


def check_content(text: str) -> str:
    if "\x00" in text:
        raise MemxError("memory text contains NUL bytes; pass text, not a binary file")
    if not text.strip():
        raise MemxError("memory text is empty; pass the text to remember")
    if len(text) > MAX_CONTENT_CHARS:
        raise MemxError(
            f"memory text is {len(text)} characters (limit {MAX_CONTENT_CHARS}); "
            "a memory is a paragraph — use memx ingest for logs and transcripts"
        )
    return text


def normalize_labels(values: Iterable[str], what: str) -> tuple[str, ...]:
    seen: list[str] = []
    for value in values:
        label = value.strip().lower()
        if not label or any(c.isspace() for c in label):
            raise MemxError(f"invalid {what} {value!r}: use one word (a-z, 0-9, - _ . /)")
        if label not in seen:
            seen.append(label)
    return tuple(seen)


def tidy(text: str) -> str:
    """ACE-on normalisation of typed text: trim and drop trailing spaces per line."""
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def build(
    content: str,
    *,
    kind: str = "fact",
    scope: str = "project",
    tags: Iterable[str] = (),
    domain: str | None = None,
    topic: str | None = None,
    source: Mapping[str, Any] | None = None,
    veracity: str = "stated",
    created_at: str | None = None,
    raw: bool = False,
) -> Memory:
    if kind not in KINDS:
        raise MemxError(f"invalid kind {kind!r}; use fact or policy")
    text = check_content(content)
    if not raw:
        text = tidy(text)
    stamp = created_at or now_iso()
    return Memory(
        id=new_id(),
        kind=kind,
        content=text,
        domain=domain or None,
        topic=topic or None,
        scope=scope,
        tags=normalize_labels(tags, "tag"),
        source=dict(source or {"type": "manual"}),
        veracity=veracity,
        confidence=VERACITY_CONFIDENCE[veracity],
        created_at=stamp,
        updated_at=stamp,
    )


def load_visible(repo: Repo) -> tuple[list[tuple[Store, Memory]], list[memfmt.Problem]]:
    """Every memory this repository can see (project, then global), plus file problems."""
    found: list[tuple[Store, Memory]] = []
    problems: list[memfmt.Problem] = []
    for store in repo.stores():
        loaded: Loaded = store.load_all()
        found.extend((store, m) for m in loaded.memories)
        problems.extend(loaded.problems)
    return found, problems


def select(
    memories: Iterable[Memory],
    *,
    kind: str | None = None,
    scope: str | None = None,
    tags: Iterable[str] = (),
    section: str | None = None,
) -> list[Memory]:
    wanted = set(normalize_labels(tags, "tag"))
    chosen = []
    for mem in memories:
        if kind and mem.kind != kind:
            continue
        if scope and mem.scope != scope:
            continue
        if section and mem.section != section:
            continue
        if wanted and not wanted.issubset(mem.tags):
            continue
        chosen.append(mem)
    return chosen


def find(repo: Repo, prefix: str) -> tuple[Store, Memory]:
    store, memory_id = resolve(repo.stores(), prefix)
    return store, store.read_file(store.path_for(memory_id))


def remove(repo: Repo, prefix: str) -> tuple[Memory | None, Path]:
    """Delete one memory file (git keeps its history). A broken file can be removed too."""
    store, memory_id = resolve(repo.stores(), prefix)
    try:
        mem: Memory | None = store.read_file(store.path_for(memory_id))
    except InvalidMemoryError:
        mem = None
    return mem, store.remove(memory_id)


def apply_edit(store: Store, original: Memory, new_text: bytes) -> Memory | None:
    """Check an edited file and write it; None when nothing changed.

    Raises InvalidMemoryError (the original file untouched) when the edit is not valid.
    """
    if new_text == memfmt.dump(original):
        return None
    edited = memfmt.load(new_text, store.display(store.path_for(original.id)))
    if edited.id != original.id:
        raise InvalidMemoryError(f"the id cannot be changed by an edit (was {original.id})")
    if edited == original:
        return None
    if edited.updated_at == original.updated_at:
        edited = edited.replace(updated_at=now_iso())
    store.write(edited)
    return edited
