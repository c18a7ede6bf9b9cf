"""What a user's reply decides (issue 24): people rarely say "our convention is"; they pick
an option, turn a tool call down with a word, answer a question prompt.

- A **correction** typed into a rejected tool call ("can you use a switch instead?") is a
  *Preference*: the user's words, what was turned down, and the assistant's answer to them
  (the next thing it says, which usually names the concrete way: "I can use
  `json.Decoder.DisallowUnknownFields()`"). A bare rejection, words that neither ask,
  negate nor direct ("I'll take it from here"), or questions that only ask for information
  ("what does lint say now?", not "isn't this an internal package?"), teach nothing
  (words that name something concrete, "merge from origin feature/state-tracking",
  direct the work as an imperative does); nor
  does a correction the assistant answers only by asking back ("What would you like to
  rename it to?"). The correction counts only when the assistant takes it up: after its
  answer, an edit or a command that does more than look (``ls``, ``cat``, a file read)
  comes before the user speaks again (or the session ends on the answer); "wait, let's
  talk about this" answered with an
  explanation, or "don't worry about linting for now" followed by reading files, changed
  no course and is dropped (a pause or a skip is no preference). After a bare rejection the
  user's next message is the correction ("fix the test, the code is right") when the
  assistant then edits another file than the one turned down ("sorry, go on" and the same
  edit again is no change of course).
  Words that ask for a step before the work ("let's cut a branch first") count when the
  assistant runs commands that do more than look, none failing (``git checkout -b …``),
  and then makes the very edit turned down: the answer is those commands.
- An **answer to a question prompt** (``Turn.picked``) is a *Decision*: the question and the
  option chosen, never the options left.
- A **correction in a plain message** ("we don't need to say it quite so many times",
  "this should not change, only `--local-dev` should") is a *Preference* too, when it
  follows work the assistant did (an edit or a run since the user last spoke), redirects
  it (a negated modal: don't, should not, can't we; no need, instead, rather than, never,
  or a leading "no"; not a negated state, "it isn't showing", nor "I can't see", nor one
  inside an if/whether clause, "can we figure out if there are types we don't support?",
  which is what is asked about), and the
  assistant then acts on it: an edit follows that is not turned down. The answer is the
  assistant's first concrete reply, or its last words before the user speaks again.
  Words that report an error, or say something worked, are a report, not a correction.
  A request said again after the work, whole and amended (every word of one of the user's
  last messages, which make most of the new one's; not the same text, not a question),
  says the work missed it: a correction too.
  Words held to the moment ("for now", "this time") are a one-off, never a preference;
  in a rejection, the questions that only ask are left out of the words, and words that
  neither ask, negate nor direct ("Try again.") count when the next edit rewrites the
  same text of the same file another way.
  An add-on request after the work ("let's also add X") is the next task; it is a
  Preference only when it states a rule, a clause saying when it applies ("when
  installing Zsh completions, let's also add `compinit` before our `source` line"),
  and is acted on likewise.
- A **pick among offered options** ("I like Option C") is a *Decision*: the user names a
  label (Option, Approach, Alternative, Choice + a letter or number) that the assistant's
  last message offered as a heading or a bold line; the memory holds that option's block,
  the question that led to it and the user's own words, never the other options.
  Options offered as a numbered list of bold titles ("1. **Keep them on the fork** — …")
  are picked by quoting one: the user's message repeats one item's title word for word
  (pasted back, as people do), and no other item's; or by leading with its bare number,
  alone or amended ("3, but enabled by default": the pick and the user's amendment are the
  decision; "2 tests fail" counts, it picks nothing). An option named to be turned down
  ("Option 1 doesn't work since the hash can change") is never the choice: the memory says
  it was turned down, with the user's reason.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

from memx_cli.reflector.aider import FENCE
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.reruns import looks_only
from memx_cli.reflector.said import concrete, proposal, rejects
from memx_cli.reflector.signals import Signals
from memx_cli.reflector.turn import Turn

# The words of a correction: a question, a negation or a direction.
CORRECTING = re.compile(r"[?？]|(?i:\b(?:not|no|never|don't|dont|instead|rather|should|must|"
                        r"please|use|keep|avoid|only|always|why)\b|n't\b)")
LABEL = r"(?:option|approach|alternative|choice|variant)\s+([A-Z]|\d{1,2})\b"
OFFERED = re.compile(rf"^\s*(?:#{{1,6}}\s*|[-*]\s+|\d+[.)]\s+)?(?:\*\*)?(?i:{LABEL})"
                     r"\s*(?:\*\*)?\s*[:.—–-]?\s*(.*)$")
NAMED = re.compile(rf"(?i)(?<!not )(?<!no )\b{LABEL}")
# A numbered list item led by a bold title: "1. **Title** — what it means".
LISTED = re.compile(r"^\s*(\d{1,2})[.)]\s+\*\*([^*\n]{3,200})\*\*\s*[:.—–-]?\s*(.*)$")
# A reply led by an offered item's bare number, alone or amended ("3", "2.", "3, but enabled
# by default", "2 with a flag to opt out"); "2 tests fail" counts something, no pick.
LEADS = re.compile(r"^\s*#?(\d{1,2})\s*(?:$|[,.;:)!]|[—–-]\s|\s+(?:but|with|and|plus|except|"
                   r"without|though|however)\b)")
MIN_QUOTED = 4  # words of a title the user must repeat: a short one ("Hybrid") is no quote
HEADING = re.compile(r"^\s*(?:#{1,6}\s|---+\s*$|\*{3,}\s*$|___+\s*$)")
# An option's weighing (its pros and cons) is not what was chosen.
JUDGED = re.compile(r"(?i)^\s*[-*•]?\s*(?:\*\*)?(?:pros?|cons?|advantages?|drawbacks?|"
                    r"downsides?|upsides?|trade-?offs?)\b\s*(?:\*\*)?\s*:")
# A plain message that redirects the work just done: a negated modal ("we don't need",
# "should not", "can't we just"), "no need", "instead", "rather than", "never". A negated
# state ("the button isn't showing", "it doesn't build", "the tool's users won't have the
# variable") reports a bug or a fact, and "I don't see / I can't open" reports what the
# user observes: neither is a correction. "Can't" and "won't" redirect with the people at
# work as their subject ("we won't need it", "can't we just…").
REDIRECTS = re.compile(r"(?i)\b(?:(?:do|should|must|would|could|can|need)(?:n't|\s+not)|"
                       r"(?:(?<=\bwe )|(?<=\byou )|(?<=\bi )|(?<=\blet's ))(?:can't|cannot|won't)|"
                       r"(?:can't|cannot|won't)\s+(?:we|you)|no need|instead|rather than|never)\b")
# An add-on request that states a rule: a clause saying when it applies, about the work
# ("when installing Zsh completions, let's also add …", "whenever a hook fires, log …"),
# then the request; "when you get a chance, add a flag" times a favour, "let's also add
# a flag" states no rule.
RULE = re.compile(r"(?i)(?:^|[.;:!]\s+|,\s*|\b(?:thing|also|and)\s+)"
                  r"(?:when|whenever|every\s+time|each\s+time|any\s+time)\s+"
                  r"(?!(?:you|i|we|i'm|you're|we're)\b)[^,.;:!?]{3,80},\s*\S")
OBSERVED = re.compile(r"(?i)\bI\s+(?:do(?:n't|\s+not)|can't|cannot|can\s+not)\s+"
                      r"(?!want|like|need|think)\w+")
# Words that hold an instruction to the moment ("don't worry about linting for now",
# "skip the tests this time"): a one-off, no lasting preference.
FOR_NOW = re.compile(r"(?i)\b(?:for\s+now|for\s+the\s+(?:moment|time\s+being)|this\s+time|"
                     r"right\s+now|at\s+the\s+moment|temporarily|for\s+today)\b")
# A request said again: the share of the new message's words the earlier one held, and
# the least number of different words it must have (a short "run the tests" said twice is
# no amendment).
RESTATED = 0.7
MIN_RESTATED = 6
MAX_ASKED = 8  # the user's earlier messages a restatement is compared with
MAX_CHANGE = 90  # characters of a rejected edit's new text shown beside the correction
MAX_CORRECTION_WORDS = 60  # a long message is a new task, not a correction
MAX_OFFER = 8000  # characters of the assistant's message read for options
MAX_BLOCK = 260
MAX_WORDS = 230
MAX_QUESTION = 120
MAX_DECISION = 490  # under the default memory length (ace.reflector.max_content_length)
REPLY_TURNS = 6  # the assistant's answer to a correction comes within this many records
MAX_STEPS = 3  # commands run after a rejection before the same edit is made again
MAX_STEP = 120  # characters of each shown


class Replies:
    """Feeds turns; returns the decisions and corrections they finish. Holds at most one
    correction waiting for the assistant's answer and the last options offered."""

    def __init__(self) -> None:
        self.pending: Candidate | None = None
        # A correction answered, waiting for the assistant to act on it (an edit or a
        # command that does more than look) before the user speaks again.
        self.taken: Candidate | None = None
        self.offered: dict[str, str] = {}
        self.question: str | None = None  # the user's last short question
        self.turned_down: str | None = None  # what the last tool call did, for a rejection
        self.target: tuple[str, ...] = ()  # the files or command of that tool call
        self.edit: tuple[str, str] | None = None  # that call's edit: old and new text
        # Words typed into a rejected edit that neither ask, negate nor direct ("huh,
        # that's what my expectation says. Try again."): a correction only when the
        # assistant's next edit rewrites the same text another way (files, old text, new).
        self.redo: tuple[Candidate, tuple[str, ...], tuple[str, str]] | None = None
        self.steps: list[str] = []  # commands run since, before any edit
        # A bare rejection ("STOP what you are doing"): what it turned down, waiting for
        # the user's next words, which say how to go on instead
        self.stopped: tuple[str | None, tuple[str, ...]] | None = None
        self.worked = False  # the assistant edited or ran something since the user spoke
        self.redirect: Redirect | None = None  # a plain correction, waiting for its edit
        # the user's last messages: their words, and each as said
        self.asked_for: list[tuple[frozenset[str], str]] = []

    def feed(self, sig: Signals) -> list[Candidate]:
        turn = sig.turn
        out = self._taken_up(sig) + self._answered(sig)
        if turn.kind == "tool_use":
            out += self._redone(turn)
            self.turned_down = _what(turn.command, turn.files, turn.change)
            target = turn.files or ((" ".join(turn.command.split()),) if turn.command else ())
            self.target, self.edit = target, turn.edited
            self.worked = self.worked or bool(turn.command or turn.files)
            if self.redirect is not None and turn.files and not set(target) <= set(
                    self.redirect.avoid):
                self.redirect.edited = True
            return out
        if turn.kind == "tool_result":
            self._step_failed(turn)
        if turn.kind != "text":
            return out
        if turn.rejected:
            self.redirect = None  # its edit turned down: the assistant misread it
        elif turn.role == "assistant" and self.redirect is not None:
            self.redirect.heard(sig)
        elif turn.role == "user" and not turn.picked:
            self.redo, self.steps = None, []
            out += self._redirected(sig)
        if turn.picked:
            out.append(Candidate("Decision", turn.index, turn.last, sig.lang,
                                 f"Chosen in a question prompt: {turn.text}",
                                 veracity="stated", context=turn.text))
        elif turn.rejected:
            out += self._rejected(sig)
        elif turn.role == "assistant":
            offered = _options(turn.text[:MAX_OFFER]) or _listed(turn.text[:MAX_OFFER])
            if offered:
                self.offered = offered
        elif turn.role == "user":
            out += self._picked(sig)
            text = " ".join(turn.text.split())
            self.question = text if text.endswith(("?", "？")) and len(text) <= 2 * MAX_QUESTION \
                else None
        return out

    def finish(self) -> list[Candidate]:
        # a correction answered as the session ends: nobody spoke after the answer
        pending, self.pending = self.taken or self.pending, None
        self.taken = None
        redirect, self.redirect = self.redirect, None
        return ([pending] if pending is not None else []) + (
            [redirect.lesson()] if redirect is not None and redirect.edited else [])

    def _redirected(self, sig: Signals) -> list[Candidate]:
        """The plain correction before this user message, if acted on; and whether this
        message is one."""
        redirect, self.redirect = self.redirect, None
        out = [redirect.lesson()] if redirect is not None and redirect.edited else []
        worked, self.worked = self.worked, False
        stopped, self.stopped = self.stopped, None
        words = " ".join(sig.turn.text.split())
        said = (frozenset(_WORDS.findall(words.lower())), words)
        restated = worked and any(_restates(said, before) for before in self.asked_for)
        self.asked_for = (self.asked_for + [said])[-MAX_ASKED:]
        if stopped is not None and 3 <= len(words.split()) <= MAX_CORRECTION_WORDS \
                and not sig.has_error and not (sig.confirm or sig.resolved):
            # The first words after a bare rejection say how to go on instead ("fix the
            # test, the code is right"); they correct the work when the assistant then
            # edits something other than what was turned down ("sorry, continue" makes
            # it redo the same edit: no correction).
            what, avoid = stopped
            self.redirect = Redirect(sig.turn.index, sig.lang, words, what, avoid)
            return out
        if worked and len(words.split()) <= MAX_CORRECTION_WORDS and len(words.split()) >= 4 \
                and not sig.has_error and not (sig.confirm or sig.resolved) \
                and not FOR_NOW.search(words):
            if _redirects(words) or rejects(sig):
                self.redirect = Redirect(sig.turn.index, sig.lang, words)
            elif restated:  # the request said again, amended: the work did not match it
                self.redirect = Redirect(sig.turn.index, sig.lang, words,
                                         what="the request restated")
            elif RULE.search(words):  # an add-on that states when it applies
                self.redirect = Redirect(sig.turn.index, sig.lang, words, rule=True)
        return out

    def _taken_up(self, sig: Signals) -> list[Candidate]:
        """The answered correction, once the assistant acts on it; dropped when the user
        speaks first."""
        taken, turn = self.taken, sig.turn
        if taken is None:
            return []
        if turn.kind == "tool_use" and (turn.files or (turn.command and not looks_only(
                turn.command))):
            self.taken = None
            return [taken]
        if turn.kind == "text" and turn.role == "user":
            self.taken = None
        return []

    def _answered(self, sig: Signals) -> list[Candidate]:
        """The held correction, with the assistant's answer when this turn is it."""
        pending, turn = self.pending, sig.turn
        if pending is None:
            return []
        if turn.kind == "text" and turn.role == "assistant":
            if _options(turn.text[:MAX_OFFER]):  # a menu of options answers nothing yet:
                self.pending = None              # the user's pick, if any, is the decision
                return [pending]
            reply = proposal(sig, limit=2)
            if reply is None and sig.spans and sig.is_question(len(sig.spans) - 1):
                # "No worries! What would you like to rename it to?": the assistant asks
                # back; the request is still open and nothing was settled
                self.pending = None
                return []
            reply = reply or " ".join(sig.sentence(n) for n in range(min(2, len(sig.spans))))
            reply = _clip(reply, MAX_BLOCK)
            self.pending = None
            self.taken = Candidate(pending.rule, pending.first, turn.last, pending.lang,
                                   f"{pending.fix} Answer: {reply}" if reply else pending.fix,
                                   veracity="stated", context=pending.context)
            return []
        if turn.kind == "tool_use":  # acted on at once, with no word first
            self.pending, self.taken = None, pending
            return self._taken_up(sig)
        if (turn.kind == "text" and turn.role == "user") or turn.index - pending.last > REPLY_TURNS:
            self.pending = None
        return []


    def _rejected(self, sig: Signals) -> list[Candidate]:
        said = " ".join(sig.turn.text.split())
        what, self.turned_down = self.turned_down, None
        edit, self.edit = self.edit, None
        if not said:
            self.stopped = (what, self.target)
            return []
        # "branch and PR. but also is there any other way to solve this?": the question
        # asks for information; only the words around it can correct anything
        words = _told(said)
        if len(words.split()) < 3 or _asks_only(said) or FOR_NOW.search(words):
            return []  # "STOP", "what does lint say now?", "no linting for now"
        done = f" ({what} turned down)" if what else ""
        correction = Candidate("Preference", sig.turn.index, sig.turn.last, sig.lang,
                               f"User correction{done}: \"{_clip(words, MAX_WORDS)}\"",
                               veracity="stated", context=words)
        if CORRECTING.search(words) or concrete(words):
            self.pending = correction
        elif edit is not None and self.target:
            self.redo = (correction, self.target, edit)  # "try again": if redone otherwise
        return []

    def _redone(self, turn: Turn) -> list[Candidate]:
        """The rejected edit's words, once the next edit rewrites the same text of the same
        file another way: the user's words changed how it is done. Or once the commands
        run first (``git checkout -b …``, each doing more than look, none failing) are
        followed by the very edit turned down: the words asked for a step before the work
        ("let's cut a branch first"), and those commands took it."""
        if self.redo is not None and turn.command and not turn.files:
            if looks_only(turn.command):
                return []  # a look before the edit: the words wait for the edit
            if len(self.steps) < MAX_STEPS:
                self.steps.append(" ".join(turn.command.split()))
                return []  # a step before the edit: likewise
        redo, self.redo = self.redo, None
        steps, self.steps = self.steps, []
        if redo is None or not turn.files or turn.edited is None:
            return []
        correction, files, (old, new) = redo
        again_old, again_new = turn.edited
        same = bool(old.strip()) and (old.strip() in again_old or again_old.strip() in old)
        if set(turn.files) != set(files) or not same:
            return []
        if again_new.strip() != new.strip():
            return [replace(correction, last=turn.index)]
        if steps:
            ran = "; ".join(f"ran `{_clip(step, MAX_STEP)}`" for step in steps)
            return [replace(correction, last=turn.index,
                            fix=f"{correction.fix} Answer: {ran}, then made the same edit.")]
        return []

    def _step_failed(self, turn: Turn) -> None:
        """A step taken before the edit failed: the words are not borne out."""
        if self.steps and turn.command and turn.failed \
                and " ".join(turn.command.split()) in self.steps:
            self.redo, self.steps = None, []

    def _picked(self, sig: Signals) -> list[Candidate]:
        offered, self.offered = self.offered, {}
        if not offered:
            return []
        named = [m for m in NAMED.finditer(sig.turn.text) if m.group(1).upper() in offered]
        chosen = [m.group(1).upper() for m in named if not _negated(sig.turn.text, m.end())]
        refused = {m.group(1).upper() for m in named} - set(chosen)
        if not named:
            led = LEADS.match(sig.turn.text)
            chosen = [led.group(1)] if led and led.group(1) in offered \
                else _quoted(sig.turn.text, offered)
        if not chosen and len(refused) == 1:
            # "Option 1 doesn't work since the hash can change": the user's reason is the
            # lesson, and the option turned down is never stored as the choice
            return [self._turned_down(sig, offered[refused.pop()])]
        if len(set(chosen)) != 1:
            return []  # none named, or several compared: no pick
        label = chosen[0]
        asked = f" (asked: \"{_clip(self.question, MAX_QUESTION)}\")" if self.question else ""
        head = f"Chose {offered[label]}{asked}."
        words = _own_words(" ".join(sig.turn.text.split())).rstrip(".!。！ ")
        room = MAX_DECISION - len(head) - 13  # the three parts fit one memory
        said = f" The user: \"{_clip(words, room)}\"" if len(words.split()) > 2 \
            and room > 40 else ""
        text = head + said
        return [Candidate("Decision", sig.turn.index, sig.turn.last, sig.lang, text,
                          veracity="stated", context=sig.turn.text[:1500])]


    @staticmethod
    def _turned_down(sig: Signals, option: str) -> Candidate:
        words = " ".join(sig.turn.text.split()).rstrip(".!。！ ")
        head = f"Turned down {_clip(option, MAX_BLOCK // 2)}."
        text = f"{head} The user: \"{_clip(words, MAX_DECISION - len(head) - 13)}\""
        return Candidate("Decision", sig.turn.index, sig.turn.last, sig.lang, text,
                         veracity="stated", context=sig.turn.text[:1500])


