"""The ErrorFix rule: a fix commit's problem and fix, read from its message (SPEC 6).

The subject says what was fixed; the body's sentences are sorted into the failure (its
cause, told first), the fix (an order, "the fix …") and the fix's own reason; how the
fix was checked (a test failing on the old code, "I ran the suite") is neither. A fixed
bug whose message names no failure, cause or reason teaches nothing (the code says as
much).
"""

from __future__ import annotations

import re

from memx_cli.reflector import commit_message as msg
from memx_cli.reflector import lexicons as lx
from memx_cli.reflector import routine
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.commit_fact import HOUSEKEEPING
from memx_cli.reflector.names import CODE_SPAN, IDENT_RE, PATH_RE
from memx_cli.reflector.signals import Signals, analyse
from memx_cli.reflector.turn import Turn
from memx_cli.reflector.vocab import words_of

FIX_SUBJECT = re.compile(r"^\s*(?:(?:fix|fixes|fixed|bugfix|hotfix)(?:\([^)]*\))?!?:\s*|"
                         r"(?:fix|fixes|fixed)\s+|(?:修复|修正|修改)(?:\([^)]*\))?[:：]?\s*|"
                         r"corrige[rs]?\s+|correction\s*:?\s+)", re.IGNORECASE)
PLATFORM = routine.PLATFORM
FOOTER = routine.FOOTER


