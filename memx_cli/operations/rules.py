"""Is an instruction-file item a policy (a rule to follow) or a fact (something true)?

Grammar, not topic words: an item is a **policy** when its first sentence carries a
deontic marker (a modal or a negated/universal directive: must, should, never, always,
do not, needs to, is required...: a closed class of English) or is in the imperative
mood, i.e. it opens with a bare verb ("Use pnpm", "Keep functions small", "If CI fails,
rerun it"). Everything else is a **fact**: a sentence with a subject ("The API lives in
services/api", "`make dev` starts the app"), a label ("Build: `npm run build`") or a bare
noun phrase ("Python 3.12"). The bare-verb test is morphological: the first word is not a
function word, carries no inflection (-s, -ed, -ing, -ly), is not a name (inline code,
digits, inner capitals, all capitals), no auxiliary or copula follows within two words
("Feature flags are ...") and neither a version number nor a run of capitalised words. Ambiguous items fall to fact, the cheaper mistake:
a policy is pushed into every preamble, a fact waits to be searched.
Measured on tests/data/instruction_rules.tsv (see docs/agents.md).
"""

from __future__ import annotations

import re

DEONTIC = ("must", "mustn't", "should", "shouldn't", "shall", "never", "always", "don't",
           "do not", "does not need", "need to", "needs to", "needs", "has to", "have to",
           "is required", "are required", "required to", "not allowed", "is forbidden",
           "are forbidden", "make sure", "ensure", "avoid", "prefer")
FUNCTION_WORDS = frozenset(["a", "an", "the", "this", "that", "these", "those", "our", "we", "us", "you", "your", "it", "its", "they", "their", "there", "here", "i", "my", "me", "he", "she", "his", "her", "all", "each", "every", "some", "most", "any", "no", "none", "one", "both", "either", "neither", "many", "few", "in", "on", "at", "to", "by", "with", "from", "of", "as", "for", "into", "onto", "about", "over", "under", "between", "through", "and", "or", "but", "nor", "so", "yet", "also", "only", "just", "then", "than", "not", "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "do", "does", "did", "can", "could", "will", "would", "may", "might"])
AUXILIARIES = frozenset(["is", "are", "was", "were", "be", "been", "has", "have", "had", "can", "could", "will", "would", "may", "might", "does", "do", "did", "lives", "live", "contains", "holds", "sits"])
CONDITIONS = frozenset(["if", "when", "whenever", "before", "after", "while", "once", "unless", "for"])
_CODE = re.compile(r"`[^`]*`")
_MARKUP = re.compile(r"(\*\*|__|\*|_(?=\w)|(?<=\w)_|~~)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_WORD = re.compile(r"[A-Za-z][\w'’.-]*|\d[\w.]*|CODE")
_SENTENCE = re.compile(r"(?<=[.!?;])\s|\n")
_PUNCT = re.compile(r"[^\w' ]")
_LABEL = re.compile(r"^\s*([A-Za-z][\w /-]{0,30}):\s*(.*)$", re.DOTALL)


def plain(text: str) -> str:
    """The first line of an item as words: code spans become the name ``CODE``."""
    first = text.strip().split("\n", 1)[0]
    first = _LINK.sub(r"\1", first)
    first = _CODE.sub(" CODE ", first)
    return " ".join(_MARKUP.sub("", first).split())


def classify(text: str) -> str:
    """``policy`` or ``fact`` for one item's text."""
    if text.lstrip().startswith(("```", "~~~", "|")):
        return "fact"  # a code block or a table on its own
    return "policy" if _directive(plain(text)) else "fact"


def _directive(sentence: str, depth: int = 0) -> bool:
    label = _LABEL.match(sentence)
    if label and depth < 2:
        rest = label.group(2).strip()
        return bool(rest) and _directive(rest, depth + 1)
    first = _SENTENCE.split(sentence, 1)[0].strip()
    lowered = " " + " ".join(_PUNCT.sub(" ", first.lower().replace("’", "'")).split()) + " "
    if any(f" {cue} " in lowered for cue in DEONTIC):
        return True
    words = _WORD.findall(first)
    if words and words[0].lower() == "please":
        words = words[1:]
    if not words:
        return False
    if words[0].lower() in CONDITIONS and "," in first and depth < 2:
        return _directive(first.split(",", 1)[1].strip(), depth + 1)
    return _bare_verb(words)


def _bare_verb(words: list[str]) -> bool:
    head = words[0]
    low = head.lower()
    if low in FUNCTION_WORDS or head == "CODE" or not head.isalpha():
        return False
    if head[1:] != head[1:].lower() or (len(head) > 1 and head.isupper()):
        return False  # FastAPI, CI: a name
    if low.endswith(("ing", "ed", "ly")) or (low.endswith("s") and not low.endswith(("ss", "us"))):
        return False  # inflected: a subject ("Tests ...") or a participle
    if len(words) == 1:
        return False
    nxt = words[1]
    if any(w.lower() in AUXILIARIES for w in words[1:3]) or nxt[0].isdigit():
        return False  # "Redis is ...", "Feature flags are ...", "Python 3.12"
    # A run of capitalised words ("Docker Compose Postgres ...") is a name: a subject.
    return not (nxt[0].isupper() and nxt != "CODE" and len(words) > 2 and words[2][0].isupper())
