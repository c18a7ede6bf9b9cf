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
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.cidiag import diagnostics
from memx_cli.reflector.cipaths import ABSOLUTE, CHECKOUT
from memx_cli.reflector.cishapes import EXIT_SAID, SUMMARY
from memx_cli.reflector.cisteps import Step, steps, structured
from memx_cli.reflector.citools import Diagnostic, exited, last_words, script_runs, skipped, spoken
from memx_cli.reflector.ciwarn import Warned, gather, ranked

# the runner's verdict on a step (GitHub) or a job (GitLab) that names only its exit code
EXIT = re.compile(r"^(?:Process completed with|Job failed:) exit code (\d+)\.?$")
CANCELLED = re.compile(r"\bcancel+ed\b", re.IGNORECASE)
TIME_LIMIT = re.compile(r"exceeded the maximum execution time|^Job failed: execution took longer than",
                        re.IGNORECASE)
BECAUSE_OTHER = re.compile(r"because .{1,200} failed", re.IGNORECASE)
RESULT = re.compile(r"^\s*(?P<name>[\w][\w .()/&:-]{0,60}?):\s*"
                    r"(?P<result>success|failure|failed|cancelled|canceled|skipped)\s*$",
                    re.IGNORECASE)
POSITION = re.compile(r"(?::\d+)+$")
SILENT = 300  # seconds without output before a cancel: the command hung
MAX_FAILURES = 20
MEMORIES_PER_LOG = 4
WARNINGS_PER_LOG = 2
TOOL_WARNINGS = 2  # what a run's tools warned about its build, at most, the most specific first
SHELL_NOISE = re.compile(r"^(?:#|echo\b|printf\b|cd\b|source\b|\.\s|export\b|set\b|exit\b|"
                         r"return\b|if\b|elif\b|for\b|while\b|case\b|\[\[?\s|fi$|done$|"
                         r"else$|then$|esac$|true$|:$|[{}()]$|[A-Za-z_]\w*=)")
CD_THEN = re.compile(r"^cd\s+\S+\s*&&\s*")  # `cd DIR && cmd` runs cmd: it is no mere cd
BRANCH = re.compile(r"^\s*(?:if|for|while|until|case|function)\b|\|\|\s*\{|&&\s*\{|\bthen$")
# an assignment from a command substitution runs the command and exits with its status
SUBSTITUTED = re.compile(r"^[A-Za-z_]\w*=[\"']?\$\(")
PLAIN_COMMAND = 3  # script lines that are worth naming as the step's command
# the causes one tool's format names; a traceback names no tool (the run that crashed is
# whatever ran last), so it stays with the first cause as before
SPLIT = ("error", "test", "permission")
MISSING = re.compile(r"\b404\b|\bnot found\b", re.IGNORECASE)
URL = re.compile(r"https?://[^\s'\"<>]+")
DANGLING = re.compile(r"(?:^|(?<=\.))[^.]*:\s*$")
UNSAID = ("failed", "test failed")  # a failing test's verdict when it printed nothing else
LAST_WORDS = 12  # a warning is the cause only among a failing step's last output lines
ROOM = 490  # under the default memory length (ace.reflector.max_content_length)
MIN_ALSO = 60  # an other cause clipped shorter than this says too little to add
QUOTED = re.compile(r"'[^'\s]{1,80}'")
SCRIPT_ECHO_LINES = 40  # a package manager echoes the script it runs at the step's start
MIN_RESTATED = 20  # the words after an other cause's last label, to count as a repeat


