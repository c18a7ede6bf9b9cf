"""A request the user overturns once it is done (issue 24).

People change their minds after seeing the work: "make the start command hidden" is
carried out, then "thinking again: let's remove the start command". What the team settled
on is the later request, and that it replaced the earlier one is part of the lesson. The
session's structure says so without any word of regret:

- the earlier request was carried out: edits the tools accepted, made after it and before
  the user spoke again;
- the user's next message is a request about the same thing (two or more of its words of
  four letters or more in common with the earlier one) that drops some of the earlier
  words (holding them all, it restates or amends the request: ``replies``), neither a
  question, a failure report, a denial nor a "still";
- the work on it takes the earlier work out: it deletes a file the earlier work edited
  (``rm``, ``git rm``) or an edit removes a line the earlier work added.

Then the later request is a *Decision* that names the one it overturned. Work that builds
on the earlier work (adds to it, edits it elsewhere) overturns nothing.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.names import program_of
from memx_cli.reflector.narrative import STILL
from memx_cli.reflector.reruns import segments
from memx_cli.reflector.signals import Signals

WORD = re.compile(r"(?<![\w'])[a-z]{4,}(?![\w'])")
MIN_SHARED = 2
MAX_WORDS = 60  # a request longer than this is a task description, not a turn of mind
MIN_LINE = 6  # an added line shorter than this ("}", "end") says nothing of the work
MAX_LINES = 64  # added lines remembered per request
MAX_SAID = 200
REMOVERS = frozenset({"rm", "unlink"})


@dataclass
class Request:
    index: int
    text: str
    lang: str
    words: frozenset[str]
    files: set[str] = field(default_factory=set)  # basenames the work on it edited
    added: list[str] = field(default_factory=list)  # lines that work added


class Reversals:
    """Feeds turns; returns the requests that overturned the one before them."""

    def __init__(self) -> None:
        self.done: Request | None = None  # the request before, with its work
        self.current: Request | None = None  # the request being worked on
        self.later: Request | None = None  # ``current`` when it may overturn ``done``
        self.pending: tuple[str, ...] = ()  # the last edit call's files, until its result
        self.edit: tuple[str, str] | None = None

    def feed(self, sig: Signals) -> list[Candidate]:
        turn = sig.turn
        if turn.kind == "text" and turn.role == "user":
            self._request(sig)
            return []
        if turn.rejected:
            self.pending, self.edit = (), None
            return []
        if turn.kind == "tool_use":
            if turn.files:
                self.pending, self.edit = turn.files, turn.edited
            elif turn.command:
                return self._removes(turn.command, turn.last)
            return []
        if turn.kind == "tool_result" and self.pending:
            pending, edit, self.pending, self.edit = self.pending, self.edit, (), None
            if turn.failed:
                return []  # refused ("String to replace not found"): nothing changed
            return self._edited(pending, edit, turn.last)
        return []

    def _request(self, sig: Signals) -> None:
        text = " ".join(sig.turn.text.split())
        words = text.split()
        previous = self.current
        self.later = None
        if not words or len(words) > MAX_WORDS or sig.turn.planned or sig.turn.picked \
                or text.rstrip().endswith("?") or sig.error_lines or sig.errors \
                or sig.deny or STILL.search(text):
            self.current = self.done = None
            return
        request = Request(sig.turn.index, text, sig.lang, frozenset(WORD.findall(text.lower())))
        self.current = request
        self.done = previous if previous is not None and previous.files else None
        if self.done is not None and len(self.done.words & request.words) >= MIN_SHARED \
                and not self.done.words <= request.words:
            # every word of the earlier request again is the request restated or amended
            # (replies.py's correction), not turned around
            self.later = request

    def _edited(self, files: tuple[str, ...], edit: tuple[str, str] | None,
                last: int) -> list[Candidate]:
        request = self.current
        if request is None:
            return []
        old, new = edit if edit is not None else ("", "")
        if self.later is not None and self.done is not None:
            gone = {line.strip() for line in old.splitlines()} \
                - {line.strip() for line in new.splitlines()}
            if any(line in gone for line in self.done.added):
                return self._overturned(last)
        request.files.update(os.path.basename(f) for f in files)
        old_lines = {line.strip() for line in old.splitlines()}
        for line in new.splitlines():
            line = line.strip()
            if len(line) >= MIN_LINE and line not in old_lines \
                    and len(request.added) < MAX_LINES:
                request.added.append(line)
        return []

    def _removes(self, command: str, last: int) -> list[Candidate]:
        if self.later is None or self.done is None:
            return []
        for segment in segments(command):
            try:
                words = shlex.split(segment)
            except ValueError:
                continue
            program = program_of(segment)
            if program == "git" and len(words) > 1 and words[1] == "rm":
                words = words[1:]
            elif program not in REMOVERS:
                continue
            named = {os.path.basename(w) for w in words[1:] if not w.startswith("-")}
            if named & self.done.files:
                return self._overturned(last)
        return []

    def _overturned(self, last: int) -> list[Candidate]:
        later, earlier = self.later, self.done
        self.later = self.done = None
        if later is None or earlier is None:
            return []
        text = (f"Changed course: \"{_clip(later.text)}\" (overturns the earlier request, "
                f"carried out first: \"{_clip(earlier.text)}\")")
        return [Candidate("Decision", earlier.index, last, later.lang, text,
                          veracity="stated", context=f"{earlier.text}\n{later.text}")]


def _clip(text: str) -> str:
    return text if len(text) <= MAX_SAID else text[:MAX_SAID - 1].rstrip() + "…"
