"""Reading a memory's text for the Curator: tokens, content units, negation scopes.

A text becomes a list of tokens (words, numbers with their unit, CJK runs, URLs,
operators and clause punctuation). Content units are what two texts must share to be
"about the same thing": stemmed content words, and character bigrams for CJK.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memx_cli.curator import lexicon as lx
from memx_cli.reflector.tools import KNOWN_TOOLS
from memx_cli.textproc import _CJK, STOP_WORDS, WORD_BODY, stem


@functools.cache
def _lexer() -> re.Pattern[str]:
    # Words are the one word tokeniser's (textproc.WORD_BODY); around them the Curator
    # also needs URLs, CJK runs, operators and clause punctuation.
    return re.compile(
        rf"(?P<url>[A-Za-z][A-Za-z0-9+.-]*://[^\s,;，。；]+)"
        rf"|(?P<cjk>[{_CJK}]+)"
        # A command-line flag is one word, dashes kept: "-x", "--no-frozen-lockfile".
        r"|(?P<flag>(?<![\w-])--?[A-Za-z][\w-]*)"
        rf"|(?P<word>{WORD_BODY})"
        r"|(?P<op>[=:<>≥≤→%]|->)"
        r"|(?P<punct>[,;.!?，。；！？、])"
    )


_NUMBER = re.compile(r"^v?(\d+(?:\.\d+)*)([a-z%]*)$")
# A tool name with its version glued on: "go1.22", "python3.12" (a dot is needed:
# "ipv4", "s3" and "k8s" are names, not versions).
_GLUED_VERSION = re.compile(r"^([a-z]{2,})(\d+(?:\.\d+)+)$")
_VERSION_PART = re.compile(r"(?:^|-)v?\d+(?:\.\d+)*(?:-|$)")
# French elision: "n'utilisez" is "ne" + "utilisez", "l'API" is "API". English
# contractions ("don't", "it's") have more than one letter before the apostrophe.
_ELISION = re.compile(r"^(n|l|d|j|m|t|s|c|qu)['’](\w.*)$")
_MODALS_ZH = ("应该", "需要", "可以", "使用", "要", "能", "会", "必", "用", "有")
# An issue tracker's key: upper-case project letters, a hyphen, a number ("PAY-12").
_TICKET = re.compile(r"[A-Z][A-Z0-9]{1,9}-\d+$")


# An identifier given as a value: letters and digits joined by hyphens, dots, underscores
# or a colon ("eu-west-1", "t3.medium", "node:18-alpine", "Standard_D4s_v3"), standing
# alone (not inside a URL or a path).
_IDENTIFIER = re.compile(r"(?<![A-Za-z0-9_/.:@-])[A-Za-z0-9]+(?:[-._:][A-Za-z0-9]+)+"
                         r"(?![A-Za-z0-9_/@]|[-.:][A-Za-z0-9])")


def identifiers(text: str) -> list[tuple[str, int]]:
    """Each identifier with letters and digits in ``text``, lowercased, with where it
    starts. A number with its unit ("1.5s", "v2.4.1") or a ticket ("PAY-12") is none:
    those are read as numbers and names; "read-only" and "x86" have no joined digits."""
    found = []
    for match in _IDENTIFIER.finditer(text):
        raw = match.group(0)
        low = raw.lower()
        if (not re.search(r"[a-z]", low) or not re.search(r"\d", low) or _TICKET.fullmatch(raw)
                or _NUMBER.fullmatch(low)):
            continue
        found.append((low, match.start()))
    return found


@dataclass(frozen=True)
class Token:
    kind: str  # word, number, cjk, url, op, punct
    text: str  # lowercased as written (a number keeps its unit: "300ms")
    number: float | None = None
    unit: str = ""
    dotted: bool = False  # a version-like number such as 3.11.2
    name: bool = False    # a proper name or tool: "Postgres", "Jest", "pnpm", "iOS"
    negator: bool = False  # negates by its place: "stop" before "caching"

    @property
    def negates(self) -> bool:
        return self.kind == "word" and (self.negator or self.text in lx.NEGATORS_EN
                                        or self.text.endswith(("n't", "n’t")))


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text`` (a new list: the tokens themselves are frozen). One write
    compares a text with each candidate through several rules, each reading it again:
    the reading is cached."""
    return list(_tokens(text))