@dataclass
class Failure:
    jobs: list[str]
    step: str | None
    command: str | None
    first: int
    last: int
    main: Diagnostic | None = None
    count: int = 0
    tests: int = 0
    also: list[Diagnostic] = field(default_factory=list)
    note: str | None = None
    cascade: bool = False
    busy: bool = False  # cancelled while still writing output
    stopped: str | None = None  # the runner's word when it cancelled the step
    timed_out: bool = False
    quiet: str | None = None  # how long it was silent before
    peers: list[str] = field(default_factory=list)  # an aggregate's failed jobs
    earlier: tuple[Step, Diagnostic] | None = None  # a step before it printed the cause
    canned: bool = False  # its script only prints words and exits: a report by design
    test: str | None = None  # the one test the cause failed, when the runner repeats it
    runs: str | None = None  # what the package script it ran stands for
    then: str | None = None  # what a later step of the job warned of, after the failure
    code: int | None = None  # the exit code the runner's verdict names
    coded: bool = False  # worth saying: a wrapper in the step relayed it, or it says why
    skipped: list[str] = field(default_factory=list)  # targets the runner left out, and why

    @property
    def key(self) -> tuple[str | None, str]:
        return self.step, self.main.key if self.main else (self.note or "")


COMMAND_LOG = re.compile(r"^(?:\$ |\[exit \d+\]$)", re.MULTILINE)
# Gradle's header of each task it runs, with the task's outcome when it did no work
BUILD_TASK = re.compile(r"^> Task :[\w:.-]+(?: [A-Z][A-Z-]+)?\s*$")
BUILD_TASKS = 3  # task headers that make the input a build's console, not a note about one


def looks_like_ci(head: bytes) -> bool:
    text = head.decode("utf-8", "replace")
    return structured(text.splitlines()[:200])


def _build_console(head: bytes) -> bool:
    """Is this a build tool's console saved as it was (a local Gradle run kept as
    evidence): its own task headers among the first lines?"""
    lines = head.decode("utf-8", "replace").splitlines()[:200]
    return sum(1 for line in lines if BUILD_TASK.match(line.strip("\ufeff"))) >= BUILD_TASKS


def reads(head: bytes, source: str | None) -> bool:
    """Is this input read as a CI log: a runner's log, a build tool's console, or a
    tool's output given as one? A log of commands (``$ cmd`` … ``[exit 1]``) goes to the
    episode reader instead: it can hold the rerun that fixed the failure."""
    if looks_like_ci(head) or _build_console(head):
        return True
    return source == "ci" and not COMMAND_LOG.search(head.decode("utf-8", "replace"))


def _command(step: Step) -> str | None:
    """The command that failed, when the script says it: with ``bash -e`` the last command
    of a straight script; a script with branches could have stopped anywhere. A runner
    that echoes each command before running it (GitLab's ``$ cmd``) says which one."""
    if step.ran is not None:
        return step.ran[:200]
    if any(BRANCH.search(line) for line in step.script):
        # a script with branches that runs one program, its output kept in a variable
        # (``OUT="$(gofmt -l .)"``: with ``bash -e`` the assignment fails with it), failed
        # in it or on what it printed
        runs = [line.strip() for line in step.script
                if SUBSTITUTED.match(line.strip()) or not (
                    not line.strip() or BRANCH.search(line)
                    or SHELL_NOISE.match(CD_THEN.sub("", line.strip())))]
        return runs[0][:200] if len(runs) == 1 else None
    meaningful = [line.strip() for line in step.script
                  if line.strip() and not SHELL_NOISE.match(CD_THEN.sub("", line.strip()))]
    if not meaningful or len(meaningful) > PLAIN_COMMAND + 3:
        return None
    return meaningful[-1][:200]


CANNED_SAY = re.compile(r"^(?:echo|printf)\b")
CANNED_EXIT = re.compile(r"^exit\s+[1-9]\d*\s*;?$")


def _canned(step: Step) -> bool:
    """The step's script only prints its own words and exits non-zero (``echo "❌ coverage
    not met"``, then ``exit 1``): the job was told to fail, by a condition of the workflow
    on other jobs' results, and what it printed is its author's message, not a tool's
    finding."""
    lines = [line.strip() for line in step.script if line.strip()]
    return (len(lines) >= 2 and bool(CANNED_EXIT.match(lines[-1]))
            and all(CANNED_SAY.match(line) for line in lines[:-1]))


