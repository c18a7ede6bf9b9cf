"""Does a new memory contradict an older one? (SPEC 3.2: contradiction before dedup.)

Two texts that differ only by a negation or a value are, to an embedding model, nearly
the same sentence; these rules look at exactly those differences, in English and
Chinese:

- **value**: the same named setting gets different values ("pool size 10" / "pool size
  must be at least 50", "timeout 300ms" / "timeout to 500ms", "Python 3.10" / "3.11",
  "连接池大小设置为50" / "改为100");
- **negation**: one text negates what the other states ("no man is playing the guitar",
  "不要用npm");
- **opposites**: the texts use opposite words about the same things (enable/disable,
  always/never, 启用/禁用).

A contradiction is *clear* when the newer text says it changes something ("changed",
"now", "no longer", "from 10 to 50", "改为"): the newer memory then supersedes the
older one; otherwise both are kept and the conflict is recorded.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memx_cli.curator import lexicon as lx
from memx_cli.curator.relations import (
    MAX_CHARS,
    SAME_STATEMENT,
    count_change,
    locator_change,
    locator_units,
    order_swap,
    prefixed_opposites,
    quantity_change,
    value_swap,
    zone_change,
)
from memx_cli.curator.similarity import jaccard
from memx_cli.curator.statement import (
    Shape,
    differing,
    identifier_change,
    name_swap,
    named_apart,
    overlap,
    relocated,
    shape,
    subject_swap,
)
from memx_cli.curator.text import (
    Scope,
    Token,
    is_content,
    negated_scopes,
    number_norm,
    numbers,
    plain_units,
    tokenize,
    unit,
    units,
)
from memx_cli.textproc import stem

# Share of the shorter text's content units the other must have for a negation or
# opposite words to be a contradiction of the same statement rather than two topics.
SAME_TOPIC = 0.5
_CUES = frozenset({"to", "at", "least", "most", "is", "are", "was", "be", "of", "from",
                   "equals", "=", ":", "≥", "≤", "<", ">",
                   # French, German, Spanish: "est de", "beträgt", "es"
                   "est", "sont", "ist", "sind", "beträgt", "auf", "es", "son", "de"})


@functools.cache
def _setting_stems() -> frozenset[str]:
    """The stems of the setting nouns, made on first use (issue 29: ~40 stems a write
    whose candidates state no value needs not pay)."""
    return frozenset(stem(w) for w in lx.SETTING_NOUNS)


@dataclass(frozen=True)
class Contradiction:
    kind: str     # "value", "negation" or "opposite"
    why: str      # one line for people: what differs
    clear: bool   # the newer text states a change: supersede instead of a conflict


@dataclass(frozen=True)
class Value:
    key: tuple[str, ...]  # stemmed words before the value, or CJK bigrams
    label: str            # the setting's name as written, for messages
    cjk: bool
    norm: str             # comparable form: "0.3|time", "3.10", a URL
    shown: str            # as written
    previous: bool        # the X of "from X to Y"


_ZH_NEGATED_TAIL = ("不要", "不能", "不应", "不得", "禁止", "别", "勿", "不")
_ZH_MODAL_TAIL = ("应该", "需要", "可以", "必须", "要", "会")


def _zh_name(run: str) -> tuple[str, bool]:
    """The setting a Chinese run names before its value, and whether the run negates the
    value: "连接池大小设置为" -> ("连接池大小", False); "不要改成" -> ("", True)."""
    negated = False
    stripped = True
    while stripped and run:
        stripped = False
        for cue in lx.ZH_VALUE_CUES + _ZH_NEGATED_TAIL + _ZH_MODAL_TAIL:
            if run.endswith(cue):
                run, stripped = run[: -len(cue)], True
                negated = negated or cue in _ZH_NEGATED_TAIL
                break
    return run, negated


def _zh_key(name: str) -> tuple[str, ...] | None:
    tail = name[-4:]  # the head noun comes last in Chinese
    return tuple(tail[i:i + 2] for i in range(len(tail) - 1)) if len(tail) > 1 else None


def values(tokens: list[Token]) -> list[Value]:
    """Numbers and URLs that are the value of a named setting."""
    found: list[Value] = []
    for at, token in enumerate(tokens):
        if token.kind not in ("number", "url"):
            continue
        key: tuple[str, ...] | None = None
        label = ""
        cjk = False
        cue = bool(token.unit) or token.kind == "url" or token.dotted
        previous = negated = False
        for back in range(at - 1, max(at - 7, -1), -1):
            prior = tokens[back]
            if prior.kind == "punct":
                break
            if prior.kind in ("number", "url"):
                previous = previous or (back == at - 2 and tokens[at - 1].text in ("to", "->", "→"))
                continue
            if prior.negates:
                negated = True
                continue
            if prior.kind == "cjk":
                name, denied = _zh_name(prior.text)
                negated, cue = negated or denied, True
                if not name:
                    continue  # only "不要改成": the name is further back (`logging.level`)
                label, cjk = name, True
                key = _zh_key(name)
                break
            if prior.kind == "op" or prior.text in _CUES:
                cue = True
                continue
            if is_content(prior):
                # A bare number right after a name is its version: "Node 18", "Java 17".
                cue = cue or (prior.name and back == at - 1)
                words = [prior.text]
                if back > 0 and is_content(tokens[back - 1]):
                    words.insert(0, tokens[back - 1].text)
                key, label = tuple(stem(w) for w in words), " ".join(words)
                negated = negated or any(t.negates for t in tokens[max(back - 3, 0):back])
                break
        if negated:
            continue  # "don't set the timeout to 300ms" states no value
        if key is None and not cjk:
            ahead = next((t for t in tokens[at + 1:at + 3] if is_content(t)), None)
            if ahead is not None:
                key, label = (stem(ahead.text),), ahead.text
            elif token.text.startswith("v") and token.dotted:
                key, label = ("version",), "version"  # "use v2 of the API" / "v3"
        if key is None:
            continue
        setting = "_" in key[-1] or key[-1] in _setting_stems()
        # A number word ("two photos") is a value only after a setting's name.
        named = setting if token.text in lx.NUMBER_WORDS else (cue or cjk or setting)
        if not named:
            continue
        found.append(Value(key, label, cjk, number_norm(token), token.text, False))
        if previous:
            # "from X to Y": X (two tokens back) was the value before this one.
            old = found[-2] if len(found) > 1 else None
            if old is not None and old.shown == tokens[at - 2].text:
                found[-2] = Value(old.key, old.label, old.cjk, old.norm, old.shown, True)
    return found


def _same_key(a: Value, b: Value) -> bool:
    if a.cjk != b.cjk:
        return False
    if a.cjk:
        sa, sb = set(a.key), set(b.key)
        return a.key[-1] == b.key[-1] or len(sa & sb) / len(sa | sb) >= 0.3
    if a.key[-1] != b.key[-1]:
        return False
    return len(a.key) == 1 or len(b.key) == 1 or a.key[0] == b.key[0]


def _comparable(a: Value, b: Value) -> bool:
    dim_a, dim_b = a.norm.partition("|")[2], b.norm.partition("|")[2]
    return not (dim_a and dim_b and dim_a != dim_b)


def _value_change(old: list[Value], new: list[Value]) -> tuple[Value, Value, bool] | None:
    for fresh in new:
        if fresh.previous:
            continue
        same = [o for o in old if _same_key(o, fresh) and _comparable(o, fresh)]
        current = [o for o in same if not o.previous]
        if not current or any(o.norm == fresh.norm for o in current):
            continue
        # "from 10 to 50" in the new text, where the old one said 10: clearly newer.
        was = {v.norm for v in new if v.previous and _same_key(v, fresh)}
        return current[0], fresh, any(o.norm in was for o in current)
    return None


def _states_change(text: str, tokens: list[Token]) -> bool:
    low = text.lower()
    return (any(t.kind == "word" and t.text in lx.CHANGE_MARKERS_EN for t in tokens)
            or any(p in low for p in lx.CHANGE_PHRASES_EN)
            or any(m in text for m in lx.CHANGE_MARKERS_ZH))


# word -> (opposite pair, side) for every English opposite pair.
_SIDES: dict[str, list[tuple[int, int]]] = {}
for _number, _pair in enumerate(lx.ANTONYMS_EN):
    for _side, _forms in enumerate(_pair):
        for _form in _forms:
            _SIDES.setdefault(_form, []).append((_number, _side))
_PHRASES = [(len(lx.ANTONYMS_EN) + n, pair) for n, pair in enumerate(lx.PHRASES_EN)]


@dataclass(frozen=True)
class Reading:
    """What the rules need from one text, computed once per text."""

    text: str
    tokens: list[Token]
    units: frozenset[str]
    plain: frozenset[str]
    scopes: list[Scope]
    values: list[Value]
    sides: dict[tuple[int, int], str]   # opposite-pair sides present -> the word used
    change: bool


@functools.lru_cache(maxsize=4096)
def read(text: str) -> Reading:
    tokens = tokenize(text)
    sides: dict[tuple[int, int], str] = {}
    for at, token in enumerate(tokens):
        if token.kind != "word":
            continue
        if token.text in lx.PARTICLES and (at == 0 or tokens[at - 1].text not in lx.PARTICLE_VERBS):
            continue  # "on the table" is not "on" as in "turn on"
        for pair_side in _SIDES.get(token.text, ()):
            sides.setdefault(pair_side, token.text)
    low = text.lower()
    for number, pair in _PHRASES:
        for side, phrase in enumerate(pair):
            if phrase in low:
                sides.setdefault((number, side), phrase)
    for number, pair in enumerate(lx.ANTONYMS_ZH, len(lx.ANTONYMS_EN) + len(_PHRASES)):
        for side, word in enumerate(pair):
            if word in text:
                sides.setdefault((number, side), word)
    return Reading(text, tokens, frozenset(units(tokens)), frozenset(plain_units(tokens)),
                   negated_scopes(tokens), values(tokens), sides, _states_change(text, tokens))


def _shared(a: Reading, b: Reading) -> float:
    """Share of the shorter text's content units that the other text also has."""
    if not a.units or not b.units:
        return 0.0
    return len(a.units & b.units) / min(len(a.units), len(b.units))


