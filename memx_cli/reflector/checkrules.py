"""A checker's rules, learnt from a session (issue 24): a linter or type checker run fails
with several findings, each naming the rule it broke (golangci-lint's ``(gocritic)``,
ruff's ``F401``, mypy's ``[arg-type]``, tsc's ``TS2345``, ESLint's ``no-unused-vars``,
clippy's ``clippy::needless_return``), the agent edits, and the same command later passes.
What a senior engineer keeps is the rules this repository's checkers enforce and what
satisfied each one, not the wrapper's "task failed" nor the agent's "two issues to fix".

The findings are read by their shape, never by the checker's words:

- ``PATH:L[:C]: MESSAGE (name)`` — golangci-lint, staticcheck, pylint: the name in brackets
  is the linter; a leading ``token:`` of the message is its check (gocritic's
  ``appendAssign:``, gosec's ``G104:``, staticcheck's ``SA1019:``, pylint's ``W0611:``);
- ``PATH:L[:C]: [error|warning|note]: MESSAGE [code]`` — mypy, shellcheck's gcc format;
- ``PATH:L:C: CODE MESSAGE`` (ruff concise, flake8), ``CODE MESSAGE`` with ``--> PATH:L:C``
  under it (ruff full), ``PATH(L,C): error TSNNNN:`` (tsc), rubocop's
  ``PATH:L:C: X: Dept/Cop: MESSAGE``;
- ESLint's stylish table: the file on a line of its own, then ``L:C  level  MESSAGE  rule``;
- rustc / clippy blocks: ``warning|error: MESSAGE``, ``--> PATH:L:C``, the lint named in
  its notes (``#[warn(clippy::x)]``, ``-D clippy::x``).

The code a finding quotes (golangci-lint's line above its caret, ruff's and rustc's frame
``L | code``), or else the names its message quotes, is what ties it to the edit that
removed it: an accepted edit of the same file whose replaced lines hold it. The memory
says, per rule, the finding's own message and the replaced → new code, or that a directive
(``//nolint:x``, ``# noqa: X``, ``eslint-disable``, ``# type: ignore[x]``, ``@ts-ignore``,
``#[allow(x)]``) silenced it rather than fixing it; a rule no edit shows is only named.

A finding that says the code does not build is no rule: golangci-lint passes the
compiler's errors on after the build's package line (``a.go:1: : # example.com/pkg``) and
tags the block's last line ``(typecheck)``. Such a name (``PLACE``, ``BUILD``, ``UNBUILT``)
is set aside; a run of compile errors is an episode's Error/Fix.

An episode is kept when a run has at least ``MIN_FINDINGS`` findings (one finding is an
episode's Error/Fix already, ``episodes.py``), an edit was accepted after it, and the same
command (without its output filters and redirections) later passes: no finding, not
failed, no failure verdict. A run that never goes green gives nothing. The episode's own
Error/Fix of the same run is the worse duplicate: ``detector.finish`` drops it.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.cishapes import LINT_CODE, RULE_FIRST, RUST_AT, TSC
from memx_cli.reflector.reruns import PIPE, looks_only, reruns, unfiltered
from memx_cli.reflector.turn import Turn

MIN_FINDINGS = 2
MAX_FINDINGS = 12  # per episode: the memory names a few rules, not a whole report
MAX_READ = 4 * MAX_FINDINGS  # findings of one output read, those that say it does not build too
MAX_RULES = 5  # rules the memory tells
MAX_EDITS = 40  # edits an open run remembers
MAX_OPEN = 4  # checker runs waiting for their green rerun
MAX_CODE = 90  # characters of code on either side of an arrow
MAX_MESSAGE = 110

# golangci-lint, staticcheck, pylint: ``PATH:L[:C]: MESSAGE (name)``
NAMED = re.compile(r"^(?P<path>[^\s:()]*[A-Za-z][^\s:()]*\.\w+):(?P<line>\d+):\d+:\s+"
                   r"(?P<msg>\S.*?)\s+\((?P<name>[A-Za-z][\w-]{1,40})\)$")
# mypy, shellcheck (gcc format), pyright's rule: ``PATH:L[:C]: LEVEL: MESSAGE  [code]``
CODED = re.compile(r"^(?P<path>[^\s:()]*[A-Za-z][^\s:()]*\.\w+):(?P<line>\d+)(?::\d+)?:\s+"
                   r"(?:error|warning|note|info|style):\s+(?P<msg>\S.*?)\s+"
                   r"\[(?P<name>[A-Za-z][\w-]{1,40})\]$")
# rubocop: ``PATH:L:C: C: [Correctable] Style/StringLiterals: MESSAGE``
COP = re.compile(r"^(?P<path>[^\s:]+\.\w+):(?P<line>\d+):\d+: [A-Z]: (?:\[[\w ]+\] )?"
                 r"(?P<name>[A-Z]\w+/[A-Z]\w+): (?P<msg>\S.*)$")
# the check a message names first: ``appendAssign: …``, ``G104: …``, ``SA1019: …``
LEADING = re.compile(r"^(?P<check>[A-Za-z][A-Za-z0-9]{1,40}):\s+(?=\S)")
# ESLint's stylish table: ``  12:5  error  MESSAGE  rule-name``
ESLINT_ROW = re.compile(r"^\s+(?P<line>\d+):\d+\s+(?:error|warning)\s+(?P<msg>\S.*?)\s{2,}"
                        r"(?P<name>(?:@[\w-]+/)?[\w-]+(?:/[\w-]+)?)\s*$")
FILE_HEADER = re.compile(r"^(?P<path>(?:/|\.{0,2}/)?[^\s:]+\.\w+)\s*$")
# rustc / clippy: ``warning: MESSAGE`` or ``error[E0308]: MESSAGE``; its lint in a note
RUST_HEAD = re.compile(r"^(?:warning|error)(?:\[\w+\])?: (?P<msg>\S.*)$")
RUST_LINT = re.compile(r"(?:#\[(?:warn|deny|allow)\(|`-D )(?P<name>(?:clippy::)?[a-z][\w-]{2,60})")
# A linter that passes the compiler's errors on (golangci-lint, staticcheck) prints them as
# the compiler did: the build's package line (``pkg/a.go:1: : # example.com/pkg``) and places
# with no rule named, and tags the last line of the block with a name of its own
# (``(typecheck)``). That name is no rule of the code: it says the code does not build, an
# episode's Error/Fix (``episodes.py``), never a rule the repository's checkers enforce.
PLACE = re.compile(r"^[^\s:()]*[A-Za-z][^\s:()]*\.\w+:\d+(?::\d+)?:\s")
BUILD = re.compile(r"^(?:-|[^\s:()]*[A-Za-z][^\s:()]*\.\w+:\d+(?::\d+)?):\s*(?::\s*)?# \S+")
# The names checkers document for code they could not load or parse: golangci-lint's
# typecheck, staticcheck's compile, pylint's and ruff's syntax-error, flake8's E999,
# rubocop's Lint/Syntax, mypy's syntax.
UNBUILT = frozenset({"typecheck", "compile", "syntax-error", "E999", "Lint/Syntax", "syntax"})
# a task runner's prefix of its tasks' lines, ``[lint:go] ``: the line's own indentation stays
TASK = re.compile(r"^\[[\w.:-]{1,60}\] ")
# a frame's line of code: ``12 |     let x = y.clone();``
FRAME = re.compile(r"^\s*(?P<line>\d+)\s*\|\s?(?P<code>.*)$")
CARET = re.compile(r"^\s*[\^~]+\s*$")
# a finding's run-up to the caret: lines of code, up to the caret line that closes them
MAX_QUOTE = 12
# a run's own verdict of failure ("ERROR task failed", "Found 3 errors", "FAILED")
FAILURE = re.compile(r"(?<![\w-])(?<!\b0 )(?<!\bno )(?:errors?|fail(?:ed|ures?)?)\b", re.IGNORECASE)
TAIL_COMMENT = re.compile(r"\s+(?://|#)(?!.*[\"'`]).*$")  # a comment ending a line of code
REDIRECT = re.compile(r"\s*(?:\d?>&\d|\d?>>?\s*/dev/null)")
# names a message quotes: `x`, 'x', "x"
QUOTED = re.compile(r"[`'\"](?P<name>[^`'\"\s]{2,80})[`'\"]")
# directives that silence a checker on a line: the rule they name follows
DIRECTIVE = re.compile(r"(?:nolint|noqa|eslint-disable(?:-next-line|-line)?|type:\s*ignore|"
                       r"@ts-ignore|@ts-expect-error|#\[allow|pylint:\s*disable|"
                       r"rubocop:disable|shellcheck\s+disable)", re.IGNORECASE)


# what an edit did to a finding's line: ("replaced", old, new), ("removed", old, ""),
# ("silenced", the directive, ""), ("added", old, the first line added under it)
Change = tuple[str, str, str]


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    rule: str  # the linter and its check, as the checker names them: "gocritic appendAssign"
    message: str
    code: str = ""  # the line of code the checker quotes, whitespace folded; "" if none


def _fold(text: str) -> str:
    return " ".join(text.split())


def _plain(line: str) -> str:
    """A line without a task runner's ``[name]`` prefix (mise, turbo, lerna)."""
    return TASK.sub("", line, count=1) if line.startswith("[") else line


