"""PatternDetector: the five rules of SPEC 3.1 over a bounded window of recent turns.

| rule         | fires when                                                         | conf |
|--------------|--------------------------------------------------------------------|------|
| ErrorFix     | error evidence, then a statement of its cause or fix               | 0.8  |
| RetrySuccess | failed attempts, then the one that worked (or a failed command     | 0.7  |
|              | that passes after changes)                                         |      |
| ConfigChange | a setting changed, with the key and the value                      | 0.6  |
| NewTool      | first use of / switch to a named tool                              | 0.65 |
| RepetitiveOp | a chore done every time (or a command run >= 3 times, history.py)  | 0.5+ |

One turn yields at most one candidate, in that order of priority; one error is used by
one candidate. The window is bounded (``WINDOW`` turns), so input of any length is read
in constant memory.
"""

from __future__ import annotations

import re
from collections import OrderedDict, deque
from dataclasses import dataclass, field

from memx_cli.reflector.signals import Signals, analyse
from memx_cli.reflector.turn import Turn
from memx_cli.reflector.vocab import Hit

CONFIDENCE = {"ErrorFix": 0.8, "RetrySuccess": 0.7, "ConfigChange": 0.6, "NewTool": 0.65,
              "RepetitiveOp": 0.5}
RULES = tuple(CONFIDENCE)
WINDOW = 12
LOOKBACK = 8
MAX_PENDING = 64
_HINT_LINE = re.compile(r"^\s*(?:hint|help|tip|suggestion)\s*:\s*(.*)$", re.I | re.M)
WEAK_REMEDY = frozenset({"otherwise", "or else", "不然", "否则", "sinon"})


@dataclass(frozen=True)
class Candidate:
    rule: str
    first: int  # span of turns (or lines) the evidence comes from
    last: int
    lang: str
    fix: str  # the statement: the fix, the change, the tool, the chore
    error: str | None = None  # ErrorFix / RetrySuccess: what failed
    attempts: str | None = None  # RetrySuccess: what did not work
    commands: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    veracity: str = "inferred"
    context: str = ""  # nearby text, for the LLM stage
    confidence: float = 0.0
    absorbs: tuple[int, ...] = ()  # turns whose statement this candidate took over

    def __post_init__(self) -> None:
        if not self.confidence:
            object.__setattr__(self, "confidence", CONFIDENCE[self.rule])

    @property
    def text(self) -> str:
        return "\n".join(p for p in (self.error, self.attempts, self.fix) if p)


@dataclass
class _Pending:
    """A command that failed and has not passed since."""

    first: int
    error: str | None
    attempts: int = 0
    files: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    used: bool = False