def _negation(a: Reading, b: Reading, shared: float) -> str | None:
    """A negation in one text whose scope the other states plainly. A scope of a single
    word ("don't give up") is common in any text, so it only counts between texts that
    share most of their content."""
    for one, other in ((a, b), (b, a)):
        for scope in one.scopes:
            if shared < (SAME_TOPIC if len(scope.units) > 1 else SAME_STATEMENT):
                continue
            if scope.units <= other.plain:
                return f"negation: one says \"{scope.phrase}\", the other says the opposite"
    return None


def _opposed_words(a: Reading, b: Reading) -> frozenset[str]:
    """The words of each opposite pair the two texts take different sides of ("enable" in
    one, "disable" in the other): the change itself, not a change of subject."""
    found = set()
    for (number, side), word in a.sides.items():
        other = b.sides.get((number, 1 - side))
        if other is not None:
            found |= {word, other}
    return frozenset(stem(w) if w.isascii() else w for w in found)


def _opposites(a: Reading, b: Reading) -> str | None:
    for (number, side), word in sorted(a.sides.items()):
        other = (number, 1 - side)
        if other in b.sides and other not in a.sides and (number, side) not in b.sides:
            return f"opposite words: \"{word}\" vs \"{b.sides[other]}\""
    return None


def detect(old: str, new: str) -> Contradiction | None:
    """The contradiction between an older and a newer text, or None.

    Subjects first: texts about different things ("auth service" / "billing service",
    "deployment/ledger" / "deployment/reports") never contradict. Then a changed value, a negation, opposite words, a swapped tool,
    and last a restatement that says it changes the statement ("now", "instead of")."""
    a, b = read(old), read(new)
    sa, sb = shape(old), shape(new)
    short = max(len(old), len(new)) <= MAX_CHARS
    prefixed = prefixed_opposites(old, new) if short else None
    swap = value_swap(old, new) if short else None
    located = locator_units(old, new) if short else frozenset()
    swapped_id = identifier_change(old, new)
    # An identifier given as a value ("listens on localhost:5432" / "db:5432") is what
    # changed; its parts are not two subjects of the same kind ahead of a shared head.
    id_parts = frozenset(unit(t.text) for x in (swapped_id or ()) for t in tokenize(x))
    changed = _opposed_words(a, b) | located | id_parts | frozenset(
        stem(w) for w in (*(prefixed or ()), *(swap[1:] if swap else ())))
    if subject_swap(sa, sb, changed) or named_apart(old, new) is not None:
        return None
    only_a, only_b = differing(sa, sb)
    change = _value_change(a.values, b.values)
    # "the frontend is built with Node 20" / "the docs site ... Node 18": the words that
    # lead to the value differ on both sides too: two statements, not one value changed.
    if change is not None and not (_leading(sa) & only_a and _leading(sb) & only_b):
        was, now, from_to = change
        why = f"different values for \"{now.label}\": {_display(was.shown)} vs {_display(now.shown)}"
        return Contradiction("value", why, from_to or b.change)
    if swapped_id is not None:
        return Contradiction("value", f"different values: \"{swapped_id[0]}\" vs "
                             f"\"{swapped_id[1]}\"", b.change)
    shared = _shared(a, b)
    negation = _negation(a, b, shared)
    if negation is not None:
        return Contradiction("negation", negation, b.change)
    if shared >= SAME_TOPIC:
        opposite = _opposites(a, b)
        if opposite is not None:
            return Contradiction("opposite", opposite, b.change)
        found = _relation(old, new, prefixed, swap) if short else None
        if found is not None:
            return Contradiction(found[0], found[1], b.change)
    quantity = quantity_change(old, new) if short else None  # 所有服务 / 只有部分服务
    if quantity is not None:
        return Contradiction("quantity", quantity, b.change)
    if sa.negative != sb.negative and jaccard(sa.core, sb.core) >= SAME_STATEMENT:
        which = "newer" if sb.negative else "older"
        return Contradiction("negation", f"negation: the {which} one says not", b.change)
    tools = name_swap(sa, sb)
    if tools is not None:
        return Contradiction("value", f"different tools: \"{tools[0]}\" vs \"{tools[1]}\"",
                             b.change)
    # A restatement: "now", "changed" need most words shared; "instead of", "switched",
    # 改用 say what is replaced and need half; "also" adds to the old text, never replaces.
    replaces = _replaces(b)
    if (b.change and not _adds(b) and overlap(sa, sb) >= (SAME_TOPIC if replaces else SAME_STATEMENT)
            and (only_a or numbers(a.tokens) != numbers(b.tokens) or (only_b and replaces))):
        return Contradiction("restated", "the newer one restates it with a change", True)
    moved = relocated(sa, sb)
    if moved is not None:
        return Contradiction("restated", f"the newer one says \"{moved}\" {_verb(sb)}", True)
    return None


