"""An agent's diagnosis that the work bears out (issue 24).

In agent sessions the root cause is usually stated by the assistant ("The issue is that
`pull_request` events from forks get a read-only token. The fix: use
`pull_request_target`."), acted on with an edit, and then either confirmed by a check run
or accepted by the user moving on to the next thing. Nobody says "that worked". A
diagnosis is kept only when the session's structure bears it out:

- the assistant's text states a cause ("the issue is", "caused by", 原因是 …:
  ``lexicons.CAUSE``) in a sentence that is no question and does not hedge ("likely
  due to …", "probably": ``lexicons.HEDGE``, the agent's own guess), or announces a fix ("The fix:
  …"; not "the fix for X" in passing, which names one) while a problem is open (a fix announced with no problem in sight is a design);
  A statement about the code that quotes it ("Line 58 has `bytes(...)` which should be
  `[]byte(...)`") is held too, never the agent's plan ("Let me change `a` to `b`"), when
  the next edit takes out one piece it quoted and brings in another;
- an edit follows (a tool call that writes a file) before anyone speaks again;
- then one of: a tool run after the edit passes in a runner's own format (``0 issues.``,
  ``ok  pkg 0.3s``, ``12 passed``: ``evidence.passing_run``) and the assistant's next
  words do not say the problem is still there; or the user's next message neither
  repeats the problem, denies, says "still", nor turns the work down. A check that had
  already passed in the same shape since the user last spoke, before the first edit, with
  no failing run of its program between, bears nothing out: it passed with the problem
  there (a lint failure seen only in CI, the local lint green before and after a guess).

A rejected tool call, a "still …" from either side, or a newer diagnosis drops the held
one: a proposal the user turned down, or a detour the next run disproves, is never the
lesson. The problem is the error the user pasted or the last failing run before the
diagnosis, when there is one. The memory is an ErrorFix: "Error: <problem>. Fix: <the
announced fix, or what the assistant said of its edit, with the edit>. Why: <the cause>".
When an episode (``episodes``) closes around the same turns, the detector gives it the
cause instead, so one problem makes one memory.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from memx_cli.reflector import evidence
from memx_cli.reflector import lexicons as lx
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.distiller import shorten
from memx_cli.reflector.names import CODE_SPAN, program_of
from memx_cli.reflector.narrative import STILL
from memx_cli.reflector.said import concrete, denied_sentences, proposal, rejects
from memx_cli.reflector.signals import Signals
from memx_cli.reflector.turn import Turn
from memx_cli.reflector.vocab import Hit

MAX_QUIET = 40  # records without an edit, a run or a word before a diagnosis is dropped
MAX_STATEMENT = 3  # sentences of the assistant's text kept as the statement
MAX_EDITS = 4
# Room in one memory (ace.reflector.max_content_length, 500 by default) for all three.
MAX_PROBLEM, MAX_FIX, MAX_CAUSE = 120, 170, 190
MIN_DETAIL = 40  # an edit cut shorter than this shows nothing
# An announced fix: the lexicon's REMEDY hits that name the fix itself ("the fix: …"),
# not its many adverbs ("instead", "otherwise").
ANNOUNCED = frozenset({"the fix is", "the fix was", "the fix", "the solution", "fix:",
                       "solution:"})
# A sentence that tells what the agent is about to do ("Let me change `a` to `b`") narrates
# the edit; only a statement about the code ("Line 58 has `bytes(…)`, which should be
# `[]byte(…)`") says what was wrong.
NARRATED = re.compile(r"(?i)^\W*(?:I\b|I'|let\b|let's|now\b|next\b|then\b|first\b|we'll|"
                      r"we\s+will|we\s+need|we\s+should)")
ELLIPSIS = re.compile(r"\.\.\.|…")
MIN_QUOTE = 3  # characters of a quoted piece of code compared with the edit
# A sentence that only says the agent has found what is wrong ("Now I understand the
# issue.", "Found the bug!", "I see the problem:"): it names nothing itself, the sentences
# after it state the cause. A perception verb in the first person (or none: "Found it"),
# the problem as its object, and nothing after but the sentence's end.
FOUND = re.compile(r"(?i)^\W*(?:(?:now|ok(?:ay)?|ah+|aha|so|right)\b[,!.]?\s+)*"
                   r"(?:i\s+(?:can\s+)?(?:now\s+)?(?:see|understand)|"
                   r"(?:i(?:'ve|\s+have)?\s+)?(?:now\s+)?found|"
                   r"i(?:'ve|\s+have)?\s+(?:now\s+)?(?:spotted|identified|pinpointed))\s+"
                   r"(?:(?:what(?:'s|\s+is)?\s+)?the\s+(?:\w+\s+)?(?:issue|problem|bug|cause|culprit)|it)"
                   r"(?:\s+(?:now|clearly|here))*\W*$")
# The same finding said in one sentence: "I can see that `Install` ignores the flag".
SEES_THAT = re.compile(r"(?i)^.{0,40}?\bi(?:'ve|\s+have)?\s+(?:can\s+)?(?:now\s+)?"
                       r"(?:see|found|noticed|spotted)\s+that\s+")
ANNOUNCING = re.compile(r"(?i)^\W*(?:the\s+)?(?:fix|solution)(?:\s+(?:is|was)(?:\s+to)?)?"
                        r"\s*[:：]?\s*")


@dataclass
class Held:
    first: int  # the record the statement is in
    cause: str | None  # the sentences that state the cause
    remedy: str | None  # the sentence that announces the fix
    lang: str
    problem: str | None
    problem_first: int | None
    seen: int
    edits: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    first_edit: int | None = None  # the record of the first edit
    after: str | None = None  # what the assistant said of its edit, after making it
    green: bool = False  # a run after the edit passed
    # a statement held for what it quotes: the next edit must take out one of these
    # pieces of code and bring in another, or the statement was about something else
    quoted: tuple[str, ...] = ()
    # the cause follows "I found the issue": the agent names no fix, so its report of the
    # same work tells what was done (the detector lends the cause to that report)
    found: bool = False


class Diagnoses:
    """Feeds turns; returns the diagnoses the session bears out. Holds at most one."""

    def __init__(self) -> None:
        self.held: Held | None = None
        self.problem: str | None = None
        self.problem_first: int | None = None
        # The green summaries of the checks that passed since the user last spoke, each
        # with the program that printed it and the record: a check green before the edit
        # cannot bear the edit out.
        self.greens: dict[str, tuple[str | None, int]] = {}

    def feed(self, sig: Signals) -> list[Candidate]:
        turn, held = sig.turn, self.held
        if held is not None and turn.index - held.seen > MAX_QUIET:
            self.held = held = None
        if turn.kind == "tool_use":
            if held is not None and held.quoted and turn.files:
                if not _bears(held.quoted, turn.edited):
                    self.held = None
                    return []
                held.quoted = ()
            if held is not None and turn.files:
                held.seen = turn.index
                if held.first_edit is None:
                    held.first_edit = turn.index
                if len(held.edits) < MAX_EDITS:
                    names = ", ".join(os.path.basename(f) for f in turn.files)
                    held.edits.append(f"edited {names}: `{turn.change}`" if turn.change
                                      else f"edited {names}")
                    held.files.extend(f for f in turn.files if f not in held.files)
            return []
        if turn.kind == "tool_result":
            self._result(sig)
            return []
        if turn.rejected:
            self.held = None  # the user turned the work down: it is no lesson
            return []
        if turn.picked or turn.role not in ("user", "assistant"):
            return []
        if turn.role == "user":
            return self._user(sig)
        return self._assistant(sig)

    def _result(self, sig: Signals) -> None:
        turn, held = sig.turn, self.held
        failed = turn.failed if turn.failed is not None else bool(sig.error_lines)
        shapes = self._checked(turn, failed)
        if held is None:
            if failed and turn.command and sig.key_error:  # a run failed, not a file read
                self.problem, self.problem_first = sig.key_error, turn.index
            return
        if not held.edits:
            return  # a look around before the edit (a read, a grep) says nothing yet
        held.seen = turn.index
        if failed:
            held.green = False  # the edit has not held up yet: a later run may pass
        elif turn.command and evidence.passing_run(turn.text):
            before = held.first_edit if held.first_edit is not None else turn.index
            held.green = not any(shape in self.greens and self.greens[shape][1] < before
                                 for shape in shapes)

    def _checked(self, turn: Turn, failed: bool) -> frozenset[str]:
        """Notes the green summaries of a passing run (a failing run of a program forgets
        its own); returns this run's."""
        if not turn.command:
            return frozenset()
        program = program_of(turn.command)
        if failed:
            self.greens = {k: v for k, v in self.greens.items() if v[0] != program}
            return frozenset()
        shapes = evidence.green_shapes(turn.text)
        for shape in shapes:
            self.greens.setdefault(shape, (program, turn.index))
        return shapes

    def _user(self, sig: Signals) -> list[Candidate]:
        held, self.held = self.held, None
        self.greens = {}  # what passed before the user spoke is no part of the new work
        out: list[Candidate] = []
        if held is not None and held.edits and not _contradicts(sig, held.problem):
            out.append(_lesson(held, sig.turn.last))
        if sig.error_lines and sig.key_error:  # a pasted error: the problem now
            self.problem, self.problem_first = sig.key_error, sig.turn.index
        else:
            self.problem = self.problem_first = None
        return out

    def _assistant(self, sig: Signals) -> list[Candidate]:
        held = self.held
        out: list[Candidate] = []
        if held is not None and held.edits:
            held.seen = sig.turn.index
            if sig.deny or sig.says(STILL):
                self.held = held = None  # "Still slow.": the run disproved it
            elif held.green:
                out.append(_lesson(held, sig.turn.last))
                self.held = held = None
            elif held.after is None:
                # what it said of its edit, not its next step ("Let me run the tests")
                held.after = proposal(sig, limit=1, skip={
                    n for n in range(len(sig.spans)) if NARRATED.match(sig.sentence(n))})
        cause, remedy, found = statement(sig)
        if cause is not None or (remedy is not None and self.problem is not None):
            # a fix announced with no problem in sight is a design, not a diagnosis
            self.held = Held(sig.turn.index, cause, remedy, sig.lang, self.problem,
                             self.problem_first, sig.turn.index, found=found and not remedy)
        elif held is None or not held.edits:
            quoted = quoting(sig)
            if quoted is not None:
                said, pieces = quoted
                self.held = Held(sig.turn.index, said, None, sig.lang, self.problem,
                                 self.problem_first, sig.turn.index, quoted=pieces)
        return out

    def finish(self) -> list[Candidate]:
        held, self.held = self.held, None
        # the session ends after a green run: nobody said otherwise
        return [_lesson(held, held.seen)] if held is not None and held.green else []


