"""A recommendation the user approved with a short "yes" and the agent carried out (issue 24).

Decisions in agent sessions are often argued by the agent and settled by the user in a word:
the agent lays out what it would do and why ("I recommend the **Keep a Changelog** format —
it's the closest thing to an industry standard."; or a list of points under titles, each
with its stance: "**2. `SessionState` alias** The intent is permanent unification… I'd say
it is fine as-is."), the user answers "yes" / "yep do it", and the edits that follow write
it. The lesson is the recommendation with its reason, as a *Decision*.

Read by structure, not by the session's words:

- an *offer* is an assistant message holding a first-person recommendation (a sentence
  whose subject is the agent and whose verb recommends: recommend, suggest, propose, go or
  stick with; "my recommendation"), or titled points (headings, bold lines, numbered bold
  items; at least two) of which some carry the agent's stance (I'd say, I think). What it
  names is read from its marked spans (bold, links, code) and identifiers
  (``CamelCase``, ``pkg.Name``, ``snake_case``, ``file.ext``);
- the user *approves* it with a short assent (a few words led by yes, sure, ok, do it…; no
  question, negation or amendment) to a message that ends on a question to the user ("Want
  me to create the file?"; an "ok" after a report only acknowledges it) and still names it (the offer itself, or a
  draft built on it a few turns later); a reply that turns the work down, or names another
  labelled option, drops the offers waiting;
- a short reply that picks an item of the list the message offers by its place or label
  ("the second one", "go with 2", "B"; a number leading a reply to bold titles is
  ``replies.py``'s) approves that item, named by what it alone names (its marked spans,
  identifiers and proper names: "Redis" when the other item names "Postgres");
- it is *carried out* when an edit the tool accepts after the approval writes a name the
  offer names (in the new text or the file's path), and the user's next word does not turn
  the work down. A "yes" to running a command, an approval followed by no such edit, or a
  question offering nothing, decides nothing.

Memory stays bounded: a few offers, each cut, dropped after a few user turns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memx_cli.reflector.aider import FENCE
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.narrative import STILL
from memx_cli.reflector.replies import LABEL, LEADS, LISTED
from memx_cli.reflector.said import rejects
from memx_cli.reflector.signals import Signals

# The agent recommends, in the first person: "I recommend X", "I'd suggest X", "we should
# go with X", "My recommendation: X".
RECOMMENDS = re.compile(
    r"(?i)\b(?:(?:I|we)(?:'d|\s+would|\s+should)?\s+(?:strongly\s+)?"
    r"(?:recommend|suggest|propose|go\s+with|stick\s+with)|my\s+(?:recommendation|suggestion))\b")
# The agent's stance on a point it was asked about: "I'd say …", "I think …".
STANCE = re.compile(r"(?i)\b(?:I(?:'d|\s+would)?\s+(?:say|think|lean)|I\s+agree)\b")
# A title: a heading, a line that is all bold, or a numbered item led by a bold title.
TITLED = re.compile(r"^\s*(?:#{1,6}\s+(.+?)\s*#*|\*\*(.+?)\*\*[:.]?|\d{1,2}[.)]\s+\*\*(.+?)\*\*.*)$")
# A short assent: "yes", "yep do it", "sure, go ahead", "ok", "sounds good", "lgtm".
ASSENT = re.compile(r"(?i)^\W*(?:yes|yep|yeah|yup|sure|ok(?:ay)?|alright|agreed|"
                    r"go\s+(?:ahead|for\s+it)|do\s+it|please\s+do|sounds\s+good|lgtm|👍)(?!\w)")
AMENDS = re.compile(r"(?i)\b(?:but|not|no|don't|dont|instead|except|without|rather)\b|n't\b|[?？]")
MARKED = re.compile(r"\*\*(.+?)\*\*|\[([^\]]+)\]\(|`([^`\n]+)`")
IDENT = re.compile(r"\b(?:[A-Za-z_]\w*[.:/])+[A-Za-z_]\w*(?:\(\))?|"
                   r"\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z0-9]+[A-Z]\w*\b|\b[a-z]+_\w+\b")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*`\[(])")
NUMBERED = re.compile(r"^\d{1,2}[.)]\s+")
LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
LABELLED = re.compile(rf"(?i)\b{LABEL}")
# A list item offered: "1. …", "B) …", "**2.** …", "- A: …".
ITEM = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*)?\(?([A-H]|\d{1,2})[.):](?:\*\*)?\s+(\S.*)$")
# A short reply that picks an item by its place or its label: "the second one", "go with 2",
# "B", "let's do the last one".
PICK = re.compile(
    r"^\W*(?:(?i:let's|lets|we'll|i'd|i'll)\s+)?(?:(?i:go\s+(?:with|for)|use|pick|take|choose|do)"
    r"\s+)?(?:(?i:the)\s+)?(?:(?P<ord>(?i:first|second|third|fourth|fifth|last))"
    r"(?:\s+(?i:one|option|item))?|(?i:number\s+|#)?(?P<num>\d{1,2})|(?P<letter>[A-H]))"
    r"(?:\s+(?i:please|then|one))?\W*$")
ORDINALS = ("first", "second", "third", "fourth", "fifth")
CAPWORD = re.compile(r"(?<=[\w,;)] )[A-Z][A-Za-z0-9+#-]{2,}")  # a proper name inside a sentence
MAX_ITEMS = 9
MAX_ASSENT_WORDS = 6
MAX_OFFERS = 4
MAX_AGE = 4  # user turns an offer waits for its approval
MAX_READ = 8000  # characters of a message read for an offer
MAX_POINT = 200  # characters of one point or recommendation
MAX_DECISION = 480  # under the default memory length (ace.reflector.max_content_length)
MIN_NAME = 3


@dataclass
class Offer:
    index: int
    lang: str
    points: list[str]  # the recommendation sentences, or the titled points with a stance
    names: set[str]  # what the offer names, lower-cased
    age: int = 0


@dataclass
class Approval:
    offers: list[Offer]
    reply: str
    index: int
    last: int
    carried: bool = False
    naming: set[str] = field(default_factory=set)  # files of edits that write a name offered


class Approvals:
    """Feeds turns; returns the recommendations approved and carried out."""

    def __init__(self) -> None:
        self.offers: list[Offer] = []
        self.answered = ""  # the assistant's words since the user last spoke, lower-cased
        self.asked = False  # the assistant's last message ends on a question to the user
        self.approval: Approval | None = None
        self.items: list[tuple[str, Offer]] = []  # the last message's list, by label

    def feed(self, sig: Signals) -> list[Candidate]:
        turn = sig.turn
        approval = self.approval
        if turn.kind == "tool_use":
            if approval is not None and turn.files:
                new = turn.edited[1] if turn.edited else (turn.change or "")
                written = f"{' '.join(turn.files)} {new}".lower()
                if any(name in written for offer in approval.offers for name in offer.names):
                    approval.naming.update(turn.files)
            return []
        if turn.kind == "tool_result":
            if approval is not None and set(turn.applied) & approval.naming:
                approval.carried, approval.last = True, turn.last
            return []
        if turn.kind != "text" or turn.planned or turn.picked:
            return []
        if turn.rejected:
            if approval is not None and not approval.carried:
                self.approval = None  # the approved work turned down
            return []
        if turn.role == "assistant":
            self.answered = (self.answered + "\n" + turn.text[:MAX_READ].lower())[-2 * MAX_READ:]
            self.asked = _asks(turn.text)
            self.items = _items(turn.text[:MAX_READ], turn.index, sig.lang)
            offer = _offer(turn.text[:MAX_READ], turn.index, sig.lang)
            if offer is not None:
                self.offers = (self.offers + [offer])[-MAX_OFFERS:]
            return []
        if turn.role != "user":
            return []
        out = self._settled(sig)
        answered, self.answered = self.answered, ""
        asked, self.asked = self.asked, False
        items, self.items = self.items, []
        if rejects(sig) or sig.deny or sig.says(STILL):
            self.offers = []
            return out
        named = {m.group(0).lower() for m in LABELLED.finditer(sig.text)}
        if named:  # a labelled option picked: the offers naming other labels are turned down
            self.offers = [o for o in self.offers if not _labels(o.names) - named]
        words = sig.text.split()
        picked = _picked(sig.text, items, answered) if asked and not named else None
        if picked is not None:
            self.approval = Approval([picked], " ".join(words), turn.index, turn.last)
            return out
        if asked and sig.says(ASSENT) and len(words) <= MAX_ASSENT_WORDS \
                and not sig.says(AMENDS):
            approved = [o for o in self.offers if any(n in answered for n in o.names)]
            if approved:
                self.offers = [o for o in self.offers if o not in approved]
                self.approval = Approval(approved, " ".join(words), turn.index, turn.last)
                return out
        for offer in self.offers:
            offer.age += 1
        self.offers = [o for o in self.offers if o.age <= MAX_AGE]
        return out

    def _settled(self, sig: Signals) -> list[Candidate]:
        """The approval waiting, once carried out and not turned down by this message."""
        approval, self.approval = self.approval, None
        if approval is None:
            return []
        if not approval.carried:  # not acted on yet (a draft shown): its offers wait again
            self.offers = (approval.offers + self.offers)[-MAX_OFFERS:]
            return []
        if rejects(sig) or sig.deny or sig.says(STILL):
            return []
        return [_lesson(approval)]

    def finish(self) -> list[Candidate]:
        approval, self.approval = self.approval, None
        self.offers = []
        return [_lesson(approval)] if approval is not None and approval.carried else []


def _asks(text: str) -> bool:
    """The message ends on a question (outside code): it asks the user for a word."""
    lines = [line for line in _prose(text) if line.strip()]
    return bool(lines) and lines[-1].rstrip(" *_").endswith(("?", "？"))


def _prose(text: str) -> list[str]:
    """The lines of a message outside its code fences."""
    lines: list[str] = []
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _items(text: str, index: int, lang: str) -> list[tuple[str, Offer]]:
    """The list the message offers: each item by its label, with the names it alone names
    (none when it has fewer than two items, or two lists whose labels repeat)."""
    found: list[tuple[str, str]] = []
    for line in _prose(text):
        item = ITEM.match(line)
        if item:
            found.append((item.group(1), item.group(2)))
        elif found and line.startswith((" ", "\t")) and line.strip() and not ITEM.match(line):
            found[-1] = (found[-1][0], f"{found[-1][1]} {line.strip()}")
    labels = [label for label, _ in found]
    if not 2 <= len(found) <= MAX_ITEMS or len(set(labels)) < len(labels):
        return []
    named = [_names([said]) | {m.group(0).lower() for m in CAPWORD.finditer(_plain(said))}
             for _, said in found]
    items: list[tuple[str, Offer]] = []
    for n, (label, said) in enumerate(found):
        own = named[n] - set().union(*(named[:n] + named[n + 1:]))
        if own:
            items.append((label, Offer(index, lang, [_clip(said)], own)))
    return items if len(items) == len(found) else []


def _picked(reply: str, items: list[tuple[str, Offer]], answered: str) -> Offer | None:
    """The item a short reply picks by its place or label; None for a number that leads a
    reply to a list of bold titles (``replies.py`` reads that pick)."""
    pick = PICK.match(reply) if items else None
    if pick is None:
        return None
    labels = [label for label, _ in items]
    if pick.group("ord"):
        word = pick.group("ord").lower()
        at = len(items) - 1 if word == "last" else ORDINALS.index(word)
        return items[at][1] if at < len(items) else None
    label = pick.group("num") or pick.group("letter")
    if pick.group("num") and LEADS.match(reply) and sum(
            1 for line in answered.splitlines() if LISTED.match(line)) >= 2:
        return None
    return items[labels.index(label)][1] if label in labels else None


def _labels(names: set[str]) -> set[str]:
    return {n for n in names if LABELLED.fullmatch(n)}


def _offer(text: str, index: int, lang: str) -> Offer | None:
    """What the message recommends: its recommendation sentences, or else its titled points
    that carry the agent's stance; None when it recommends nothing."""
    lines = _prose(text)
    recommended = [s for line in lines for s in SENTENCE.split(line.strip())
                   if RECOMMENDS.search(s)]
    if recommended:
        points = [_clip(s) for s in recommended]
        return _named(index, lang, points, recommended)
    blocks: list[tuple[str, list[str]]] = []
    for line in lines:
        titled = TITLED.match(line)
        if titled:
            blocks.append((next(g for g in titled.groups() if g), []))
        elif blocks and line.strip():
            blocks[-1][1].append(line.strip())
    if len(blocks) < 2:
        return None
    stated = [(title, body) for title, body in blocks if STANCE.search(" ".join(body))]
    if not stated:
        return None
    points = [_clip(f"{NUMBERED.sub('', _plain(title)).rstrip(':. ')}: {_first(body)}")
              for title, body in stated]
    return _named(index, lang, points, [f"{t} {' '.join(b)}" for t, b in blocks])


