"""How a later command relates to the command that showed the problem (episodes.py).

Agents rarely rerun the failing command verbatim once they try a fix: they chain the fix
in front of it (``brew services stop postgresql@15 && docker compose up -d db``), add a
flag (``pytest -p no:cacheprovider``), widen the path (``pytest tests/`` after
``pytest tests/test_x.py``) or change a count (``--repeat-each=20``). Each of these runs
the problem again, so its result is the episode's outcome; the parts that add something
(the chained command, the new flag) are the attempt, the plain rerun is only the check.

A segment *covers* the problem command when it starts with the same program and holds
every word of it, where a flag may carry another value and a directory may stand for a
path below it; the words left over are what the segment adds.
"""

from __future__ import annotations

import re

SEGMENT = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")
ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")


PIPE = re.compile(r"(?<!\|)\|(?!\|)")
# Programs that only show or filter what a command printed (``go test ./... | tail -30``):
# the pipeline exits with their status, and they are no part of what was run.
FILTERS = frozenset(("head", "tail", "grep", "egrep", "rg", "less", "more", "cat", "tee", "sort",
                     "uniq", "wc", "sed", "awk", "cut", "tr", "jq", "column"))


def unfiltered(command: str) -> str:
    """The command without the output filters piped after it."""
    stages = PIPE.split(command)
    while len(stages) > 1 and (stages[-1].split() or [""])[0].rsplit("/", 1)[-1] in FILTERS:
        stages.pop()
    return "|".join(stages).strip() if len(stages) < len(PIPE.split(command)) else command


def segments(command: str) -> list[str]:
    return [part.strip() for part in SEGMENT.split(command) if part.strip()]


# Commands that only look (list, print, search, test for a path) and git's reading
# subcommands: running them changes nothing.
LOOK_UP = frozenset(["ls", "cat", "head", "tail", "find", "stat", "file", "wc", "tree", "grep",
                     "rg", "test", "["])
GIT_READS = frozenset(["status", "log", "diff", "show", "blame"])


def looks_only(command: str) -> bool:
    """Every part of the command only looks: ``ls cmd/ && git status`` changes nothing."""
    parts = [p.split() for p in segments(command)]
    return bool(parts) and all(
        _program(w) in LOOK_UP or (_program(w) == "git" and bool(
            set(w[1:2]) & GIT_READS)) for w in parts)


def _program(words: list[str]) -> str | None:
    """The program a segment runs: its first word after ``VAR=value`` assignments."""
    return next((w.rsplit("/", 1)[-1] for w in words if not ASSIGNMENT.match(w)), None)


# Options that run a part of what the command ran (a shard, a name or marker filter): a
# run with one added checks other things, it does not run the problem again.
SELECTING = re.compile(r"^(?:--shard|--grep|--filter|--only|--testNamePattern|--testPathPattern"
                       r"|--deselect|--selector|-k|-m|-t|-g)(?:=|$)")


def _same(want: str, have: str) -> bool:
    if want == have:
        return True
    if want.startswith("-") and have.startswith("-") and "=" in want and "=" in have \
            and not SELECTING.match(want):  # --shard=1 / --shard=2 run other tests
        return want.split("=", 1)[0] == have.split("=", 1)[0]  # --repeat-each=10 / =20
    return have.endswith("/") and want.startswith(have)  # tests/ covers tests/test_x.py


def added(problem: str, segment: str) -> list[str] | None:
    """The words ``segment`` adds to ``problem`` if it covers it, else None."""
    want, have = problem.split(), segment.split()
    if not want or _program(want) != _program(have):
        return None
    left = list(have)
    for word in want:
        match = next((i for i, other in enumerate(left) if _same(word, other)), None)
        if match is None:
            return None
        del left[match]
    if any(SELECTING.match(word) for word in left):
        return None  # `npm test -- --shard=2` after `npm test`: a part, not a rerun
    return left


def _check(problem: str) -> str:
    """The part of a chained problem command that shows the problem: its last segment."""
    parts = segments(problem)
    return parts[-1] if parts else problem