# "The fix" / "the solution" introduce the fix when a colon, a dash or a verb follows
# ("The fix: …", "the solution is …"); followed by a preposition or a closing bracket they
# only name one ("the `resolveAgentType` helper (the fix for agent name misattribution)").
NAMES_ONE = re.compile(r"(?i)\s*(?:\)|\]|,|for\b|of\b|to\b|in\b|on\b|from\b|that\b|which\b|"
                       r"we\b|you\b|i\b)")


def _introduces(text: str, hit: Hit) -> bool:
    return hit.phrase.lower() not in ("the fix", "the solution") \
        or not NAMES_ONE.match(text, hit.end)


def statement(sig: Signals) -> tuple[str | None, str | None, bool]:
    """The sentences of an assistant's text that state a cause (with the concrete
    sentence before the first of them), the one that announces a fix, and whether the
    cause follows a sentence that only says the agent found it ("Now I see the issue.")."""
    denied = denied_sentences(sig)
    # a cause the agent hedges ("likely due to subtle differences") is its guess
    hedged = {sig.sentence_of(h.start) for h in lx.HEDGE.find(sig.words, sig.text)}

    def usable(numbers: set[int]) -> list[int]:
        return sorted(n for n in numbers
                      if not sig.is_question(n) and n not in denied and n not in hedged)

    causes = usable({sig.sentence_of(h.start) for h in sig.cause})
    found = not causes
    if found:
        causes = _found(sig, usable(set(range(len(sig.spans)))))
    remedies = usable({sig.sentence_of(h.start) for h in sig.remedy
                       if h.phrase.lower() in ANNOUNCED and _introduces(sig.text, h)})
    cause = remedy = None
    if causes:
        first = causes[0]
        before = first - 1
        if before >= 0 and before not in remedies and not sig.is_question(before) \
                and concrete(sig.sentence(before)) and before not in denied:
            first = before
        chosen = [n for n in range(first, causes[-1] + 1) if n not in remedies]
        after = causes[-1] + 1
        if not any(concrete(sig.sentence(n)) for n in chosen) and after < len(sig.spans) \
                and after not in remedies and after not in denied \
                and not sig.is_question(after) and concrete(sig.sentence(after)):
            # "The issue is the expected value itself." names nothing: the sentence after
            # it says what ("The regex `[…]` matches `key=…` as one token")
            chosen.append(after)
        cause = " ".join(sig.sentence(n) for n in chosen[:MAX_STATEMENT])
        if found:  # "I can see that X does Y": X does Y
            cause = SEES_THAT.sub("", cause, count=1)
            cause = cause[:1].upper() + cause[1:]
    if remedies:
        remedy = ANNOUNCING.sub("", sig.sentence(remedies[0]), count=1)
        remedy = remedy[:1].upper() + remedy[1:]
    if cause is not None and not concrete(cause):
        cause = None
    if remedy is not None and not concrete(remedy):
        remedy = None
    return cause, remedy, found and cause is not None


