"""The agent's answer to a user's question, once it has read the project (issue 24).

In agent sessions much of what a newcomer would want to know is said once, as the answer to
a question: "what other things does `EnsureSetup` do?", the agent reads two files, then
"`EnsureMetadataBranch()` creates the orphan `entire/checkpoints/v1` branch…". Nobody
confirms it; what vouches for it is the structure around it:

- the user asked: the message holds a sentence ending in a question mark (a rejected call,
  a question-prompt answer or an approved plan is no question);
- the agent then only looked: at least one call that reads the project (a tool named for
  reading, searching or listing, such as ``Read``, ``Grep``, ``Glob``, ``read_file``, or a
  command that only reads: ``grep``, ``cat``, ``git log``, ``sed -n``, a program's usage
  (``git worktree move --help``), a value (``echo``), git's reading subcommands (``git
  rev-parse``, ``git worktree list``), what CI did through a forge's client (``gh run view
  --log-failed``, ``gh pr checks``), with no output written into a file), and none that
  changes anything (an edit, a command that does more than look). A trial run wholly in a
  scratch folder (``cd /tmp/x && git init && …``) changes nothing of the project. A
  question answered with work is a task, and its report is ``reports.py``'s;
- the answer is the agent's last text before the user speaks again (or the session ends),
  after its last call: a text followed by more calls was a lead-in ("Let me check…").

The answer is split into items, each standing alone: a top-level list item (its nested
lines joined to it) or a sentence of a paragraph; headings, table rows, fenced code and a
lead-in ending in a colon are no item, and nothing of the lead-in goes with an item,
except that a list of names with no clause of their own is one statement with the lead-in
that says what they are ("There are two implementations: `a` in x; `b` in y"). An
item is kept only when it states a fact about something the agent read: it names a file,
a symbol, a command or a setting (a code span, an identifier, a path) that occurs in what
the reading calls returned; it is no question, no plan or offer of the agent's ("Let me…",
"Want me to…", first person), no account of what the user did in this checkout ("When you
ran…", "Your settings had…"), and does not hedge or only weigh ("probably", "might",
"could", "should"). A hyphenated word ("pre-push", "auto-commit") is such a name when what
was read holds it as a literal (quoted, a flag, a path's part) or spells it as an
identifier (``PrePush``, ``auto_commit``); a word of prose proves nothing. A list under a
lead-in that itself states a fact about a name read ("The internal name stays the same
after `git worktree move`:") is one statement with it when its items name nothing read of
their own, unless the lead-in has a question's form or an item asks, plans or weighs. At
most ``MAX_ITEMS`` items an answer.

The answer is dropped when the user's next message disputes it ("no", "but…", "actually",
"hmm", "still", a rejection), and an item is dropped when a later edit of the session changes
how often a name it is grounded on occurs in the text it replaces (the code it describes
was changed). An answer that ends by offering the work ("Would you like me to implement
this fix?"), which the user takes with an assent ("yes", "do it") and the agent then does
(an edit, or a command that does more than look, before the user speaks again), was the
diagnosis of a task: the task's own memory (its report, its episode) tells what was found
and done, and the answer is not said again beside it; an offer the user lets pass leaves
the answer a fact. Each kept item is a ``Fact``: ``Asked "<the question>": <item>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memx_cli.reflector import lexicons as lx
from memx_cli.reflector.approvals import ASSENT
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.corrected import DISPUTE
from memx_cli.reflector.names import CODE_SPAN, IDENT_RE, PATH_RE
from memx_cli.reflector.reruns import ASSIGNMENT, looks_only, segments
from memx_cli.reflector.said import rejects
from memx_cli.reflector.signals import Signals, words_of

MAX_SEEN = 200_000  # characters of what the reading calls returned, for one question
MAX_ITEMS = 3  # items kept of one answer
MAX_HELD = 8  # items a session keeps
MAX_ITEM = 380  # with the question, within a memory's 500 characters
MAX_QUESTION = 100
MIN_WORDS = 4
MIN_NAME = 4  # a name shorter than this proves nothing by occurring in what was read

# A tool that reads the project: Read, Grep, Glob, LS, read_file, search_file_content,
# list_directory, view… (a web search reads no project file)
READER = re.compile(r"(?i)^(?!web)[\w.-]*(?:read|grep|glob|search|list|ls|view)[\w.-]*$")
FENCE = re.compile(r"^\s*(?:```|~~~)")
HEADING = re.compile(r"^\s*(?:#{1,6}\s|[-=*_]{3,}\s*$)")
TABLE = re.compile(r"^\s*\|")
ITEM = re.compile(r"^( {0,1})(?:[-*•+]|\d{1,2}[.)])\s+")
NESTED = re.compile(r"^\s+(?:[-*•+]|\d{1,2}[.)])\s+|^\s{2,}\S")
MARKER = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+")
EMPHASIS = re.compile(r"\*\*|__|(?<![\w`])\*(?=\S)|(?<=\S)\*(?![\w`])")
PLACEHOLDER = re.compile(r"^<[^<>]+>$")
PLAIN_NAME = re.compile(IDENT_RE.pattern + "|" + PATH_RE.pattern)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"(])")
# the agent speaking of itself or the user, planning or offering: no fact about the code
AGENT = re.compile(r"(?i)^\W*(?:let me|let's|i\b|i'(?:ll|d|ve|m)\b|now\b|next\b|want me|"
                   r"would you|should i|shall i|do you|if you(?:'d)? (?:want|like|prefer)|"
                   r"you(?:'re| are) (?:right|correct)|good (?:point|catch|question)|"
                   r"great|excellent|perfect|sure\b|ok\b|okay\b|done\b|"
                   r"option\b|approach\b|here(?:'s| is| are)\b|summary\b)")
FIRST_PERSON = re.compile(r"(?i)\b(?:I|I'(?:ll|d|ve|m)|me|my)\b")
# the user's own doing in this checkout ("When you ran …", "Your settings had …"): what
# happened here, not how the project is
USERS_OWN = re.compile(r"(?i)^\W*(?:(?:when|because|since|after|before|once)\s+)?(?:you(?:'ve)?\s+"
                       r"(?:\w+ly\s+)?(?:ran|had|did|made|got|wrote|saw|built|chose|set|put|were|"
                       r"[a-z]{2,}ed)|your\s+(?:\S+\s+){1,3}?(?:had|was|were|got|[a-z]{2,}ed))\b")
# a clause of its own: an auxiliary or a copula, a verb in the third person after a name or
# a pronoun, or a name defined after a dash ("`EnsureMetadataBranch()` - Creates …")
CLAUSE = re.compile(r"(?i)\b(?:is|are|was|were|isn't|aren't|wasn't|weren't|has|have|had|hasn't|"
                    r"it's|that's|there's|what's|"
                    r"haven't|does|do|did|doesn't|don't|didn't|can|can't|cannot|will|won't|must|"
                    r"gets?|got)\b|(?:\bx|\b(?:it|this|that|which|each|both|all|only|never|"
                    r"always|also|still|just|now))\s+[a-z]+s\b|^x\s*(?:/\s*x\s*)?[-—–:]\s+\w"
                    r"|(?<=[a-z] )(?!(?:its|this|thus|plus|less|unless|us|yes|whereas|"
                    r"various|across|always|perhaps)\b)[a-z]{2,}[^s\W]s\b")
# a lead-in that holds the list under it to a case: its items say nothing on their own
CASE = re.compile(r"(?i)^\W*(?:for|when|if|in|on|after|before|during|with|without|under|"
                  r"once|while|unless|where)\b")
# a lead-in that ends on the case its list spells out: "The issue only manifests when:"
CASE_END = re.compile(r"(?i)\b(?:when|whenever|if|unless|once|while|where|after|before|until)"
                      r"\s*:$")
# The agent's closing offer to do the work itself: "Would you like me to implement this fix?",
# "Want me to …", "Should I …", "Shall I …".
OFFERS = re.compile(r"(?i)^\W*(?:would\s+you\s+like\s+me\s+to|do\s+you\s+want\s+me\s+to|"
                    r"want\s+me\s+to|should\s+i|shall\s+i)\b[^?]*\?\W*$")
# a hyphenated word of prose that may be a name: a hook, a command, a setting
KEBAB = re.compile(r"(?<![\w./@$-])([a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?![\w/-])")
# Programs that only print a value or where a thing is
PRINTS = frozenset(("echo", "printf", "pwd", "which", "whereis", "type", "printenv", "date",
                    "uname", "whoami", "true", "realpath", "dirname", "basename", "diff", "cmp",
                    "less", "more", "jq", "tree", "du", "df"))
# git's subcommands that read what the repository holds, beyond those ``looks_only`` knows
GIT_SHOWS = frozenset(("rev-parse", "ls-files", "ls-tree", "ls-remote", "cat-file", "merge-base",
                       "describe", "shortlog", "reflog", "show-ref", "for-each-ref", "grep",
                       "rev-list", "name-rev", "check-ignore", "whatchanged", "count-objects"))
# a forge client's reading of what CI did: ``gh run view``, ``gh pr checks`` (a pull
# request's diff or text is a change proposed, not yet the project: no)
GH_READS = frozenset((("run", "view"), ("run", "list"), ("run", "watch"), ("pr", "checks"),
                      ("workflow", "view"), ("workflow", "list")))
# output written into a file (not into /dev/null or another stream)
WRITES = re.compile(r"(?<![0-9&])>>?\s*(?!&|/dev/null\b)[^\s|;&]|\b[0-9]>>?\s*(?!&|/dev/null\b)\w")
# a scratch folder: the system's temporary folders, or one made for the run
SCRATCH = re.compile(r"^(?:/tmp\b|/private/tmp\b|/var/folders/|\$\{?TMPDIR\b|\$\(mktemp\b)")
# a lead-in in a question's form ("Why auto-commit doesn't need the other hooks:") heads
# what follows; it claims nothing
ASKS = re.compile(r"(?i)^\W*(?:why|how|what|which|when|where|who|whether)\b")
# an item led by a pronoun leans on the sentence before it
PRONOUN = re.compile(r"(?i)^\W*(?:it|its|they|their|them|this|that|these|those|both|he|she)\b")
CONNECTIVE = re.compile(r"(?i)^(?:however|but|and|also|so|then|in fact|actually),?\s+")
WEIGHS = re.compile(r"(?i)\b(?:might|may|could|would|should|probably|possibly|perhaps|maybe|"
                    r"likely|unlikely|seems?|appears?|guess|suspect|presumably|assume|"
                    r"recommend|suggest|propose|consider|prefer)\b")


@dataclass
class _Asked:
    index: int
    questions: list[str]
    reads: int = 0
    worked: bool = False  # an edit or a command that does more than look
    reading: bool = False  # the last call reads the project: its result is what was read
    seen: list[str] = field(default_factory=list)
    size: int = 0
    answer: tuple[int, str] | None = None


@dataclass
class _Item:
    first: int
    last: int
    lang: str
    text: str
    names: tuple[str, ...]


class Answers:
    """Feeds turns; returns, at the session's end, the facts the agent's answers to the
    user's questions stated about what it read. Holds one question at a time and at most
    ``MAX_HELD`` items."""

    def __init__(self) -> None:
        self.asked: _Asked | None = None
        self.held: list[_Item] = []
        # an answer whose offer of the work the user took: its items, until the work is
        # done (dropped) or the user speaks again first (held)
        self.taken: list[_Item] = []

    def feed(self, sig: Signals) -> list[Candidate]:
        turn = sig.turn
        if turn.role == "user" and turn.kind == "text":
            self.held += self.taken[:max(0, MAX_HELD - len(self.held))]
            self.taken = []
            self._settle(sig)
            self.asked = None
            if not (turn.rejected or turn.picked or turn.planned):
                questions = [sig.sentence(n) for n in range(len(sig.spans))
                             if sig.sentence(n).rstrip().endswith(("?", "？"))]
                if questions:
                    self.asked = _Asked(turn.index, questions)
            return []
        if turn.kind == "tool_use":
            if turn.files or (turn.command and not reads(turn.command)):
                self.taken = []  # the offered work done: its own memory tells it
            self._edited(turn.edited)
            asked = self.asked
            if asked is None:
                return []
            asked.answer = None  # words before another call were a lead-in
            tool = re.split(r"[\s:]", turn.text.strip(), maxsplit=1)[0]
            if turn.files or (turn.command and not reads(turn.command)):
                asked.worked = True
            asked.reading = bool(turn.command) or (not turn.files and bool(READER.match(tool)))
            asked.reads += asked.reading
            return []
        asked = self.asked
        if asked is None:
            return []
        if turn.kind == "tool_result":
            if asked.reading and asked.size < MAX_SEEN:
                asked.seen.append(turn.text[:MAX_SEEN - asked.size])
                asked.size += len(asked.seen[-1])
        elif turn.role == "assistant" and turn.text.strip() and asked.reads and not asked.worked:
            asked.answer = (turn.index, turn.text)
        return []

    def finish(self) -> list[Candidate]:
        self._settle(None)
        held, self.held, self.asked = self.held + self.taken, [], None
        self.taken = []
        return [Candidate("Fact", i.first, i.last, i.lang, i.text, context=i.text)
                for i in held]

    def _settle(self, reply: Signals | None) -> None:
        """The user speaks again (``reply``) or the session ends: the answer waiting is kept
        unless the reply disputes it."""
        asked = self.asked
        if asked is None or asked.answer is None or asked.worked:
            return
        if reply is not None and (rejects(reply) or bool(reply.deny) or reply.turn.rejected
                                  or DISPUTE.match(" ".join(reply.text.split()))):
            return
        index, text = asked.answer
        opening = next((item for _, item in items(text)), "")
        if lx.HEDGE.find(words_of(opening), opening):
            return  # "I think I understand the issue now": the agent's guess, to be checked
        seen = "\n".join(asked.seen)
        lang = reply.lang if reply is not None else "en"
        # "… Would you like me to implement this fix?" - "yes": held until the work shows
        taking = reply is not None and bool(ASSENT.match(reply.text)) and _offers(text)
        kept = self.taken if taking else self.held
        for item, names in stated(text, seen):
            if len(self.held) + len(self.taken) >= MAX_HELD:
                return
            question = _question(asked.questions, item)
            kept.append(_Item(asked.index, index, lang,
                              f"Asked \"{question}\": {_clip(item, MAX_ITEM)}", names))

    def _edited(self, edited: tuple[str, str] | None) -> None:
        """A later edit that takes a name an item is grounded on out of the code replaces
        what the item describes."""
        if not edited or not self.held:
            return
        old, new = edited
        if not old.strip():
            return  # a file written whole: a new file or a document, no change of the code
        self.held = [i for i in self.held if not any(
            old.count(n) != new.count(n) for name in i.names
            for n in {name, name.rsplit(".", 1)[-1].removesuffix("()")} if len(n) >= MIN_NAME)]


Stated = tuple[str, tuple[str, ...]]  # an item and the names it is grounded on


def stated(text: str, seen: str) -> list[Stated]:
    """What an answer states about what was read (``seen``): its items that state a fact
    about a name found there, one list's items together when they fit in one memory
    ("`EnsureSetup` does: a; b; c"), else each on its own; at most ``MAX_ITEMS`` parts."""
    parts: dict[int, list[Stated]] = {}
    fragments: dict[int, list[Stated]] = {}
    leads: dict[int, str] = {}
    for part, item, lead, in_list in led(text):
        # a hyphenated word is weaker evidence than a code span or an identifier: it grounds
        # a sentence that stands alone, not an item of a list that leans on what heads it
        # ("Adds coverage for auto-commit" under "So PR 284 is:")
        names = grounded(item, seen, hyphenated=not in_list)
        if names and states(item):
            parts.setdefault(part, []).append((item, names))
        elif lead:
            leads[part] = lead
            fragments.setdefault(part, []).append((item, names))
    for part, listed in fragments.items():
        # "There are two implementations: `a` in strategy; `b` in checkpoint": names under
        # a lead-in that states what they are make one statement
        said = leads[part][:-1].rstrip()
        if part not in parts and any(names for _, names in listed) and states(said + "."):
            parts[part] = [(f"{said}: " + "; ".join(i.rstrip(".") for i, _ in listed) + ".",
                            tuple(n for _, names in listed for n in names))]
    for part, claim in _claims(text, seen).items():
        # "The internal name stays the same after `git worktree move`: the folder is kept;
        # only the `gitdir` file is updated": the lead-in is the claim, its items the
        # detail, when they name nothing read of their own
        parts.setdefault(part, [claim])
    out: list[Stated] = []
    for _, kept in sorted(parts.items())[:MAX_ITEMS]:
        joined = "; ".join(item.rstrip(".") for item, _ in kept) + "."
        if len(kept) > 1 and len(joined) <= MAX_ITEM:
            out.append((joined, tuple(n for _, names in kept for n in names)))
        else:
            out += kept
    return out


def _claims(text: str, seen: str) -> dict[int, Stated]:
    """The lists under a lead-in that itself states a fact about what was read, each with
    its lead-in as one statement, when it fits in one memory and no item asks, plans,
    offers or weighs."""
    lists: dict[int, tuple[str, list[str]]] = {}
    for part, item, lead, _ in led(text):
        if lead:
            lists.setdefault(part, (lead, []))[1].append(item)
    out: dict[int, Stated] = {}
    for part, (lead, said) in lists.items():
        claim = lead[:-1].rstrip()
        names = grounded(claim, seen)
        joined = f"{claim}: " + "; ".join(i.rstrip(".") for i in said) + "."
        if not names or not states(claim + ".") or ASKS.match(claim) or len(joined) > MAX_ITEM:
            continue
        prose = [PLAIN_NAME.sub("x", CODE_SPAN.sub("x", i)) for i in said]
        if any(i.rstrip().endswith(("?", "？")) or AGENT.match(p) or FIRST_PERSON.search(p)
               or WEIGHS.search(p) for i, p in zip(said, prose)):
            continue
        out[part] = (joined, names + tuple(n for i in said for n in grounded(i, seen)))
    return out


def reads(command: str) -> bool:
    """The command only reads: each part looks (``grep``, ``cat``, ``git log``), moves into
    a folder (``cd repo && rg x``), prints lines of a file (``sed -n 1,80p f``, not
    ``sed -i``), prints a program's usage or a value (``git worktree move --help``,
    ``echo``), or reads what a forge or git holds (``gh run view``, ``git worktree list``),
    and none writes its output into a file, as agents that read through a shell do. A
    command run wholly in a scratch folder (``cd /tmp/x && git init && …``) is a trial
    outside the project: it changes nothing there."""
    folders = [(p.split() + ["~"])[1].strip("\"'") for p in segments(command)
               if p.split()[0] == "cd"]
    if segments(command)[0].split()[0] == "cd" and SCRATCH.match(folders[0]) and all(
            SCRATCH.match(f) or not f.startswith(("/", "~", "..", "$")) for f in folders[1:]):
        return True
    parts = [p for p in segments(command) if p.split()[0] != "cd"]
    return bool(parts) and all(not WRITES.search(p) and (
        looks_only(p) or _shows(p.split()) or (p.split()[0] == "sed" and not any(
            w.startswith(("-i", "--in-place")) for w in p.split()[1:]))) for p in parts)


def _shows(words: list[str]) -> bool:
    """The part prints and changes nothing: a usage or version, a value, a reading
    subcommand of git, or what CI did through a forge's client (``gh run view``)."""
    program = next((w.rsplit("/", 1)[-1] for w in words if not ASSIGNMENT.match(w)), "")
    rest = words[words.index(next(w for w in words if not ASSIGNMENT.match(w))) + 1:] \
        if program else []
    if any(w in ("--help", "--version") for w in rest) or rest[:1] == ["help"]:
        return True
    if program in PRINTS:
        return True
    if program == "gh":
        return tuple(rest[:2]) in GH_READS
    if program == "git" and rest:
        flags = [w for w in rest[1:] if w.startswith("-")]
        return rest[0] in GIT_SHOWS or (
            rest[0] in ("worktree", "remote", "stash") and rest[1:2] in (["list"], ["-v"], ["show"])
        ) or (rest[0] in ("branch", "tag") and len(flags) == len(rest) - 1 and not any(
            f.startswith(("-d", "-D", "-m", "-M", "-c", "-C", "-f", "--delete", "--move"))
            for f in flags)) or (rest[0] == "config" and bool(
                set(rest[1:]) & {"--get", "--get-all", "--list", "-l"}))
    return False


