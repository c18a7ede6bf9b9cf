"""The word-level matcher behind every rule, and language detection.

SPEC 3.1: match words, not substrings ("use" must not fire inside "because"). A phrase is
a sequence of whole words ("turned out"); a trailing ``*`` makes its last word a prefix
("résolu*"). Korean words carry their particles ("오류가"), so Korean phrases are word
prefixes. Chinese and Japanese have no spaces: their phrases are matched as character
runs. The phrase lists themselves are in ``lexicons.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

WORD_RE = re.compile(r"\w+(?:['’]\w+)*")
HANGUL = re.compile("[\uac00-\ud7af]")
KANA = re.compile("[\u3040-\u30ff]")
HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")
CJK_ANY = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


class Word(NamedTuple):  # tuples: a log block has thousands of words
    text: str  # lowercased
    start: int
    end: int


class Hit(NamedTuple):
    phrase: str
    start: int
    end: int
    word_index: int  # index of the first word; -1 for a CJK run match


def words_of(text: str) -> list[Word]:
    lowered = text.lower().replace("’", "'")  # same length: offsets stay valid
    return [Word(m.group(), m.start(), m.end()) for m in WORD_RE.finditer(lowered)]


_INITIALS: dict[int, tuple[dict[str, list[int]], dict[str, list[str]]]] = {}


def _initials(index: dict[str, list[int]]) -> dict[str, list[str]]:
    """Distinct words by first character (for prefix phrases), cached per index."""
    cached = _INITIALS.get(id(index))
    if cached is not None and cached[0] is index:
        return cached[1]
    grouped: dict[str, list[str]] = {}
    for word in index:
        grouped.setdefault(word[:1], []).append(word)
    _INITIALS.clear()  # one turn at a time: keep the cache tiny
    _INITIALS[id(index)] = (index, grouped)
    return grouped


def index_of(words: Sequence[Word]) -> dict[str, list[int]]:
    """Where each distinct word occurs: lexicons look up only the words they start with."""
    index: dict[str, list[int]] = {}
    for i, word in enumerate(words):
        index.setdefault(word.text, []).append(i)
    return index


def phrases(text: str) -> list[str]:
    """Phrases separated by ``;`` or new lines (so a phrase may contain spaces)."""
    return [p.strip() for p in re.split(r"[;\n]", text) if p.strip()]


def _spaceless(phrase: str) -> bool:
    return bool(CJK_ANY.search(phrase)) and not HANGUL.search(phrase)


class Lexicon:
    """A set of phrases, matched against a text's words (and its CJK runs)."""

    def __init__(self, items: Iterable[str]):
        self.phrases = tuple(items)
        self._by_first: dict[str, list[tuple[tuple[str, ...], bool, str]]] = {}
        self._prefixes: dict[str, list[tuple[str, str]]] = {}
        self._runs: list[str] = []
        for phrase in self.phrases:
            if _spaceless(phrase):
                self._runs.append(phrase)
                continue
            prefix = phrase.endswith("*") or bool(HANGUL.search(phrase))
            parts = tuple(w.lower().replace("’", "'") for w in WORD_RE.findall(phrase))
            if not parts:
                continue
            if prefix and len(parts) == 1:
                self._prefixes.setdefault(parts[0][:1], []).append((parts[0], phrase))
            else:
                self._by_first.setdefault(parts[0], []).append((parts, prefix, phrase))

    def find(self, words: Sequence[Word], text: str,
             index: dict[str, list[int]] | None = None) -> list[Hit]:
        if index is None:
            index = index_of(words)
        hits: list[Hit] = []
        count = len(words)
        for first in self._by_first.keys() & index.keys():
            places = index[first]
            for parts, prefix, phrase in self._by_first[first]:
                size = len(parts)
                if size == 1:  # a whole word: every place it occurs
                    hits.extend(Hit(phrase, words[i].start, words[i].end, i) for i in places)
                    continue
                for i in places:
                    end = i + size
                    if end > count:
                        continue
                    second = words[i + 1].text  # most places fail here: test it first
                    if size == 2:
                        if not (second.startswith(parts[1]) if prefix else second == parts[1]):
                            continue
                    else:
                        if second != parts[1] or any(words[i + k].text != parts[k]
                                                     for k in range(2, size - 1)):
                            continue
                        last = words[end - 1].text
                        if not (last.startswith(parts[-1]) if prefix else last == parts[-1]):
                            continue
                    if any(text[words[k].end:words[k + 1].start].strip()
                           for k in range(i, end - 1)):
                        continue  # a phrase never spans punctuation: "turned, out"
                    hits.append(Hit(phrase, words[i].start, words[end - 1].end, i))
        if self._prefixes:
            initials = _initials(index)
            for initial in self._prefixes.keys() & initials.keys():
                for text_word in initials[initial]:
                    for stem, phrase in self._prefixes[initial]:
                        if text_word.startswith(stem):
                            hits.extend(Hit(phrase, words[i].start, words[i].end, i)
                                        for i in index[text_word])
        if self._runs and CJK_ANY.search(text):
            for phrase in self._runs:
                pos = text.find(phrase)
                while pos != -1:
                    hits.append(Hit(phrase, pos, pos + len(phrase), -1))
                    pos = text.find(phrase, pos + len(phrase))
        hits.sort(key=lambda h: h.start)
        return hits