def findings(output: str) -> list[Finding]:
    """The rule-named findings of a checker's output, in order, at most ``MAX_FINDINGS``;
    none under a name that says the code does not build (``unbuilt``)."""
    lines = [_plain(line.rstrip()) for line in output.splitlines()[:4000]]
    found: list[Finding] = []
    header = ""  # ESLint's file line
    relayed = False  # the lines since the last finding are the compiler's, passed on
    unbuilt: set[str] = set()
    for number, line in enumerate(lines):
        finding = _one(line, lines, number, header)
        if finding is None:
            header_match = FILE_HEADER.match(line)
            if header_match:
                header = header_match.group("path")
            elif not line.strip():
                header = ""
            # the build's package line opens the compiler's block; its places with no rule
            # named and their indented lines go on with it
            relayed = bool(BUILD.match(line)) or (relayed and (
                bool(PLACE.match(line)) or line[:1].isspace()))
            continue
        if relayed and NAMED.match(line):
            unbuilt.add(_linter(finding.rule))
        relayed = False
        if finding not in found:
            found.append(finding)
        if len(found) >= MAX_READ:
            break
    return [f for f in found if not _unbuilt(f.rule, unbuilt)][:MAX_FINDINGS]


def _linter(rule: str) -> str:
    return rule.split(" ", 1)[0]


