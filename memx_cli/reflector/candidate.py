"""What a rule finds: one ``Candidate``, before it is scored, sanitized and distilled."""

from __future__ import annotations

from dataclasses import dataclass

from memx_cli.reflector.rules import RULES


@dataclass(frozen=True)
class Candidate:
    rule: str
    first: int  # span of turns (or lines) the evidence comes from
    last: int
    lang: str
    fix: str  # the statement: what worked, the change, the tool, the chore, the rule
    error: str | None = None  # ErrorFix / RetrySuccess: the problem
    attempts: str | None = None  # what did not work (for the LLM stage; never the lesson)
    commands: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    veracity: str = "inferred"
    context: str = ""  # nearby text, for the LLM stage
    confidence: float = 0.0
    cause: str | None = None  # why, when it was said
    failed: int = 0  # attempts that did not work
    topic: str | None = None  # what the memory is about, when no slot names it (a title)
    # An episode's fix shows something a reader could do again (a change, another command);
    # False: only a file rewritten unseen and the failing check run again.
    shown: bool = True
    # A diagnosis whose cause the agent announced finding ("Now I see the issue.") but
    # whose fix it did not name: the report of the same work tells the fix better, and
    # takes this cause as its why when there is one.
    lends: bool = False
    # The Fix slot is a fix by its form (an order, a remedy, the change told, a commit's
    # title), not a sentence picked by its place in a body: an Error/Fix memory over its
    # length cuts its Error to keep a settled Fix only (``distiller.fitted``).
    settled: bool = True

    def __post_init__(self) -> None:
        if not self.confidence:
            found = RULES.get(self.rule)
            object.__setattr__(self, "confidence", found.confidence if found else 0.7)

    @property
    def text(self) -> str:
        return "\n".join(p for p in (self.error, self.cause, self.fix) if p)


@dataclass(frozen=True)
class Dropped:
    """A candidate the noise model or the scorer turned down, and why (``--dry-run``)."""

    rule: str
    content: str
    reason: str
    score: int = 0
