"""Questions understood as questions (issue 25): what a question's grammar asks for, and
which memories have the shape of such an answer.

"how do I ..." asks for a procedure, "where is ..." for a place, "which ... do we use" for a
choice the project made, "why does ... fail" for a cause, "who ..." for an owner, "how
many ..." for a measure. A memory holding a command, a path, a rule, an error and its
reason, a team or a number has the shape of one of these answers, whatever its topic. Both sides are read from the grammar and the form of the text (question words,
code spans, paths, a rule's imperative, an exception's name, "because"), never from the
words of any one project, so this knows no tool, product or domain.

The match is a mild prior (QUESTION_FACTOR on the ranking score): it orders answers of
the asked shape before other memories about the same thing, and never makes a memory
relevant (generator/relevance.py does not see it). ``read`` also gives the query without
its English form words, the text search embeds for the meaning layer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from memx_cli.generator.fusion import final_score

if TYPE_CHECKING:
    from memx_cli.generator.candidates import Hit

PROCEDURE, LOCATION, CHOICE, CAUSE = "procedure", "location", "choice", "cause"
OWNER, QUANTITY = "owner", "quantity"

# A memory of the asked shape ranks x QUESTION_FACTOR: enough to order two memories on the
# same subject (their blended scores often differ by a few per cent), too little to lift a
# memory about something else over the one that matches the question's words.
QUESTION_FACTOR = 1.15
# ... among the first QUESTION_WINDOW of the ranking only: it orders the closest answers,
# it does not search the tail (each memory's text is read with up to four patterns, ~12
# us a memory; a fixed window keeps the first k results the same for every --limit k).
QUESTION_WINDOW = 10

# The question's opening, after an optional "so", "and", "ok", "hey": English auxiliaries
# and pronouns are grammar, not vocabulary of a domain. Chinese puts the question word
# where the answer goes, so its pattern may match anywhere in the sentence.
_LEAD = r"^\s*(?:(?:so|and|ok|okay|hey|also|but)\b[\s,]*)?"
# The subject an English question's auxiliary takes when it asks about the asker's own
# work ("how do I", "which ... do we use"): grammar as well, stripped with the opening.
_ASKERS = ("i", "we", "you", "one")
_ASKER = r"(?:\s+(?:" + "|".join(_ASKERS) + r"))?"
# "how many", "how long": a measure, not a way of doing (the adjective stays in the query:
# "how fast" is about speed).
_MEASURE = r"how\s+(?:many|much)\b|how(?=\s+(?:long|often|fast|slow|big|large|small|old|far|" \
           r"soon|frequently|high|low)(?![\w-]))"
_INTENTS: tuple[tuple[str, str], ...] = (
    (CAUSE, _LEAD + r"(?:why\b|what\s+(?:causes|caused|makes|made)\b|how\s+come\b)"
            r"|为什么|为何|什么原因|怎么会|原因是"),
    (OWNER, _LEAD + r"(?:who(?:m|se)?\b(?:\s+(?:do|does|should|can|must)" + _ASKER + r"\b)?)"
            r"|谁"),
    (QUANTITY, _LEAD + r"(?:" + _MEASURE + r")|多少|多久|多长"),
    (LOCATION, _LEAD + r"(?:where\b(?:\s+(?:do|does|is|are|should|can|did)" + _ASKER + r"\b)?"
               r"|in\s+which\s+(?:file|folder|directory|repo|place)\b)"
               r"|哪里|哪儿|在哪|什么地方|什么位置"),
    (PROCEDURE, _LEAD + r"(?:how\s+(?:do|does|can|could|should|would|to|did|shall|must|is|"
                r"are|was|were)" + _ASKER + r"\b"
                r"|what(?:'s|\s+is)\s+the\s+(?:way|command|steps?|procedure)\s+to\b"
                r"|what\s+(?:command|steps)\b)"
                r"|怎么|怎样|如何|咋"),
    # "what" is the opening only when the clause ends on "use" ("what X do we use", "what
    # should specs use"); that ending is the question's form too (_CHOICE_END).
    (CHOICE, _LEAD + r"(?:which\b|what\b(?=\s+(?:[\w-]+\s+){0,3}(?:(?:do|does|did|should|shall"
             r"|must|can)\s+(?:[\w-]+\s+){1,2}use|(?:is|are)\s+used)\b))"
             r"|用什么|用哪|哪个|哪种|哪些|哪一"),
)
# The end of a choice's clause: "... do we use", "... is used"; the subject between stays
# ("does this project use" keeps "this project", "should specs use" keeps "specs").
_CHOICE_END = r"\b(?:do|does|did|should|shall|must|can)\s+((?:[\w-]+\s+){0,2}?)use\b" \
              r"|\b(?:is|are)\s+used\b"


def _may_ask(low: str) -> bool:
    """Whether a lowercased ASCII query holds what every English question word of
    ``_INTENTS`` starts with (why, what, where, which; how)."""
    return "wh" in low or "how" in low


@functools.cache
def _intent_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((name, re.compile(pattern, re.IGNORECASE)) for name, pattern in _INTENTS)


def _asking(query: str) -> tuple[str, re.Match[str]] | None:
    if query.isascii() and not _may_ask(query.lower()):
        return None  # (the patterns' compiling, ~5 ms, only for a query that may ask)
    for name, pattern in _intent_patterns():
        found = pattern.search(query)
        if found:
            return name, found
    return None


def intent(query: str) -> str | None:
    """What the question asks for (PROCEDURE, LOCATION, CHOICE, CAUSE, OWNER, QUANTITY),
    or None. The first of the list that matches: "why does X use Y" asks for a cause, not
    a choice."""
    asking = _asking(query)
    return asking[0] if asking else None


@functools.cache
def _choice_end() -> re.Pattern[str]:
    return re.compile(_CHOICE_END, re.IGNORECASE)


def _subject(end: re.Match[str]) -> str:
    """What a choice's end keeps: its subject, unless that is the asker ("do we use")."""
    subject = (end.group(1) or "").strip()
    return " " if subject.lower() in _ASKERS else f" {subject} "