def _unbuilt(rule: str, relayed: set[str]) -> bool:
    """The finding says the code does not build: its linter's name is one a checker gives
    the compiler's errors (``UNBUILT``), or one this output gave a block of them."""
    return _linter(rule) in relayed or _linter(rule) in UNBUILT or rule in UNBUILT


def _one(line: str, lines: list[str], number: int, header: str) -> Finding | None:
    for pattern in (NAMED, CODED, COP):
        match = pattern.match(line)
        if match:
            message, name = match.group("msg"), match.group("name")
            lead = LEADING.match(message) if pattern is NAMED else None
            rule = f"{name} {lead.group('check')}" if lead else name
            if lead:
                message = message[lead.end():]
            return Finding(match.group("path"), int(match.group("line")), rule,
                           message, _quoted(lines, number))
    match = LINT_CODE.match(line) or TSC.match(line)
    if match:
        return Finding(match.group("path"), int(match.group("line")), match.group("code"),
                       _cut_fix_mark(match.group("msg")))
    match = ESLINT_ROW.match(line)
    if match and header and ("-" in match.group("name") or "/" in match.group("name")):
        return Finding(header, int(match.group("line")), match.group("name"), match.group("msg"))
    match = RULE_FIRST.match(line)
    if match:  # ruff's full format: the place and the code frame follow
        return _framed(lines, number, match.group("code"), _cut_fix_mark(match.group("msg")))
    match = RUST_HEAD.match(line)
    if match:
        lint = _lint(lines[number + 1:number + 30])
        if lint:
            return _framed(lines, number, lint.replace("-", "_"), match.group("msg"))
    return None


def _lint(block: list[str]) -> str | None:
    """The lint a rustc block's notes name, up to the next block's head."""
    for line in block:
        if RUST_HEAD.match(line):
            return None
        found = RUST_LINT.search(line)
        if found:
            return found.group("name")
    return None


def _cut_fix_mark(message: str) -> str:
    return message[4:] if message.startswith("[*] ") else message


