"""PatternDetector: the rules of ``rules.py`` over a stream of turns.

- ErrorFix / RetrySuccess come from episodes (``episodes.py``): a problem, attempts, and
  a confirmed outcome; the lesson is what worked. They are held to the session's end: the
  same check failing again with the same error, fixed another way, overturns the first fix.
- Decision / Convention / Preference are stated by people (``knowledge.py``).
- What a user's reply decides (``replies.py``): a correction typed into a rejected tool
  call or in a plain message the assistant acts on, an answer to a question prompt, a
  pick among the options the assistant offered.
- An agent's diagnosis the session bears out (``diagnosis.py``) and a passing run the
  agent redoes another way (``redo.py``): ErrorFix and RetrySuccess without anyone
  saying "that worked".
- A recommendation the user approved with a short "yes" and the agent carried out
  (``approvals.py``): a Decision in the agent's words, with its reason; an offer of the
  agent's next step the user turned down (``declines.py``): what stays as it is.
- Rules an accepted edit writes into an agent instruction file (``instructions.py``) and
  a user's factual correction the agent accepts (``corrected.py``); a reviewer's finding
  the user pastes whose quoted code the agent's next edit replaces (``pasted.py``).
- A checker run red with several rule-named findings, then green after edits
  (``checkrules.py``): the rules and what satisfied each, one Convention for the run; the
  episode's Error/Fix of the same run is then dropped.
- WorkReport: the agent's report of work a check bore out (``reports.py``), unless an
  episode, a diagnosis or a correction already made a memory of the same turns.
- ConfigChange, NewTool and RepetitiveOp are read from one turn (below): a setting changed
  with its key and value, the first use of or a switch to a named tool, a chore done every
  time (a command run >= 3 times is ``history.py``'s). Once the session shows an agent at
  work (a tool call), they read only what people say, never the agent's narration.

A turn that is part of an episode as an attempt yields nothing of its own (an unconfirmed
suggestion is not a lesson); one turn yields at most one lesson of the one-turn rules. A
plan the user approved (a ``planned`` turn) yields none: it is the task, not a finding.
Memory stays bounded: one open episode, a few attempts, at most ``MAX_DIAGNOSED``
diagnoses and as many reports waiting for the end.
"""

from __future__ import annotations

from dataclasses import replace

from memx_cli.privacy.sanitizer import Sanitizer, cached
from memx_cli.reflector import evidence, knowledge
from memx_cli.reflector.answers import Answers
from memx_cli.reflector.approvals import Approvals
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.checkrules import CheckRules
from memx_cli.reflector.corrected import Corrections
from memx_cli.reflector.declines import Declines
from memx_cli.reflector.diagnosis import Diagnoses
from memx_cli.reflector.distiller import shorten
from memx_cli.reflector.episodes import Tracker
from memx_cli.reflector.findings import names_in
from memx_cli.reflector.instructions import Instructions
from memx_cli.reflector.names import code_spans
from memx_cli.reflector.pasted import Findings
from memx_cli.reflector.plans import Plans
from memx_cli.reflector.redo import Redos
from memx_cli.reflector.replies import Replies
from memx_cli.reflector.reports import Reports
from memx_cli.reflector.reversals import Reversals
from memx_cli.reflector.rules import EPISODES, NAMES
from memx_cli.reflector.rules import RULES as RULE_TABLE
from memx_cli.reflector.said import concrete, rejects
from memx_cli.reflector.signals import Signals, analyse
from memx_cli.reflector.turn import Turn

RULES = NAMES
CONFIDENCE = {name: rule.confidence for name, rule in RULE_TABLE.items()}
__all__ = ["CONFIDENCE", "RULES", "Candidate", "PatternDetector"]
MAX_DIAGNOSED = 16
MAX_LENT = 480  # a report and the why a diagnosis lends it, together


