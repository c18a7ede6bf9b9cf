"""Episodes, not adjacent pairs (issue 13): a problem, the attempts at it, and how it
ended. The lesson of an episode is the last attempt before a *confirmed* success, with
its concrete command, edit, setting or version, and why when it was said.

An episode opens on error evidence (a failing tool result, an error line, a reported
failure). Inside it:
- an attempt is a concrete proposal (a command, a setting, a version, code: ``proposal``),
  an edit made by a tool call, another command run, or a step the user says they took
  ("I pulled the latest main"): a fix may come with no edit of the agent's;
- another command failing with its own error line after edits for the problem (not a
  look-up) is the problem from then on: the open one is left without a lesson;
- a denial ("still failing", 还是不行, toujours pas…), the same command failing again, or
  a new error line reported by the user marks the attempts since the last failure failed;
  an edit that restores what a failed edit replaced is a revert, never the lesson; an
  edit the tool refused (its old text not found) changed nothing, and an edit that a later
  edit of the same file rewrites is replaced by it: the lesson shows the edits that stand;
- a confirmation by the user ("that worked", 搞定了, 直った, 됐어요, ça marche…) or the
  failing command passing closes it with what worked. The assistant cannot confirm its
  own suggestion; an episode that is never confirmed teaches nothing.
  A run passing after an edit closes a problem nobody saw failing only when someone said
  that something fails: a message that only names errors ("if the error is a
  `SilentError`, print nothing") asks for a task, and the task done is a report.

A turn that tells a whole episode by itself ("tried A, no luck; B fixed it", a traceback
and its cause) is read clause by clause (``narrative``). The assistant's words right after
the passing run give the why, never a sentence that announces its next step.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from memx_cli.reflector import evidence
from memx_cli.reflector.attempts import Attempt, Episode
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.commit_message import imperative
from memx_cli.reflector.distiller import MAX_COMMAND, shorten
from memx_cli.reflector.findings import NEXT_STEP, finding, names_in, touches
from memx_cli.reflector.knowledge import PLEASE
from memx_cli.reflector.names import program_of
from memx_cli.reflector.narrative import STILL, first_sentence, narrative
from memx_cli.reflector.reruns import (
    LOOK_UP,
    attempt_part,
    changed,
    looks_only,
    reruns,
    segments,
    stage_error,
    varies,
)
from memx_cli.reflector.said import (
    asks_only,
    command_key,
    denied_after,
    denied_sentences,
    logged,
    own_fix,
    proposal,
    referred,
    rejects,
    said_line,
    tokens,
)
from memx_cli.reflector.signals import PLACE, Signals, states_failure

MAX_FINDING = 190  # characters of the agent's finding kept as a cause
# A memory's room (ace.reflector.max_content_length, 500 by default) less its labels; a fix
# shorter than MIN_FIX shows nothing of the edit.
ROOM, MIN_FIX = 470, 40
QUIET_TURNS = 30  # an episode with no news for this many turns is dropped
MISSING = re.compile(r"No such file or directory")
SETUP = re.compile(r"^(?:cd|export|source|set|pushd|\.)\s")  # moves or sets up: no try
QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")
# One import entry, by the grammar of the common languages: a Go import block's line (a
# quoted path, maybe after an alias) or ``import "x"``, Python's ``import x`` / ``from x
# import y``, JavaScript's ``import … from``, a ``require`` bound to a name, Rust's ``use``,
# C's ``#include``.
IMPORT = re.compile(r"""^(?:(?:[\w.]+\s+)?"[^"\s]+"|import\s.+|from\s+[\w.]+\s+import\s.+|"""
                    r"""(?:const|let|var)\s+[\w{}\s,]+=\s*require\(.+\);?|(?:pub\s+)?use\s+[\w:{}, *]+;|"""
                    r"""#\s*include\s*[<"].+[>"])$""")