def items(text: str) -> list[tuple[int, str]]:
    """The items of an answer, each with the number of the part it belongs to: the
    top-level items of one list (nested lines joined) share a part, each sentence of a
    paragraph is a part of its own; headings, table rows, fenced code and lead-ins ending
    in a colon are left out."""
    return [(n, item) for n, item, _, _ in led(text)]


def led(text: str) -> list[tuple[int, str, str, bool]]:
    """``items`` with the lead-in each list item is under ("" for none): the sentence
    ending in a colon right before its list; and whether the item is a list's."""
    out: list[tuple[int, str]] = []
    leads: dict[int, str] = {}
    lists: set[int] = set()  # the parts that are lists
    current: list[str] | None = None
    fenced = False
    part = 0
    listed = False  # the last line kept was a list item: a new item continues its list
    qualified = False  # the lead-in of the list holds its items to a case ("For X:")
    lead = ""  # the last line of prose

    def close() -> None:
        nonlocal current
        if current:
            out.append((part, _joined(current)))
            lists.add(part)
        current = None

    shown = -1  # the sentence right before: a statement ending in a colon shows its code
    for line in text.split("\n"):
        if FENCE.match(line):
            if not fenced and 0 <= shown == len(out) - 1 and out[shown][1].endswith(":"):
                # "`AutoCommitStrategy` only implements `PrePush` (auto_commit.go:113):" over
                # the code that shows it: a statement, with its evidence below
                number, said = out[shown]
                out[shown] = (number, said[:-1].rstrip() + ".")
            fenced = not fenced
            close()
            shown = -1
            continue
        if line.strip() and not fenced:
            shown = -1
        if fenced or HEADING.match(line) or TABLE.match(line):
            close()
            listed = False
            lead = ""
            continue
        if not line.strip():
            continue
        if ITEM.match(line):
            close()
            if not listed:
                part += 1
                bare = EMPHASIS.sub("", lead).rstrip()
                qualified = bare.endswith(":") and bool(CASE.match(bare) or CASE_END.search(bare))
                if out and out[-1][1].endswith(":") and lead:
                    leads[part] = out[-1][1]
            listed = True
            current = None if qualified else [MARKER.sub("", line, count=1).strip()]
        elif current is not None and NESTED.match(line):
            current.append(MARKER.sub("", line, count=1).strip())
        elif listed and qualified and NESTED.match(line):
            continue
        else:
            close()
            listed = False
            lead = line.strip()
            for sentence in SENTENCE_END.split(line.strip()):
                part += 1
                out.append((part, sentence.strip()))
            shown = len(out) - 1
    close()
    cleaned = [(n, _clean(item), _clean(leads.get(n, ""))) for n, item in out]
    return [(n, item, lead, n in lists) for n, item, lead in cleaned
            if item and (not item.endswith((":", "：")) or ": " in item[:-1])]


