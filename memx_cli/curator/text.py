"""Reading a memory's text for the Curator: tokens, content units, negation scopes.

A text becomes a list of tokens (words, numbers with their unit, CJK runs, URLs,
operators and clause punctuation). Content units are what two texts must share to be
"about the same thing": stemmed content words, and character bigrams for CJK.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memx_cli.curator import lexicon as lx
from memx_cli.textproc import _CJK, STOP_WORDS

_TOKEN = re.compile(
    rf"(?P<url>[A-Za-z][A-Za-z0-9+.-]*://[^\s,;，。；]+)"
    rf"|(?P<cjk>[{_CJK}]+)"
    rf"|(?P<word>(?:[^\W{_CJK}]|[%'’])+(?:[./-](?:[^\W{_CJK}]|%)+)*)"
    r"|(?P<op>[=:<>≥≤→]|->)"
    r"|(?P<punct>[,;.!?，。；！？、])"
)
_NUMBER = re.compile(r"^v?(\d+(?:\.\d+)*)([a-z%]*)$")
_MODALS_ZH = ("应该", "需要", "可以", "要", "能", "会", "必", "用")


@dataclass(frozen=True)
class Token:
    kind: str  # word, number, cjk, url, op, punct
    text: str  # lowercased as written (a number keeps its unit: "300ms")
    number: float | None = None
    unit: str = ""
    dotted: bool = False  # a version-like number such as 3.11.2

    @property
    def negates(self) -> bool:
        return self.kind == "word" and (self.text in lx.NEGATORS_EN
                                        or self.text.endswith(("n't", "n’t")))


_IRREGULAR = {"men": "man", "women": "woman", "children": "child", "people": "person",
              "mice": "mouse", "feet": "foot", "teeth": "tooth", "geese": "goose"}


def stem(word: str) -> str:
    """A crude English stem, enough to match dogs/dog and slicing/slice."""
    w = word.lower().replace("’", "'")
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4:
        if w.endswith("ies"):
            w = w[:-3] + "y"
        elif w.endswith("ing") and len(w) > 5:
            w = w[:-3]
        elif w.endswith("ed") or w.endswith("es"):
            w = w[:-2]
        elif w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "word"
        raw = match.group(0)
        low = raw.lower()
        if kind == "word":
            number = _NUMBER.match(low)
            if number and (not number.group(2) or number.group(2) in lx.UNITS):
                parts = number.group(1).split(".")
                # "3.10" without a unit reads as a version: compared as written, not as 3.1.
                dotted = len(parts) > 2 or low.startswith("v") or (
                    len(parts) == 2 and not number.group(2))
                tokens.append(Token("number", low, float(".".join(parts[:2])),
                                    number.group(2), dotted))
                continue
            if low in lx.NUMBER_WORDS:
                tokens.append(Token("number", low, float(lx.NUMBER_WORDS[low])))
                continue
            if low in lx.UNITS and tokens and tokens[-1].kind == "number" and not tokens[-1].unit:
                last = tokens[-1]
                tokens[-1] = Token("number", last.text + low, last.number, low, last.dotted)
                continue
        if kind == "cjk" and tokens and tokens[-1].kind == "number" and not tokens[-1].unit:
            unit = next((u for u in ("毫秒", "分钟", "小时", "秒", "天", "个", "次", "兆")
                         if raw.startswith(u)), "")
            if unit:
                last = tokens[-1]
                tokens[-1] = Token("number", last.text + unit, last.number, unit, last.dotted)
        tokens.append(Token(kind, low if kind != "cjk" else raw))
    return tokens


def is_content(token: Token) -> bool:
    return (token.kind == "word" and len(token.text) > 1 and not token.negates
            and token.text not in STOP_WORDS and token.text not in lx.FILLER)


def _bigrams(run: str) -> list[str]:
    return [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]


def strip_zh_negations(run: str) -> str:
    """The run with words that contain a negation character but negate nothing removed."""
    for word in lx.NOT_NEGATIONS_ZH:
        run = run.replace(word, "，")
    return run


def units(tokens: list[Token]) -> set[str]:
    """Content units: stemmed content words and CJK bigrams."""
    return set(surface_units(tokens))


def surface_units(tokens: list[Token]) -> dict[str, str]:
    """Each content unit with the word it came from (for the embedding model, which
    knows "large" but not the stem "larg")."""
    found: dict[str, str] = {}
    for token in tokens:
        if is_content(token):
            found.setdefault(stem(token.text), token.text)
        elif token.kind == "cjk":
            found.update((b, b) for b in _bigrams(token.text))
    return found


@dataclass(frozen=True)
class Scope:
    """A negation and the content units it applies to ("not" + {slic, potato})."""

    negation: str
    units: frozenset[str]
    phrase: str  # the negated words as written: "not slicing the potato"


def negated_scopes(tokens: list[Token]) -> list[Scope]:
    scopes: list[Scope] = []
    for at, token in enumerate(tokens):
        if token.negates:
            scope, end = _following_units(tokens, at + 1, [])
            if scope:
                phrase = " ".join(t.text for t in tokens[at:end])
                scopes.append(Scope(token.text, frozenset(scope), phrase))
        elif token.kind == "cjk":
            run = strip_zh_negations(token.text)
            pos = 0
            while pos < len(run):
                neg = next((n for n in lx.NEGATORS_ZH if run.startswith(n, pos)), None)
                if neg is None:
                    pos += 1
                    continue
                rest = run[pos + len(neg):]
                for modal in _MODALS_ZH:
                    if rest.startswith(modal) and len(rest) > len(modal):
                        rest = rest[len(modal):]
                        break
                rest = re.split(r"[，不没别勿未无非]", rest)[0]
                head = _bigrams(rest)[:2] if rest else []
                phrase = run[pos:]
                if len(rest) <= 2:
                    head, end = _following_units(tokens, at + 1, head)
                    phrase = " ".join([phrase] + [t.text for t in tokens[at + 1:end]])
                if head:
                    scopes.append(Scope(neg, frozenset(head), phrase))
                pos += len(neg)
    return scopes


def _following_units(tokens: list[Token], start: int, found: list[str]) -> tuple[list[str], int]:
    """Up to two content units after a negation, stopping at clause punctuation; and
    the index just past the last token read."""
    found = list(found)
    end = start
    for end, token in enumerate(tokens[start:start + 8], start):
        if len(found) >= 2 or token.kind == "punct":
            return found, end
        if is_content(token):
            found.append(stem(token.text))
        elif token.kind == "cjk":
            found.extend(_bigrams(token.text)[:2 - len(found)])
    else:
        end += 1
    return found, min(end, len(tokens))


def plain_units(tokens: list[Token]) -> set[str]:
    """Content units that are not inside a negation's scope."""
    negated: set[str] = set()
    for scope in negated_scopes(tokens):
        negated |= scope.units
    return units(tokens) - negated


def numbers(tokens: list[Token]) -> frozenset[str]:
    """Every number as written (with its unit): two texts with different numbers are
    never duplicates, however similar (an embedding model barely sees digits)."""
    return frozenset(t.text for t in tokens if t.kind == "number")