def _found(sig: Signals, usable: list[int]) -> list[int]:
    """The sentences after one that says the agent found what is wrong, up to its next
    step ("Let me add …"), a question, a denial or a lead-in ending in a colon: they state
    the cause. A finding said in one sentence ("I can see that X") is one of them."""
    for number in usable:
        sees = SEES_THAT.match(sig.sentence(number)) is not None
        if not sees and not FOUND.match(sig.sentence(number)):
            continue
        said = [number] if sees else []
        for after in range(number + 1, min(number + 1 + MAX_STATEMENT, len(sig.spans))):
            said_next = sig.sentence(after).rstrip()
            if after not in usable or NARRATED.match(said_next) or said_next.endswith(":"):
                break  # its next step, or a lead-in to what it quotes ("The failing test is:")
            said.append(after)
        return said
    return []


def quoting(sig: Signals) -> tuple[str, tuple[str, ...]] | None:
    """A statement about the code that quotes at least two pieces of it ("Line 58 has
    `bytes(...)` which should be `[]byte(...)`"), with the concrete sentence after it that
    explains it, and the pieces quoted; never a question, a denial or the agent's plan."""
    denied = denied_sentences(sig)
    for number in range(len(sig.spans)):
        said = sig.sentence(number)
        if sig.is_question(number) or number in denied or NARRATED.match(said):
            continue
        pieces = tuple(dict.fromkeys(
            piece.strip() for span in CODE_SPAN.findall(said) for piece in ELLIPSIS.split(span)
            if len(piece.strip()) >= MIN_QUOTE))
        if len(pieces) < 2:
            continue
        after = number + 1
        if after < len(sig.spans) and after not in denied and not sig.is_question(after) \
                and not NARRATED.match(sig.sentence(after)) and concrete(sig.sentence(after)):
            said += " " + sig.sentence(after)
        return said, pieces
    return None