def _aggregate(step: Step) -> list[str] | None:
    """The jobs a status job reports as failed, when reporting them is all it does."""
    results = [RESULT.match(line.text) for line in step.output]
    said = [hit for hit in results if hit]
    if len(said) < 2:
        return None
    failed = [hit.group("name").strip() for hit in said
              if hit.group("result").lower() in ("failure", "failed")]
    return failed or None


def _silence(step: Step, cancel_at: float | None) -> str | None:
    spoken = [line for line in step.output if line.text.strip() and line.at is not None]
    if not spoken or cancel_at is None:
        return None
    quiet = cancel_at - (spoken[-1].at or cancel_at)
    if quiet < SILENT:
        return None
    return (f"no output for {round(quiet / 60)} min before the cancel; its last line was "
            f"'{spoken[-1].text.strip()[:120]}': the command never finished")


def _fetched(step: Step, before: int) -> str | None:
    """What the step was fetching when it was told "404" / "not found": the file named by
    the last address it printed before that."""
    for line in reversed(step.output):
        if line.number >= before:
            continue
        hit = URL.search(line.text)
        if hit is not None:
            name = hit.group(0).split("?")[0].rstrip("/.").rsplit("/", 1)[-1]
            return name[:120] or None
    return None


def shapes(step: Step) -> list[str]:
    """The tool formats of the causes in plain output: a saved run of several tools
    (cargo, ruff, pip, a script) holds one cause per tool."""
    seen: list[str] = []
    for d in diagnostics(list(step.output)):
        if d.kind in SPLIT and d.shape not in seen:
            seen.append(d.shape)
    return seen


def _earlier(before: Step | None) -> Diagnostic | None:
    """The error a passing step printed: read only when the failing step after it said
    nothing of its own (a ``uv`` error swallowed by a pipe, then ``$GITHUB_OUTPUT``
    refusing the value that step wrote)."""
    if before is None or before.setup or before.failed:
        return None
    causes = [d for d in diagnostics(list(before.output))
              if d.kind in ("error", "crash", "permission")]
    return causes[0] if causes else None


