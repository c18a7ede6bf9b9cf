"""What a turn says about an episode (episodes.py): the concrete proposal it makes, a
user's rejection, a confirmation that names its own fix, which attempt a confirmation
refers to. Pure functions of one turn's ``Signals``.
"""

from __future__ import annotations

import re

from memx_cli.reflector.attempts import Attempt
from memx_cli.reflector.names import CODE_SPAN, IDENT_RE, PATH_RE
from memx_cli.reflector.reruns import unfiltered
from memx_cli.reflector.signals import KEY_TOKEN, Signals
from memx_cli.reflector.turn import Turn

CONCRETE = re.compile(r"\d+\.\d+|==|(?<![\w-])--?[a-zA-Z][\w-]*|\w=\S|[\w)]\(|::|->|\{|/\w")
# A user turning down what the agent did: "no, use X", "non, ...", "不要…", "いや、…", "아니요"
REJECT = re.compile(r"(?i)^\W*(?:(?:no|nope|nah|non|nein|não|nao)\b(?!\s+(?:problem|worries)\b)"
                    r"|不要|不对|不是|别|いや|いいえ|違う|아니|아뇨)")


def logged(turn: Turn) -> str | None:
    """The command a block of a log starts with (``$ make test``), if it starts with one."""
    if turn.role != "text" or not turn.command:
        return None
    head = turn.text.lstrip().split("\n", 1)[0]
    return command_key(turn.command) if head.endswith(turn.command.strip()) else None


def rejects(sig: Signals) -> bool:
    """The user turns down what was just done or proposed ("no, use pipx"), or rejects the
    tool call itself."""
    return sig.turn.role == "user" and (sig.turn.rejected or bool(REJECT.match(sig.text)))


def asks_only(sig: Signals) -> bool:
    return all(sig.is_question(n) for n in range(len(sig.spans)))


def command_key(command: str) -> str:
    """A command as episodes compare it: spaces folded, output filters (``| tail``) off."""
    return " ".join(unfiltered(command).split())


def said_line(sig: Signals) -> str:
    return f"{sig.turn.role}: {sig.text[:600]}"


def denied_after(sig: Signals) -> bool:
    """"that worked for the first one, but the second still fails": the denial wins."""
    return bool(sig.deny) and sig.deny[-1].start > sig.confirm[-1].start


def concrete(sentence: str) -> bool:
    """Names something one can type or look up: code, a path, a version, a flag, a key."""
    return bool(CODE_SPAN.search(sentence) or PATH_RE.search(sentence)
                or KEY_TOKEN.search(sentence) or IDENT_RE.search(sentence)
                or CONCRETE.search(sentence))


def proposal(sig: Signals, limit: int = 3, asked: bool = False,
             skip: frozenset[int] | set[int] = frozenset()) -> str | None:
    """What a turn proposes or explains concretely; a question only when ``asked`` (the
    assistant's "Maybe disable the `semi` rule?" is a suggestion); never the sentences
    numbered in ``skip``."""
    numbers = []
    hits = {sig.sentence_of(h.start) for h in sig.cause + sig.remedy} | set(sig.config)
    denied = denied_sentences(sig)
    for number in range(len(sig.spans)):
        if sig.is_question(number) and not (asked and concrete(sig.sentence(number))):
            continue
        if number in denied or number in skip:
            continue  # "switching to musl did not help either": a failed attempt
        text = sig.sentence(number)
        if number in hits or concrete(text):
            numbers.append(number)
    return " ".join(sig.sentence(n) for n in numbers[:limit]) or None


def denied_sentences(sig: Signals) -> set[int]:
    return {sig.sentence_of(h.start) for h in sig.deny}


NAME_PART = re.compile(r"[^\W_]{4,}")


def referred(working: list[Attempt], said: str) -> list[Attempt]:
    """A confirmation that names what worked ("the health check interval did it") refers
    to that attempt: what was tried after it (another task meanwhile) is not the lesson."""
    words = {w.lower() for w in NAME_PART.findall(said)}
    named = [i for i, a in enumerate(working)
             if len(words & {w.lower() for w in NAME_PART.findall(a.text)}) >= 2]
    return working[:named[-1] + 1] if named else working


TOKEN = re.compile(r"[A-Za-z0-9_][\w.-]*")


def tokens(text: str) -> set[str]:
    """The concrete names in a text (versions, keys, dotted or snake names), to tell a new
    detail from one the attempt already gave."""
    return {t.strip(".-").lower() for t in TOKEN.findall(text)
            if any(c.isdigit() or c in "_.-" for c in t.strip(".-"))
            or (t.isupper() and len(t) > 2)} - {""}


def own_fix(sig: Signals) -> str | None:
    """A confirmation that says itself what was done: "upgrading Flask to 2.3.2 did it"."""
    numbers = {sig.sentence_of(h.start) for h in sig.confirm}
    near = sorted(numbers | {n - 1 for n in numbers if n > 0})
    found = [sig.sentence(n) for n in near if not sig.is_question(n)
             and concrete(sig.sentence(n))]
    return " ".join(found[:2]) or None