def fix_commit(message: str, subject: str, changed: list[str], lang: str,
                tests_only: bool = False) -> Candidate | None:
    """"fix: <what>" + body → the problem (the body's cause sentences, or the subject when it
    names the failure) and the fix (the body's other sentences, else the subject); the
    changed files last. None when the commit states neither a failure nor a cause nor a
    reason: "Handle malformed URI in the middleware" restates what the code shows."""
    bare = msg.PREFIX.sub("", subject, count=1) if msg.is_fix(subject) else subject
    what = msg.PR_NUMBER.sub("", FIX_SUBJECT.sub("", bare, count=1)).strip()
    if len(what.split()) < 2:  # "Fix linter": one word without its verb names no change
        what = msg.PR_NUMBER.sub("", bare).strip() or what
    what = what[:1].upper() + what[1:]
    body = unwrap("\n".join(line for line in msg.without_code_blocks(
        message.strip().splitlines()[1:]) if not FOOTER.match(line)).strip())
    head = analyse(Turn(1, "text", what))
    rest = analyse(Turn(2, "text", _closed(body))) if body else None
    failed = bool(head.errors or head.error_lines)
    causes: list[str] = []
    fixes: list[str] = []
    reasons: list[str] = []  # the fix's own why: said after the fix, or no failure
    remedied: list[str] = []  # the body's sentences that tell a remedy ("… instead")
    if rest is not None:
        denied = {rest.sentence_of(h.start) for h in rest.deny}
        said = [n for n in range(len(rest.spans)) if routine.real_statement(rest.sentence(n))
                and n not in denied and not msg.code_like(rest.sentence(n))
                and not _pointer(rest.sentence(n))
                and (tests_only or not TEST_ACCOUNT.match(rest.sentence(n)))]
        remedies = {rest.sentence_of(h.start) for h in rest.remedy}
        # the body's first statement of the fix: an order or "the fix …"; a long body
        # goes on with why the fix is so, how it was tested, what was left alone
        done = next((n for n in said if (n in remedies or _order(rest.sentence(n)))
                     and not REPORT.match(rest.sentence(n))), None)
        for number in said:
            sentence = rest.sentence(number)
            # an order ("Add a lookahead so that …") is what the change does, never the cause
            cause = not msg.imperative(sentence) and _states_cause(rest, number)
            if cause and (REPORT.match(sentence)
                          or (not tests_only and CHECKS.search(sentence))):
                continue  # how the fix was checked: a test failing on the old code
            if cause and not _is_failure(rest, number, failed, done):
                # a "because" or "so that" that names no failure is the fix's reason
                # ("It has to happen there, because …"), never the Error
                reasons.append(sentence)
            elif cause:
                causes.append(sentence)
            elif not REPORT.match(sentence):  # "I ran the tests …": how, not what
                fixes.append(sentence)
        # "what happened. what we do now.": a short prose body (not a squash merge's list
        # of commits, not a long essay) puts the problem first and the fix last; when
        # some of its sentences are orders, they are the fix and the others the problem
        if fixes and not causes and 1 < len(said) <= 4 and not any(
                msg.BULLET.match(line) for line in body.splitlines()):
            orders = [f for f in fixes if _stated(f)]
            if orders and len(orders) < len(fixes):
                causes, fixes = [f for f in fixes if f not in orders], orders
            elif orders or _opens_paragraph(body, fixes[-1]):
                causes, fixes = fixes[:-1], fixes[-1:]
            else:  # the last sentence goes on with the problem's paragraph ("Some
                # libraries reject those headers"): all of it is the problem, the title
                # the fix
                causes, fixes = fixes, []
        if causes and done is None and len(said) > 4 and not any(map(now, fixes)):
            # a long body that tells the failure but states no fix (no order, no "the fix
            # …"): its other sentences are more of the problem, the title is the fix
            fixes = []
        # the order first, what was done, then what goes on from it, then what was said
        # before it (a fact it rests on: "The gateway sends the claims under …"); a
        # sentence before the first order or statement of what the code does now, told
        # in the past tense in the body's prose ("`f(0n)` returned a single ':'"), is
        # the problem's story, not the fix
        leads = [n for n, f in enumerate(fixes) if msg.imperative(f) or now(f)]
        if leads:
            place = {rest.sentence(n): n for n in said}
            prose = unwrap("\n".join(_before_list(body)))
            story = [f for f in fixes[:leads[0]] if _past(f) and f[:40] in prose]
            causes = sorted(causes + story, key=place.__getitem__)
            fixes = [fixes[n] for n in sorted(range(len(fixes)), key=lambda n: (
                n not in leads, n < leads[0])) if fixes[n] not in story]
        told = remedied = [rest.sentence(n) for n in said if n in remedies]
        if told and any(f in told for f in fixes):  # "Compare against X instead": the fix,
            fixes = [f for f in fixes if f in told]  # not the attempt it replaced
    # a failure named in the subject needs the body's fix in prose: a squash merge's
    # bullet list of commits ("* Add a test", "* Update CHANGES.md") explains nothing
    explained = failed and any(not msg.BULLET.match(line) and routine.real_statement(line)
                               for line in _before_list(body))
    # a subject alone teaches when it names the platform or the API it is about: that
    # is a fact a newcomer would rediscover ("Ignore `ERR_CLOSED_SERVER` in the scanner")
    concrete = bool(CODE_SPAN.search(what) or PLATFORM.search(what))
    # a title with no body that names the symptom's condition ("use a random port when
    # port is 0"): what broke and when, unless the commit changes tests only (a flaky
    # test's fix changes nothing a user sees)
    conditioned = routine.condition(what) and not tests_only
    if not (causes or explained or concrete or conditioned or routine.gives_reason(body)):
        return None
    if not (causes or explained or concrete or routine.gives_reason(body)):
        fixes = []  # the title alone teaches: a squash merge's list of commits is no fix
    elif _squash(message):
        # a squash merge's list item ("* fix(ci): restrict the workaround …") is one
        # commit's title: not the fix of a subject kept for what it names (a platform, an
        # API), nor, with its body, a second fix beside the one the prose before it states
        prose = "\n".join(_before_list(body))
        told = [f for f in fixes if f.rstrip(".") in prose]
        if told or not (causes or explained or routine.gives_reason(body)):
            fixes = told
    # a fix that does not open with an order, a remedy or what the code does now was
    # picked by its place (the last of a short body, what was left): a guess the memory
    # may lose when it is long; the sentence after an order goes on with it
    settled = not fixes or _stated(fixes[0]) or fixes[0] in remedied
    topic = None
    if causes:
        error: str | None = " ".join(causes[:2])
        fix = " ".join(fixes[:2]) or what
        # the body's cause and fix may not say what the commit is about (its scope, the
        # names in its title): the title leads, or, when the fix is the title, its scope
        if _unnamed(subject, f"{error} {fix}"):
            if fixes:
                topic = msg.core(subject)
            else:
                scope = msg.SCOPE.match(subject) or msg.PATH_SCOPE.match(subject)
                fix = f"{scope.group(1)}: {what}" if scope else what
    else:
        error = what if failed and fixes else None
        # the subject is a title, not a sentence: it leads the body's first one, after
        # its scope ("server: Use a random port …"): what the title is about
        scope = msg.SCOPE.match(subject) or msg.PATH_SCOPE.match(subject)
        title = f"{scope.group(1)}: {what}" if scope and not error else what
        fix = " ".join(fixes[:2]) if error else ": ".join([title.rstrip(".:; "), *fixes[:1]])
    if changed:
        fix = fix.rstrip(".。;； ") + f" (changed {', '.join(changed)})"
    why = next((r for r in reasons if not error or r not in error), None)
    return Candidate("ErrorFix", 1, 1, lang, fix, error, files=tuple(changed), topic=topic,
                     cause=why, settled=settled)


FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")


def _unnamed(subject: str, text: str) -> list[str]:
    """The things the subject names that ``text`` leaves out: its scope ("fix(x):",
    "pkg/path:"), code spans, identifiers, paths and flags."""
    scope = msg.SCOPE.match(subject) or msg.PATH_SCOPE.match(subject)
    named = [scope.group(1)] if scope else []
    rest = msg.PR_NUMBER.sub("", msg.PREFIX.sub("", subject, count=1))
    for kind in (CODE_SPAN, IDENT_RE, PATH_RE, FLAG):
        named += [m.group(1) if kind.groups else m.group(0) for m in kind.finditer(rest)]
    return [n for n in dict.fromkeys(named) if not _starts_a_word(n, text)]


