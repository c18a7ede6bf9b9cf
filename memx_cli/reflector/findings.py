"""What an agent found wrong, read from its words between a failing run and its first edit
(issue 24): the sentences that name the code the failure names. ``episodes`` takes them as
the Why once the same command passes after the edit."""

from __future__ import annotations

import re

from memx_cli.reflector import lexicons as lx
from memx_cli.reflector.diagnosis import NARRATED
from memx_cli.reflector.names import CODE_SPAN, IDENT_RE, PATH_RE
from memx_cli.reflector.said import denied_sentences
from memx_cli.reflector.signals import Signals

MIN_NAME = 3  # characters of a name compared with the episode's own words
# One word of code: letters, digits and the joints of code (_ . / : -), with a joint or a
# lower-to-upper hump in it, so a plain word in backticks (`Enabled`) is none.
CODE_WORD = re.compile(r"^(?=.*(?:[_./:]|[a-z][A-Z]))[\w./:@-]+(?:\(\))?$")
MAX_FOUND = 2  # sentences of the agent's finding kept
JOINT = re.compile(r"\.")
TOKEN = re.compile(r"[\w.]+(?P<call>\()?")
MIN_STEM = 5  # characters a name shares as its start with a longer one ("agentLines…")
# A sentence that announces the agent's next step ("Now let's fix the linter warning",
# "I'll also update the docs"): said after a passing run it tells what comes next, not
# why the fix worked.
NEXT_STEP = re.compile(r"(?i)^\W*(?:(?:now|next|then|also|so|ok|okay)\b[,\s]+)?"
                       r"(?:let\s+me|let's|let\s+us|i'll|i\s+will|we'll|we\s+will|"
                       r"i\s+need\s+to|we\s+need\s+to|i'm\s+going\s+to)\b")


def finding(sig: Signals, problem: str) -> str | None:
    """What an assistant's text states about the code the failure names ("the parent added
    a `userPrompt` parameter to `InitializeSession`" for "not enough arguments in call to
    s.InitializeSession"): its sentences that share a name (an identifier, a path, a code
    word) with the problem, leaving out questions, denials, hedged guesses, its next steps
    and lead-ins to what it quotes. Sentences about other code are other work told in the
    same message (the rest of a review's list)."""
    denied = denied_sentences(sig)
    hedged = {sig.sentence_of(h.start) for h in lx.HEDGE.find(sig.words, sig.text)}
    failure = _pieces(names_in(problem) | _code_words(problem))
    kept = []
    for number in range(len(sig.spans)):
        said = sig.sentence(number).strip()
        if sig.is_question(number) or number in denied or number in hedged \
                or NEXT_STEP.match(said) or NARRATED.match(said) or said.endswith((":", "：")):
            continue
        quoted = {q.strip().rstrip("()").lower() for q in CODE_SPAN.findall(said)}
        if any(_same(name, piece) for name in _pieces(names_in(said) | quoted)
               for piece in failure):
            kept.append(said)
    return " ".join(kept[:MAX_FOUND]) or None


def names_in(text: str) -> set[str]:
    """The code a text names: its identifiers (``CamelCase``, ``snake_case``, dotted),
    paths, and code spans of one code-shaped word (`TestInstall_LocalDev`,
    `//nolint:dupl`). A quoted value (`"Enabled"`) is no name: it is said in many ways."""
    found = set(IDENT_RE.findall(text)) | set(PATH_RE.findall(text)) | {
        span for span in CODE_SPAN.findall(text) if CODE_WORD.match(span)}
    return {name.lower() for name in found if len(name) >= MIN_NAME}


def _pieces(names: set[str]) -> set[str]:
    """Names with the parts of dotted ones (``s.InitializeSession``: ``initializesession``),
    of at least MIN_NAME characters; a path stays whole (its folders name no code)."""
    parts = {p for name in names for p in [name, *JOINT.split(name)]}
    return {p for p in parts if len(p) >= MIN_NAME}


def _same(name: str, other: str) -> bool:
    """One name, or one the start of the other (``AgentLines`` of ``agentLinesInCommit``);
    never one inside another (``InstallHooks`` in ``TestInstallHooks_LocalDev``)."""
    short, long = sorted((name, other), key=len)
    return short == long or (len(short) >= MIN_STEM and long.startswith(short))


def _code_words(text: str) -> set[str]:
    """The words of a tool's output shaped as code: with a joint or a hump
    (``TestInstallHooks_LocalDev``, ``AgentLines``) or called (``Remaining()``)."""
    return {m.group(0).rstrip("(").lower() for m in TOKEN.finditer(text)
            if m.group("call") or CODE_WORD.match(m.group(0))}


def touches(found: str, fix: str) -> bool:
    """Does the fix as shown change code the finding names ("`totalCommitted` can go
    negative" and an edit `if totalCommitted <= 0`)? A green run after several pieces of
    work bears out the finding only through an edit of what it is about; shown beside an
    edit made for another item, it would pin the wrong change on the cause."""
    quoted = {q.strip().rstrip("()").lower() for q in CODE_SPAN.findall(found)}
    named = _pieces(names_in(found) | quoted)
    changed = _pieces(names_in(fix) | _code_words(fix))
    return any(_same(name, piece) for name in named for piece in changed)
