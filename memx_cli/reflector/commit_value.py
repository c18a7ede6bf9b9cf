"""The lesson value of a commit's candidate (issue 24), 0 to 100: how much an engineer
joining the project would want to read it, read from the structure of the commit and of
the memory, never from one project's phrases.

A lesson is a why tied to a thing: a stated cause, purpose or breakage ("because", "caused
by", "to work around", "regression", "deprecated") about something concrete (a library, a
platform, a setting, a file, an identifier, a version). What only describes the change —
a fix's title restated, "Don't X" as a fix's subject, a rename — is what the diff already
says. So:

    base by form        a revert or a restore 50 (its reason is its why), a norm (a subject or item that is
                        the rule: "Do not …", must, never, always, instead of) 45, a fix,
                        a decision or a changed setting 35, a dependency or a title that
                        is the fact (``commit_fact``) 30
    + why               25 for a cause, a purpose or a breakage; 12 for a weak link
                        ("since", "so that", "otherwise") — in the memory itself; 25
                        for a change marked breaking (``feat!:``, ``BREAKING CHANGE:``)
                        — a commit that adds its own changelog entry
                        (``commit_fact.own_entry``) has a weak why at least (12): the
                        maintainers judged the change worth telling users; not for a
                        setting or a dependency read from the diff beside it; 25 when
                        the entry is filed as deprecated, removed, breaking or security,
                        none when filed as performance, documentation or misc
                        (``commit_fact.filed``)
    + prose             10 when the memory carries a sentence of the body, not the title only;
                        under a history's budget, one that adds at least three words
                        the subject lacks (``adds``: "Handle `SSLError`: Handle
                        `SSLError` exception." is the title again)
    + concrete          4 for each kind of thing named (code, identifier, path, tool,
                        platform, version, error name), at most 16
    + outside           12 when one of them is outside the project (``outside``: a
                        platform, a standard, another tool or library, a module of
                        the standard library, a name with its version), not only the
                        project's own modules and commands; not for a short memory
    − title only        15 when the memory is the subject alone, says no why and is
                        no norm (a fact is the title by design; in the post-commit
                        hook, a setting, a dependency or a workflow read from the diff
                        too; under a history's budget these are the title only when the
                        message gives no why: the values and paths are memx's rendering
                        of the diff, a new CI workflow or `requires-python` is the
                        change restated); a fix's title that states its condition
                        ("… when port is 0", "… on Windows") gets 12 back
    − fragment          20 when it starts inside a sentence ("coverage) as well as …"),
                        not with the subject's scope ("css: Minify …")
    − short             10 under 40 characters (25 for a norm)

The value is the score of a commit's candidate: ``ingest --git-log`` and the post-commit
hook keep those of at least ``ace.reflector.min_score`` (30), and the history ingest ranks
by it under its budget (60 memories per 1,000 commits; the trade-off on the real-world
development histories is in docs/pipeline.md).
"""

from __future__ import annotations

import re

from memx_cli.reflector import commit_fact, outside, routine
from memx_cli.reflector import lexicons as lx
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.commit_message import BULLET, is_norm, sentences
from memx_cli.reflector.distiller import CHANGED
from memx_cli.reflector.names import CODE_SPAN, ERROR_NAME_RE, IDENT_RE, PATH_RE, tools_in
from memx_cli.reflector.vocab import Lexicon, phrases, words_of

STRONG = Lexicon(phrases("""
because; caused by; due to; the reason; root cause; turned out; turns out;
to work around; work around; workaround
"""))
# A purpose of the change itself ("… to prevent parsing errors"): a weak why.
PURPOSE = Lexicon(phrases("""
in order to; to prevent; to avoid; to keep; to make sure; to ensure
"""))
# A kind of test, not a breakage: "Add a regression test for #4514".
TEST_KIND = re.compile(r"(?i)\bregression[- ]tests?\b")
# The means of the change, not a breakage or a cause: "by no longer rebuilding the list",
# "by not scanning …" (a preposition and a gerund say how, never why).
MEANS = re.compile(r"(?i)\bby (?:no longer |not )?[\w-]+ing\b")
PLATFORM = re.compile(r"\b(?:Windows|macOS|Linux|WSL|FreeBSD|iOS|Android|PyPy|CPython|"
                      r"Node(?:\.js)?|Python \d[\d.]*|Safari|Firefox|Chrom(?:e|ium)|musl|"
                      r"glibc|ARM64|aarch64|x86|32-bit|64-bit)\b")
VERSIONED = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)?(?![\w.])")
LABEL = re.compile(r"^(?:Error|Fix|Why): ")
SCOPE = re.compile(r"^([\w./,{}-]+): ")
USERS = 12
# what a sentence adds to its subject: its words of three letters or more, compared by
# their first five ("avoided" is "avoid"), at least a clause's worth of them
WORD = re.compile(r"[^\W\d_]{3,}")
STEM = 5
ADDS = 3
BASE = {"Convention": 35, "Decision": 35, "ErrorFix": 35, "ConfigChange": 35,
        "NewTool": 30, "Fact": 30}


