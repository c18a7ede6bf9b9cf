"""The agent's report of a piece of work that a check bore out (issue 24).

When an agent finishes what it was asked, it says what it changed and what it found out
("Done. `loadFromFile` now decodes with `DisallowUnknownFields()` …", "Tests pass. The
output changed from `Enabled` to `strategy enabled` …"). In real sessions that report is
where the facts of the work are written down, in words a reader understands without the
session. It is kept only when the session's structure vouches for it:

- since the user last spoke the assistant edited at least one file, none turned down (a
  command turned down, "don't run the slow suite", leaves the work and its checks);
- after the last edit a run passed in a runner's own format (``evidence.passing_run``:
  ``ok  pkg``, ``0 issues.``, ``12 passed``), no run failed after it, and the assistant
  did not then say the problem goes on ("Still slow: 0.9 s.");
- the report is the assistant's last text before the user speaks again (or the session
  ends), after that run; it is no question and no plan ("Let me …", "Now …");
- the user's next message does not turn the work down, deny it or say "still";
- the report says what was wrong, what fixed it or why (a problem or cause named, a fix or
  its outcome stated, a reason given, a purpose: "so the directory exists"), or what a
  named piece of code now does: a list of what was added or moved is a changelog.

Headings, fenced code, table rows, list markers and a closing offer ("Would you like me to commit
these changes?") are dropped; what remains is one text, cut at a word to fit a memory; a
text too long for one that lists its changes keeps the list, from the line that
introduces it, and the lines after the list whole: the list's last items go first. A
report too long for one memory, with no headings, made of titled parts (list items, lines
led by a bold title) is a memory per part that says why or what instead on its own words,
when two or more do (``_parts``): each part is its own lesson, and nothing of the report's
lead-in ("The merge stopped because …") goes with it — that is the agent's account, not
the part's. When
an episode, a diagnosis or a user's correction (whose answer is often this very report)
already made a memory of the same turns, beginning no later than the report's work, the
detector keeps that one (one memory per piece of work); work begun before it keeps its
report too. Work the session later undoes is no lesson: when a later edit of the same file
puts back ``MIN_RESTORED`` or more of the lines the reported work took out ("Removed
`edit_file` and `save_file`…", then the user: "leave the others" and the constants are
written back), its report is dropped at the session's end (``undone``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memx_cli.reflector import evidence
from memx_cli.reflector.aider import FENCE
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.diagnosis import NARRATED
from memx_cli.reflector.knowledge import REASON
from memx_cli.reflector.narrative import STILL
from memx_cli.reflector.said import concrete, rejects
from memx_cli.reflector.signals import Signals, analyse
from memx_cli.reflector.turn import Turn

MAX_REPORT = 420  # room in one memory (500) for the check that bore it out
MIN_WORDS = 8
MAX_COMMAND = 60
HEADING = re.compile(r"^\s*#{1,6}\s")
# A named piece of code, then "now" and what it does: a behaviour the work established
# ("`loadConfig` now decodes with …"), not an item of a changelog ("Added `X`").
BEHAVES = re.compile(r"`[^`\n]+`\s+now\s+[a-z]")
# A purpose or result clause: "added `os.MkdirAll` so the directory is created at test
# time" says why the change was made, as "because" does ("so far", "and so on" do not).
PURPOSE = re.compile(r"\bso\s+(?:that\s+)?(?:the|it|its|this|these|those|they|we|each|every"
                     r"|no|a|an|`)\b", re.IGNORECASE)
TABLE = re.compile(r"^\s*\|.*\|\s*$")
MARKER = re.compile(r"^\s*(?:[-*•]\s+|\d{1,2}[.)]\s+)")
# A line led by a bold title ("**2. `jsonEncodeString` error handling** — …", "**Fixed:**"),
# and what follows the title on the line
TITLED = re.compile(r"^\*\*[^*\n]+?\*\*(?P<rest>.*)$")
# A line that names only the place its parts are in: a file or a piece of code, bare
# ("`redact/redact.go`:", "config/load.go:"); a sentence heading parts is an account
PLACE = re.compile(r"^(?:`[^`\n]{1,80}`|[\w.-]*[./][\w./-]*\w)\s*[:：]$")
MAX_PARTS = 4  # memories one report gives, its parts being the lessons of one piece of work
MIN_LINE = 12  # a line shorter than this ("}", "return nil") names nothing the work did
MAX_REMOVED = 64  # lines taken out remembered per piece of work
MAX_GIVEN = 8  # reports given whose work a later edit may still undo
MIN_RESTORED = 2  # lines put back that undo a piece of work


@dataclass
class Work:
    first: int  # the first edit since the user spoke
    edits: int = 0
    check: str | None = None  # the command that passed after the last edit
    report: str | None = None
    report_at: int = 0
    lang: str = "en"
    # the report's titled parts, each its own lesson, when the report is too long for one
    parts: tuple[str, ...] = ()
    # the lines its edits took out, by file: a later edit that puts them back undoes it
    removed: dict[str, set[str]] = field(default_factory=dict)


class Reports:
    """Feeds turns; returns the reports the session bears out. Holds one piece of work."""

    def __init__(self) -> None:
        self.work: Work | None = None
        self.ready: Candidate | None = None  # a report waiting for the user's next word
        self.writes = False  # the last tool call writes a file
        # the reports given, with the lines their work took out, while a later edit may
        # put them back; and the reports so undone
        self.given: list[tuple[list[Candidate], dict[str, set[str]]]] = []
        self.undone: list[Candidate] = []

    def feed(self, sig: Signals) -> list[Candidate]:
        turn, work = sig.turn, self.work
        if turn.kind == "tool_use":
            self.writes = bool(turn.files)
            if turn.files:
                self._restored(turn.files, turn.edited)
                if work is None:
                    work = self.work = Work(turn.index)
                work.edits += 1
                work.check = work.report = None  # a report must follow the last edit's check
                _taken_out(work, turn.files, turn.edited)
            return []
        if turn.kind == "tool_result":
            if work is not None and work.edits and turn.command:
                failed = bool(turn.failed) if turn.failed is not None else bool(sig.error_lines)
                if failed:
                    work.check = work.report = None
                elif evidence.passing_run(turn.text):
                    work.check = turn.command
            return []
        if turn.rejected:
            if self.writes or sig.deny or sig.says(STILL):
                self.work = self.ready = None  # the work was turned down
            # a command turned down ("don't run the integration tests, too slow") leaves
            # the edits made and the checks they passed as they were
            return []
        if turn.kind != "text" or turn.picked:
            return []
        if turn.role == "assistant":
            if work is not None and (sig.deny or sig.says(STILL)):
                work.check = work.report = None  # "Still slow: 0.9 s": the work is not done
            elif work is not None and work.check is not None:
                text = _report(sig)
                if text is not None:
                    work.report, work.report_at, work.lang = text, turn.last, sig.lang
                    work.parts = tuple(_parts(sig.text)) if text.endswith("…") else ()
            return []
        if turn.role != "user":
            return []
        self.work = None
        if rejects(sig) or sig.deny or sig.says(STILL):
            return []  # "no, that's wrong" / "still failing": the report is not borne out
        return self._given(work)

    def finish(self) -> list[Candidate]:
        work, self.work = self.work, None
        return self._lessons(work)

    def _given(self, work: Work | None) -> list[Candidate]:
        lessons = self._lessons(work)
        if lessons and work is not None and work.removed:
            self.given = (self.given + [(lessons, work.removed)])[-MAX_GIVEN:]
        return lessons

    def _restored(self, files: tuple[str, ...], edited: tuple[str, str] | None) -> None:
        """An edit that puts back lines a reported piece of work took out of the same file
        undoes that work: its report is no lesson."""
        if not edited or not self.given:
            return
        old, new = edited
        before = {line.strip() for line in old.splitlines()}
        back = {line.strip() for line in new.splitlines()} - before
        kept = []
        for lessons, removed in self.given:
            if any(len(removed.get(f, set()) & back) >= MIN_RESTORED for f in files):
                self.undone += lessons
            else:
                kept.append((lessons, removed))
        self.given = kept

    @staticmethod
    def _lessons(work: Work | None) -> list[Candidate]:
        """The report as one memory; a report too long for one, made of titled parts, as a
        memory for each part that explains on its own words, when two or more do."""
        if work is None or work.report is None or work.check is None:
            return []
        check = " ".join(work.check.split())
        if len(check) > MAX_COMMAND:
            check = check[:MAX_COMMAND - 1] + "…"
        said = list(work.parts[:MAX_PARTS])
        if len(said) < 2:
            said = [work.report] if _explains(work.report) else []
        return [Candidate("WorkReport", work.first, work.report_at, work.lang,
                          f"{text} (checked: `{check}` passed)",
                          commands=(check,), veracity="tool") for text in said]


def _taken_out(work: Work, files: tuple[str, ...], edited: tuple[str, str] | None) -> None:
    """The lines an edit of the work takes out (in its old text, not its new)."""
    if not edited or len(files) != 1:
        return
    old, new = edited
    after = {line.strip() for line in new.splitlines()}
    gone = work.removed.setdefault(files[0], set())
    for line in old.splitlines():
        line = line.strip()
        if len(line) >= MIN_LINE and line not in after and len(gone) < MAX_REMOVED:
            gone.add(line)


def _report(sig: Signals) -> str | None:
    """The assistant's text as a report: markdown made plain, cut to fit; None for a
    question, a plan or a few words."""
    lines: list[str] = []
    listed = -1  # the first list item's line
    items: list[int] = []  # the list items' lines
    fenced = False
    for line in sig.text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or HEADING.match(line) or TABLE.match(line) or not line.strip():
            continue  # a table's rows read as one line are cells without their columns
        if MARKER.match(line):
            listed = len(lines) if listed < 0 else listed
            items.append(len(lines))
        lines.append(MARKER.sub("", line).replace("**", "").strip())
    while lines and lines[-1].endswith(("?", "？")):
        lines.pop()  # "Would you like me to commit these changes?": an offer, not the report
    text = joined(lines)
    if len(text) > MAX_REPORT and 0 <= listed < len(lines):
        # too long for one memory: the list of changes, from the line that introduces it
        # ("Summary of changes:"), says more than the measurements before it
        text = _listed(lines[max(0, listed - 1):], items[-1] + 1 - max(0, listed - 1))
    if len(text.split()) < MIN_WORDS or not concrete(text) or NARRATED.match(text):
        return None
    if sig.spans and all(sig.is_question(n) for n in range(len(sig.spans))):
        return None
    if text.rstrip().endswith(("?", "？", ":")):
        return None  # it asks, or announces what comes next
    return text if len(text) <= MAX_REPORT else text[:MAX_REPORT - 1].rsplit(" ", 1)[0] + "…"


def _explains(report: str) -> bool:
    """The report says what was wrong, what fixed it or why: a problem or a cause named,
    a fix or its outcome stated, a reason given. A list of what was added, moved or
    renamed is a changelog the history already holds, not a lesson."""
    sig = _said(report)
    return bool(sig.errors or sig.error_lines or sig.resolved) or _reasoned(sig)


def _reasoned(sig: Signals) -> bool:
    """The text says why or what instead: a cause, a remedy ("… instead of …"), a reason,
    a purpose, what a piece of code now does. An error named or a fix announced is not
    enough for a part of a report: "Updated the tests for the new error return" is a
    changelog's line."""
    return bool(sig.cause or sig.remedy or sig.find(REASON) or sig.says(BEHAVES)
                or sig.says(PURPOSE))