def _display(value: str) -> str:
    """A number and its unit as a reader writes them: "30 seconds", but "300ms"."""
    return re.sub(r"^(-?\d[\d.,]*)([^\W\d_]{3,})$", r"\1 \2", value)


def _relation(old: str, new: str, prefixed: tuple[str, str] | None,
              swap: tuple[str, str, str] | None) -> tuple[str, str] | None:
    """The contradictions of relations.py, for texts about the same thing: (kind, why)."""
    if prefixed is not None:
        return "opposite", f'opposite words: "{prefixed[0]}" vs "{prefixed[1]}"'
    if swap is not None:
        return "value", f'different {swap[0]}: "{swap[1]}" vs "{swap[2]}"'
    zones = zone_change(old, new)
    if zones is not None:
        return "value", f"different time zones: {zones[0]} vs {zones[1]}"
    where = locator_change(old, new)
    if where is not None:
        return "value", f'different paths or flags: "{where[0]}" vs "{where[1]}"'
    counted = count_change(old, new)
    if counted is not None:
        return "value", f"different counts: {counted[0]} vs {counted[1]}"
    order = order_swap(old, new)
    return ("order", order) if order is not None else None


def _verb(one: Shape) -> str:
    return next((t.text for t in one.tokens if t.text in lx.REPLACE_WORDS), "")


def _replaces(one: Reading) -> bool:
    """Does the text say it replaces something ("instead of", "switched", 改用)?"""
    low = one.text.lower()
    return (any(t.kind == "word" and t.text in lx.REPLACE_WORDS for t in one.tokens)
            or any(p in low for p in lx.REPLACE_PHRASES))


def _adds(one: Reading) -> bool:
    """Does the text say it adds to what is known ("also", "as well", 也)?"""
    low = one.text.lower()
    return (any(t.kind == "word" and t.text in lx.ADD_WORDS for t in one.tokens)
            or any(p in low for p in lx.ADD_PHRASES))


def _leading(one: Shape) -> frozenset[str]:
    """Content words before the first number, names aside: what the value is of."""
    found = set()
    for token in one.tokens:
        if token.kind == "number":
            break
        if is_content(token) and not token.name:
            found.add(stem(token.text))
    return frozenset(found)
