"""A run that passed but did not do its job, and the other way that did (issue 24).

An agent's command can exit 0 and still fail at what it was for: a non-interactive
``git rebase -i`` that keeps the commit it was told to drop, an install that puts the
package somewhere else. The agent says so itself, right after looking at the result ("The
rebase didn't drop the commit correctly. Let me do it manually."), and runs something
else. Read from the structure:

- a command run by the agent passes (its tool result is no failure);
- the assistant's next words open with a sentence that names that command (a word of its
  first line: ``rebase``; other runs may come between, a look at the result) and negates
  its outcome in the past (didn't, did not, failed to);
- the next command it runs is the other way (another program or subcommand); it passes;
- nobody then says it failed: the assistant's next words hold no "still" or denial, and
  the user's next message does not turn it down.

The memory is a RetrySuccess: the command that did not do its job with the agent's words
about it, and the command that worked. Any failing run, denial or rejection before the
end drops it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.narrative import STILL
from memx_cli.reflector.said import rejects
from memx_cli.reflector.signals import Signals

# The outcome negated, in the past: "didn't drop", "did not apply", "failed to push".
NOT_DONE = re.compile(r"(?i)\b(?:didn't|did not|wasn't|was not|weren't|were not|hasn't|"
                      r"has not|haven't|have not|couldn't|could not|failed to)\b")
NAME = re.compile(r"[a-z][a-z_-]{3,}")
MAX_COMMAND = 160
MAX_PASSED = 8
MAX_QUIET = 20  # records between the other way and a word about it


@dataclass
class Redo:
    first: int
    said: str
    failed: str
    lang: str
    tried: str | None = None
    green: bool = False
    seen: int = 0


class Redos:
    """Feeds turns; returns the other ways that worked. Holds at most one."""

    def __init__(self) -> None:
        # the commands that passed since anyone last spoke (a look at the result follows)
        self.passed: list[str] = []
        self.open: Redo | None = None

    def feed(self, sig: Signals) -> list[Candidate]:
        turn, redo = sig.turn, self.open
        if redo is not None and turn.index - redo.seen > MAX_QUIET:
            self.open = redo = None
        if turn.kind == "tool_use":
            if redo is not None and redo.tried is None and turn.command:
                if _verb(turn.command) == _verb(redo.failed):
                    self.open = None  # the same again: no other way
                else:
                    redo.tried, redo.seen = turn.command, turn.index
            return []
        if turn.kind == "tool_result":
            failed = bool(turn.failed) if turn.failed is not None else bool(sig.error_lines)
            if turn.command and not failed:
                self.passed = (self.passed + [turn.command])[-MAX_PASSED:]
            if redo is not None and redo.tried is not None and turn.command == redo.tried:
                redo.green, redo.seen = not failed, turn.index
                if failed:
                    self.open = None
            return []
        if turn.rejected:
            self.open, self.passed = None, []
            return []
        if turn.kind != "text" or turn.role not in ("user", "assistant") or turn.picked:
            return []
        passed, self.passed = self.passed, []
        if redo is not None and redo.tried is not None and redo.green:
            self.open = None
            denied = sig.deny or sig.says(STILL) or (turn.role == "user" and rejects(sig))
            return [] if denied else [_lesson(redo, turn.last)]
        if turn.role == "user":
            self.open = None
        elif passed and sig.spans:
            said = sig.sentence(0)
            named = [c for c in passed if _names(c, said)]
            if NOT_DONE.search(said) and named:
                self.open = Redo(turn.index, said, named[-1], sig.lang, seen=turn.index)
        return []

    def finish(self) -> list[Candidate]:
        redo, self.open = self.open, None
        return [_lesson(redo, redo.seen)] if redo is not None and redo.green else []


def _first_line(command: str) -> str:
    line = command.strip().split("\n", 1)[0]
    return line if len(line) <= MAX_COMMAND else line[:MAX_COMMAND - 1] + "…"


def _verb(command: str) -> list[str]:
    """A command's program and subcommand (``git rebase``), its variables left out."""
    return [w for w in command.split() if "=" not in w][:2]


def _names(command: str, said: str) -> bool:
    """The sentence names the command by a word of its first line (``rebase``)."""
    words = set(NAME.findall(_first_line(command).lower()))
    return any(re.search(rf"\b{re.escape(w)}\b", said.lower()) for w in words)


def _lesson(redo: Redo, last: int) -> Candidate:
    tried = _first_line(redo.tried or "")
    return Candidate("RetrySuccess", redo.first, last, redo.lang, f"ran `{tried}`",
                     redo.said, commands=(_first_line(redo.failed),), failed=1,
                     veracity="tool")
