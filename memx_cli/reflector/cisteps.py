"""CI logs as the runner writes them, cut into steps (issue 24).

Two shapes of a GitHub Actions log, and plain tool output:

- ``gh run view --log``: ``JOB<TAB>STEP<TAB>TIMESTAMP line``, one job after another;
- the raw job log (the web UI's download): ``TIMESTAMP line``, where each step opens with
  a top-level ``##[group]Run COMMAND`` and the job ends with ``Post job cleanup.``;
- a GitLab job log: the runner's stages between ``section_start:TIME:NAME`` and
  ``section_end:TIME:NAME`` lines, the job's own script (``step_script``, ``build_script``,
  ``after_script``) echoing each command as ``$ cmd`` before it runs, and the runner's
  verdict ``ERROR: Job failed: …`` after the last stage; copied from the job's page, the
  log has no section lines and shows each stage by its title (``Executing "step_script"
  stage of the job script``, ``Uploading artifacts for failed job``) with the time it took
  under it, after the runner's banner (``Running with gitlab-runner …``): read the same;
  stamped (``FF_TIMESTAMPS``), each line has its stamp and its stream (``00O ``) before it;
- a step copied from the run's web page: its title ``Run COMMAND``, its output, and the
  runner's verdict as the page writes it (``Error: Process completed with exit code 1.``);
- anything else (a saved ``mypy`` or ``npm`` output) is one step with no name.

``gh`` writes ``UNKNOWN STEP`` in the step column when it could not tell a job's steps
apart: such a job is read as a raw job log of its own. A stamped log with none of the
runner's marks (``##[group]``, ``##[error]``: a deploy platform's build log) is not a
runner's log at all: its steps are ``marked`` never, and it is read as plain output.

Colour codes are no text, their escape byte kept or saved in caret notation (``^[[36;1m``).
The runner's own lines are structure, not content: the ``Run`` group that echoes the
step's script, its ``with:`` inputs and ``env:`` block; the steps that set up the job
(runner image, token permissions, action downloads), the ``Post`` steps and ``Complete
job``. They are dropped here by their place in the log, not by their words. ``##[error]``
and ``##[warning]`` lines are the runner's verdicts; they are kept apart from the output (a
warning only where the runner writes it in its own steps: it is about the workflow).
A step keeps a bounded tail of its output, so a long log costs one step at a time.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from memx_cli.reflector.inputs import ANSI_RE
from memx_cli.reflector.textcodec import unmangle

KEEP_LINES = 6000  # output lines kept per step (its tail): a failure's lines are at the end
MAX_FIELD = 300
GH_LINE = re.compile(r"^([^\t]{1,300})\t([^\t]{0,300})\t(.*)$")
STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)Z? ?")
MARK = re.compile(r"^##\[(group|endgroup|error|warning|notice|debug|command)\]\s?(.*)$")
WORKFLOW_COMMAND = re.compile(r"^::(error|warning|notice|group|endgroup)(?:\s[^:]*)?::(.*)$")
# a row of a linter's table under the file it names on a line above (ESLint's stylish
# format: ``  21:22  error  MESSAGE  RULE``), which a problem matcher turned into the
# runner's annotation: the row is also the tool's output, read in its place
TABLE_ROW = re.compile(r"^\s+\d+:\d+\s+(?:error|warning)\s+\S")
RUN_GROUP = "Run "
INVOCATION_KEYS = re.compile(r"^(?:shell|with|env):")
SETUP_STEPS = ("Set up job", "Complete job")
POST_PREFIX = "Post "
RAW_POST = "Post job cleanup."
UNKNOWN_STEP = "UNKNOWN STEP"  # gh's step column when the job's steps are not told apart
JOB_NAME = re.compile(r"^Complete job name: (.+)$")
MAX_WARNINGS = 20
BACKWARDS = 1.0  # seconds a raw log's stamps may go back before it is another run's piece
STRUCTURED_SHARE = 0.5  # of the first lines, stamped or in gh's columns: a runner log
STAMPED_RUN = 8  # stamped lines in a row, time running forward: a runner's log quoted in a text
# GitLab's runner: its stages open and close with these lines (the ANSI erase codes around
# them are taken off with the colours); a stage's title may follow a carriage return
SECTION = re.compile(r"^section_(?P<edge>start|end):\d{1,12}:(?P<name>[\w.-]{1,100})(?:\[[^\]]{0,100}\])?(?:\r.*)?$")
# the stages that run the job's own script; every other stage is the runner's (preparing
# the executor, fetching sources, caches, artifacts, cleaning up)
JOB_SCRIPT = ("step_script", "build_script", "after_script")
ECHOED = re.compile(r"^\$ (?P<command>\S.*)$")  # the runner echoes each command it runs
VERDICT = re.compile(r"^ERROR: (?P<said>Job failed\b.*)$")
# a GitLab job log copied from its web page, which shows the stages by their titles (each
# with the time it took on the line under it) and leaves the section lines out; the runner
# opens it with its banner
BANNER = re.compile(r"^Running with gitlab-runner \S")
STAGE_TITLE = re.compile(r'^(?:Executing "(?P<script>\w{1,40})" stage of the job script|Running '
                         r'(?P<after>after_script)|Preparing the "[^"]{1,40}" executor|Preparing '
                         r"environment|Getting source from Git repository|Restoring cache|"
                         r"Downloading artifacts|Saving cache for (?:successful|failed) job|"
                         r"Uploading artifacts for (?:successful|failed) job|Cleaning up "
                         r"(?:project directory and )?file based variables|Resolving secrets)$")
DURATION = re.compile(r"^\d{1,3}:\d\d$")
# a GitLab runner's stamped log (``FF_TIMESTAMPS``) writes after each stamp the stream the
# line came from and whether it continues the line before: ``00O ``, ``01E ``, ``00O+``
STREAM = re.compile(r"^\d{2}[OE][ +]")
HEADER_LINES = 3  # lines a client writes over the runner's log (glab's "Showing logs for")
# the checkout's folder, where the log names it: git creating the repository a GitLab
# runner fetches into, actions/checkout saying where it works
HOME = re.compile(r"^(?:Initialized empty|Reinitialized existing) Git repository in (?P<dir>/\S+?|"
                  r"[A-Za-z]:[/\\]\S+?)[/\\]\.git[/\\]?$|^Working directory is '(?P<quoted>[^']{2,300})'$")
# a GitLab job's own name: its log names it only where a client wrote a header over it
# (``glab ci trace``: ``Showing logs for NAME job #ID``) or a debug trace exports it
GITLAB_JOB = re.compile(r"^Showing logs for (?P<name>\S.{0,200}?) job #\d+\.?$|"
                        r"^(?:\++ )?export CI_JOB_NAME=(?P<q>['\"]?)(?P<var>[^'\"]{1,200})(?P=q)$")
# a step as the run's web page shows it, copied from there: its title, then its output,
# and the runner's ``##[error]`` verdict written as the page writes annotations
UI_RUN = re.compile(r"^Run (?P<command>\S.*)$")
UI_VERDICT = re.compile(r"^Error: (?P<said>Process completed with exit code \d+\.)$")
# a colour code whose escape byte was saved in caret notation (``^[[36;1m``, as ``cat -v``
# and terminals show it): the runner's echo of a step's script is coloured this way
CARET_SGR = re.compile(r"\^\[\[\d{1,3}(?:;\d{1,3})*[mK]")


@dataclass
class Line:
    number: int
    text: str
    at: float | None = None  # seconds since the epoch, when the runner stamped it


@dataclass
class Step:
    job: str | None
    name: str | None
    first: int
    last: int = 0
    setup: bool = False
    script: list[str] = field(default_factory=list)  # what the Run group echoed
    output: deque[Line] = field(default_factory=lambda: deque(maxlen=KEEP_LINES))
    errors: list[Line] = field(default_factory=list)  # ##[error] messages
    warnings: list[Line] = field(default_factory=list)  # the runner's, in its own steps
    warned: list[Line] = field(default_factory=list)  # an action's, in the job's own steps
    dropped: int = 0  # output lines beyond the kept tail
    marked: bool = False  # the runner's marks (##[group], ##[error], …) are in it
    ran: str | None = None  # the last command the runner echoed before running it
    home: str | None = None  # the checkout's folder, when the log named it

    @property
    def failed(self) -> bool:
        return bool(self.errors)

    @property
    def unprepared(self) -> bool:
        """The runner could not set the job up (an action it cannot resolve): its
        ``##[error]`` in ``Set up job`` is the job's failure, as no step of its own ran."""
        return self.failed and self.name == SETUP_STEPS[0]

    @property
    def ours(self) -> bool:
        """A step whose failure is read: the job's own, or a set-up the runner could not
        finish."""
        return not self.setup or self.unprepared


