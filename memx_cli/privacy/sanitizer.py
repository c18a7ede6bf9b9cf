"""PrivacySanitizer (SPEC 3.1, SPEC 10): mask secrets and personal data before anything is
stored or sent to an LLM. Every match becomes a typed placeholder, ``[REDACTED:kind]``.

It runs on every ACE write (``ace.write``), whatever produced the memory: ``memx add``,
import, ingest, run. It fails closed: an error while sanitizing raises ``SanitizeError``
and the caller stores nothing. Users add their own patterns with
``ace.reflector.custom_patterns`` (a list of ``{name, pattern}``).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from memx_cli.errors import EXIT_INTERNAL, EXIT_PATTERN_TIME, MemxError
from memx_cli.privacy import kinds
from memx_cli.privacy.patterns import PATTERNS, SNIPPET_PATTERNS, Pattern

if TYPE_CHECKING:  # privacy sits below store (issue 28): the record is only annotated here
    from memx_cli.store.memory import Memory

PLACEHOLDER = "[REDACTED:{kind}]"
_DIGIT = re.compile(r"\d")
_PLACED = re.compile(r"\[REDACTED:[a-z0-9_]+\]")
# base64 of 24+ characters: a k8s Secret's data, a docker config, a Basic header
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])(?:[A-Za-z0-9+/]{4}){6,}"
                     r"(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?(?![A-Za-z0-9+/=_-])")


# A placeholder with characters of the same token glued to it: a pattern that matched
# only part of a token (the last segment of a dotted key) leaves the rest of it.
_GLUED = re.compile(r"[A-Za-z0-9_+.-]*\[REDACTED:[a-z0-9_]+\][A-Za-z0-9_+.-]*")
# Glued characters shorter than this stay: "-p[REDACTED]", "ghp_[REDACTED]" say what it was.
GLUED_MIN = 6


def _whole(match: re.Match[str]) -> str:
    """The token around a placeholder masked whole when what is glued to it is long
    enough to be part of the secret ("SG.<22 characters>.[REDACTED:token]")."""
    text = match.group(0)
    placed = _PLACED.search(text)
    if placed is None:  # (the pattern holds one)
        return text
    left, right = text[:placed.start()], text[placed.end():].rstrip(".")
    tail = text[placed.end() + len(right):]
    keep_left = sum(c.isalnum() for c in left) < GLUED_MIN
    keep_right = sum(c.isalnum() for c in right) < GLUED_MIN
    return ((left if keep_left else "") + placed.group(0) + (right if keep_right else "")
            + tail)


class SanitizeError(MemxError):
    """Sanitizing failed, so nothing may be stored (fail closed)."""

    exit_code = EXIT_INTERNAL


# A custom pattern comes from a config file any collaborator can commit, and it runs on
# every write, the pre-commit hook's check included. A shape check (config._nested_repeat)
# refuses (a+)+, but (a|a)+$ takes exponential time and \w+\w+$ cubic time on one long
# word (2 s at 1,000 characters, a minute at 3,000; trust18), and no list of shapes is
# whole. So each custom pattern runs under a wall-time budget: on the main thread a timer
# interrupts it; on any other (memx mcp's tools, a library caller's thread: trust19) it
# runs in a child process that is killed at the budget (privacy/runner.py). Over it, the
# write fails closed with an error that names the pattern and exit code 4.
CUSTOM_BUDGET_SECONDS = 2.0


class PatternTimeError(SanitizeError):
    """A custom pattern ran over its time budget: nothing was stored."""

    exit_code = EXIT_PATTERN_TIME


class _OverBudget(Exception):
    pass


def _expire(signum: int, frame: object) -> None:
    raise _OverBudget


def _timer_free() -> bool:
    """Whether a timer signal can interrupt this thread: the main thread of a Unix
    process whose timer nobody else is using."""
    import signal

    return (hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
            and signal.getitimer(signal.ITIMER_REAL)[0] == 0
            and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.SIG_IGN))


@contextlib.contextmanager
def _timer(seconds: float) -> Iterator[None]:
    """Interrupt the block after ``seconds`` with _OverBudget (where _timer_free)."""
    import signal

    previous = signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _in_child(pattern: Pattern, text: str, seconds: float) -> str:
    """``pattern`` masked in ``text`` by the pattern runner's child process."""
    from memx_cli.privacy import runner

    try:
        found = runner.RUNNER.spans(pattern.regex.pattern, pattern.group, text, seconds)
    except runner.TimeUp:
        raise _OverBudget from None
    except runner.RunnerError as exc:
        raise SanitizeError(f"could not run the custom pattern {pattern.kind!r} ({exc}); "
                            "nothing stored") from None
    out, pos = [], 0
    for start, end, inner_start, inner_end in found:
        out.append(text[pos:start])
        out.append(_placed(pattern, text[start:end], start, inner_start, inner_end))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _bounded(pattern: Pattern, text: str) -> str:
    """A custom pattern masked in ``text`` within its time budget."""
    try:
        if not _timer_free():
            return _in_child(pattern, text, CUSTOM_BUDGET_SECONDS)
        with _timer(CUSTOM_BUDGET_SECONDS):
            return pattern.regex.sub(functools.partial(_mask, pattern), text)
    except _OverBudget:
        raise PatternTimeError(f"the custom pattern {pattern.kind!r} (ace.reflector."
                               f"custom_patterns) ran over {CUSTOM_BUDGET_SECONDS:g} s on "
                               "this text, so nothing was stored; make it match in linear "
                               "time (no alternatives or repeats that can match the same "
                               "text twice) or remove it") from None


