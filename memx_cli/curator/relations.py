"""What two memories say differently that shared words hide (SPEC 3.2, the Curator on
pairs nobody tuned for):

- **order**: the same words on the two sides of an ordering word, swapped ("prefer X
  over Y" / "prefer Y over X", "lint before type-check" / "type-check before lint");
- **quantity**: all/every/always in one text, some/only/sometimes in the other;
- **prefixed opposites**: a word and its negative form ("lock" / "unlock", "root" /
  "non-root", "encrypt" / "unencrypted", "habilita" / "deshabilita"), or one root with
  opposite suffixes ("stateless" / "stateful");
- **time zones**: UTC in one text, local time or another zone in the other;
- **paths and flags**: a different file, directory or command-line flag for the same
  statement ("config/app.yaml" / "config/app.yml", "--force-with-lease" / "--force");
- **environments**: the same statement about CI and about local runs (or staging and
  production) is two statements, not a contradiction.
"""

from __future__ import annotations

import functools
import re
from itertools import pairwise

from memx_cli.curator import lexicon as lx
from memx_cli.curator.text import Token, is_content, tokenize, unit, units

# Share of the smaller text's content units the other must have (contradiction.py).
SAME_STATEMENT = 0.7
# Tokens read on each side of an ordering word: "prefer X over Y" is said in a few words,
# and a long clause (a pasted log) must not make the reading quadratic.
SIDE = 12
# Texts longer than this are compared by the older rules only (contradiction.detect): a
# memory is a paragraph, and these rules read every pair of clauses and words.
MAX_CHARS = 2000
# Lead-in words a negative form adds to its word; the rest must be a word of its own.
_NEGATIVE_PREFIXES = ("non-", "non", "un", "dis", "des", "dés", "de", "in", "im", "ir", "il")
_ZONE_ABBREVIATIONS = re.compile(
    r"(?<![A-Za-z])(UTC|GMT|CET|CEST|EET|EEST|WET|WEST|PST|PDT|EST|EDT|CST|CDT|MST|MDT|"
    r"JST|KST|IST|BST|AEST|AEDT|HKT|SGT)(?:\s?([+-])\s?(\d{1,2})(?::?(\d{2}))?)?(?![A-Za-z])")
_ZONE_NAMES = re.compile(
    r"(?<![\w/])(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific)"
    r"/[A-Za-z_]+(?:/[A-Za-z_]+)?|(?<![A-Za-z])utc(?![A-Za-z])", re.IGNORECASE)
_PATH = re.compile(r"(?<![\w/.:-])(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]*"
                   r"|(?<![\w/.:-])[\w-]{2,}(?:\.[\w-]+)*\.[a-z][a-z0-9]{0,4}(?![\w/])")
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*(?:=[\w.,:/-]+)?")


def _clause_ends(tokens: list[Token]) -> list[int]:
    """For each token, the index of the punctuation that ends its clause (one pass)."""
    ends, end = [0] * len(tokens), len(tokens)
    for at in range(len(tokens) - 1, -1, -1):
        if tokens[at].kind == "punct":
            end = at
        ends[at] = end
    return ends


def _cjk_units(run: str) -> set[str]:
    return {run} if len(run) == 1 else {run[i:i + 2] for i in range(len(run) - 1)}


@functools.lru_cache(maxsize=4096)
def ordered(text: str) -> frozenset[tuple[str, frozenset[str], frozenset[str]]]:
    """(ordering word, content units before it, content units after it), within one
    clause, for each ordering word of the text."""
    tokens = tokenize(text)
    ends = _clause_ends(tokens)
    found = set()
    start = 0
    for at, token in enumerate(tokens):
        if token.kind == "punct":
            start = at + 1
            continue
        end = ends[at]
        pair = (token.text, tokens[at + 1].text) if at + 1 < len(tokens) else ("", "")
        width = 2 if " ".join(pair) in lx.ORDER_PHRASES else 1 if token.text in lx.ORDER_WORDS else 0
        first, last = max(start, at - SIDE), min(end, at + width + SIDE)
        if width:
            found.add((" ".join(t.text for t in tokens[at:at + width]),
                       frozenset(units(tokens[first:at])),
                       frozenset(units(tokens[at + width:last]))))
        if token.kind == "cjk":
            for word in lx.ORDER_WORDS_CJK:
                before, hit, after = token.text.partition(word)
                if hit and before and after:
                    found.add((word, frozenset(units(tokens[first:at]) | _cjk_units(before)),
                               frozenset(_cjk_units(after) | units(tokens[at + 1:last]))))
    return frozenset(found)


