"""Episodes, not adjacent pairs (issue 13): a problem, the attempts at it, and how it
ended. The lesson of an episode is the last attempt before a *confirmed* success, with
its concrete command, edit, setting or version, and why when it was said.

An episode opens on error evidence (a failing tool result, an error line, a reported
failure). Inside it:
- an attempt is a concrete proposal (a command, a setting, a version, code: ``proposal``),
  an edit made by a tool call, or another command run;
- a denial ("still failing", 还是不行, toujours pas…), the same command failing again, or
  a new error line reported by the user marks the attempts since the last failure failed;
  an edit that restores what a failed edit replaced is a revert, never the lesson;
- a confirmation by the user ("that worked", 搞定了, 直った, 됐어요, ça marche…) or the
  failing command passing closes it with what worked. The assistant cannot confirm its
  own suggestion; an episode that is never confirmed teaches nothing.

A turn that tells a whole episode by itself ("tried A, no luck; B fixed it", a traceback
and its cause) is read clause by clause (``narrative``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.names import CODE_SPAN, IDENT_RE, PATH_RE
from memx_cli.reflector.narrative import STILL, first_sentence, narrative
from memx_cli.reflector.reruns import attempt_part, reruns
from memx_cli.reflector.signals import KEY_TOKEN, Signals
from memx_cli.reflector.turn import Turn

QUIET_TURNS = 30  # an episode with no news for this many turns is dropped
MAX_ATTEMPTS = 12
CONCRETE = re.compile(r"\d+\.\d+|==|(?<![\w-])--?[a-zA-Z][\w-]*|\w=\S|[\w)]\(|::|->|\{|/\w")
# A user turning down what the agent did: "no, use X", "non, ...", "不要…", "いや、…", "아니요"
REJECT = re.compile(r"(?i)^\W*(?:(?:no|nope|nah|non|nein|não|nao)\b(?!\s+(?:problem|worries)\b)"
                    r"|不要|不对|不是|别|いや|いいえ|違う|아니|아뇨)")


@dataclass
class Attempt:
    first: int
    text: str
    files: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    change: str | None = None
    replaced: str | None = None
    tool: bool = False
    failed: bool = False
    revert: bool = False
    pending: str | None = None  # a command run as an attempt, awaiting its result
    remedy: bool = False  # says what to do ("the fix is to ..."), not only why
    rejected: bool = False  # the user turned it down ("no, ..."): never the lesson
    check: bool = False  # the problem's own command run again, maybe with a flag more


@dataclass
class Episode:
    first: int
    lang: str
    problem: str | None
    command: str | None = None
    seen: int = 0
    attempts: list[Attempt] = field(default_factory=list)
    mark: int = 0  # attempts before this index failed with the problem itself
    failures: int = 0
    context: list[str] = field(default_factory=list)

    def fail(self, rejected: bool = False) -> None:
        """The problem is still there (or the user turned the attempts down): every
        attempt since the last failure failed. A rejection is no failed try: it does not
        make the episode a RetrySuccess."""
        fresh = [a for a in self.attempts[self.mark:] if not a.revert]
        for attempt in fresh:
            attempt.failed, attempt.rejected = not rejected, rejected
        self.failures += bool(fresh) and not rejected
        self.mark = len(self.attempts)

    def working(self) -> list[Attempt]:
        return [a for a in self.attempts[self.mark:]
                if not a.failed and not a.revert and not a.rejected]

    def add(self, attempt: Attempt) -> None:
        for earlier in self.attempts:
            if (earlier.failed and attempt.tool and earlier.files == attempt.files
                    and attempt.change is not None and attempt.change == earlier.replaced):
                attempt.revert = True  # puts back what a failed edit replaced
        self.attempts.append(attempt)
        del self.attempts[:-MAX_ATTEMPTS]
        self.mark = min(self.mark, len(self.attempts))


class Tracker:
    """Feeds turns one at a time; returns the lessons of the episodes that end."""

    def __init__(self) -> None:
        self.open: Episode | None = None
        self.done: Candidate | None = None  # succeeded; may take the next explanation
        self.closed: Episode | None = None  # the episode ``done`` comes from
        self.explained = False
        # The last thing a user asked or reported, with what was proposed since: it becomes
        # an episode only when the user then confirms or denies ("docker build hangs" →
        # "try X" → "nope, still hangs"), so a question answered is no lesson by itself.
        self.latent: Episode | None = None

    def feed(self, sig: Signals) -> tuple[list[Candidate], bool]:
        """Lessons finished by this turn, and whether the turn belongs to an episode."""
        out: list[Candidate] = []
        if self.done is not None:
            turn = sig.turn
            if turn.kind == "text" and turn.role == "assistant" and not self.explained:
                self.done, self.explained = self._explained(self.done, sig), True
                return out, True  # kept until the user has had a word: they may reject it
            if self.closed is not None and self.open is None and turn.kind == "text" \
                    and turn.role == "user" and (rejects(sig) or sig.deny):
                self.open, self.done = self.closed, None  # "no, never disable TLS checks"
            else:
                out.append(self.done)
                self.done = None
        episode = self.open
        if episode is not None and sig.turn.index - episode.seen > QUIET_TURNS:
            self.open = episode = None
        kind = sig.turn.kind
        if kind == "tool_use":
            return out, self._tool_use(sig)
        if kind == "tool_result":
            return out, self._tool_result(sig)
        found, taken = self._text(sig)
        return out + found, taken

    def finish(self) -> list[Candidate]:
        done, self.done, self.open, self.closed = self.done, None, None, None
        return [done] if done is not None else []

    # ------------------------------------------------------------ tool calls

    def _tool_use(self, sig: Signals) -> bool:
        episode, turn = self.open, sig.turn
        if episode is None:
            return False
        episode.seen = turn.index
        if turn.command:
            key = _key(turn.command)
            tried = attempt_part(episode.command, key) if episode.command is not None else None
            if tried is not None and key != episode.command:
                episode.add(Attempt(turn.index, f"ran `{tried}`", commands=[turn.command],
                                    tool=True, pending=key))
        elif turn.files:
            shown = f": `{turn.change}`" if turn.change else ""
            episode.add(Attempt(turn.index, f"edited {', '.join(turn.files)}{shown}",
                                files=list(turn.files), change=turn.change,
                                replaced=turn.replaced, tool=True))
        return True

    def _tool_result(self, sig: Signals) -> bool:
        turn = sig.turn
        if not turn.command:
            return self.open is not None
        key = _key(turn.command)
        failed = turn.failed if turn.failed is not None else bool(sig.error_lines)
        episode = self.open
        if episode is None:
            if failed:
                self.open = Episode(turn.index, sig.lang, sig.key_error, key, turn.index)
            return failed
        episode.seen = turn.index
        pending = next((a for a in reversed(episode.attempts) if a.pending == key), None)
        if pending is not None:
            pending.pending = None
        if episode.command is None:  # the reported problem, now seen failing as a command
            if failed:
                episode.command = key
                episode.problem = sig.key_error or episode.problem
            return True
        if not reruns(episode.command, key):
            if pending is not None:
                pending.failed = bool(failed)
            return True
        if failed:  # the problem again, whatever was chained before it
            episode.fail()
            return True
        working = episode.working()
        self.open = None
        if working:
            self.done = self._lesson(episode, working, turn.last, "tool")
            self.closed, self.explained = episode, False
        return True

    # ------------------------------------------------------------ what people say

    def _text(self, sig: Signals) -> tuple[list[Candidate], bool]:
        episode, turn = self.open, sig.turn
        if turn.role == "system":
            return [], False
        if episode is None and self.latent is not None and self.latent.attempts \
                and turn.role == "user" and (sig.confirm or sig.deny or STILL.search(sig.text)
                                             or rejects(sig)):
            episode = self.open = self.latent
            self.latent = None
        if episode is None:
            found = narrative(sig) if turn.role in ("user", "text") else None
            if found is not None:
                return [found], True
            if sig.error_lines or (sig.errors and turn.role in ("user", "text")):
                problem = sig.key_error or first_sentence(sig, sig.errors)
                self.open = Episode(turn.index, sig.lang, problem, logged(turn), turn.index,
                                    context=[_said(sig)])
                self.latent = None
                return [], True
            self._follow(sig)
            return [], False
        episode.seen = turn.index
        ran = logged(turn)
        if ran is not None and episode.command is not None and reruns(episode.command, ran):
            return self._logged_run(episode, sig, ran), True
        episode.context = (episode.context + [_said(sig)])[-6:]
        speaker = turn.role in ("user", "text")
        if speaker and sig.confirm and not _denied_after(sig):
            return self._confirmed(episode, sig), True
        still = speaker and episode.attempts and not sig.confirm and STILL.search(sig.text)
        if sig.deny or still or (speaker and sig.error_lines and episode.attempts):
            episode.fail()
        elif turn.role == "user" and rejects(sig):
            episode.fail(rejected=True)
        said = proposal(sig, asked=turn.role == "assistant")
        if not said and turn.role == "assistant" and not _asks(sig):
            kept = [n for n in range(len(sig.spans)) if n not in _denied(sig)]
            said = " ".join(sig.sentence(n) for n in kept[:2])
        if said:
            if turn.role == "text":  # a note's author states what fixed it
                episode.add(Attempt(turn.index, said))
                self.open = None
                return [self._lesson(episode, episode.working(), turn.last, "text")], True
            denied = _denied(sig)
            episode.add(Attempt(turn.index, said, remedy=any(
                sig.sentence_of(h.start) not in denied for h in sig.remedy)))
        return [], True

    def _logged_run(self, episode: Episode, sig: Signals, ran: str) -> list[Candidate]:
        """A log's block that runs the failing command again: the outcome (SPEC 3.1: a
        failure followed by a success of the same command is a RetrySuccess)."""
        if sig.error_lines:
            episode.fail()
            return []
        tried = attempt_part(episode.command or ran, ran)
        if tried is not None:
            episode.add(Attempt(sig.turn.index, f"ran `{tried}`", commands=[ran], tool=True))
            episode.failures = max(episode.failures, 1)
        self.open = None
        working = episode.working()
        return [self._lesson(episode, working, sig.turn.last, "tool")] if working else []

    def _follow(self, sig: Signals) -> None:
        turn = sig.turn
        if turn.role == "user":
            self.latent = Episode(turn.index, sig.lang, sig.sentence(0)[:240], None,
                                  turn.index, context=[_said(sig)])
        elif self.latent is not None and turn.role == "assistant":
            said = proposal(sig, asked=True)
            if said:
                self.latent.add(Attempt(turn.index, said))
                self.latent.seen = turn.index

    def _confirmed(self, episode: Episode, sig: Signals) -> list[Candidate]:
        self.open = None
        own = own_fix(sig)
        working = episode.working()
        if own and not (working and _tokens(own) <= _tokens(working[-1].text)):
            episode.add(Attempt(sig.turn.index, own))  # "upgrading Flask to 2.3.2 did it"
            working = episode.working()
        if not working:
            return []  # confirmed, but nothing concrete was tried: nothing to learn
        return [self._lesson(episode, referred(working, sig.text), sig.turn.last, "user")]

    def _lesson(self, episode: Episode, working: list[Attempt], last: int,
                by: str) -> Candidate:
        tools = [a for a in working if a.tool]
        said = [a for a in working if not a.tool]
        if tools:  # what was said after the last tool call is talk, not the fix's reason
            said = [a for a in said if a.first <= tools[-1].first] or said[:0]
        if tools and said and said[-1].remedy:  # the words say the fix better than a diff
            shown = [a.text for a in tools[-4:] if a.change or a.commands]
            edited = [f for a in tools for f in a.files]
            detail = "; ".join(shown) or ("edited " + ", ".join(dict.fromkeys(edited))
                                          if edited else "")
            fix = said[-1].text.rstrip(".。 ") + (f" ({detail})" if detail else "")
            cause = None
        elif tools:
            fix = "; ".join(a.text for a in tools[-4:])
            cause = said[-1].text if said else None
        else:
            fix, cause = said[-1].text, None
        rule = "RetrySuccess" if episode.failures or any(
            a.failed for a in episode.attempts) else "ErrorFix"
        files = tuple(dict.fromkeys(f for a in working for f in a.files))
        commands = (episode.command,) if episode.command else ()
        return Candidate(rule, episode.first, last, episode.lang, fix, episode.problem,
                         commands=commands, files=files, cause=cause,
                         context="\n".join(episode.context)[-1500:],
                         failed=sum(a.failed for a in episode.attempts),
                         veracity="tool" if by == "tool" and not said else "inferred")

    def _explained(self, done: Candidate, sig: Signals) -> Candidate:
        """The assistant's words right after a passing run say why it worked."""
        why = proposal(sig, limit=2)
        return replace(done, cause=why, last=sig.turn.last) if why else done


