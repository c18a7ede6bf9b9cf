"""What a project's task-runner targets run, read from the runner's own echo (issue 24).

Sessions check their work through the project's task runner (``mise run test:ci``,
``task lint``, ``npm run test``) and memories name those targets ("Error: `mise run test:ci`
— TestEnableDisable failed …"). What the target runs is printed by the runner itself before
the command's own output, one echo line per task, and a newcomer reading the memory wants
it (``test:ci`` is the one that builds the integration tests, with ``-race``):

- mise: ``[test:ci] $ go test -tags=integration -race ./...``; a task that only runs
  others (or a file task) echoes the path of its script: such a target is told by the tasks
  it ran (``[lint:go] $ …/mise-tasks/lint/go`` under ``mise run lint``);
- go-task: ``task: [lint] golangci-lint run ./...``;
- npm, pnpm, yarn and bun: ``> pkg@1.0.0 test`` then ``> vitest run``.

Nothing here makes a memory: a memory that names a target the session ran, whose echo was
seen, gets one sentence more (``runs `go test -tags=integration -race ./...```): a target
with a qualifier in its name (``test:ci``) by its command, any target by the other tasks it
ran; a plain ``mise run test`` echoing ``go test ./...`` says what everybody guesses and is
left alone, as is a runner that prints no echo (make, just).
Bounded: at most ``MAX_TARGETS`` targets a session, ``MAX_RUNS`` commands or tasks each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memx_cli.reflector.reruns import segments
from memx_cli.reflector.turn import Turn

MAX_TARGETS = 16
MAX_RUNS = 6
MAX_RUN = 100  # characters of one echoed command
MAX_NOTE = 240

# The call that runs a target: the runner, its verb when it has one, and the target.
CALL = re.compile(
    r"^(?:\w+=\S*\s+)*(?P<call>(?:mise\s+(?:run|r)|task|(?:npm|pnpm|yarn|bun)\s+run|"
    r"(?:npm|pnpm|yarn|bun)(?=\s+(?:test|start|build|lint)\b))\s+(?P<target>[\w:.-]+))")
MISE_ECHO = re.compile(r"^\[(?P<task>[\w:./-]+)\] \$ (?P<run>\S.*)$")
TASK_ECHO = re.compile(r"^task: \[(?P<task>[\w:./-]+)\] (?P<run>\S.*)$")
NPM_HEAD = re.compile(r"^> \S+@\S+ (?P<task>[\w:.-]+)(?: \S+)?$")
NPM_RUN = re.compile(r"^> (?P<run>\S.*)$")
# A command that is the path of a script (a file task, a machine's home folder): it says
# nothing a newcomer could run, and a path of someone's machine stays out of memories.
REDIRECT = re.compile(r"^(?:\d?>>?|&>|<)\S*$")
# A target named with a qualifier (``test:ci``, ``test:integration``, ``build.prod``): the
# name says which variant, not what it adds; a plain ``test``, ``lint`` or ``fmt`` is the
# conventional entry point, its command the one everybody guesses, told only by its tasks.
QUALIFIED = re.compile(r"\w[:.-]\w")
SCRIPT = re.compile(r"^(?:~|/|\.{1,2}/|[A-Za-z]:\\)\S*$")


@dataclass
class _Target:
    call: str  # as the session typed it, one space between words: "mise run test:ci"
    name: str  # the target: "test:ci"
    runs: list[str] = field(default_factory=list)  # commands it echoed, in order
    tasks: list[str] = field(default_factory=list)  # the other tasks it ran


class Runners:
    """Feeds turns; knows, for each runner target the session ran, what it runs."""

    def __init__(self) -> None:
        self.targets: dict[str, _Target] = {}

    def feed(self, turn: Turn) -> None:
        if turn.kind != "tool_result" or not turn.command:
            return
        calls = []
        for part in segments(turn.command):
            found = CALL.match(part.strip())
            if found:
                call = " ".join(found.group("call").split())
                # words after the target (`-- -run TestX`) change what it echoes: such a
                # run tells its tasks, not the target's own command
                extra = [w for w in part[found.end():].split() if not REDIRECT.match(w)]
                calls.append((call, found.group("target"), bool(extra)))
        if not calls:
            return
        for task, run in _echoes(turn.text):
            owner = next((c for c in calls if c[1] == task), None) or next(
                (c for c in calls if task.startswith(c[1] + ":")), None)
            if owner is None:
                continue
            target = self.targets.get(owner[0])
            if target is None:
                if len(self.targets) >= MAX_TARGETS:
                    continue
                target = self.targets[owner[0]] = _Target(owner[0], owner[1])
            if task != target.name:
                if task not in target.tasks and len(target.tasks) < MAX_RUNS:
                    target.tasks.append(task)
            elif not owner[2] and not SCRIPT.match(run) and run not in target.runs \
                    and len(target.runs) < MAX_RUNS:
                target.runs.append(run if len(run) <= MAX_RUN else run[:MAX_RUN - 1] + "…")

    def notes(self, content: str) -> list[str]:
        """One sentence per target the text names that the session saw run: what it runs,
        unless the text already says it."""
        out = []
        for call, target in self.targets.items():
            if not re.search(re.escape(call) + r"(?![\w:.-])", content):
                continue
            if target.runs and QUALIFIED.search(target.name):
                said = [r for r in target.runs if r not in content]
                if len(said) < len(target.runs):
                    continue
                note = f"`{call}` runs " + ", then ".join(f"`{r}`" for r in said) + "."
            elif target.tasks:
                if all(t in content for t in target.tasks):
                    continue
                note = f"`{call}` runs the tasks {', '.join(sorted(target.tasks))}."
            else:
                continue
            if len(note) <= MAX_NOTE:
                out.append(note)
        return out


def _echoes(text: str) -> list[tuple[str, str]]:
    """(task, command) for each echo line the runners print, in order."""
    out: list[tuple[str, str]] = []
    head: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        found = MISE_ECHO.match(line) or TASK_ECHO.match(line)
        if found:
            out.append((found.group("task"), found.group("run").strip()))
            head = None
            continue
        npm = NPM_HEAD.match(line)
        if npm:
            head = npm.group("task")
            continue
        run = NPM_RUN.match(line) if head is not None else None
        if run and head is not None:
            out.append((head, run.group("run").strip()))
        head = None
    return out