@functools.lru_cache(maxsize=1024)
def _tokens(text: str) -> tuple[Token, ...]:
    tokens: list[Token] = []
    for match in _lexer().finditer(text):
        kind = match.lastgroup or "word"
        if kind == "flag":
            tokens.append(Token("word", match.group(0).lower(), name=True))
            continue
        raw = match.group(0)
        if kind == "word" and (_TICKET.match(raw) or (
                raw.isdigit() and text[max(match.start() - 1, 0):match.start()] == "#")):
            # a ticket or pull request ("JIRA-1234", "#123") names a thing: not a value
            tokens.append(Token("word", ("#" if raw.isdigit() else "") + raw.lower()))
            continue
        # "ubuntu-22.04", "15-alpine": a version joined to a word by a hyphen is read apart.
        pieces = raw.split("-") if kind == "word" and _VERSION_PART.search(raw) else [raw]
        for raw in pieces:
            low = raw.lower()
            if kind == "op" and raw == "%" and tokens and tokens[-1].kind == "number" \
                    and not tokens[-1].unit:
                last = tokens[-1]
                tokens[-1] = Token("number", last.text + "%", last.number, "%", last.dotted)
                continue
            elided = _ELISION.match(low) if kind == "word" else None
            if elided:
                if elided.group(1) == "n":
                    tokens.append(Token("word", "ne"))
                raw = low = elided.group(2)
            glued = _GLUED_VERSION.match(low) if kind == "word" else None
            if glued:
                tokens.append(Token("word", glued.group(1), name=True))
                raw = low = glued.group(2)
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
            if kind == "word":
                tokens.append(Token(kind, low, name=_is_name(raw, low, tokens)))
                _mark_stop(tokens)
                continue
            tokens.append(Token(kind, low if kind != "cjk" else raw))
    return tuple(tokens)


def _is_name(raw: str, low: str, before: list[Token]) -> bool:
    """A tool or proper name: a known tool, or a word capitalised inside a sentence
    ("with Java 17"), or with a capital after its first letter ("iOS", "GitHub")."""
    starts = not before or before[-1].kind == "punct"
    return (low in KNOWN_TOOLS or any(c.isupper() for c in raw[1:])
            or (raw[:1].isupper() and not starts))


def _mark_stop(tokens: list[Token]) -> None:
    """"stop caching": "stop" negates the gerund after it (not "stop the car")."""
    if len(tokens) > 1 and tokens[-2].text in lx.STOP_VERBS and tokens[-1].text.endswith("ing"):
        stop = tokens[-2]
        tokens[-2] = Token(stop.kind, stop.text, name=stop.name, negator=True)


# Irregular plurals the stemmer leaves alone ("men" is not "man" to Snowball).
_IRREGULAR = {"men": "man", "women": "woman", "children": "child", "people": "person",
              "mice": "mouse", "feet": "foot", "teeth": "tooth", "geese": "goose"}


def unit(word: str) -> str:
    """A content word's unit: its singular if irregular, then the shared stemmer."""
    return stem(_IRREGULAR.get(word, word))


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
            found.setdefault(unit(token.text), token.text)
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
        elif token.kind == "cjk" and _KANA.search(token.text):
            scopes.extend(_ja_scopes(token.text))
        elif token.kind == "cjk":
            scopes.extend(_zh_scopes(tokens, at))
    return scopes


_KANA = re.compile("[\u3040-\u30ff]")
_JA_PARTICLES = re.compile("[をにはでがのへとも]|する$")


def _ja_scopes(run: str) -> list[Scope]:
    """Japanese negates after the verb: the scope is the word before the negation
    ("デバッグログを有効にしない" -> 有効; "プッシュを禁止する" -> プッシュ)."""
    scopes = []
    for neg in lx.NEGATIONS_JA:
        at = run.find(neg)
        if at <= 0:
            continue
        before = [w for w in _JA_PARTICLES.split(run[:at]) if w]
        if neg in ("ない", "ません") and run[at - 1:at] in "しせ":
            before = [w for w in _JA_PARTICLES.split(run[:at - 1]) if w]
        if before:
            scopes.append(Scope(neg, frozenset(_bigrams(before[-1])[:2]), run[:at + len(neg)]))
        break
    return scopes


def _zh_scopes(tokens: list[Token], at: int) -> list[Scope]:
    """Chinese negates before the verb: 不要用npm -> {npm, 安装}; 不再需要备份 -> 备份."""
    scopes = []
    run = strip_zh_negations(tokens[at].text)
    pos = 0
    while pos < len(run):
        neg = next((n for n in lx.NEGATORS_ZH if run.startswith(n, pos)), None)
        if neg is None:
            pos += 1
            continue
        rest = run[pos + len(neg):]
        for modal in _MODALS_ZH:
            if rest.startswith(modal):
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
            found.append(unit(token.text))
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


def number_norm(token: Token) -> str:
    """A number or URL in a comparable form: "0.5s" and "500ms" are both "0.5|time";
    a version ("3.10", "v2.1.0") stays as written."""
    if token.kind == "url" or token.dotted:
        return token.text.lstrip("v").split("/")[0] if token.dotted else token.text
    assert token.number is not None
    dim, factor = lx.UNITS.get(token.unit, ("", 1.0))
    return f"{token.number * factor:g}|{dim}"


def embedded_digits(tokens: list[Token]) -> frozenset[str]:
    """Digit runs inside words ("node18", "h2", "x86"): not values, but two texts that
    differ in them are not one statement."""
    return frozenset(d for t in tokens if t.kind == "word" for d in re.findall(r"\d+", t.text))


def numbers(tokens: list[Token]) -> frozenset[str]:
    """Every number (with its unit, normalised): two texts with different numbers are
    never duplicates, however similar (an embedding model barely sees digits)."""
    return frozenset(number_norm(t) for t in tokens if t.kind == "number")