# The assistant handing the choice to the user.
INVITES = re.compile(r"(?i)^\W*(?:please\s+)?(?:let\s+me\s+know|tell\s+me)\b")
# A program refusing its own command line, in the words of the common argument parsers
# (getopt "invalid option -- P", argparse "unrecognized arguments", cobra "unknown flag",
# git "unrecognized argument" / "unknown option"): no project problem, a call mistyped.
USAGE = re.compile(r"(?im)\b(?:invalid|unrecognized|unknown|illegal)\s+(?:shorthand\s+)?"
                   r"(?:option|argument|flag)s?\b|^usage:\s")
# What the user did outside the session, in their words ("I pulled the latest main", "we've
# checked out the release branch"): the first person, a verb in the past, up to the clause's
# end. A fix that arrived with no edit of the agent's.
DID = re.compile(r"(?i)(?:^|[,;.!]\s*|\b(?:ok|okay|so|and|now)\s+)(?:i|we)(?:'ve|\s+have|\s+just|"
                 r"\s+already)*\s+((?:re-?)?[a-z]+ed|ran|reran|reset|set|put|got|made|built|"
                 r"rebuilt|undid)\b([^,;.!?\n]{0,120})")
# A request for work: the speaker proposes it ("let's …"), asks for it ("please …",
# "can you …"), says what they want done ("I do want this command to …", "we'd like …")
# or orders it ("make the command hidden", below).
REQUEST = re.compile(r"(?i)^\W*(?:(?:ok(?:ay)?|so|now|then|also|and|but)\b[,\s]+)*"
                     r"(?:let's|let\s+us|please|(?:can|could|would|will)\s+you|"
                     r"(?:i|we)(?:\s+(?:do|really|still|also))?\s+want\b|"
                     r"(?:i|we)(?:'d|\s+would)\s+(?:like|prefer|rather)\b)")



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
        # The language people speak in: a tool's output ("undefined: lru.NewARC") says
        # nothing about it, so an episode a failing run opens is labelled in this one.
        self.lang = "en"
        # The assistant's last message asked the user something ("Want me to run the
        # linters first?"): a reply that takes it up answers the question; it says
        # nothing of whether the fix worked unless it says so in words.
        self.asked = False
        self.calling = False  # the last turn fed was a tool call, waiting for its result

    def feed(self, sig: Signals, decides: bool = False) -> tuple[list[Candidate], bool]:
        """Lessons finished by this turn, and whether the turn belongs to an episode.
        ``decides``: the user's message picks among options the assistant offered (a
        Decision, ``replies.py``); "just works as before" there describes the option, it
        is no verdict on an attempt."""
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
        kind = sig.turn.kind
        calling, self.calling = self.calling, kind == "tool_use"
        if episode is not None and sig.turn.index - episode.seen > QUIET_TURNS and not (
                kind == "tool_result" and calling):
            # a call's own result is news however many records the harness wrote while
            # the command ran (Claude Code's ``progress`` lines of a long test run)
            self.open = episode = None
        if kind == "text" and sig.turn.role in ("user", "assistant") and len(sig.words) >= 3:
            self.lang = sig.lang
        if kind == "tool_use":
            return out, self._tool_use(sig)
        if kind == "tool_result":
            return out, self._tool_result(sig)
        found, taken = self._text(sig, decides)
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
            key = _key(turn.command, episode)
            tried = attempt_part(episode.command, key) if episode.command is not None else None
            if tried is not None and key != episode.command:
                episode.add(Attempt(turn.index, f"ran `{tried}`", commands=[turn.command],
                                    tool=True, pending=key))
        elif turn.files:
            shown = f": `{turn.change}`" if turn.change else ""
            episode.add(Attempt(turn.index, f"edited {', '.join(turn.files)}{shown}",
                                files=list(turn.files), change=turn.change,
                                replaced=turn.replaced, tool=True,
                                imports=turn.edited is not None
                                and imports_only(*turn.edited)))
        return True

    def _tool_result(self, sig: Signals) -> bool:
        turn = sig.turn
        if not turn.command:
            if self.open is not None and turn.files and turn.failed:
                self.open.refused(turn.files)
            return self.open is not None
        failed = turn.failed if turn.failed is not None else bool(sig.error_lines)
        episode = self.open
        if episode is None:
            if failed and _looked_up(turn.command, turn.text):
                return False
            if failed:
                self.open = self._failing(sig)
            return failed
        key = _key(turn.command, episode)
        episode.seen = turn.index
        pending = next((a for a in reversed(episode.attempts) if a.pending == key), None)
        if pending is not None:
            pending.pending = None
        if episode.command is None:  # the reported problem, now seen failing as a command
            if failed:
                episode.command = key
                episode.problem = sig.key_error or episode.problem
                self._chained_try(episode, turn.index, key)
            elif episode.stated and evidence.passing_run(turn.text) \
                    and any(a.files for a in episode.working()):
                # the reported failure, green after an edit; a task that only names errors
                # ("print nothing for a SilentError") ends with a green check too, and
                # that is a report of work (reports.py), not a fix
                self._close(episode, turn.last)
            return True
        if not reruns(episode.command, key) and not evidence.covers(episode.command, key):
            if pending is not None:
                pending.failed = bool(failed)
            if not failed and self._varied(episode, key, turn.index, turn.last):
                return True
            if failed and self._moved_on(episode, sig):
                # the work went on after edits and another check fails with its own error:
                # the open problem is left without a lesson, this one is the problem now
                self.open = self._failing(sig)
            return True
        if failed:  # the problem again, whatever was chained before it
            if self._replaced(episode, sig):
                # the same check fails after edits made for the problem, and none of its
                # errors is the problem's: those edits dealt with it (the check never
                # passed, so no lesson), and what the check reports now is the problem
                self.open = self._failing(sig)
                return True
            episode.fail()
            return True
        self._close(episode, turn.last)
        return True

    def _close(self, episode: Episode, last: int) -> None:
        """A passing run ends the episode with what worked since the last failure."""
        working = episode.working()
        self.open = None
        if episode.usage and all(_called_again(a, episode.command or "") for a in working):
            return  # `git show X --no-stat` refused, `git show X` ran: a mistyped call
        tools = [a for a in working if a.tool]
        if tools and all(a.imports for a in tools):
            return  # `"time" imported and not used`, dropped: the build mended, nothing learnt
        if working and not all(_makes_dirs(a, episode.command or "") for a in working):
            self.done = self._lesson(episode, working, last, "tool")
            self.closed, self.explained = episode, False

    def _varied(self, episode: Episode, key: str, index: int, last: int) -> bool:
        """The failing call made again another way passed, with no edit since it failed
        (``gh pr create --base X`` refused, ``--base main`` created it; ``rm -f
        .git/index.lock && git rebase --continue``): the episode ends with the call that
        worked. Not when the failure was the program refusing its own command line (a
        mistyped call), a finding at a place in the code (the project failed, not the
        call), or a look-up."""
        command = episode.command or ""
        if episode.usage or looks_only(command) or looks_only(key) \
                or any(a.files for a in episode.attempts) \
                or PLACE.match((episode.problem or "").strip()):
            return False
        part = varies(command, key)
        if part is None:
            return False
        self.open = None
        episode.failures = max(episode.failures, 1)
        tried = Attempt(index, f"ran `{_shown(key, part, changed(command, part))}`",
                        commands=[key], tool=True)
        self.done = self._lesson(episode, [tried], last, "tool")
        self.closed, self.explained = episode, False
        return True

    def _failing(self, sig: Signals) -> Episode:
        """The episode a failing run opens: its piped stage's error when one failed."""
        turn = sig.turn
        command = turn.command or ""
        staged = stage_error(command, turn.text)
        return Episode(turn.index, self.lang, staged or sig.key_error,
                       " ".join(command.split()) if staged else command_key(command),
                       turn.index, whole=staged is not None,
                       usage=bool(USAGE.search(turn.text)))

    @staticmethod
    def _moved_on(episode: Episode, sig: Signals) -> bool:
        """A failing run of another command than the open problem's, after edits made for
        it: a check that does more than look, failing with an error line of its own."""
        command = sig.turn.command or ""
        return bool(sig.key_error) and not looks_only(command) \
            and any(a.files for a in episode.working()) \
            and not evidence.same_error(episode.problem or "", sig.key_error or "")

    @staticmethod
    def _replaced(episode: Episode, sig: Signals) -> bool:
        """The problem's own check fails again after edits for it, both errors findings at a
        place in the code (``a.go:7:2: …``, a linter's or a compiler's), and none of the
        check's error lines repeats the problem's (read without the place each leads with:
        two lint findings in one file share their path, not their error). An error of
        another shape after the edit ("go.mod requires go >= 1.21") is what the try did."""
        if not sig.key_error or not episode.problem \
                or not any(a.files for a in episode.working()):
            return False
        if not PLACE.match(episode.problem.strip()) or not PLACE.match(sig.key_error.strip()):
            return False  # a changed error of the build or the toolchain: the try failed
        problem = _unplaced(episode.problem)
        return not any(evidence.same_error(problem, _unplaced(line))
                       for line in sig.error_lines or [sig.key_error])

    @staticmethod
    def _chained_try(episode: Episode, index: int, command: str) -> None:
        """The first failing run of a problem the user reported, with a try chained before
        its check (``kubectl rollout restart … && kubectl rollout status …``): that try
        failed."""
        tried = attempt_part(command, command)
        if tried is not None and index > episode.first and not SETUP.match(tried):
            episode.add(Attempt(index, f"ran `{tried}`", commands=[command], tool=True,
                                failed=True))
            episode.failures += 1
            episode.command = segments(command)[-1]  # the check: the problem's own command

    # ------------------------------------------------------------ what people say

    def _text(self, sig: Signals, decides: bool = False) -> tuple[list[Candidate], bool]:
        episode, turn = self.open, sig.turn
        if turn.role == "system":
            return [], False
        if decides:  # a pick tells no episode and is no verdict on one
            return [], episode is not None
        asked = self.asked
        if turn.role in ("user", "assistant"):
            self.asked = turn.role == "assistant" and _asks_user(sig)
        said_so = bool(sig.confirm or sig.deny or sig.says(STILL))
        if episode is None and self.latent is not None and self.latent.attempts \
                and turn.role == "user" and not turn.rejected \
                and (said_so or (not self.latent.request and (
                    rejects(sig) or (not asked and _named(self.latent, sig))
                    or evidence.echoes(self.latent.problem or "", sig)))):
            episode = self.open = self.latent
            self.latent = None
            episode.stated = bool(sig.deny or sig.says(STILL)) or states_failure(sig)
        if episode is None:
            found = narrative(sig) if turn.role in ("user", "text") else None
            if found is not None:
                return [found], True
            if sig.error_lines or (sig.errors and turn.role in ("user", "text")):
                problem = sig.key_error or first_sentence(sig, sig.errors)
                self.open = Episode(turn.index, sig.lang, problem, logged(turn), turn.index,
                                    context=[said_line(sig)], stated=states_failure(sig))
                self.latent = None
                return [], True
            self._follow(sig)
            return [], False
        episode.seen = turn.index
        if turn.role == "assistant" and episode.command is not None \
                and not any(a.files for a in episode.working()):
            # between the failing run and the first edit for it: what the agent found
            episode.finding = finding(sig, episode.problem or "") or episode.finding
        if turn.role == "user" and (sig.deny or sig.says(STILL) or states_failure(sig)):
            episode.stated = True  # "it still fails": the failure is said now
        if turn.role == "user" and sig.error_lines and sig.key_error and not sig.confirm \
                and episode.problem and not evidence.same_error(episode.problem, sig.key_error):
            # the user pastes another error: the open problem (often a detour of the
            # agent's own) is left without a lesson, this one is the problem now
            self.open = Episode(turn.index, sig.lang, sig.key_error, logged(turn), turn.index,
                                context=[said_line(sig)])
            return [], True
        ran = logged(turn)
        if ran is not None and episode.command is not None and (
                reruns(episode.command, ran) or evidence.covers(episode.command, ran)):
            return self._logged_run(episode, sig, ran), True
        episode.context = (episode.context + [said_line(sig)])[-6:]
        speaker = turn.role in ("user", "text")
        if speaker and sig.confirm and not denied_after(sig):
            return self._confirmed(episode, sig), True
        if turn.role == "user" and episode.attempts and not sig.deny and not rejects(sig) \
                and not episode.request:
            working = episode.working()
            last = episode.attempts[-1]
            said = evidence.verdict(episode.problem or "", [a.text for a in working],
                                    last.tool and last.failed, sig)
            if said == "confirm" and not asked:
                return self._confirmed(episode, sig), True
            if said == "deny":
                episode.fail()
        still = speaker and episode.attempts and not sig.confirm and sig.says(STILL)
        if sig.deny or still or (speaker and sig.error_lines and episode.attempts):
            episode.fail()
        elif turn.rejected:
            episode.turn_down_call()
        elif turn.role == "user" and rejects(sig):
            episode.fail(rejected=True)
        did = _done_by_user(sig) if turn.role == "user" and not sig.deny else None
        said = did or proposal(sig, asked=turn.role == "assistant")
        if not said and turn.role == "assistant" and not asks_only(sig):
            kept = [n for n in range(len(sig.spans)) if n not in denied_sentences(sig)]
            said = " ".join(sig.sentence(n) for n in kept[:2])
        if said:
            if turn.role == "text":  # a note's author states what fixed it
                if said.rstrip().endswith((":", "：")):
                    return [], True  # ("After:") it announces what follows, which is no fix
                episode.add(Attempt(turn.index, said))
                self.open = None
                return [self._lesson(episode, episode.working(), turn.last, "text")], True
            denied = denied_sentences(sig)
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
            # a user's words that could be a problem the next replies solve; a question
            # ("why does this only work on unix?") asks for an answer, not a fix. A request
            # for work ("let's make the start command hidden") asks for the work: the user
            # moving on, or naming what was done, confirms no fix; only their own word
            # does ("please help, docker build hangs" → … → "yep, that did it")
            asks = bool(sig.spans) and all(sig.is_question(n) for n in range(len(sig.spans)))
            self.latent = None if asks else Episode(
                turn.index, sig.lang, sig.sentence(0)[:240], None, turn.index,
                context=[said_line(sig)], request=_requests(sig))
        elif self.latent is not None and turn.role == "assistant":
            said = proposal(sig, asked=True)
            if said:
                self.latent.add(Attempt(turn.index, said))
                self.latent.seen = turn.index

    def _confirmed(self, episode: Episode, sig: Signals) -> list[Candidate]:
        self.open = None
        own = None if evidence.passing_run(sig.text) else own_fix(sig)  # a pasted run
        working = episode.working()
        if own and not (working and tokens(own) <= tokens(working[-1].text)):
            episode.add(Attempt(sig.turn.index, own))  # "upgrading Flask to 2.3.2 did it"
            working = episode.working()
        if not working:
            return []  # confirmed, but nothing concrete was tried: nothing to learn
        return [self._lesson(episode, referred(working, sig.text), sig.turn.last, "user")]

    def _lesson(self, episode: Episode, working: list[Attempt], last: int,
                by: str) -> Candidate:
        tools = [a for a in working if a.tool]
        # "Let me check the implementation:" announces the tool call that follows; the
        # call is the attempt, the announcement explains nothing
        said = [a for a in working if not a.tool and not a.text.rstrip().endswith((":", "："))]
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
            fix = _edits(tools[-4:])
            cause = said[-1].text if said else None
        else:
            fix, cause = said[-1].text, None
        if by == "tool" and episode.finding and tools:
            # the same command red before the edit and green after it bears out what the
            # agent found between them: that is the cause, not its words around the edits;
            # the edits give up room for it (one memory holds ROOM characters)
            found = shorten(episode.finding, MAX_FINDING)
            room = ROOM - len(found) - len(episode.problem or "") \
                - min(len(episode.command or ""), MAX_COMMAND)
            kept = _fit(fix, room)
            if touches(found, kept):  # the edit shown changes what the finding is about
                fix, cause = kept, found
        visible = bool(said) or not all(_unseen(a, episode.command) for a in tools)
        rule = "RetrySuccess" if episode.failures or any(
            a.failed for a in episode.attempts) else "ErrorFix"
        files = tuple(dict.fromkeys(f for a in working for f in a.files))
        commands = (episode.command,) if episode.command else ()
        return Candidate(rule, episode.first, last, episode.lang, fix, episode.problem,
                         commands=commands, files=files, cause=cause,
                         context="\n".join(episode.context)[-1500:],
                         failed=sum(a.failed for a in episode.attempts),
                         veracity="tool" if by == "tool" and not said else "inferred",
                         shown=visible)

    def _explained(self, done: Candidate, sig: Signals) -> Candidate:
        """The assistant's words right after a passing run say why it worked; a sentence
        announcing its next step does not, nor any when the agent's finding before the
        edit is the cause already."""
        if self.closed is not None and self.closed.finding and done.cause == self.closed.finding:
            return done
        ahead = {n for n in range(len(sig.spans)) if NEXT_STEP.match(sig.sentence(n))
                 or _elsewhere(sig.sentence(n), done)}
        why = proposal(sig, limit=2, skip=ahead)
        return replace(done, cause=why, last=sig.turn.last) if why else done


