"""Tool formats of a failing step's output beyond the compilers' (issue 24).

``cidiag`` reads the shapes compilers, linters and test runners print; this module reads
the ones tools of other kinds print, by their structure:

- a tool that puts its own tag before each line (fastlane's ``[HH:MM:SS]: ``, a wrapped
  tool's ``[altool] `` and the date its own logger adds): the tag is taken off, so that
  ``ERROR:`` after it is read as anywhere else. A tag is the tool's when it opens several
  lines (times alike once their digits are blanked); a log level in brackets
  (``[error]``, ``[warn]``) is a format of its own and stays; so is the service name
  ``docker compose logs`` puts before its containers' lines (``web-1   | ``);
- the Dart and Flutter analyzer: ``SEVERITY • message • PATH:L:C • rule`` (or with
  `` - `` between the parts); only ``error`` fails the run, ``warning`` and ``info`` are
  passed over;
- Gradle's failed tests (``CLASS > TEST FAILED`` with the exception indented under it):
  the innermost exception and the first frame, or the short format's ``X at File:N``;
- a dependency audit (``bun audit``, ``npm audit``): ``NAME  RANGE`` with the advisory's
  severity and title under it, read only where the step prints the audit's summary
  (``N vulnerabilities``); the packages that pull it in are named;
- a refused HTTP request (``HTTP 403``, ``gh: … (HTTP 403)``, ``returned error: 403``,
  an HTTP client's error object with ``status: 403``), 401 and 403 being a permission:
  the request the dump under it names (method and path) and the permissions the
  response says the endpoint accepts;
- a check that the tree stays as committed (``go mod tidy``, a formatter): the git diff
  the step printed before failing, read only when it printed no cause in a known format;
- Maven's verdict on a plugin's goal (``[ERROR] Failed to execute goal G:PLUGIN:V:GOAL
  (ID) on project P: MESSAGE``, its words running on under the ``[ERROR]`` marker to
  ``-> [Help 1]``): read only when the step printed no cause in a known format (a
  formatter's check, ``spotless:check``); the plugin and goal, its message, the files of
  the list the message announces (its shallowest indented lines; deeper ones are the diff)
  and the sentence the plugin closed that list with;
- a program that speaks in its own name (``tar: out: Cannot open: …``): read only when
  the step printed no cause in any known format, and only for a program the step ran
  (``go: downloading …``, what it is doing, is progress);
- the finding a failing step ended on, when nothing above said why: its last line as
  ``SUBJECT: what is wrong`` (``service web: undefined secret "key"``; a one-word subject
  is a program's or a level's tag, left to the reading above), or the list of
  ``- SUBJECT: NAME`` items it closed with, said once with every name;
- what the exit code means when the step printed nothing that says why: for a script
  that runs curl once, its manual's exit codes (22 only under ``--fail``);
- what a package script stands for (``> pkg@1.0.0 typecheck`` then ``> tsc --build``).

It also holds ``Diagnostic``, the one shape every format's verdict is given in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from memx_cli.reflector.cisteps import Line

# a tag in brackets before a line, and the date a logger writes after it; or the service
# name ``docker compose logs`` puts before each line of its containers (``api    | ``)
# a tool's tag before each line: ``[tag]``, a compose service's ``name  |``, or buildkit's
# plain progress, the build step's number and the seconds into it (``#10 22.91 ``)
TAG = re.compile(r"^(?:\[(?P<tag>[^\]\[\s]{1,40})\]:?[ \t]+|(?P<service>[A-Za-z0-9][\w.-]{0,62}) +\| ?|"
                 r"(?P<buildkit>#\d{1,5} (?:\d{1,6}\.\d{1,3}(?: |$))?))")
DATED = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?[ \t]+")
LEVELS = re.compile(r"^(?:error|err|warn|warning|info|debug|notice|fatal|trace|verbose|"
                    r"success|ok|fail|failed|skip|!)$", re.IGNORECASE)
DIGITS = re.compile(r"\d")
TAGGED_LINES = 3  # a tag opening this many lines of the step is the tool's own
# the Dart analyzer: ``  error • message • lib/a.dart:3:5 • rule_name``
DART = re.compile(r"^\s*(?P<level>error|warning|info) (?P<sep>[•-]) (?P<msg>\S.*?) (?P=sep) "
                  r"(?P<path>[^\s:]+?\.\w+):(?P<line>\d+):\d+ (?P=sep) (?P<rule>[\w-]+)\s*$")
AUDIT_SUMMARY = re.compile(r"^\s*\d+ (?:\w+ )?(?:severity )?vulnerabilit(?:y|ies)\b",
                           re.IGNORECASE)
ADVISORY = re.compile(r"^(?P<name>(?:@[\w.-]+/)?[\w.-]+)\s{2,}(?P<range>[<>=~^*]*\s?\d\S*"
                      r"(?:\s+[<>=|]+\s?\d\S*)*)\s*$")
SEVERITY = re.compile(r"^\s*(?P<level>low|moderate|medium|high|critical):\s*(?P<title>\S.*)$",
                      re.IGNORECASE)
SEVERITY_LINE = re.compile(r"^\s*Severity:\s*(?P<level>\w+)\s*$", re.IGNORECASE)
DEPENDENT = re.compile(r"\s›\s|\s>\s")  # a chain of packages: ``workspace:api › @x/y``
ADVISORY_ID = re.compile(r"\b(GHSA(?:-[\w]{4}){3}|CVE-\d{4}-\d+)\b")
ADDRESS = re.compile(r"\s*-?\s*https?://\S+")
# a refused request: what CLIs and HTTP clients print
HTTP_STATUS = re.compile(r"\bHTTP(?:/[\d.]+)? (?P<a>[45]\d\d)\b|\(HTTP (?P<b>[45]\d\d)\)|"
                         r"returned error: (?P<c>[45]\d\d)\b|\bstatus(?: code)?:? (?P<d>[45]\d\d)\b",
                         re.IGNORECASE)
PERMISSION = re.compile(r"permission denied|permission to \S+ denied|\bEACCES\b|\bEPERM\b|403 Forbidden|"
                        r"not accessible by integration|Operation not permitted", re.IGNORECASE)
DUMP_METHOD = re.compile(r"^\s+method:\s*['\"]?(?P<method>[A-Z]{3,7})['\"]?,?\s*$")
DUMP_URL = re.compile(r"^\s+url:\s*['\"]?(?P<url>https?://[^'\"\s]+)['\"]?,?\s*$")
DUMP_STATUS = re.compile(r"^\s+status:\s*['\"]?(?P<status>[1-5]\d\d)['\"]?,?\s*$")
# a response header naming the permissions the endpoint accepts
DUMP_GRANTS = re.compile(r"^\s+['\"]?(?P<header>[\w-]*permissions)['\"]?:\s*['\"](?P<value>[^'\"]+)['\"]",
                         re.IGNORECASE)
DUMP_END = re.compile(r"^[}\]]\s*$")
DUMP_LINES = 150
# tsc spells an anonymous object type out in full: ``type '{ id: string; … 40 more }'``
# a backquoted type long enough to be cut, the module path before each name in it, and
# the length a type keeps whole once said by its names
QUOTED_TYPE = re.compile(r"`([^`\s][^`]{59,})`")
MODULE_PATH = re.compile(r"\b(?:[a-z_][a-z0-9_]*::)+(?=[A-Za-z_])")
LONG_TYPE = 60
INLINE_TYPE = re.compile(r"'\{(?P<head>[^'{}]{0,40}?;)[^']{30,}\}'")
# a package manager running a package script echoes it: ``> pkg@1.0.0 NAME /path`` and
# ``> COMMAND`` under it
PACKAGE_RUN = re.compile(r"^(?:npm|pnpm|yarn|bun)(?: run)? (?P<script>[\w:.-]+)\s*$")
SCRIPT_ECHO = re.compile(r"^> \S+@\S+ (?P<script>[\w:.-]+)(?:\s|$)")
SCRIPT_COMMAND = re.compile(r"^> (?P<command>\S.*)$")
# ``PROG: message`` where PROG is a program the step ran
SPOKEN = re.compile(r"^(?P<prog>[a-z][\w.+-]{0,30}): (?P<msg>\S.*\S)$")
NUMBERS = re.compile(r"\d+")
# a check's name in brackets closing a diagnostic's words (mypy's error codes); a
# project's file in brackets (MSBuild's ``[app.csproj]``) is no check
CHECK_NAMED = re.compile(r"\s\[(?P<check>[a-z][a-z0-9]*(?:-[a-z0-9]+)*)\]\s*$")
# a program saying what it is doing (``go: downloading MODULE``): a present participle opens
# its words, progress on the way, not what went wrong
DOING = re.compile(r"^[a-z]{3,}ing\b")
# a git diff a step printed: the check that the tree stays as committed (``go mod tidy``, a
# formatter, generated code) shows what running it changed
DIFF_HEAD = re.compile(r"^diff --git a/\S+ b/(?P<file>\S+)$")
DIFF_BODY = re.compile(r"^(?:[-+ \t@\\]|index |(?:new|deleted) file mode |similarity index |"
                       r"rename (?:from|to) |old mode |new mode |$)")
DIFF_FILES = 3  # the files a drift is said with, at most
# Maven's verdict on a plugin's goal, and the line its message runs on to
MAVEN_GOAL = re.compile(r"^\[ERROR\] Failed to execute goal [\w.-]+:(?P<plugin>[\w.-]+):[\w.-]+:"
                        r"(?P<goal>[\w.-]+)(?: \([^()]*\))? on project [^\s:]+: (?P<msg>\S.*?)\s*$")
MAVEN_HELP = re.compile(r"^\[ERROR\] -> \[Help \d+\]")
MAVEN_MORE = re.compile(r"^\[ERROR\](?P<indent>\s*)(?P<text>.*?)\s*$")
LISTED_FILE = re.compile(r"^[^\s:]+\.\w{1,10}$")  # a path alone on its line
# what a tool found, in its words: what it is about, a colon, what is wrong with it
FINDING = re.compile(r"^(?P<item>- )?(?P<subject>[A-Za-z][\w .'\"/@-]{0,60}?): (?P<said>[^\s:]\S*(?: \S+)*)$")
LISTED = 12  # the items of the list a step ended on, at most
PLACE = re.compile(r"[\w./\\-]+\.\w{1,6}:\d+(?::\d+)?")
# a path the message quotes (``'package:app/a.g.dart'``, ``'./util'``): the same error
# about another file is the same cause, as it is at another line
QUOTED_FILE = re.compile(r"(?P<q>['\"`])[^'\"`\s/]*/[^'\"`\s]*(?P=q)")
# Gradle's test report on the console (JUnit, Android instrumentation):
# ``CLASS > TEST[DEVICE] FAILED`` (``Test Run > … > CLASS > TEST`` at a finer granularity),
# then, indented, the exception (``X: message``, its ``at`` frames and ``Caused by:``) or,
# in the short format, ``X at File.kt:26``
JVM_TEST = re.compile(r"^(?P<id>[\w$][^>]*?(?: > [^>]+?)+) FAILED\s*$")
JVM_FRAME = re.compile(r"^\s+at (?P<frame>\S+?)(?:\((?P<file>[^()]*)\))?\s*$")
JVM_SHORT = re.compile(r"^\s+(?P<name>[\w.$]+) at (?P<file>\S+:\d+)\s*$")
JVM_CAUSE = re.compile(r"^\s+Caused by:(?P<msg>.*)$")
# ``a.b.XException: a.b.YException: message``: the innermost is the one said
JVM_WRAPPED = re.compile(r"^(?:[\w$]+\.)*[\w$]*(?:Exception|Error|Throwable): (?=(?:[\w$]+\.)*[\w$]*"
                         r"(?:Exception|Error|Throwable)\b)")
JVM_LINES = 40  # the indented block under a failed test, read at most
# curl's exit codes (its manual's EXIT CODES) that say why, when it printed nothing
CURL_HTTP = 22
CURL_EXITS = {6: "curl could not resolve the host", 7: "curl could not connect to the host",
              CURL_HTTP: "the server answered with an HTTP status of 400 or above, which "
                         "curl's `--fail` turns into this exit code without printing the "
                         "response",
              28: "curl's request timed out", 35: "curl's TLS handshake failed",
              60: "curl could not verify the server's certificate"}
# a test runner leaving one of its targets out, and why (the Android Gradle plugin's
# connected tests: ``Skipping device 'emulator-5554' (emulator-5554): Device is OFFLINE.``):
# the run tested fewer targets than it was given
SKIPPED_TARGET = re.compile(r"^Skipping (?P<kind>[a-z]{2,20}) '(?P<name>[^']{1,80})'"
                            r"(?: \([^()]{0,80}\))?: (?P<why>\S.{0,160}?)\.?$")
SKIPPED_SAID = 2  # targets named, at most
CURL_RUN = re.compile(r"(?:^|[|;&(]\s*|\$\(\s*|\b(?:if|then|do|!)\s+)curl\s")
FAIL_FLAG = re.compile(r"\s(?:-[a-zA-Z]*f[a-zA-Z]*|--fail(?:-with-body)?)(?=\s|$)")
CONTINUED = re.compile(r"\\\s*$")
CURL_SHOWN = 80  # characters of the curl command named (its headers and body run long)
COMMAND_WORD = re.compile(r"^\s*(?:sudo\s+)?(?P<word>[a-z][\w.+-]{0,30})(?:\s|$)")


@dataclass
class Diagnostic:
    """A line (or block) that says why a step failed, in the words of the tool that said it."""

    message: str
    number: int
    kind: str = "error"  # error, crash, test, coverage, permission, warning, summary
    where: str | None = None
    code: str | None = None  # the source line at ``where``
    notes: list[str] = field(default_factory=list)
    shape: str = ""  # which tool format said it: plain output of several tools splits on it

    @property
    def key(self) -> str:
        text = PLACE.sub("", QUOTED_FILE.sub(r"\g<q>…\g<q>", self.message.lower()))
        return " ".join(NUMBERS.sub("#", text).split()).rstrip(".:;")[:120]

    @property
    def check(self) -> str | None:
        """The check that found it, when the tool names it after its words in brackets
        (mypy's ``[no-untyped-def]``): the same check in other words is the same cause."""
        hit = CHECK_NAMED.search(self.message)
        return hit.group("check") if hit is not None else None


def _tag_key(text: str) -> str | None:
    hit = TAG.match(text)
    if hit is not None and hit.group("buildkit"):
        return "#buildkit"  # (every build step's number is the one tool's)
    tag = hit.group("tag") or hit.group("service") if hit is not None else None
    if tag is None or LEVELS.match(tag):
        return None
    return DIGITS.sub("#", tag)


def untagged(lines: Sequence[Line]) -> Sequence[Line]:
    """The lines without the tags a tool puts before each of them (and the date its
    logger writes after the tags); the lines as they are when no tag repeats."""
    counts: dict[str, int] = {}
    for line in lines:  # each tag of the line's leading run: a tool wrapping another
        text = line.text
        while (key := _tag_key(text)) is not None:
            counts[key] = counts.get(key, 0) + 1
            text = DATED.sub("", text[TAG.match(text).end():], count=1)  # type: ignore[union-attr]
    own = {key for key, n in counts.items() if n >= TAGGED_LINES}
    if not own:
        return lines
    out: list[Line] = []
    for line in lines:
        text = line.text
        while (key := _tag_key(text)) is not None and key in own:
            text = DATED.sub("", text[TAG.match(text).end():], count=1)  # type: ignore[union-attr]
        if text != line.text:
            out.append(Line(line.number, text, line.at))
        else:
            out.append(line)
    return out


def path_types(message: str) -> str:
    """A compiler's message with the long types it quotes in backquotes (Rust's
    ``std::iter::Map<std::iter::Enumerate<…>>``) said by their own names, and what they
    nest deeper than their own arguments cut (``Map<Enumerate<…>, IntoIdx<…>>``)."""
    return QUOTED_TYPE.sub(lambda hit: "`" + _short_type(hit.group(1)) + "`", message)


def _short_type(spelled: str) -> str:
    named = MODULE_PATH.sub("", spelled)
    if len(named) <= LONG_TYPE:
        return named
    out: list[str] = []
    depth = 0
    for n, char in enumerate(named):
        if char == ">" and n and named[n - 1] == "-":  # (a function type's arrow)
            pass
        elif char == "<":
            depth += 1
            if depth == 2:
                out.append("<…")
                continue
        elif char == ">":
            depth -= 1
            if depth == 1:
                out.append(">")
                continue
        if depth < 2:
            out.append(char)
    return "".join(out)


def inline_types(message: str) -> str:
    """A type checker's message with the object types it spells out cut to their first
    members (``'{ id: string; … }'``): the words around them say what is wrong."""
    return INLINE_TYPE.sub(lambda hit: "'{" + hit.group("head") + " … }'", message)


def audited(lines: Iterable[Line]) -> bool:
    """Does the output hold a dependency audit's summary (``3 vulnerabilities``)?"""
    return any(AUDIT_SUMMARY.match(line.text) for line in lines)


def _advisory(lines: Sequence[Line], i: int,
              hit: re.Match[str]) -> tuple[int, Diagnostic] | None:
    """An audit's advisory: the package and range, its severity and title, and the
    packages that depend on it (the last name of each chain listed under it)."""
    level = title = None
    via: list[str] = []
    j = i + 1
    while j < len(lines) and j - i <= 12 and lines[j].text.strip() \
            and not ADVISORY.match(lines[j].text):
        text = lines[j].text
        if (rated := SEVERITY.match(text)) is not None and title is None:
            level, title = rated.group("level").lower(), rated.group("title")
        elif (rated := SEVERITY_LINE.match(text)) is not None:
            level = rated.group("level").lower()
            if j + 1 < len(lines) and lines[j + 1].text.strip():
                title = lines[j + 1].text.strip()
                j += 1
        elif DEPENDENT.search(text):
            name = DEPENDENT.split(text.strip())[-1].strip()
            if name and name not in via:
                via.append(name)
        j += 1
    if title is None:
        return None
    ids = ADVISORY_ID.findall(title)
    title = ADDRESS.sub("", title).strip()
    said = f"{hit.group('name')} {' '.join(hit.group('range').split())}: {level} advisory: {title}"
    if ids and ids[0] not in title:
        said += f" ({ids[0]})"
    notes = [f"pulled in via {', '.join(via[:4])}"] if via else []
    return j - i, Diagnostic(said, lines[i].number, notes=notes, shape="audit")


def early(lines: Sequence[Line], i: int, text: str,
          audit: bool) -> tuple[int, Diagnostic | None] | None:
    """A verdict in the analyzer's or an audit's format at line ``i``, if any."""
    if (hit := DART.match(text)) is not None:
        if hit.group("level") != "error":  # only errors fail the analysis
            return 1, None
        return 1, Diagnostic(f"{hit.group('msg')} ({hit.group('rule')})", lines[i].number,
                             where=f"{hit.group('path')}:{hit.group('line')}", shape="dart")
    if audit and (hit := ADVISORY.match(text)) is not None:
        return _advisory(lines, i, hit)
    if (hit := JVM_TEST.match(text)) is not None and i + 1 < len(lines) \
            and lines[i + 1].text[:1].isspace() and lines[i + 1].text.strip():
        return _jvm_test(lines, i, hit.group("id").strip())
    return None


def _unwrapped(said: str) -> str:
    """The innermost of exceptions wrapping each other on one line."""
    while (hit := JVM_WRAPPED.match(said)) is not None:
        said = said[hit.end():]
    return said


def _jvm_test(lines: Sequence[Line], i: int, test: str) -> tuple[int, Diagnostic]:
    """A test Gradle reports failed, with the exception indented under it: its innermost
    cause (the last ``Caused by:``, its exception on the same line or the next, else the
    exception's own line) and the first frame (``at``), or the short format's
    ``X at File.kt:26``. Blank lines inside the indented block do not end it."""
    said = frame = None
    caused = False
    end = i + 1
    while end < len(lines) and end - i <= JVM_LINES:
        text = lines[end].text
        if not text.strip():
            if end + 1 < len(lines) and lines[end + 1].text[:1].isspace() \
                    and lines[end + 1].text.strip():
                end += 1
                continue
            break
        if not text[:1].isspace():
            break
        if (short := JVM_SHORT.match(text)) is not None and said is None:
            said, frame = short.group("name"), short.group("file")
        elif (at := JVM_FRAME.match(text)) is not None:
            if frame is None:
                frame = at.group("frame") + (f", {at.group('file')}" if at.group("file") else "")
        elif (cause := JVM_CAUSE.match(text)) is not None:
            said, caused = cause.group("msg").strip() or said, not cause.group("msg").strip()
        elif said is None or caused:
            said, caused = text.strip(), False
        end += 1
    message = _unwrapped(said or "failed")
    if frame:
        message = f"{message.rstrip()} (at {frame})"
    return end - i, Diagnostic(message, lines[i].number, "test", test, shape="junit")


def _status(text: str) -> int | None:
    hit = HTTP_STATUS.search(text)
    if hit is None:
        return None
    return int(next(group for group in hit.groups() if group))


def _request(lines: Sequence[Line], i: int) -> tuple[int, list[str], int | None]:
    """The dumped error object under a refused request (an HTTP client's ``status``,
    ``request: {method, url}``, the response's headers): how many lines it takes, what
    it says about the request, and the status it names."""
    method = url = None
    status = None
    grants: list[str] = []
    end = i + 1
    while end < len(lines) and end - i < DUMP_LINES:
        text = lines[end].text
        if DUMP_END.match(text):
            end += 1
            break
        if not text[:1].isspace() and text.strip():
            break
        if (hit := DUMP_METHOD.match(text)) is not None:
            method = hit.group("method")
        elif (hit := DUMP_URL.match(text)) is not None:
            url = hit.group("url")
        elif (hit := DUMP_STATUS.match(text)) is not None and status is None:
            status = int(hit.group("status"))
        elif (hit := DUMP_GRANTS.match(text)) is not None:
            grants.append(f"{hit.group('value')} ({hit.group('header').lower()})")
        end += 1
    notes = []
    if url is not None:
        path = "/" + url.split("://", 1)[1].split("/", 1)[-1].split("?")[0] if "/" in \
            url.split("://", 1)[1] else url
        notes.append(f"the request was {method + ' ' if method else ''}{path}")
    if grants:
        notes.append("the response says the endpoint accepts the permissions "
                     + ", ".join(grants[:2]))
    return (end - i if notes or status else 1), notes, status


def late(lines: Sequence[Line], i: int, text: str) -> tuple[int, Diagnostic | None] | None:
    """A refused request or a denied permission at line ``i``, if any."""
    status = _status(text)
    denied = PERMISSION.search(text) is not None
    if status is None and not denied:
        return None
    read, notes, dumped = _request(lines, i)
    status = status or dumped
    kind = "permission" if denied or status in (401, 403) else "error"
    said = text.strip()
    if status is not None and str(status) not in said:
        said += f" (HTTP {status})"
    return read, Diagnostic(said, lines[i].number, kind, notes=notes,
                            shape="http" if status is not None and not denied else "permission")


def _programs(script: Iterable[str], lines: Iterable[Line]) -> set[str]:
    """The programs a step ran: the first word of each line of its script (a composite
    action echoes its own script into the output)."""
    words = set()
    for text in (*script, *(line.text for line in lines)):
        if (hit := COMMAND_WORD.match(text)) is not None:
            words.add(hit.group("word"))
    return words


def spoken(lines: Sequence[Line], script: Iterable[str]) -> list[tuple[int, str]]:
    """The lines a program the step ran printed in its own name (``tar: out: Cannot
    open: No such file or directory``), first to last: read when no other format
    said why the step failed."""
    programs = _programs(script, [line for line in lines if not SPOKEN.match(line.text)])
    found = []
    for line in lines:
        hit = SPOKEN.match(line.text)
        if hit is not None and hit.group("prog") in programs and " " in hit.group("msg") \
                and not LEVELS.match(hit.group("prog")) \
                and not DOING.match(hit.group("msg")):  # ``warning: …`` is no program
            found.append((line.number, line.text.strip()))
    return found


def _commands(script: Iterable[str]) -> list[str]:
    """The script's commands, a line continued with a trailing backslash joined to the
    next."""
    out: list[str] = []
    held = ""
    for line in script:
        text = held + " " + line.strip() if held else line.strip()
        if CONTINUED.search(text):
            held = CONTINUED.sub("", text).rstrip()
            continue
        held = ""
        if text:
            out.append(text)
    return out + ([held] if held else [])


def exited(script: Sequence[str], code: int | None) -> tuple[str, str] | None:
    """What the step's exit code says, when it printed no words of its own: a script that
    runs curl once, and curl's documented meaning of that code (22 only under ``--fail``,
    which prints no response body; ``-s`` keeps curl's own error out of the log too).
    The curl command and the meaning, or None."""
    if code is None or code not in CURL_EXITS:
        return None
    runs = [command for command in _commands(script) if CURL_RUN.search(command)]
    if len(runs) != 1 or (code == CURL_HTTP and not FAIL_FLAG.search(runs[0])):
        return None
    command = runs[0]
    shown = command if len(command) <= CURL_SHOWN else command[:CURL_SHOWN - 1].rstrip() + "…"
    return shown, CURL_EXITS[code]


def script_runs(command: str | None, lines: Sequence[Line]) -> str | None:
    """What a package script the step ran stands for (``pnpm typecheck`` runs ``tsc
    --build``), as the package manager echoed it."""
    hit = PACKAGE_RUN.match(command or "")
    if hit is None:
        return None
    for n, line in enumerate(lines[:-1]):
        echo = SCRIPT_ECHO.match(line.text)
        if echo is not None and echo.group("script") == hit.group("script"):
            run = SCRIPT_COMMAND.match(lines[n + 1].text)
            return run.group("command").strip()[:200] if run else None
    return None


def _finding(text: str) -> re.Match[str] | None:
    hit = FINDING.match(text.strip())
    # a one-word label is a program's or a log level's tag: ``spoken`` decides on those
    if hit is None or " " not in hit.group("subject").strip() or "://" in text:
        return None
    return hit


def last_words(lines: Sequence[Line]) -> list[Diagnostic]:
    """The finding a failing step ended on, read when it printed no cause in any known
    format nor in a program's own name: its last line when that states what is wrong with
    something (``SUBJECT OF SEVERAL WORDS: at least two words``), or the ``- SUBJECT: NAME``
    items it closed with (one subject, said once with every name). A last line of another
    shape (progress, a count, a bare word), or one closing a block of other ``key: value``
    lines (a report of settings), is no cause."""
    said = [line for line in lines if line.text.strip()]
    if not said:
        return []
    last = _finding(said[-1].text)
    if last is None:
        return []
    if last.group("item"):
        subject, first = last.group("subject"), said[-1]
        names: list[str] = []
        for line in reversed(said[-LISTED:]):
            hit = _finding(line.text)
            if hit is None or not hit.group("item") or hit.group("subject") != subject:
                break
            names.insert(0, hit.group("said"))
            first = line
        if len(names) > 1:
            return [Diagnostic(f"{subject}: {', '.join(names)}", first.number)]
    if " " not in last.group("said"):
        return []
    above = _finding(said[-2].text) if len(said) > 1 else None
    if above is not None and above.group("subject") != last.group("subject"):
        return []
    return [Diagnostic(said[-1].text.strip(), said[-1].number)]


def goal_failed(lines: Sequence[Line]) -> list[Diagnostic]:
    """Maven's verdict on a plugin's goal, read when the failing step printed no cause in
    a known format: ``PLUGIN:GOAL: MESSAGE``; a message that announces a list (it ends
    with a colon) is said with the files listed at the block's shallowest indent (a
    heading at the marker's own level, ``Violations also present in:``, goes on with the
    same list) and the sentence the plugin closed the block with."""
    for n, line in enumerate(lines):
        hit = MAVEN_GOAL.match(line.text.strip())
        if hit is None:
            continue
        said = f"{hit.group('plugin')}:{hit.group('goal')}: {hit.group('msg')}"
        if not said.endswith(":"):
            return [Diagnostic(said, line.number)]
        items: list[tuple[int, str]] = []
        closing = ""
        for more in lines[n + 1:]:
            block = MAVEN_MORE.match(more.text.strip()) if not MAVEN_HELP.match(
                more.text.strip()) else None
            if block is None:
                break
            depth, text = len(block.group("indent").expandtabs()), block.group("text")
            if text and depth <= 1:
                closing = "" if text.endswith(":") else text
            elif text and LISTED_FILE.match(text):
                items.append((depth, text))
        shallowest = min((depth for depth, _ in items), default=0)
        files = list(dict.fromkeys(text for depth, text in items if depth == shallowest))
        if files:
            said += " " + ", ".join(files[:DIFF_FILES]) + (
                f" and {len(files) - DIFF_FILES} more" if len(files) > DIFF_FILES else "")
        said = said.rstrip(":")
        if closing:
            said += f". {closing}"
        return [Diagnostic(said, line.number)]
    return []


def drifted(lines: Sequence[Line]) -> list[Diagnostic]:
    """A check that the tree stays as committed, read when the failing step printed no
    cause in any known format: the git diff it printed before failing is what running the
    check changed. Said with the line that introduced the diff (``go mod tidy resulted in
    changes:``), the files it changed and the words the step closed with after it."""
    found = [(n, hit.group("file")) for n, line in enumerate(lines)
             if (hit := DIFF_HEAD.match(line.text.strip())) is not None]
    if not found:
        return []
    heads = [n for n, _ in found]
    files = list(dict.fromkeys(file for _, file in found))
    before = lines[heads[0] - 1].text.strip() if heads[0] > 0 else ""
    after = [line.text.strip() for line in lines[heads[-1] + 1:]
             if not DIFF_BODY.match(line.text) and not DIFF_HEAD.match(line.text.strip())]
    shown = ", ".join(files[:DIFF_FILES]) + (f" and {len(files) - DIFF_FILES} more"
                                              if len(files) > DIFF_FILES else "")
    said = (f"{before.rstrip(':').rstrip()} (the diff changes {shown})" if before.endswith(":")
            else f"the check's diff changes {shown}")
    if after:
        said += f": {after[-1]}"
    return [Diagnostic(said, lines[heads[0]].number)]


def skipped(lines: Iterable[Line]) -> list[str]:
    """The targets a failing step's runner left out, with its reason, each once."""
    said: list[str] = []
    for line in lines:
        hit = SKIPPED_TARGET.match(line.text.strip())
        if hit is not None:
            told = f"{hit.group('kind')} '{hit.group('name')}' ({hit.group('why')})"
            if told not in said:
                said.append(told)
            if len(said) == SKIPPED_SAID:
                break
    return said