# A negated verb in the clause that names an option: "Option 1 doesn't work", "option B
# is not what we want", "approach 2 won't scale".
NEGATED = re.compile(r"(?i)\b(?:\w+n't|\w+\s+not|cannot|never)\b")
CLAUSE_END = re.compile(r"[,.;:!?]|\s(?:but|and|since|because|so)\s")


def _negated(text: str, start: int) -> bool:
    """The words after an option's label, up to the end of its clause, negate it."""
    end = CLAUSE_END.search(text, start)
    clause = text[start:end.start() if end else start + 60][:60]
    return bool(NEGATED.search(clause))


# A question that asks for information ("what does lint say now?", "did we add a test for
# it?"), as opposed to one that challenges or proposes ("isn't this an internal package?",
# "can we use our logger?", "why is it removing these lines?").
ASKING = re.compile(r"(?i)^(?:q:\s*)?(?:what|which|when|where|who|whose|how|did|does|do|is|"
                    r"are|was|were|has|have)\b(?!n't)")
CHALLENGE = re.compile(r"(?i)n't\b|\b(?:not|never|instead|rather|let's)\b|"
                       r"\b(?:can|could|should|shall)\s+(?:we|you|i)\b")
QUESTION_SPLIT = re.compile(r"(?<=[?？])\s+")