class PatternDetector:
    def __init__(self, sanitizer: Sanitizer | None = None) -> None:
        self.episodes = Tracker()
        self.replies = Replies()
        # What people say is masked before any sentence is picked out of it: a lesson made
        # of a few lines of a multi-line secret (a PEM body without its BEGIN line) would
        # no longer look like a secret to the sanitizer downstream.
        self.sanitizer = sanitizer or cached(())
        # An assistant's setting change waits for the user's next message: turned down
        # ("no, keep 2 workers"), it was only a suggestion and teaches nothing.
        self._held: Candidate | None = None
        self._chores: list[Candidate] = []  # the assistant's words of a chore, kept likewise
        self._agent = False  # the session has tool calls: an agent at work
        self._answered = False  # the assistant has said or done something
        self._opening = True  # the turn fed now comes before any of the assistant's
        # An agent's diagnoses the session bore out, kept until the end: an episode that
        # closes around one takes it as its cause instead (one memory per problem).
        self.diagnoses = Diagnoses()
        self._diagnosed: list[Candidate] = []
        self.redos = Redos()  # a run that passed but did not do its job, then another way
        # The agent's reports of work a check bore out, kept until the end: a piece of work an
        # episode, a diagnosis or a correction already made a memory of keeps that one only.
        self.reports = Reports()
        self._reported: list[Candidate] = []
        self._spans: list[tuple[int, int]] = []  # the turns of the episodes and diagnoses
        # Episodes' lessons, held to the session's end: the same problem met again later
        # and fixed another way overturns the first fix (the memory tells the one that
        # stood). Bounded: the oldest is let go.
        self._episodic: list[Candidate] = []
        self.instructions = Instructions()  # rules written into CLAUDE.md, AGENTS.md…
        self.corrections = Corrections()  # "it's X, not Y", accepted, with no edit after
        self.plans = Plans()  # a plan the user approved, once carried out
        self.reversals = Reversals()  # a request overturned once done, by the next one
        self.approvals = Approvals()  # a recommendation approved with a "yes", carried out
        self.answers = Answers()  # the agent's answer to a question, after it read the code
        self.declines = Declines()  # the agent's offer of its next step, turned down
        self.findings = Findings()  # a reviewer's finding pasted, the code it quotes changed
        self.checks = CheckRules()  # a checker's rules: a run red with findings, edits, green

    def feed(self, turn: Turn) -> list[Candidate]:
        if turn.kind == "text":
            turn = replace(turn, text=self.sanitizer.sanitize(turn.text))
        self._agent = self._agent or turn.kind == "tool_use"
        self._opening = not self._answered
        self._answered = self._answered or turn.role == "assistant"
        self.instructions.feed(turn)
        self.checks.feed(turn)
        sig = analyse(turn)
        self.answers.feed(sig)
        self.findings.feed(sig)
        corrected = self.corrections.feed(sig) + self.plans.feed(sig) + self.reversals.feed(sig) \
            + self.approvals.feed(sig) + self.declines.feed(sig)
        if turn.planned:
            # A plan the user approved is the task the agent is given: what it calls broken
            # and what it means to set are proposals nothing has borne out yet. The user has
            # spoken (a report waiting is settled), but the plan itself teaches nothing.
            self._reported += self.reports.feed(sig)
            return self._spanned(corrected + self._release(sig))
        self._diagnosed += self.diagnoses.feed(sig)
        released = corrected + (
            self._release(sig) if turn.kind == "text" and turn.role == "user" else [])
        released += self.redos.feed(sig)
        self._reported += self.reports.feed(sig)
        if len(self._reported) > MAX_DIAGNOSED:
            released.append(self._reported.pop(0))
        if len(self._diagnosed) > MAX_DIAGNOSED:  # bounded: the oldest need wait no longer
            released.append(self._diagnosed.pop(0))
        replied = self.replies.feed(sig)
        if turn.picked:
            return self._spanned(released + replied)
        if turn.rejected or any(c.first == turn.index for c in replied):
            # the turn's lesson is its reply; an episode still learns that it was turned down
            decides = any(c.rule == "Decision" for c in replied)
            return self._spanned(released + replied
                                 + self._explained(self.episodes.feed(sig, decides)[0]))
        return self._spanned(released + replied + self._explained(self._feed(sig)))

    def _spanned(self, found: list[Candidate]) -> list[Candidate]:
        """Notes the turns of the episodes, diagnoses and corrections found (bounded): a
        report of the same work says it again. Episodes' lessons are held (``_held_to_end``)."""
        self._spans += [(c.first, c.last) for c in found
                        if c.rule in EPISODES or c.rule == "Preference"]
        del self._spans[:-64]
        out = [c for c in found if c.rule not in EPISODES]
        for candidate in found:
            if candidate.rule in EPISODES:
                self._episodic = [c for c in self._episodic if not _same_problem(c, candidate)]
                self._episodic.append(candidate)
        if len(self._episodic) > MAX_DIAGNOSED:
            out.append(self._episodic.pop(0))
        return out

    def _explained(self, found: list[Candidate]) -> list[Candidate]:
        """An episode's lesson takes the diagnosis stated inside its span as its cause; one
        whose fix shows nothing to do again and that nobody explained teaches nothing."""
        out: list[Candidate] = []
        for candidate in found:
            if candidate.rule in EPISODES:
                inside = [d for d in self._diagnosed
                          if candidate.first <= d.last and d.first <= candidate.last]
                if inside:
                    self._diagnosed = [d for d in self._diagnosed if d not in inside]
                    candidate = replace(candidate, cause=inside[-1].cause or inside[-1].fix)
                if not candidate.shown and not candidate.cause:
                    continue
            out.append(candidate)
        return out

    def _feed(self, sig: Signals) -> list[Candidate]:
        turn = sig.turn
        found, taken = self.episodes.feed(sig)
        if turn.kind != "text":
            return found
        if any(c.first == turn.index for c in found):
            return found  # the turn told a whole episode itself
        skip = {n for n in range(len(sig.spans)) if _outcome_sentence(sig, n)}
        stated = knowledge.found(sig, skip, opening=self._opening and turn.role == "user")
        if stated is not None:
            return [*found, stated]
        if taken and turn.role == "assistant":
            return found  # an attempt inside an episode
        if self._agent and turn.role == "assistant":
            # an agent works with its tools and its words narrate what it reads and does
            # ("every row has a `uuid` field", "that PR introduced X"): a chore, a setting
            # or a new tool is the user's to tell; the agent's own work is read from its
            # calls, their results and its reports
            return found
        single = self._single(sig)
        if single is not None and single.rule == "ConfigChange" and turn.role == "assistant":
            earlier, self._held = self._held, single
            return [*found, earlier] if earlier is not None and not self._agent else found
        if single is not None and single.rule == "RepetitiveOp" and turn.role == "assistant":
            # "must process every diff", "no need to sync on every read": an agent weighing a
            # design; the chores it really repeats are its commands (history.py)
            self._chores.append(single)
            if len(self._chores) > MAX_DIAGNOSED:  # bounded: the oldest waits no longer
                oldest = self._chores.pop(0)
                return found if self._agent else [*found, oldest]
            return found
        return [*found, single] if single is not None else found

    def _release(self, sig: Signals) -> list[Candidate]:
        """The held setting change, unless this user message turns it down."""
        held, self._held = self._held, None
        if held is None or rejects(sig) or (sig.deny and not sig.confirm):
            return []
        if self._agent:
            return []  # an agent changes settings with its tools: its words only narrate
        return [held]

    def finish(self) -> list[Candidate]:
        held, self._held = self._held, None
        held = None if self._agent else held
        chores, self._chores = ([] if self._agent else self._chores), []
        self._diagnosed += self.diagnoses.finish()
        found = ([held] if held is not None else []) + chores \
            + self._explained(self.episodes.finish()) \
            + self.replies.finish() + self.redos.finish() + self.corrections.finish() \
            + self.plans.finish() + self.approvals.finish()
        diagnosed, self._diagnosed = self._diagnosed, []
        reported, self._reported = self._reported + self.reports.finish(), []
        # a report whose work a later edit put back is no lesson
        reported = [c for c in reported if not any(c is u for u in self.reports.undone)]
        diagnosed, reported = _lent(diagnosed, reported)
        found = self._spanned(found + diagnosed)
        episodic, self._episodic = self._episodic, []
        # a checker's run whose rules ``checkrules`` tells is not told again as an Error/Fix
        found, episodic = self._unchecked(found), self._unchecked(episodic)
        # a report or an answer of turns an episode, a diagnosis or a correction already
        # made a memory of says it again
        told = [c for c in reported + self.answers.finish() + self.findings.finish() if not any(
            first <= c.last and c.first <= last and first <= c.first
            for first, last in self._spans)]
        told = _recaps(told, found + episodic)
        return found + episodic + told + self.instructions.finish() + self.checks.finish()

    def _unchecked(self, found: list[Candidate]) -> list[Candidate]:
        return [c for c in found if c.rule not in EPISODES or not self.checks.covers(c)]

    # ------------------------------------------------------------ one-turn rules

    def _single(self, sig: Signals) -> Candidate | None:
        index, last = sig.turn.index, sig.turn.last
        if sig.config:
            text = " ".join(sig.sentence(n) for n in sig.config[:2])
            return Candidate("ConfigChange", index, last, sig.lang, text, context=sig.text[:1500])
        if sig.newtool:
            number, tool = sig.newtool[0]
            text = sig.sentence(number)
            following = number + 1  # "First time using uv. `uv pip sync` is 10x faster."
            if following < len(sig.spans) and tool.lower() in sig.sentence(following).lower() \
                    and concrete(sig.sentence(following)):
                text = f"{text} {sig.sentence(following)}"
            return Candidate("NewTool", index, last, sig.lang, text,
                             commands=(tool,), context=sig.text[:1500])
        if sig.repeat:
            text = " ".join(sig.sentence(n) for n in sig.repeat[:2])
            return Candidate("RepetitiveOp", index, last, sig.lang, text, context=sig.text[:1500])
        return None