def _framed(lines: list[str], number: int, rule: str, message: str) -> Finding | None:
    """A finding whose place is on a ``-->`` line under it, its code in the frame."""
    place = next((RUST_AT.match(ln) for ln in lines[number + 1:number + 4] if RUST_AT.match(ln)),
                 None)
    if place is None:
        return None
    path, _, rest = place.group("where").partition(":")
    at = rest.split(":", 1)[0]
    if not at.isdigit():
        return None
    code = ""
    for ln in lines[number + 1:number + 12]:
        frame = FRAME.match(ln)
        if frame and frame.group("line") == at:
            code = _fold(frame.group("code"))
            break
        if RUST_HEAD.match(ln) or RULE_FIRST.match(ln):
            break
    return Finding(path, int(at), rule, message, code)


def _quoted(lines: list[str], number: int) -> str:
    """The first line of code a checker quotes under its finding: closed by a caret line
    (golangci-lint, gcc style), or, for a quote of several lines, indented and ended by the
    next finding; "" when there is none."""
    quote: list[str] = []
    for ln in lines[number + 1:number + 1 + MAX_QUOTE]:
        if CARET.match(ln):
            return _fold(quote[0]) if quote else ""
        if NAMED.match(ln) or CODED.match(ln) or not ln.strip():
            break
        quote.append(ln)
    return _fold(quote[0]) if quote and quote[0][:1].isspace() else ""


# ------------------------------------------------------------------ the episode


@dataclass
class _Run:
    command: str
    first: int
    findings: list[Finding] = field(default_factory=list)
    edits: list[tuple[str, str, str]] = field(default_factory=list)  # file, replaced, written


def normal(command: str) -> str:
    """The command as it runs the check: no output filters, no redirections."""
    return _fold(REDIRECT.sub("", unfiltered(command)))


def green(turn: Turn) -> bool:
    """A run with no finding passed: not failed, no failure verdict; a run whose output a
    filter other than ``head``/``tail`` may have emptied tells nothing."""
    command = turn.command or ""
    if turn.failed:
        return False
    piped = PIPE.split(command)[len(PIPE.split(unfiltered(command))):]
    if any((p.split() or [""])[0] not in ("head", "tail") for p in piped):
        return False
    return not any(FAILURE.search(_plain(line)) for line in turn.text.splitlines())


@dataclass
class _Episode:
    """A run that went green after edits: its findings, each with what an edit did to it."""

    command: str
    first: int
    last: int
    told: list[tuple[Finding, Change | None]]
    elsewhere: set[Finding] = field(default_factory=set)  # an Error/Fix of its own tells it


class CheckRules:
    """Feeds turns; returns, at the end, one Convention per checker episode that went green."""

    def __init__(self) -> None:
        self.open: list[_Run] = []
        self.episodes: list[_Episode] = []
        self._editing = False  # an edit's result not yet read

    def feed(self, turn: Turn) -> None:
        if turn.kind == "tool_use" and turn.edited is not None and turn.files:
            for run in self.open:
                if len(run.edits) < MAX_EDITS:
                    run.edits.append((turn.files[0], *turn.edited))
            self._editing = True
            return
        if turn.kind != "tool_result":
            return
        if self._editing and turn.failed and not turn.applied and not turn.command:
            for run in self.open:  # the tool refused the edit: the file is as it was
                if run.edits:
                    run.edits.pop()
        self._editing = False
        if turn.command and not looks_only(turn.command):
            self._ran(turn)

    def _ran(self, turn: Turn) -> None:
        command = normal(turn.command or "")
        # the same check again, or more of it (a narrower run passing proves nothing)
        run = next((r for r in self.open if reruns(r.command, command)), None)
        found = findings(turn.text)
        if found:
            if run is None:
                run = _Run(command, turn.index)
                self.open = [*self.open, run][-MAX_OPEN:]
            run.findings += [f for f in found if f not in run.findings]
            del run.findings[MAX_FINDINGS:]
            return
        if run is not None and green(turn):  # no finding, and nothing else failed
            self.open.remove(run)
            if len(run.findings) < MIN_FINDINGS or not run.edits:
                return
            told = [(f, _change(f, run.edits)) for f in run.findings]
            if any(change for _, change in told):  # else what made it pass is not shown
                self.episodes = [*self.episodes, _Episode(run.command, run.first, turn.index,
                                                          told)][-MAX_OPEN * 4:]

    def covers(self, candidate: Candidate) -> bool:
        """The candidate is a kept episode's run told again (its Error/Fix), unless its
        Error is a finding whose fix the episode does not show: then the candidate tells
        that finding, and the episode's memory leaves it out."""
        for episode in self.episodes:
            if not (episode.first <= candidate.last and candidate.first <= episode.last
                    and any(reruns(episode.command, normal(c)) for c in candidate.commands)):
                continue
            said = _fold(candidate.error or "")
            unshown = {f for f, change in episode.told if change is None
                       and _fold(f.message) in said and f"{f.path.rsplit('/', 1)[-1]}:{f.line}" in said}
            if unshown:
                episode.elsewhere |= unshown
                return False
            return True
        return False

    def finish(self) -> list[Candidate]:
        episodes, self.episodes, self.open = self.episodes, [], []
        return [c for c in map(_lesson, episodes) if c is not None]