def _starts_a_word(name: str, text: str) -> bool:
    """Whether ``name`` starts a word of ``text`` ("cache" in "caches", not "auth" in
    "Unauthorized"; no pattern compiled a name: a history has thousands)."""
    start = text.find(name)
    while start != -1:
        before = text[start - 1] if start else " "
        if not (before.isalnum() or before in "_.-"):
            return True
        start = text.find(name, start + 1)
    return False


unwrap = msg.unwrap
_ENDS = (".", "!", "?", ":", ";", "。", "！", "？", "：", "；")


def _closed(body: str) -> str:
    """An unwrapped body's lines are its paragraphs and list items: each ends a sentence,
    so a list item is never stitched to the next one ("Use X everywhere * Remove …"), and
    its bullet is no part of a sentence."""
    items = (msg.BULLET.sub("", line).rstrip() for line in body.splitlines())
    return "\n".join(line if not line or line.endswith(_ENDS) else f"{line}."
                     for line in items)


# What the change itself does, said of it ("This commit replaces it with io.ReadAll."):
# the fix, as an order is, never the failure.
THE_CHANGE = re.compile(r"^(?:this|the) (?:commit|change|patch|pr|pull request)\b(?! (?:was|is)\b)",
                        re.IGNORECASE)
# A sentence that only points elsewhere ("See https://… for reference", "See #2119 for
# details"): neither the failure nor the fix.
POINTER = re.compile(r"^(?:see(?: also)?|refer to|for (?:more )?(?:details|reference|context|"
                     r"information)(?: see)?)\b", re.IGNORECASE)


# A commit's title as Conventional Commits write it, with a type they use: a squash
# merge's listed commit ("test(gh-action): add …"; not "disallow: raise an error").
TYPED = re.compile(r"^([a-z]+)(?:\([^)]*\))?!?:\s")
SQUASH_RULE = re.compile(r"^-{9}\s*$")
COMMIT_TYPES = HOUSEKEEPING | msg.FIX_TYPES | {"feat", "feature", "perf"}


def _squash(message: str) -> bool:
    """The body lists the commits of a squash merge: an item that is a typed commit title,
    or the rule GitHub writes under the list before the co-authors (``---------``)."""
    lines = message.strip().splitlines()[1:]
    items = [n for n, line in enumerate(lines) if msg.BULLET.match(line)]
    if not items:
        return False
    return any(_typed(msg.BULLET.sub("", lines[n])) for n in items) or any(
        SQUASH_RULE.match(line) for line in lines[items[0]:])


def _typed(line: str) -> bool:
    """The line is a commit's typed title."""
    typed = TYPED.match(line)
    return typed is not None and typed.group(1) in COMMIT_TYPES


def _order(sentence: str) -> bool:
    """The sentence states the fix: an order, or what this change does."""
    return msg.imperative(sentence) or bool(THE_CHANGE.match(sentence))


def _stated(sentence: str) -> bool:
    """The sentence states the fix: an order, what this change does, or what the code
    does now (``now``). A "because" before a statement of what the code does now is not
    for that the failure: "The other exporters are unaffected because …" stays a reason."""
    return _order(sentence) or now(sentence)


# What the code does since the change, said of it: "now" between a short subject and its
# verb in the present tense ("pipx now passes `uv tool run` a script name only when …",
# "Package validation now checks both separators") or after "is"/"are" ("`x` is now read
# once", "… is now a loop"). A modal ("can now"), a past tense ("now failed") or "now"
# opening the sentence ("Now that …") states no behaviour of the code.
NOW = re.compile(r"^(?:[^\s,;:]+\s+){1,6}?(?:now\s+(?!that\b)[a-z]{2,}s\b|"
                 r"(?:is|are)\s+now\s+[a-z]{2,})")
# A verb in the past tense: what the code did before the change.
PAST = re.compile(r"\b(?:was|were|had|did|used to|[a-z]{3,}ed)\b")


def _past(sentence: str) -> bool:
    """Whether ``sentence`` tells what happened, in the past tense (its code left out)."""
    return bool(PAST.search(CODE_SPAN.sub("``", sentence)))


def now(sentence: str) -> bool:
    """Whether ``sentence`` states what the code does since the change (``NOW``), not
    what it did: the fix as its author saw it, said as a fact."""
    # a test passing now, or CI doing so, is how the fix was checked
    plain = CODE_SPAN.sub("``", sentence)
    return bool(NOW.match(sentence.strip())) and not (
        SYMPTOM.search(plain) or CHECKS.search(plain) or PLUMBING.search(plain))