def order_swap(old: str, new: str) -> str | None:
    """The same ordering word with words moved from one side of it to the other."""
    for word, left_a, right_a in ordered(old):
        for other, left_b, right_b in ordered(new):
            if word != other:
                continue
            went_right = (left_a & right_b) - left_b
            went_left = (right_a & left_b) - right_b
            if went_right and went_left:
                return f'order: the sides of "{word}" are swapped'
    return None


def _quantity(tokens: list[Token], text: str) -> tuple[bool, bool]:
    words = {t.text for t in tokens if t.kind == "word"}
    every = bool(words & lx.UNIVERSAL_EN) or any(w in text for w in lx.UNIVERSAL_CJK)
    part = bool(words & lx.PARTIAL_EN) or any(w in text for w in lx.PARTIAL_CJK)
    return every, part


def _without_quantities(text: str) -> set[str]:
    for word in lx.UNIVERSAL_CJK + lx.PARTIAL_CJK:
        text = text.replace(word, "，")  # 所有服务 / 只有部分服务: the same 服务
    return units(tokenize(text))


def quantity_change(old: str, new: str) -> str | None:
    """All (or always) in one text, only some (or sometimes) in the other, about the
    same thing (most of the rest shared)."""
    every_a, part_a = _quantity(tokenize(old), old)
    every_b, part_b = _quantity(tokenize(new), new)
    if not ((every_a and not part_a and part_b) or (every_b and not part_b and part_a)):
        return None
    a, b = _without_quantities(old), _without_quantities(new)
    if not a or not b or len(a & b) / min(len(a), len(b)) < SAME_STATEMENT:
        return None
    return "quantity: one says all or always, the other only some"


def _counts(tokens: list[Token]) -> dict[str, Token]:
    """Counted things: "two approvals" -> {approv: two}; measured ones (10 MB) aside."""
    return {unit(after.text): token for token, after in pairwise(tokens)
            if token.kind == "number" and not token.unit and not token.dotted
            and is_content(after)}


def count_change(old: str, new: str) -> tuple[str, str] | None:
    """The same thing counted differently: "get one approval" / "get two approvals"."""
    a, b = _counts(tokenize(old)), _counts(tokenize(new))
    for thing in sorted(a.keys() & b.keys()):
        if a[thing].number != b[thing].number:
            return a[thing].text, b[thing].text
    return None


def prefixed_opposites(old: str, new: str) -> tuple[str, str] | None:
    """A word in one text and its negative form in the other, neither in both:
    ("lock", "unlock"), ("root", "non-root")."""
    words_a = {t.text for t in tokenize(old) if is_content(t)}
    words_b = {t.text for t in tokenize(new) if is_content(t)}
    units_a, units_b = {unit(w) for w in words_a}, {unit(w) for w in words_b}
    for plain, plain_units, negative, negative_units in ((words_a, units_b, words_b, units_a),
                                                         (words_b, units_a, words_a, units_b)):
        for word in plain:
            if unit(word) in plain_units:
                continue
            for form in negative:
                if unit(form) in negative_units:
                    continue
                rest = next((form[len(p):] for p in _NEGATIVE_PREFIXES if form.startswith(p)
                             and len(form) - len(p) >= 3), None)
                if (rest is not None and unit(rest) == unit(word)) or _less_ful(word, form):
                    return (word, form) if plain is words_a else (form, word)
    return None


