"""One failing step of a CI log (issue 24): the command it ran, read from its script; its
diagnostics grouped by key and the cause chosen among them (the error that hit the most
files, then the most frequent) with the others it also reported; the runner's verdict
(an exit code, a cancel, a time limit); or why it is a cascade, not a failure of its own.
``cilog`` gathers the failures of a log, ``cistatement`` says each."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from memx_cli.reflector.cidiag import diagnostics
from memx_cli.reflector.cipaths import ABSOLUTE, in_words
from memx_cli.reflector.cishapes import CARGO_RUNNING, EXIT_SAID, SUMMARY
from memx_cli.reflector.cisteps import UI_RUN, Line, Step
from memx_cli.reflector.citools import (
    Diagnostic,
    drifted,
    exited,
    goal_failed,
    last_words,
    script_runs,
    skipped,
    spoken,
)

# the runner's verdict on a step (GitHub) or a job (GitLab) that names only its exit code
# the runner's verdict on a step's exit code (Actions, GitLab; Azure Pipelines' script
# task: ``Bash exited with code '1'.``)
EXIT = re.compile(r"^(?:(?:Process completed with|Job failed:) exit code (\d+)|"
                  r"(?:Bash|PowerShell|Cmd(?:\.exe)?|pwsh) exited with code '(\d+)')\.?$")
CANCELLED = re.compile(r"\bcancel+ed\b", re.IGNORECASE)
# the runner's time limit on a job (Actions, GitLab) or on one step (Actions' step
# ``timeout-minutes``: ``The action 'NAME' has timed out after 150 minutes.``)
TIME_LIMIT = re.compile(r"exceeded the maximum execution time|^Job failed: execution took longer than|"
                        r"^The action '.{1,200}' has timed out after \d+ minutes?\b", re.IGNORECASE)
BECAUSE_OTHER = re.compile(r"because .{1,200} failed", re.IGNORECASE)
RESULT = re.compile(r"^\s*(?P<name>[\w][\w .()/&:-]{0,60}?):\s*"
                    r"(?P<result>success|failure|failed|cancelled|canceled|skipped)\s*$",
                    re.IGNORECASE)
POSITION = re.compile(r"(?::\d+)+$")
# the rule a finding names: its code first (ruff's ``F401``, tsc's ``error TS2339:``) or a
# linter's tag last (golangci-lint's ``(gocognit)``, the Dart analyzer's ``(undefined_method)``)
RULE_NAMED = re.compile(r"^(?:error\s+)?(?P<rule>[A-Z]{1,4}\d{2,5})\b|\((?P<tag>[a-z][\w-]*)\)\s*$")
COLUMN = re.compile(r"^(?P<line>.+?:\d+):\d+$")  # a place's column, after its line
SILENT = 300  # seconds without output before a cancel: the command hung
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
GENERIC = ("other", "prefixed")  # shapes of no tool of their own (``Error: …``)
# a place in the project: a path with its folder, or a file with its line
PLACED = re.compile(r"[\w.-]+/[\w./-]*\.\w+|\.\w+:\d+")
MISSING = re.compile(r"\b404\b|\bnot found\b", re.IGNORECASE)
URL = re.compile(r"https?://[^\s'\"<>]+")
# a name the words of a cause are about: quoted, or the one word after its last label
# (Kotlin's ``Unresolved reference: musicUri``)
QUOTED = re.compile(r"'[^'\s]{1,80}'|(?<=: )[\w.$]{1,80}$")
RENAMED = 3  # the other names a cause is said about, at most
MIN_RESTATED = 20  # the words after an other cause's last label, to count as a repeat
UNSAID = ("failed", "test failed")  # a failing test's verdict when it printed nothing else
# a test runner's closing count with every test passing: pytest's (``352 passed, 3
# skipped, 6 warnings in 90.36s``, its ``=`` rule around it or not), Jest's and Vitest's
# ``Tests`` line; a count that opens with failures is no such line
ALL_PASSED = re.compile(
    r"^=*\s*(?P<py>\d+ passed(?:, \d+ (?:skipped|deselected|xfailed|xpassed|warnings?|errors?"
    r"|subtests passed))*) in [\d.]+m?s\b[^=]*=*\s*$|"
    r"^\s*Tests:?\s+(?P<js>\d+ passed(?:, \d+ (?:skipped|todo))*(?:, \d+ total| \(\d+\)))\s*$")
# the runner's annotation on the matrix legs a failed leg's fail-fast cancelled, as a run's
# page lists it
STRATEGY = re.compile(r'^The strategy configuration was canceled because "(?P<leg>[^"]{1,120})" failed\.?$')
MATRIX_VALUES = re.compile(r"\s*\([^()]{1,120}\)\s*$")  # ``Test (ubuntu-latest, 3.12)``
TEST_IN = re.compile(r" > |::")  # a test's id after its file: vitest's, pytest's
FILE_NAMED = re.compile(r"\.\w{1,5}$")
FIGURE = re.compile(r"\d+(?:\.\d+)?")
# a linter's count of its findings by level (ESLint's, stylelint's)
TALLY = re.compile(r"\b(?P<all>\d+) problems? \((?P<errors>\d+) errors?, "
                   r"(?P<warnings>\d+) warnings?\)")
LAST_WORDS = 12  # a warning is the cause only among a failing step's last output lines
SCRIPT_ECHO_LINES = 40  # a package manager echoes the script it runs at the step's start


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
    reported: bool = False  # its peers are the words it printed about them
    earlier: tuple[Step, Diagnostic] | None = None  # a step before it printed the cause
    canned: bool = False  # its script only prints words and exits: a report by design
    test: str | None = None  # the one test the cause failed, when the runner repeats it
    runs: str | None = None  # what the package script it ran stands for
    suite: str | None = None  # the one file all the cause's failed tests are in
    then: str | None = None  # what a later step of the job warned of, after the failure
    code: int | None = None  # the exit code the runner's verdict names
    coded: bool = False  # worth saying: a wrapper in the step relayed it, or it says why
    skipped: list[str] = field(default_factory=list)  # targets the runner left out, and why
    renamed: list[str] = field(default_factory=list)  # other names the same words were about
    # its matrix's legs the runner cancelled while they ran, with the runner's words
    legs: list[tuple[str, str]] = field(default_factory=list)

    @property
    def key(self) -> tuple[str | None, str]:
        return self.step, self.main.key if self.main else (self.note or "")


def matrix(job: str) -> str:
    """The job's name without its matrix values (``Lint (stable)``: ``Lint``)."""
    return MATRIX_VALUES.sub("", job).strip()