def read(query: str) -> tuple[str | None, str]:
    """What the question asks for, and the query without its English form words: the
    opening's auxiliary and the asker ("how do I", "where is", "who do I") and a choice's
    "do we use". They are in every question of the kind, and in a static model's averaged
    vector they lean the whole toward any memory saying them ("we use them in CI"), so
    search embeds this text, not the question. (Its words stay searched: there "use" has
    its weight by rarity and finds a rule's "Use pnpm".) The question word stays: to the
    meaning layer it leans toward what answers it ("why" toward a cause); the kind of
    answer is also the prior of ``apply``. A question in another language, or whose form
    is all it says, is kept whole."""
    asking = _asking(query)
    if asking is None:
        return None, query
    asked, found = asking
    if not found.group(0).isascii():
        return asked, query  # Chinese: the question word stands where the answer goes
    rest = query[found.end():]
    if asked == CHOICE:
        rest = _choice_end().sub(_subject, rest)
    rest = " ".join(rest.split())
    if not any(c.isalnum() for c in rest):
        return asked, query
    kept = " ".join(_kept_word().findall(found.group(0)))
    return asked, f"{kept} {rest}" if kept else rest


@functools.cache
def _kept_word() -> re.Pattern[str]:
    """What of the opening stays: the question word, and a past tense's auxiliary (it
    dates what is asked: "where did they move" is about something that happened)."""
    return re.compile(r"\b(?:why|where|whom|whose|who|which|what|how|did|was|were)\b",
                      re.IGNORECASE)


# The shapes of answers, read from a memory's text alone (its kind says little: a policy
# about something else is no answer to "which ... do we use"). Each is a form, not a topic.
# Matched on the lowercased text, each pattern led by a literal character where it can
# be (a backtick, a slash, a dot): a search checks up to ~60 candidates, and patterns
# that try every position cost ~2 ms there.
_SHAPES: dict[str, str] = {
    # a command: a code span with an argument, a code block, a shell prompt, "run `x`"
    PROCEDURE: r"`[^`\n]*[^\s`] +[^\s`][^`\n]*`|^\s*\$ +\S|\b(?:run|type|call) +`",
    # a path or a file name: dir/dir, dir/, /abs, ~/home, name.ext, a URL
    LOCATION: r"[a-z_~.-]/[\w.-]|[a-z_]/(?![\w/])|(?:^|[\s`'\"(])/\w"
              r"|(?<=[\w-]{2})\.[a-z][a-z0-9]{0,4}\b(?!\.)",
    # a rule or a choice: a rule's imperative opening a sentence or a list item, or one
    # thing over another
    CHOICE: r"(?:^|[.;:!] )[\s*-]*(?:use|prefer|always|never|avoid)\b"
            r"|\b(?:instead of|rather than|in favou?r of|replaced by)\b",
    # a cause or a fix: a reason, a failure, a fix (and an exception's name, below)
    CAUSE: r"\b(?:because|caused by|due to|root cause|the fix|fixed by|workaround|otherwise"
           r"|fails?|failing|failed|crash(?:es|ed)?|error)\b",
    # a person or a group: a handle or a channel, or a role that people hold
    OWNER: r"(?:^|[\s(])[@#][a-z]|\b(?:team|owners?|owns|owned by|maintainers?|maintained by"
           r"|on-?call|responsible|ask|request|contact|approv(?:e|es|ed|al|er)|reviewers?)\b",
    # a measure: a number opening a word (not a name's digit: fct_2, v2/), or a count word
    QUANTITY: r"(?<![\w/.-])\d|\b(?:once|twice|one|two|three|four|five|six|seven|eight|nine"
              r"|ten|dozen|hundred|thousand)\b",
}
# An exception's name is capitalised: matched on the text as written.
_EXCEPTION = r"\w(?:Error|Exception|Timeout)\b"