# A Markdown link's definition ("[rfc9110#challenge]: https://…"): where a label points.
LINK_DEFINITION = re.compile(r"^\[[^\]]+\]:\s*<?(?:https?://|/|#)\S*>?\s*(?:\"[^\"]*\")?\.?$")


def _opens_paragraph(body: str, sentence: str) -> bool:
    """The sentence starts a paragraph of the (unwrapped) body: a line of its own."""
    return any(line.strip().startswith(sentence.strip()[:40]) for line in body.splitlines())


def _pointer(sentence: str) -> bool:
    """The sentence only points to a link or an issue: what is left once the reference
    and the pointing words are gone says nothing; a link's definition says where a
    label points."""
    if LINK_DEFINITION.match(sentence.strip()):
        return True
    if not POINTER.match(sentence) or not routine.ISSUE_REF.search(sentence):
        return False
    left = routine.ISSUE_REF.sub(" ", POINTER.sub(" ", sentence))
    return not re.search(r"(?i)\b(?!(?:for|the|more|details|reference|context|information|"
                         r"here|there|also|and|in|on|at)\b)[^\W\d_]{3,}", left)


def _before_list(body: str) -> list[str]:
    """The prose before a body's first list item: in a squash merge the paragraphs after
    it belong to the listed commits (their bodies, a bot's "for more information, see …"),
    and explain nothing about the subject's failure."""
    lines = body.splitlines()
    first = next((n for n, line in enumerate(lines) if msg.BULLET.match(line)), len(lines))
    return lines[:first]


# A failure's marks beyond the error words: a negated or deviant predicate ("is not valid
# shell", "never matches", "silently drops", "the wrong field").
SYMPTOM = re.compile(r"(?i)\b(?:not|never|no longer|cannot|\w+n't|neither|nor|without|"
                     r"wrong(?:ly)?|incorrect(?:ly)?|invalid|unexpected(?:ly)?|silently)\b")
# A sentence about the change's tests (a test's name, a test run, the suite): in a fix of
# the code, a failure it tells of is the check of the fix ("`TestX` fails without it",
# "`go test ./...` has one failure"), not the failure fixed.
CHECKS = re.compile(r"\bTest[A-Z]\w*|\btest_\w+|\b\w+_test\b|\b[\w-]+ test\s+\.{0,2}/|"
                    r"(?i:\b(?:tests?|suites?|mutation)\b|\bfail(?:s|ed)? (?:it|them|both)\b)")
# The project's own checking: what its CI runs is how a change is checked, not what it does.
PLUMBING = re.compile(r"\b(?:CI|the (?:CI|build|lint(?:er)?|workflow|pipeline))\b")
# A sentence whose subject is the change's test ("The regression ages the shared
# environment …", "Public regressions cover …", "A regression test proves …"): how the fix
# was checked, never the failure or the fix. A regression *in* something is a breakage.
TEST_ACCOUNT = re.compile(r"^(?:(?:the|a|an|this|these|new|public|two|both|one|another|each|"
                          r"added|existing)\s+)*(?:[\w-]+\s+)?regressions?(?:\s+tests?)?\s+"
                          r"(?!(?:in|from|since|was|is|were|are|has|had|that|which|of|"
                          r"introduced|caused)\b)[a-z]+\b", re.IGNORECASE)
# The author's account of their own work ("I ran the suite", "I produced the before and
# after …"): how the change was checked, never what it does.
REPORT = re.compile(r"^I\b(?!\.)")


def _is_failure(sig: Signals, number: int, failed: bool, done: int | None) -> bool:
    """Whether a cause sentence of a fix's body is about the failure: it shows one (error
    evidence, a diagnosis: anywhere in the body), or it comes before the body states its
    fix (the problem is told first), or, in a body that states no fix, it names one by its
    predicate (negated, deviant) or the subject does. Any other "since", "so that" is the
    fix's reason or the author's aside: "It comes from #6053 so that …", "The other
    formats are unaffected because …"."""
    start, end = sig.spans[number]
    sentence = sig.sentence(number)
    if any(start <= h.start < end for h in sig.errors + sig.cause) \
            or any(line in sentence for line in sig.error_lines):
        return True
    if done is not None:
        return number < done
    return failed or bool(SYMPTOM.search(CODE_SPAN.sub("``", sentence)))


def _states_cause(sig: Signals, number: int) -> bool:
    """A sentence about what went wrong: error evidence, a cause, an effect."""
    start, end = sig.spans[number]
    inside = [h for h in sig.errors + sig.cause if start <= h.start < end]
    return bool(inside) or any(ln in sig.sentence(number) for ln in sig.error_lines) or \
        bool(lx.CAUSE_EFFECT.find(words_of(sig.sentence(number)), sig.sentence(number)))