def _seconds(stamp: str) -> float | None:
    try:
        return datetime.fromisoformat(stamp[:26] + "+00:00").timestamp()
    except ValueError:
        return None


def _split(raw: str) -> tuple[str | None, str | None, float | None, str, bool]:
    """(job, step, time, text, stamped) of one line."""
    line = unmangle(raw.rstrip("\r\n")).replace("\ufeff", "")
    job = step = None
    found = GH_LINE.match(line)
    if found and STAMP.match(found.group(3)):
        job, step, line = found.group(1)[:MAX_FIELD], found.group(2)[:MAX_FIELD], found.group(3)
    stamp = STAMP.match(line)
    at = None
    if stamp:
        at = _seconds(stamp.group(1))
        line = line[stamp.end():]
        line = STREAM.sub("", line, count=1)
    if "\x1b" in line:
        line = ANSI_RE.sub("", line)
    if "^[[" in line:
        line = CARET_SGR.sub("", line)
    return job, step, at, line.rstrip(), bool(stamp)


def structured(lines: Iterable[str]) -> bool:
    """Do these first lines look like a runner's log (stamped, gh's columns, or GitLab's
    stages)?"""
    seen = stamped = 0
    for raw in lines:
        if not raw.strip():
            continue
        seen += 1
        split = _split(raw)
        if SECTION.match(split[3]) or (seen <= HEADER_LINES + 1 and BANNER.match(split[3])):
            return True
        stamped += split[4]
    return seen > 0 and stamped >= STRUCTURED_SHARE * seen