def _listed(lines: list[str], end: int) -> str:
    """A list of changes (``lines[:end]``, its introduction first) and the lines after it,
    which often say what the work came to ("The invalid `errors.Is` call is gone"): the
    list gives up its last items before the closing lines are cut."""
    kept, tail = lines[:end], lines[end:]
    text = joined(kept + tail)
    while tail and len(text) > MAX_REPORT and len(kept) > 2:
        kept.pop()
        text = joined(kept[:-1] + [kept[-1] + " …"] + tail)
    return text


def joined(lines: list[str]) -> str:
    """Lines as one text: "; " between them, a space after a line that introduces the next
    ("Summary of changes:")."""
    out = ""
    for line in lines:
        out += line if not out else (" " if out.endswith((":", "：")) else "; ") + line
    return " ".join(out.split())


def _parts(text: str) -> list[str]:
    """A long report's titled parts, when it has no sections (headings): its top-level list
    items and its lines led by a bold title, each kept when it says why or what instead on
    its own words. An item's indented lines belong to it, as do the plain lines under a bold
    title; a plain line after a list item ends the part ("All tests pass."). A line that
    only names a file or a piece of code ("**`redact/redact.go`:**") leads the parts under
    it as their place; any other line before a part — the report's lead-in, "The merge
    stopped because `main` moved three things:" — is the agent's account of them, unchecked,
    and is neither prefixed to a part nor a reason to keep one."""
    if any(HEADING.match(line) for line in text.splitlines()):
        return []  # sections (the problem, the fix, why): one account of one piece of work
    place = ""
    parts: list[tuple[str, list[str]]] = []
    open_part: list[str] | None = None
    titled = False  # the open part is led by a bold title, not a list marker
    fenced = False
    for raw in text.splitlines():
        if FENCE.match(raw):
            fenced = not fenced
            continue
        if fenced or TABLE.match(raw) or not raw.strip():
            continue
        listed = MARKER.match(raw) is not None
        indented = listed and raw[:1].isspace()
        line = MARKER.sub("", raw).strip() if listed else raw.strip()
        title = TITLED.match(line)
        plain = line.replace("**", "").strip()
        if indented and open_part is not None:
            open_part.append(plain)
        elif not listed and plain.endswith((":", "：")) \
                and (title is None or not title["rest"].strip(" :")):
            place = plain if PLACE.match(plain) else ""  # a new heading: a place or none
            open_part = None
        elif (listed and not indented) or title is not None:
            open_part, titled = [plain], not listed
            parts.append((place, open_part))
        elif open_part is not None and titled:
            open_part.append(plain)
        else:
            open_part = None  # the lead-in, or a closing line after the parts
    out = []
    for at, lines in parts:
        own = joined(lines)
        said = joined([at, own]) if at else own
        if len(own.split()) >= MIN_WORDS and concrete(own) \
                and not own.endswith((":", "：")) and _reasoned(_said(own)):
            out.append(said if len(said) <= MAX_REPORT
                       else said[:MAX_REPORT - 1].rsplit(" ", 1)[0] + "…")
    return out


def _said(text: str) -> Signals:
    return analyse(Turn(0, "assistant", text))
