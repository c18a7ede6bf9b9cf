"""An offer the user turns down (issue 24): the agent ends its message on a question that
offers its own next step ("Want me to look into fixing this?", "Should we fix this by
batching the writes?") and the user answers no ("no, then it's good", "No, I think this is
fine, too much risk of false positives") or keeps the step to themselves ("I'll do that
manually"). What stays as it is, and the user's words, are a *Decision*: a known gap kept on
purpose, a step the user takes.

Read by structure, not by the session's words:

- an *offer* is the assistant's last words before the user speaks (no tool call after
  them) ending on a question in which the agent offers to act: "want me to", "do you want
  me to", "would you like me to", "should I", "shall I", "should we". A question that
  offers two ways ("fix it here, or track it separately?") asks the user to pick, and is
  ``replies.py``'s and ``approvals.py``'s;
- what the offer is about is the question and, when it points back ("fixing this", "merge
  it"), the last sentences of prose before it: a code block, a list, a heading and a
  sentence that only introduces what follows ("Something like:") are passed over;
- a *decline* is a short reply that opens with a plain no ("no", "nope", "nah") or says
  the user takes the step ("I'll do that manually", "I'll handle it myself"). A no that
  goes on to ask for other work ("no, just commit it", "no, use pipx instead") redirects
  the work (a correction, ``replies.py``); "not now", "for now" hold it to the moment.

The memory holds what was offered, the question and the user's first words, bounded.
"""

from __future__ import annotations

import re

from memx_cli.reflector.answers import OFFERS
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.replies import FOR_NOW
from memx_cli.reflector.signals import Signals

# The agent offering its own next step, in the question that ends its message: "want me
# to", "should I" (``answers.OFFERS``), or the work offered as the team's, "should we".
WE_OFFER = re.compile(r"(?i)^\W*(?:should|shall)\s+we\b[^?]*\?\W*$")
# An offer of two ways, for the user to pick: "…, or track it separately?"
EITHER = re.compile(r"(?i),?\s+or\s+(?!not\b)\w+[^?]*\?\s*$")
# The question points back at what was said before it.
POINTS_BACK = re.compile(r"(?i)\b(?:this|that|it|these|those|them)\b")
# A plain no, or the user keeping the step ("I'll do that manually"); "no problem" and "no
# worries" accept.
DECLINES = re.compile(r"(?i)^\W*(?:(?:no|nope|nah)\b(?![-\s]+(?:problem|worries|rush|"
                      r"doubt)\b)|i(?:'ll|\s+will)\s+(?:do|handle|take\s+care\s+of|merge|"
                      r"run|push)\s+(?:that|it|this|them)\s+(?:myself|manually|by\s+hand|"
                      r"on\s+my\s+own)\b)")
# After the no, a request for other work: the reply redirects rather than declines.
REDIRECTS = re.compile(r"(?i)^\W*(?:no|nope|nah)\b[\s,.!:;—–-]*(?:just|let's|let\s+us|"
                       r"please|can\s+you|could\s+you|use|do|go|only|instead|rather|try|"
                       r"make|add|remove|run|commit|keep|put|change|revert)\b|"
                       r"\binstead\b|\brather\s+than\b")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")
FENCE = re.compile(r"^\s*(?:```|~~~)")
LIST_OR_HEADING = re.compile(r"^\s*(?:[-*•+]\s|\d{1,2}[.)]\s|#{1,6}\s|\|)")
MARKUP = re.compile(r"\*\*|__")
MAX_REPLY_WORDS = 60  # a longer reply is a new task, not an answer to the offer
MAX_ABOUT = 2  # sentences of prose before a question that points back
MAX_ABOUT_CHARS = 200
MAX_QUESTION = 120
MAX_WORDS = 220
MAX_DECISION = 480  # under the default memory length (ace.reflector.max_content_length)
MAX_READ = 8000  # characters of the end of the assistant's message read for an offer


class Declines:
    """Feeds turns; returns the offers the user turned down. Holds one offer: the
    assistant's last words, until the user speaks or a tool call follows them."""

    def __init__(self) -> None:
        self.offer: tuple[int, str, str] | None = None  # turn, what it is about, question

    def feed(self, sig: Signals) -> list[Candidate]:
        turn = sig.turn
        if turn.kind == "tool_use":
            self.offer = None  # the agent went on working: no question waits
            return []
        if turn.kind != "text":
            return []
        if turn.role == "assistant":
            self.offer = _offer(turn.text[-MAX_READ:], turn.index)
            return []
        if turn.role != "user" or turn.rejected or turn.picked or turn.planned:
            return []
        offer, self.offer = self.offer, None
        if offer is None:
            return []
        said = _first_words(" ".join(turn.text.split()))
        if not DECLINES.match(said) or REDIRECTS.search(said) or FOR_NOW.search(said) \
                or len(said.split()) > MAX_REPLY_WORDS:
            return []
        index, about, question = offer
        lead = f"{about} " if about else ""
        head = f"Left as it is: {lead}Offered: \"{question}\" The user: \""
        text = f"{head}{_clip(said, MAX_DECISION - len(head) - 1)}\""
        return [Candidate("Decision", index, turn.last, sig.lang, text, veracity="stated",
                          context=f"{about} {question} {said}")]

    def finish(self) -> list[Candidate]:
        self.offer = None
        return []


def _offer(text: str, index: int) -> tuple[int, str, str] | None:
    """The question ending the message when it offers the agent's next step, with what it
    is about."""
    body = text.rstrip()
    if not body.endswith(("?", "？")):
        return None
    lines = body.splitlines()
    last = MARKUP.sub("", lines[-1]).strip()
    sentences = SENTENCE.split(last)
    question = sentences[-1].strip()
    if not (OFFERS.match(question) or WE_OFFER.match(question)) or EITHER.search(question) \
            or FENCE.match(last):
        return None
    about = ""
    if POINTS_BACK.search(question):
        about = _about(lines[:-1], sentences[:-1])
    return index, about, _clip(question, MAX_QUESTION)


def _about(lines: list[str], before: list[str]) -> str:
    """The last sentences of prose before the question: its own paragraph first, then the
    paragraphs above it, passing over code; a list or a heading ends the prose once some
    is found."""
    blocks: list[tuple[str, list[str]]] = [("prose", [])]
    fenced = False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
            blocks.append(("code", []))
            continue
        plain = re.sub(r"^\s*>\s?", "", line)  # a quoted paragraph is read as prose
        if fenced:
            continue
        if LIST_OR_HEADING.match(plain):
            blocks.append(("list", []))
        elif not plain.strip():
            blocks.append(("prose", []))
        else:
            if blocks[-1][0] != "prose":
                blocks.append(("prose", []))
            blocks[-1][1].append(MARKUP.sub("", plain).strip())
    found = [s for s in before if not s.rstrip().endswith(":")]
    for kind, block in reversed(blocks):
        if len(found) >= MAX_ABOUT or (kind == "list" and found):
            break
        said = [s for s in SENTENCE.split(" ".join(block))
                if s.strip() and not s.rstrip().endswith(":")]
        if said:
            found = said[-(MAX_ABOUT - len(found)):] + found
    return _clip(" ".join(found[-MAX_ABOUT:]), MAX_ABOUT_CHARS)


def _first_words(words: str) -> str:
    """The reply up to its first question: the answer to the offer, not what it asks
    next."""
    kept: list[str] = []
    for sentence in SENTENCE.split(words):
        if kept and sentence.rstrip().endswith(("?", "？")):
            break
        kept.append(sentence)
    return _clip(" ".join(kept), MAX_WORDS)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rsplit(" ", 1)[0] + "…"