def _clean(text: str) -> str:
    """Emphasis off, spaces folded, a leading "However," or "So" dropped."""
    text = " ".join(EMPHASIS.sub("", text).split())
    bare = CONNECTIVE.sub("", text, count=1)
    return bare[:1].upper() + bare[1:] if bare != text else text


def _joined(lines: list[str]) -> str:
    head, rest = lines[0], lines[1:]
    if not rest:
        return head
    return head + (" " if head.endswith(":") else "; ") + ", ".join(rest)


def grounded(item: str, seen: str, hyphenated: bool = True) -> tuple[str, ...]:
    """The names an item states (code spans, identifiers, paths; with ``hyphenated``, the
    hyphenated words that what was read holds as names) that occur in what the agent
    read."""
    spans = [m.group(1).strip("()") for m in CODE_SPAN.finditer(item)]
    if spans and PLACEHOLDER.match(spans[0]):
        return ()  # "`<state>` is: …": a part of a template the lead-in shows
    bare = CODE_SPAN.sub(" ", item)
    names = spans + [m.group(1) for m in IDENT_RE.finditer(bare)] \
        + [m.group(1) for m in PATH_RE.finditer(bare)]
    found = []
    for name in dict.fromkeys(n.rstrip(".,;:") for n in names):
        if len(name) >= MIN_NAME and name in seen:
            found.append(name)
    for name in dict.fromkeys(m.group(1) for m in KEBAB.finditer(bare) if hyphenated):
        if name not in found and _named(name, seen):
            found.append(name)
    return tuple(found)


