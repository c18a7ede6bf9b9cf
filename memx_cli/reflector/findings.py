"""What the agent found out from the output it read (issue 24).

In agent sessions the facts a newcomer would want are often stated by the assistant right
after it read a file, searched or ran a command: "The linter has `new: true` with
`new-from-merge-base: main`, meaning it only flags issues new relative to main." Nobody
says "that is right"; the agent acts on it. Its narration around it ("Let me check the
config", "Now I'll update the test", "All 9 tests pass") is far more common and teaches
nothing, so a sentence is kept as a *Fact* only when the session's structure vouches for
it:

- it is the assistant's, after a tool result it read since the user last spoke (a file
  read, a search, a passing command's output; not the result of an edit, which echoes the
  agent's own text, nor a failing run's, which is a diagnosis's), and it quotes a piece of code (back-quoted, at least ``MIN_TERM``
  characters) that occurs word for word in that output, is not in what the user asked
  and is not text the agent itself wrote in an edit;
- it states, unhedged, in the present: no cause ("The issue is that …", "due to": a
  diagnosis, which ``diagnosis.py`` holds to a stricter proof), no question, no plan or
  narration ("Let me…",
  "Now…", "I'll…", any first person), no hedge ("might", "probably", "likely"), no
  announcement ending in a colon, no report of the agent's own change (a sentence that
  opens with a past participle, "Added `x`", or says what is so "now"), nothing going on
  at the moment ("the linter is flagging …"), no reaction opening it ("Good, …",
  "Perfect!"), no walk through what it reads ("Looking at …", "Line 64: …"), and it opens
  with its subject (a determiner, a pronoun or a piece of code), not a verb;
- its turn is about nothing a finding of the session named already: the same function
  said again in other words, with what else the agent saw, is one memory;
- it is borne out: an edit the tool accepted follows it before the user speaks again
  (the agent acted on it), no tool call is turned down before that edit, and the user's
  next message neither turns the work down, denies it nor says "still" (or the session
  ends).

The memory names where it was read: "Found in `.golangci.yaml`: …" (a read's path, or
the command whose output it was: the output holding most of the pieces quoted), or
"Found searching for `pattern`: …" for a search. At most ``MAX_PER_TURN`` sentences a turn and
``MAX_PER_SESSION`` findings a session; the detector drops one whose words another memory
of the session already holds (a diagnosis's cause).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from memx_cli.reflector import lexicons as lx
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.diagnosis import NARRATED
from memx_cli.reflector.names import CODE_SPAN
from memx_cli.reflector.narrative import STILL
from memx_cli.reflector.said import denied_sentences, rejects
from memx_cli.reflector.signals import Signals
from memx_cli.reflector.turn import SEARCHED

MAX_SEEN = 8  # tool outputs since the user last spoke
MAX_SEEN_TEXT = 24000
MAX_WRITTEN = 16  # the agent's edits since the user last spoke
MAX_PER_TURN = 2
MAX_PER_SESSION = 2
MAX_HELD = 6
MIN_TERM = 3
MIN_WORDS = 6
MAX_WORDS = 70
MAX_FINDING = 380
MAX_SOURCE = 80
# The agent speaking of itself: its plans and its steps, not the project.
FIRST_PERSON = re.compile(r"(?<![\w'’])(?:I|I'm|I’m|I'll|I’ll|I've|I’ve|I'd|I’d|me|my|"
                          r"[Ll]et's|[Ll]et’s|[Ll]et\s+me)(?![\w'’])")
# A state the agent's own work brought about ("`x` is now unused").
NOW = re.compile(r"(?i)\b(?:now|currently)\b")
# What is going on at the moment ("the linter is flagging three parameters"), not what the
# code does.
PROGRESSIVE = re.compile(r"(?i)\b(?:is|are|am)\s+(?:\w+ly\s+)?\w{3,}ing\b")
# A statement opens with its subject: a determiner or pronoun, a piece of code or a
# number, after an optional label ("Locally: …"). An imperative ("Keep HEAD's field",
# "Update the test case") or a fragment ("origin/main's extra parameter") does not.
SUBJECT = re.compile(r"(?i)^\W*(?:(?:[\w ]{1,20}|`[^`\n]+`)\**:\s+)?(?:`(?![^`\n]*`\**:)|\d|(?:the|a|an|this|that|these|those|"
                     r"its|their|our|your|each|every|both|all|no|only|there|it|they|one|"
                     r"any|some|neither|either)\b)")
# A sentence that opens with a past participle reports a change made ("Added `x` to …",
# "Removed the `y` flag"); one that opens with a word and a comma or "!" reacts to the
# agent's own look-up ("Good, `strings` is already imported.", "Perfect!").
REPORTED = re.compile(r"^\W*[A-Z][a-z]+ed\b")
REACTION = re.compile(r"^\W*[A-Za-z]+\s*[,!—–]")
# The agent at its reading ("Looking at line 358: …", "Checking the config …") or walking
# through what it read by place ("Line 64: …", "Lines 100-101: …").
READING = re.compile(r"^\W*(?:[A-Z][a-z]+ing\b|(?:Lines?|L)\s*\d)")
# A prediction or a proposal, not what the output showed ("`x` won't work if …", "the
# migration should use `y`", "we need to …").
MODAL = re.compile(r"(?i)(?<![\w'’])(?:will|would|should|could|won't|won’t|wouldn't|"
                   r"wouldn’t|shouldn't|shouldn’t|couldn't|couldn’t|need\s+to|needs\s+to)"
                   r"(?![\w'’])|\w['’]ll\b")
# A fix announced ("The fix is to add …") is a proposal, read by diagnosis.py.
ANNOUNCING = re.compile(r"(?i)^\W*(?:the\s+)?(?:fix|solution)\b")
MAX_CODE_SHARE = 0.6  # a sentence mostly quoted code is a quotation, not a statement


@dataclass
class Stated:
    first: int
    lang: str
    text: str
    terms: frozenset[str] = frozenset()  # the pieces of code it quotes
    acted: bool = False  # an accepted edit followed


class Findings:
    """Feeds turns; returns the findings the session bears out. Bounded: ``MAX_SEEN``
    outputs, ``MAX_HELD`` findings waiting."""

    def __init__(self) -> None:
        self.seen: deque[tuple[str, str]] = deque(maxlen=MAX_SEEN)  # (source, output)
        self.written: deque[str] = deque(maxlen=MAX_WRITTEN)  # text the agent's edits wrote
        self.asked = ""  # the user's last message
        self.held: list[Stated] = []
        self.kept = 0
        self.named: set[str] = set()  # the pieces of code the findings kept quote

    def feed(self, sig: Signals) -> list[Candidate]:
        turn = sig.turn
        if turn.kind == "tool_use":
            if turn.edited is not None:
                self.written.append(turn.edited[1])
            return []
        if turn.kind == "tool_result":
            if turn.applied:
                for held in self.held:
                    held.acted = True
            elif not turn.files and not turn.failed and (turn.looked or turn.command) \
                    and turn.text.strip():
                # a failing run's output is error evidence: what the agent says of it is a
                # diagnosis (diagnosis.py, episodes.py), not a fact of the project
                source = turn.looked or turn.command or ""
                self.seen.append((source, turn.text[:MAX_SEEN_TEXT]))
            return []
        if turn.kind != "text":
            return []
        if turn.rejected:
            # a call turned down before the agent acted: what it said since is turned down too
            self.held = [h for h in self.held if h.acted]
            return []
        if turn.role == "assistant":
            if self.seen and not turn.picked:
                self._stated(sig)
            return []
        if turn.role != "user" or turn.picked:
            return []
        out = self._released(sig)
        self.seen.clear()
        self.written.clear()
        self.asked = turn.text[:MAX_SEEN_TEXT]
        return out

    def finish(self) -> list[Candidate]:
        out = self._released(None)
        self.seen.clear()
        return out

    def _released(self, sig: Signals | None) -> list[Candidate]:
        held, self.held = self.held, []
        if sig is not None and (rejects(sig) or sig.deny or STILL.search(sig.text)):
            return []  # "no, that's wrong" / "still failing": nothing is borne out
        out: list[Candidate] = []
        for stated in held:
            if stated.acted and self.kept < MAX_PER_SESSION:
                self.kept += 1
                self.named |= stated.terms
                out.append(Candidate("Fact", stated.first, stated.first, stated.lang,
                                     stated.text, veracity="inferred"))
        return out

    def _stated(self, sig: Signals) -> None:
        if self.kept + len(self.held) >= MAX_PER_SESSION or len(self.held) >= MAX_HELD:
            return
        denied = denied_sentences(sig)
        hedged = {sig.sentence_of(h.start) for h in lx.HEDGE.find(sig.words, sig.text)}
        # a cause ("The issue is that …", "due to …") is a diagnosis, which diagnosis.py
        # holds to a check that failed before the edit and passes after it
        causes = {sig.sentence_of(h.start) for h in sig.cause}
        found: list[str] = []
        source = ""
        named = self.named.union(*(h.terms for h in self.held))
        quoted: set[str] = set()
        for number in range(len(sig.spans)):
            if number in denied or number in hedged or sig.is_question(number):
                continue
            said = " ".join(sig.sentence(number).split())
            terms = _terms(said)
            if terms & named:
                return  # the turn tells what a finding of the session is about again
            if number in causes or not _declares(said):
                continue
            where = self._read_in(terms)
            if where is None:
                continue
            source = source or where
            quoted |= terms
            found.append(said)
            if len(found) >= MAX_PER_TURN:
                break
        if found:
            text = " ".join(found)
            label = f"Found searching for `{_short(source[len(SEARCHED):])}`: " \
                if source.startswith(SEARCHED) else f"Found in `{_short(source)}`: "
            room = MAX_FINDING - len(label)
            if len(text) > room:
                text = text[:room - 1].rsplit(" ", 1)[0] + "…"
            self.held.append(Stated(sig.turn.index, sig.lang, label + text,
                                    frozenset(quoted)))

    def _read_in(self, terms: frozenset[str]) -> str | None:
        """Where a piece of code the sentence quotes was read: the source of the newest
        output holding it, unless the user asked about it or the agent wrote it."""
        read = [t for t in terms
                if t not in self.asked and not any(t in text for text in self.written)]
        best, where = 0, None
        for source, output in reversed(self.seen):  # the newest first among equals
            held = sum(t in output for t in read)
            if held > best:
                best, where = held, source
        return where


def _terms(said: str) -> frozenset[str]:
    return frozenset(t for t in (span.strip() for span in CODE_SPAN.findall(said))
                     if len(t) >= MIN_TERM)


def _declares(said: str) -> bool:
    """A plain statement: enough words, no plan, narration, first person, report of a
    change, reaction, announcement or state the agent's work brought about."""
    words = len(said.split())
    code = sum(len(span) for span in CODE_SPAN.findall(said))
    return MIN_WORDS <= words <= MAX_WORDS and not said.endswith((":", "：", "?", "？")) \
        and code <= MAX_CODE_SHARE * len(said) \
        and not NARRATED.match(said) and not ANNOUNCING.match(said) \
        and not FIRST_PERSON.search(said) and not MODAL.search(said) \
        and not NOW.search(said) and not PROGRESSIVE.search(said) \
        and not REPORTED.match(said) \
        and not REACTION.match(said) and not READING.match(said) and bool(SUBJECT.match(said))


def _short(source: str) -> str:
    source = " ".join(source.split())
    return source if len(source) <= MAX_SOURCE else source[:MAX_SOURCE - 1] + "…"