def _asks_only(words: str) -> bool:
    """Every sentence of the words is a question that only asks for information."""
    parts = [p for p in QUESTION_SPLIT.split(words.strip()) if p]
    return bool(parts) and all(p.rstrip().endswith(("?", "？")) and ASKING.match(p.strip())
                               and not CHALLENGE.search(p) for p in parts)


def _restates(said: tuple[frozenset[str], str], before: tuple[frozenset[str], str]) -> bool:
    """A message that says an earlier request again, whole, amended: every word of the
    earlier one is there and they make most of the new one's (the same text exactly is the
    message sent twice, no amendment; a line moved, repeated or added is one). A question
    asks; a word put in another's place ("the export job" after "the import job") is
    another subject."""
    (now, text), (then, earlier) = said, before
    if len(then) < MIN_RESTATED or text == earlier or text.rstrip().endswith(("?", "？")):
        return False
    return then <= now and len(then) >= RESTATED * len(now)


def _redirects(words: str) -> bool:
    return any(not OBSERVED.match(words, max(0, m.start() - 2)) and not OBSERVED.match(
        words, max(0, m.start() - 3)) and not _embedded(words, m.start())
        for m in REDIRECTS.finditer(words))


# "can we figure out if there are more types we don't support?": a negation inside an
# if/whether clause is what is asked about or supposed, not the work redirected
EMBEDDING = re.compile(r"(?i)\b(?:if|whether)\b")
CLAUSE_START = re.compile(r"[,.;:!?]\s")


