"""A commit whose subject is the fact (issue 24): most of what a history teaches is said by a
title alone — "Respect NO_COLOR by disabling ANSI output", "feat(css): minify style tag",
"Accept MarkDecorator as get_closest_marker default" — a behaviour of the project that a
newcomer would otherwise find by reading the code. Neither a norm, a revert, a reason, a fix
nor a diff rule reads it, so it is read last, when nothing else in the commit taught anything.

Read from the form of the commit, never from its words:

- not a fix (a fixed bug's title restates the code), a revert or a squash merge of a fork's
  advisory ("Merge commit from fork": a title that names nothing);
- not of a housekeeping type or tag (``docs:``, ``test:``, ``chore:``, ``ci:``, ``build:``,
  ``style:``, ``refactor:``, ``release:``, ``[docs]``…) and not of documentation files only;
- a statement: the title, without its type, tag and pull request number, is at least three
  words and does not start inside a sentence;
- with the first sentence of the body's prose when there is one (the paragraphs before a
  squash merge's list of commits; trailers, links and quoted code left out), unless it only
  says the title again.

The memory is a ``Fact``; its lesson value (``commit_value``) has no reason to add, so under
the history budget it ranks below what explains itself and fills what room is left.
"""

from __future__ import annotations

import re

from memx_cli.reflector import commit_message as msg
from memx_cli.reflector import routine
from memx_cli.reflector.candidate import Candidate

# Conventional Commits types and subject tags of housekeeping: what they change is the
# project's plumbing (its docs, tests, CI, formatting), not a behaviour of what it ships.
HOUSEKEEPING = frozenset([
    "docs", "doc", "test", "tests", "testing", "chore", "ci", "build", "style", "refactor",
    "release", "deps", "dep", "typo", "typos", "lint", "wip", "revert", "merge", "format",
    "fmt", "cleanup"])
TAGS = re.compile(r"\[([^\]]{1,40})\]")
MIN_SENTENCE = 20


def stated(message: str, kind: str, lang: str) -> Candidate | None:
    """The fact a commit's subject states, with its body's first sentence; None when the
    commit is of a kind whose title teaches nothing (see the module's docstring). ``kind``:
    the subject's Conventional Commits type, lower case ("" when it has none); the caller
    has left out fixes, typo fixes and commits of documentation only."""
    lines = message.strip().splitlines()
    if not lines:
        return None
    subject = lines[0].strip()
    tags = {t.strip().lower() for t in TAGS.findall(subject[:80])}
    if kind in HOUSEKEEPING or tags & HOUSEKEEPING or msg.REVERT.match(subject):
        return None
    head = msg.core(subject)
    words = msg.PREFIX.sub("", subject, count=1).split()
    # "Merge commit from fork", "Merge branch 'x'": a merge's title names no change
    if not routine.real_statement(head) or not words or words[0].lower() == "merge":
        return None
    told = _first_prose(lines[1:], head)
    text = head.rstrip(".") + (f": {told}" if told else ".")
    return Candidate("Fact", 1, 1, lang, text, veracity="stated")


def _first_prose(body: list[str], head: str) -> str:
    """The first sentence of the body's prose before any list of commits, not the title
    again and not a quoted line of code."""
    prose: list[str] = []
    for line in body:
        if msg.BULLET.match(line):
            break  # a squash merge's list of commits: each item is a commit's own title
        prose.append(line)
    title = set(re.findall(r"\w+", head.lower()))
    for sentence in msg.sentences("\n".join(prose)):
        words = set(re.findall(r"\w+", sentence.lower()))
        if len(sentence) < MIN_SENTENCE or msg.code_like(sentence):
            continue
        if words and len(words & title) / len(words) >= 0.8:
            continue  # the title again, as a sentence
        return sentence
    return ""
