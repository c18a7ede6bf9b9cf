"""Diagnostics in a failing step's output: the lines that say why it failed (issue 24).

Tools write their verdicts in a few shapes, and these are read, not their words:

- ``PATH:LINE[:COL]: error: MESSAGE`` (mypy, gcc, go vet), ``PATH(L,C): error TS…`` (tsc),
  ``PATH:L:C: CODE message`` (ruff, flake8);
- ``error[CODE]: MESSAGE`` followed by ``--> PATH:L:C`` and ``= note:`` lines (rustc,
  clippy), ``ERROR:`` / ``Error:`` / ``fatal:`` with indented continuation lines (pip,
  node, git), ``npm error`` / ``npm ERR!`` blocks;
- a Python traceback (its exception and the deepest frame inside the project), pytest's
  ``FAILED id - message`` / ``E   message`` lines, ``--- FAIL:`` (go test), ``●`` (jest), a Rust panic (``thread 'NAME' [(ID)] panicked at
  PATH:L:C:``, its message and a failed ``assert_eq!``'s ``left:``/``right:`` values), a Go
  panic with its goroutine trace (the innermost frame of the project's own code), curl's
  ``curl: (N) message``;
- a block opened by a mark (``×``, ``✖``, ``❌``), with the header above it that names the
  file (Biome, ESLint, shell gates), its words ending where another tool's verdict starts;
- a coverage gate (``fail-under``, threshold not met), a denied permission;
- a formatter's check that found unformatted files (``Diff in PATH:L:`` of rustfmt,
  ``would reformat PATH`` of black, ``Would reformat: PATH`` of ruff, ``[warn] PATH`` of
  prettier): one diagnostic naming the files, however many hunks it printed;
- Kotlin's ``e: [file://]PATH:L:C message`` (or ``PATH: (L, C): message``) and Gradle's
  ``* What went wrong:`` block (a summary: the compiler's lines above it say why; placed
  at the script its ``* Where:`` block names);
- Scala 3's ``-- [E007] Type Mismatch Error: PATH:L:C`` and its gutter's words, Maven's
  ``PATH:[L,C] message`` (sbt's ``[error]`` and Maven's ``[ERROR]`` markers are read
  through); pip's "No matching distribution found for NAME==V" with the Python V needs;
- vitest's ``FAIL  PATH > suite > test`` with the error under it; a docker build's error
  block (``> [stage N/M] RUN …:``, the command's last output, ``Dockerfile:N``), read for
  the tool's own error inside it; a tool that stops on its ``Warning:`` with the ``- ``
  items under it (composer's lock file out of date), kept apart as a ``warning`` (with no
  items it is no diagnostic); npm's
  error block with the facts it lists (``While resolving:``, ``Found:``, ``Could not
  resolve dependency:`` and the line under it);
- ``go test -v``'s ``file.go:N:`` lines above its ``--- FAIL``, tsc indented (ts-jest),
  cargo's ``... required by package`` chain, cmd.exe's ``'NAME' is not recognized as an
  internal or external command,``, a located ``PATH:L:C Error:`` with its words
  on the indented line under it (Android's manifest merger), and the tool's own advice
  (``run `CMD` ``) on the line after an error.

Each diagnostic also records its ``shape`` (the tool format that said it): plain output of
several tools is one failure per shape.

Each diagnostic gets a key (its message with numbers and positions blanked) so that
54 tests failing on one error are one diagnostic seen 54 times.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextvars import ContextVar

from memx_cli.reflector import citools
from memx_cli.reflector.cisteps import Line
from memx_cli.reflector.citools import PERMISSION, Diagnostic

MAX_MESSAGE = 300
ECHOED = 30  # a continuation holding the message's first characters says it again
# a runner's checkout: GitHub's hosted runners (``/home/runner/work/R/R``, ``/__w/R/R`` in a
# container, ``D:\\a\\R\\R``) and self-hosted ones (``_work/R/R`` under the runner's folder,
# wherever it is installed), or a container action's ``/github/workspace``
WORKSPACE = re.compile(r"^(?:(?:/home/runner/work|/__w|[A-Za-z]:[/\\]a|(?:[A-Za-z]:)?(?:[/\\][^/\\\s]+)*?"
                       r"[/\\]_work)[/\\]([^/\\]+)[/\\]\1[/\\]|/github/workspace/)")
# the checkout the log itself names (git's ``Initialized empty Git repository in DIR/.git/``
# as a GitLab runner fetches, actions/checkout's ``Working directory is 'DIR'``), set while
# its steps are read: ``/builds/GROUP/SUBGROUP/PROJECT`` has no fixed depth to cut by
CHECKOUT: ContextVar[str | None] = ContextVar("checkout", default=None)
OUTSIDE = re.compile(r"site-packages|dist-packages|hostedtoolcache|/lib/python\d|<frozen|"
                     r"node_modules|/usr/lib/|/rustc/|\.cargo/registry|/\.?venv/|/bin/[^/]+$")
ABSOLUTE = re.compile(r"^(?:/|[A-Za-z]:[\\/])")
COMPILER = re.compile(r"^(?P<path>[^\s:()]+?\.\w+):(?P<line>\d+)(?::\d+)?:\s*"
                      r"(?:fatal )?error(?:\[[\w-]+\])?:\s*(?P<msg>.+)$")
TSC = re.compile(r"^\s*(?P<path>[^\s()]+?\.\w+)[(:](?P<line>\d+)[,:]\d+\)?:?\s*-?\s*error\s+"
                 r"(?P<code>TS\d+):\s*(?P<msg>.+)$")
LINT_CODE = re.compile(r"^(?P<path>[^\s:]*[A-Za-z][^\s:]*?):(?P<line>\d+):\d+:\s+(?P<code>[A-Z]{1,4}\d{2,5})"
                       r"\s+(?P<msg>.+)$")
# rustc's ``error[E0308]:``, and the codespan reports of cargo-deny and friends, whose
# code is the check that failed (``error[banned]:``, ``error[vulnerability]:``)
RUST = re.compile(r"^error(?:\[(?P<code>[\w-]{1,40})\])?:\s*(?P<msg>.+)$")
RUST_AT = re.compile(r"^\s*(?:-->|┌─)\s*(?P<where>\S+)$")
RUST_ID = re.compile(r"^\s*├ ID:\s*(?P<id>\S+)")
RUSTC_CODE = re.compile(r"^E\d+$")
# a shell's own error: ``SCRIPT: line N: message`` (bash), ``SCRIPT: N: message`` (dash)
SHELL = re.compile(r"^(?P<path>[^\s:]*[/.][^\s:]*): (?:line )?(?P<line>\d+): (?P<msg>\S.*)$")
# cmd.exe's own error for a word it cannot run (a Windows job's default shell for
# ``shell: cmd``): ``'NAME' is not recognized as an internal or external command,`` with
# ``operable program or batch file.`` on the line under it
CMD_UNKNOWN = re.compile(r"^'(?P<name>[^']{1,120})' is not recognized as an internal or external "
                         r"command,?\s*$")
RUNNER_TEMP = re.compile(r"[/\\]_temp[/\\]")  # the step's own script, written by the runner
CAUSED_BY = re.compile(r"^Caused by: (?P<msg>\S.*)$")
# codespell: ``PATH:L: word ==> suggestion``; ktlint: ``PATH:L:C: message (ruleset:rule)``
CODESPELL = re.compile(r"^(?P<path>[^\s:]+):(?P<line>\d+): (?P<word>\S+) ==> (?P<fix>\S.*)$")
# (its Gradle plugin: ``PATH:L:C Lint error > [ruleset:rule] message``)
KTLINT = re.compile(r"^(?P<path>[^\s:]+?\.\w+):(?P<line>\d+):\d+(?:: (?P<msg>\S.*?) "
                    r"\((?P<rule>[\w-]+:[\w-]+)\)| Lint error > \[(?P<rule2>[\w-]+:[\w-]+)\] "
                    r"(?P<msg2>\S.*))$")
# ruff's full format: ``CODE [*] message`` with ``--> PATH:L:C`` under it
RULE_FIRST = re.compile(r"^(?P<code>[A-Z]{1,4}\d{2,5})(?: \[\*\])? (?P<msg>\S.*)$")
# pyright: ``  PATH:L:C - error: message (rule)``
PYRIGHT = re.compile(r"^\s+(?P<path>\S+?\.\w+):(?P<line>\d+):\d+ - error: (?P<msg>\S.*)$")
# shellcheck: ``In PATH line N:``, the code, then ``^-- SC2086 (level): message``
SHELLCHECK_AT = re.compile(r"^In (?P<path>\S+) line (?P<line>\d+):$")
SHELLCHECK = re.compile(r"^\s*\^[-^]*\^?\s+(?P<code>SC\d{4}) \((?P<level>\w+)\): (?P<msg>\S.*)$")
RUST_NOTE = re.compile(r"^\s*=\s*note:\s*(?P<msg>.+)$")
PREFIXED = re.compile(r"^(?:ERROR|Error|FATAL|Fatal|fatal|error)(?:\[[^\]]{1,40}\])?:\s*"
                      r"(?P<msg>\S.*)$")
COMPONENT = re.compile(r"^\[[\w.:-]{1,60}\]\s+(?=\S)")  # ``ERROR: [Uploader.6A0C] message``
NPM = re.compile(r"^npm (?:ERR!|error)(?:\s+(?P<msg>.*))?$")  # (a bare one separates parts)
NPM_FACT = re.compile(r"^[A-Z][\w ]{2,40}:(?:\s+\S.*)?$")  # "Found: vite@8.0.3", "Could not …:"
PYTEST_FAILED = re.compile(r"^(?P<what>FAILED|ERROR) (?P<id>\S+::\S+)(?: - (?P<msg>.+))?$")
PYTEST_E = re.compile(r"^E\s{2,}(?P<msg>\S.*)$")
PYTEST_FRAME = re.compile(r"^(?P<path>[^\s:]+\.py):(?P<line>\d+): in \S+$")
TRACEBACK = "Traceback (most recent call last):"
PY_FRAME = re.compile(r'^\s+File "(?P<path>[^"]+)", line (?P<line>\d+)')
EXCEPTION = re.compile(r"^(?P<name>[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure))"
                       r"(?::\s*(?P<msg>.*))?$")
GO_FAIL = re.compile(r"^\s*--- FAIL: (?P<id>\S+)")
GO_RUN = re.compile(r"^\s*=== (?:RUN|CONT|PAUSE|NAME)\s+(?P<id>\S+)")
GO_SAID = re.compile(r"^\s+(?P<where>[^\s:]+\.go:\d+): (?P<msg>\S.*)$")
# a located verdict whose words are on the indented lines under it (Android's manifest
# merger: ``PATH:L:C-L:C Error:`` then a tab and the message)
LOCATED = re.compile(r"^(?P<path>[^\s:]+?\.\w+)(?::(?P<line>\d+)[\d:-]*)? (?:Error|ERROR|error):\s*$")
# the tool's own advice on the line after its error: a command to run, quoted
HINT = re.compile(r"^\s*(?:help|hint|note)?:?\s*(?:To \w[^`]{0,60}, )?(?:run|try|use)\b[^`]{0,40}"
                  r"`(?P<command>[^`]{2,120})`", re.IGNORECASE)
CARGO_CHAIN = re.compile(r"^\s+\.\.\. (?:required by|which satisfies)\b")
JEST = re.compile(r"^\s*● (?P<id>.+›.+)$")
VITEST = re.compile(r"^\s*FAIL\s+(?P<path>[^\s>]+?\.\w+)\s+>\s+(?P<title>\S.*?)\s*$")
# buildkit's error block: ``------``, `` > [deps 4/4] RUN cmd:``, the command's last output
# (each line after the seconds it came at), ``------``, then ``Dockerfile:14`` and the code
BUILDKIT = re.compile(r"^\s*> \[(?P<stage>[^\]]{1,80})\] (?P<cmd>\S.*?):\s*$")
BUILDKIT_RULE = re.compile(r"^-{6,}\s*$")
BUILDKIT_TIME = re.compile(r"^\d+(?:\.\d+)?\s")
DOCKERFILE_AT = re.compile(r"^(?P<path>\S*[Dd]ockerfile[\w.-]*):(?P<line>\d+)\s*$")
WARNED = re.compile(r"^(?:Warning|WARNING|warning):\s*(?P<msg>\S.*)$")
ITEM = re.compile(r"^\s{0,4}- (?P<item>\S.*)$")
SENTENCE_END = re.compile(r"(?<=[.!])\s+(?=[A-Z])")
GO_BUILD = re.compile(r"^(?:\./)?(?P<path>[^\s:]+\.go):(?P<line>\d+):\d+: (?P<msg>.+)$")
ESLINT = re.compile(r"^\s+(?P<line>\d+):\d+\s+error\s+(?P<msg>.+?)(?:\s{2,}(?P<rule>\S+))?$")
PANIC = re.compile(r"^\s*thread '(?P<id>[^']+)'(?: \(\d+\))? panicked at "
                   r"(?P<where>[^\s:]+:\d+)(?::\d+)?:?\s*(?P<msg>.*)$")
# a Go program's panic: ``panic: MESSAGE`` (`` [recovered]`` when a test harness re-panics),
# then ``goroutine N [running]:`` and its frames, innermost first: the function's line,
# then a tab and ``PATH:LINE +0x…``
GO_PANIC = re.compile(r"^panic: (?P<msg>\S.*?)(?: \[recovered\])?$")
GOROUTINE = re.compile(r"^goroutine \d+ \[[^\]]{1,60}\]:$")
GO_FRAME = re.compile(r"^\t(?P<path>\S+\.go):(?P<line>\d+)(?: \+0x[0-9a-f]+)?$")
GO_PANIC_LINES = 8  # from the panic to its goroutine's header, at most
GO_FRAMES = 40  # frame lines read, at most
MODULE_CACHE = re.compile(r"/pkg/mod/")  # a dependency's source, never the project's
# curl's own error line: ``curl: (7) Failed to connect to …`` (its exit code in brackets)
CURL_ERROR = re.compile(r"^curl: \(\d{1,3}\) \S")
OPERAND = re.compile(r"^\s*(?:left|right)\s*:\s*\S")
MARKED = re.compile(r"^\s*(?:[×✖✗✘❌]|\[!\])\s*(?P<msg>\S.*)$")  # [!]: fastlane, CocoaPods
HEADER_PATH = re.compile(r"(?P<path>[\w./\\-]+\.[A-Za-z]\w{0,5})(?::\d+(?::\d+)?)?\b")
PROMPT = re.compile(r"\[[yY]/?[nN]\]|\([yY]/[nN]\)|\[[yY]/n\]")
COVERAGE = re.compile(r"coverage", re.IGNORECASE)
GATE = re.compile(r"fail[-_]under|threshold|not (?:reached|met)|does not meet|less than",
                  re.IGNORECASE)
SUMMARY = re.compile(r"could not compile|aborting due to|previous errors?|build failed|"
                     r"\d+ problems? \(|^make(?:\[\d+\])?: \*\*\*|"
                     r"errors? (?:were|was) emitted|^Found \d+ errors?|^\d+ errors? in|"
                     r"did not complete successfully|"
                     # a wrapper's verdict that only names its child's exit status
                     r"\b(?:exit code|exit status|exited with(?: code| status)?) -?\d+\.?$",
                     re.IGNORECASE)
# the exit status such a verdict names
EXIT_SAID = re.compile(r"\b(?:exit code|exit status|exited with(?: code| status)?) (?P<code>-?\d+)\.?$",
                       re.IGNORECASE)
MAKE = re.compile(r"^make(?:\[\d+\])?: \*\*\* ")
FORMAT_DIFF = re.compile(r"^(?:Diff in (?P<rust>\S+?)(?::\d+:| at line \d+:)|would reformat (?P<black>\S+)"
                         r"|Would reformat: (?P<ruff>\S+)|\[warn\] (?P<prettier>[^\s\[\]]+\.\w+))\s*$")
KOTLIN = re.compile(r"^e: (?:file://)?(?P<path>[^\s:]+?\.kts?)(?::(?P<line>\d+):\d+|: \((?P<line2>\d+), "
                    r"\d+\):) (?P<msg>\S.*)$")
WENT_WRONG = re.compile(r"^\* What went wrong:\s*$")
# the ``* Where:`` block above it: the build script Gradle failed in, and the line
GRADLE_WHERE = re.compile(r"^(?:(?:Build|Settings|Init) file|Script) '(?P<path>[^']{1,300})' "
                          r"line: (?P<line>\d+)$")
LEVEL = re.compile(r"^\[(?:error|ERROR)\] ?")  # sbt's and Maven's level marker
# under that marker, ``PATH:L[:C]: message`` is the compiler's (scalac 2, javac via sbt)
LEVELED = re.compile(r"^(?P<path>[^\s:]+?\.\w+):(?P<line>\d+)(?::\d+)?:\s*(?P<msg>\S.*)$")
# Playwright's list of failures: ``N) [project] › PATH:L:C › title``, its error under it
PLAYWRIGHT = re.compile(r"^\s*\d+\) (?:\[[^\]]{1,60}\] › )?(?P<path>[^\s›]+?\.\w+):(?P<line>\d+):\d+"
                        r" › (?P<title>\S.*?)\s*$")
# PowerShell's error view: ``Line |``, the quoted code, ``~~~`` under it, then its words
PS_LINE = re.compile(r"^Line \|\s*$")
PS_GUTTER = re.compile(r"^\s*(?P<n>\d+)?\s*\|\s?(?P<said>.*)$")
SCALA3 = re.compile(r"^-- (?:\[E\d+\] )?(?P<title>[A-Z][\w ]{0,40}?Error): (?P<path>[^\s:]+?\.\w+)"
                    r":(?P<line>\d+):\d+\b")
GUTTER = re.compile(r"^\s*(?:\d+\s*)?\|\s?(?P<said>.*)$")
JAVAC = re.compile(r"^(?P<path>[^\s:]+?\.\w+):\[(?P<line>\d+),\d+\] (?P<msg>\S.*)$")
PIP_NONE = re.compile(r"No matching distribution found for (?P<name>[\w.-]+)==(?P<version>\S+)")
PIP_PYTHONS = re.compile(r"require a different python version: (?P<list>.+)$")
PIP_CONTEXT = re.compile(r"^Ignored the following|^Could not find a version that satisfies")
URL = re.compile(r"\s*\bfrom https?://\S+|https?://\S{50,}")


def relative(path: str) -> str:
    """A path as the repository knows it: the runner's workspace prefix cut off, with
    ``/`` between its parts on every runner (a Windows job prints ``src\\lib.rs``)."""
    path = WORKSPACE.sub("", path)
    home = CHECKOUT.get()
    if home and path.replace("\\", "/").startswith(home.replace("\\", "/").rstrip("/") + "/"):
        path = path[len(home.rstrip("/\\")) + 1:]
    return path if ABSOLUTE.match(path) else path.replace("\\", "/")


def inside(path: str) -> bool:
    """Is this absolute path in the checkout (the runner's workspace, or the one the log
    named)?"""
    return WORKSPACE.match(path) is not None or not ABSOLUTE.match(relative(path))


def _clip(text: str) -> str:
    text = " ".join(URL.sub("", text).split())
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1].rstrip() + "…"


def _project_frame(lines: Sequence[Line], start: int, end: int,
                   frame: re.Pattern[str]) -> tuple[str, str | None] | None:
    """The deepest frame between ``start`` and ``end`` that is in the project, with the
    line of code printed under it."""
    found = None
    paths = [hit.group("path") for i in range(start, end)
             if (hit := frame.match(lines[i].text))]
    # Python prints absolute paths; next to them, a relative one is a compiled module's
    # (mypy/main.py). pytest prints the project's paths relative, the rest absolute.
    absolute = frame is PY_FRAME and any(ABSOLUTE.match(path) for path in paths)
    for i in range(start, end):
        hit = frame.match(lines[i].text)
        if hit and not OUTSIDE.search(hit.group("path")) \
                and (ABSOLUTE.match(hit.group("path")) or not absolute):
            code = lines[i + 1].text.strip() if i + 1 < end else None
            found = (f"{relative(hit.group('path'))}:{hit.group('line')}",
                     code if code and not frame.match(lines[i + 1].text) else None)
    return found


def _continued(lines: Sequence[Line], i: int, limit: int = 2) -> list[str]:
    """The indented lines that continue a message (pip's list of unpinned requirements)."""
    out: list[str] = []
    for j in range(i + 1, min(i + 1 + limit, len(lines))):
        text = lines[j].text
        if not text[:1].isspace() or not text.strip():
            break
        out.append(text.strip())
    return out


def _explained(lines: Sequence[Line], i: int) -> list[str]:
    """A block that explains the error just after it: a line ending in ``:`` and its
    indented items (pip's "The conflict is caused by:")."""
    j = i + 1
    while j < len(lines) and j <= i + 2 and not lines[j].text.strip():
        j += 1
    if j >= len(lines) or j == i + 1 or not lines[j].text.rstrip().endswith(":") \
            or lines[j].text[:1].isspace():
        return []
    items = _continued(lines, j, 3)
    return [lines[j].text.strip(), "; ".join(items)] if items else []


def _header(lines: Sequence[Line], i: int) -> str | None:
    """The file a marked block is about: the line just above it (blank lines apart)
    starts with its path."""
    for j in range(i - 1, max(-1, i - 4), -1):
        text = lines[j].text
        if not text.strip():
            continue
        hit = HEADER_PATH.match(text)
        return hit.group(0) if hit and "://" not in text[:hit.end() + 3] else None
    return None


def _file_above(lines: Sequence[Line], i: int) -> str | None:
    """ESLint's stylish format names the file on a line of its own above its findings."""
    for j in range(i - 1, max(-1, i - 200), -1):
        text = lines[j].text
        if text.strip() and not text[:1].isspace():
            hit = HEADER_PATH.match(text)
            return relative(hit.group("path")) if hit else None
    return None


def _next_said(lines: Sequence[Line], i: int) -> str:
    """The first words under a failing test's header (jest, go test, a Rust panic)."""
    for j in range(i + 1, min(i + 6, len(lines))):
        if lines[j].text.strip():
            return lines[j].text.strip()
    return ""


def _go_said(lines: Sequence[Line], i: int, name: str) -> str:
    """What a failing Go test printed: ``go test -v`` writes the test's ``file.go:N:``
    lines between its ``=== RUN`` and its ``--- FAIL``, plain ``go test`` under it."""
    below = _next_said(lines, i)
    if GO_SAID.match(" " + below.strip()) and not below.startswith("---"):
        return below
    said: list[str] = []
    for j in range(i - 1, max(-1, i - 60), -1):
        text = lines[j].text
        run = GO_RUN.match(text)
        if run is not None:
            if run.group("id") == name:
                break
            said.clear()  # another test's lines
            continue
        if (hit := GO_SAID.match(text)) is not None:
            said.insert(0, f"{hit.group('where')}: {hit.group('msg')}")
    return said[0] if said else ""


def _panicked(lines: Sequence[Line], i: int, hit: re.Match[str]) -> Diagnostic:
    """A Rust panic: which thread (a test harness names it after the test), what it said
    (the line after the header since Rust 1.73) and, for a failed ``assert_eq!``, the
    ``left:`` and ``right:`` values it printed under it."""
    said = hit.group("msg")
    j = i
    if not said:
        for j in range(i + 1, min(i + 6, len(lines))):
            if said := lines[j].text.strip():
                break
    values = []
    for k in range(j + 1, min(j + 3, len(lines))):
        if not OPERAND.match(lines[k].text):
            break
        values.append(" ".join(lines[k].text.split()))
    if values:
        said = said.rstrip(".") + " (" + ", ".join(values) + ")"
    name = hit.group("id")
    who = "" if name == "main" else f"test {name} " if "test" in name else f"thread '{name}' "
    return Diagnostic(_clip(f"{who}panicked: {said}"), lines[i].number,
                      where=relative(hit.group("where")))


def _go_panic(lines: Sequence[Line], i: int, hit: re.Match[str]) -> tuple[int, Diagnostic] | None:
    """A Go panic, when its goroutine's trace follows: what it said, and the innermost
    frame of the project's own code (not a module's from the module cache, nor the
    standard library's: an import path whose first element has no dot, other than main)."""
    head = next((j for j in range(i + 1, min(i + GO_PANIC_LINES, len(lines)))
                 if GOROUTINE.match(lines[j].text)), None)
    if head is None:
        return None
    diag = Diagnostic(_clip(f"panic: {hit.group('msg')}"), lines[i].number, "crash")
    end = head + 1
    while end < min(head + 1 + GO_FRAMES, len(lines)) and lines[end].text.strip():
        frame = GO_FRAME.match(lines[end].text)
        called = lines[end - 1].text.split("(", 1)[0]
        package = called.rsplit("/", 1)[-1].split(".", 1)[0]
        first = called.split("/", 1)[0] if "/" in called else package
        if frame and diag.where is None and not MODULE_CACHE.search(frame.group("path")) \
                and ("." in first or package == "main"):
            diag.where = f"{relative(frame.group('path'))}:{frame.group('line')}"
        end += 1
    return end - i, diag


def _scala(lines: Sequence[Line], i: int, hit: re.Match[str]) -> Diagnostic:
    """Scala 3's ``-- [E007] Type Mismatch Error: PATH:L:C`` and the words in the gutter
    (``|``) under it, without the quoted code, its carets and the hint to ``-explain``."""
    said: list[str] = []
    for j in range(i + 1, min(i + 16, len(lines))):
        text = LEVEL.sub("", lines[j].text)
        gutter = GUTTER.match(text)
        if gutter is None or text.lstrip().startswith("--"):
            break
        words = " ".join(gutter.group("said").split())
        if j == i + 1 or not words or set(words) <= {"^", " "} or "-explain" in words:
            continue  # the first gutter line quotes the code
        said.append(words)
        if len(said) == 2:
            break
    message = hit.group("title") + (": " + "; ".join(said) if said else "")
    return Diagnostic(_clip(message), lines[i].number,
                      where=f"{relative(hit.group('path'))}:{hit.group('line')}")


def _pip_python(lines: Sequence[Line], i: int, none: re.Match[str]) -> str:
    """pip's "No matching distribution" for a pin that exists but needs another Python: the
    "Ignored the following versions that require a different python version" line above it
    says which."""
    for j in range(i - 1, max(-1, i - 6), -1):
        listed = PIP_PYTHONS.search(lines[j].text)
        if listed is None:
            continue
        for item in listed.group("list").split(";"):
            version, _, needs = item.strip().partition(" Requires-Python ")
            if version == none.group("version") and needs:
                return (f" ({none.group('name')} {version} requires Python {needs.strip()}: "
                        "the job's Python is not one of them)")
    return ""


def _tail(lines: Sequence[Line], i: int) -> list[str]:
    """A script gate's own words after its mark, when they are the end of the step."""
    if len(lines) - i > 40:  # far from the end: not a gate's last words (and no rescans)
        return []
    rest = [ln.text.strip() for ln in lines[i + 1:] if ln.text.strip()]
    if len(rest) > 8:
        return []
    # they end where another tool's verdict starts (the wrapper's error that ran the gate)
    other = next((n for n, text in enumerate(rest) if _shape(text) != "other"), len(rest))
    return rest[:other]


def _e_block(lines: Sequence[Line], i: int) -> tuple[int, Diagnostic]:
    """pytest's ``E`` lines: their first line, or, when that is not the exception, the
    exception the block ends in (a module that does not compile: ``File "PATH", line N``,
    the quoted code, then ``SyntaxError: …``), placed at the project file it names."""
    end = i + 1
    while end < len(lines) and PYTEST_E.match(lines[end].text):
        end += 1
    said = [hit.group("msg") for j in range(i, end) if (hit := PYTEST_E.match(lines[j].text))]
    pick = 0
    if not EXCEPTION.match(said[0]):
        pick = next((n for n, text in enumerate(said) if EXCEPTION.match(text)), 0)
    diag = Diagnostic(_clip(said[pick]), lines[i + pick].number)
    for n, text in enumerate(said[:pick]):
        hit = PY_FRAME.match(" " + text)  # E's words lose the indent
        if hit and not OUTSIDE.search(hit.group("path")):
            diag.where = f"{relative(hit.group('path'))}:{hit.group('line')}"
            quoted = said[n + 1].strip() if n + 1 < pick else ""
            diag.code = quoted if quoted and set(quoted) - {"^", "~"} else None
    return end - i, diag


def _checked(lines: Sequence[Line], i: int) -> str | None:
    """The ``In PATH line N:`` header shellcheck writes above the code it marks."""
    for j in range(i - 1, max(-1, i - 4), -1):
        if (hit := SHELLCHECK_AT.match(lines[j].text)) is not None:
            return f"{relative(hit.group('path'))}:{hit.group('line')}"
    return None


def _playwright(lines: Sequence[Line], i: int, hit: re.Match[str]) -> Diagnostic:
    """A failed Playwright test: the error under its header, the spec file and title."""
    title = hit.group("title").rstrip(" ─")
    return Diagnostic(_clip(_next_said(lines, i) or "test failed"), lines[i].number, "test",
                      f"{relative(hit.group('path'))}:{hit.group('line')} › {title}")


def _powershell(lines: Sequence[Line], i: int) -> Diagnostic | None:
    """PowerShell's error view: ``Line |``, ``N | code``, a ``~~~`` underline, then the
    error's words in the same gutter; the quoted code says what was run."""
    code: str | None = None
    for j in range(i + 1, min(i + 5, len(lines))):
        gutter = PS_GUTTER.match(lines[j].text)
        if gutter is None:
            return None
        said = gutter.group("said").strip()
        if gutter.group("n"):
            code = f"at line {gutter.group('n')} of the script: `{said[:120]}`"
        elif said and set(said) <= {"~", " "}:
            words = PS_GUTTER.match(lines[j + 1].text) if j + 1 < len(lines) else None
            if words is None or not words.group("said").strip():
                return None
            diag = Diagnostic(_clip(words.group("said")), lines[j + 1].number)
            if code:
                diag.notes.append(code)
            return diag
    return None


def _unformatted(lines: Sequence[Line], i: int) -> Diagnostic:
    """One diagnostic for a formatter's whole report: the files it would change."""
    paths: list[str] = []
    for line in lines[i:]:
        if (hit := FORMAT_DIFF.match(line.text)) is not None:
            path = relative(next(p for p in hit.groups() if p))
            if path not in paths:
                paths.append(path)
    shown = ", ".join(paths[:4]) + (f" and {len(paths) - 4} more" if len(paths) > 4 else "")
    files = "1 file is" if len(paths) == 1 else f"{len(paths)} files are"
    return Diagnostic(_clip(f"{files} not formatted as the formatter's check requires: "
                            f"{shown}"), lines[i].number)


def _went_wrong(lines: Sequence[Line], i: int) -> Diagnostic | None:
    """Gradle's ``* What went wrong:`` block, placed at the build script and line its
    ``* Where:`` block above names (a script that does not compile)."""
    said: list[str] = []
    for line in lines[i + 1:i + 8]:
        text = line.text.strip()
        if not text or text.startswith("* "):
            break
        said.append(text.lstrip("> ").strip())
    if not said:
        return None
    diag = Diagnostic(_clip(" ".join(said)), lines[i].number, "summary")
    above = [line.text.strip() for line in lines[max(0, i - 4):i] if line.text.strip()][-2:]
    if len(above) == 2 and above[0] == "* Where:" \
            and (at := GRADLE_WHERE.match(above[1])) is not None:
        diag.where = f"{relative(at.group('path'))}:{at.group('line')}"
    return diag


def _buildkit(lines: Sequence[Line], i: int, hit: re.Match[str]) -> tuple[int, Diagnostic]:
    """A docker build's error block: the tool's own error in the failing command's last
    output (read as any output is), else its last line, placed at the Dockerfile line
    buildkit names under the block; the step and command it ran say where in the build."""
    end = i + 1
    while end < len(lines) and end - i < 60 and not BUILDKIT_RULE.match(lines[end].text):
        end += 1
    said = [Line(line.number, BUILDKIT_TIME.sub("", line.text.strip()), line.at)
            for line in lines[i + 1:end]]
    inner = [d for d in diagnostics(said) if d.kind in ("error", "crash", "test", "permission")]
    last = next((line for line in reversed(said) if line.text.strip()), None)
    diag = inner[0] if inner else Diagnostic(_clip(last.text if last else "failed"),
                                             (last or lines[i]).number)
    command = " ".join(hit.group("cmd").split())
    command = command if len(command) <= 80 else command[:79].rstrip() + "…"
    diag.message = _clip(f"{diag.message.rstrip('.')} (image build step [{hit.group('stage')}] "
                         f"`{command}`)")
    for j in range(end + 1, min(end + 3, len(lines))):
        if (at := DOCKERFILE_AT.match(lines[j].text.strip())) is not None:
            place = f"{relative(at.group('path'))}:{at.group('line')}"
            if diag.where is None:
                diag.where = place
            else:
                diag.notes.append(f"in the image build at {place}")
            break
    diag.kind = "error" if diag.kind == "summary" else diag.kind
    return end - i + 1, diag


def _warned(lines: Sequence[Line], i: int,
            hit: re.Match[str]) -> tuple[int, Diagnostic | None]:
    """A tool's ``Warning:`` and the ``- `` items it lists under it (composer: the lock
    file is out of date, and which required packages it lacks)."""
    items: list[str] = []
    end = i + 1
    while end < len(lines) and (item := ITEM.match(lines[end].text)) is not None:
        items.append(item.group("item").strip().rstrip("."))
        end += 1
    said = SENTENCE_END.split(hit.group("msg"), maxsplit=1)[0]  # what, not the advice after
    if items:
        more = f" and {len(items) - 2} more" if len(items) > 2 else ""
        said = said.rstrip() + " — " + "; ".join(items[:2]) + more
    if not items:  # a warning with nothing listed under it is context ("deprecated flag")
        return 1, None
    return end - i, Diagnostic(_clip(said), lines[i].number, "warning")


def _npm(lines: Sequence[Line], i: int) -> tuple[int, Diagnostic]:
    """npm's error block: its code and first message, then the facts it lists
    (``While resolving: X``, ``Found: Y``, ``Could not resolve dependency:`` with the
    requirement on the line under it), not its advice or the log's address."""
    said: list[str] = []
    facts: list[str] = []
    step = 0
    label: str | None = None
    while i + step < len(lines) and (more := NPM.match(lines[i + step].text)):
        text = (more.group("msg") or "").strip()
        step += 1
        if not text or "/_logs/" in text:
            label = None
            continue
        if len(said) < 2:
            said.append(text)
        elif label is not None:
            facts.append(f"{label} {text}")
            label = None
        elif NPM_FACT.match(text):
            if text.endswith(":"):
                label = text
            else:
                facts.append(text)
    return max(1, step), Diagnostic(_clip("npm error: " + "; ".join(said + facts[:3])),
                                    lines[i].number)


SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("python", PYTEST_FAILED), ("python", PYTEST_E), ("tsc", TSC), ("compiler", COMPILER),
    ("go", GO_BUILD), ("eslint", ESLINT), ("rust", PANIC), ("lint", LINT_CODE),
    ("rust", RUST), ("npm", NPM), ("go", GO_FAIL), ("jest", JEST), ("marked", MARKED),
    ("prefixed", PREFIXED), ("kotlin", KOTLIN), ("format", FORMAT_DIFF), ("scala", SCALA3),
    ("javac", JAVAC), ("located", LOCATED), ("gradle", WENT_WRONG), ("make", MAKE),
    ("playwright", PLAYWRIGHT), ("powershell", PS_LINE), ("shell", SHELL), ("codespell", CODESPELL),
    ("ktlint", KTLINT), ("ruff", RULE_FIRST), ("pyright", PYRIGHT), ("shellcheck", SHELLCHECK),
    ("vitest", VITEST), ("docker", BUILDKIT), ("warning", WARNED), ("permission", PERMISSION))