def _embedded(words: str, at: int) -> bool:
    """The words before ``at``, back to the start of their clause, open an if/whether
    clause that holds it."""
    starts = [m.end() for m in CLAUSE_START.finditer(words, 0, at)]
    return bool(EMBEDDING.search(words, starts[-1] if starts else 0, at))


class Redirect:
    """A plain message that corrects the work just done, and what the assistant does."""

    def __init__(self, index: int, lang: str, words: str, what: str | None = None,
                 avoid: tuple[str, ...] = (), rule: bool = False) -> None:
        self.index, self.last, self.lang, self.words = index, index, lang, words
        self.rule = rule  # an add-on stating when it applies, not a change of course
        self.what = what  # the tool call a bare rejection turned down before the words
        self.avoid = avoid  # its files: editing them again is no change of course
        self.edited = False
        self.first: str | None = None  # the assistant's first concrete reply
        self.report: str | None = None  # its last concrete words so far

    def heard(self, sig: Signals) -> None:
        said = proposal(sig, limit=2)
        if said:
            self.last = sig.turn.last
            if not self.edited and self.first is None:
                self.first = said
            elif self.edited:
                self.report = said

    def lesson(self) -> Candidate:
        reply = self.first or self.report
        done = "" if not self.what else f" ({self.what})" if self.what.startswith("the ") \
            else f" ({self.what} turned down)"
        said = "User rule" if self.rule else "User correction"
        text = f"{said}{done}: \"{_clip(self.words, MAX_WORDS)}\""
        if reply:
            text += f" Answer: {_clip(reply, MAX_BLOCK)}"
        return Candidate("Preference", self.index, self.last, self.lang, text,
                         veracity="stated", context=self.words)


