"""Words written together or apart (issue 25): "lockfile" and "lock file", "prerelease" and
"pre-release", "setup" and "set up" are one word to a reader and two to the index.

The store's own vocabulary decides, no list of compounds:

- **joined**: two neighbouring words of the query whose concatenation is a word some
  memory writes ("lock file" → lockfile) add that word to the query's terms.
- **split**: a query word no memory has, in any form (its stem is absent too), that
  splits into two words some memory writes next to each other ("prerelease" → pre,
  release, where a memory says "pre-release") is searched as those two words instead.
  The neighbours are checked in the text of the memories holding both words, so two
  words the store only uses apart ("ref" and "uses" for "refuses") do not stand in for it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

from memx_cli.textproc import STOP_WORDS, stem

# A part shorter than this is too short to be a word of its own ("a" + "part").
MIN_PART = 3
# Only words this long are split (two parts of MIN_PART at least).
MIN_SPLIT = 2 * MIN_PART
# Memories read to check that a split's parts are written side by side.
CHECKED = 16
_LETTERS = re.compile(r"[a-z0-9]+")


def respell(text: str, terms: Sequence[str], indexes: Sequence[Any]) -> list[str]:
    """``terms`` with the spellings the stores of ``indexes`` (built StoreIndexes) use
    for the query's words written together or apart."""
    if not indexes or not text.isascii():
        return list(terms)
    searchers = [index.lexical.searcher() for index in indexes]

    def held(field: str, word: str) -> bool:
        return any(searcher.doc_freq(field, word) for searcher in searchers)

    words = _LETTERS.findall(text.lower())
    joined = [a + b for a, b in itertools.pairwise(words)
              if a.isalpha() and b.isalpha() and len(a) > 1 and len(b) > 1
              and a + b not in STOP_WORDS and held("exact", a + b)]
    result: list[str] = []
    for term in terms:
        parts = None
        if len(term) >= MIN_SPLIT and term.isalpha() and not held("stem", stem(term)):
            parts = _split(term, indexes, held)
        result += parts or [term]
    return list(dict.fromkeys(result + joined))


def _split(word: str, indexes: Sequence[Any], held: Any) -> list[str] | None:
    """The two words ``word`` is written as in some memory, side by side, if any."""
    for at in range(MIN_PART, len(word) - MIN_PART + 1):
        first, second = word[:at], word[at:]
        if first in STOP_WORDS or second in STOP_WORDS:
            continue
        if not (held("exact", first) and held("stem", stem(second))):
            continue
        # the second part's stem as written on: "pre-releases" for "prereleases"
        beside = re.compile(rf"(?<![a-z0-9]){first}[\s_/-]?{re.escape(stem(second))}")
        for index in indexes:
            keys = index.lexical.holding([("exact", first), ("stem", stem(second))],
                                         CHECKED)
            docs = index.lexical.fetch(keys)
            if any(beside.search(str(doc.get("content", "")).lower())
                   for doc in docs.values()):
                return [first, second]
    return None