def step_command(step: Step) -> str | None:
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
# a test of two results the workflow wrote into the script (``${{ needs.x.result }}``)
RESULTS = r"\"(?:success|failure|cancelled|skipped)\""
COMPARED = re.compile(rf"^if \[\[? {RESULTS} [!=]=? {RESULTS} \]\]?;? ?(?:then)?$")


def _canned(step: Step) -> bool:
    """The step's script only prints its own words and exits non-zero (``echo "❌ coverage
    not met"``, then ``exit 1``): the job was told to fail, by a condition of the workflow
    on other jobs' results, and what it printed is its author's message, not a tool's
    finding."""
    lines = [line.strip() for line in step.script if line.strip()]
    return (len(lines) >= 2 and bool(CANNED_EXIT.match(lines[-1]))
            and all(CANNED_SAY.match(line) for line in lines[:-1]))


def _compared(step: Step) -> list[str] | None:
    """What a status job printed when its script only compares results the workflow wrote
    into it (``if [ "failure" != "success" ]; then echo "❌ Security check failed"; exit 1;
    fi``, once for each job it needs): its words say which job it found failed."""
    lines = [line.strip() for line in step.script if line.strip()]
    tests = sum(1 for line in lines if COMPARED.match(line))
    if tests < 2 or not all(COMPARED.match(line) or CANNED_SAY.match(line)
                            or CANNED_EXIT.match(line) or line == "fi" for line in lines):
        return None
    said = [line.text.strip() for line in step.output if line.text.strip()]
    return said[:2] or None


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


