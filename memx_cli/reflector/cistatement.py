"""How a CI log's findings are said: a failure's memory (which job and step, running what,
the cause, where, how many times, what else it reported, the cascades beside it), and the
warnings of a green run's runner and tools (issue 24)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.cifailure import URL, Failure, matrix, restates, step_command
from memx_cli.reflector.ciwarn import Warned, ranked

WARNINGS_PER_LOG = 2
TOOL_WARNINGS = 2  # what a run's tools warned about its build, at most, the most specific first
DANGLING = re.compile(r"(?:^|(?<=\.))[^.]*:\s*$")
ROOM = 490  # under the default memory length (ace.reflector.max_content_length)
RULE_TAG = re.compile(r" \((?:@[\w.-]+/)?[\w:-]+(?:/[\w-]+)?\)$")  # ``(gocognit)``, ``(E501)``
MIN_ALSO = 60  # an other cause clipped shorter than this says too little to add
MATRIX_LEGS = 3  # legs of one matrix said by its name once (two names are still short)


def _clipped(message: str, room: int) -> str:
    """``message`` cut to ``room`` characters, keeping the rule a linter closes it with
    (``… is high (> 30) (gocognit)``): the rule names the cause."""
    tag = RULE_TAG.search(message)
    kept = tag.group(0) if tag is not None and len(tag.group(0)) < room // 2 else ""
    cut = room - 1 - len(kept)
    return message[:len(message) - len(kept)][:cut].rstrip() + "…" + kept


def _legs(item: Failure) -> str:
    if not item.legs:
        return ""
    names = [job for job, _ in item.legs]
    said = item.legs[0][1].rstrip(".")
    return (f" Its matrix {'legs' if len(names) > 1 else 'leg'} {_quote(names)}: '{said}' "
            "while running (a cascade).")


def _quote(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def _jobs(names: list[str]) -> str:
    """The jobs a failure hit, three or more legs of one matrix said by its name once with
    their values (``'E2E' in 6 matrix legs (ubuntu-latest, macos-latest; 3.10, 3.11,
    3.12)``): the name said again and again would crowd the causes out of the memory."""
    legs: dict[str, list[str]] = {}
    for name in names:
        legs.setdefault(matrix(name), []).append(name)
    said = []
    for base, group in legs.items():
        if len(group) < MATRIX_LEGS or base in group:
            said.append(_quote(group))
            continue
        values = [tuple(v.strip() for v in name[len(base):].strip()[1:-1].split(","))
                  for name in group]
        axes = [list(dict.fromkeys(v[n] for v in values)) for n in range(len(values[0]))] \
            if len({len(v) for v in values}) == 1 else []
        crossed = bool(axes) and math.prod(len(axis) for axis in axes) == len(set(values))
        told = "; ".join(", ".join(axis) for axis in axes) if crossed else \
            "; ".join(", ".join(v) for v in values)
        said.append(f"'{base}' in {len(group)} matrix legs ({told})")
    return ", ".join(said)


def statement(item: Failure, cascades: list[Failure], quote: bool = True) -> str:
    """``item`` said, with ``cascades`` beside it; the code line its cause quotes gives way
    to an other cause the room would leave out."""
    if item.peers and item.reported and item.main is None:
        return (f"CI job {_quote(item.jobs)} only compares other jobs' results and fails when "
                f"one of them failed (here it said {_quote(item.peers)}): the cause is in "
                "those jobs' logs.")
    if item.peers and item.main is None:
        return (f"CI job {_quote(item.jobs)} only aggregates other jobs' results and fails "
                f"when one of them failed (here: {', '.join(item.peers)}): the cause is in "
                "those jobs' logs.")
    where = []
    if item.jobs:
        where.append(f"CI job {_jobs(item.jobs)}")
    if item.step:
        where.append(f"step '{item.step}'")
    head = ", ".join(where) or "The log"
    if item.command:
        head += f" (`{item.command}`" + (f", which runs `{item.runs}`" if item.runs else "") + ")"
    parts = [head]
    if item.note:
        parts.append(f" {item.note}")
    if item.main is not None:
        main = item.main
        verb = (" failed" if where else " reports") if not item.note else "; before that"
        if verb == " failed" and item.coded:
            verb += f" with exit code {item.code}"
        said = f"{verb}: {main.message}"
        if main.where and main.kind != "test":
            said = said.rstrip(".:") + f" at {main.where}" \
                + (f" (`{main.code[:120]}`)" if main.code and quote else "")
        test = main.where if main.kind == "test" else item.test
        if item.tests == 1 and test and test.lower() not in said.lower():
            said = said.rstrip(".") + f" (test {test})"
        elif item.tests > 1:
            # the file all the tests are in, when the cause has no place of its own
            placed = main.where and main.kind != "test"
            suite = item.suite if item.suite and not placed and item.suite not in said else None
            said += f" (in {item.tests} tests" + (f" of {suite}" if suite else "") + ")"
        elif item.count > 1 and not item.tests:
            said += f" ({item.count} times)"
        if item.renamed:
            said = said.rstrip(".") + f"; the same for {', '.join(item.renamed)}"
        if main.notes:
            said += " — " + "; ".join(main.notes)
        if item.skipped:
            said = said.rstrip(".") + ". The run skipped " + ", ".join(item.skipped)
        parts.append(said)
    if item.main is None and item.earlier is not None:
        parts.append(" failed without an error of its own")
    text = "".join(parts).rstrip(".:") + "."  # (a dangling colon announced nothing)
    legs = _legs(item)  # (said last, in the room the other causes leave it)
    for other in item.also:
        if item.main is not None and restates(other.message, item.main.message):
            continue  # the runner repeating the tool's words
        place = f" at {other.where}" if other.where and other.kind != "test" else \
            f" (test {other.where})" if other.where and other.where not in other.message else ""
        # (a note the cause already said, the flag that made every lint an error, is not
        # said again)
        fresh = [n for n in other.notes if item.main is None or n not in item.main.notes]
        notes = " — " + "; ".join(fresh) if fresh else ""
        # the other cause is clipped to the room the memory has left, not cut off whole
        room = ROOM - len(text) - len(" Also: ") - len(place) - len(notes) - len(legs) - 1
        if room < MIN_ALSO:
            if quote and item.main is not None and item.main.code:
                return statement(item, cascades, quote=False)
            break
        said = other.message if len(other.message) <= room else _clipped(other.message, room)
        text += f" Also: {said.rstrip('.:')}{place}{notes}".rstrip(".") + "."
    if item.earlier is not None:
        before, cause = item.earlier
        command = step_command(before)
        text += (f" The step '{before.name}'" if before.name else " The step before it") \
            + (f" (`{command}`)" if command else "") + f" had printed, and passed: {cause.message}"
        if cause.where and cause.kind != "test":
            text = text.rstrip(".:") + f" at {cause.where}"
        text = text.rstrip(".") + "."
    if item.then and len(text) + len(item.then) < ROOM:
        text += " " + item.then
    text += legs
    reports = [job for cascade in cascades if cascade.canned and not cascade.peers
               for job in cascade.jobs]
    if reports:
        names = list(dict.fromkeys(reports))
        text += (f" Jobs {_quote(names)} only echo a message of their own and exit non-zero: "
                 "reports the workflow runs, not findings (a cascade)." if len(names) > 1 else
                 f" Job {_quote(names)} only echoes a message of its own and exits non-zero: "
                 "a report the workflow runs, not a finding (a cascade).")
    for cascade in cascades:
        if cascade.peers and cascade.reported:
            text += (f" Job {_quote(cascade.jobs)} only compares other jobs' results and "
                     f"failed saying {_quote(cascade.peers)} (a cascade).")
        elif cascade.peers:
            text += (f" Job {_quote(cascade.jobs)} only aggregates other jobs' results and "
                     f"failed because {', '.join(cascade.peers)} failed (a cascade).")
    return text


def runner_warnings(warned: dict[str, tuple[list[str], int, str]]) -> Iterator[Candidate]:
    """A green run's lesson, if any: the runner's own warnings about the workflow (a
    deprecated runtime of its actions, a runner image going away), once for all jobs."""
    for jobs, first, text in list(warned.values())[:WARNINGS_PER_LOG]:
        said = " ".join(URL.sub("", text).split())
        said = DANGLING.sub("", said) or said  # "see:" that led to the address
        said = said if len(said) <= 300 else said[:299].rstrip() + "…"
        head = f"CI job {_quote(jobs)}" if jobs else "The CI run"
        yield Candidate("Fact", first, first, "en",
                        f"{head} passed, and the runner warned: {said.rstrip('.')}.",
                        veracity="tool")


def _shared(commands: list[str | None]) -> str | None:
    """The words a matrix's commands share (``vitest run --shard=2/5``, ``--shard=3/5``)."""
    if not commands or None in commands:
        return None
    words = [str(c).split() for c in commands]
    shared = [w[0] for w in zip(*words, strict=False) if len(set(w)) == 1]
    if len(shared) < 2 or shared != words[0][:len(shared)]:
        return None
    return " ".join(shared) + " …"