def _less_ful(one: str, other: str) -> bool:
    """"stateless" / "stateful", "useful" / "useless": one root, opposite suffixes."""
    for a, b in (("less", "ful"), ("ful", "less")):
        if one.endswith(a) and other.endswith(b) and len(one) > len(a) + 2:
            return one[:-len(a)] == other[:-len(b)]
    return False


def time_zones(text: str) -> frozenset[str]:
    """The time zones a text names, normalised: "UTC", "UTC+2", "Europe/Berlin", "local"."""
    found = set()
    for match in _ZONE_ABBREVIATIONS.finditer(text):
        zone, sign, hours, minutes = match.groups()
        zone = "UTC" if zone == "GMT" else zone
        offset = int(hours or 0) * 60 + int(minutes or 0)
        found.add(f"{zone}{sign}{offset}" if offset else zone)
    for match in _ZONE_NAMES.finditer(text):
        found.add("UTC" if match.group(0).lower() == "utc" else match.group(0).lower())
    low = text.lower()
    if any(phrase in low for phrase in lx.LOCAL_TIME):
        found.add("local")
    return frozenset(found)


def zone_change(old: str, new: str) -> tuple[str, str] | None:
    a, b = time_zones(old), time_zones(new)
    if a and b and not a & b:
        return ", ".join(sorted(a)), ", ".join(sorted(b))
    return None


def locators(text: str) -> frozenset[str]:
    """Paths, file names and command-line flags, as written (a trailing slash aside);
    time zones ("Europe/Berlin") and URLs are not paths."""
    zones = {z.lower() for z in time_zones(text)}
    found = {m.group(0).rstrip("/").lower() for m in _PATH.finditer(text)}
    found = {f for f in found if f and f not in zones and "://" not in f}
    return frozenset(found | {m.group(0).lower() for m in _FLAG.finditer(text)})


def _outside(text: str) -> set[str]:
    """Content units of the text with its paths, flags and time zones taken out."""
    for found in sorted(_PATH.findall(text) + _FLAG.findall(text), key=len, reverse=True):
        text = text.replace(found, " ")
    return units(tokenize(_ZONE_NAMES.sub(" ", _ZONE_ABBREVIATIONS.sub(" ", text))))


def locator_change(old: str, new: str) -> tuple[str, str] | None:
    """A path or flag only the older text names and another only the newer one names,
    the rest of the statement the same (no word swapped for another), and neither at
    the start of its text (there it names what the statement is about:
    "config/dev.yaml sets ..." / "config/prod.yaml sets ...")."""
    a, b = locators(old), locators(new)
    only_a, only_b = sorted(a - b), sorted(b - a)
    if not only_a or not only_b:
        return None
    rest_a, rest_b = _outside(old), _outside(new)
    if rest_a - rest_b and rest_b - rest_a:
        return None  # "store uploads in /data/uploads" / "store logs in /data/logs"
    if any(old.lower().startswith(x) for x in only_a) or any(
            new.lower().startswith(x) for x in only_b):
        return None
    return only_a[0], only_b[0]


def locator_units(old: str, new: str) -> frozenset[str]:
    """Content units found only in the locators and time zones the two texts differ by
    (not words the texts also say outside them)."""
    a = locators(old) | {z.lower() for z in time_zones(old)}
    b = locators(new) | {z.lower() for z in time_zones(new)}
    inside = units(tokenize(" ".join((a - b) | (b - a))))
    return frozenset(inside - _outside(old) - _outside(new))


def environments(tokens: list[Token], text: str) -> frozenset[str]:
    """The environments a text is about: CI, local runs, staging, production."""
    found = set()
    for at, token in enumerate(tokens):
        env = lx.ENVIRONMENTS.get(token.text)
        if token.text == "local":
            before = tokens[at - 1].text if at else ""
            after = tokens[at + 1].text if at + 1 < len(tokens) else ""
            env = "local" if before in lx.LOCAL_BEFORE or after in lx.LOCAL_AFTER else None
        if env is not None:
            found.add(env)
    found.update(env for word, env in lx.ENVIRONMENTS_CJK if word in text)
    return frozenset(found)