def _bears(pieces: tuple[str, ...], edited: tuple[str, str] | None) -> bool:
    """The edit takes out a piece the statement quoted and brings in another."""
    if edited is None:
        return False
    old, new = edited
    return any(p in old and p not in new for p in pieces) \
        and any(p in new and p not in old for p in pieces)


def _contradicts(sig: Signals, problem: str | None) -> bool:
    """The user's reply says the problem goes on or turns the work down."""
    return bool(rejects(sig) or sig.deny or sig.says(STILL)
                or (problem and evidence.echoes(problem, sig)))


def _lesson(held: Held, last: int) -> Candidate:
    detail = "; ".join(e for e in held.edits if "`" in e)
    fix = held.remedy or held.after
    if fix and detail:  # the edit, as far as the room left shows it
        detail = _cut(detail, MAX_FIX - len(fix) - 3)
        fix = f"{fix.rstrip('.。 ')} ({detail})" if detail else fix
    fix = fix or detail
    cause = held.cause
    if not fix:
        fix, cause = cause or "", None
    first = held.problem_first if held.problem_first is not None else held.first
    problem = shorten(held.problem, MAX_PROBLEM) if held.problem else None
    return Candidate("ErrorFix", first, last, held.lang, shorten(fix, MAX_FIX), problem,
                     files=tuple(held.files), cause=shorten(cause, MAX_CAUSE) if cause else None,
                     lends=held.found)


def _cut(detail: str, room: int) -> str:
    """At most ``room`` characters of an edit's text, cut at a word; a code span cut open
    is closed after the ellipsis. Empty when too little room is left to show anything."""
    if len(detail) <= room:
        return detail
    if room < MIN_DETAIL:
        return ""
    head = detail[:room - 2].rsplit(" ", 1)[0]
    return head + ("…`" if head.count("`") % 2 else "…")
