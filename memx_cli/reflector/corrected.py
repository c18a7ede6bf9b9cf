"""A user's factual correction of the agent (issue 24): "it's `X`, not `Y`", "no, that flag
is `--foo`". What the user says is true, in the user's words, is a *Fact* when:

- the user's message is short and holds a contrast: a term (a quoted, back-quoted or
  code-shaped word: ``--flag``, ``pkg/path``, ``Entire-Checkpoint:``, ``camelCase``) before a
  bare "not" and one after it (``X, not Y``; ``X not Y``; ``not Y but X``), where the
  term negated is one the agent used (in its words, commands or edits, among its last
  ``MAX_SAID`` turns): the user negates what the agent said and states the replacement.
  A "not" after a verb ("it does not build", "is not showing") is no contrast. Or the
  message opens with a bare "no" and states a term with a copula ("no, that flag is
  ``--foo``");
- the agent accepts it: its next words take the replacement term up and do not open by
  disputing it ("No, …", "Actually, …", "I don't think…");
- and nothing is edited before the user speaks again: a correction the agent acts on with
  an edit is a change of course, read by ``replies.py``.

Questions and messages that report an error are not corrections.
"""

from __future__ import annotations

import re
from collections import deque

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.signals import Signals

MAX_SAID = 40  # the agent's turns a negated term is looked for in
MAX_SAID_TEXT = 4000
MAX_WORDS = 60  # a long message is a new task, not a correction
MAX_CONTENT = 420
MAX_ANSWER = 200
QUOTED = re.compile(r"\"([^\"\n]{1,80})\"|“([^”\n]{1,80})”|`([^`\n]{1,80})`|"
                    r"(?<!\w)'([^'\n]{2,80})'(?!\w)")
CODEISH = re.compile(r"(?<![\w-])(?:--?[A-Za-z][\w-]*|[\w.-]*[A-Za-z][\w.-]*[_./:-][\w./:-]*"
                     r"|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*)")
# "not" as a contrast, not after a verb or auxiliary that it negates
NOT = re.compile(r"(?i)(?<![\w'’])not\s+")
NEGATED_VERB = re.compile(r"(?i)(?:\b(?:do|does|did|is|are|was|were|be|been|has|have|had|"
                          r"can|could|should|would|will|must|may|might|shall|need|why|"
                          r"or|if|whether|but|and)|n't|\bI)\s*$")
CLAUSE_END = re.compile(r"[;!?]|[,.](?=\s|$)|\s(?:or|and|but|because|since|so)\s")
BUT = re.compile(r"(?i)^\s*,?\s*(?:but|rather|instead)?\s*(?:it(?:'s| is)\s+)?")
LEADING_NO = re.compile(r"(?i)^\s*no(?:pe)?\s*[,.!—–-]+\s*(.+)$")
COPULA = re.compile(r"(?i)\b(?:is|are|was|were|it's|that's|they're|lives|called|named)\b")
DISPUTE = re.compile(r"(?i)^\W*(?:no\b|nope\b|not quite|actually\b|i (?:don't|do not) think|"
                     r"that(?:'s| is) not|i disagree|but\b|hmm)")
LABEL = re.compile(r"^\s*[A-Za-z]{1,8}:\s+")  # "also: …", "fyi: …"


def terms(text: str) -> list[str]:
    """The terms of a text: quoted or back-quoted strings, then code-shaped words."""
    found = [(m.start(), next(g for g in m.groups() if g)) for m in QUOTED.finditer(text)]
    rest = QUOTED.sub(lambda m: " " * len(m.group(0)), text)
    found += [(m.start(), m.group(0).rstrip(".,") or m.group(0))
              for m in CODEISH.finditer(rest)]
    return [t.strip() for _, t in sorted(found) if t.strip()]