class Sanitizer:
    """Masks every pattern in turn; placeholders never match a later pattern."""

    def __init__(self, custom: Sequence[Mapping[str, str]] = (),
                 more: tuple[Pattern, ...] = ()):
        extra = []
        for item in custom:
            regex = re.compile(item["pattern"])
            extra.append(Pattern(item["name"], regex, 1 if regex.groups else 0))
        self.patterns: tuple[Pattern, ...] = PATTERNS + tuple(extra) + more
        self._custom = range(len(PATTERNS), len(PATTERNS) + len(extra))
        self._guarded: tuple[Pattern, ...] = ()  # the patterns ``_guards`` was made of
        self._guards: tuple[str, ...] = ()

    def sanitize(self, text: str, depth: int = 0) -> str:
        """The text with every secret masked; raises SanitizeError if anything goes wrong."""
        try:
            lowered = text.lower()
            digits = bool(_DIGIT.search(text))
            if self._guarded is not self.patterns:
                # every guard's substrings, each looked for once a text (patterns share them)
                self._guards = tuple(sorted({g for p in self.patterns if p.guard != ("0",)
                                             for g in p.guard}))
                self._guarded = self.patterns
            present = {g for g in self._guards if g in lowered}
            for number, pattern in enumerate(self.patterns):
                guard = pattern.guard
                if guard and not (digits if guard == ("0",) else not present.isdisjoint(guard)):
                    continue  # cannot match: skip the regex (most text has no secret at all)
                if pattern.rescan:
                    text = _rescanning(pattern, text)
                elif number in self._custom:
                    text = _bounded(pattern, text)
                else:
                    text = pattern.regex.sub(functools.partial(_mask, pattern), text)
            if depth < 2:
                text = _BASE64.sub(functools.partial(self._encoded, depth), text)
            if "[REDACTED:" in text:
                text = _GLUED.sub(_whole, text)
            if depth == 0 and _LAYERED.search(text):
                text = self._unquoted(text)
        except SanitizeError:
            raise
        except Exception as exc:
            raise SanitizeError(f"could not sanitize the text ({type(exc).__name__}: {exc}); "
                                "nothing stored") from exc
        return text

    def _unquoted(self, text: str) -> str:
        """``text`` with what the patterns find once its quoting layers are taken off
        (issue 26: ``export T=\\\"KEY\\\"`` two shells deep, ``'ab'\\''KEY'``
        kept a secret, or its tail, in clear), masked in ``text`` itself."""
        bare, where = _strip_layers(text)
        masked = self.sanitize(bare, depth=1)
        if masked == bare:
            return text
        spans = _new_masks(bare, masked)
        if spans is None:  # cannot be: a mask only replaces spans; fail closed all the same
            raise ValueError("unquoted text did not align with its mask")
        for start, end, placeholder in reversed(spans):
            text = text[:where[start]] + placeholder + text[where[end - 1] + 1:]
        return text

    def _encoded(self, depth: int, match: re.Match[str]) -> str:
        """A base64 run whose decoded text holds a secret is masked whole, under the kind
        of the first secret inside (secrets are wrapped, not only pasted)."""
        try:
            decoded = base64.b64decode(match.group(0), validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            return match.group(0)
        if not all(c.isprintable() or c in "\n\r\t" for c in decoded):
            return match.group(0)
        inner = kinds(self.sanitize(decoded, depth + 1))
        return PLACEHOLDER.format(kind=inner[0]) if inner else match.group(0)

    def findings(self, text: str) -> list[str]:
        """Kinds found in ``text``, in order (for tests and reports)."""
        return kinds(self.sanitize(text))


# Quoting layers: a backslash escape (JSON, a shell's double quotes, YAML's double-quoted
# strings), or quotes that join two quoted pieces of one word ('ab'\''cd', 'ab'"'"'cd',
# YAML's 'it''s').
_LAYERED = re.compile(r"\\|[A-Za-z0-9][\"']{2,}[A-Za-z0-9]")
_JOIN = re.compile(r"(?<=[A-Za-z0-9])[\"']{2,}(?=[A-Za-z0-9])")


def _strip_layers(text: str) -> tuple[str, list[int]]:
    """``text`` with its escapes taken off, every layer at once: an escaped quote or
    space goes with its backslashes, ``\\n``, ``\\t``, ``\\r`` become a space, any other
    run of backslashes one backslash; and without the quotes that join pieces of a word.
    For each character, the offset it came from."""
    out: list[str] = []
    where: list[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            j = i
            while j < n and text[j] == "\\":
                j += 1
            if j < n and text[j] in "ntr" and (j - i) % 2 == 1:
                out.append(" ")
                where.append(j)
                j += 1
            elif j < n and text[j] in "\"' ":
                j += 1  # an escaped quote or space is part of the word: join around it
            else:  # a backslash of its own (C:\\Users\\dev): one stays, words apart
                out.append("\\")
                where.append(j - 1)
            i = j
            continue
        out.append(c)
        where.append(i)
        i += 1
    bare = "".join(out)
    if not _JOIN.search(bare):
        return bare, where
    keep = [True] * len(bare)
    for match in _JOIN.finditer(bare):
        for k in range(match.start(), match.end()):
            keep[k] = False
    return ("".join(c for c, k in zip(bare, keep) if k),
            [w for w, k in zip(where, keep) if k])


def _new_masks(bare: str, masked: str) -> list[tuple[int, int, str]] | None:
    """The spans of ``bare`` that ``masked`` replaced by a placeholder, with it (the
    placeholders ``bare`` already held are not new); None if they do not align."""
    pieces = _PLACED.split(masked)
    marks = _PLACED.findall(masked)
    if not bare.startswith(pieces[0]):
        return None
    pos, k, spans = len(pieces[0]), 0, []
    while k < len(marks):
        held = marks[k] + pieces[k + 1]
        if bare.startswith(held, pos) and (k + 1 < len(marks) or pos + len(held) == len(bare)):
            pos += len(held)  # a placeholder the text held already
            k += 1
            continue
        first = k
        while not pieces[k + 1] and k + 1 < len(marks):  # placeholders side by side
            k += 1
        after = pieces[k + 1]
        if k + 1 == len(marks):  # the last piece ends the text
            end = len(bare) - len(after) if bare.endswith(after) else -1
        else:
            end = bare.find(after, pos + 1)
        if end <= pos:
            return None
        spans.append((pos, end, marks[first]))
        pos = end + len(after)
        k += 1
    return spans if pos == len(bare) else None


def _mask(pattern: Pattern, match: re.Match[str]) -> str:
    if pattern.check is not None and not pattern.check(match):
        return match.group(0)
    # -1: the last group that matched (a value quoted one way or another, or bare)
    start, end = match.span(pattern.group if pattern.group > 0 else match.lastindex or 0)
    return _placed(pattern, match.group(0), match.start(), start, end)


def _placed(pattern: Pattern, whole: str, base: int, start: int, end: int) -> str:
    """A match ``whole`` found at ``base`` with its value (``start:end`` of the text)
    masked."""
    placeholder = PLACEHOLDER.format(kind=pattern.kind)
    if pattern.group == 0:
        return placeholder
    if "[REDACTED:" in whole and any(p.start() < end - base and start - base < p.end()
                                     for p in _PLACED.finditer(whole)):
        return whole  # never mask inside a placeholder (https://[REDACTED:x]@host)
    return whole[:start - base] + placeholder + whole[end - base:]


def _rescanning(pattern: Pattern, text: str) -> str:
    """``regex.sub`` for a pattern whose refused matches are read again from their value
    on, so an assignment inside a value is still found."""
    out, pos = [], 0
    while (match := pattern.regex.search(text, pos)) is not None:
        masked = _mask(pattern, match)
        if masked != match.group(0) or match.lastindex is None:
            out.append(text[pos:match.start()] + masked)
            pos = match.end()
            continue
        resume = max(match.start(match.lastindex), match.start() + 1)
        out.append(text[pos:resume])
        pos = resume
    out.append(text[pos:])
    return "".join(out)


@functools.lru_cache(maxsize=8)
def cached(custom: tuple[tuple[str, str], ...]) -> Sanitizer:
    return Sanitizer([{"name": n, "pattern": p} for n, p in custom])


@functools.lru_cache(maxsize=1)
def for_snippets() -> Sanitizer:
    """The built-in patterns plus the conservative ones for source previews."""
    return Sanitizer(more=SNIPPET_PATTERNS)


def for_config(config: Any) -> Sanitizer:
    """The sanitizer a repository's configuration asks for (cached per pattern set)."""
    raw = config["ace.reflector.custom_patterns"] or []
    return cached(tuple((item["name"], item["pattern"]) for item in raw))


# Memories masked lately, by (sanitizer, memory object): the ACE path masks before the
# Curator compares texts, and the store's gate masks again on write; the second time is a
# lookup, not ~0.2 ms of regexes. The objects are held, so an id is never reused meanwhile.
_RECENT: OrderedDict[tuple[int, int], tuple[Sanitizer, Memory, Memory]] = OrderedDict()
_RECENT_MAX = 4096  # entries (two per memory): a large import in one call
_recent_lock = threading.Lock()


def sanitize_memory(mem: Memory, sanitizer: Sanitizer) -> Memory:
    """Every free-text field of a memory, masked. Raises SanitizeError (fail closed)."""
    with _recent_lock:
        hit = _RECENT.get((id(sanitizer), id(mem)))
    if hit is not None and hit[0] is sanitizer and hit[1] is mem:
        return hit[2]
    clean = _sanitize_fields(mem, sanitizer)
    with _recent_lock:
        for source in (mem, clean):  # a masked memory is its own mask (idempotent)
            _RECENT[(id(sanitizer), id(source))] = (sanitizer, source, clean)
        while len(_RECENT) > _RECENT_MAX:
            _RECENT.popitem(last=False)
    return clean


def _sanitize_fields(mem: Memory, sanitizer: Sanitizer) -> Memory:
    clean = sanitizer.sanitize

    def many(values: Iterable[str]) -> tuple[str, ...]:
        return tuple(clean(v) for v in values)

    try:
        anchors = tuple(
            replace(a, snippet=clean(a.snippet)) if a.snippet else a for a in mem.anchors)
        return mem.replace(
            content=clean(mem.content),
            domain=clean(mem.domain) if mem.domain else mem.domain,
            topic=clean(mem.topic) if mem.topic else mem.topic,
            tags=many(mem.tags), tools=many(mem.tools), entities=many(mem.entities),
            source=_deep(mem.source, clean), anchors=anchors,
        )
    except SanitizeError:
        raise
    except Exception as exc:
        raise SanitizeError(f"could not sanitize memory {mem.id} ({type(exc).__name__}: {exc}); "
                            "nothing stored") from exc


def _deep(value: Any, clean: Any) -> Any:
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, Mapping):
        return {k: _deep(v, clean) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_deep(v, clean) for v in value]
    return value