def _recaps(told: list[Candidate], others: list[Candidate]) -> list[Candidate]:
    """A report of work that names nothing an earlier memory of the session did not name
    tells that work again ("Done. Final state: the key fix was adding `replace`" after the
    report that found the `replace` tool missing): the earlier one stays. A report naming
    no code is not judged here, nor one that names something new."""
    kept: list[Candidate] = []
    for report in told:
        if report.rule == "WorkReport":
            cut = report.fix.rfind(" (checked: ")
            named = _named(" ".join([report.fix[:cut] if cut > 0 else report.fix,
                                     report.cause or ""]))
            if named and any(m.first < report.first and named <= _named(" ".join([
                    m.error or "", m.fix, m.cause or "", *m.commands, *m.files]))
                    for m in others + kept):
                continue
        kept.append(report)
    return kept


def _named(text: str) -> set[str]:
    """The code a text names, and what it puts in code spans (`replace`, a tool's name)."""
    return names_in(text) | {span.strip().lower() for span in code_spans(text)}


def _lent(diagnosed: list[Candidate],
          reported: list[Candidate]) -> tuple[list[Candidate], list[Candidate]]:
    """A diagnosis that only lends its cause (``Candidate.lends``) gives it to the agent's
    report of the same work, which tells what was done: one memory, the report with its
    why. With no such report the diagnosis stands on its own."""
    kept: list[Candidate] = []
    for diagnosis in diagnosed:
        at = next((n for n, r in enumerate(reported) if diagnosis.lends and not r.cause
                   and r.first <= diagnosis.last and diagnosis.first <= r.last), None)
        if at is None:
            kept.append(diagnosis)
            continue
        report = reported[at]
        cut = report.fix.rfind(" (checked: ")
        said, checked = (report.fix[:cut], report.fix[cut:]) if cut > 0 else (report.fix, "")
        # room for the why in one memory (ace.reflector.max_content_length, 500 by default)
        said = shorten(said, max(MAX_LENT - len(checked) - len(diagnosis.cause or ""), 120))
        reported[at] = replace(report, fix=said.rstrip(" ;,") + checked, cause=diagnosis.cause)
    return kept, reported


def _same_problem(earlier: Candidate, later: Candidate) -> bool:
    """The later episode is the earlier one's problem again: the same failing command with
    the same error. Its fix is the one that stood; the earlier fix was overturned."""
    return bool(earlier.commands) and earlier.commands == later.commands \
        and bool(earlier.error) and evidence.same_error(earlier.error or "", later.error or "")


def _outcome_sentence(sig: Signals, number: int) -> bool:
    start, end = sig.spans[number]
    return any(start <= h.start < end for h in sig.confirm + sig.deny) or any(
        start <= h.start < end for h in sig.errors) or bool(sig.error_lines and number == 0)