def _shown(command: str, part: str, new: list[str]) -> str:
    """A varied call as its lesson shows it: whole when short, else the steps before the
    varied segment and that segment up to the last word it changed."""
    if len(command) <= MAX_COMMAND:
        return command
    head = command[:command.rfind(part)] if part in command else ""
    words = part.split()
    end = max((n for n, w in enumerate(words) if any(w in c.split() for c in new)),
              default=len(words) - 1)
    shown = " ".join(words[:end + 1]) + (" …" if end + 1 < len(words) else "")
    line = " ".join(f"{head}{shown}".split())
    return line if len(line) <= 2 * MAX_COMMAND else line[:2 * MAX_COMMAND - 1] + "…"


def _unplaced(line: str) -> str:
    """An error line without the place that leads it (``a.go:7:2: ``)."""
    return PLACE.sub("", line.strip(), count=1)


def _elsewhere(sentence: str, done: Candidate) -> bool:
    """The sentence names code or files, none of which the episode's problem, fix, files
    or command holds: said after the passing run, it is about other work told in the same
    message (a report's other part, "Missing `InstallHooks(true)` tests - added …" after a
    lint fix), not why this fix worked."""
    named = names_in(sentence)
    if not named:
        return False
    own = " ".join([done.error or "", done.fix, *done.commands, *done.files]).lower()
    return not any(name in own for name in named)


