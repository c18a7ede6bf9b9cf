"""What a commit message states by its form (issue 24), before any diff is read.

- A norm: an imperative subject or list item that is a rule ("Do not retry on 4xx
  responses", "Never …", "Always …", "Use X instead of Y", "X must Y") → Convention,
  with the body's reason when it gives one.
- A revert: ``Revert "X"`` (or ``revert: X``) → Decision, with the reason the body gives
  beyond git's own "This reverts commit …" line; with none, what was taken back, unless
  that lands a change again (a revert of a revert, a restore) or is a chore that names no
  version.
- A reason: a sentence of any commit but a fix (feat, refactor, chore, a bare subject)
  saying why ("because", "caused by", "so that", "to work around") → Decision: the change
  and its why. A fix's cause is read by the fix rule itself.
Squash-merge bodies (the PR's commits as a bullet list) are read item by item; GitHub's
list of commits with their bodies is split into messages of their own (``subcommits``),
which the commit rules read each as a commit (``commit._from_subcommits``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from memx_cli.reflector import outside, routine
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.distiller import NOT_ABBREVIATION
from memx_cli.reflector.names import CODE_SPAN

LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s|^\s{2,}\S")
BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
PR_NUMBER = re.compile(r"\s*\((?:[\w.-]+/[\w.-]+)?#\d+\)\s*$|\s+#\d+\s*$")
# "[tag] ", "type(scope): " or a package path as Go and others write it ("net/http: ",
# "gopls/internal, go/ssa: ")
PREFIX = re.compile(r"^\s*(?:\[[^\]]{1,40}\]\s*)+|^\s*[A-Za-z]+(?:\([^)]*\))?!?:\s*|"
                    r"^\s*[\w.-]+(?:/[\w.-]+)+(?:,\s*[\w./-]+)*:\s+")
PATH_SCOPE = re.compile(r"^\s*([\w.-]+(?:/[\w.-]+)+(?:,\s*[\w./-]+)*):\s+")
# ``Revert "X"``, ``revert: X``, and a typed subject that undoes a quoted one: ``fix: revert,
# "X"``, ``fix: restore "X"`` (restoring what a commit removed is taking it back too); and
# ``Revert X`` unquoted when X names code (``Revert raise `ClientDisconnected` on HTTP``):
# "Revert to 2.1.0" or "Revert changes" names no change taken back
REVERT = re.compile(r'^\s*(?:[A-Za-z]+(?:\([^)]*\))?!?:\s*)?(?:[Rr]evert|[Rr]estore)[,:]?\s+'
                    r'"(.+)"(?:\s*\((?:[\w.-]+/[\w.-]+)?#\d+\))?\s*$|'
                    r'^\s*revert(?:\([^)]*\))?!?:\s*(.+)$|'
                    r'^\s*Revert\s+(?!")([^`]*`[^`]+`.*?)'
                    r'(?:\s*\((?:[\w.-]+/[\w.-]+)?#\d+\))*\s*$')
RESTORE = re.compile(r"^\s*(?:[A-Za-z]+(?:\([^)]*\))?!?:\s*)?[Rr]estore\b")
REVERTS_LINE = re.compile(r"(?i)^\s*this reverts commit [0-9a-f]{7,40}\.?\s*$|"
                          r"^\s*reverts?\s+(?:[\w.-]+/[\w.-]+)?#\d+\s*$|"
                          r"^\s*(?:[-*•]\s*)?revert\s+\"")  # git's line; the subject again
# A rule in the imperative, at the start ("Do not …", "Never …", "Always …") or as a
# modal anywhere ("tests must use X"), or a replacement ("use X instead of Y").
NORM_START = re.compile(r"(?i)^(?:[\w./-]+: )?(?:do not|don't|dont|never|always|prefer)\b")
NORM = re.compile(r"(?i)^(?:[\w./-]+: )?(?:do not|don't|dont|never|always|prefer)\b|"
                  r"\b(?:must(?: not)?|mustn't|should(?: not)?|shouldn't)\s+\w|"
                  # "was never released", "is always empty", "main() always passes": facts
                  r"(?<!was )(?<!were )(?<!is )(?<!are )(?<!has )(?<!have )(?<!had )(?<!been )"
                  r"(?<!be )\b(?:never|always)\s+(?![a-z]+[^s]s\b)\w")
REPLACEMENT = re.compile(r"(?i)\b(?:instead of|rather than)\b")
# A statement of what is ("Node#insert is now a loop instead of recursion"): a verb of
# being before the replacement makes it a fact, not a rule.
COPULA = re.compile(r"(?i)\b(?:is|are|was|were|been|now)\b")
# ... and so is one whose grammatical subject is a thing of the code ("`ClientDisconnect`
# inherits from `OSError` instead of `IOError`"): an order starts with its verb
NAMED_FIRST = re.compile(r"^(?:[\w./-]+: )?(?:`|[A-Za-z_]\w*`|[A-Z][a-z0-9]+[A-Z]\w*\b|"
                         r"[a-z]+_\w+\b|[A-Za-z_]\w*\.\w)")


def is_norm(text: str) -> bool:
    """Whether ``text`` states a rule: a norm, or a replacement in the imperative ("Use X
    instead of Y"), not a statement of what the code now is ("X is now Y instead of Z")."""
    if NORM.search(text):
        return True
    replacement = REPLACEMENT.search(text)
    return bool(replacement and not COPULA.search(text[:replacement.start()])
                and not NAMED_FIRST.match(text))
SENTENCE = re.compile(rf"(?<=[.!?]){NOT_ABBREVIATION}\s+(?=[A-Z`\"'(])")
# An order: a capitalised word that is no closed-class word (pronoun, determiner,
# conjunction, preposition, auxiliary) followed straight by a determiner, "it"/"them" or a
# code span — "Move the Vary handling…", "Add a `(?=/|$)` lookahead…", "Use `x`…" — states
# what the change does (the fix), while a statement starts with its subject ("The regex
# had…").
_CLOSED = """
a an the this that these those it its we our i my you your they their there here he she
his her some any each every no all both either neither one when while if since because as
so but and or yet for on in at by with without from to of into onto after before until
unless although though once now then also only just still even not is are was were be
been being has have had do does did will would can could should may might must shall
what which who whom whose why how where
"""
_DETERMINERS = "a an the this that these those its their our all each every any some no both it them"
CLOSED = frozenset(_CLOSED.split())
DETERMINER = frozenset(_DETERMINERS.split())


def imperative(sentence: str, cased: bool = True) -> bool:
    """Whether ``sentence`` is an order ("Add a lookahead so …"): the fix of a commit, never
    its cause, whatever "so that" it goes on with. ``cased``: the verb is capitalised, as
    a commit's subject is (people typing to an agent often do not: "make the command
    hidden")."""
    words = sentence.strip().split(maxsplit=2)
    # a hyphenated verb is one word ("Lower-case the names", "Re-run the job")
    if len(words) < 2 or not words[0].replace("-", "").isalpha() \
            or (cased and not words[0][:1].isupper()):
        return False
    if words[0].lower() in CLOSED or (len(words[0]) > 6 and words[0].endswith("ly")):
        return False  # "Previously the cache …": an adverb (Apply, Supply are orders)
    if len(words[0]) > 5 and words[0].endswith("ing"):
        return False  # "Reverting the line fails it": a gerund is the subject (Bring …)
    if words[1].lower() in ("that", "which", "who") and words[0].lower().endswith("s") \
            and not words[0].lower().endswith(("ss", "us")):
        return False  # "Tests that install …": a plural noun and its relative clause
    second = words[1]
    return second.lower() in DETERMINER or second.startswith("`")
FOOTER = routine.FOOTER
BREAKING_TRAILER = re.compile(r"^\s*BREAKING[ -]CHANGE:\s*")
FIX_TYPES = frozenset(["fix", "fixes", "fixed", "hotfix", "bugfix"])
MAX_SENTENCE = 300


@dataclass
class Said:
    found: list[Candidate] = field(default_factory=list)
    dropped: list[tuple[str, str, str]] = field(default_factory=list)  # rule, text, why


def unwrap(body: str) -> str:
    """A commit body is hard-wrapped at ~72 columns: join the lines of a paragraph (not
    list items or indented code), so a sentence cut by the wrap stays one sentence."""
    out: list[str] = []
    in_item = False  # the indented lines after a bullet continue that item
    previous = ""
    for line in body.splitlines():
        bullet = bool(BULLET.match(line))
        joins = out and out[-1].strip() and line.strip() and not bullet and (
            not LIST_ITEM.match(line) or in_item or _same_paragraph(previous, line)) \
            and not out[-1].rstrip().endswith(":")
        if joins:
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
        else:
            out.append(line)
            in_item = bullet
        in_item = in_item and bool(line.strip())
        previous = line
    return "\n".join(out)


def _same_paragraph(previous: str, line: str) -> bool:
    """An indented paragraph of prose, wrapped: both lines at the same indentation, the
    first one filled to near the wrap width and not ending a code line ("{", "(")."""
    indent = len(line) - len(line.lstrip())
    return indent >= 2 and len(previous) - len(previous.lstrip()) == indent \
        and len(previous.strip()) >= 40 and len(previous.split()) >= 6 \
        and bool(re.search(r"[\w,;)'\"`.-]$", previous.rstrip()))


SCOPE = re.compile(r"^\s*[A-Za-z]+\(([\w./-]{2,30})\)!?:")
# "powershell: escape …", "fixtures: …": a bare word before the colon that is no kind of
# change (Conventional Commits' types and the common others) names the part changed
AREA = re.compile(r"^\s*([a-z]{2,30})!?:\s+")  # as PREFIX takes it off
# Conventional Commits types and subject tags of housekeeping: what they change is the
# project's plumbing (its docs, tests, CI, formatting), not a behaviour of what it ships.
HOUSEKEEPING = frozenset([
    "docs", "doc", "test", "tests", "testing", "chore", "ci", "build", "style", "refactor",
    "release", "deps", "dep", "typo", "typos", "lint", "wip", "revert", "merge", "format",
    "fmt", "cleanup"])
KINDS = HOUSEKEEPING | frozenset([
    "feat", "feature", "features", "fix", "fixes", "fixed", "hotfix", "bugfix", "perf",
    "security", "breaking", "enhancement", "improvement", "update", "add", "remove", "change",
    "misc", "bug", "bugs", "deprecate", "deprecation", "deprecations", "removal"])
# gitmoji's ":bug: " and ":sparkles: " written as a shortcode
SHORTCODE = re.compile(r"^\s*(?::[a-z0-9_+-]{1,40}:\s*)+")


def without_emoji(message: str) -> str:
    """The message with its subject's leading emoji taken off ("🐛 fix(run): …",
    ":sparkles: feat: …", "♻️ refactor: …"): a gitmoji marks the kind of change, as a
    Conventional Commits type does, and hides that type (and a "Fix …") from every rule
    that reads the subject's start. Symbols, their variation selectors and joiners go;
    a subject that is all symbols stays as written."""
    subject, newline, rest = message.lstrip().partition("\n")
    text = SHORTCODE.sub("", subject)
    start = 0
    while start < len(text) and (text[start].isspace() or unicodedata.category(text[start])
                                 in ("So", "Sk", "Mn", "Cf")):
        start += 1
    text = text[start:]
    if not text.strip() or text == subject:
        return message
    return text + newline + rest


def core(subject: str) -> str:
    """The subject without its type or tag prefix and its pull request number; a
    Conventional Commits scope stays, as what the subject is about ("legacy: Prefer …")."""
    text = PR_NUMBER.sub("", PREFIX.sub("", subject, count=1)).strip().rstrip(".")
    first = text.split(" ", 1)[0]
    if not re.search(r"[A-Z_.(`]", first[1:]):  # "replaceUrlParam …" keeps its name
        text = text[:1].upper() + text[1:]
    area = AREA.match(subject)
    scope = SCOPE.match(subject) or PATH_SCOPE.match(subject) or (
        area if area and area.group(1) not in KINDS else None)
    return f"{scope.group(1)}: {text}" if scope and text else text


def led(head: str, said: str) -> str:
    """``said`` led by the title ``head`` ("Title: what the body says"); when ``said``
    begins with the title's words (a changelog entry or a body written from the subject:
    "Catch X in the pool, so …"), the title is not said twice, and a scope the title has
    and ``said`` lacks still leads it ("css: " + "Minify …")."""
    head = head.rstrip(".:;, ")
    if not said:
        return head
    words = re.findall(r"\w+", said.lower())
    scope, _, rest = head.partition(": ")
    for lead, title in ((head, ""), (rest, f"{scope}: ") if rest else ("", "")):
        title_words = re.findall(r"\w+", lead.lower())
        if len(title_words) >= 2 and words[:len(title_words)] == title_words:
            return f"{title}{said}"
    return f"{head}: {said}"


def is_fix(subject: str) -> bool:
    """A fix commit: ``fix:``/``fix(x):``, or "Fix …" after a package path ("net/http: fix
    …") or a tag."""
    kind = re.match(r"^\s*([A-Za-z]+)(?:\([^)]*\))?!?:", subject)
    if kind:  # "docs: fix a link" is a docs commit
        return kind.group(1).lower() in FIX_TYPES
    rest = PREFIX.sub("", subject, count=1)
    return rest != subject and bool(re.match(r"(?i)fix(?:es|ed)?\b", rest.strip()))


def sentences(body: str) -> list[str]:
    """The body's sentences, each list item on its own, footers, rules and indented code
    blocks left out."""
    return list(_sentences(body))


def placed(body: str) -> list[tuple[int, str]]:
    """The body's sentences (``sentences``), each with the number of the paragraph it is
    in (a list item is a paragraph of its own, numbered below zero)."""
    return list(_placed(body))


def _sentences(body: str) -> tuple[str, ...]:
    return tuple(sentence for _, sentence in _placed(body))


@lru_cache(maxsize=16)
def _placed(body: str) -> tuple[tuple[int, str], ...]:
    # one commit's body is read by several rules and by the lesson value of each candidate
    out: list[tuple[int, str]] = []
    paragraph = 0
    for line in unwrap("\n".join(without_code_blocks(body.splitlines()))).splitlines():
        line = BREAKING_TRAILER.sub("", line)  # what users must now do: prose for them
        if FOOTER.match(line) or REVERTS_LINE.match(line) or not line.strip():
            continue
        paragraph += 1  # unwrapped, a paragraph is a line
        number = -paragraph if BULLET.match(line) else paragraph
        text = BULLET.sub("", line).strip()
        out.extend((number, _clipped(s.strip())) for s in SENTENCE.split(text)
                   if routine.real_statement(s))
    return tuple(out)


# where a sentence too long to keep may end: after a clause ("…, so it had drifted: eleven
# subcommands (…) were missing, several …")
CLAUSE_END = re.compile(r"[,;:](?=\s)|\s[-–—]\s")
GRACE = 60  # characters past MAX_SENTENCE a sentence's clause may run to end


def _clipped(sentence: str) -> str:
    """A sentence over ``MAX_SENTENCE`` characters, ended at a clause: the one running
    past the limit when it ends within ``GRACE`` characters (the sentence itself, when it
    does: "… - causing repeated setups of expensive higher-scoped fixtures."), else the
    last one that fits in its second half; else cut at the limit. A clause cut in the
    middle says half a thing ("several environment-variable defaults.")."""
    if len(sentence) <= MAX_SENTENCE:
        return sentence
    if len(sentence) <= MAX_SENTENCE + GRACE:
        return sentence
    later = CLAUSE_END.search(sentence, MAX_SENTENCE, MAX_SENTENCE + GRACE)
    ends = [m.start() for m in CLAUSE_END.finditer(sentence, MAX_SENTENCE // 2, MAX_SENTENCE)]
    end = later.start() if later else ends[-1] if ends else None
    if end is None:
        return sentence[:MAX_SENTENCE]
    return sentence[:end].rstrip() + "."


# A sentence that leans on the one before it: "This broke …", "Winget therefore did not
# fire": alone it says why about nothing.
LEANS = re.compile(r"^(?:This|That|These|Those|It|Its|They|Their|So|Thus|Hence|Therefore|"
                   r"Accordingly|As a result)\b|\b(?:therefore|thus|hence|accordingly)\b")
# a sentence that goes on against the one before: what still works, what to do instead
CONTRAST = re.compile(r"^(?:But|However|Instead|Yet)\b")


# A line of code quoted in a body: a // comment, an arrow function, a statement's end
# (``;``, ``{``, ``}``), or a shell command list (``cd x && go mod tidy``, ``a || b``).
CODE_LINE = re.compile(r"(?:^|\s)//\s|[;{}]\s*$|=>")
SHELL_LIST = re.compile(r"\S\s+(?:&&|\|\|)\s+\S")


FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")
# a shell prompt opening a line ("$ pipx install black"): a command typed and, up to the
# next blank line, what it printed
PROMPT = re.compile(r"^\s{0,3}\$ +[A-Za-z./_-]")
HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)


def without_code_blocks(lines: list[str]) -> list[str]:
    """A body's lines without its code blocks (four spaces or a tab after a blank line, as
    git and Markdown write a quoted snippet, or fenced by ``` or ~~~): a reproducer, a
    command's output or a patch is no sentence; nor is a line opening with a shell prompt
    ("$ cmd") and the lines after it up to a blank line. A pull request template's HTML comments
    ("<!-- Why is this change being made? -->") are no part of what its author wrote."""
    if any("<!--" in line for line in lines):
        lines = HTML_COMMENT.sub("", "\n".join(lines)).split("\n")
    out: list[str] = []
    in_block = prompted = False
    fenced = ""  # the fence a block opened with, until the same closes it
    for line in lines:
        fence = FENCE.match(line)
        if fenced or fence:
            if fence and not fenced:
                fenced = fence.group(0).strip()[:3]
            elif fence and line.strip().startswith(fenced):
                fenced = ""
            continue
        indented = line.startswith(("    ", "\t")) and bool(line.strip())
        if PROMPT.match(line) or (prompted and line.strip()):
            prompted = True
            continue
        prompted = False
        if indented and (in_block or not out or not out[-1].strip()):
            in_block = True
            continue
        in_block = in_block and not line.strip()
        out.append(line)
    return out


def code_like(sentence: str) -> bool:
    """Whether a body "sentence" is a quoted line of code, neither a cause nor a fix."""
    return bool(CODE_LINE.search(sentence.strip())
                or SHELL_LIST.search(CODE_SPAN.sub("``", sentence)))  # "`a && b`" is prose


def reasons_of(told: list[str], head: str = "", paragraphs: list[int] | None = None) -> list[str]:
    """The sentences of ``told`` that say why, each with the sentence before it when it
    leans on that one or goes on against it ("However, we only do this for …"; unless
    that one is a reason already kept or the subject again), and with the sentence after
    it when that one carries it on (``carried_on``; ``paragraphs``: the paragraph of each
    sentence, as ``placed`` numbers them)."""
    out: list[str] = []
    title = head.lower().rstrip(". ")
    for n, sentence in enumerate(told):
        if not routine.gives_cause(sentence):
            continue
        before = told[n - 1] if n else ""
        if before and (LEANS.search(sentence) or CONTRAST.match(sentence)) and before not in out \
                and not (title and title in before.lower()):
            sentence = f"{before.rstrip()} {sentence}"
        after = carried_on(told, n, paragraphs) if paragraphs else ""
        if after and not routine.gives_cause(after) and len(sentence) + len(after) < CARRIED:
            sentence = f"{sentence.rstrip()} {after}"
        out.append(sentence)
    return out


CARRIED = 400  # a reason and the sentence that carries it on, at most
SHORT_ORDER = 12  # words: a paragraph of one order after the problem's ("Cast to int64 …")


def carried_on(told: list[str], n: int, paragraphs: list[int], code_alone: bool = False) -> str:
    """The sentence after ``told[n]`` when it carries that one on, "" otherwise: in the
    same paragraph, it leans on it or goes on against it ("Their valid UTF-8 encodings …
    were passed through", "But …"), or it closes the paragraph naming code and pointing
    back ("Switching to ``lint.extend-select`` makes them apply again."; ``code_alone``:
    naming code is enough, as what to use instead of an outside thing: "`fileURLToPath`
    is correct on all platforms."); or it is the next paragraph, one short order ("Cast
    to int64 before multiplying."): what the change does about what the sentence said. A
    list item (a squash merge's commit) carries nothing on."""
    if n + 1 >= len(told) or min(paragraphs[n], paragraphs[n + 1]) < 0:
        return ""
    after, here, there = told[n + 1], paragraphs[n], paragraphs[n + 1]
    if there == here and (LEANS.search(after) or CONTRAST.match(after)):
        return after  # in the next paragraph, "That …" may mean something said before
    closes = there == here and (n + 2 >= len(told) or paragraphs[n + 2] != here)
    back = code_alone or bool(POINTS_BACK.search(" ".join(after.split()[:POINTING])))
    if closes and back and CODE_SPAN.search(after):
        return after
    alone = there == here + 1 and (n + 2 >= len(told) or paragraphs[n + 2] != there)
    return after if alone and len(after.split()) <= SHORT_ORDER and _bare_order(after) else ""


# a pronoun among a sentence's first words points back to what the one before said
POINTS_BACK = re.compile(r"(?i)\b(?:it|them|they|this|these|those)\b")
POINTING = 8


def _bare_order(sentence: str) -> bool:
    """An order whose verb is followed by no determiner ("Cast to int64 before …", "Log
    warnings after …"): its first word is capitalised, no closed-class word and in the
    base form (no -s, -ed, -ing or -ly), its second no verb of being."""
    words = sentence.split()
    first = words[0] if words else ""
    if len(words) < 3 or not first.isalpha() or not first[:1].isupper() \
            or first.lower() in CLOSED:
        return False
    lower = first.lower()
    if lower.endswith(("ed", "ing", "ly")) or (lower.endswith("s") and not lower.endswith(("ss", "us"))):
        return False
    return words[1].lower() not in CLOSED or words[1].lower() in ("to", "on", "in", "for", "with")


def read(message: str, lang: str, news: str = "") -> Said:
    """What the message states: a revert and its reason, a norm (the subject, or an item
    of a squash merge's list of commits) with its why, a change and its reason. ``news``:
    the entry the commit adds to a changelog for users, the why of a norm its body does
    not explain."""
    said = Said()
    lines = message.strip().splitlines()
    if not lines:
        return said
    subject, body = lines[0], "\n".join(lines[1:]).strip()
    # a quoted command or line of code says no why ("(cd x && echo 'skipping because …')")
    kept = [(n, s) for n, s in placed(body) if not code_like(s)]
    told = [s for _, s in kept]
    reasons = reasons_of(told, core(subject), [n for n, _ in kept])
    reverted = REVERT.match(subject)
    if reverted:
        what = core(next((g for g in reverted.groups() if g), ""))
        done = "Restored" if RESTORE.match(subject) else "Reverted"
        text = f'{done} "{what}"' + (f": {' '.join(reasons[:2] or told[:1])}"
                                         if told else ".")
        unsaid = "" if told else _unsaid_revert(what, subject)
        if unsaid:
            said.dropped.append(("Decision", text, unsaid))
        else:  # its why, or, with none, what was taken back: "X" no longer holds
            said.found.append(_stated("Decision", text, lang))
        return said
    head = core(subject)
    # a squash merge's list item is one commit: its first sentence is that commit's subject
    items = [SENTENCE.split(BULLET.sub("", line).strip())[0]
             for line in unwrap(body).splitlines() if BULLET.match(line)]
    # a fix's "return 404 instead of 500" is its fix: only an imperative rule counts there
    norm = NORM_START.search if is_fix(subject) else is_norm
    for rule_text in [head, *items]:  # the subject, or one of a squash merge's commits
        if norm(rule_text) and routine.real_statement(rule_text):
            # the subject's reason, else the body's first sentence: what follows a rule
            # explains it; a list item is one commit of a squash merge, whole in itself:
            # another item's sentence is no reason of it
            why = "" if rule_text != head else next((r for r in reasons if r != rule_text),
                                                    told[0] if told else news)
            text = led(rule_text.rstrip("."), why) if why else rule_text.rstrip(".") + "."
            if rule_text != head and outside.named(head, frozenset()) \
                    and not _restates(head, rule_text):
                # one commit of a pull request whose title names the platform, version or
                # tool it was for: that is the rule's context ("Support Python 3.13: Use
                # `exc_type_str` instead of …"); "Tidy the pane options" adds nothing
                text = f"{head.rstrip('.')}: {text}"
            said.found.append(_stated("Convention", text, lang))
            return said
    if is_fix(subject) or not routine.real_statement(head):
        return said
    # every reason of the body, not only its first paragraph's: explanatory histories keep
    # their why deep in the body (the real-world dev set: recall 0.44 -> 0.51 on pytest)
    if routine.gives_cause(head):
        said.found.append(_stated("Decision", head + ".", lang))
    elif reasons:
        said.found.append(_stated("Decision", led(head, " ".join(reasons[:2])), lang))
    return said


# GitHub's squash merge lists the pull request's commits as "* title", each with its body
# after a blank line, and closes the list with a rule before the co-authors
SUBCOMMIT = re.compile(r"^\* (?=\S)")
SQUASH_RULE = re.compile(r"^-{9}\s*$")


def subcommits(message: str) -> list[str]:
    """The commits a squash merge's body lists, each as a message of its own (its title,
    a blank line, its body), when at least one of them has a body; [] for any other body
    (a list of titles is read item by item, a Markdown list is no list of commits: the
    subject names the pull request, "(#123)", or the body closes with GitHub's rule)."""
    lines = message.strip().splitlines()
    body = lines[1:]
    starts = [n for n, line in enumerate(body) if SUBCOMMIT.match(line)]
    if not starts or not (PR_NUMBER.search(lines[0])
                          or any(SQUASH_RULE.match(line) for line in body[starts[0]:])):
        return []
    out: list[str] = []
    bodied = False
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(body)
        chunk = body[start:end]
        rule = next((n for n, line in enumerate(chunk) if SQUASH_RULE.match(line)), len(chunk))
        chunk = chunk[:rule]
        told = [line for line in chunk[1:] if line.strip() and not FOOTER.match(line)]
        bodied = bodied or (len(chunk) > 2 and not chunk[1].strip() and bool(told))
        out.append("\n".join([SUBCOMMIT.sub("", chunk[0]).strip(), *chunk[1:]]).strip())
        if rule < end - start:
            break
    return out if bodied else []


def _unsaid_revert(what: str, subject: str) -> str:
    """Why a revert that gives no reason teaches nothing ("" when it does: the change it
    names was taken back, which a reader of the code cannot see). A revert of a revert, or
    a restore, lands the change again (its own commit says what it is); a chore taken back
    that names no version ("pre-commit autoupdate") leaves nothing to know; a subject with
    no words names nothing."""
    if REVERT.match(what) or RESTORE.match(subject):
        return "a revert of a revert: the change lands again"
    if not routine.real_statement(what):
        return "a revert that names no change"
    if routine.routine(what, [], {}) and not routine.VERSION.search(what):
        return "a revert of a chore that names no version"
    return ""


def _restates(head: str, item: str) -> bool:
    """The list item says what the subject says (a squash merge's first commit, titled as
    the pull request): most of its words are the subject's."""
    words = {w for w in re.findall(r"\w+", item.lower()) if w not in CLOSED}
    title = set(re.findall(r"\w+", head.lower()))
    return not words or len(words & title) * 2 >= len(words)


def _stated(rule: str, text: str, lang: str) -> Candidate:
    return Candidate(rule, 1, 1, lang, text, veracity="stated")
