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
from memx_cli.curator.text import (
    Token,
    identifiers,
    is_content,
    negated_scopes,
    numbers,
    tokenize,
    unit,
    units,
)
from memx_cli.textproc import _CJK, stem

# Prepositions that place a statement ("caching in the storefront", "the timeout for
# the search API"): the words after them name where it holds.
_PLACES = frozenset(["in", "on", "at", "for", "dans", "pour", "sur"])
_FILE = re.compile(r"^[\w-]+(?:\.[\w-]+)*\.[a-z][a-z0-9]{0,4}$")


# Made on first use (issue 29): the CJK class costs ~2 ms to compile and the stems ~40
# calls of the stemmer, which a write whose candidates reach no rule needs not pay.
@functools.cache
def _cjk_char() -> re.Pattern[str]:
    return re.compile(f"[{_CJK}]")


@functools.cache
def _change_stems() -> frozenset[str]:
    return frozenset(stem(w) for w in lx.CHANGE_MARKERS_EN)

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
        elif is_content(token) and unit(token.text) not in _change_stems():
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
    skip = set("".join(w for w in opposite if not w.isascii() and _cjk_char().match(w)))
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


# Names of things, by their shape: a path or scoped package ("deployment/ledger",
# "@app/payments", "services/ledger/Dockerfile"), a name joined by underscores
# ("DATABASE_URL", "max_connections") or a dotted module or file name ("app.billing",
# ".env.local"); a version ("3.11") or a flag ("--force") is no name.
_NAMES = (("path", re.compile(r"@?[\w.-]*(?:/[\w.-]*)+")),
          ("joined", re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+")),
          ("dotted", re.compile(r"[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+")))
_EDGES = "\"'`()[]{}<>,;.!?…"
# Words after which a name is what the statement says (a value: "lives in config/a.yaml",
# "the CI workflow is ci.yml", "reads its settings from x.yaml", "use DATABASE_URL"),
# not what it is about.
_VALUE_CUES = frozenset(["is", "are", "was", "were", "be", "becomes", "=", ":", "->", "→",
                         "to", "from", "in", "into", "inside", "under", "at", "on", "with",
                         "via", "as", "use", "uses", "using", "used", "prefer", "prefers"])


# Words that go on after a value without making it the subject: a place, a time or a
# condition added ("written to /var/log/app in production", "... when the job starts").
_FOLLOWERS = frozenset(["in", "on", "at", "for", "by", "with", "via", "from", "to", "into",
                        "when", "if", "unless", "while", "before", "after", "during",
                        "and", "or", "but", "so", "because", "instead", "rather", "than"])


def _name_kind(chunk: str) -> str | None:
    low = chunk.lower()
    if low.endswith("case"):  # a case style ("snake_case") is a value of a closed set
        low = low.replace("_", "").replace("-", "")
    if chunk.startswith("-") or low in lx.EXCLUSIVE or not re.search("[A-Za-z]", chunk):
        return None
    return next((kind for kind, shape in _NAMES if shape.fullmatch(chunk)), None)


def _parts(chunk: str) -> set[str]:
    return {p for p in re.split(r"[/@._-]+", chunk.lower()) if p}


def _error_part(chunks: list[str]) -> int:
    """How many chunks the text's Error part holds ("Error: <what failed>. Fix: ..."):
    names there tell which thing failed, never a setting's value; 0 without one."""
    from memx_cli.reflector.distiller import LABELS

    if not chunks or chunks[0].rstrip(":").lower() not in {e.lower() for e, _, _ in LABELS.values()}:
        return 0
    fixes = {f.lower() + ":" for _, f, _ in LABELS.values()}
    return next((at for at, c in enumerate(chunks) if c.lower() in fixes), len(chunks))


def _subject_place(chunks: list[str], at: int) -> bool:
    """Does the name at ``chunks[at]`` say what the statement is about: it opens the text
    or a clause, follows a verb or a noun ("restart deployment/ledger", "the hook
    check-yaml"), or stands in the Error part; not after a cue that gives a value (for an
    identifier with digits, a cue a few words back: "use the VM size Standard_D4s_v3")."""
    if at < _error_part(chunks) or at == 0:
        return True
    before = chunks[at - 1]
    if before.endswith((",", ";", ".")) or (at == 1 and before.endswith(":")):
        return True  # after a clause or a leading label ("Note: ...")
    if identifiers(chunks[at]):  # "use t3.medium instances": an identifier with digits
        return not _value_place(chunks[:at], chunks[at + 1] if at + 1 < len(chunks) else "")
    if before.lower().strip(_EDGES) not in _VALUE_CUES and not before.endswith((":", "=")):
        return True
    # After a cue, a name that ends its clause (or leads to another place, a condition)
    # is the value given; one the statement goes on about is its subject ("changes to
    # packages/ledger/src need a changeset").
    after = chunks[at + 1].lower().strip(_EDGES) if at + 1 < len(chunks) else ""
    return not (not after or chunks[at].endswith((",", ";", ".", ":")) or after in _FOLLOWERS)


# Words that start what is said about the word before them ("node-3 is ...", "... must"):
# an identifier they follow is the statement's subject, not its value.
_PREDICATE = frozenset(["is", "are", "was", "were", "has", "have", "had", "must", "should",
                        "can", "cannot", "will", "may", "needs", "need"])


def _value_place(before: list[str], after: str) -> bool:
    """Is an identifier a value given to what comes before it: a cue up to four words
    before it in its clause ("is eu-west-1", "in zone europe-west4-b", "use the VM size
    Standard_D4s_v3", "REGION=eu-west-1"), and no predicate after it ("node-3 is ...")?
    ``before``: the chunks before it, ``after``: the word after it."""
    if after.lower().strip(_EDGES) in _PREDICATE:
        return False
    for chunk in reversed(before[-4:]):
        if chunk.endswith((",", ";", ".")):
            return False  # the clause starts after it
        if chunk.lower().strip(_EDGES) in _VALUE_CUES or chunk.endswith(("=", ":")):
            return True
    return False


def _value_at(text: str, start: int) -> bool:
    rest = text[start:].split()
    return _value_place(text[:start].split(), rest[1] if len(rest) > 1 else "")


_CHANGE_UNITS = frozenset(unit(w) for w in lx.CHANGE_MARKERS_EN)


def identifier_change(old: str, new: str) -> tuple[str, str] | None:
    """The same statement with another identifier as its value ("AWS_REGION is eu-west-1"
    / "... us-east-1", "t3.medium" / "m5.large"): an identifier with digits in each text
    that the other lacks, both given as a value, and the same words once they are taken
    out (words that say it changed aside). The two identifiers, or None."""
    found_a, found_b = identifiers(old), identifiers(new)
    only_a = [(x, at) for x, at in found_a if x not in {y for y, _ in found_b}]
    only_b = [(y, at) for y, at in found_b if y not in {x for x, _ in found_a}]
    if not only_a or not only_b:
        return None
    if not all(_value_at(old, at) for _, at in only_a) or \
            not all(_value_at(new, at) for _, at in only_b):
        return None
    rest_a, rest_b = tokenize(_masked(old, only_a)), tokenize(_masked(new, only_b))
    if numbers(rest_a) != numbers(rest_b) or \
            units(rest_a) - _CHANGE_UNITS != units(rest_b) - _CHANGE_UNITS:
        return None
    return only_a[0][0], only_b[0][0]


def identifiers_apart(old: str, new: str) -> bool:
    """Each text has an identifier with digits the other lacks: not one statement."""
    a, b = {x for x, _ in identifiers(old)}, {x for x, _ in identifiers(new)}
    return bool(a - b) and bool(b - a)


def _masked(text: str, found: list[tuple[str, int]]) -> str:
    for name, at in sorted(found, key=lambda f: -f[1]):
        text = text[:at] + " " + text[at + len(name):]
    return text


def named_apart(old: str, new: str) -> tuple[str, str] | None:
    """Two texts that say the same words about two different named things: every
    difference is a name of the same shape in the same place ("deployment/ledger" /
    "deployment/reports", "DATABASE_URL" / "REDIS_URL"), where it says what the text is
    about, not after a cue that makes it a value ("lives in config/a.yaml"); words that
    repeat a part of the name ("the payments package") follow it. The two names, or None."""
    from difflib import SequenceMatcher

    a, b = old.split(), new.split()
    ka, kb = [c.strip(_EDGES) for c in a], [c.strip(_EDGES) for c in b]
    ops = [op for op in SequenceMatcher(None, [c.lower() for c in ka], [c.lower() for c in kb],
                                        autojunk=False).get_opcodes() if op[0] != "equal"]
    if not ops or any(op[0] != "replace" or op[2] - op[1] != 1 or op[4] - op[3] != 1
                      for op in ops):
        return None
    names, echoes = [], []
    for _, i, _, j, _ in ops:
        kind = _name_kind(ka[i])
        if kind is not None and kind == _name_kind(kb[j]):
            if not (_subject_place(a, i) and _subject_place(b, j)):
                return None
            names.append((ka[i], kb[j]))
        else:
            echoes.append((ka[i].lower(), kb[j].lower()))
    if not names:
        return None
    parts_a = set().union(*(_parts(x) for x, _ in names))
    parts_b = set().union(*(_parts(y) for _, y in names))
    if any(x not in parts_a or y not in parts_b for x, y in echoes):
        return None
    return names[0]