def _lesson(episode: _Episode) -> Candidate | None:
    told = [(f, change) for f, change in episode.told if f not in episode.elsewhere]
    if not any(change for _, change in told):
        return None
    rules: dict[str, list[tuple[Finding, Change | None]]] = {}
    for finding, change in told:
        rules.setdefault(finding.rule, []).append((finding, change))
    head = f"`{_clip(episode.command, 80)}` failed on these rules, passed after edits: "
    text = head
    for each, message, code in DETAIL:  # the most a memory of MAX_TEXT characters can tell
        parts = [f"{rule} — " + "; ".join(dict.fromkeys(
            _told(f, change, message if n == 0 else 0, code)
            for n, (f, change) in enumerate(_shown_first(said)[:each])))
            for rule, said in list(rules.items())[:MAX_RULES]]
        text = head + "; ".join(parts) + "."
        if len(text) <= MAX_TEXT:
            break
    files = tuple(dict.fromkeys(f.path for f, _ in told))
    return Candidate("Convention", episode.first, episode.last, "en", text,
                     commands=(episode.command,), files=files, veracity="tool")


def _shown_first(said: list[tuple[Finding, Change | None]]) -> list[tuple[Finding, Change | None]]:
    """A rule's findings, those whose change an edit shows first."""
    return sorted(said, key=lambda pair: pair[1] is None)


# How much of each finding the memory tells, most first: the message's and the code's
# characters (0: the message left out); the last level is cut by the distiller.
# (findings per rule, the message's characters, the code's; 0: no message)
DETAIL = ((2, MAX_MESSAGE, MAX_CODE), (1, MAX_MESSAGE, 70), (1, 80, 60), (1, 60, 50),
          (1, 45, 45), (1, 30, 40), (1, 0, 40))
MAX_TEXT = 480  # within ace.reflector.max_content_length's default of 500


def _told(finding: Finding, change: Change | None, message: int, code: int) -> str:
    where = f"{finding.path.rsplit('/', 1)[-1]}:{finding.line}"
    said = f"\"{_clip(finding.message, message)}\" ({where})" if message else f"({where})"
    if change is None:
        return said
    kind, old, new = change
    if kind == "silenced":
        return f"{said}: silenced with `{_clip(old, code)}`, not fixed"
    if kind == "removed":
        return f"{said}: removed `{_clip(old, code)}`"
    if kind == "added":
        return f"{said}: added `{_clip(new, code)}` under `{_clip(old, code)}`"
    if len(old) > code or len(new) > code:
        old, new = _trimmed(old, new)
    return f"{said}: `{_clip(old, code)}` → `{_clip(new, code)}`"


def _trimmed(old: str, new: str) -> tuple[str, str]:
    """Two versions of a line without the words they begin and end with alike, so the
    change shows in little room: ``return nil, err`` → ``return nil, fmt.Errorf(…)`` is
    ``…nil, err`` → ``…nil, fmt.Errorf(…)``."""
    before, after = old.split(" "), new.split(" ")
    head = 0
    while head < min(len(before), len(after)) - 1 and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < min(len(before), len(after)) - head - 1 and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    head, tail = max(head - 1, 0), max(tail - 1, 0)  # a word of context on either side

    def cut(words: list[str]) -> str:
        kept = " ".join(words[head:len(words) - tail])
        return ("…" if head else "") + kept + ("…" if tail else "")
    return cut(before), cut(after)


def _change(finding: Finding,
            edits: list[tuple[str, str, str]]) -> Change | None:
    anchors = [finding.code] if finding.code else \
        [m.group("name") for m in QUOTED.finditer(finding.message)][:3]
    for path, old, new in edits:
        if not _same_file(path, finding.path):
            continue
        for anchor in anchors:
            said = _replaced(anchor, old, new, finding.rule)
            if said:
                return said
    return None