@functools.cache
def _shape_pattern(name: str) -> re.Pattern[str]:
    return re.compile(_SHAPES[name], re.MULTILINE)


@functools.cache
def _exception() -> re.Pattern[str]:
    return re.compile(_EXCEPTION)


def answers(asked: str, text: str) -> bool:
    """Whether ``text`` (a memory's content) has the shape of an answer to ``asked``."""
    if asked == CAUSE and _exception().search(text):
        return True
    return _shape_pattern(asked).search(text.lower()) is not None


# A symptom: what someone sees go wrong, told as a statement ("the nightly export dies
# with OOM", "login returns 500 after deploy", "tests pass locally but fail in CI"). It
# asks for a cause or a fix as "why does ... fail" does, though no question word says so.
# Read from the statement's form: an exception's name, an HTTP status of failure, a
# non-zero exit, or a predicate of malfunction. The predicates are general English for
# something not working (failing, stopping, hanging, being slow, leaking, losing or
# repeating what it should keep once, refusing), written from no project's words.
_FAILING = (
    r"fail(?:s|ed|ing|ures?)?|crash(?:es|ed|ing)?|error(?:s|ed)?|errors? out|exceptions?"
    r"|traceback|stack ?trace|segfault(?:s|ed)?|panic(?:s|ked)?|abort(?:s|ed)?|broken|breaks"
    r"|broke|die[sd]|dying|killed|hang(?:s|ing)?|hung|freez(?:es|ing)|froze(?:n)?|stuck"
    r"|deadlock(?:s|ed)?|unresponsive|time[sd]? ?out|timing out|timeouts?"
    r"|slow(?:er|ly|s|ness)?|sluggish|lag(?:s|gy|ging)?|stutter(?:s|ing)?|jank(?:y)?"
    r"|takes? (?:ages|forever)|leak(?:s|ed|ing)?|oom|out of memory|runs? out of"
    r"|missing|lost|los(?:es|ing)|vanish(?:es|ed|ing)?|disappear(?:s|ed|ing)?|blank"
    r"|nothing happens|does nothing|wrong|incorrect|duplicat(?:e|es|ed|ing)|twice"
    r"|corrupt(?:s|ed|ion)?|garbled|refus(?:e|es|ed|ing)|reject(?:s|ed|ing)?|denied"
    r"|complain(?:s|ed|ing)?|flak(?:y|es|iness)|intermittent(?:ly)?|regress(?:ed|ion)"
    r"|not working|(?:does|do|did|is|are|was|were|can|could|will|would)(?:n't| not) work"
    r"|won't|can't|cannot|unable to|no longer|never (?:show|appear|arrive|run|start|load"
    r"|finish|complete|return|get)s?"
    r"|stop(?:s|ped)? \w+ing"
)
_SYMPTOM = (r"\b(?:" + _FAILING + r")\b"
            # a status of failure ("returns 500", "a 404 response") or a non-zero exit
            r"|\b(?:returns?|returned|returning|status|http|got|gets|throws?|with|an?)"
            r" +[45]\d\d\b|\b[45]\d\d +(?:errors?|responses?|status)\b"
            r"|\bexit(?:s|ed)?(?: with)? (?:code|status) [1-9]|\bnon-?zero exit\b")