def _unseen(attempt: Attempt, check: str | None) -> bool:
    """The try shows nothing to do again: a file written whole (no change to show) or the
    failing check run again with nothing added (other tests selected)."""
    if attempt.files:
        return not attempt.change
    words = _words(check or "")
    return bool(words) and all(_words(c) <= words for c in attempt.commands)


def _words(command: str) -> set[str]:
    """A command's words with its quoted arguments blanked: ``go test -run "A|B"`` and
    ``go test -run "A"`` select other tests of the same check; ``make test SEED=0`` adds a
    setting."""
    return set(QUOTED.sub('""', command).split())


def _edits(tools: list[Attempt]) -> str:
    """The tool attempts as one text; edits of the same files in a row name them once
    ("edited a.go: `x`; `y`"): a memory has room for the changes, not a path per change,
    nor for one change shown twice."""
    parts: list[str] = []
    previous: list[str] | None = None
    for attempt in tools:
        if attempt.files and attempt.change and attempt.files == previous and parts:
            # the same line written again (two places of the file made alike) is shown once
            if f"`{attempt.change}`" not in parts[-1]:
                parts[-1] += f"; `{attempt.change}`"
        else:
            parts.append(attempt.text)
        previous = attempt.files if attempt.change else None
    return "; ".join(parts)