def failure(step: Step, plain: bool, shape: str | None = None,
            first: bool = True, before: Step | None = None) -> Failure | None:
    """The failure of one step, if it failed (of one tool's diagnostics, for ``shape``);
    ``before`` is the job's step before it, read when this one printed no cause."""
    if step.setup or not (step.failed or plain):
        return None
    job = [step.job] if step.job else []
    found = Failure(job, step.name, _command(step), step.first, step.last,
                    canned=_canned(step))
    found.runs = script_runs(found.command, list(step.output)[:SCRIPT_ECHO_LINES])
    said = diagnostics(list(step.output))
    if shape is not None:
        said = [d for d in said if d.shape == shape or (first and d.kind not in SPLIT)]
    # a tool's warning says why only when it is among the step's last words (composer
    # stopping on an out-of-date lock file), not a warning printed on the way
    tail = step.output[-LAST_WORDS].number if len(step.output) >= LAST_WORDS else 0
    said = [d for d in said if d.kind != "warning" or d.number >= tail]
    printed = [d for d in said if d.kind not in ("summary", "warning")]
    verdicts = []  # the runner's own words: a tool's diagnostic it annotated is none
    for error in step.errors:  # (a type union naming "CANCELLED" cancels nothing)
        told = diagnostics([error])
        if not told and (CANCELLED.search(error.text) or TIME_LIMIT.search(error.text)):
            verdicts.append(error)
        elif (ended := EXIT.match(error.text)) is not None:
            found.code = int(ended.group(1))
        else:
            said.extend(told or [Diagnostic(
                error.text[:220], error.number,  # a verdict restating the tool's is no cause
                "summary" if SUMMARY.search(error.text) else "error")])
    cancel = verdicts[0] if verdicts else None
    if cancel is not None:
        if BECAUSE_OTHER.search(cancel.text):
            found.cascade = True
            return found
        timed_out = bool(TIME_LIMIT.search(cancel.text))
        found.stopped, found.timed_out = cancel.text.rstrip("."), timed_out
        found.quiet = _silence(step, cancel.at)
        found.note = _stopped(found)
        if not found.quiet and not timed_out and not printed:
            found.cascade = True  # stopped while busy: fail-fast or by hand, unless the
            found.busy = True     # job's time ran out (the runner says so after the step)
            return found
    peers = _aggregate(step)
    if peers is not None and not printed:  # it printed results, no error of its own
        found.cascade, found.peers = True, peers
        return found
    causes = [d for d in said if d.kind in ("error", "crash", "test", "permission")]
    # a wrapper that ran the failing command said which exit code it passed on (``Job 94c0
    # failed with exit code 255``): the code the step fails with comes from the wrapper
    found.coded = found.code not in (None, 0, 1) and any(  # 1 says only "failed"
        (relayed := EXIT_SAID.search(line.text.rstrip())) is not None
        and int(relayed.group("code")) == found.code for line in step.output)
    if not causes and step.failed and not printed:  # a program speaking in its own name
        causes = [Diagnostic(text, number) for number, text in spoken(list(step.output),
                                                                       step.script)][:3]
        if not causes:  # nor in its own name: the finding it ended on, if it ended on one
            causes = last_words(list(step.output))
        if not causes and (meant := exited(step.script, found.code)) is not None:
            # nor that: what its exit code means for the one program that documents it
            found.command = meant[0]  # (with ``bash -e`` the script stopped there)
            found.coded = True
            causes = [Diagnostic(meant[1], step.errors[-1].number)]
        said.extend(causes)
    if causes:
        keys = _spread(causes)
        # (a place outside the checkout, a wrapper script's own line, is none)
        placed = {d.key for d in causes if d.where and not ABSOLUTE.match(d.where)}
        crashed = {d.key for d in causes if d.kind == "crash"}
        # the error that hit the most files (the same undefined name used 38 times in one
        # file is one slip), then the most frequent; a line said again and again without
        # a place (a wait loop's ``curl: (7)``) is one cause, however often: a retry is a
        # symptom, and among equals a crash (the panic that left nothing to connect to)
        # comes first, then the first that names a place in the project (a runner's
        # closing "test failed" says less than the panic)
        top = max(keys, key=lambda k: (keys[k][0], keys[k][1] if k in placed else 1,
                                       k in crashed, k in placed, keys[k][1]))
        group = [d for d in causes if d.key == top]
        found.main = next((d for d in group if d.where and d.kind != "test"), group[0])
        if found.main.kind == "test":
            found.main = next((d for d in group if d.kind != "test"), found.main)
        found.count = len(group)
        found.tests = len({d.where for d in group if d.kind == "test"})
        if found.tests == 1 and found.main.kind != "test":  # the runner repeated its words
            found.test = next(d.where for d in group if d.kind == "test")
        seen = {top}
        # a crash or a coverage gate is a cause of its own; a test that printed no
        # words of its own ("failed") adds nothing to the cause above it
        ranked = sorted(said, key=lambda d: (d.kind == "summary",
                                             d.kind not in ("crash", "coverage"),
                                             # the others by how often, then how widely
                                             tuple(-n for n in keys.get(d.key, (0, 0))[::-1])))
        for d in ranked:
            if d.key not in seen and d.kind not in seen and d.kind != "summary" \
                    and d.key not in UNSAID and len(found.also) < 2:
                seen.add(d.key)
                if d.kind == "coverage":  # one gate, however many tools report it
                    seen.add(d.kind)
                found.also.append(d)
    elif said:
        found.main = next((d for d in said if d.kind != "summary"), said[0])
        found.count = 1
    if not printed and step.failed and not found.cascade and found.note is None \
            and (cause := _earlier(before)) is not None and before is not None:
        found.earlier = (before, cause)
    main = found.main
    if main is not None and not main.where and MISSING.search(main.message):
        fetched = _fetched(step, main.number)
        if fetched and fetched.lower() not in main.message.lower():
            main.notes.append(f"it was fetching {fetched}")
    if found.main is None and found.note is None and found.earlier is None:
        return None
    if found.main is not None:
        found.skipped = skipped(step.output)
    return found


