"""What one turn says: error evidence, fix statements, retries, config changes, new tools,
repeated chores. Computed once per turn; the rules in ``detector.py`` combine turns.

Error evidence comes in two strengths. *Lines* — a traceback, ``TypeError: ...``,
``error[E0382]:``, ``npm ERR!``, a non-zero exit status — are the error half of an ErrorFix
(SPEC 3.1: a stack trace is evidence, not noise). *Words* — "the build fails", "报错" —
count too, unless they sit in compounds like "error handling" or are negated.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from memx_cli.reflector import lexicons as lx
from memx_cli.reflector.cisteps import GH_LINE, STAMP
from memx_cli.reflector.distiller import NOT_ABBREVIATION, shorten
from memx_cli.reflector.names import CODE_SPAN, ERROR_NAME_RE, program_of
from memx_cli.reflector.turn import Turn
from memx_cli.reflector.vocab import (
    CJK_ANY,
    Hit,
    Lexicon,
    Word,
    index_of,
    language,
    negated,
    words_of,
)

_PREFILTER = ("rror", "xception", "Traceback", "FAIL", "fatal", "panic", "ERR", "exit",
              "not found", "No such", "denied", "Segmentation", "undefined", "annot find",
              "refused", "E  ", "Exit", "Failed", "failed", "ENOENT", "ETIMEDOUT", "returned",
              ".go:", ": line ")
PREFILTER = re.compile("|".join(map(re.escape, _PREFILTER)))  # any of them, in one scan
MAX_ERROR = 240  # an error line is cut at a sentence or a word, never inside one
ERROR_LINE = re.compile(
    r"(?:^|[\s(])(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Fault)(?:\[[^\]]*\])?:\s*\S"
    r"|^\s*(?:error|fatal|panic|ERROR|FATAL|PANIC|Error|Fatal)(?:\[\w+\])?\s*[:!]"
    r"|:\d+(?::\d+)?:\s*(?:error|fatal error)\b"
    # the Go compiler and go vet: every diagnostic is `file.go:LINE:COL: message`, with no
    # "error" word (grep -n and t.Errorf output carry no column)
    r"|^\s*[\w./-]*\w\.go:\d+:\d+:\s+\S"
    # golangci-lint names the linter after the message; some linters (dupl) give no column
    r"|^\s*[\w./-]*\w\.go:\d+:\s+\S.*\s\([a-z][a-z0-9-]*\)\s*$"
    # a shell's own diagnostic for a script: bash prints `SCRIPT: line N: message` for
    # every run-time error (unbound variable, bad substitution, syntax error) and for
    # nothing else
    r"|^\S+: line \d+: \S"
    r"|^\s*E\s{2,}\S|\bnpm ERR!|^\s*ERR!|##\[error\]"
    r"|^\s*(?:FAILED|FAIL)\b|Traceback \(most recent call last\)"
    r"|\b(?:exit(?:ed)? (?:code|status)|exited with code|returned non-zero exit status)[:\s]+[1-9]"
    r"|\bcommand not found\b|\bNo such file or directory\b|\bPermission denied\b"
    r"|\bSegmentation fault\b|\bundefined reference to\b|\bcannot find (?:module|symbol|package)\b"
    r"|\bCannot find module\b|\b(?:ENOENT|EACCES|ECONNREFUSED|ETIMEDOUT|EADDRINUSE)\b"
    r"|\b(?:BUILD|Build) FAILED\b|\b[1-9]\d* (?:failed|errors?)\b",
    re.MULTILINE,
)
_STRONG = re.compile(r"(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)(?:\[[^\]]*\])?:\s*\S|"
                     r"^\s*(?:error|fatal|panic)(?:\[\w+\])?:", re.IGNORECASE)
TOOL_HINT = re.compile(
    r"^\s*(?:hint|help|tip|suggestion)\s*:|\bdid you mean\b|\bto fix this\b|"
    r"\bconsider (?:using|adding|running|cloning)\b|\bretry this command with\b",
    re.IGNORECASE | re.MULTILINE,
)
FIX_PREFIX = re.compile(r"^\s*(?:fix|fixes|fixed|bugfix|hotfix)(?:\([^)]*\))?!?:\s*\S",
                        re.IGNORECASE)
# A quoted message that reads like an error: "`Invalid Host header`", 报 `Too many connections`
_ERRORISH = (r"(?i:error|fail|fatal|denied|refused|not found|invalid|cannot|can't|unable|too many|"
             r"exceeded|timeout|oom|unexpected|missing|no such|backoff|killed|incompatible|"
             r"already (?:in use|exists|allocated)|unauthori[sz]ed|forbidden)")
QUOTED_ERROR = re.compile(  # backticks, double quotes, or single quotes that are not apostrophes
    rf"`([^`\n]{{0,120}}?{_ERRORISH}[^`\n]{{0,120}})`|\"([^\"\n]{{0,120}}?{_ERRORISH}[^\"\n]{{0,120}})\""
    rf"|(?<!\w)'([^'\n]{{0,120}}?{_ERRORISH}[^'\n]{{0,120}})'(?!\w)")
# "install goes through now", "it builds again now": the problem is gone
WORKS_NOW = re.compile(r"\b(?:works?|runs?|starts?|builds?|passes|compiles?|loads?|goes through|"
                       r"went through|installs?|deploys?)\s+(?:fine\s+|again\s+)?now\b", re.I)
# "Solution: ...", "解决方法：..." — a fix announced with a colon
ANNOUNCED_FIX = re.compile(r"(?i)\b(?:solution|fix|workaround|answer|remedy)\s*[:：]|"
                           r"(?:解决方法|解决办法|解決策|해결책|해결 방법)\s*[:：是]")
ARROW = re.compile(r"\s(?:->|→|=>)\s")
# An error constant: CERTIFICATE_VERIFY_FAILED, ERR_OSSL_EVP_UNSUPPORTED
ERROR_CONSTANT = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:FAILED|FAILURE|ERROR|DENIED|"
                            r"TIMEOUT|REFUSED|UNSUPPORTED|INVALID)\b|\bERR_[A-Z0-9_]+\b")
MARKER_ONLY = re.compile(r"^\s*(?:npm ERR!|ERR!|##\[error\])\s*$")
SENTENCE_END = re.compile(rf"(?<=[.!?;]){NOT_ABBREVIATION}\s+(?=\S)|(?<=[。！？；])|\n+|\s+(?:→|->|=>)\s+")


@dataclass
class Signals:
    turn: Turn
    text: str
    words: list[Word]
    lang: str
    spans: list[tuple[int, int]]  # sentences
    error_lines: list[str] = field(default_factory=list)
    key_error: str | None = None
    errors: list[Hit] = field(default_factory=list)  # prose error words (and error names)
    resolved: list[Hit] = field(default_factory=list)
    cause: list[Hit] = field(default_factory=list)
    remedy: list[Hit] = field(default_factory=list)
    retry: list[Hit] = field(default_factory=list)
    success: list[Hit] = field(default_factory=list)
    config: list[int] = field(default_factory=list)  # sentence numbers
    newtool: list[tuple[int, str]] = field(default_factory=list)  # (sentence, tool)
    repeat: list[int] = field(default_factory=list)
    confirm: list[Hit] = field(default_factory=list)  # "that worked", 搞定了, 直った …
    deny: list[Hit] = field(default_factory=list)  # "still failing", 还是不行 …
    code: bool = False
    index: dict[str, list[int]] = field(default_factory=dict)
    _starts: list[int] = field(default_factory=list)
    _questions: dict[int, bool] = field(default_factory=dict)
    _found: dict[int, list[Hit]] = field(default_factory=dict)
    _searched: dict[int, bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.index = index_of(self.words)
        self._starts = [start for start, _ in self.spans]

    def find(self, lexicon: Lexicon) -> list[Hit]:
        found = self._found.get(id(lexicon))
        if found is None:  # several rules ask about the same lexicon
            found = self._found[id(lexicon)] = lexicon.find(self.words, self.text, self.index)
        return found

    def says(self, regex: re.Pattern[str]) -> bool:
        """Whether ``regex`` occurs in the text: searched once, as several readers ask
        about the same pattern (``narrative.STILL``)."""
        found = self._searched.get(id(regex))
        if found is None:
            found = self._searched[id(regex)] = regex.search(self.text) is not None
        return found

    @property
    def has_error(self) -> bool:
        return bool(self.error_lines or self.errors or self.turn.failed)

    @property
    def has_fix(self) -> bool:
        return bool(self.resolved or self.cause or self.remedy)

    def sentence_of(self, pos: int) -> int:
        return max(0, bisect.bisect_right(self._starts, pos) - 1)

    def sentence(self, number: int) -> str:
        start, end = self.spans[number]
        return self.text[start:end].strip()

    def sentences_of(self, hits: list[Hit], limit: int = 2) -> list[int]:
        numbers: list[int] = []
        for hit in hits:
            n = self.sentence_of(hit.start)
            if n not in numbers:
                numbers.append(n)
        return numbers[:limit]

    def is_question(self, number: int) -> bool:
        if number not in self._questions:
            text = self.sentence(number)
            if self.lang in ("zh", "ja") and "，" in text:
                text = text.rsplit("，", 1)[0] if text.endswith(("?", "？")) else text
            self._questions[number] = text.endswith(("?", "？")) or bool(
                not text.endswith((".", "。", "!")) and lx.HEDGE.find(words_of(text), text))
        return self._questions[number]


CODE_SHAPE = re.compile(r"[()*&{}\[\]]|\w\.\w|::")


def states_failure(sig: Signals) -> bool:
    """The turn says that something fails: an error line, a failure word ("fails",
    "throws", 报错), an error constant or a quoted error message; not a turn that only
    names errors — the word, an error type, code that handles them ("if the error is a
    `SilentError`, use `errors.As()`") — as a task on error handling does."""
    return bool(sig.error_lines) or any(
        h.phrase.lower() not in lx.ERROR_NOUNS and not ERROR_NAME_RE.fullmatch(h.phrase)
        and not _code(h.phrase) for h in sig.errors)


def _code(quoted: str) -> bool:
    """A code expression (`errors.Is(err, *cli.SilentError)`), not a message in words."""
    return bool(CODE_SHAPE.search(quoted)) and sum(w.isalpha() for w in quoted.split()) < 3


def sentence_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in SENTENCE_END.finditer(text):
        if match.start() > start:
            spans.append((start, match.start()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans or [(0, len(text))]


def analyse(turn: Turn) -> Signals:
    text = turn.text
    if turn.kind == "tool_use" or (turn.kind == "tool_result" and turn.failed is False):
        # a command, an edit or a passing run: the episode reads the turn itself
        return Signals(turn, text, [], "en", [(0, len(text))])
    words = words_of(text)
    sig = Signals(turn, text, words, language(text, words), sentence_spans(text))
    sig.code = "`" in text or "\n    " in text
    _error_evidence(sig)
    if turn.kind == "tool_result" and not turn.failed:
        sig.errors = []  # a file read or a listing mentions errors without failing
        if turn.failed is False:
            sig.error_lines, sig.key_error = [], None
    if turn.kind != "text" or turn.role == "system":
        return sig  # tool calls, tool output and system prompts are never statements
    _outcome(sig)
    if len(words) < 3 and len(CJK_ANY.findall(text)) < 6 and not sig.error_lines:
        return sig  # "thanks!", "ok": nothing to learn (SPEC 3.1)

    def keep(hits: list[Hit], allow_question: bool = False) -> list[Hit]:
        return [h for h in hits if not negated(h, words, text)
                and (allow_question or not sig.is_question(sig.sentence_of(h.start)))]

    sig.resolved = keep(sig.find(lx.RESOLVED) + [
        Hit("works now", m.start(), m.end(), -1) for m in WORKS_NOW.finditer(text)])
    sig.cause = keep(sig.find(lx.CAUSE))
    sig.remedy = keep(sig.find(lx.REMEDY))
    if FIX_PREFIX.match(text):
        sig.remedy.insert(0, Hit("fix:", 0, 4, 0))
    for match in ANNOUNCED_FIX.finditer(text):
        if not sig.is_question(sig.sentence_of(match.start())):
            sig.remedy.append(Hit("solution:", match.start(), match.end(), -1))
    if sig.error_lines or sig.errors:  # "ModuleNotFoundError: ... -> pip install pyyaml"
        first = sig.errors[0].start if sig.errors else 0
        for match in ARROW.finditer(text, first):
            if not sig.is_question(sig.sentence_of(match.end())):
                sig.remedy.append(Hit("->", match.end(), match.end() + 1, -1))
                break
    hint = TOOL_HINT.search(text)
    if hint and sig.error_lines:
        sig.remedy.append(Hit("hint", hint.start(), hint.end(), -1))
    sig.retry = sig.find(lx.RETRY)
    sig.success = keep(sig.find(lx.SUCCESS))
    _config(sig)
    if sig.config and (sig.errors or sig.error_lines):
        first_error = sig.errors[0].start if sig.errors else 0
        for number in sig.config:
            start = sig.spans[number][0]
            if start >= first_error and not sig.is_question(number):
                sig.remedy.append(Hit("config", start, sig.spans[number][1], -1))
        sig.remedy.sort(key=lambda h: h.start)
    _newtool(sig)
    _repeat(sig)
    return sig


def _outcome(sig: Signals) -> None:
    """Confirmations and denials of an attempt, outside questions; a negated or hoped-for
    confirmation ("didn't work", "should work") is none."""
    words, text = sig.words, sig.text
    deny = [h for h in sig.find(lx.DENY) if not sig.is_question(sig.sentence_of(h.start))]
    confirm = []
    for hit in sig.find(lx.CONFIRM):
        if any(d.start <= hit.start < d.end for d in deny) or negated(hit, words, text) \
                or _hypothetical(hit, words, text) or sig.is_question(sig.sentence_of(hit.start)):
            continue
        confirm.append(hit)
    sig.confirm, sig.deny = confirm, deny


def _hypothetical(hit: Hit, words: list[Word], text: str) -> bool:
    """"should work", "will fix it", 应该可以了, 直るはず: a hope, not a report."""
    if hit.word_index >= 0:
        before = words[max(0, hit.word_index - 2):hit.word_index]
        return any(w.text in lx.HYPOTHETICAL or w.text.endswith("'ll") for w in before)
    head, tail = text[max(0, hit.start - 4):hit.start], text[hit.end:hit.end + 3]
    return any(m in head or m in tail for m in lx.CJK_HYPOTHETICAL)


MAX_DIAGNOSED = 4000  # lines of a tool's output read by the CI log's diagnostic readers


def _diagnosed(text: str) -> str | None:
    """What a failing run's output says failed, read as the CI log reader reads a step
    (``cidiag``: a test runner's failure and its message, a compiler's error with its
    place), or None when it prints none of those shapes."""
    from memx_cli.reflector.cidiag import diagnostics
    from memx_cli.reflector.cisteps import Line

    lines = [Line(n, line) for n, line in enumerate(text.splitlines()[:MAX_DIAGNOSED], 1)]
    found = [d for d in diagnostics(lines) if d.kind in ("test", "error", "crash")]
    if not any(d.kind == "test" for d in found):
        return None  # generic error lines: the first strong one (above) reads as well
    test = next(d for d in found if d.kind == "test")
    return f"{test.where} failed: {test.message}" if test.where else test.message


PLACE = re.compile(r"^(\S+?:\d+(?::\d+)?):\s")
WORDY = re.compile(r"[^\W\d_]{2,}")


def _unrepeated(line: str) -> str:
    """An error line without its place said again inside it: the Go tools write
    ``a.go:7:2: could not import x (a.go:7:2: no required module provides package x)``."""
    place = PLACE.match(line)
    if place is None:
        return line
    return line[:place.end()] + line[place.end():].replace(f"({place.group(1)}: ", "(")


def _logged(line: str) -> str:
    """A line of `gh run view --log` output (job, step and timestamp before the line, tab
    separated) as the job printed it: a Go diagnostic's place leads the line again."""
    found = GH_LINE.match(line)
    if found is None:
        return line
    rest = found.group(3).lstrip("\ufeff")
    stamp = STAMP.match(rest)
    return rest[stamp.end():] if stamp else line


def _own_line(lines: list[str], command: str | None) -> str:
    """The line of a failed run's output that says what went wrong when no line reads as
    an error: the program's own diagnostic (``gh: Not Found (HTTP 404)``, its name and a
    colon) over the body it printed after it, else the last line holding a word (not a
    JSON document's closing brace)."""
    program = program_of(command or "")
    if program:
        own = next((ln for ln in lines if ln.startswith(program + ": ")), None)
        if own is not None:
            return own
    return next((ln for ln in reversed(lines) if WORDY.search(ln)), lines[-1])


def _error_evidence(sig: Signals) -> None:
    text = sig.text
    if PREFILTER.search(text):
        for line in text.splitlines():
            if not PREFILTER.search(line):
                continue
            line = _logged(line)
            if ERROR_LINE.search(line):
                # "TypeError: x → turned out ...": keep the error's own clause; a line led
                # by its place (`a.go:148:21: …`) is one tool's diagnostic, said whole with
                # its hint and its rule's name ("… use os/exec.CommandContext (noctx)")
                parts = [p for p in SENTENCE_END.split(line) if p and p.strip()] \
                    if not PLACE.match(line.strip()) else [line]
                part = next((p for p in parts if ERROR_LINE.search(p)
                             and not MARKER_ONLY.match(p)), line)  # not "npm ERR!" alone
                sig.error_lines.append(part.strip())
    if sig.error_lines:
        strong = [ln for ln in sig.error_lines if _STRONG.search(ln)]
        # a Python traceback ends with the exception; most other tools lead with it
        pick = strong[-1] if strong and "Traceback" in text else (strong or sig.error_lines)[0]
        sig.key_error = shorten(_unrepeated(re.sub(r"^(?:E\s{2,}|##\[error\]|npm ERR!\s*)", "",
                                                   pick).strip()), MAX_ERROR)
    elif sig.turn.failed and sig.text.strip():
        lines = [ln.strip() for ln in sig.text.splitlines() if ln.strip()]
        sig.key_error = shorten(_own_line(lines, sig.turn.command), MAX_ERROR)
    if (sig.turn.kind == "tool_result" and (sig.turn.failed or (
            sig.turn.failed is None and sig.error_lines))) or (
            sig.turn.role == "user" and sig.turn.kind == "text" and sig.error_lines):
        # a runner's own verdict beats a log line that says "error", also when only the
        # output's lines say the run failed (`go test … | tail` exits 0 after a bare FAIL),
        # and when a user pastes the runner's output into a message (the bare FAIL it ends
        # on names no test)
        said = _diagnosed(text)
        if said:
            sig.key_error = shorten(said, MAX_ERROR)
    compounds = sig.find(lx.ERROR_COMPOUNDS)
    blocked = [(h.start, h.end) for h in compounds]
    for hit in sig.find(lx.ERROR):
        if any(s <= hit.start < e for s, e in blocked) or negated(hit, sig.words, text):
            continue
        sig.errors.append(hit)
    for match in ERROR_NAME_RE.finditer(text):
        if match.group(1):
            sig.errors.append(Hit(match.group(1), match.start(), match.end(), -1))
    for match in ERROR_CONSTANT.finditer(text):
        sig.errors.append(Hit(match.group(), match.start(), match.end(), -1))
    for match in QUOTED_ERROR.finditer(text):
        quoted = next(g for g in match.groups() if g is not None)
        sig.errors.append(Hit(quoted, match.start(), match.end(), -1))
    sig.errors.sort(key=lambda h: h.start)


HYPHEN_KEY = re.compile(r"(?<![\w-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w-])")  # maxmemory-policy
KEY_TOKEN = re.compile(r"(?<![\w.])(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z][a-z0-9]*(?:[._][a-z0-9]+)+"
                       r"|--[a-z][\w-]+)(?![\w])|`[^`]+`")
VALUE = re.compile(r"\d|`[^`]+`|\b(?:true|false|on|off|enabled|disabled)\b", re.IGNORECASE)
# Shapes of a value change, each with a literal that must be present (cheap to test) —
# the CJK shapes start with \S+ and would otherwise be tried at every position.
_SHAPES = (
    ("from", r"\bfrom\s+\S+\s+to\s+\S"),
    ("instead", r"\bnow\s+`?\d[\w.]*`?\s+(?:\w+\s+)?instead of\s+`?\d"),
    (" to ", r"\b(?:set|sets|raised|lowered|increased|decreased|bumped|reduced|changed|capped|"
             r"limited)\s+(?:the\s+|our\s+|its\s+)?[\w`.'\-]+(?:\s+[\w`.'\-]+){0,5}?\s+to\s+`?\d"),
    ("instead", r"\bnow\s+(?:\w+\s+){0,2}`?\d[\w.]*`?\s+(?:[\w-]+\s+){0,6}instead of\s+`?\d"),
    (" à ", r"\bde\s+\S+\s+à\s+\S|\b(?:passé|mis|réglé|augmenté|réduit|baissé|fixé)\s+"
            r"[\w'\s-]{2,40}?\s+à\s+`?\d"),
    ("从", r"从\s*\S+?\s*(?:改|调|提高|降低|增加|减少|升|降)(?:成|到|为|至)"),
    ("", r"(?:改成|改为|调到|调成|设置为|设置成|设为|设成|提高到|降低到|增加到|减少到)\s*`?\d"),
    ("から", r"\S+\s*から\s*\S+\s*に"),
    ("に", r"を\s*\S*?\d\S*?\s*に(?:変更|設定|増や|減ら|上げ|下げ)"),
    ("에서", r"\S+에서\s*\S+(?:으로|로)"),
    ("로", r"(?:을|를)\s*\S*?\d\S*?(?:으로|로)\s*(?:변경|설정|늘|줄|올|낮)"),
    ("=", r"^\s*(?:export|set|setx)\s+[A-Z_][A-Z0-9_]*=\S"),
)
SHAPES = tuple((guard, re.compile(rx, re.IGNORECASE | re.MULTILINE)) for guard, rx in _SHAPES)
MOVES = {0, 1, 3, 4, 5, 7, 9}  # shapes that state an old and a new value


def _shapes(text: str) -> list[tuple[int, re.Match[str]]]:
    lowered = text.lower()
    found: list[tuple[int, re.Match[str]]] = []
    for number, (guard, regex) in enumerate(SHAPES):
        if guard and guard not in lowered:
            continue
        if not guard and not CJK_ANY.search(text):
            continue
        found.extend((number, m) for m in regex.finditer(text))
    return found


def _config(sig: Signals) -> None:
    nouns = sig.find(lx.CONFIG_NOUN)
    verbs = [h for h in sig.find(lx.CONFIG_VERB) if not negated(h, sig.words, sig.text)]
    noun_s = {sig.sentence_of(h.start) for h in nouns}
    verb_s = {sig.sentence_of(h.start) for h in verbs}
    moved_s: set[int] = set()
    direct_s: set[int] = set()  # "set X to 5", "export X=1": a change on its own
    for number, match in _shapes(sig.text):
        (moved_s if number in MOVES else direct_s).add(sig.sentence_of(match.start()))
    for number in sorted(verb_s | moved_s | direct_s):  # only sentences that can be a change
        if sig.is_question(number):
            continue
        text = sig.sentence(number)
        keyed = bool(KEY_TOKEN.search(text)) or number in noun_s or (
            number in moved_s and bool(HYPHEN_KEY.search(text)))
        changed = number in moved_s or (number in verb_s and bool(VALUE.search(text)))
        if (keyed and changed and (number in verb_s or number in moved_s)) or number in direct_s:
            sig.config.append(number)


# "switched our task runner from make to just": the object between, the tool after "to"
SWITCHED = re.compile(r"\b(?:switched|moved|migrated)\s+(?:[\w-]+\s+){1,4}?from\s+`?[\w.+-]+`?"
                      r"\s+to\s+`?([A-Za-z][\w.+-]*)`?", re.IGNORECASE)
GAVE_A_TRY = re.compile(r"\b(?:gave|giving|give)\s+`?([A-Za-z][\w.+-]*)`?\s+a\s+(?:try|shot|spin)\b",
                        re.IGNORECASE)


def _tool_like(word: str, spaced: bool) -> bool:
    """A known tool; or, right after "started using"/"开始用", a name that looks like one."""
    from memx_cli.reflector.names import GENERIC_WORDS, is_tool_name

    bare = word.rstrip(".,")
    if is_tool_name(bare):
        return True
    if bare.lower() in GENERIC_WORDS or len(bare) < 2:
        return False
    return not spaced or bare[0].isupper() or any(c in bare for c in "-_.0123456789")


def _newtool(sig: Signals) -> None:
    for match in GAVE_A_TRY.finditer(sig.text):
        if _tool_like(match.group(1), True):
            sig.newtool.append((sig.sentence_of(match.start()), match.group(1).lower()))
    for match in SWITCHED.finditer(sig.text):
        number = sig.sentence_of(match.start())
        if _tool_like(match.group(1), True) and not sig.is_question(number):
            sig.newtool.append((number, match.group(1).lower()))
    spaced = sig.lang in ("en", "fr", "ko", "es", "pt", "de")
    failing = {sig.sentence_of(h.start) for h in sig.errors}
    for hit in sig.find(lx.NEW_TOOL):
        number = sig.sentence_of(hit.start)
        if negated(hit, sig.words, sig.text) or sig.is_question(number) or number in failing:
            continue  # "first time I've seen this error": a failure, not a tool
        _, end = sig.spans[number]
        tail = sig.text[hit.end:end]
        if " from " in tail and " to " in tail:  # "switched from npm to pnpm": the target
            tail = tail.split(" to ", 1)[1]
        start, _ = sig.spans[number]
        head = sig.text[start:hit.start]  # "tried Tailwind for the first time"
        names = re.findall(r"[A-Za-z][A-Za-z0-9.+-]*", tail)[:4 if spaced else 2]
        if "first" in hit.phrase or "première" in hit.phrase:
            names += list(reversed(re.findall(r"[A-Za-z][A-Za-z0-9.+-]*", head)))[:2]
        for span in CODE_SPAN.finditer(tail[:80]):
            sig.newtool.append((number, span.group(1)))
            break
        else:
            for word in names:
                if _tool_like(word, spaced):
                    sig.newtool.append((number, word.rstrip(".,").lower()))
                    break


EVERY = re.compile(r"\b(?:each|every)\s+(?:single\s+)?[a-z]{3,}", re.IGNORECASE)


def _repeat(sig: Signals) -> None:
    hits = sig.find(lx.REPEAT) + [  # "each sprint", "every standup": any recurring event
        Hit(m.group(), m.start(), m.end(), -1) for m in EVERY.finditer(sig.text)]
    if not hits:
        return
    duty = {sig.sentence_of(h.start) for h in sig.find(lx.OBLIGATION)}
    for hit in hits:
        number = sig.sentence_of(hit.start)
        text = sig.sentence(number)
        if sig.is_question(number) or number in sig.repeat:
            continue
        # a chore needs a duty ("I have to", 都要, il faut): "every time I deploy it
        # fails" is an error report, not a chore
        if number in duty or ("`" in text and not sig.errors):
            sig.repeat.append(number)
