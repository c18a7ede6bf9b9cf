"""What an episode is made of (episodes.py): the attempts at a problem and their fate.

An ``Attempt`` is one concrete try (a proposal, an edit, a command); an ``Episode`` holds the
problem, its attempts, and the mark before which every attempt failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_ATTEMPTS = 12


@dataclass
class Attempt:
    first: int
    text: str
    files: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    change: str | None = None
    replaced: str | None = None
    tool: bool = False
    failed: bool = False
    revert: bool = False
    pending: str | None = None  # a command run as an attempt, awaiting its result
    remedy: bool = False  # says what to do ("the fix is to ..."), not only why
    rejected: bool = False  # the user turned it down ("no, ..."): never the lesson
    check: bool = False  # the problem's own command run again, maybe with a flag more
    # The edit only adds names to the file's imports, or only drops some (a missing
    # ``"time"`` added, an unused one removed): bookkeeping after one's own change.
    imports: bool = False


@dataclass
class Episode:
    first: int
    lang: str
    problem: str | None
    command: str | None = None
    seen: int = 0
    attempts: list[Attempt] = field(default_factory=list)
    mark: int = 0  # attempts before this index failed with the problem itself
    failures: int = 0
    context: list[str] = field(default_factory=list)
    whole: bool = False  # a piped stage failed: the command is compared with its pipes
    # A failure was seen or said ("the build fails", a failing run), not only errors named
    # or a question asked: only then does a passing run after an edit end it.
    stated: bool = True
    # The failing run was refused by its own command line (an option or argument the
    # program does not take): the agent's slip, unless something else than the same
    # program called again mends it.
    usage: bool = False
    # Opened by the user's request for work ("let's make the command hidden"), not a
    # failure seen: only the user's own words say a problem was solved or not.
    request: bool = False
    # What the assistant found wrong, said after the failing run and before its first edit
    # for it ("`agentLines` can go negative"): the cause once the same command passes.
    finding: str | None = None

    def fail(self, rejected: bool = False) -> None:
        """The problem is still there (or the user turned the attempts down): every
        attempt since the last failure failed, and what was found before them was not the
        cause. A rejection is no failed try: it does not make the episode a RetrySuccess."""
        self.finding = None
        fresh = [a for a in self.attempts[self.mark:] if not a.revert]
        for attempt in fresh:
            attempt.failed, attempt.rejected = not rejected, rejected
        self.failures += bool(fresh) and not rejected
        self.mark = len(self.attempts)

    def turn_down_call(self) -> None:
        """The user rejected the tool call just made: that call and what was said since the
        call before it are turned down, with what the agent had found; the edits already
        made stand."""
        self.finding = None
        start = self.mark
        for number in range(len(self.attempts) - 2, self.mark - 1, -1):
            if self.attempts[number].tool:
                start = number + 1
                break
        for attempt in self.attempts[start:]:
            attempt.rejected = True

    def refused(self, files: tuple[str, ...]) -> None:
        """The tool refused the last edit of ``files`` (its old text was not found): that
        edit changed nothing, so it is no attempt."""
        for attempt in reversed(self.attempts):
            if attempt.tool and attempt.files == list(files):
                attempt.revert = True
                return

    def working(self) -> list[Attempt]:
        return [a for a in self.attempts[self.mark:]
                if not a.failed and not a.revert and not a.rejected]

    def add(self, attempt: Attempt) -> None:
        for earlier in self.attempts:
            if (earlier.failed and attempt.tool and earlier.files == attempt.files
                    and attempt.change is not None and attempt.change == earlier.replaced):
                attempt.revert = True  # puts back what a failed edit replaced
            elif (attempt.tool and earlier.tool and earlier.files == attempt.files
                    and attempt.replaced is not None and attempt.replaced == earlier.change):
                earlier.revert = True  # rewritten by this edit: only this one stands
        self.attempts.append(attempt)
        over = len(self.attempts) - MAX_ATTEMPTS
        if over > 0:  # the oldest go; the mark stays before the same attempts
            del self.attempts[:over]
            self.mark = max(0, self.mark - over)
