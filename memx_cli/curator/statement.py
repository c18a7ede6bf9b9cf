"""Are two memories one statement, changed in one place, or two statements? (issue 12)

The contradiction rules look at what differs between two texts; before that, this module
says whether the texts talk about the same thing at all, and what exactly differs:

- **subject swap**: a word that names *which* thing ("auth service" / "billing service",
  "caching in the storefront" / "in the admin dashboard", "dev.yaml" / "prod.yaml",
  认证服务 / 计费服务): different subjects, so neither a contradiction nor a duplicate;
- **one change**: everything else shared, one side says a value, a tool or a polarity
  the other does not ("Use Jest" / "Use Vitest");
- **restatement**: the newer text says it changes something ("now", "instead of",
  改用, 今後) about the same statement: it supersedes the older one.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memx_cli.curator import lexicon as lx
from memx_cli.curator.relations import other_environment
from memx_cli.curator.text import Token, is_content, negated_scopes, tokenize, unit
from memx_cli.textproc import _CJK, stem

# Prepositions that place a statement ("caching in the storefront", "the timeout for
# the search API"): the words after them name where it holds.
_PLACES = frozenset(["in", "on", "at", "for", "dans", "pour", "sur"])
_FILE = re.compile(r"^[\w-]+(?:\.[\w-]+)*\.[a-z][a-z0-9]{0,4}$")
_CJK_CHAR = re.compile(f"[{_CJK}]")
_CHANGE_STEMS = frozenset(stem(w) for w in lx.CHANGE_MARKERS_EN)
# Chinese words that only introduce a value or state a change: left out of the
# comparison so "缓存过期时间是10分钟" and "缓存过期时间改为1小时" read as one statement.
_ZH_NOISE = tuple(sorted(set(lx.CHANGE_MARKERS_ZH + lx.ZH_VALUE_CUES + lx.NEGATORS_ZH
                             + lx.NEGATIONS_JA + ("使用", "需要", "要", "先", "可以", "应该")),
                         key=len, reverse=True))


@dataclass(frozen=True)
class Shape:
    """What one text says, for comparing it with another."""

    tokens: list[Token]
    core: frozenset[str]     # content units without change words, cues and negations
    chars: frozenset[str]    # CJK characters of the core
    negative: bool           # says "not" somewhere (a negation with a scope)


def _core_units(tokens: list[Token]) -> tuple[set[str], set[str]]:
    units: set[str] = set()
    chars: set[str] = set()
    for token in tokens:
        if token.kind == "cjk":
            run = token.text
            for noise in _ZH_NOISE:
                run = run.replace(noise, "")  # 构建时没有缓存依赖包 reads as 构建时缓存依赖包
            for piece in run.split():
                chars.update(piece)
                units.update([piece] if len(piece) == 1 else
                             [piece[i:i + 2] for i in range(len(piece) - 1)])
        elif is_content(token) and unit(token.text) not in _CHANGE_STEMS:
            units.add(unit(token.text))
    return units, chars


@functools.lru_cache(maxsize=4096)
def shape(text: str) -> Shape:
    tokens = tokenize(text)
    units, chars = _core_units(tokens)
    return Shape(tokens, frozenset(units), frozenset(chars), bool(negated_scopes(tokens)))


def differing(a: Shape, b: Shape) -> tuple[frozenset[str], frozenset[str]]:
    """Core units only ``a`` has, and only ``b`` has."""
    return a.core - b.core, b.core - a.core


def overlap(a: Shape, b: Shape) -> float:
    """Share of the smaller core that the other text also says."""
    if not a.core or not b.core:
        return 0.0
    return len(a.core & b.core) / min(len(a.core), len(b.core))


def _heads(tokens: list[Token], only: frozenset[str]) -> set[tuple[str, str]]:
    """(relation, neighbour) of each word of ``only``: the word right after it (its head
    noun: "auth service") or the place word before it ("in the storefront")."""
    found = set()
    for at, token in enumerate(tokens):
        if not is_content(token) or unit(token.text) not in only:
            continue
        after = tokens[at + 1] if at + 1 < len(tokens) else None
        if after is not None and is_content(after):
            found.add(("head", unit(after.text)))
        back = at - 1
        while back >= 0 and tokens[back].text in ("the", "a", "an", "le", "la", "les"):
            back -= 1
        if back >= 1 and tokens[back].text in _PLACES and not token.name:
            # "in staging" names where; "on Buildkite" names a tool (a value)
            found.add((tokens[back].text, unit(tokens[back - 1].text)))
    return found


def subject_swap(a: Shape, b: Shape, opposite: frozenset[str] = frozenset()) -> bool:
    """Do the texts name different things of the same kind? A word on each side that
    modifies the same head noun or follows the same place ("auth service" / "billing
    service"), a different file name, or CJK text with new characters on both sides
    before the same characters (认证服务 / 计费服务). Words of an opposite pair
    (``opposite``: "enable" / "disable", 启用 / 禁用) are the change, not the subject."""
    if other_environment(a.tokens, b.tokens):
        return True  # "in CI" / "locally": the same statement about two environments
    only_a, only_b = differing(a, b)
    only_a, only_b = only_a - opposite, only_b - opposite
    if not only_a or not only_b:
        return False
    # A file named where the text starts is its subject ("config/dev.yaml sets ...");
    # further on it is a value ("the config lives in config/app.yaml").
    lead_a, lead_b = set(_subject(a.tokens)[0]), set(_subject(b.tokens)[0])
    files_a = {t.text for t in a.tokens if _FILE.match(t.text) and unit(t.text) in lead_a}
    files_b = {t.text for t in b.tokens if _FILE.match(t.text) and unit(t.text) in lead_b}
    if files_a - files_b and files_b - files_a:
        return True
    if _heads(a.tokens, only_a) & _heads(b.tokens, only_b):
        return True
    skip = set("".join(w for w in opposite if _CJK_CHAR.match(w)))
    return bool(a.chars - b.chars - skip and b.chars - a.chars - skip and _cjk_heads(a, b, skip))


def _cjk_heads(a: Shape, b: Shape, skip: set[str]) -> bool:
    """New CJK characters on each side, each followed by the same shared bigram."""
    def heads(one: Shape, other: Shape) -> set[str]:
        found = set()
        for token in one.tokens:
            if token.kind != "cjk":
                continue
            run = token.text
            for i in range(len(run) - 2):
                if (run[i] not in other.chars and run[i] not in skip
                        and run[i + 1:i + 3] in other.core):
                    found.add(run[i + 1:i + 3])
        return found
    return bool(heads(a, b) & heads(b, a))


def names_only(units: frozenset[str], one: Shape) -> bool:
    """Is every unit in ``units`` a tool or proper name in ``one``'s text?"""
    named = {unit(t.text) for t in one.tokens if t.name}
    return bool(units) and units <= named


def name_swap(a: Shape, b: Shape) -> tuple[str, str] | None:
    """One tool or name swapped for another, the rest of the statement the same ("We
    use Jest for unit tests" / "We use Vitest for unit tests")."""
    only_a, only_b = differing(a, b)
    if not (names_only(only_a, a) and names_only(only_b, b)):
        return None
    if len(only_a) > 2 or len(only_b) > 2 or overlap(a, b) < 0.5:
        return None
    shown = {unit(t.text): t.text for t in a.tokens + b.tokens if t.name}
    return (" ".join(shown[u] for u in sorted(only_a)), " ".join(shown[u] for u in sorted(only_b)))


def same_statement(a: Shape, b: Shape) -> bool:
    """The same content words, or (CJK) one text is the other with a few characters
    added: "部署前先运行" / "部署之前先运行"."""
    if a.core == b.core:
        return bool(a.core)
    small, large = sorted((a, b), key=lambda one: len(one.core))
    return (bool(small.chars) and small.chars <= large.chars
            and len(a.core & b.core) / len(a.core | b.core) >= 0.6)


def _subject(tokens: list[Token]) -> tuple[list[str], int]:
    """The content words a sentence starts with (its subject, "the docs", "secrets"),
    and the index of the first token after them."""
    found: list[str] = []
    for at, token in enumerate(tokens):
        if token.text in ("the", "a", "an", "our", "all") and not found:
            continue
        if not is_content(token) or token.text in lx.REPLACE_WORDS:
            return found, at
        found.append(unit(token.text))
    return found, len(tokens)


def relocated(a: Shape, b: Shape) -> str | None:
    """"The docs moved to GitHub Pages" after "The docs are hosted on Read the Docs": the
    newer text says its subject moved, switched or was replaced, and the older one starts
    with the same subject. The subject as written, or None."""
    subject, at = _subject(b.tokens)
    if not subject or at >= len(b.tokens) or b.tokens[at].text not in lx.REPLACE_WORDS:
        return None
    old_subject, _ = _subject(a.tokens)
    if old_subject != subject:
        return None
    return " ".join(t.text for t in b.tokens[:at])