def tools_apart(step: Step) -> list[str]:
    """The tools of a failing step that holds several steps' output under one verdict (a
    run's page copied whole: a formatter's check beside the test run): each tool format
    that says a cause of its own, in the order the tools spoke. A line in no tool's own
    format (``Error: …`` relayed by the runner) belongs to the tool it repeats or follows. A tool only
    fails because another did when its every cause repeats an earlier tool's words, or
    when it speaks after all the others and names no place in the project (the script's
    closing ``❌ Tests failed``)."""
    said: dict[str, list[Diagnostic]] = {}
    for d in diagnostics(list(step.output)):
        if d.kind in SPLIT and d.shape not in GENERIC:
            said.setdefault(d.shape, []).append(d)
    kept: list[str] = []
    for shape, causes in said.items():
        earlier = [e.message for k in kept for e in said[k]]
        if not any(not any(restates(d.message, e) or restates(e, d.message) for e in earlier)
                   for d in causes):
            continue  # (an echo)
        others = [e.number for k, told in said.items() if k != shape for e in told]
        if others and min(d.number for d in causes) > max(others) and not any(
                PLACED.search(f"{d.where or ''} {d.message}") for d in causes):
            continue  # (a closing verdict on the others)
        kept.append(shape)
    return kept if len(kept) > 1 else []


def _owner(said: Diagnostic, tools: list[Diagnostic]) -> str | None:
    """The tool a line in no tool's format belongs to: the one whose words it repeats (the
    runner relaying the test's error), else the one that spoke last before it."""
    same = [d.shape for d in tools if restates(said.message, d.message)
            or restates(d.message, said.message)]
    before = [d.shape for d in tools if d.number < said.number]
    if same:
        return same[0]
    if before:
        return before[-1]
    return tools[0].shape if tools else None


def _earlier(before: Step | None) -> Diagnostic | None:
    """The error a passing step printed: read only when the failing step after it said
    nothing of its own (a ``uv`` error swallowed by a pipe, then ``$GITHUB_OUTPUT``
    refusing the value that step wrote)."""
    if before is None or before.setup or before.failed:
        return None
    causes = [d for d in diagnostics(list(before.output))
              if d.kind in ("error", "crash", "permission")]
    return causes[0] if causes else None