def _fit(fix: str, room: int) -> str:
    """The fix cut to ``room`` characters after its last whole edit, a code span cut open
    closed; whole when too little room is left to show anything (the cause gives way)."""
    if len(fix) <= room or room < MIN_FIX:
        return fix
    cut = shorten(fix, room)
    return cut + "`" if cut.count("`") % 2 else cut


def _key(command: str, episode: Episode) -> str:
    """A command as the episode compares it: whole when a piped stage was the problem
    (``… | grep -oP …``), else without its output filters."""
    return " ".join(command.split()) if episode.whole else command_key(command)


def imports_only(old: str, new: str) -> bool:
    """The edit of ``old`` into ``new`` only adds import entries or only removes some, one
    kind of change, no line of code altered: an import added for a name just used, or one
    left unused by the change just made. A path that changes (one entry out, another in)
    is a move of the module, which may be the lesson, and is not this."""
    before, after = Counter(_lines(old)), Counter(_lines(new))
    added, removed = after - before, before - after
    changed = added or removed
    if not changed or (added and removed):
        return False
    return all(IMPORT.match(line) for line in changed)


def _lines(text: str) -> list[str]:
    """The text's lines, stripped, the blank ones and a block's brackets left out."""
    return [s for s in (ln.strip() for ln in text.splitlines()) if s and s not in "()"]


