"""A series of commits on one subject (issue 24): "[ruff] Enable SIM118 (…)", "[ruff]
Enable C400 (…)"; "Register junit_family with a Literal type", "Register junit_logging with
a Literal type". One rule applied N times is one lesson, not N memories.

Two subjects are of one series when they are the same once the names in them are left
out: the words that are no identifier, code span, number or parenthesised aside, with the
tag or scope kept ("[ruff]", "legacy:"); in a replacement ("use X instead of Y") the names
are the rule and are kept; a revert is read by the subject it takes back. The first word (the verb) must agree, at least
two words must remain, and the word sets must overlap by ``ALIKE`` or more. A series is
looked for among commits at most ``WINDOW`` commits apart.
"""

from __future__ import annotations

import re

from memx_cli.reflector.commit_message import PR_NUMBER, REPLACEMENT, REVERT
from memx_cli.reflector.names import IDENT_RE

ALIKE = 0.6
WINDOW = 50
MAX_NAMES = 6  # names listed in the kept memory
TAG = re.compile(r"^\s*((?:\[[^\]]{1,40}\]\s*)+|[A-Za-z]+(?:\([^)]*\))?!?:\s*|"
                 r"[\w.-]+(?:/[\w.-]+)+(?:,\s*[\w./-]+)*:\s+)")
ASIDE = re.compile(r"\([^()]*\)|`[^`]*`|'[^']*'|\"[^\"]*\"")
WORD = re.compile(r"[^\W\d_][\w'-]*")
PAREN = re.compile(r"\([^()]*\)")
NAMED_WORD = re.compile(r"\w+(?:[./-]\w+)*")  # a word or a name, as a replacement names them


def template(subject: str) -> tuple[str, frozenset[str]] | None:
    """(first word, the subject's words without its names), or None when fewer than two
    words are left (nothing to tell a series from a coincidence)."""
    subject = PR_NUMBER.sub("", subject.strip())
    reverted = REVERT.match(subject)
    if reverted:  # a revert is of what it takes back: two reverts of two changes are two,
        # and a change taken back then restored is no series of one rule either
        verb = re.search(r"(?i)revert|restore", subject)
        inner = template(reverted.group(1) or reverted.group(2) or "")
        return (verb.group(0).lower(), inner[1]) if inner and verb else None
    tag = TAG.match(subject)
    head = tag.group(1).strip().lower() if tag else ""
    rest = subject[tag.end():] if tag else subject
    while PAREN.search(rest):  # nested asides too: "(… 'key in dict.keys()')"
        rest = PAREN.sub(" ", rest)
    plain = ASIDE.sub(" ", rest)
    if REPLACEMENT.search(plain):
        # "use base64 instead of hex", "use sha3-256 instead of sha-1": in a replacement the
        # names are the rule, so two with other names are two rules, not a series
        words = [w.lower() for w in NAMED_WORD.findall(rest) if len(w) > 2 or _name(w)]
    else:
        words = [w.lower() for w in WORD.findall(plain) if len(w) > 2 and not _name(w)]
    if not words:
        return None
    found = frozenset(words + ([head] if head else []))
    return (words[0], found) if len(found) >= 2 else None


def _name(word: str) -> bool:
    """An identifier or a code word: CamelCase, snake_case, dotted, with digits."""
    return bool(IDENT_RE.fullmatch(word)) or any(c.isdigit() for c in word) or (
        any(c.isupper() for c in word[1:]))


def alike(one: tuple[str, frozenset[str]], other: tuple[str, frozenset[str]]) -> bool:
    if one[0] != other[0]:
        return False
    shared = len(one[1] & other[1])
    return shared >= 2 and shared / len(one[1] | other[1]) >= ALIKE


def name(subject: str, kept: str) -> str:
    """The first word of ``subject`` that ``kept`` lacks: what this commit of the series
    was about ("junit_family" beside "Register tmp_path_retention_policy with …")."""
    def words(text: str) -> list[str]:
        text = PR_NUMBER.sub("", text.strip())
        tag = TAG.match(text)
        return [w.strip("()[],.:;`'\"") for w in (text[tag.end():] if tag else text).split()]

    theirs = set(words(kept))
    return next((w for w in words(subject) if w and w not in theirs), "")


def grouped(subjects: list[tuple[int, str]]) -> list[list[int]]:
    """Series among ``(position, subject)`` pairs (positions: order in the history), each
    a list of indexes into ``subjects``; a subject of no series is left out."""
    groups: list[list[int]] = []
    shapes = [template(s) for _, s in subjects]
    taken: set[int] = set()
    for n, shape in enumerate(shapes):
        if shape is None or n in taken:
            continue
        group = [n]
        for m in range(n + 1, len(subjects)):
            if subjects[m][0] - subjects[group[-1]][0] > WINDOW:
                break
            other = shapes[m]
            if m not in taken and other is not None and alike(shape, other):
                group.append(m)
        if len(group) > 1:
            taken.update(group)
            groups.append(group)
    return groups