def failure(step: Step, plain: bool, shape: str | None = None, first: bool = True,
            before: Step | None = None, split: bool = False) -> Failure | None:
    """The failure of one step, if it failed (of one tool's diagnostics, for ``shape``;
    with ``split``, the lines in no tool's format go to the ``first`` tool); ``before`` is
    the job's step before it, read when this one printed no cause."""
    if not step.ours or not (step.failed or plain):
        return None
    job = [step.job] if step.job else []
    found = Failure(job, step.name, step_command(step), step.first, step.last,
                    canned=_canned(step))
    found.runs = script_runs(found.command, list(step.output)[:SCRIPT_ECHO_LINES])
    said = diagnostics(list(step.output))
    if shape is not None:
        tools = [d for d in said if d.kind in SPLIT and d.shape not in GENERIC] if split else []
        said = [d for d in said if d.shape == shape or (first and d.kind not in SPLIT)
                or (split and d.shape in GENERIC and _owner(d, tools) == shape)]
    # a tool's warning says why only when it is among the step's last words (composer
    # stopping on an out-of-date lock file), not a warning printed on the way
    tail = step.output[-LAST_WORDS].number if len(step.output) >= LAST_WORDS else 0
    said = [d for d in said if d.kind != "warning" or d.number >= tail]
    printed = [d for d in said if d.kind not in ("summary", "warning")]
    verdicts = []  # the runner's own words: a tool's diagnostic it annotated is none
    kept = {line.number: line for line in step.output}  # (a table's row read in its place)
    for error in step.errors:  # (a type union naming "CANCELLED" cancels nothing)
        if error.number in kept:
            continue
        told = diagnostics([error, *_indented_under(error, kept)])
        if not told and (CANCELLED.search(error.text) or TIME_LIMIT.search(error.text)):
            verdicts.append(error)
        elif (ended := EXIT.match(error.text)) is not None:
            found.code = int(ended.group(1) or ended.group(2))
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
        found.note = stop_note(found)
        if not found.quiet and not timed_out and not printed:
            found.cascade = True  # stopped while busy: fail-fast or by hand, unless the
            found.busy = True     # job's time ran out (the runner says so after the step)
            return found
    peers = _aggregate(step)
    if peers is not None and not printed:  # it printed results, no error of its own
        found.cascade, found.peers = True, peers
        return found
    if (words := _compared(step)) is not None:  # it compared results, and said so
        found.cascade, found.peers, found.reported = True, words, True
        return found
        return found
    causes = [d for d in said if d.kind in ("error", "crash", "test", "permission")]
    # a wrapper that ran the failing command said which exit code it passed on (``Job 94c0
    # failed with exit code 255``): the code the step fails with comes from the wrapper
    found.coded = found.code not in (None, 0, 1) and any(  # 1 says only "failed"
        (relayed := EXIT_SAID.search(line.text.rstrip())) is not None
        and int(relayed.group("code")) == found.code for line in step.output)
    if not causes and step.failed and not printed:
        # a check that the tree stays as committed, by the diff it printed; else a program
        # speaking in its own name
        causes = drifted(list(step.output)) or goal_failed(list(step.output)) or [
            Diagnostic(text, number) for number, text in spoken(list(step.output),
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
        cut = _cut_short(causes)
        causes = [d for d in causes if id(d) not in cut]
        said = [d for d in said if id(d) not in cut]
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
        files = {TEST_IN.split(d.where, 1)[0] for d in group if d.kind == "test" and d.where}
        if found.tests > 1 and len(files) == 1 and FILE_NAMED.search(suite := files.pop()):
            found.suite = suite  # (a test's id opens with its file: vitest's, pytest's)
        if found.tests == 1 and found.main.kind != "test":  # the runner repeated its words
            found.test = next(d.where for d in group if d.kind == "test")
        # the same words about other names (another module missing) are said with it
        for d in causes:
            if d.key != top and (name := renamed(d.message, found.main.message)) is not None \
                    and name not in found.renamed and len(found.renamed) < RENAMED:
                found.renamed.append(name)
        seen = {top}
        # a crash or a coverage gate is a cause of its own; a test that printed no
        # words of its own ("failed") adds nothing to the cause above it
        def rank(d: Diagnostic) -> tuple[bool, bool, tuple[int, ...]]:
            return (d.kind == "summary", d.kind not in ("crash", "coverage"),
                    # the others by how often, then how widely
                    tuple(-n for n in keys.get(d.key, (0, 0))[::-1]))
        ranked = sorted(said, key=rank)
        # (of the same words said more than once, the telling with a place and notes)
        fullest: dict[str, Diagnostic] = {}
        for d in said:
            if d.key not in fullest or (bool(d.where), len(d.notes)) > (
                    bool(fullest[d.key].where), len(fullest[d.key].notes)):
                fullest[d.key] = d
        # (a check said in other words is said: mypy's three messages of
        # ``[no-untyped-def]`` are one cause, and leave room for another check's)
        checks = {found.main.check} - {None}
        # (among equals, one of a kind no cause said is of, another rule or, when the tool
        # names none, another file: a slip of another kind says more than a second one
        # beside a cause already said; then one at a line of the project)
        named = {_kind(found.main)} - {None}
        while len(found.also) < 2:
            pick = next((d for d in sorted(ranked, key=lambda d: (
                rank(d), _kind(d) in named, not (d.where and POSITION.search(d.where))))
                         if d.key not in seen and d.kind not in seen and d.kind != "summary"
                         and d.key not in UNSAID and d.check not in checks
                         and not _said_there(d.key, seen, causes)
                         and not restates(d.message, found.main.message)),  # (nor its echo)
                        None)
            if pick is None:
                break
            d = fullest[pick.key]
            seen.add(d.key)
            named |= {_kind(d)} - {None}
            if d.check is not None:
                checks.add(d.check)
            if d.kind == "coverage":  # one gate, however many tools report it
                seen.add(d.kind)
            found.also.append(d)
    elif said:
        found.main = next((d for d in said if d.kind != "summary"), said[0])
        found.count = 1
        if found.main.kind == "coverage":
            _gated(found, said, step)
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
    # a path in the tool's own words is said as the project knows it (while the step's
    # checkout is known), as its place is
    for d in (found.main, *found.also, *(found.earlier[1:] if found.earlier else ())):
        if d is not None:
            d.message, d.notes = in_words(d.message), [in_words(n) for n in d.notes]
    if found.main is not None:
        found.skipped = skipped(step.output)
        if first and found.main.kind == "error" and (tally := _tally(step)) is not None:
            found.main.notes.append(tally)
        leg = next((hit.group("leg") for line in step.output
                    if (hit := STRATEGY.match(line.text.strip())) is not None), None)
        if leg is not None and first:  # the other legs say nothing of their own
            found.main.notes.append(f"fail-fast cancelled the other matrix legs because "
                                    f"'{leg}' failed")
        found.command = found.command or _announced(step, found.main.number)
        if split and found.command is None:  # the copied step's title above the tool's
            output = list(step.output)         # words, with no verdict between them
            titled = [n for n, line in enumerate(output) if line.number < found.main.number
                      and UI_RUN.match(line.text) is not None]
            if titled and not any(output[titled[-1]].number < error.number < found.main.number
                                  for error in step.errors):
                found.command = output[titled[-1]].text[len("Run "):].strip()
                found.runs = script_runs(found.command,
                                         output[titled[-1]:titled[-1] + SCRIPT_ECHO_LINES])
    return found


def _indented_under(error: Line, output: dict[int, Line]) -> Iterator[Line]:
    """The indented lines the tool printed right under the error the runner annotated
    (tsc's reasons, each a level deeper): they belong to its words."""
    number = error.number + 1
    while (line := output.get(number)) is not None and line.text[:1].isspace() \
            and line.text.strip():
        yield line
        number += 1


def _tally(step: Step) -> str | None:
    """A linter's closing count, when it holds warnings beside the errors (ESLint's ``✖ 667
    problems (28 errors, 639 warnings)``): how many of its findings failed the step."""
    for line in reversed(step.output):
        hit = TALLY.search(line.text)
        if hit is not None and int(hit.group("errors")) and int(hit.group("warnings")):
            errors, warnings = int(hit.group("errors")), int(hit.group("warnings"))
            return (f"{hit.group('all')} problems in all: {errors} error{'s' * (errors > 1)}, "
                    f"{warnings} warning{'s' * (warnings > 1)}")
    return None


def _gated(found: Failure, said: list[Diagnostic], step: Step) -> None:
    """A coverage gate is all that failed the step: said with the test runner's count of
    passing tests (the tests are fine, the measure is not), and another telling of the
    gate is said too when it gives a figure the first did not (pytest-cov's total to the
    hundredth after coverage.py's rounded one; Jest's threshold of another metric)."""
    main = found.main
    assert main is not None
    figures = set(FIGURE.findall(main.message))
    for d in said:
        if d.kind == "coverage" and d is not main and len(found.also) < 2 \
                and (new := set(FIGURE.findall(d.message)) - figures):
            found.also.append(d)
            figures |= new
    counts = [hit.group("py") or hit.group("js") for line in step.output
              if (hit := ALL_PASSED.match(line.text)) is not None]
    if counts and not any(d.kind == "test" for d in said):
        main.notes.append(f"every test passed ({counts[-1]})")


def _announced(step: Step, before: int) -> str | None:
    """The program a build tool said it runs (cargo's ``Running `cmd```) last before the
    cause: when nothing else names the step's command, the cause is that program's."""
    ran = [hit.group("command") for line in step.output if line.number < before
           and (hit := CARGO_RUNNING.match(line.text)) is not None]
    return ran[-1] if ran else None


def renamed(other: str, main: str) -> str | None:
    """The other name ``other`` says ``main``'s words about (``No module named 'yaml'``
    after ``'fastapi'``), if that is all that differs."""
    if QUOTED.sub("''", other.lower().rstrip(".")) != QUOTED.sub("''", main.lower().rstrip(".")):
        return None
    mains = {hit.group(0) for hit in QUOTED.finditer(main.rstrip("."))}
    return next((hit.group(0) for hit in QUOTED.finditer(other.rstrip("."))
                 if hit.group(0) not in mains), None)


def restates(other: str, main: str) -> bool:
    """Does ``other`` repeat ``main``: whole, or the words after its last label
    (``Unhandled error: HttpError: Resource not accessible`` after the request's error), or
    the same words about another name (``'debugPrint' isn't defined for 'A'``, for ``'B'``;
    ``Unresolved reference: a``, ``: b``)?"""
    said = other.lower().rstrip(".")
    last = said.rsplit(": ", 1)[-1]
    if said in main.lower() or (len(last) >= MIN_RESTATED and last in main.lower()):
        return True
    return QUOTED.sub("''", said) == QUOTED.sub("''", main.lower().rstrip("."))


def _spread(causes: list[Diagnostic]) -> dict[str, tuple[int, int]]:
    """For each cause's key: how many files (or tests) it hit, and how many times; the
    same words said again without a place (a retry loop's, or a compiler's headline
    printed twice above its located line) hit one place, and no other than its located
    telling's; a located telling said again at the same place, to the column (a report
    quoting the log's error above the log), is the one finding."""
    places: dict[str, set[str]] = {}
    lines: dict[str, set[str]] = {}
    times: Counter[str] = Counter()
    for d in causes:
        places.setdefault(d.key, set()).add(POSITION.sub("", d.where) if d.where else "")
        times[d.key] += 1
        if d.where:
            if d.where in lines.setdefault(d.key, set()):
                times[d.key] -= 1
            lines[d.key].add(d.where)
    return {key: (len(where - {""}) or 1, times[key]) for key, where in places.items()}


def _kind(d: Diagnostic) -> str | None:
    """What kind of slip a diagnostic is: the rule it names (``F401 …``, ``error TS2339:
    …``, mypy's ``[no-untyped-def]``, ``… (gocognit)``), else the file it was found in
    (a compiler's errors in one file are often one slip: an API the file no longer
    matches); None for a test's id or no place."""
    hit = RULE_NAMED.search(d.message)
    named = d.check or (hit.group("rule") or hit.group("tag") if hit is not None else None)
    if named:
        return f"rule {named}"
    return POSITION.sub("", d.where) if d.where and d.kind != "test" else None


def _cut_short(causes: list[Diagnostic]) -> set[int]:
    """The tellings whose words are only the start of another's at the same place (a report
    that broke the tool's line in two above the log quoting it whole): the whole one is
    the cause. By ``id``."""
    placed: dict[str, list[Diagnostic]] = {}
    for d in causes:
        if d.where:
            placed.setdefault(COLUMN.sub(r"\g<line>", d.where), []).append(d)
    cut: set[int] = set()
    for tellings in placed.values():
        for d in tellings:
            start = d.message.rstrip(" .:…").lower()
            if start and any(len(other.message) > len(d.message)
                   and other.message.lower().startswith(start) for other in tellings):
                cut.add(id(d))
    return cut


def _said_there(key: str, seen: set[str], causes: list[Diagnostic]) -> bool:
    """Whether every line the words of ``key`` were said at already holds a cause said (a
    compiler's two messages about one slip: Dart's "Type 'X' not found." beside "'X'
    isn't a type." at the same line)."""
    lines = {d.where for d in causes if d.key == key and d.where and d.kind != "test"}
    said = {COLUMN.sub(r"\g<line>", d.where) for d in causes
            if d.key in seen and d.where and d.kind != "test"}
    return bool(lines) and all(COLUMN.sub(r"\g<line>", where) in said for where in lines)


def stop_note(item: Failure) -> str:
    said = f"{'timed out' if item.timed_out else 'was cancelled'} ('{item.stopped}')"
    return said + (f", with {item.quiet}" if item.quiet else "")

