"""What a CI log teaches: each failure, with the line that explains it (issue 24).

A log holds the failure, rarely its fix, so a memory here never pairs an error with a
"fix" taken from the next line: it says which job and step failed, running what, and the
diagnostic that explains it (the error, where in the project, how many times), plus what
else the same step reported (a coverage gate after failing tests).

- Only failing steps are read (``##[error]`` from the runner; for plain tool output, the
  whole output when it holds diagnostics): setup, checkout and passing steps teach nothing.
- One cause, one memory: the diagnostics of a step are grouped by key, the error that hit
  the most files (then the most frequent) is the cause, the others follow by how often;
  the same cause in several jobs (a matrix) is one memory. Plain output holding several
  tools' diagnostics is one failure per tool format.
- The command that failed is named when the script says it (``bash -e``: the last command
  of a straight script, the one program a branching script runs); the exit code is said
  when a wrapper in the step relayed it, or when it is all that says why (a silent curl).
- A cancelled step says how long it had been silent (a hang up to the job's time limit).
- A job that only reports other jobs' results (``Lint: failure``), or was cancelled
  because another job failed, is a cascade: context for the real failure, never a memory
  of its own while the real failure is in the log.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from memx_cli.reflector import aider
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.cidiag import diagnostics
from memx_cli.reflector.cifailure import (
    POSITION,
    TIME_LIMIT,
    Failure,
    failure,
    matrix,
    shapes,
    step_command,
    stop_note,
    tools_apart,
)
from memx_cli.reflector.cipaths import CHECKOUT
from memx_cli.reflector.cistatement import ROOM, runner_warnings, statement, tools_warned
from memx_cli.reflector.cisteps import Step, quoted_log, steps, structured
from memx_cli.reflector.citools import Diagnostic
from memx_cli.reflector.ciwarn import Warned, gather
from memx_cli.reflector.inputs import ROLE_RE

MAX_FAILURES = 20
MEMORIES_PER_LOG = 4
COMMAND_LOG = re.compile(r"^(?:\$ |\[exit \d+\]$)", re.MULTILINE)
# Gradle's header of each task it runs, with the task's outcome when it did no work
BUILD_TASK = re.compile(r"^> Task :[\w:.-]+(?: [A-Z][A-Z-]+)?\s*$")
BUILD_TASKS = 3  # task headers that make the input a build's console, not a note about one
# how far into a text a quoted runner's log is looked for: failure reports and notes pasted
# whole run to a few hundred KB; a longer text is a log itself or no report
QUOTE_SCAN = 1 << 20
WORD = re.compile(r"[a-z]{4,}")  # a word of a job's name, for a status job's words naming it


def looks_like_ci(head: bytes) -> bool:
    text = head.decode("utf-8", "replace")
    return structured(text.splitlines()[:200])


def _build_console(head: bytes) -> bool:
    """Is this a build tool's console saved as it was (a local Gradle run kept as
    evidence): its own task headers among the first lines?"""
    lines = head.decode("utf-8", "replace").splitlines()[:200]
    return sum(1 for line in lines if BUILD_TASK.match(line.strip("\ufeff"))) >= BUILD_TASKS


def reads(head: bytes, source: str | None) -> bool:
    """Is this input read as a CI log: a runner's log, a build tool's console, a runner's
    log quoted in a text no one speaks in, or a tool's output given as one? A log of
    commands (``$ cmd`` … ``[exit 1]``) goes to the episode reader instead: it can hold
    the rerun that fixed the failure."""
    if looks_like_ci(head) or _build_console(head):
        return True
    text = head.decode("utf-8", "replace")
    if COMMAND_LOG.search(text):
        return False
    return source == "ci" or _quotes_a_log(text.splitlines())


def quoted_further(text: bytes) -> bool:
    """Does a text whose first bytes quote no runner's log quote one further on (up to
    QUOTE_SCAN)? A log of commands still goes to the episode reader."""
    said = text.decode("utf-8", "replace")
    return not COMMAND_LOG.search(said) and _quotes_a_log(said.splitlines())


def _quotes_a_log(lines: list[str]) -> bool:
    """Does this text quote a runner's log wherever it sits (a failure report with the
    run's failing lines at its end)? A conversation that quotes one (speakers' turns, an
    aider history) is read as the conversation it is."""
    first = next((line for line in lines if line.strip()), "")
    if aider.starts(first) or any(ROLE_RE.match(line) for line in lines):
        return False
    return quoted_log(lines)


def _timed_out(found: list[Failure], limits: dict[str | None, str]) -> None:
    """A step cancelled in a job the runner then says ran out of time (it writes so after
    the step): the job timed out; cancelled while busy, that is the failure, not a
    cascade."""
    for item in found:
        job = item.jobs[0] if item.jobs else None
        if item.stopped and not item.timed_out and job in limits:
            item.cascade = item.busy = False
            item.stopped, item.timed_out = limits[job], True
            item.note = stop_note(item)


def _cut_off(listed: list[Step]) -> set[int]:
    """The steps (by first line) that failed though the log shows no verdict for them: a
    job's steps copied without the runner's own (``gh run view --log-failed``, or an excerpt
    of it) whose last step was cut before its ``##[error]``, and whose output holds a tool's
    error at a place in the project (a compiler's). A job shown whole (its ``Set up job``)
    that ends without a verdict passed."""
    whole = {step.job for step in listed if step.setup}
    last = {step.job: step for step in listed if step.job is not None}
    return {step.first for job, step in last.items()
            if job not in whole and not step.failed and not step.marked
            and any(d.kind == "error" and d.where for d in diagnostics(list(step.output)))}


def _says_more(item: Failure, than: Failure) -> bool:
    """Does ``item`` tell the same cause with more: a place, or notes, where ``than``'s
    telling has none?"""
    if item.main is None or than.main is None:
        return False
    return (bool(item.main.where), len(item.main.notes)) > (bool(than.main.where),
                                                             len(than.main.notes))


def _named(item: Failure, cascades: list[Failure]) -> bool:
    """Does a status job's words name ``item``'s job (``❌ Security check failed`` for
    ``Security Check / security``)?"""
    words = {word for job in item.jobs for word in WORD.findall(job.lower())}
    return any(words & set(WORD.findall(" ".join(cascade.peers).lower()))
               for cascade in cascades if cascade.reported)


def _legs(real: list[Failure], cascades: list[Failure]) -> None:
    """The legs of a failed job's matrix the runner cancelled while they ran (fail-fast):
    said with the failure of the same matrix, as its cascade."""
    for cascade in cascades:
        if not cascade.busy or not cascade.jobs or cascade.stopped is None:
            continue
        job = cascade.jobs[0]
        same = next((item for item in real for other in item.jobs
                     if other != job and matrix(other) == matrix(job) != job), None)
        if same is not None and job not in (leg for leg, _ in same.legs):
            same.legs.append((job, cascade.stopped))


def _merge(failures: list[Failure]) -> list[Failure]:
    merged: dict[tuple[str | None, str], Failure] = {}
    for item in failures:
        same = merged.get(item.key)
        if same is None:
            merged[item.key] = item
        else:
            same.jobs += [j for j in item.jobs if j not in same.jobs]
            same.last = max(same.last, item.last)
            if _says_more(item, same):  # (one leg printed the panic under the error)
                same.main, same.also = item.main, item.also
    return list(merged.values())


def read(lines: Iterable[tuple[int, str]], head: bytes) -> tuple[list[Candidate], int]:
    """The memories a CI log holds (its failures, each with its diagnosis), and how many
    steps it has."""
    counted = [0]
    found = list(candidates(lines, head, counted))
    return found, counted[0]


def candidates(lines: Iterable[tuple[int, str]], head: bytes,
               counted: list[int] | None = None) -> Iterator[Candidate]:
    """The memories a CI log holds: its failures, each with its diagnosis."""
    plain = not looks_like_ci(head)
    found: list[Failure] = []
    limits: dict[str | None, str] = {}
    before: Step | None = None
    warned: dict[str, tuple[list[str], int, str]] = {}
    tools: dict[str, Warned] = {}  # what the tools of its passing steps warned about
    unmarked: list[Failure] = []  # read as plain output: kept if the log has no marks at all
    last: dict[str, Failure] = {}  # each job's last failure
    marked = False
    failed = False  # a step failed, whether or not its cause could be read
    outer = CHECKOUT.set(None)
    try:
        listed = list(steps(lines))
        cut_off = _cut_off(listed) if not plain else set()
        for step in listed:
            CHECKOUT.set(step.home)  # the paths it prints, cut to the project's
            if counted is not None:
                counted[0] += 1
            if before is not None and before.job != step.job:
                before = None
            limit = next((e for e in step.errors if TIME_LIMIT.search(e.text)), None)
            if limit is not None:
                limits[step.job] = limit.text.rstrip(".")
            # a stamped log without any of the runner's marks (a deploy platform's build log)
            # is plain output: read whole when it holds diagnostics
            marked = marked or step.marked
            failed = failed or (step.failed and step.ours)
            bare = plain or (step.job is None and not step.marked)
            # plain output: one failure per tool; a failing step copied from a run's page
            # with other steps' output under its verdict: one per tool with causes of its own
            split = bare and step.failed
            kinds = (tools_apart(step) if split else shapes(step))[:MEMORIES_PER_LOG] \
                if bare else []
            cut = step.first in cut_off
            items = [failure(step, bare, kind, n == 0, split=split)
                     for n, kind in enumerate(kinds)] \
                if len(kinds) > 1 else [failure(step, bare or cut, before=before)]
            for item in items:
                if item is not None and len(found) + len(unmarked) < MAX_FAILURES:
                    (found if plain or step.marked or cut else unmarked).append(item)
                    if step.job is not None and not item.cascade:
                        last[step.job] = item
            after = last.get(step.job) if step.job is not None else None
            if after is not None and after.then is None and step.warned and not step.failed:
                # a step that ran after the failure (``if: always()``) and found nothing to do
                name = f"'{step.name}'" if step.name else f"`{step_command(step) or 'the next'}`"
                after.then = f"After it, step {name} warned: {step.warned[0].text.rstrip('.')}."
            if not step.setup:
                before = step
                gather(tools, step, step_command(step))
            for warning in step.warnings:
                key = Diagnostic(warning.text, warning.number).key
                jobs = warned.setdefault(key, ([], warning.number, warning.text))[0]
                if step.job and step.job not in jobs:
                    jobs.append(step.job)
    finally:
        CHECKOUT.reset(outer)
    if not marked:
        found += unmarked
    _timed_out(found, limits)
    # a job told to fail by the workflow, beside a real failure, is that failure's echo
    told = [f for f in found if f.canned and not f.cascade]
    if len(told) < len([f for f in found if not f.cascade]):
        for item in told:  # said as such beside the real failure, never its cause
            item.cascade = True
    real = _merge([f for f in found if not f.cascade])
    cascades = [f for f in found if f.cascade]
    _legs(real, cascades)
    if not real:
        real, cascades = [f for f in cascades if f.peers], []
    if not found:
        if not failed:  # a green run: what the runner and the tools warned about
            runner = list(runner_warnings(warned))
            yield from runner
            yield from tools_warned(list(tools.values()), True, MEMORIES_PER_LOG - len(runner))
        return  # a failure whose cause the log does not show is no "passed"
    kept = real[:MEMORIES_PER_LOG]
    # the cascades are said once, beside the first failure they fit with in a memory
    # (a status job that named the job it found failed goes with that job's failure)
    beside = next((n for n, item in enumerate(kept) if _named(item, cascades)
                   and len(statement(item, cascades)) <= ROOM), None)
    if beside is None:
        beside = next((n for n, item in enumerate(kept)
                       if len(statement(item, cascades)) <= ROOM), 0)
    for number, item in enumerate(kept):
        text = statement(item, cascades if number == beside else [])
        files = tuple(POSITION.sub("", d.where) for d in (item.main, *item.also)
                      if d is not None and d.where and d.kind != "test")
        yield Candidate("CIFailure", item.first, item.last, "en", text,
                        commands=(item.command,) if item.command else (),
                        files=tuple(dict.fromkeys(files)), veracity="tool")
    # the failures told first, the tools' warnings in the room they left
    yield from tools_warned(list(tools.values()), False, MEMORIES_PER_LOG - len(kept))