def _named(word: str, seen: str) -> bool:
    """A hyphenated word ("pre-push", "auto-commit") is a name in what was read when it
    stands there as a literal (quoted, a flag, a path's part) or as an identifier spelled
    without its hyphens (``PrePush``, ``auto_commit``); as a word of prose it proves nothing."""
    literal = re.compile(r"[\"'`/]" + re.escape(word) + r"[\"'`/.]|--" + re.escape(word) + r"\b",
                         re.IGNORECASE)
    if literal.search(seen):
        return True
    joined = word.replace("-", "")
    spelled = re.compile(r"(?<![\w-])" + r"[-_]?".join(re.escape(p) for p in word.split("-"))
                         + r"(?![\w-])", re.IGNORECASE)
    return any(m.group(0).replace("_", "").lower() == joined and "-" not in m.group(0)
               for m in spelled.finditer(seen))


def states(item: str) -> bool:
    """The item states a fact: enough words, no question, no plan, offer or first person,
    no account of the user's own doing, no hedge and no weighing."""
    if len(item.split()) < MIN_WORDS or item.rstrip().endswith(("?", "？", ":", "：")):
        return False
    prose = PLAIN_NAME.sub("x", CODE_SPAN.sub("x", item))
    first = prose.split(None, 1)[0].lower()
    return bool(CLAUSE.search(prose)) and not (
        AGENT.match(prose) or PRONOUN.match(prose) or FIRST_PERSON.search(prose) or WEIGHS.search(prose)
        or USERS_OWN.search(prose)
        or lx.HEDGE.find(words_of(prose), prose)
        or lx.ACTION.find(words_of(first), first))  # "Remove `omitempty` …": advice


def _offers(text: str) -> bool:
    """The answer's last words offer to do the work: its last line is a question of the
    agent's offering to act."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    last = SENTENCE_END.split(EMPHASIS.sub("", lines[-1]).strip())[-1] if lines else ""
    return bool(OFFERS.match(last))


def _question(questions: list[str], item: str) -> str:
    """The question the item answers: all the message asked when it is short, else the
    question sharing most words with the item."""
    every = " ".join(" ".join(questions).split())
    if len(every) <= MAX_QUESTION:
        return every
    words = {w.lower() for w in re.findall(r"\w{4,}", item)}
    best = max(questions, key=lambda q: len(words & {w.lower() for w in re.findall(r"\w{4,}", q)}))
    return _clip(" ".join(best.split()), MAX_QUESTION)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rsplit(" ", 1)[0] + "…"