def _options(text: str) -> dict[str, str]:
    """The options a message offers, by label: each option's title line and the lines under
    it (code blocks included, fences dropped) up to the next option or heading."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else OFFERED.match(line)
        if match:
            label = match.group(1).upper()
            if label in found:
                current = None  # mentioned again (a recommendation): not a new block
                continue
            title = match.group(2).strip().strip("*").strip()
            current = found[label] = [f"Option {label}" + (f" — {title}" if title else "")]
        elif current is not None and not fenced and HEADING.match(line):
            current = None
        elif current is not None and line.strip() and not JUDGED.match(line):
            current.append(line.strip().lstrip("-*• ").replace("**", ""))
    if len(found) < 2:
        return {}  # one "option" is no choice
    return {label: _clip("; ".join(lines), MAX_BLOCK) for label, lines in found.items()}


def _listed(text: str) -> dict[str, str]:
    """The options of a numbered list whose items lead with a bold title, by number: the
    title and the item's own line (what follows on the lines under it is detail)."""
    found: dict[str, str] = {}
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else LISTED.match(line)
        if match and match.group(1) not in found:
            title, rest = match.group(2).strip(), match.group(3).strip()
            found[match.group(1)] = _clip(f"Option {match.group(1)} — {title}"
                                          + (f"; {rest}" if rest else ""), MAX_BLOCK)
    return found if len(found) >= 2 else {}


