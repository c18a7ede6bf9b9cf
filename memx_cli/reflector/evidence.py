"""How an attempt ended, read from what follows it rather than from a word for it.

The word lists (``lexicons.CONFIRM`` / ``DENY``) know "that worked" and "still failing" in
the languages read; people also say 바로 연결돼요, "aucun changement", "no bastaba", paste
back a test run or just move on. What the problem's own words and commands do after a fix
says it in any language:

- a passing run: a tool result whose command covers the failing command (most of its
  words, and all it ran on) and exits 0, or output shaped like a green summary ("12 passed", "test result: ok",
  "Build succeeded", "0 failed") with no failure count beside it, in a tool result or
  pasted back by the user;
- a denial: the user's reply repeats the reported error (its code, error name or two of
  its distinctive words) without saying it is gone;
- a confirmation by naming: the user's statement names what was tried (its command, flag,
  value) with no complaint, no question and no hope ("will", "should");
- a weak confirmation: an episode's user acknowledges briefly and asks for something
  else ("ok next: …", "👍 als Nächstes: …"); it counts only when no tool run of the last
  attempt failed and the reply shares nothing with the problem.

Each is a pure function of the episode's texts and one turn's ``Signals``; ``episodes``
combines them with the word lists, which keep precedence.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memx_cli.reflector import lexicons as lx
from memx_cli.reflector.narrative import STILL
from memx_cli.reflector.reruns import SELECTING
from memx_cli.reflector.signals import ERROR_CONSTANT, Signals
from memx_cli.reflector.vocab import CJK_ANY, CJK_NEG_AFTER, CJK_NEG_BEFORE, KO_NEG_AFTER, NEGATORS

# A green summary: the shapes test runners, builds and deploy tools print on success.
# A task runner (mise, go-task) puts the task's name before each line it passes on:
# "[lint:go] 0 issues." is golangci-lint's own line.
TASK_PREFIX = r"(?:\[[^\]\s]{1,40}\]\s+)?"
PASS_SUMMARY = re.compile(
    r"\b\d+ (?:passed|passing)\b|\btest result: ok\b|^" + TASK_PREFIX + r"ok\s+\S+\s+[\d.]+s\b|"
    r"\bBUILD SUCCESS(?:FUL)?\b|\bBuild succeeded\b|\bSuccessfully (?:built|tagged|installed|"
    r"deployed|compiled)\b|\bsuccessfully rolled out\b|\bApply complete!|"
    r"\bFinished\b.*\btarget\(s\)|\ball (?:tests|checks) passed\b|\b0 (?:failed|failures|errors)\b|"
    r"^" + TASK_PREFIX + r"0 issues\.?$|\bSuccess: no issues found\b",  # golangci-lint, mypy
    re.IGNORECASE | re.MULTILINE)
# What a failing summary says beside it: a non-zero failure count or a FAIL marker.
FAIL_SUMMARY = re.compile(r"\b[1-9]\d* (?:failed|failures?|errors?)\b|\bFAIL(?:ED|URE)?\b|"
                          r"\bBUILD FAILED\b|\bBuild failed\b|\bTraceback\b")
# Distinctive parts of an error: an HTTP/exit/errno code, an error class or constant.
ERROR_CODE = re.compile(r"(?<![\w.:])\d{3,5}(?![\w.])|\b\w+(?:Error|Exception)\b|"
                        r"\bE[A-Z]{3,}\b|" + ERROR_CONSTANT.pattern)
WORD = re.compile(r"[^\W\d_]{2,}")
TOKEN = re.compile(r"[^\W_][\w.:/@-]*[\w/]|\w")
# A reply's leading acknowledgement: a few words or a positive sign, then a new request.
POSITIVE_SIGNS = frozenset("👍✅🎉🙌👌💯🚀🥳")
ACK_SPLIT = re.compile(r"[,.!:;，。！：]\s*|\s+(?=[👍✅🎉🙌👌💯🚀🥳])|(?<=[👍✅🎉🙌👌💯🚀🥳])\s*")
# "next: …", "otra cosa: …": a short label and a colon, then a request of three words or more
# (a bare question after "ok" may well be about the same problem: "ok, can I see the logs?")
LABEL_ASK = re.compile(r"^[^:：\n]{1,30}[:：]\s*\S+(?:\s+\S+){2,}")
COMMON = frozenset(("the", "and", "for", "with", "from", "that", "this", "into", "not", "but",
                    "are", "was", "were", "has", "have", "you", "your", "can", "our", "its",
                    "error", "errors", "failed", "fails", "failing", "fail", "when", "after",
                    "before", "then"))
# A reply that names the fix but qualifies it: "set X but …", "X にしたけど…", "안 돼요"
# … or says the fix met the problem again ("5174 is taken too", "3001 也被占用了").
QUALIFIED = re.compile(r"(?i)\b(?:but|however|pero|mais|aber|ma|mas|но|однако|too|also|"
                       r"as well|aussi|auch|también|também|anche|тоже|также)\b|但|也|けど|が、|"
                       r"지만|는데")
FUTURE = re.compile(r"(?i)\b(?:will|i'll|we'll|gonna|going to|later|tomorrow)\b")


def passing_run(text: str) -> bool:
    """Output shaped like a green summary, with no failure count or marker beside it."""
    return bool(PASS_SUMMARY.search(text)) and not FAIL_SUMMARY.search(text)


DIGITS = re.compile(r"\d+(?:\.\d+)?")


def green_shapes(text: str) -> frozenset[str]:
    """The green summaries of a passing run, numbers left out ("0 issues." → "# issues.",
    "ok  pkg/a 0.3s" → "ok pkg/a #s"): what tells one check's pass from another's."""
    if not passing_run(text):
        return frozenset()
    return frozenset(" ".join(DIGITS.sub("#", m.group(0)).lower().split())
                     for m in PASS_SUMMARY.finditer(text))


@lru_cache(maxsize=512)  # a problem's words are asked at every reply in its episode
def words(text: str) -> frozenset[str]:
    """The distinctive words of a text: codes, names, paths; no short or common words."""
    found = set()
    for token in TOKEN.findall(text.lower()):
        token = token.strip(".:/-")
        long = len(token) >= 4 or (token.isdigit() and len(token) >= 3)
        if (long or CJK_ANY.search(token)) and token not in COMMON:
            found.add(token)
    return frozenset(found)


def _names(text: str) -> set[str]:
    """A command's words, paths by their last part ("/opt/app/bin/run.sh" → "run.sh")."""
    return {w.strip("'\"`").rsplit("/", 1)[-1] for w in text.split()
            if not w.startswith("-") and w not in ("&&", "|", ";", "||")} - {""}


