"""A plan the user approved and the agent carried out (issue 24).

Claude Code's plan mode ends with the user approving the agent's plan, which the session
then holds as a user turn ("Implement the following plan: # Move the completion prompt
from `enable` to a new command …": ``Turn.planned``). Before the work the plan is only a
proposal (``detector``: what it calls broken is borne out by nothing yet). Once the agent
has carried it out — an edit the tool accepted after the approval — and the user's next
word does not turn the work down, deny it or say "still", the plan is a *Decision*: the
way the team chose to go, in the plan's own words: its title and the first lines of its
first section (the context or goal it states), never its step-by-step changes or code.

A plan whose edit the user turns down, or that nobody acted on before the user spoke
again with another plan, decided nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memx_cli.reflector.aider import FENCE
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.narrative import STILL
from memx_cli.reflector.reports import MARKER, joined
from memx_cli.reflector.said import rejects
from memx_cli.reflector.signals import Signals

HEADER = re.compile(r"^\s*Implement the following plan:\s*", re.IGNORECASE)
TITLE = re.compile(r"^#\s+(?:plan\s*:\s*)?(.+?)\s*#*\s*$", re.IGNORECASE)
SUBHEADING = re.compile(r"^#{2,6}\s")
MAX_TITLE = 160
MAX_PLAN = 480  # under the default memory length (ace.reflector.max_content_length, 500)
MAX_LINES = 12  # lines of a plan read for its first section


@dataclass
class Plan:
    index: int
    lang: str
    text: str
    last: int = 0
    edited: bool = False  # an edit the tool accepted since the approval


class Plans:
    """Feeds turns; returns the plans the session carried out. Holds one plan."""

    def __init__(self) -> None:
        self.plan: Plan | None = None
        self.editing = False  # the last tool call writes a file

    def feed(self, sig: Signals) -> list[Candidate]:
        turn, plan = sig.turn, self.plan
        if turn.planned:
            out = self.finish()
            told = summary(turn.text)
            self.plan = Plan(turn.index, sig.lang, told, turn.last) if told else None
            return out
        if plan is None:
            return []
        if turn.kind == "tool_use":
            self.editing = bool(turn.files)
        elif turn.kind == "tool_result" and turn.applied:
            plan.edited, plan.last = True, turn.last
        elif turn.rejected:
            if self.editing:
                self.plan = None  # an edit of the plan's work turned down
        elif turn.kind == "text" and turn.role == "user" and not turn.picked and plan.edited:
            self.plan = None
            if not (rejects(sig) or sig.deny or sig.says(STILL)):
                return [_lesson(plan)]
        return []

    def finish(self) -> list[Candidate]:
        plan, self.plan = self.plan, None
        return [_lesson(plan)] if plan is not None and plan.edited else []


def summary(text: str) -> str | None:
    """The plan's title and the first lines of its first section, as plain text; None
    when it has no title."""
    lines = HEADER.sub("", text, count=1).splitlines()
    title: str | None = None
    body: list[str] = []
    items: list[bool] = []  # each entry of the body: a list item, or a paragraph
    fenced = False
    for line in lines[:MAX_LINES * 4]:
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or not line.strip():
            continue
        if title is None:
            found = TITLE.match(line.strip())
            if found is None:
                return None  # a plan is led by its title
            title = _plain(found.group(1))[:MAX_TITLE]
            continue
        if SUBHEADING.match(line):
            if body:
                break  # the first section ends
            continue
        item = bool(MARKER.match(line))
        if body and not item and not items[-1]:
            body[-1] += " " + _plain(line)  # a wrapped line of prose goes on
            continue
        body.append(_plain(MARKER.sub("", line)))
        items.append(item)
        if len(body) >= MAX_LINES:
            break
    if not title:
        return None
    text = title.rstrip(". ") + "." + (" " + joined(body) if body else "")
    return text if len(text) <= MAX_PLAN else text[:MAX_PLAN - 1].rsplit(" ", 1)[0] + "…"


def _plain(line: str) -> str:
    return " ".join(line.replace("**", "").split())


def _lesson(plan: Plan) -> Candidate:
    return Candidate("Decision", plan.index, plan.last, plan.lang,
                     f"Plan carried out: {plan.text}", veracity="stated",
                     context=plan.text)
