"""The role voice of a search (issue 25): the memories of one store that name a tool of a
role the query says, or a cloud region when it asks for one, with the score of those
names as query words (generator/roles.py has the catalog and how a name is written as a
tool; docs/search.md, "Tools known by their role").

A memory is heard only where its text writes a name as a tool (``roles.as_tool``): "a
black dog" names no formatter. What it is heard for, beside its score, is the role
words of the query its names answer, which relevance (generator/relevance.py) can count
as the memory's own at ROLE_EVIDENCE of their weight (off: see there).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from memx_cli.generator import roles
from memx_cli.generator.candidates import EXACT_WEIGHT, STEM_WEIGHT

# The share of a role word's weight that relevance (generator/relevance.py) counts for
# a memory writing a tool of that role as a tool (the word itself counts 1). Off:
# measured on the natural development set (docs/search.md), at 1.0 one answerable
# question regained its answer and one unanswerable question lost its "nothing
# relevant" (a deploy memory's `git push` answered "who approves pull requests"); at
# 0.5 nothing moved.
ROLE_EVIDENCE = 0.0
# A name's parts are scored as a query word is in the text (exact and stem).
_AS_WORD = EXACT_WEIGHT + STEM_WEIGHT


@dataclass(frozen=True)
class Said:
    """A memory's part of the role voice: the BM25 score of the names it holds (before
    roles.ROLE_WEIGHT), and the words of the roles they are tools of."""

    score: float
    words: frozenset[str]


def voice(index: Any, asked: Sequence[tuple[str, ...]], region: bool, terms: Sequence[str],
          depth: int, include_archived: bool) -> dict[int, Said]:
    """The memories of ``index`` that write a tool of an ``asked`` role as a tool (or a
    cloud region's name, when ``region``), each with its part; empty when none."""
    if not (asked or region) or not index.built():
        return {}
    found = _regions(index, depth, include_archived) if region else {}
    if not asked:
        return found
    searcher = index.lexical.searcher()

    def known(part: str) -> bool:
        return bool(searcher.doc_freq("exact", part) or searcher.doc_freq("meta", part))

    role_of: dict[tuple[str, ...], set[str]] = {}
    for role in asked:
        skip = set(terms)
        for name in _held(index, searcher, role, known):
            if not skip.intersection(name):  # the query searches its own words already
                role_of.setdefault(name, set()).update(role)
    if not role_of:
        return found
    # the rarest first (their commonest part): a name few memories hold says most
    names = sorted(role_of, key=lambda name: (max(
        searcher.doc_freq("exact", part) for part in name), name))[:roles.MAX_NAMES]
    # the index's words of each name: its parts, and a one-word name's own files' words
    # (`gradlew`, `eslintrc`, `dockerfile`) the store holds
    parts = sorted({part for name in names for part in name}
                   | {name[0] + suffix for name in names if len(name) == 1
                      for suffix in roles.FILE_SUFFIXES
                      if searcher.doc_freq("exact", name[0] + suffix)})
    scores = index.lexical.search(parts, [("exact", _AS_WORD)], depth, include_archived)
    docs = index.lexical.fetch(list(scores))
    for key, score in scores.items():
        doc = docs.get(key)
        if doc is None:
            continue
        text = doc["content"] + "\n" + "; ".join(doc.get("tags") or [])
        words = {word for name in names if roles.as_tool(text, name) for word in role_of[name]}
        if words:
            before = found.get(key)
            found[key] = Said(max(score, before.score if before else 0.0),
                              frozenset(words | (before.words if before else set())))
    return found


# The names of a role each store holds, per text index searcher (a store's change opens
# another, and the names found with the old one are dropped): a warm process asks the
# term dictionary once, not at each search naming the role (~25 names a role, issue 29).
_HELD_STORES = 64
_held_names: dict[int, tuple[Any, dict[tuple[str, ...], list[tuple[str, ...]]]]] = {}


def _held(index: Any, searcher: Any, role: tuple[str, ...],
          known: Callable[[str], bool]) -> list[tuple[str, ...]]:
    """The names of ``role``'s tools that ``searcher``'s store holds (roles.present)."""
    kept = _held_names.get(id(index))
    if kept is None or kept[0] is not searcher:
        if kept is None and len(_held_names) >= _HELD_STORES:
            del _held_names[next(iter(_held_names))]
        kept = _held_names[id(index)] = (searcher, {})
    names = kept[1].get(role)
    if names is None:
        names = kept[1][role] = roles.present(roles.catalog().names([role]), known, (),
                                              roles.FILE_SUFFIXES)
    return names


def _regions(index: Any, depth: int, include_archived: bool) -> dict[int, Said]:
    """The memories of ``index`` holding a cloud region's or zone's name (by its shape:
    generator/roles.py), each scored as a word that those memories alone hold would be
    (its BM25 idf, as a query word)."""
    keys = index.lexical.shaped("exact", roles.REGION_TERM, depth, include_archived)
    docs = index.lexical.fetch(keys)
    held = [key for key in keys if key in docs and roles.REGION.search(docs[key]["content"])]
    if not held:
        return {}
    total = max(index.lexical.num_docs(), 1)
    idf = math.log(1.0 + (total - len(held) + 0.5) / (len(held) + 0.5))
    return dict.fromkeys(held, Said(_AS_WORD * idf, roles.REGION_WORDS))