def _quoted(text: str, offered: dict[str, str]) -> list[str]:
    """The one offered option whose title the user's message repeats word for word."""
    said = " ".join(_WORDS.findall(text.lower()))
    hits = []
    for label, block in offered.items():
        title = block.split(" — ", 1)[-1].split("; ", 1)[0]
        wanted = _WORDS.findall(title.lower())
        if len(wanted) >= MIN_QUOTED and f" {' '.join(wanted)} " in f" {said} ":
            hits.append(label)
    return hits


_WORDS = re.compile(r"\w+(?:[-'’]\w+)*")


def _own_words(text: str) -> str:
    """The user's words without the clause that only names the option ("I like Option 1,
    from a enabling perspective: ..." → "from a enabling perspective: ...")."""
    match = NAMED.search(text)
    if match is None:
        return text
    end = re.search(r"[,.;:!]\s+|$", text[match.end():])
    cut = match.end() + (end.end() if end else 0)
    return text[cut:].strip() if cut <= 40 else text


def _what(command: str | None, files: tuple[str, ...], change: str | None = None) -> str | None:
    """What a tool call did, as a rejection names it: the command, or the files edited with
    the start of the edit's new text ("edit of x_test.go: `if !bytes.Contains(…`")."""
    if command:
        return f"`{_clip(' '.join(command.split()), 80)}`"
    if files:
        shown = f": `{_clip(change, MAX_CHANGE)}`" if change else ""
        return "edit of " + ", ".join(os.path.basename(f) for f in files[:2]) + shown
    return None


# Sentence ends, for a message typed into a rejected call.
SENTENCE_END = re.compile(r"(?<=[.!?？。])\s+")
LEAD = re.compile(r"(?i)^(?:(?:but|and|also|so|ok(?:ay)?|then)\b[,\s]*)+")


def _told(words: str) -> str:
    """The words without the questions that only ask for information, unless nothing else
    is left."""
    parts = [p for p in SENTENCE_END.split(words) if p]
    kept = [p for p in parts if not _asks_only(LEAD.sub("", p))]
    return " ".join(kept) if kept else words


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rsplit(" ", 1)[0] + "…"