def _makes_dirs(attempt: Attempt, problem: str) -> bool:
    """The try only creates directories (``mkdir -p out``) before what had failed: "No
    such file or directory" fixed by making it is no lesson."""
    if not attempt.tool or attempt.files or not attempt.commands:
        return False
    parts = segments(attempt.text.removeprefix("ran `").removesuffix("`"))
    made = [p for p in parts if p.split()[:1] == ["mkdir"]]
    return bool(made) and all(p in made or p in problem for p in parts)


def _asks_user(sig: Signals) -> bool:
    """The message ends on a question, or asks the user to say what they want ("Let me
    know what you'd like to do"): a reply answers it. A question asked on the way to a
    proposal ("Does it run on both servers? Then a lock helps: `flock -n …`") does not."""
    last = len(sig.spans) - 1
    return last >= 0 and (sig.is_question(last) or any(
        INVITES.match(sig.sentence(n)) for n in range(len(sig.spans))))


def _requests(sig: Signals) -> bool:
    """The user's message asks for work and says nothing fails: its first sentence is a
    request ("let's …", "can you …", "please …") or an order ("remove the flag")."""
    if not sig.spans or states_failure(sig):
        return False
    first = sig.sentence(0)
    return bool(REQUEST.match(first)) or imperative(first, cased=False)


