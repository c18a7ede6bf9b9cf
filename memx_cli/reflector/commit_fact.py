"""A commit whose subject is the fact (issue 24): most of what a history teaches is said by a
title alone — "Respect NO_COLOR by disabling ANSI output", "feat(css): minify style tag",
"Accept MarkDecorator as get_closest_marker default" — a behaviour of the project that a
newcomer would otherwise find by reading the code. Neither a norm, a revert, a reason, a fix
nor a diff rule reads it, so it is read last, when nothing else in the commit taught anything.

Read from the form of the commit, never from its words:

- not a fix (a fixed bug's title restates the code), a revert or a squash merge of a fork's
  advisory ("Merge commit from fork": a title that names nothing);
- not of a housekeeping type or tag (``docs:``, ``test:``, ``chore:``, ``ci:``, ``build:``,
  ``style:``, ``refactor:``, ``release:``, ``[docs]``…), unless marked breaking (``build!:``,
  a ``BREAKING CHANGE:`` trailer), and not of documentation files only;
- a statement: the title, without its type, tag and pull request number, is at least three
  words and does not start inside a sentence;
- with the first sentences of the body's prose that fit in 300 characters (the paragraphs
  before a squash merge's list of commits; trailers, links and quoted code left out, and a
  sentence that only says the title again); else with its own entry among those the
  commit adds (or, when it adds several, none that names what the subject names: no
  neighbour's news) to a changelog (``CHANGES.md``,
  ``CHANGELOG.rst``, ``HISTORY``, ``NEWS``, a towncrier or changesets fragment such as
  ``changelog/1234.bugfix.rst`` or ``.changeset/x.md``): written for users, it says what
  the change means where a squash merge's body only lists commits.

The memory is a ``Fact``; its lesson value (``commit_value``) has no reason to add, so under
the history budget it ranks below what explains itself and fills what room is left.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from memx_cli.reflector import commit_message as msg
from memx_cli.reflector import routine
from memx_cli.reflector.candidate import Candidate

# Conventional Commits types and subject tags of housekeeping: what they change is the
# project's plumbing (its docs, tests, CI, formatting), not a behaviour of what it ships.
HOUSEKEEPING = frozenset([
    "docs", "doc", "test", "tests", "testing", "chore", "ci", "build", "style", "refactor",
    "release", "deps", "dep", "typo", "typos", "lint", "wip", "revert", "merge", "format",
    "fmt", "cleanup"])
TRAILER_BREAKING = re.compile(r"^\s*BREAKING[ -]CHANGE:\s*")
TAGS = re.compile(r"\[([^\]]{1,40})\]")
MIN_SENTENCE = 20
MAX_ENTRY = 300
REWORDED = 0.5  # an added entry sharing half its words with a removed one rewords it
STEM = 5
# A changelog by its name (keep-a-changelog, GNU NEWS, …) or a fragment in a changelog
# folder (towncrier's changelog/ and newsfragments/, changesets' .changeset/).
CHANGELOG = re.compile(r"(?i)(?:^|/)(?:CHANGES|CHANGELOG|HISTORY|NEWS|RELEASE[-_]?NOTES)"
                       r"(?:\.(?:md|rst|txt|markdown|adoc))?$|(?:^|/)(?:changelog|changelog\.d|"
                       r"changes|newsfragments|\.changeset)/[^/]+\.(?:md|rst|txt)$")
HEADING = re.compile(r"^\s*(?:#{1,6}\s|[=~^*-]{3,}\s*$|\.\.\s)")
PR_REF = re.compile(r"\s*\((?:[^()]*#\d+[^()]*)\)|\s*\[#\d+\]\([^)]*\)|"
                    r"\s*:(?:issue|pr|user):`[^`]*`|\s+--\s*by\b.*$")


def is_changelog(path: str) -> bool:
    return bool(CHANGELOG.search(path))


def changelog_entry(diffs: Mapping[str, str], subject: str = "") -> str:
    """The entry a commit adds to a changelog: its added lines, headings, code fences and
    what they hold left out, a list item's wrapped lines joined, its bullet and pull
    request references dropped. An entry the commit only rewords (it also takes out one
    mostly of the same words, and what it adds names nothing of ``subject``) is not its
    own. When it adds several, the one that shares
    the most words with ``subject`` is its own (the first among equals); none when none
    shares a word: a release's or a merged branch's entries are other commits' news."""
    found: list[str] = []
    title = _content(subject)
    for path, diff in diffs.items():
        if not is_changelog(path):
            continue
        removed = [_content(entry) for entry in _entries(diff, "-")]
        for entry in _entries(diff, "+"):
            entry = PR_REF.sub("", entry).strip()
            if not routine.real_statement(entry) or msg.code_like(entry):
                continue
            words = _content(entry)
            if any(len(words & old) >= REWORDED * len(words | old)
                   and not (words - old) & title for old in removed):
                continue  # reworded, and not to say what the subject does
            found.append(entry)
    if not found:
        return ""
    best = max(found, key=lambda entry: len(_content(entry) & title))
    if len(found) > 1 and not _content(best) & title:
        return ""
    return _sentences_within(best, MAX_ENTRY)