def _spread(causes: list[Diagnostic]) -> dict[str, tuple[int, int]]:
    """For each cause's key: how many files (or tests) it hit, and how many times; the
    same words said again without a place (a retry loop's) hit one place."""
    places: dict[str, set[str]] = {}
    times: Counter[str] = Counter()
    for d in causes:
        places.setdefault(d.key, set()).add(POSITION.sub("", d.where) if d.where else "")
        times[d.key] += 1
    return {key: (len(where), times[key]) for key, where in places.items()}


def _stopped(item: Failure) -> str:
    said = f"{'timed out' if item.timed_out else 'was cancelled'} ('{item.stopped}')"
    return said + (f", with {item.quiet}" if item.quiet else "")


def _timed_out(found: list[Failure], limits: dict[str | None, str]) -> None:
    """A step cancelled in a job the runner then says ran out of time (it writes so after
    the step): the job timed out; cancelled while busy, that is the failure, not a
    cascade."""
    for item in found:
        job = item.jobs[0] if item.jobs else None
        if item.stopped and not item.timed_out and job in limits:
            item.cascade = item.busy = False
            item.stopped, item.timed_out = limits[job], True
            item.note = _stopped(item)


def _merge(failures: list[Failure]) -> list[Failure]:
    merged: dict[tuple[str | None, str], Failure] = {}
    for item in failures:
        same = merged.get(item.key)
        if same is None:
            merged[item.key] = item
        else:
            same.jobs += [j for j in item.jobs if j not in same.jobs]
            same.last = max(same.last, item.last)
    return list(merged.values())