def _done_by_user(sig: Signals) -> str | None:
    """The user's report of a step they took themselves, told as what the user did."""
    found = DID.search(sig.text)
    if found is None or sig.is_question(sig.sentence_of(found.start(1))):
        return None
    return f"the user {found.group(1).lower()}{found.group(2).rstrip()}"


def _called_again(attempt: Attempt, problem: str) -> bool:
    """The try is the failing command's own program run again (other options, other
    arguments), with no edit."""
    return attempt.tool and not attempt.files and bool(attempt.commands) and all(
        program_of(c) == program_of(problem) for c in attempt.commands)


def _looked_up(command: str, output: str) -> bool:
    """A look-up that did not find its path: every part of the command only looks, and the
    output says a path is missing: it answers the look-up ("is there a commands/
    folder?"), it is no problem to fix."""
    parts = segments(command)
    return bool(parts) and all(p.split()[0].rsplit("/", 1)[-1] in LOOK_UP for p in parts) \
        and bool(MISSING.search(output))


def _named(latent: Episode, sig: Signals) -> bool:
    """A reply to a question answered that names what was proposed, with no complaint: the
    user reports having applied it ("Mit flock kommt jetzt jede Mail nur einmal")."""
    problem = latent.problem or ""
    if problem.rstrip().endswith(("?", "？")) \
            or latent.attempts[-1].text.rstrip().endswith(("?", "？")):
        # naming an answer to a question, or taking up an offer ("Would you like me to
        # put it in test-secrets.txt?" → "Sure"), is choosing, not a fix working
        return False
    if asks_only(sig) or sig.find(PLEASE):
        return False  # "Please write a .sh file that runs these": a new request, no report
    return evidence.names_attempt(latent.attempts[-1].text, sig) \
        and not evidence.complains(sig, problem) and not evidence.qualified(sig)