def _steps_said(places: list[tuple[str | None, str | None, str | None]]) -> tuple[str, str]:
    """(the jobs, the steps with the command when one step said it) of a warning."""
    jobs = list(dict.fromkeys(job for job, _, _ in places if job))
    names = list(dict.fromkeys(name for _, name, _ in places if name))
    commands = list(dict.fromkeys(c for _, _, c in places))
    command = commands[0] if len(commands) == 1 else _shared(commands)
    where = f"step {_quote(names)}" + (f" (`{command}`)" if command else "") \
        if len(names) == 1 else f"steps {_quote(names)}" if names else \
        f"step `{command}`" if command else "steps"
    return (f"CI job {_quote(jobs)}" if jobs else "The CI run"), where


def tools_warned(warned: list[Warned], passed: bool, room: int) -> Iterator[Candidate]:
    """What the run's tools warned about its build (a deprecation, a configuration), the
    most specific first: at most TOOL_WARNINGS, and past that those about a file of the
    project, in the room the log's other memories left (in a failing run, after its
    failures)."""
    for item in ranked(warned, room, passed, TOOL_WARNINGS):
        jobs, where = _steps_said(item.steps)
        said = item.said().rstrip(".")
        if item.where and item.where not in said:
            said += f" (at {item.where})" if item.placed else f" (in {item.where})"
        if item.inputs:
            said += f"; from {', '.join(item.inputs[:3])}"
        times = f" ({item.count} times)" if item.count > len(item.steps) \
            and item.kind != "package" else ""
        text = (f"{jobs} passed; its {where} warned{times}: {said}." if passed else
                f"Besides the failure, {jobs}, {where} warned{times}: {said}.")
        files = (item.where.split(":")[0],) if item.where and item.placed else ()
        yield Candidate("Fact", item.number, item.number, "en", text, files=files,
                        veracity="tool")