def _same_file(edited: str, named: str) -> bool:
    edited, named = edited.lstrip("./"), named.lstrip("./")
    return edited == named or edited.endswith("/" + named) or named.endswith("/" + edited)


def _replaced(anchor: str, old: str, new: str, rule: str) -> Change | None:
    """What the edit did to the line the anchor is in: silenced it with a directive naming
    the rule (on the line or the one above it), replaced it (``old → new``), removed it, or,
    leaving it, inserted lines in the block it opens (a switch's missing cases); None when
    it did none of these."""
    before, after = old.splitlines(), new.splitlines()
    at = next((n for n, ln in enumerate(before) if anchor in _fold(ln)), None)
    if at is None:
        return None
    directive = _silenced(anchor, before, after, {part.lower() for part in rule.split()})
    if directive is not None:
        return "silenced", _fold(_directive(directive)), ""
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    line, end = _fold(before[at]), _block_end(before, at)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        block = [b for b in after[j1:j2] if b.strip()]
        if tag == "equal" or (i2 <= at and not at < i1):
            continue
        if i1 > end:
            break
        if i1 > at:
            # the line stays; the check wanted lines in its block: new ones, not lines
            # there before with a word changed (cases merged above the missing ones)
            if block and (tag == "insert" or _kept(_fold(before[i1]), _fold(block[0])) < KEPT):
                return "added", line, _fold(block[0])
            continue
        if not block:
            return "removed", line, ""
        scores = [_kept(line, _fold(b)) for b in block]
        best = max(range(len(block)), key=lambda n: scores[n])
        if scores[best] < KEPT:
            return "removed", line, ""
        return "replaced", line, _joined([_fold(b) for b in block[max(0, best - 1):best + 1]])
    return None


def _silenced(anchor: str, before: list[str], after: list[str], names: set[str]) -> str | None:
    """The directive the edit added on the anchor's line, or on the line above it, that
    names the rule (or ends the anchor's own line)."""
    for n, ln in enumerate(after):
        if ln in before or not DIRECTIVE.search(ln):
            continue
        # the anchor's line, its own trailing comment given way to the directive
        here = _fold(ln).startswith(TAIL_COMMENT.sub("", anchor) or anchor)
        above = n + 1 < len(after) and anchor in _fold(after[n + 1])
        if here or (above and any(name in ln.lower() for name in names)):
            return ln
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _block_end(lines: list[str], at: int) -> int:
    """The last line of the block ``lines[at]`` opens: to its closing brace when it opens
    one (a Go switch's cases sit at its own indentation), else the lines indented under
    it; ``at`` itself when it opens none."""
    if lines[at].rstrip().endswith(("{", "(", "[")):
        depth = 0
        for end in range(at, len(lines)):
            depth += sum(lines[end].count(c) for c in "{([") - sum(lines[end].count(c) for c in "})]")
            if depth <= 0:
                return end
        return len(lines) - 1
    end = at
    while end + 1 < len(lines) and (not lines[end + 1].strip()
                                    or _indent(lines[end + 1]) > _indent(lines[at])):
        end += 1
    return end


KEPT = 0.6  # share of a line's characters a new line keeps to be its new version


def _kept(line: str, other: str) -> float:
    """The share of ``line``'s characters ``other`` keeps in order: ``return nil, err`` is
    all kept in ``return nil, fmt.Errorf("…: %w", err)``, however long the wrapping."""
    if not line:
        return 0.0
    matcher = difflib.SequenceMatcher(None, line, other, autojunk=False)
    # runs of three characters or more: single letters met here and there keep nothing
    return sum(block.size for block in matcher.get_matching_blocks() if block.size >= 3) / len(line)


def _joined(lines: list[str]) -> str:
    """Lines of code on one line: a block's opening line runs on, statements get a "; "."""
    out = lines[0] if lines else ""
    for line in lines[1:]:
        out += (" " if out.endswith(("{", "(", "[", ":", ",")) else "; ") + line
    return out


def _directive(line: str) -> str:
    """The comment that holds the directive, not the code before it."""
    found = DIRECTIVE.search(line)
    start = max(line.rfind("//", 0, found.start() if found else 0),
                line.rfind("#", 0, found.start() if found else 0),
                line.rfind("/*", 0, found.start() if found else 0))
    return line[start:] if start >= 0 else line


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"