def _shape(text: str) -> str:
    if TRACEBACK in text:
        return "python"
    return next((name for name, pattern in SHAPES
                 if (pattern.search(text) if pattern is PERMISSION else pattern.match(text))),
                "other")


def _told(told: Diagnostic | None) -> Diagnostic | None:
    """One of ``citools``' diagnostics, clipped, at the path the repository knows."""
    if told is not None:
        told.message = _clip(told.message)
        told.where = relative(told.where) if told.where else None
    return told


def diagnostics(lines: Sequence[Line]) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    formatter = False
    lines = citools.untagged(lines)
    audit = citools.audited(lines)
    i = 0
    while i < len(lines):
        line = lines[i]
        text = LEVEL.sub("", line.text)
        leveled = text != line.text
        step = 1
        diag = None
        told: tuple[int, Diagnostic | None] | None = None
        if TRACEBACK in text:
            end = i + 1
            while end < len(lines) and (lines[end].text[:1].isspace()
                                        or not lines[end].text.strip()):
                end += 1
            if end < len(lines) and EXCEPTION.match(lines[end].text):
                diag = Diagnostic(_clip(lines[end].text), lines[end].number, "crash")
                frame = _project_frame(lines, i + 1, end, PY_FRAME)
                if frame:
                    diag.where, diag.code = frame
                asked = text[:text.index(TRACEBACK)].strip()
                if PROMPT.search(asked):  # it waited for an answer no CI run gives
                    diag.notes.append(f"it stopped at the prompt '{asked[:80]}', which a "
                                      "non-interactive run cannot answer")
                step = end - i + 1
        elif (told := citools.early(lines, i, text, audit)) is not None:
            step, diag = told[0], _told(told[1])
        elif (hit := BUILDKIT.match(text)) is not None:
            step, diag = _buildkit(lines, i, hit)
        elif (hit := VITEST.match(text)) is not None:
            diag = Diagnostic(_clip(_next_said(lines, i) or "test failed"), line.number, "test",
                              f"{relative(hit.group('path'))} > {hit.group('title')}")
        elif (hit := PYTEST_FAILED.match(text)) is not None:
            diag = Diagnostic(_clip(hit.group("msg") or "failed"), line.number, "test",
                              hit.group("id"))
        elif (hit := PYTEST_E.match(text)) is not None:
            step, diag = _e_block(lines, i)
            start = i
            while start > 0 and i - start < 40 and not lines[start - 1].text.startswith("_"):
                start -= 1
            frame = _project_frame(lines, start, i, PYTEST_FRAME)
            if frame:
                diag.where, diag.code = frame
        elif (hit := TSC.match(text)) is not None:
            diag = Diagnostic(_clip(f"error {hit.group('code')}: "
                                    f"{citools.inline_types(hit.group('msg'))}"),
                              line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := COMPILER.match(text) or GO_BUILD.match(text)) is not None:
            diag = Diagnostic(_clip(hit.group("msg")), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif leveled and (hit := LEVELED.match(text)) is not None:
            diag = Diagnostic(_clip(hit.group("msg")), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
            quoted = LEVEL.sub("", lines[i + 1].text).strip() if i + 1 < len(lines) else ""
            if quoted and LEVEL.match(lines[i + 1].text) and not LEVELED.match(quoted):
                diag.code = quoted
        elif (hit := CMD_UNKNOWN.match(text)) is not None:
            words = [text.strip()]
            if i + 1 < len(lines) and lines[i + 1].text.strip().startswith("operable program"):
                words.append(lines[i + 1].text.strip())
            diag = Diagnostic(_clip(" ".join(words).rstrip(".,")), line.number, shape="cmd")
            step = len(words)
        elif (hit := SHELL.match(text)) is not None:
            diag = Diagnostic(_clip(hit.group("msg")), line.number,
                              where=None if RUNNER_TEMP.search(hit.group("path")) else
                              f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := CODESPELL.match(text)) is not None:
            diag = Diagnostic(_clip(f"misspelled '{hit.group('word')}' (the checker suggests "
                                    f"{hit.group('fix').strip()})"), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := KTLINT.match(text)) is not None:
            said = f"{hit.group('msg') or hit.group('msg2')} ({hit.group('rule') or hit.group('rule2')})"
            diag = Diagnostic(_clip(said), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := RULE_FIRST.match(text)) is not None and i + 1 < len(lines) \
                and (at := RUST_AT.match(lines[i + 1].text)) is not None:
            diag = Diagnostic(_clip(f"{hit.group('code')} {hit.group('msg')}"), line.number,
                              where=relative(at.group("where")))
        elif (hit := PYRIGHT.match(text)) is not None:
            diag = Diagnostic(_clip(hit.group("msg")), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := SHELLCHECK.match(text)) is not None:
            diag = Diagnostic(_clip(f"{hit.group('code')} ({hit.group('level')}): "
                                    f"{hit.group('msg')}"), line.number, where=_checked(lines, i))
        elif (hit := PLAYWRIGHT.match(text)) is not None:
            diag = _playwright(lines, i, hit)
        elif PS_LINE.match(text):
            diag = _powershell(lines, i)
        elif (hit := ESLINT.match(text)) is not None:
            rule = f" ({hit.group('rule')})" if hit.group("rule") else ""
            path = _file_above(lines, i)
            diag = Diagnostic(_clip(hit.group("msg") + rule), line.number,
                              where=f"{path}:{hit.group('line')}" if path else None)
        elif (hit := PANIC.match(text)) is not None:
            diag = _panicked(lines, i, hit)
        elif (hit := GO_PANIC.match(text)) is not None \
                and (panicked := _go_panic(lines, i, hit)) is not None:
            step, diag = panicked
        elif (hit := LINT_CODE.match(text)) is not None:
            diag = Diagnostic(_clip(f"{hit.group('code')} {hit.group('msg')}"), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := RUST.match(text)) is not None:
            check = hit.group("code") if hit.group("code") and \
                not RUSTC_CODE.match(hit.group("code")) else None
            diag = Diagnostic(_clip(f"{check}: " * bool(check) + hit.group("msg")), line.number,
                              "summary" if SUMMARY.search(text) else "error")
            for j in range(i + 1, min(i + 30, len(lines))):
                nxt = lines[j].text
                if not nxt.strip() or RUST.match(nxt):
                    break
                if (at := RUST_AT.match(nxt)) and diag.where is None:
                    diag.where = relative(at.group("where"))
                if (advisory := RUST_ID.match(nxt)) is not None:
                    diag.message = _clip(f"{diag.message} ({advisory.group('id')})")
                if (note := RUST_NOTE.match(nxt)) and len(diag.notes) < 2:
                    diag.notes.append(_clip(note.group("msg")))
            chain = [lines[j].text.strip() for j in range(i + 1, min(i + 3, len(lines)))
                     if CARGO_CHAIN.match(lines[j].text)]
            if chain and len(chain) == min(2, len(lines) - i - 1):
                diag.message = _clip(diag.message + " " + " ".join(chain))
        elif NPM.match(text) is not None:
            step, diag = _npm(lines, i)
        elif (hit := GO_FAIL.match(text)) is not None:
            name = hit.group("id").strip()
            diag = Diagnostic(_clip(_go_said(lines, i, name) or "test failed"), line.number,
                              "test", name)
        elif (hit := JEST.match(text)) is not None:
            diag = Diagnostic(_clip(_next_said(lines, i) or "test failed"), line.number,
                              "test", hit.group("id").strip())
        elif (hit := MARKED.match(text)) is not None:
            words = [hit.group("msg"), *_tail(lines, i)]
            # words ending in ':' with nothing read after them only announce the error below
            heading = len(words) == 1 and words[0].rstrip().endswith(":")
            diag = Diagnostic(_clip(" ".join(words)), line.number,
                              "summary" if SUMMARY.search(text) or heading else "error",
                              _header(lines, i))
        elif (hit := PREFIXED.match(text)) is not None:
            said = COMPONENT.sub("", hit.group("msg"))  # a logger's own component tag
            # a continuation that only says the message again (a wrapper's echo) is left out
            words = [said, *(more for more in _continued(lines, i) or _explained(lines, i)
                             if len(said) < ECHOED or said[:ECHOED].lower() not in more.lower())]
            if i + 1 < len(lines) and (cause := CAUSED_BY.match(lines[i + 1].text)):
                words.append(f"(caused by {cause.group('msg')})")  # the JVM's reason
            diag = Diagnostic(_clip(" ".join(words)), line.number,
                              "summary" if SUMMARY.search(text) or PIP_CONTEXT.match(
                                  hit.group("msg")) else "error")
            if (none := PIP_NONE.search(text)) is not None:
                diag.message = _clip(diag.message + _pip_python(lines, i, none))
        elif (hit := EXCEPTION.match(text)) is not None and hit.group("msg"):
            diag = Diagnostic(_clip(text), line.number)
        elif (hit := KOTLIN.match(text)) is not None:
            diag = Diagnostic(_clip(hit.group("msg")), line.number,
                              where=f"{relative(hit.group('path'))}:"
                                    f"{hit.group('line') or hit.group('line2')}")
        elif FORMAT_DIFF.match(text):
            if not formatter:
                formatter, diag = True, _unformatted(lines, i)
        elif (hit := SCALA3.match(text)) is not None:
            diag = _scala(lines, i, hit)
        elif (hit := JAVAC.match(text)) is not None:
            diag = Diagnostic(_clip(hit.group("msg")), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := LOCATED.match(text)) is not None and _continued(lines, i):
            diag = Diagnostic(_clip(" ".join(_continued(lines, i))), line.number,
                              where=relative(hit.group("path"))
                              + (f":{hit.group('line')}" if hit.group("line") else ""))
        elif WENT_WRONG.match(text):
            diag = _went_wrong(lines, i)
        elif (hit := WARNED.match(text)) is not None:
            step, diag = _warned(lines, i, hit)
        elif MAKE.match(text):
            diag = Diagnostic(_clip(text.strip()), line.number, "summary")
        elif (told := citools.late(lines, i, text)) is not None:
            step, diag = told[0], _told(told[1])
        elif (hit := CURL_ERROR.match(text)) is not None:
            diag = Diagnostic(_clip(text.strip()), line.number, shape="curl")
        if diag is not None:
            diag.shape = diag.shape or _shape(text)
            if diag.kind != "summary" and i + step < len(lines) and \
                    (advice := HINT.match(lines[i + step].text)) is not None:
                diag.notes.append(f"the tool says to run `{advice.group('command')}`")
            if COVERAGE.search(diag.message) and GATE.search(diag.message):
                diag.kind = "coverage"
            found.append(diag)
        elif COVERAGE.search(text) and GATE.search(text) and not text[:1].isspace():
            found.append(Diagnostic(_clip(text.strip()), line.number, "coverage"))
        i += step
    return found