def quoted_log(lines: Iterable[str]) -> bool:
    """Is a runner's log quoted somewhere in these lines (a failure report with the run's
    failing lines in a block, after the headings and tables of its own)? ``STAMPED_RUN``
    stamped lines in a row whose time never goes back; one stamped line quoted in prose, or
    stamps that jump back and forth (a list of dated items), are not a log."""
    run, clock = 0, None
    for raw in lines:
        if not raw.strip():
            continue
        at = _split(raw)[2]
        if at is None:
            run, clock = 0, None
            continue
        run = run + 1 if clock is None or at >= clock - BACKWARDS else 1
        clock = at
        if run >= STAMPED_RUN:
            return True
    return False


class _Builder:
    def __init__(self) -> None:
        self.step: Step | None = None
        self.job_name: str | None = None  # the raw log names its job in the setup
        self.group: str | None = None  # the open ##[group]'s title
        self.invocation = False  # inside the step's Run group
        self.past_script = False
        self.raw_started = False
        self.gitlab = False  # GitLab's stages were seen: read the log by them
        self.stage: str | None = None  # the open GitLab stage
        self.held: list[Step] = []  # the job's script stages, until its verdict is read
        self.clock: float | None = None  # the raw log's last stamp
        self.home: str | None = None  # the checkout's folder the log named
        self.gitlab_job: str | None = None  # a GitLab job's name, where a header gave it
        self.title: str | None = None  # a copied step's ``Run COMMAND`` title
        self.titled = False  # a GitLab log read by its stages' titles (copied from its page)
        self.timed = False  # the line after a stage's title may be the time it took

    def _open(self, number: int, job: str | None, name: str | None, setup: bool) -> Step | None:
        done = self.step
        self.step = Step(job, name, number, number, setup, home=self.home)
        self.group, self.invocation, self.past_script = None, False, False
        return done

    def feed(self, number: int, raw: str) -> Step | None:
        job, name, at, text, stamped = _split(raw)
        done: Step | None = None
        step = self.step
        if (home := HOME.match(text.strip())) is not None:
            self.home = (home.group("dir") or home.group("quoted")).rstrip("/\\")
            if step is not None:
                step.home = self.home
        if (named := GITLAB_JOB.match(text)) is not None and self.gitlab_job is None:
            self.gitlab_job = (named.group("name") or named.group("var")).strip()[:MAX_FIELD]
            for held in self.held:  # (a debug trace exports it inside the stage)
                held.job = held.job or self.gitlab_job
        if not self.gitlab and job is None and BANNER.match(text) and (
                step is None or (not step.marked and len(step.output) <= HEADER_LINES)):
            self.gitlab = self.titled = True  # (a header over it is no step)
            self.step = None
        if self.gitlab or SECTION.match(text):
            self._gitlab(number, text, at)
            return None
        if job is not None and name == UNKNOWN_STEP:  # gh could not split the job's steps
            if step is None or step.job != job:
                done = self.finish()
                self.job_name, self.raw_started = job, False
            opened = self._raw(number, text)  # (an empty step, when both open one)
            done = done if done is not None else opened  # a new job opens on an empty builder
        elif job is not None:  # gh run view --log
            if step is None or (step.job, step.name) != (job, name):
                setup = name in SETUP_STEPS or bool(name and name.startswith(POST_PREFIX))
                done = self._open(number, job, name, setup)
        elif stamped:  # the raw job log: steps open with a top-level Run group
            if at is not None and self.clock is not None and at < self.clock - BACKWARDS \
                    and step is not None:  # pieces of other runs pasted one after another
                done = self._open(number, self.job_name, None, False)
            self.clock = at if at is not None else self.clock
            opened = self._raw(number, text)  # (an empty step, when both open one)
            done = done if done is not None else opened
        elif step is None:  # plain output: one step
            done = self._open(number, None, None, False)
        assert self.step is not None
        if job is None and not stamped and self._copied(self.step, number, text, at):
            return done
        self._line(self.step, Line(number, text, at))
        return done

    def _copied(self, step: Step, number: int, text: str, at: float | None) -> bool:
        """A step copied from the web page of a run: its title ``Run COMMAND`` on its
        first line (the script it echoes folded away), the runner's verdict shown as
        ``Error: Process completed with exit code N.``; both are the runner's, no output."""
        if not step.output and self.title is None and (run := UI_RUN.match(text)) is not None:
            self.title = run.group("command").strip()[:MAX_FIELD]
            return True
        if (verdict := UI_VERDICT.match(text)) is not None:
            step.errors.append(Line(number, verdict.group("said"), at))
            if self.title is not None and not step.script:  # the title was the step's
                step.script.append(self.title)
            return True
        return False

    def _raw(self, number: int, text: str) -> Step | None:
        """A line of a raw job log: a top-level ``Run`` group opens a step (any ``Run``
        group after the step's ``##[error]`` verdict), the runner's setup ends where it
        names the job, ``Post job cleanup.`` starts the cleanup."""
        done: Step | None = None
        step = self.step
        mark = MARK.match(text)
        if step is None:  # the runner's setup, unless the log is a job's tail
            done = self._open(number, self.job_name, None, False)
        elif mark and mark.group(1) == "group" and mark.group(2).startswith(RUN_GROUP) \
                and (self.group is None or step.failed) \
                and not (step.setup and self.raw_started):
            # the runner's verdict ends a step: a Run group after it is the next step's,
            # even where a group left open (a log cut and pasted in pieces) still encloses it
            self.raw_started = True
            done = self._open(number, self.job_name, None, False)
        elif text == RAW_POST:
            done = self._open(number, self.job_name, None, True)
        named = JOB_NAME.match(text)
        if named and self.step is not None and not self.raw_started:
            self.job_name = named.group(1).strip()[:MAX_FIELD]
            self.step.setup = True  # the runner names the job at the end of its setup
            self.step.output.clear()
        return done

    def _line(self, step: Step, line: Line) -> None:
        step.last = line.number
        text = line.text
        mark = MARK.match(text) or WORKFLOW_COMMAND.match(text)
        kind, rest = (mark.group(1), mark.group(2)) if mark else (None, text)
        step.marked = step.marked or mark is not None
        if kind == "group":
            self.group = rest
            if rest.startswith(RUN_GROUP) and not step.script and not self.invocation:
                self.invocation, self.past_script = True, False
                step.script.append(rest[len(RUN_GROUP):].strip())
            return
        if kind == "endgroup":
            self.group, self.invocation = None, False
            return
        if kind in ("error", "warning") and not step.setup and TABLE_ROW.match(rest):
            self._output(step, Line(line.number, rest.rstrip(), line.at))
        if kind == "error":
            step.errors.append(Line(line.number, rest.strip(), line.at))
            return
        if kind == "warning" and len(step.warnings) + len(step.warned) < MAX_WARNINGS:
            (step.warnings if step.setup else step.warned).append(
                Line(line.number, rest.strip(), line.at))
        if kind is not None or step.setup:
            return  # warnings, notices, runner commands; setup and cleanup steps
        if self.invocation:  # the echoed script, then its shell, inputs and environment
            if INVOCATION_KEYS.match(text):
                self.past_script = True
            elif not self.past_script and text.strip() and len(step.script) < 200:
                if step.script and step.script[0] == text.strip() and len(step.script) == 1:
                    return  # the Run title repeats the script's first line
                step.script.append(text.rstrip())
            return
        if self.group is not None and text.startswith("[command]"):
            return
        self._output(step, line)

    @staticmethod
    def _output(step: Step, line: Line) -> None:
        if len(step.output) == step.output.maxlen:
            step.dropped += 1
        step.output.append(line)

    def _gitlab(self, number: int, text: str, at: float | None) -> None:
        """A line of a GitLab job log: the job's script stages are its steps, each command
        the runner echoed is the one running; the runner's stages teach nothing, and its
        verdict after the last stage belongs to the script that failed."""
        self.gitlab = True
        section = SECTION.match(text)
        self.titled = self.titled and section is None  # the section lines say it all
        if self.titled and self._titled(number, text):
            return
        if section is not None:
            self._edge(number, section.group("edge"), section.group("name"))
            return
        verdict = VERDICT.match(text)
        if verdict is not None and self.stage is None:
            failing = next((s for s in reversed(self.held) if s.name != "after_script"),
                           None)  # after_script runs whatever happened before it
            if failing is not None:
                failing.errors.append(Line(number, verdict.group("said").strip(), at))
            return
        step = self.step
        if step is None or self.stage not in JOB_SCRIPT:
            return
        step.last = number
        echoed = ECHOED.match(text)
        if echoed is not None:
            step.ran = echoed.group("command").strip()[:MAX_FIELD]
            if len(step.script) < 200:
                step.script.append(step.ran)
            return
        if len(step.output) == step.output.maxlen:
            step.dropped += 1
        step.output.append(Line(number, text, at))

    def _titled(self, number: int, text: str) -> bool:
        """A line of a GitLab log copied from its page: a stage's title ends the stage
        before and opens its own (the time under it is no output), the verdict ends the
        last one; is the line read?"""
        timed, self.timed = self.timed, False
        if timed and DURATION.match(text.strip()):
            return True
        title = STAGE_TITLE.match(text.strip())
        if title is None and not (VERDICT.match(text) and self.stage is not None):
            return False
        if self.stage is not None:
            self._edge(number, "end", self.stage)
        if title is None:
            return False  # the verdict, read after the stage it ends
        self._edge(number, "start", title.group("script") or title.group("after") or "runner")
        self.timed = True
        return True

    def _edge(self, number: int, edge: str, name: str) -> None:
        """A stage opening or closing: the job's script stages are its steps."""
        if edge == "start" and self.stage is None:
            self.stage = name
            if name in JOB_SCRIPT:
                self.step = Step(self.gitlab_job, name, number, number, marked=True,
                                 home=self.home)
                self.held.append(self.step)
        elif edge == "end" and name == self.stage:
            self.stage = None  # a stage the script opened itself stays in the script

    def finish(self) -> Step | None:
        done, self.step = self.step, None
        return done


def steps(lines: Iterable[tuple[int, str]]) -> Iterator[Step]:
    """The steps of a log, each handed on when the next one opens."""
    builder = _Builder()
    for number, raw in lines:
        done = builder.feed(number, raw)
        if done is not None:
            yield done
    last = builder.finish()
    if builder.gitlab:  # the verdict comes after the last stage: the steps wait for it
        yield from builder.held
    elif last is not None:
        yield last