def _entries(diff: str, sign: str) -> list[str]:
    """The entries of a changelog diff's lines marked ``sign`` ("+" added, "-" removed)."""
    other = "-" if sign == "+" else "+"
    entries: list[str] = []
    fenced = False
    for line in diff.splitlines():
        if not line.startswith(sign) or line.startswith(sign * 3):
            if entries and entries[-1] and not line.startswith(other):
                entries.append("")  # an unchanged line ends the entry
            continue
        text = line[1:]
        if text.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or HEADING.match(text):
            continue
        if not text.strip():
            entries.append("")
        elif msg.BULLET.match(text) or not entries or not entries[-1]:
            entries.append(msg.BULLET.sub("", text).strip())
        else:
            entries[-1] = f"{entries[-1]} {text.strip()}"
    return [entry for entry in entries if entry]


def _content(text: str) -> set[str]:
    """The words of ``text`` that carry content, cut to a stem ("headers" and "header",
    "deprecated" and "deprecate" agree)."""
    words = re.findall(r"[^\W\d_]{4,}", text.lower())
    return {word[:STEM] for word in words if word not in msg.CLOSED}


def _sentences_within(text: str, limit: int) -> str:
    """The entry's first sentences that fit in ``limit`` characters (at least one, cut)."""
    out = ""
    for sentence in msg.SENTENCE.split(text):
        if out and len(out) + 1 + len(sentence) > limit:
            break
        out = f"{out} {sentence}".strip()
    return out[:limit]


def stated(message: str, kind: str, lang: str,
           diffs: Mapping[str, str] | None = None) -> Candidate | None:
    """The fact a commit's subject states, with its body's first sentences; None when the
    commit is of a kind whose title teaches nothing (see the module's docstring). ``kind``:
    the subject's Conventional Commits type, lower case ("" when it has none); the caller
    has left out fixes, typo fixes and commits of documentation only."""
    lines = message.strip().splitlines()
    if not lines:
        return None
    subject = lines[0].strip()
    tags = {t.strip().lower() for t in TAGS.findall(subject[:80])}
    housekeeping = bool(kind in HOUSEKEEPING or tags & HOUSEKEEPING)
    # a breaking change of any type is what users must know
    if (housekeeping and not routine.breaking(message)) or msg.REVERT.match(subject):
        return None
    head = msg.core(subject)
    words = msg.PREFIX.sub("", subject, count=1).split()
    # "Merge commit from fork", "Merge branch 'x'": a merge's title names no change
    if not routine.real_statement(head) or not words or words[0].lower() == "merge":
        return None
    told = _first_prose(lines[1:], head)
    entry = "" if told else changelog_entry(diffs or {}, head)
    text = head.rstrip(".") + (f": {told or entry}" if told or entry else "")
    # a sentence that led into a quoted block ("… in two cases:") ends the memory
    text = text.rstrip(":;, ")
    text += "" if text.endswith((".", "!", "?")) else "."
    # the changelog the entry comes from is named: the memory says more than its title
    where = tuple(p for p in (diffs or {}) if entry and is_changelog(p))[:1]
    return Candidate("Fact", 1, 1, lang, text, veracity="stated",
                     files=where)


def _first_prose(body: list[str], head: str) -> str:
    """The first sentences of the body's prose before any list of commits, as many as fit
    in ``MAX_ENTRY`` characters (a body often sets the scene before it says what changed),
    not the title again and not a quoted line of code."""
    prose: list[str] = []
    for line in body:
        if msg.BULLET.match(line):
            break  # a squash merge's list of commits: each item is a commit's own title
        prose.append(TRAILER_BREAKING.sub("", line))  # its text is for users: prose
    title = set(re.findall(r"\w+", head.lower()))
    kept: list[str] = []
    for sentence in msg.sentences("\n".join(prose)):
        words = set(re.findall(r"\w+", sentence.lower()))
        if len(sentence) < MIN_SENTENCE or msg.code_like(sentence):
            continue
        if words and len(words & title) / len(words) >= 0.8:
            continue  # the title again, as a sentence
        if kept and len(" ".join([*kept, sentence])) > MAX_ENTRY:
            break
        kept.append(sentence)
    return " ".join(kept)