def covers(problem: str, command: str) -> bool:
    """A later command that runs the failing one again in other words: the same program,
    most of the problem's words and everything it ran on (``sudo -u app bash -c 'x.sh'``
    → ``sudo -u app /opt/app/bin/x.sh``), and no option that runs only a part of it
    (``-k``, ``--shard``: ``reruns.SELECTING``)."""
    want = _names(problem.split("&&")[-1].split("|")[0])
    if len(want) < 2:
        return False
    head = problem.split()[0]
    # what the command runs on (a script, a test selection, a path) must all be there:
    # ``pytest -k smoke`` then ``pytest -k slow`` runs other tests, not the failing ones
    targets = want - {head.rsplit("/", 1)[-1]} - WRAPPERS
    before = problem.split()
    for segment in re.split(r"\s*(?:&&|\|\||;|\|)\s*", command):
        have = _names(segment)
        selects = any(SELECTING.match(w) and w not in before for w in segment.split())
        if segment.split()[:1] == [head] and len(want & have) * 2 >= len(want) \
                and targets <= have and not selects:
            return True
    return False


# Words that run another command rather than name what it runs on.
WRAPPERS = frozenset(("sudo", "bash", "sh", "zsh", "env", "exec", "time", "nohup", "nice",
                      "timeout", "xargs", "doas"))