# A symptom ranks the memories that read as a pitfall x SYMPTOM_FACTOR, among the first
# QUESTION_WINDOW, as a question's prior does (the same factor: not fitted anew). A
# pitfall gives the reason or the remedy, or tells what went wrong as a symptom is told
# (``pitfall``): the question says what is seen, the memory what was seen and why, and a
# near-miss on the same topic that describes how things are meant to work is neither.
SYMPTOM_FACTOR = QUESTION_FACTOR
_CAUSAL = (r"\b(?:because|causes?|caused|due to|the fix|fix(?:ed|es)? (?:it )?(?:by|with)"
           r"|fix it|workaround|otherwise|so that)\b")


# A symptom is also told by the grammar of something going against expectation, with no
# word for what broke: a concession or a contrast ("the release passed but brew installs
# the old version", "re-uploads even though nothing changed"), a persistence ("keeps
# growing", "kept transferring", "uploaded again", "whenever we release") or an outcome
# nobody saw ("silently accepted"). Function words of any domain. A memory telling of a
# pitfall is written the same way ("the job passed but the formula stayed old"), so both
# sides read it; "still" only in a query, where it is what should have changed and did
# not ("removed customers still appear"); a memory's "still" says what stays as it is.
# "never" is neither: it opens a rule ("never commit a .env file").
_AGAINST = (r"\b(?:but|even though|even if|although|despite|again|silently|whenever"
            r"|every time|keep(?:s|ing)? \w+ing|kept \w+ing)\b")
_AGAINST_ASKED = _AGAINST + r"|\bstill\b"


@functools.cache
def _symptom() -> re.Pattern[str]:
    return re.compile(_SYMPTOM)


@functools.cache
def _against(asked: bool) -> re.Pattern[str]:
    return re.compile(_AGAINST_ASKED if asked else _AGAINST)


def symptom(query: str) -> bool:
    """Whether ``query`` tells of something going wrong: a statement, or a yes/no question
    ("does the export fail on arm?"). A question's own form, read by ``intent``, comes
    first, and a question opening with another question word asks for something else
    ("when did he lose his job?" for a date)."""
    if _asks_else().match(query):
        return False
    low = query.lower()
    return _exception().search(query) is not None or _symptom().search(low) is not None \
        or _against(True).search(low) is not None


@functools.cache
def _asks_else() -> re.Pattern[str]:
    return re.compile(_LEAD + r"(?:when|what|who|whom|whose|which|where|how)\b", re.IGNORECASE)


@functools.cache
def _causal() -> re.Pattern[str]:
    return re.compile(_CAUSAL)


def states_cause(text: str) -> bool:
    """Whether a memory's text gives a cause or a fix: a causal or remedial phrase
    ("because", "caused by", "due to", "fixed with", "workaround"), or an exception's name
    (what the failure is called, with what explains it)."""
    return _exception().search(text) is not None or _causal().search(text.lower()) is not None


@functools.lru_cache(maxsize=4096)
def pitfall(text: str) -> bool:
    """Whether a memory's text reads as a pitfall: it gives a cause or a fix
    (``states_cause``), or it tells of something going wrong in the words and the grammar
    a symptom is told with (a predicate of malfunction, a status of failure, a turn against
    expectation: "the job passed but the formula stayed old"). The predicates' pattern
    costs ~0.1 ms on a memory of a few sentences, so a warm process remembers the answer
    for the memories it has read (the first ten results of a symptom: ~1 ms the first
    time)."""
    if states_cause(text):
        return True
    low = text.lower()
    return _symptom().search(low) is not None or _against(False).search(low) is not None


def apply(hits: list[Hit], query: str) -> list[Hit]:
    """Each hit of the shape the question asks for gets the ``question`` factor (shown by
    --explain); a symptom told as a statement gives the memories that read as a pitfall
    (``pitfall``) the ``symptom`` factor. Re-ranked; unchanged when the query is neither."""
    asked = intent(query)
    if asked is not None:
        return _favour(hits, lambda text: answers(asked, text), "question", QUESTION_FACTOR)
    if symptom(query):
        return _favour(hits, pitfall, "symptom", SYMPTOM_FACTOR)
    return hits


def _favour(hits: list[Hit], shaped: Callable[[str], bool], name: str,
            factor: float) -> list[Hit]:
    for hit in hits[:QUESTION_WINDOW]:
        if shaped(str(hit.doc.get("content", ""))):
            hit.factors[name] = factor
            hit.composite *= factor
            hit.score = final_score(hit.composite)
    hits.sort(key=lambda h: (-h.composite, h.id))
    return hits