def other_environment(a: list[Token], b: list[Token]) -> bool:
    """Both texts name an environment and no environment is named by both."""
    text_a = "".join(t.text for t in a if t.kind == "cjk")
    text_b = "".join(t.text for t in b if t.kind == "cjk")
    env_a, env_b = environments(a, text_a), environments(b, text_b)
    return bool(env_a and env_b and not env_a & env_b)


def swapped(old: str, new: str) -> tuple[str, str] | None:
    """The one word the newer text has in place of one of the older's, every other word
    the same and in the same order (punctuation aside): ("hourly", "daily")."""
    from difflib import SequenceMatcher

    a = [t for t in tokenize(old) if t.kind != "punct"]
    b = [t for t in tokenize(new) if t.kind != "punct"]
    ops = [op for op in SequenceMatcher(None, [t.text for t in a], [t.text for t in b],
                                        autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(ops) != 1:
        return None
    tag, i1, i2, j1, j2 = ops[0]
    if tag != "replace" or i2 - i1 != 1 or j2 - j1 != 1:
        return None
    x, y = a[i1], b[j1]
    if x.kind != "word" or y.kind != "word" or (x.negates and y.negates):
        return None  # "don't" / "never": the same negation
    return x.text, y.text


def same_word(x: str, y: str) -> bool:
    """One word written two ways: another form ("write" / "written"), shortened
    ("db" / "database", "repo" / "repository") or misspelt ("writen", "recieve")."""
    if unit(x) == unit(y):
        return True
    short, long = sorted((x, y), key=len)
    if len(short) >= 3 and long.startswith(short):
        return True
    if len(short) >= 2 and short[0] == long[0] and _subsequence(short, long):
        return True
    if sorted(x) == sorted(y):
        return len(short) >= 3 and _edits(x, y) <= 1  # two letters swapped: "teh"
    # one letter more or less ("writen"), or another letter in a longer word ("recieve")
    return len(short) >= (4 if len(x) != len(y) else 5) and _edits(x, y) <= 1


def _subsequence(short: str, long: str) -> bool:
    letters = iter(long)
    return all(c in letters for c in short)


def _edits(x: str, y: str) -> int:
    """Edits from one word to the other, a swap of two neighbours counting as one."""
    rows = [list(range(len(y) + 1))]
    for i, cx in enumerate(x, 1):
        row = [i]
        for j, cy in enumerate(y, 1):
            best = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (cx != cy))
            if i > 1 and j > 1 and cx == y[j - 2] and x[i - 2] == cy:
                best = min(best, rows[-2][j - 2] + 1)
            row.append(best)
        rows.append(row)
    return rows[-1][-1]


def _member(word: str, text: str) -> str | None:
    """The closed set ``word`` is a value of in ``text``, if any (lexicon.EXCLUSIVE)."""
    if word.upper() in lx.HTTP_METHODS and re.search(rf"\b{word.upper()}\b", text):
        return "HTTP methods"
    key = word.replace("_", "").replace("-", "") if word.endswith("case") else word
    found = lx.EXCLUSIVE.get(key)
    context = lx.EXCLUSIVE_CONTEXT.get(found or "")
    if found is None or context is None:
        return found
    low = text.lower()
    return found if any(re.search(rf"\b{c}", low) for c in context) else None


def value_swap(old: str, new: str) -> tuple[str, str, str] | None:
    """Two members of one closed set swapped, the rest word for word the same:
    (the set's name, older word, newer word)."""
    found = swapped(old, new)
    if found is None:
        return None
    x, y = found
    kind = _member(x, old)
    if kind is None or kind != _member(y, new):
        return None
    if lx.EXCLUSIVE_SAME.get(x, x) == lx.EXCLUSIVE_SAME.get(y, y):
        return None
    return kind, x, y