def logged(turn: Turn) -> str | None:
    """The command a block of a log starts with (``$ make test``), if it starts with one."""
    if turn.role != "text" or not turn.command:
        return None
    head = turn.text.lstrip().split("\n", 1)[0]
    return _key(turn.command) if head.endswith(turn.command.strip()) else None


def rejects(sig: Signals) -> bool:
    """The user turns down what was just done or proposed ("no, use pipx")."""
    return sig.turn.role == "user" and bool(REJECT.match(sig.text))


def _asks(sig: Signals) -> bool:
    return all(sig.is_question(n) for n in range(len(sig.spans)))


def _key(command: str) -> str:
    return " ".join(command.split())


def _said(sig: Signals) -> str:
    return f"{sig.turn.role}: {sig.text[:600]}"


def _denied_after(sig: Signals) -> bool:
    """"that worked for the first one, but the second still fails": the denial wins."""
    return bool(sig.deny) and sig.deny[-1].start > sig.confirm[-1].start


def concrete(sentence: str) -> bool:
    """Names something one can type or look up: code, a path, a version, a flag, a key."""
    return bool(CODE_SPAN.search(sentence) or PATH_RE.search(sentence)
                or KEY_TOKEN.search(sentence) or IDENT_RE.search(sentence)
                or CONCRETE.search(sentence))


def proposal(sig: Signals, limit: int = 3, asked: bool = False) -> str | None:
    """What a turn proposes or explains concretely; a question only when ``asked`` (the
    assistant's "Maybe disable the `semi` rule?" is a suggestion)."""
    numbers = []
    hits = {sig.sentence_of(h.start) for h in sig.cause + sig.remedy} | set(sig.config)
    denied = _denied(sig)
    for number in range(len(sig.spans)):
        if sig.is_question(number) and not (asked and concrete(sig.sentence(number))):
            continue
        if number in denied:
            continue  # "switching to musl did not help either": a failed attempt
        text = sig.sentence(number)
        if number in hits or concrete(text):
            numbers.append(number)
    return " ".join(sig.sentence(n) for n in numbers[:limit]) or None


def _denied(sig: Signals) -> set[int]:
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


def _tokens(text: str) -> set[str]:
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