def reruns(problem: str, command: str) -> bool:
    """Does ``command`` run the problem again (alone, varied, or chained after a fix)?"""
    check = _check(problem)
    return command == problem or any(added(check, part) is not None
                                     for part in segments(command))


def attempt_part(problem: str, command: str) -> str | None:
    """What ``command`` tries beyond rerunning the problem: every segment but the plain
    reruns; None when it is only a rerun (the check, never the lesson)."""
    check = _check(problem)
    pieces = re.split(r"\s*(&&|\|\||;|\|)\s*", command)
    out: list[str] = []
    joiner, kept = "&&", True
    for number, piece in enumerate(pieces):
        if number % 2:
            # a separator joins the next kept part, unless the part before it was dropped
            # (``fix && check | tail``: tail read the check, so the fix is not piped)
            joiner = piece if kept else joiner
            continue
        kept = bool(piece.strip()) and added(check, piece.strip()) != []
        if kept:
            out.append(f" {joiner} {piece.strip()}" if out else piece.strip())
    return "".join(out) if out else None


MAX_STAGE_LINES = 40


def stage_error(command: str, output: str) -> str | None:
    """A pipeline exits with its last stage's status, so an earlier stage's failure shows
    only in the output, in the shape every Unix tool prints a diagnostic in: its name, a
    colon, the message (``grep: invalid option -- P``). The first such line of a program
    piped into another, or None."""
    stages = PIPE.split(command)
    if len(stages) < 2:
        return None
    names = {name for stage in stages[:-1]
             if (name := _program(stage.split())) and re.fullmatch(r"[\w.+-]+", name)}
    for line in output.splitlines()[:MAX_STAGE_LINES]:
        head = line.split(": ", 1)
        if len(head) == 2 and head[0] in names and head[1].strip():
            return line.strip()
    return None


# A call varied rather than run again: the same program doing the same thing another way.
# Either most of its words are kept (a payload sent another way: ``gh api …/replies -f
# body="…"`` then ``gh pr comment 85 --body "…"``), or its verb (the word after the
# program: ``gh pr``, ``git rebase``) is kept and the change is a value given to an option
# it kept (``--base X`` then ``--base main``) or a step chained before it (``rm -f
# .git/index.lock && git rebase --continue``). Other arguments alone (``go test ./b`` after
# ``go test ./a``) run something else.
VERB = re.compile(r"^[a-z][a-z0-9-]*$")
MIN_SHARED = 6


def varies(problem: str, command: str) -> str | None:
    """The segment of ``command`` that calls the problem's check again another way (not a
    rerun: a word of it is gone), or None."""
    check = _check(problem)
    want = check.split()
    program = _program(want)
    if program is None:
        return None
    parts = segments(command)
    for number, part in enumerate(parts):
        have = part.split()
        # another subcommand is another call, however many words it shares (`gh api
        # …/replies` 404, then `gh pr comment`: a workaround, not the call that works)
        if _program(have) != program or added(check, part) is not None \
                or _verb(want) != _verb(have):
            continue
        shared = set(want) & set(have)
        if len(shared) >= max(MIN_SHARED, len(set(want)) // 2):
            return part
        if _verb(want) is None:
            continue
        chained = any(not looks_only(p) for p in parts[:number])
        if chained or any(" " in word for word in changed(check, part)):
            return part
    return None


def _verb(words: list[str]) -> str | None:
    """The program's first word and the word after it when that is a subcommand."""
    start = next((n for n, w in enumerate(words) if not ASSIGNMENT.match(w)), None)
    if start is None or start + 1 >= len(words) or not VERB.match(words[start + 1]):
        return None
    return f"{_program(words)} {words[start + 1]}"


def changed(problem: str, part: str) -> list[str]:
    """The words ``part`` says that the problem's check did not, in order, each value with
    the option it follows (``--base main``)."""
    want = set(_check(problem).split())
    have = part.split()
    out: list[str] = []
    for number, word in enumerate(have):
        if word in want:
            continue
        before = have[number - 1] if number else ""
        if before.startswith("-") and before in want and "=" not in before:
            word = f"{before} {word}"
        out.append(word)
    return out