def _named(index: int, lang: str, points: list[str], said: list[str]) -> Offer | None:
    names = _names(said)
    return Offer(index, lang, points, names) if names else None


def _names(said: list[str]) -> set[str]:
    """What the texts name: their marked spans and identifiers, lower-cased."""
    names: set[str] = set()
    for text in said:
        for found in MARKED.finditer(text):
            name = next(g for g in found.groups() if g)
            names.add(_plain(name).lower().rstrip("()"))
        names.update(m.group(0).lower().rstrip("()") for m in IDENT.finditer(_plain(text)))
    return {n for n in names if len(n) >= MIN_NAME and not RECOMMENDS.search(n)
            and not STANCE.search(n)}


def _first(body: list[str]) -> str:
    """The point's first sentences, whole, in the room a point has: what the agent holds
    on it and why."""
    said = ""
    for sentence in SENTENCE.split(" ".join(_plain(line) for line in body)):
        if said and len(said) + len(sentence) >= MAX_POINT - 40:
            break
        said = f"{said} {sentence}".strip()
    return said


def _plain(text: str) -> str:
    text = LINK.sub(r"\1", text)
    return " ".join(text.replace("**", "").replace("`", "").split())


def _clip(text: str) -> str:
    text = _plain(text)
    return text if len(text) <= MAX_POINT else text[:MAX_POINT - 1].rsplit(" ", 1)[0] + "…"


def _lesson(approval: Approval) -> Candidate:
    offers = approval.offers
    head = f'Decided (the user answered "{approval.reply[:40]}"): '
    points = [p for o in offers for p in o.points]
    text = head + " ".join(p if p.endswith((".", "…", "!")) else p + "." for p in points)
    if len(text) > MAX_DECISION:
        text = text[:MAX_DECISION - 1].rsplit(" ", 1)[0] + "…"
    return Candidate("Decision", offers[0].index, approval.last, offers[0].lang, text,
                     veracity="stated", context=text)