class Corrections:
    """Feeds turns; returns the corrections the agent accepted. Holds the agent's last
    ``MAX_SAID`` turns and at most one correction waiting."""

    def __init__(self) -> None:
        self.said: deque[str] = deque(maxlen=MAX_SAID)
        self.pending: tuple[int, str, str, list[str]] | None = None  # turn, lang, words, X
        self.accepted: Candidate | None = None  # accepted, unless an edit follows

    def feed(self, sig: Signals) -> list[Candidate]:
        turn = sig.turn
        if turn.role == "assistant":
            if turn.kind == "tool_use":
                if turn.files:
                    self.pending = self.accepted = None  # acted on with an edit
                self.said.append(" ".join(p for p in (turn.command or "", *(
                    turn.edited or ())) if p)[:MAX_SAID_TEXT])
            elif turn.kind == "text" and turn.text.strip():
                if self.pending is not None:
                    self._answered(sig)
                self.said.append(turn.text[:MAX_SAID_TEXT])
            return []
        if turn.kind != "text" or turn.role != "user":
            return []
        out = [self.accepted] if self.accepted is not None else []
        self.pending = self.accepted = None
        if not (turn.rejected or turn.picked or turn.planned or sig.has_error):
            self.pending = self._correction(sig)
        return out

    def finish(self) -> list[Candidate]:
        accepted, self.accepted, self.pending = self.accepted, None, None
        return [accepted] if accepted is not None else []

    def _correction(self, sig: Signals) -> tuple[int, str, str, list[str]] | None:
        words = LABEL.sub("", " ".join(sig.turn.text.split()), count=1)
        if not words or len(words.split()) > MAX_WORDS or not self.said:
            return None
        said = " ".join(self.said).lower()
        for number in range(len(sig.spans)):
            if sig.is_question(number):
                continue
            replacement = _contrast(sig.sentence(number), said)
            if replacement:
                return sig.turn.index, sig.lang, words, replacement
        opened = LEADING_NO.match(words)
        if opened and not sig.is_question(0) and COPULA.search(opened.group(1)):
            stated = [t for t in terms(opened.group(1)) if t.lower() not in said]
            if stated:
                return sig.turn.index, sig.lang, words, stated
        return None

    def _answered(self, sig: Signals) -> None:
        if self.pending is None:
            return
        index, lang, words, replacement = self.pending
        self.pending = None
        reply = " ".join(sig.turn.text.split())
        if DISPUTE.match(reply) or not any(t.lower() in reply.lower() for t in replacement):
            return
        answer = sig.sentence(0) if sig.spans else reply
        answer = _clip(answer, MAX_ANSWER)
        text = f"User correction: \"{_clip(words, MAX_CONTENT - len(answer) - 30)}\""
        self.accepted = Candidate("Fact", index, sig.turn.last, lang,
                                  f"{text} Answer: {answer}" if answer else text,
                                  veracity="stated", context=words[:1500])


def _contrast(sentence: str, said: str) -> list[str]:
    """The replacement terms of "X, not Y" / "not Y but X" when Y is a term the agent used
    and X is another; [] when the sentence holds no such contrast."""
    for match in NOT.finditer(sentence):
        before = sentence[:match.start()]
        if NEGATED_VERB.search(before):
            continue
        after = sentence[match.end():]
        end = CLAUSE_END.search(after)
        negated = terms(after[:end.start()] if end else after)
        if not negated or not any(t.lower() in said for t in negated):
            continue
        clause = re.split(r"[;!?]|[,.](?=\s)", before.rstrip(" ,—–-"))[-1]
        stated = terms(clause)[-1:]  # the term nearest the "not"
        if not stated and end is not None:  # "not Y, but X"
            rest = after[end.start():]
            stated = terms(BUT.sub("", rest[1:] if rest[:1] in ",;" else rest, count=1)[:120])[:1]
        stated = [t for t in stated if t.lower() not in {n.lower() for n in negated}]
        if stated:
            return stated
    return []


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rsplit(" ", 1)[0] + "…"