class PatternDetector:
    def __init__(self) -> None:
        self.window: deque[Signals] = deque(maxlen=WINDOW)
        self.pending: OrderedDict[str, _Pending] = OrderedDict()
        self.used: deque[Signals] = deque(maxlen=WINDOW)  # errors already explained

    def feed(self, turn: Turn) -> Candidate | None:
        sig = analyse(turn)
        self.window.append(sig)
        if turn.kind == "tool_use":
            for key, pending in self.pending.items():
                pending.files.extend(f for f in turn.files if f not in pending.files)
                if turn.command and turn.command != key and len(pending.commands) < 5:
                    pending.commands.append(turn.command)
            return None
        if turn.kind == "tool_result":
            return self._command_result(sig) if turn.command else None
        return self._episode(sig) or self._single(sig)

    # ------------------------------------------------------------ ErrorFix / RetrySuccess

    def _episode(self, sig: Signals) -> Candidate | None:
        earlier = list(self.window)[-LOOKBACK - 1:-1]
        source = self._error_turn(sig, earlier)
        scope = [s for s in earlier if source is None or s.turn.index >= source.turn.index]
        retries = [s for s in [*scope, sig] if s.retry and s.turn.kind == "text"]
        succeeded = bool(sig.success) and bool(retries) and (
            retries != [sig] or sig.success[-1].start > sig.retry[0].start)
        if not (sig.has_fix or succeeded):
            return None
        fixes = sig.cause + sig.remedy + sig.resolved
        if sig.repeat and fixes and all(h.phrase in WEAK_REMEDY for h in fixes):
            return None  # "every time ... have to run X, otherwise it fails": a chore
        if retries and (succeeded or sig.resolved or sig.remedy):
            rule = "RetrySuccess"
        elif source is not None and sig.has_fix:
            rule = "ErrorFix"
        elif sig.resolved and sig.remedy and any(
                sig.sentence_of(r.start) == sig.sentence_of(m.start)
                for r in sig.resolved for m in sig.remedy):
            rule = "ErrorFix"  # "fixed the login crash by clearing the session cache"
        else:
            return None
        fix, files, absorbs = self._fix_text(sig, scope, rule)
        if not fix:
            return None
        error = None
        if source is not None:
            error = source.key_error or _first_sentence(source, source.errors)
            self._use(source)
        attempts = None
        if rule == "RetrySuccess":
            tried = [r for r in retries if r is not sig]
            attempts = " ".join(_sentences(tried[0], tried[0].retry)) if tried else None
        if error and error in fix:
            error = None
        first = min([s.turn.index for s in ([source] if source else []) + retries] or
                    [sig.turn.index])
        commands = (source.turn.command,) if source is not None and source.turn.command else ()
        return Candidate(rule, first, sig.turn.last, sig.lang, fix, error, attempts,
                         commands=commands, files=tuple(files), context=_context([*scope, sig]),
                         absorbs=absorbs)

    def _error_turn(self, sig: Signals, earlier: list[Signals]) -> Signals | None:
        for candidate in [sig, *reversed(earlier)]:
            if candidate.has_error and not any(candidate is u for u in self.used) \
                    and candidate.turn.kind in ("text", "tool_result"):
                if candidate is sig and not (sig.error_lines or sig.errors):
                    continue
                return candidate
        return None

    def _use(self, source: Signals) -> None:
        self.used.append(source)
        if source.turn.command in self.pending:
            self.pending[source.turn.command or ""].used = True

    def _fix_text(self, sig: Signals, scope: list[Signals],
                  rule: str) -> tuple[str, list[str], tuple[int, ...]]:
        hits = sorted(sig.cause + sig.remedy + sig.resolved, key=lambda h: h.start)
        limit = 2
        if rule == "RetrySuccess":
            hits = sorted(hits + sig.success + sig.retry, key=lambda h: h.start)
            limit = 3
        files = [f for s in scope if s.turn.kind == "tool_use" for f in s.turn.files]
        own = " ".join(_sentences(sig, hits, limit))
        if any(h.phrase == "hint" for h in hits):  # a tool's own advice spans its lines
            advice = [m.group(1).strip() for m in _HINT_LINE.finditer(sig.text)]
            own = " ".join(advice[:6]) or own
        if not _says_little(sig):
            return own, files, ()
        for earlier in reversed(scope):  # "that worked, thanks": the fix was said before
            if earlier.turn.kind == "text":
                proposal = _proposal(earlier)
                if proposal:
                    return proposal, files, (earlier.turn.index,)
        if _confirmation_only(sig):
            return ("changed " + ", ".join(files[:5]) if files else ""), files, ()
        return own, files, ()

    def _command_result(self, sig: Signals) -> Candidate | None:
        key = " ".join((sig.turn.command or "").split())
        failed = sig.turn.failed if sig.turn.failed is not None else bool(sig.error_lines)
        if failed:
            pending = self.pending.pop(key, None) or _Pending(sig.turn.index, sig.key_error)
            pending.attempts += 1
            pending.error = pending.error or sig.key_error
            self.pending[key] = pending
            while len(self.pending) > MAX_PENDING:
                self.pending.popitem(last=False)
            return None
        done = self.pending.pop(key, None)
        if done is None or done.used:
            return None
        pending = done
        earlier = [s for s in self.window if s.turn.index >= pending.first]
        for said in reversed(earlier):
            if said.turn.kind == "text" and (said.cause or said.remedy):
                fix = " ".join(_sentences(said, said.cause + said.remedy))
                return Candidate("ErrorFix", pending.first, sig.turn.last, said.lang, fix,
                                 pending.error, commands=(key,), files=tuple(pending.files),
                                 context=_context(earlier))
        if not pending.files and not pending.commands:
            return None  # passed with no visible change: nothing to learn
        changed = [f"changing {', '.join(pending.files[:5])}"] if pending.files else []
        changed += [f"running `{c}`" for c in pending.commands[:2]]
        fix = f"`{key}` passed after " + " and ".join(changed)
        return Candidate("RetrySuccess", pending.first, sig.turn.last, sig.lang, fix,
                         pending.error, f"failed {pending.attempts} time(s)", commands=(key,),
                         files=tuple(pending.files), veracity="tool", context=_context(earlier))

    # ------------------------------------------------------------ one-turn rules

    def _single(self, sig: Signals) -> Candidate | None:
        index, last = sig.turn.index, sig.turn.last
        if sig.config:
            text = " ".join(sig.sentence(n) for n in sig.config[:2])
            return Candidate("ConfigChange", index, last, sig.lang, text, context=sig.text[:1500])
        if sig.newtool:
            number, tool = sig.newtool[0]
            return Candidate("NewTool", index, last, sig.lang, sig.sentence(number),
                             commands=(tool,), context=sig.text[:1500])
        if sig.repeat:
            text = " ".join(sig.sentence(n) for n in sig.repeat[:2])
            return Candidate("RepetitiveOp", index, last, sig.lang, text, context=sig.text[:1500])
        return None