def _quote(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def _restates(other: str, main: str) -> bool:
    """Does ``other`` repeat ``main``: whole, or the words after its last label
    (``Unhandled error: HttpError: Resource not accessible`` after the request's error)?"""
    said = other.lower().rstrip(".")
    last = said.rsplit(": ", 1)[-1]
    if said in main.lower() or (len(last) >= MIN_RESTATED and last in main.lower()):
        return True
    # the same words about another name ('debugPrint' isn't defined for 'A', for 'B')
    return QUOTED.sub("''", said) == QUOTED.sub("''", main.lower().rstrip("."))


def _statement(item: Failure, cascades: list[Failure]) -> str:
    if item.peers and item.main is None:
        return (f"CI job {_quote(item.jobs)} only aggregates other jobs' results and fails "
                f"when one of them failed (here: {', '.join(item.peers)}): the cause is in "
                "those jobs' logs.")
    where = []
    if item.jobs:
        where.append(f"CI job {_quote(item.jobs)}")
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
                + (f" (`{main.code[:120]}`)" if main.code else "")
        test = main.where if main.kind == "test" else item.test
        if item.tests == 1 and test and test.lower() not in said.lower():
            said = said.rstrip(".") + f" (test {test})"
        elif item.tests > 1:
            said += f" (in {item.tests} tests)"
        elif item.count > 1 and not item.tests:
            said += f" ({item.count} times)"
        if main.notes:
            said += " — " + "; ".join(main.notes)
        if item.skipped:
            said = said.rstrip(".") + ". The run skipped " + ", ".join(item.skipped)
        parts.append(said)
    if item.main is None and item.earlier is not None:
        parts.append(" failed without an error of its own")
    text = "".join(parts).rstrip(".:") + "."  # (a dangling colon announced nothing)
    for other in item.also:
        if item.main is not None and _restates(other.message, item.main.message):
            continue  # the runner repeating the tool's words
        place = f" at {other.where}" if other.where and other.kind != "test" else \
            f" (test {other.where})" if other.where and other.where not in other.message else ""
        notes = " — " + "; ".join(other.notes) if other.notes else ""
        # the other cause is clipped to the room the memory has left, not cut off whole
        room = ROOM - len(text) - len(" Also: ") - len(place) - len(notes) - 1
        if room < MIN_ALSO:
            break
        said = other.message if len(other.message) <= room else \
            other.message[:room - 1].rstrip() + "…"
        text += f" Also: {said.rstrip('.:')}{place}{notes}".rstrip(".") + "."
    if item.earlier is not None:
        before, cause = item.earlier
        command = _command(before)
        text += (f" The step '{before.name}'" if before.name else " The step before it") \
            + (f" (`{command}`)" if command else "") + f" had printed, and passed: {cause.message}"
        if cause.where and cause.kind != "test":
            text = text.rstrip(".:") + f" at {cause.where}"
        text = text.rstrip(".") + "."
    if item.then and len(text) + len(item.then) < ROOM:
        text += " " + item.then
    reports = [job for cascade in cascades if cascade.canned and not cascade.peers
               for job in cascade.jobs]
    if reports:
        names = list(dict.fromkeys(reports))
        text += (f" Jobs {_quote(names)} only echo a message of their own and exit non-zero: "
                 "reports the workflow runs, not findings (a cascade)." if len(names) > 1 else
                 f" Job {_quote(names)} only echoes a message of its own and exits non-zero: "
                 "a report the workflow runs, not a finding (a cascade).")
    for cascade in cascades:
        if cascade.peers:
            text += (f" Job {_quote(cascade.jobs)} only aggregates other jobs' results and "
                     f"failed because {', '.join(cascade.peers)} failed (a cascade).")
    return text


def _warned(warned: dict[str, tuple[list[str], int, str]]) -> Iterator[Candidate]:
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


def _tools_warned(warned: list[Warned], passed: bool, room: int) -> Iterator[Candidate]:
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
        for step in steps(lines):
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
            failed = failed or (step.failed and not step.setup)
            bare = plain or (step.job is None and not step.marked)
            kinds = shapes(step)[:MEMORIES_PER_LOG] if bare and not step.failed else []
            items = [failure(step, bare, kind, n == 0) for n, kind in enumerate(kinds)] \
                if len(kinds) > 1 else [failure(step, bare, before=before)]
            for item in items:
                if item is not None and len(found) + len(unmarked) < MAX_FAILURES:
                    (found if plain or step.marked else unmarked).append(item)
                    if step.job is not None and not item.cascade:
                        last[step.job] = item
            after = last.get(step.job) if step.job is not None else None
            if after is not None and after.then is None and step.warned and not step.failed:
                # a step that ran after the failure (``if: always()``) and found nothing to do
                name = f"'{step.name}'" if step.name else f"`{_command(step) or 'the next'}`"
                after.then = f"After it, step {name} warned: {step.warned[0].text.rstrip('.')}."
            if not step.setup:
                before = step
                gather(tools, step, _command(step))
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
    if not real:
        real, cascades = [f for f in cascades if f.peers], []
    if not found:
        if not failed:  # a green run: what the runner and the tools warned about
            runner = list(_warned(warned))
            yield from runner
            yield from _tools_warned(list(tools.values()), True, MEMORIES_PER_LOG - len(runner))
        return  # a failure whose cause the log does not show is no "passed"
    kept = real[:MEMORIES_PER_LOG]
    # the cascades are said once, beside the first failure they fit with in a memory
    beside = next((n for n, item in enumerate(kept)
                   if len(_statement(item, cascades)) <= ROOM), 0)
    for number, item in enumerate(kept):
        text = _statement(item, cascades if number == beside else [])
        files = tuple(POSITION.sub("", d.where) for d in (item.main, *item.also)
                      if d is not None and d.where and d.kind != "test")
        yield Candidate("CIFailure", item.first, item.last, "en", text,
                        commands=(item.command,) if item.command else (),
                        files=tuple(dict.fromkeys(files)), veracity="tool")
    # the failures told first, the tools' warnings in the room they left
    yield from _tools_warned(list(tools.values()), False, MEMORIES_PER_LOG - len(kept))