def echoes(problem: str, sig: Signals) -> bool:
    """The reply repeats the reported error: one of its codes or error names, or two of
    its distinctive words, in a turn that does not say it is gone."""
    if sig.resolved or sig.success or sig.confirm or not problem:
        return False
    codes = _codes(problem)
    said = sig.text.lower()
    if any(code in said for code in codes):
        return True
    said_words = " ".join(WORD.findall(said))
    if any(phrase in said_words for phrase in _phrases(problem)):
        return True  # "it says address already in use :::5174 now"
    told = words(problem)  # a description's words come back in any report about it
    return len(told & words(sig.text)) >= max(3, len(told) // 2)


LABELS = frozenset(("error", "errors", "fatal", "failed", "failure", "exception"))


def same_error(problem: str, error: str) -> bool:
    """Does the error line ``error`` repeat ``problem``: one of its codes or error names
    (a bare ERROR label is none), or three words of its message in a row?"""
    said = error.lower()
    if any(code in said for code in _codes(problem)):
        return True
    said_words = " ".join(WORD.findall(said))
    return any(phrase in said_words for phrase in _phrases(problem))


@lru_cache(maxsize=128)
def _phrases(problem: str) -> frozenset[str]:
    """Runs of three words of the error message (after its "Error:" label)."""
    message = problem.lower().rsplit("error:", 1)[-1]
    found = WORD.findall(message)
    return frozenset(" ".join(found[i:i + 3]) for i in range(len(found) - 2)
                     if sum(len(w) >= 4 for w in found[i:i + 3]) >= 2)


@lru_cache(maxsize=128)
def _codes(problem: str) -> frozenset[str]:
    """The problem's codes and error names; a bare ERROR / FATAL label (``E[A-Z]{3,}``)
    names no error, so two errors that share only it are not the same one."""
    return frozenset(code for m in ERROR_CODE.finditer(problem)
                     if (code := m.group().lower()) not in LABELS)


def complains(sig: Signals, problem: str, questions: bool = True) -> bool:
    """Anything in the reply that says the problem goes on, or that the reply is no report
    (a hope, a plan, and unless ``questions`` is False, a question)."""
    return bool(sig.deny or sig.says(STILL) or sig.error_lines
                or (questions and any(sig.is_question(n) for n in range(len(sig.spans))))
                or sig.says(FUTURE) or _hopes(sig) or echoes(problem, sig))


def qualified(sig: Signals) -> bool:
    """A negation or a "but" anywhere in the reply: naming the fix is then no report of
    success ("set X but nothing changed", "X 로 바꿨는데 안 돼요")."""
    return sig.says(QUALIFIED) or any(
        w.text in NEGATORS or w.text.endswith("n't") for w in sig.words) or any(
        m in sig.text for m in CJK_NEG_BEFORE + CJK_NEG_AFTER + KO_NEG_AFTER)


def _hopes(sig: Signals) -> bool:
    return any(w.text in lx.HYPOTHETICAL and w.text not in ("to", "can", "se", "si")
               for w in sig.words) or any(m in sig.text for m in lx.CJK_HYPOTHETICAL)


def names_attempt(attempt: str, sig: Signals) -> bool:
    """The reply names a concrete part of what was tried ("Mit flock kommt jetzt …",
    "10.0.2.2 로 바꾸니까 …"): a word of its code spans, a value, a flag."""
    spans = " ".join(re.findall(r"`([^`]+)`", attempt))
    concrete = {w for w in words(spans) | words(re.sub(r"\W+", " ", spans))
                if not w.isdigit() or len(w) >= 3}
    concrete |= {t.lower() for t in re.findall(r"\d+(?:\.\d+)+|--?[a-z][\w-]+|\w+=\S+",
                                               attempt)}
    if not concrete:
        return False
    said = sig.text.lower()
    return any(token in said for token in concrete if len(token) >= 3)


def moves_on(sig: Signals, problem: str, attempt: str) -> bool:
    """A brief acknowledgement, then a new request that shares nothing with the problem
    or the fix ("ok next: add pagination", "👍 Als Nächstes: …")."""
    parts = [p for p in ACK_SPLIT.split(sig.text.strip()) if p and p.strip()]
    if len(parts) < 2:
        return False
    first = parts[0].strip()
    if not (set(first) & POSITIVE_SIGNS or len(first.split()) <= 3):
        return False
    rest = sig.text.strip()[len(first):]
    labelled = LABEL_ASK.search(rest.lstrip(" ,.!;，。！")) or LABEL_ASK.search(sig.text.strip())
    if not (labelled or (
            set(first) & POSITIVE_SIGNS and rest.rstrip().endswith(("?", "？")))):
        return False
    return not (words(rest) & (words(problem) | words(attempt)))


def thumbs_up(sig: Signals) -> bool:
    """A reply that is only a positive sign (👍, ✅, 🎉)."""
    if len(sig.text) > 24:
        return False
    left = [c for c in sig.text if not c.isspace() and c not in "!.\ufe0f"]
    return bool(left) and all(c in POSITIVE_SIGNS or c in "\U0001f3fb\U0001f3fc\U0001f3fd"
                              for c in left)


def verdict(problem: str, attempts: list[str], last_failed: bool, sig: Signals) -> str | None:
    """What a user's reply, read without the word lists, says of the attempts since the
    last failure: "deny", "confirm" or None. ``attempts`` are the working attempts'
    texts, the newest last; ``last_failed`` says a tool run of the newest one failed."""
    if echoes(problem, sig):
        return "deny"
    if not attempts or last_failed:
        return None
    if passing_run(sig.text) and not sig.error_lines:
        return "confirm"  # the user pastes back a green run
    if thumbs_up(sig):
        return "confirm"
    if complains(sig, problem, questions=False):
        return None
    if not qualified(sig) and moves_on(sig, problem, " ".join(attempts)):
        return "confirm"  # weak: only reached when nothing says it failed
    if not complains(sig, problem) and not qualified(sig) and names_attempt(attempts[-1], sig):
        return "confirm"
    return None