def language(text: str, words: Sequence[Word] | None = None) -> str:
    """en, zh, ja, ko, fr, es, pt or de: the script decides CJK; the others by their
    small words. ``words``: the text's own (``words_of``), read again only when the
    sample's words could differ from them."""
    sample = text[:4000]
    if HANGUL.search(sample):
        return "ko"
    if KANA.search(sample):
        return "ja"
    if HAN.search(sample):
        return "zh"
    tokens = _sampled(words, len(sample)) if words is not None and sample.isascii() else None
    if tokens is None:
        tokens = WORD_RE.findall(sample.lower())
    if not tokens:
        return "en"
    counts = {lang: sum(map(markers.__contains__, tokens)) for lang, markers in _MARKERS}
    best = max(counts, key=lambda lang: counts[lang])  # ties: the first listed
    return best if counts[best] >= max(2, len(tokens) // 12) else "en"


def _sampled(words: Sequence[Word], size: int) -> list[str] | None:
    """The words of an ASCII text's first ``size`` characters, taken from the whole
    text's words (lowercasing keeps ASCII's offsets); None when one is cut at the end."""
    tokens = []
    for word in words:
        if word.end > size:
            if word.start < size:
                return None  # cut: the sample reads a shorter word
            break
        tokens.append(word.text)
    return tokens


_SPANISH_MARKERS = frozenset(
    ["el", "los", "las", "del", "por", "para", "con", "una", "es", "está", "pero", "como", "lo", "se", "y", "al", "fue", "ya", "más", "nada", "sigue", "hay", "muy"]
)
_PORTUGUESE_MARKERS = frozenset(
    ["os", "do", "da", "dos", "das", "não", "em", "um", "uma", "com", "foi", "mas", "isso", "ao", "na", "é", "agora", "já", "também", "mais", "nao"]
)
_GERMAN_MARKERS = frozenset(
    ["der", "die", "das", "und", "ist", "nicht", "wir", "für", "mit", "den", "dem", "auf", "eine", "ein", "sich", "auch", "weil", "statt", "wird", "bei", "nach", "schon"]
)
_FRENCH_MARKERS = frozenset(
    ["le", "la", "les", "des", "est", "une", "pas", "pour", "avec", "que", "qui", "dans", "sur", "ça", "c'est", "j'ai", "il", "elle", "nous", "vous", "mais", "fallait", "après", "avant", "quand", "été", "était", "du", "au", "aux", "ce", "cette", "en"]
)
_MARKERS = (("fr", _FRENCH_MARKERS), ("es", _SPANISH_MARKERS), ("pt", _PORTUGUESE_MARKERS),
            ("de", _GERMAN_MARKERS))

# Words just before a trigger that negate it ("didn't fix", "n'a pas résolu", "안 됐").
NEGATORS = frozenset(
    ["not", "no", "never", "neither", "nor", "without", "hardly", "nothing", "still", "cannot", "can't", "didn't", "doesn't", "don't", "isn't", "wasn't", "won't", "hasn't", "haven't", "couldn't", "pas", "jamais", "rien", "sans", "ne", "n'a", "n'est", "안", "못",
     "nicht", "kein", "keine", "nie", "ohne", "nunca", "sin", "não", "sem", "nem", "nada"]
)
CJK_NEG_BEFORE = ("没", "不", "未", "无")
CJK_NEG_AFTER = ("ない", "なかった", "ません", "ず", "不了")
_CLAUSE_BREAK = re.compile(r"[,;.:!?，。；：！？]")
KO_NEG_AFTER = ("지 않", "지 못", "지않", "지못")


def negated(hit: Hit, words: Sequence[Word], text: str) -> bool:
    """Whether a trigger is negated by the words right before (or, in CJK, after) it."""
    if hit.word_index >= 0:
        for word in words[max(0, hit.word_index - 3):hit.word_index]:
            if (word.text in NEGATORS or word.text.endswith("n't")) \
                    and not _CLAUSE_BREAK.search(text, word.end, hit.start):
                return True
    else:
        if text[max(0, hit.start - 2):hit.start].endswith(CJK_NEG_BEFORE):
            return True
    after = text[hit.end:hit.end + 5]
    return after.startswith(CJK_NEG_AFTER) or after.startswith(KO_NEG_AFTER)
