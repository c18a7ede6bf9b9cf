"""Readers of a diagnostic that spans lines: a block's words, the frame or header that
places it, and a message clipped to the length a diagnostic keeps (issue 24).

Each reader starts at the line whose shape ``cishapes`` matched (a panic's header,
Gradle's ``* What went wrong:``, PowerShell's ``Line |``) and reads the lines around it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memx_cli.reflector.cipaths import ABSOLUTE, OUTSIDE, relative
from memx_cli.reflector.cishapes import (
    EXCEPTION,
    FORMAT_DIFF,
    GO_FAIL,
    LEVEL,
    NPM,
    PY_FRAME,
    PYTEST_E,
    shape,
)
from memx_cli.reflector.cisteps import Line
from memx_cli.reflector.citools import Diagnostic

MAX_MESSAGE = 300
# a test runner's progress column on a line of its own (pytest's right-aligned ``[100%]``,
# pushed down when another tool wrote in the middle of the dots): no words of a message
PROGRESS_COLUMN = re.compile(r"^\s*\[\s*\d{1,3}%\]\s*$")
# shellcheck's header above the code it marks: ``In PATH line N:``
SHELLCHECK_AT = re.compile(r"^In (?P<path>\S+) line (?P<line>\d+):$")
NPM_FACT = re.compile(r"^[A-Z][\w ]{2,40}:(?:\s+\S.*)?$")  # "Found: vite@8.0.3", "Could not …:"
GO_RUN = re.compile(r"^\s*=== (?:RUN|CONT|PAUSE|NAME)\s+(?P<id>\S+)")
GO_SAID = re.compile(r"^\s+(?P<where>[^\s:]+\.go:\d+): (?P<msg>\S.*)$")
ITEM = re.compile(r"^\s{0,4}- (?P<item>\S.*)$")
SENTENCE_END = re.compile(r"(?<=[.!])\s+(?=[A-Z])")
# a Go panic's goroutine: ``goroutine N [running]:``, then its frames, innermost first: the
# function's line, then a tab and ``PATH:LINE +0x…``
GOROUTINE = re.compile(r"^goroutine \d+ \[[^\]]{1,60}\]:$")
GO_FRAME = re.compile(r"^\t(?P<path>\S+\.go):(?P<line>\d+)(?: \+0x[0-9a-f]+)?$")
GO_PANIC_LINES = 8  # from the panic to its goroutine's header, at most
GO_FRAMES = 40  # frame lines read, at most
MODULE_CACHE = re.compile(r"/pkg/mod/")  # a dependency's source, never the project's
OPERAND = re.compile(r"^\s*(?:left|right)\s*:\s*\S")
HEADER_PATH = re.compile(r"(?P<path>[\w./\\-]+\.[A-Za-z]\w{0,5})(?::\d+(?::\d+)?)?\b")
# the ``* Where:`` block above Gradle's ``* What went wrong:``: the build script Gradle failed in, and the line
GRADLE_WHERE = re.compile(r"^(?:(?:Build|Settings|Init) file|Script) '(?P<path>[^']{1,300})' "
                          r"line: (?P<line>\d+)$")
# PowerShell's gutter under ``Line |``: the line number and the code, then its words
PS_GUTTER = re.compile(r"^\s*(?P<n>\d+)?\s*\|\s?(?P<said>.*)$")
# Scala 3's gutter under its error's header
GUTTER = re.compile(r"^\s*(?:\d+\s*)?\|\s?(?P<said>.*)$")
PIP_PYTHONS = re.compile(r"require a different python version: (?P<list>.+)$")
URL = re.compile(r"\s*\bfrom https?://\S+|https?://\S{50,}")
# Terraform's diagnostic drawn in a box (``╷``, a ``│ `` gutter, ``╵``), and the place it
# names in it (``on main.tf line 12, in resource "…":``)
BOX_GUTTER = re.compile(r"^[│╷╵](?: |$)")
BOX_PLACE = re.compile(r"^\s+on (?P<path>\S+) line (?P<line>\d+)\b")
BOX_LINES = 8  # the lines under a boxed error read for its place
CMAKE_LINES = 6  # the indented lines of CMake's error said with it
# a trace of bare ``PATH:LINE`` frames under an exception's words, innermost first (PHPUnit)
BARE_FRAME = re.compile(r"^(?P<path>\S+\.\w+):(?P<line>\d+)$")
TRACE_GAP = 6  # the exception's own lines read before its trace starts


def clip(text: str) -> str:
    text = " ".join(URL.sub("", text).split())
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1].rstrip() + "…"


def project_frame(lines: Sequence[Line], start: int, end: int,
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


def continued(lines: Sequence[Line], i: int, limit: int = 2) -> list[str]:
    """The indented lines that continue a message (pip's list of unpinned requirements)."""
    out: list[str] = []
    for j in range(i + 1, min(i + 1 + limit, len(lines))):
        text = lines[j].text
        if not text[:1].isspace() or not text.strip() or PROGRESS_COLUMN.match(text):
            break
        out.append(text.strip())
    return out


def explained(lines: Sequence[Line], i: int) -> list[str]:
    """A block that explains the error just after it: a line ending in ``:`` and its
    indented items (pip's "The conflict is caused by:")."""
    j = i + 1
    while j < len(lines) and j <= i + 2 and not lines[j].text.strip():
        j += 1
    if j >= len(lines) or j == i + 1 or not lines[j].text.rstrip().endswith(":") \
            or lines[j].text[:1].isspace():
        return []
    items = continued(lines, j, 3)
    return [lines[j].text.strip(), "; ".join(items)] if items else []


def header(lines: Sequence[Line], i: int) -> str | None:
    """The file a marked block is about: the line just above it (blank lines apart)
    starts with its path."""
    for j in range(i - 1, max(-1, i - 4), -1):
        text = lines[j].text
        if not text.strip():
            continue
        hit = HEADER_PATH.match(text)
        return hit.group(0) if hit and "://" not in text[:hit.end() + 3] else None
    return None


def file_above(lines: Sequence[Line], i: int) -> str | None:
    """ESLint's stylish format names the file on a line of its own above its findings."""
    for j in range(i - 1, max(-1, i - 200), -1):
        text = lines[j].text
        if text.strip() and not text[:1].isspace():
            hit = HEADER_PATH.match(text)
            return relative(hit.group("path")) if hit else None
    return None


def next_said(lines: Sequence[Line], i: int) -> str:
    """The first words under a failing test's header (jest, go test, a Rust panic)."""
    for j in range(i + 1, min(i + 6, len(lines))):
        if lines[j].text.strip():
            return lines[j].text.strip()
    return ""


def go_said(lines: Sequence[Line], i: int, name: str) -> str:
    """What a failing Go test printed: ``go test -v`` writes the test's ``file.go:N:``
    lines between its ``=== RUN`` and its ``--- FAIL``, plain ``go test`` under it. A test
    whose subtests failed prints their ``--- FAIL: Test/sub`` under its own, with nothing
    of its own: what the first subtest printed is what failed."""
    below = next_said(lines, i)
    sub = GO_FAIL.match(below)
    if sub is not None and sub.group("id").startswith(name + "/"):
        j = next(j for j in range(i + 1, len(lines)) if lines[j].text.strip())
        return go_said(lines, j, sub.group("id"))
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


def panicked(lines: Sequence[Line], i: int, hit: re.Match[str]) -> Diagnostic:
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
    return Diagnostic(clip(f"{who}panicked: {said}"), lines[i].number,
                      where=relative(hit.group("where")))


def go_panic(lines: Sequence[Line], i: int, hit: re.Match[str]) -> tuple[int, Diagnostic] | None:
    """A Go panic, when its goroutine's trace follows: what it said, and the innermost
    frame of the project's own code (not a module's from the module cache, nor the
    standard library's: an import path whose first element has no dot, other than main)."""
    head = next((j for j in range(i + 1, min(i + GO_PANIC_LINES, len(lines)))
                 if GOROUTINE.match(lines[j].text)), None)
    if head is None:
        return None
    diag = Diagnostic(clip(f"panic: {hit.group('msg')}"), lines[i].number, "crash")
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


def scala(lines: Sequence[Line], i: int, hit: re.Match[str]) -> Diagnostic:
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
    return Diagnostic(clip(message), lines[i].number,
                      where=f"{relative(hit.group('path'))}:{hit.group('line')}")


def pip_python(lines: Sequence[Line], i: int, none: re.Match[str]) -> str:
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


def tail(lines: Sequence[Line], i: int) -> list[str]:
    """A script gate's own words after its mark, when they are the end of the step."""
    if len(lines) - i > 40:  # far from the end: not a gate's last words (and no rescans)
        return []
    rest = [ln.text.strip() for ln in lines[i + 1:] if ln.text.strip()]
    if len(rest) > 8:
        return []
    # they end where another tool's verdict starts (the wrapper's error that ran the gate)
    other = next((n for n, text in enumerate(rest) if shape(text) != "other"), len(rest))
    return rest[:other]


def e_block(lines: Sequence[Line], i: int) -> tuple[int, Diagnostic]:
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
    diag = Diagnostic(clip(said[pick]), lines[i + pick].number)
    for n, text in enumerate(said[:pick]):
        hit = PY_FRAME.match(" " + text)  # E's words lose the indent
        if hit and not OUTSIDE.search(hit.group("path")):
            diag.where = f"{relative(hit.group('path'))}:{hit.group('line')}"
            quoted = said[n + 1].strip() if n + 1 < pick else ""
            diag.code = quoted if quoted and set(quoted) - {"^", "~"} else None
    return end - i, diag


def checked(lines: Sequence[Line], i: int) -> str | None:
    """The ``In PATH line N:`` header shellcheck writes above the code it marks."""
    for j in range(i - 1, max(-1, i - 4), -1):
        if (hit := SHELLCHECK_AT.match(lines[j].text)) is not None:
            return f"{relative(hit.group('path'))}:{hit.group('line')}"
    return None


def playwright(lines: Sequence[Line], i: int, hit: re.Match[str]) -> Diagnostic:
    """A failed Playwright test: the error under its header, the spec file and title."""
    title = hit.group("title").rstrip(" ─")
    return Diagnostic(clip(next_said(lines, i) or "test failed"), lines[i].number, "test",
                      f"{relative(hit.group('path'))}:{hit.group('line')} › {title}")


def powershell(lines: Sequence[Line], i: int) -> Diagnostic | None:
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
            diag = Diagnostic(clip(words.group("said")), lines[j + 1].number)
            if code:
                diag.notes.append(code)
            return diag
    return None


def unformatted(lines: Sequence[Line], i: int) -> Diagnostic:
    """One diagnostic for a formatter's whole report: the files it would change."""
    paths: list[str] = []
    summary: str | None = None  # the formatter's own words after its files, in their prefix
    for n, line in enumerate(lines[i:], i):
        if (hit := FORMAT_DIFF.match(line.text)) is not None:
            path = relative(next(p for p in hit.groups() if p))
            if path not in paths:
                paths.append(path)
            label = line.text[:hit.start(hit.lastgroup or 0)]
            after = lines[n + 1].text if n + 1 < len(lines) else ""
            if label.strip() and after.startswith(label) and not FORMAT_DIFF.match(after):
                summary = after[len(label):].strip()
    shown = ", ".join(paths[:4]) + (f" and {len(paths) - 4} more" if len(paths) > 4 else "")
    files = "1 file is" if len(paths) == 1 else f"{len(paths)} files are"
    said = summary.rstrip(".") if summary else \
        f"{files} not formatted as the formatter's check requires"
    return Diagnostic(clip(f"{said}: {shown}"), lines[i].number)


def went_wrong(lines: Sequence[Line], i: int) -> Diagnostic | None:
    """Gradle's ``* What went wrong:`` block, placed at the build script and line its
    ``* Where:`` block above names (a script that does not compile)."""
    said: list[str] = []
    end = i + 1
    for line in lines[i + 1:i + 8]:
        text = line.text.strip()
        if not text or text.startswith("* "):
            break
        said.append(text.lstrip("> ").strip())
        end += 1
    if not said:
        return None
    if said[-1].endswith(":"):  # a heading ("Script compilation error:"): what it is about
        said[-1] = said[-1] + " " + _under_heading(lines, end)  # is the paragraph under it
    diag = Diagnostic(clip(" ".join(said).rstrip(": ")), lines[i].number, "summary")
    above = [line.text.strip() for line in lines[max(0, i - 4):i] if line.text.strip()][-2:]
    if len(above) == 2 and above[0] == "* Where:" \
            and (at := GRADLE_WHERE.match(above[1])) is not None:
        diag.where = f"{relative(at.group('path'))}:{at.group('line')}"
    return diag


def _under_heading(lines: Sequence[Line], start: int) -> str:
    """The paragraph after the blank line under a heading of Gradle's block: the message a
    caret points with (``^ Unresolved reference: x`` under the script's line), else its
    first line."""
    for _ in range(2):  # (the blank line Gradle leaves under it)
        if start < len(lines) and not lines[start].text.strip():
            start += 1
    paragraph: list[str] = []
    for line in lines[start:start + 6]:
        text = line.text.strip()
        if not text or text.startswith("* "):
            break
        paragraph.append(text)
    pointed = next((text.lstrip("^ ").strip() for text in paragraph
                    if text.startswith("^") and text.lstrip("^ ").strip()), None)
    return pointed or (paragraph[0] if paragraph else "")


def warned(lines: Sequence[Line], i: int,
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
    return end - i, Diagnostic(clip(said), lines[i].number, "warning")


def npm(lines: Sequence[Line], i: int) -> tuple[int, Diagnostic]:
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
    return max(1, step), Diagnostic(clip("npm error: " + "; ".join(said + facts[:3])),
                                    lines[i].number)


def unboxed(lines: Sequence[Line]) -> Sequence[Line]:
    """The lines of a diagnostic drawn in a box (Terraform's ``╷``, ``│ `` gutter, ``╵``)
    without its gutter, so that its ``Error:`` reads as any tool's; the lines as they are
    when there is no box."""
    if not any(BOX_GUTTER.match(line.text) for line in lines):
        return lines
    return [Line(line.number, BOX_GUTTER.sub("", line.text, count=1), line.at)
            if BOX_GUTTER.match(line.text) else line for line in lines]


def boxed_place(lines: Sequence[Line], i: int) -> str | None:
    """The place an ``Error:`` names in the lines under it (Terraform's box: ``on PATH
    line N, in …:``), up to the next error."""
    for line in lines[i + 1:i + BOX_LINES]:
        if (at := BOX_PLACE.match(line.text)) is not None:
            return f"{relative(at.group('path'))}:{at.group('line')}"
        if line.text.startswith(("Error:", "Warning:")):
            break  # (the next diagnostic)
    return None


def cmake(lines: Sequence[Line], i: int, hit: re.Match[str]) -> tuple[int, Diagnostic]:
    """CMake's error: its words (on its line or indented under it, up to a blank line), at
    the file and line it names."""
    words = [hit.group("msg")] if hit.group("msg") else []
    end = i + 1
    while end < len(lines) and end - i <= CMAKE_LINES and lines[end].text[:1].isspace() \
            and lines[end].text.strip():
        words.append(lines[end].text.strip())
        end += 1
    where = f"{relative(hit.group('path'))}:{hit.group('line')}" if hit.group("path") else None
    return end - i, Diagnostic(clip(" ".join(words) or "CMake failed"), lines[i].number,
                               where=where)


def listed_frame(lines: Sequence[Line], i: int) -> str | None:
    """The first project frame of the bare ``PATH:LINE`` trace printed under an exception's
    words (PHPUnit's, innermost first: a framework's frame under ``vendor/`` is not the
    project's)."""
    j = i + 1
    while j < len(lines) and j - i <= TRACE_GAP and lines[j].text.strip() \
            and not BARE_FRAME.match(lines[j].text.strip()):
        j += 1  # the rest of the exception's words
    while j < len(lines) and j - i <= TRACE_GAP and not lines[j].text.strip():
        j += 1
    while j < len(lines) and (frame := BARE_FRAME.match(lines[j].text.strip())) is not None:
        if not OUTSIDE.search(frame.group("path")):
            return f"{relative(frame.group('path'))}:{frame.group('line')}"
        j += 1
    return None