def _sentences(sig: Signals, hits: list[Hit], limit: int = 2) -> list[str]:
    """The sentences with these hits; plus the next one after a short sentence or a bare
    cause ("... was caused by libvips 8.14; pinning 8.13 made it go away")."""
    numbers = sig.sentences_of(sorted(hits, key=lambda h: h.start), limit)
    causes_only = bool(hits) and all(h in sig.cause for h in hits)
    if numbers and (len(sig.sentence(numbers[-1])) < 50 or causes_only) \
            and numbers[-1] + 1 < len(sig.spans):
        following = numbers[-1] + 1
        if not sig.is_question(following):
            numbers.append(following)
    return [sig.sentence(n) for n in numbers]


def _first_sentence(sig: Signals, hits: list[Hit]) -> str | None:
    return sig.sentence(sig.sentence_of(hits[0].start)) if hits else None


_FILLER = frozenset(["it", "that", "this", "now", "works", "worked", "work", "working", "fixed", "fixes", "fix", "thanks", "thank", "you", "a", "lot", "great", "perfect", "ok", "okay", "yes", "yep", "cool", "awesome", "nice", "the", "trick", "did", "so", "much", "wow", "finally", "all", "good", "tests", "test", "pass", "passes", "passing", "passed", "everything", "solved", "resolved", "issue", "problem", "error", "is", "gone", "was", "and", "again", "merci", "parfait", "ça", "marche", "fonctionne", "c'est", "bon", "maintenant"])


def _says_little(sig: Signals) -> bool:
    """No cause, remedy, setting or code of its own: "that worked on the third attempt"."""
    if sig.code or sig.cause or sig.remedy or sig.config:
        return False
    if any(ord(c) > 0x2e80 for c in sig.text):
        return len(sig.text.strip()) <= 20
    return len(sig.words) <= 15


def _proposal(sig: Signals) -> str | None:
    """What an earlier turn proposed or explained, if it said anything concrete."""
    if sig.cause or sig.remedy:
        return " ".join(_sentences(sig, sig.cause + sig.remedy))
    if sig.config:
        return " ".join(sig.sentence(n) for n in sig.config[:2])
    coded = [n for n in range(len(sig.spans)) if "`" in sig.sentence(n)]
    return " ".join(sig.sentence(n) for n in coded[:2]) or None


def _confirmation_only(sig: Signals) -> bool:
    """"works now, thanks!": says that it was fixed, not how."""
    if sig.code or sig.cause or sig.remedy or sig.config or sig.retry:
        return False
    if any(ord(c) > 0x2e80 for c in sig.text):
        return len(sig.text.strip()) <= 10
    return len(sig.words) <= 10 and all(w.text in _FILLER for w in sig.words)


def _context(signals: list[Signals], limit: int = 1500) -> str:
    parts = [f"{s.turn.role}: {s.text[:600]}" for s in signals[-6:]]
    return "\n".join(parts)[-limit:]
