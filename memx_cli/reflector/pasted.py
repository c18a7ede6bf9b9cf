"""A review finding the session acts on (issue 24): a user pastes what a reviewer found
("The tr -d '"' in the .env parsing only strips double quotes, not \\r. If the file has CRLF
line endings the value becomes "1\\r" and the comparison silently fails."), and the agent
edits the code the finding quotes. A senior engineer keeps that: what was wrong, in the
reviewer's words, and what it was changed to.

It is a finding when:

- the user typed it (no rejection, picked answer or approved plan), in 15 to 250 words,
  and it is no question: it states what the code does and what follows from it — a
  consequence or a condition ("if", "when", "so", "because", "fails", "breaks", "can",
  "won't"…), not a bare order ("rename `a` to `b`" is a task);
- before the user speaks again an edit the tool accepted replaces a line of code the
  finding quotes word for word (at least ``MIN_QUOTED`` characters, the whitespace folded):
  the agent changed the very code the reviewer pointed at, not some file nearby;
- the user's next message neither turns the work down nor says it still fails.

The memory is an ErrorFix: the finding (its first sentences) as the Error, the edit as the
Fix ("`tr -d '"'` → `tr -d '"\\r'` in a.sh, b.sh"). A finding nobody acts on, or acted on
by an edit of other code, gives nothing; so does a plan, a to-do list or a list of test
names, which quote no code an edit then replaces. When an episode, a diagnosis or a
correction made a memory of the same turns, that memory stands (``detector.finish``).
"""

from __future__ import annotations

import re

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.said import rejects
from memx_cli.reflector.signals import Signals

MIN_WORDS = 15
MAX_WORDS = 250
MIN_QUOTED = 6  # characters of replaced code the finding must hold, spaces folded
MAX_FINDING = 320
MAX_CODE = 80
MAX_KEPT = 4  # findings a session gives, at most
# What a finding says follows from the code: a condition or a consequence.
CONSEQUENCE = re.compile(r"(?i)\b(?:if|when|so|because|since|otherwise|fails?|failing|breaks?|"
                         r"broken|can|could|cannot|can't|won't|will|would|leads?|causes?|"
                         r"results?|silently|never|only)\b")


def _fold(text: str) -> str:
    return " ".join(text.split())


class Findings:
    """Feeds turns; returns the findings acted on. Holds at most one finding waiting."""

    def __init__(self) -> None:
        self.finding: tuple[int, str, str] | None = None  # turn, lang, the user's words
        self.edits: list[tuple[str, str, str]] = []  # file, replaced, written
        self.last = 0
        self.waiting = False  # an edit taken, its tool result not yet read
        self.kept: list[Candidate] = []

    def feed(self, sig: Signals) -> None:
        turn = sig.turn
        if turn.role == "assistant" and turn.kind == "tool_use":
            self._edited(sig)
            return
        if turn.kind == "tool_result":
            if self.waiting and turn.failed and not turn.applied:
                self.edits.pop()  # the tool refused the edit: nothing changed
            self.waiting = False
            return
        if turn.role != "user" or turn.kind != "text":
            return
        if turn.rejected:
            self.finding, self.edits = None, []  # the work turned down
            return
        self._settle(sig)
        if not (turn.picked or turn.planned or sig.turn.rejected):
            self.finding = self._finding(sig)

    def finish(self) -> list[Candidate]:
        self._settle(None)
        kept, self.kept = self.kept, []
        return kept

    def _finding(self, sig: Signals) -> tuple[int, str, str] | None:
        words = _fold(sig.turn.text)
        count = len(words.split())
        if not MIN_WORDS <= count <= MAX_WORDS or not sig.spans:
            return None
        if all(sig.is_question(n) for n in range(len(sig.spans))):
            return None
        if not CONSEQUENCE.search(words):
            return None
        return sig.turn.index, sig.lang, words

    def _edited(self, sig: Signals) -> None:
        turn = sig.turn
        if self.finding is None or turn.edited is None or not turn.files:
            return
        replaced, written = (_fold(part) for part in turn.edited)
        if len(replaced) < MIN_QUOTED or "\n" in turn.edited[0].strip() or replaced == written:
            return
        if replaced not in self.finding[2]:
            return
        self.edits.append((turn.files[0], replaced, written))
        self.last, self.waiting = turn.last, True

    def _settle(self, sig: Signals | None) -> None:
        """The finding waiting is kept when edits acted on it and this message (none: the
        session ended) neither turns the work down nor says it still fails."""
        finding, edits = self.finding, self.edits
        self.finding, self.edits, self.waiting = None, [], False
        if finding is None or not edits or len(self.kept) >= MAX_KEPT:
            return
        if sig is not None and (rejects(sig) or (sig.deny and not sig.confirm)):
            return
        index, lang, words = finding
        changes = {(old, new) for _, old, new in edits}
        if len(changes) > 1:
            return  # several changes: which one answers the finding is not shown
        old, new = changes.pop()
        files = tuple(dict.fromkeys(path for path, _, _ in edits))
        names = ", ".join(files)
        fix = f"`{_clip(old, MAX_CODE)}` → `{_clip(new, MAX_CODE)}` in {names}"
        self.kept.append(Candidate("ErrorFix", index, self.last, lang, fix,
                                   error=_clip(words, MAX_FINDING), files=files,
                                   veracity="stated", context=words[:1500]))


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    end = max(cut.rfind(". "), cut.rfind("! "))
    return cut[:end + 1] if end > limit // 2 else cut.rsplit(" ", 1)[0] + "…"
