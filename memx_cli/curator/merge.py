"""Folding a duplicate into the memory it repeats (SPEC 3.2).

Either way the existing memory keeps its id (so links and reviews stay valid), counts
one more mention and gains confidence by the mentioning source's veracity. What happens
to its text depends on the strategy:

- ``keep_best``: keep the better of the two texts: higher instructivity, then the
  longer (more complete) one; a tie keeps the existing text;
- ``merge_content``: the existing text plus every sentence of the new one it does not
  already say.
"""

from __future__ import annotations

import re

from memx_cli.curator.similarity import jaccard, word_set
from memx_cli.store.memory import Memory

# SPEC 3.2: each new mention raises confidence by this step times the mentioning
# source's veracity (stated 1.0, inferred 0.7, imported 0.6, tool 0.5), capped at 1.0.
MENTION_STEP = 0.1
# A sentence sharing this much of its words with the existing text adds nothing new.
COVERED = 0.8
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])")


def veracity_weight(veracity: str | None) -> float:
    from memx_cli.store.records import VERACITY_CONFIDENCE

    return VERACITY_CONFIDENCE.get(veracity or "stated", 1.0)


def raised_confidence(existing: Memory, mention: Memory) -> float:
    start = existing.confidence
    if start is None:
        start = veracity_weight(existing.veracity)
    return round(min(1.0, start + MENTION_STEP * veracity_weight(mention.veracity)), 4)


def _union(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(a + b))


def mention(existing: Memory, new: Memory, stamp: str) -> Memory:
    """``existing`` after one more mention by ``new`` (its text unchanged)."""
    anchors = existing.anchors + tuple(a for a in new.anchors if a not in existing.anchors)
    scores = [s for s in (existing.instructivity, new.instructivity) if s is not None]
    return existing.replace(
        mention_count=existing.mention_count + new.mention_count,
        confidence=raised_confidence(existing, new),
        tags=_union(existing.tags, new.tags),
        tools=_union(existing.tools, new.tools),
        entities=_union(existing.entities, new.entities),
        anchors=anchors,
        instructivity=max(scores) if scores else None,
        updated_at=stamp,
    )


def _better(new: Memory, existing: Memory) -> bool:
    return ((new.instructivity or 0), len(new.content)) > (
        (existing.instructivity or 0), len(existing.content))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def combined_text(existing: str, new: str) -> str:
    """``existing`` followed by the sentences of ``new`` it does not already cover."""
    have = [word_set(s, mask_numbers=False) for s in sentences(existing)]
    text = existing.rstrip()
    for sentence in sentences(new):
        words = word_set(sentence, mask_numbers=False)
        if any(jaccard(words, old) >= COVERED or words <= old for old in have):
            continue
        joiner = "" if re.search(r"[。！？；]$", text) else " "
        text = f"{text}{joiner}{sentence}"
        have.append(words)
    return text


def merge(existing: Memory, new: Memory, strategy: str, stamp: str) -> Memory:
    merged = mention(existing, new, stamp)
    if strategy == "merge_content":
        return merged.replace(content=combined_text(existing.content, new.content))
    if _better(new, existing):
        return merged.replace(content=new.content, section=new.section or existing.section,
                              type=new.type or existing.type)
    return merged
