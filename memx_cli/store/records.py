"""New memory records and what a write did: the shape every writer builds (SPEC 2, 3.2)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memx_cli.clock import now_iso
from memx_cli.errors import MemxError, shown
from memx_cli.store.ids import new_id
from memx_cli.store.memory import KINDS, Memory
from memx_cli.textproc import clean_text

MAX_CONTENT_CHARS = 100_000
# Domains, topics and tags are printed inside one-line items of every agent's preamble
# ("- [domain] rule"): a line break there would forge items of its own (issue 12).
MAX_LABEL_CHARS = 64
# Unicode categories of control, format (bidi overrides, zero-width), line and paragraph
# separator and surrogate characters.
_UNPRINTABLE = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
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
    text = clean_text(text)  # lone surrogates (undecodable bytes) become U+FFFD
    if not text.strip():
        raise MemxError("memory text is empty; pass the text to remember")
    if len(text) > MAX_CONTENT_CHARS:
        raise MemxError(
            f"memory text is {len(text)} characters (limit {MAX_CONTENT_CHARS}); "
            "a memory is a paragraph — use memx ingest for logs and transcripts"
        )
    return text


def check_label(value: str, what: str) -> str:
    """A short field (domain, topic, tag): one line, no control characters."""
    if len(value) > MAX_LABEL_CHARS or any(unicodedata.category(c) in _UNPRINTABLE
                                           for c in value):
        raise MemxError(f"invalid {what} {shown(value)}: use one line of at most "
                        f"{MAX_LABEL_CHARS} characters, without control characters")
    return value


def normalize_labels(values: Iterable[str], what: str) -> tuple[str, ...]:
    seen: list[str] = []
    for value in values:
        label = check_label(value, what).strip().lower()
        if not label or any(c.isspace() for c in label):
            raise MemxError(f"invalid {what} {shown(value)}: use one word (a-z, 0-9, - _ . /)")
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
        domain=check_label(domain, "domain") if domain else None,
        topic=check_label(topic, "topic") if topic else None,
        scope=scope,
        tags=normalize_labels(tags, "tag"),
        source=dict(source or {"type": "manual"}),
        veracity=veracity,
        confidence=VERACITY_CONFIDENCE[veracity],
        created_at=stamp,
        updated_at=stamp,
    )
