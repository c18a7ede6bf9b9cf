"""What the project's own tasks run (issue 24), read from the line a task runner prints
before it runs a task: ``[test:ci] $ go test -tags=integration -race ./...`` (mise) or
``task: [lint] golangci-lint run`` (go-task).

A session's agent checks its work through the project's tasks (``mise run lint``), and the
runner's output says what each task ran. A newcomer cannot guess that ``test:ci`` adds
``-tags=integration -race``, or that ``lint`` is four lint tasks. One Fact a session, when
the session ran a variant task (a name of the family:variant form, ``test:ci``,
``lint:go``): the name then no longer says what runs. The memory lists every task that
ran green in the session, the variant ones and the plain ones beside them, in name order
so that the same tasks make the same memory again.

A task counts only when the agent named it in the command (or named its family, whose
runner then ran the variant tasks under it), with nothing after the name (``mise run test
-- ./redact/...`` passes arguments the runner adds to the task's command), and when the
run did not fail. A task whose command is a script path shows no path: the variant tasks
under a family are named instead.
"""

from __future__ import annotations

import re

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.evidence import FAIL_SUMMARY
from memx_cli.reflector.turn import Turn

NAME = r"[A-Za-z][\w.-]{0,30}(?::[\w.-]{1,30}){0,3}"
# mise: "[name] $ command"; go-task: "task: [name] command".
ECHO = re.compile(rf"^(?:\[({NAME})\] \$ |task: \[({NAME})\] )(\S.{{0,200}})$", re.MULTILINE)
SEGMENTS = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")
REDIRECT = re.compile(r"\s+\d?>&?\d?\S*")
TRUNCATED = "…"  # a line the output was cut at (Go's "./..." is a pattern, no cut)
MAX_TASKS = 6
MAX_COMMAND = 90


class Tasks:
    """Feeds turns; ``finish`` returns the Fact of the tasks that ran green. Holds at most
    ``MAX_TASKS`` tasks."""

    def __init__(self) -> None:
        # invocation ("mise run lint") -> what it runs: its command, or its variant tasks
        self.ran: dict[str, tuple[str, ...]] = {}
        self.first = 0
        self.last = 0
        self.variant = False  # a task of the family:variant form ran green

    def feed(self, turn: Turn) -> None:
        if turn.kind != "tool_result" or not turn.command or turn.failed is True:
            return
        echoed = [(m.group(1) or m.group(2), m.group(3).strip()) for m in ECHO.finditer(turn.text)]
        if not echoed or FAIL_SUMMARY.search(turn.text):
            return
        segments = [REDIRECT.sub("", s).strip() for s in SEGMENTS.split(turn.command)]
        for name, command in echoed:
            invoked = _invocation(name, segments)
            if invoked is None:
                continue
            call, family = invoked
            if len(self.ran) >= MAX_TASKS and call not in self.ran:
                continue
            shown = name if family != name else _command(command)
            if shown is None:
                continue
            before = self.ran.get(call, ())
            if shown not in before:
                self.ran[call] = before + (shown,)
            self.variant = self.variant or ":" in name
            self.first = self.first or turn.index
            self.last = turn.last

    def finish(self, lang: str = "en") -> list[Candidate]:
        ran, variant, first, last = self.ran, self.variant, self.first, self.last
        self.ran, self.variant, self.first, self.last = {}, False, 0, 0
        if not variant or not ran:
            return []
        parts = [f"`{call}` runs " + ", ".join(f"`{c}`" for c in sorted(runs))
                 for call, runs in sorted(ran.items(), key=lambda kv: _task(kv[0]))]
        text = "The project's tasks, as the task runner ran them (passed): " \
            + "; ".join(parts) + "."
        return [Candidate("Fact", first, last, lang, text, commands=tuple(sorted(ran)),
                          veracity="tool", context=text)]


def _task(call: str) -> str:
    return call.rsplit(" ", 1)[-1]


def _invocation(name: str, segments: list[str]) -> tuple[str, str] | None:
    """The command segment that ran the task, and the name it gave (the task's own, or its
    family's): the name is the segment's last word, so nothing was passed to the task."""
    family = name
    while True:
        for segment in segments:
            words = segment.split()
            if len(words) >= 2 and words[-1] == family:
                return segment, family
        if ":" not in family:
            return None
        family = family.rsplit(":", 1)[0]


def _command(command: str) -> str | None:
    """The task's command as shown: a script path shows nothing; a line the output cut
    ("./cmd/entire/cli/integration_tes…") ends at its last whole word."""
    words = command.split()
    if len(words) == 1 and ("/" in words[0] or words[0].startswith("~")):
        return None
    if command.endswith(TRUNCATED):
        words = words[:-1]
        if not words:
            return None
        command = " ".join(words) + " …"
    if len(command) > MAX_COMMAND:
        command = command[:MAX_COMMAND].rsplit(" ", 1)[0] + " …"
    return command