def value(candidate: Candidate, message: str, own: frozenset[str] = frozenset(),
          users: bool = False, filed: str = "", ranked: bool = False) -> int:
    """The lesson value of ``candidate``, one of the candidates of the commit ``message``;
    ``own``: the project's own names the commit shows (``outside.own_names``); ``users``:
    the commit adds its own changelog entry (``commit_fact.own_entry``); ``filed``: what
    the kind that entry is filed under says (``commit_fact.filed``); ``ranked``: the value
    ranks the candidate under a history ingest's budget, where a setting or a dependency
    read from the diff with no why is the title only too, and a body or an entry that
    says the title again (``adds``) is no prose."""
    text = CHANGED.sub("", "\n".join(p for p in (candidate.error, candidate.cause,
                                                 candidate.fix) if p))
    lines = message.strip().splitlines()
    subject = lines[0] if lines else ""
    body = "\n".join(lines[1:])
    points = BASE.get(candidate.rule, 30)
    norm = candidate.rule == "Convention" and is_norm(LABEL.sub("", text))
    if norm:  # a subject that is the rule ("Do not retry on 4xx responses") is the lesson
        points = 45
    if candidate.rule == "Decision" and text.startswith(('Reverted "', 'Restored "')):
        points = 50
    reason = why(text)
    if candidate.rule == "ErrorFix" and candidate.error and told(candidate.error, body):
        # the failure told in the body's prose ("… so 3.10.0 through 3.10.11 raise
        # TypeError") is the fix's why, whatever its words: a weak link at least
        reason = max(reason, 12)
    if routine.breaking(message):  # "feat!:", "BREAKING CHANGE:": users must know it
        reason = 25
    if users and filed == commit_fact.ACT:  # filed as deprecated, removed, breaking or a
        reason = 25  # security fix: what users must act on, as a change marked breaking
    elif users and filed != commit_fact.ROUTINE:  # the maintainers told users about this
        # change: judged worth knowing by those who know it best, a weak why at least; not
        # one they file as performance, documentation or misc (nothing users do changes)
        reason = max(reason, USERS)
    points += reason
    # a fact that carries its changelog entry (``commit_fact``) says more than its title
    prose = (from_body(text, body, subject) or (candidate.rule == "Fact" and bool(candidate.files))
             ) and (adds(text, subject) or not ranked)
    points += 10 if prose else 0
    points += min(16, 4 * things(text))
    short = len(text.strip()) < (25 if norm else 40)
    # a short title says too little for what it names to matter ("Test the tox envs")
    points += outside.OUTSIDE if not short and outside.named(text, own) else 0
    read = candidate.rule in ("ConfigChange", "NewTool") and bool(candidate.files)
    if not (prose or reason or norm) and candidate.rule != "Fact" and (ranked or not read):
        # the title alone, restating the change; under a budget, a setting or a dependency
        # read from the diff with no why says what the diff does too (its code spans and
        # paths are memx's rendering, not the author's words)
        points -= 15
        # unless it says when the change matters: a fix's symptom and its condition
        points += 12 if candidate.rule == "ErrorFix" and routine.condition(subject) else 0
    first = LABEL.sub("", text.strip())
    if first[:1].islower() and not _is_code(first, subject):
        points -= 20
    if short:
        points -= 10
    return max(0, min(100, points))


def why(text: str) -> int:
    """25 for a cause, a purpose or a breakage, 12 for a weak link, else 0 (links, issue
    numbers and the change's means left out: ".../security/code-scanning/23" states no
    vulnerability, "by no longer rebuilding …" no breakage)."""
    text = MEANS.sub(" ", TEST_KIND.sub(" ", routine.ISSUE_REF.sub(" ", text)))
    words = words_of(text)
    if STRONG.find(words, text) or lx.CAUSE.find(words, text) or routine.breakage(text):
        return 25
    return 12 if lx.CAUSE_EFFECT.find(words, text) or PURPOSE.find(words, text) else 0


def from_body(text: str, body: str, subject: str = "") -> bool:
    """The memory carries a sentence of the body (its first words), not only the title; a
    body's line that repeats the subject (a squash merge's list starts with the pull
    request's first commit, titled as the merge) is the title."""
    parts = [p.strip() for p in text.split("\n") if len(p.strip()) >= 15]
    title = _plain(routine.ISSUE_REF.sub("", subject))
    for sentence in sentences(body):
        head = sentence.rstrip(".!?;: ")[:40]
        if title and _plain(sentence) in title:
            continue
        if len(head) >= 15 and (head in text or any(p[:40] in sentence for p in parts)):
            return True
    return False


def adds(text: str, subject: str) -> bool:
    """The memory says more than its subject: at least ``ADDS`` words the subject does
    not hold, compared by their first letters ("Handle `SSLError`: Handle `SSLError`
    exception." adds one: the title said again, as an entry or a body often does)."""
    title = {w[:STEM] for w in WORD.findall(subject.lower())}
    new = {w[:STEM] for w in WORD.findall(text.lower())} - title
    return len(new) >= ADDS


def _plain(text: str) -> str:
    """Lower-case words only, to compare a line with the subject."""
    return " ".join(re.findall(r"\w+", text.lower()))


def told(error: str, body: str) -> bool:
    """The error is a sentence of the body's prose, not one of a squash merge's listed
    commits ("* fix(github): fix bubble up errors …")."""
    head = error.strip()[:40]
    listed = any(BULLET.match(line) and head[:25] in line for line in body.splitlines())
    return from_body(error, body) and not listed


def things(text: str) -> int:
    """How many kinds of concrete thing the text names."""
    kinds = [CODE_SPAN, IDENT_RE, PATH_RE, PLATFORM, VERSIONED, ERROR_NAME_RE]
    return sum(1 for kind in kinds if kind.search(text)) + (1 if tools_in(text) else 0)


def _is_code(first: str, subject: str) -> bool:
    """A memory may begin with an identifier ("pytest.warns …", "`x` …"), with the
    subject as its author wrote it, or with the subject's scope ("css: Minify …",
    "net/http: Reject …"): none is a cut sentence."""
    word = first.split(" ", 1)[0]
    scope = SCOPE.match(first)  # "css: Minify …": the subject's scope leads, as core() writes
    return bool(IDENT_RE.match(word) or word.startswith("`")
                or (subject and first[:30].lower() in subject.lower())
                or (scope and scope.group(1) in subject and first[scope.end():][:1].isupper()))
