"""One turn that tells a whole episode by itself (issue 13): "tried A, no luck; tried B,
same; what worked: C" or a traceback with its cause. Read clause by clause: the clauses up
to the last denial are failed attempts (never the lesson), the clauses after it up to the
end of the sentence that says it worked are the lesson; the clauses before the first
attempt are the problem.
"""

from __future__ import annotations

import re

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.lexicons import CONFIRM_ONLY
from memx_cli.reflector.names import CODE_SPAN
from memx_cli.reflector.said import concrete
from memx_cli.reflector.signals import Signals
from memx_cli.reflector.vocab import CJK_ANY, Hit, words_of

_HINT_LINE = re.compile(r"^\s*(?:hint|help|tip|suggestion)\s*:\s*(.*)$", re.I | re.M)
WEAK_REMEDY = frozenset({"otherwise", "or else", "不然", "否则", "sinon"})
CLAUSE_END = re.compile(r"(?<=[.!?;])\s+|[,，;；。！？]\s*|:\s+|：|\n+|\s+(?:→|->|=>|-|–|—)\s+")
# "still", in the languages read: a clause saying the problem goes on
STILL = re.compile(r"(?i)\b(?:still|sigue|siguen|continua|continúa|immer noch)\b|还是|依然|まだ|"
                   r"여전히|똑같|toujours")
BARE_DENIALS = frozenset({"same", "same here", "nope", "no", "still", "nothing", "pareil",
                          "same again", "no change", "rien", "nada", "nichts", "igual"})


def first_sentence(sig: Signals, hits: list[Hit]) -> str | None:
    return sig.sentence(sig.sentence_of(hits[0].start)) if hits else None


def narrative(sig: Signals) -> Candidate | None:
    """A turn that tells a whole episode: failed attempts and what finally worked, or an
    error and its cause or fix."""
    if sig.deny or sig.retry or sig.confirm or sig.success:
        found = _retry_story(sig)
        if found is not None:
            return found
    fixes = sig.cause + sig.remedy + sig.resolved
    if not fixes:
        return None
    if sig.repeat and all(h.phrase in WEAK_REMEDY for h in fixes):
        return None  # "every time ... have to run X, otherwise it fails": a chore
    first_error = min([h.start for h in sig.errors] + [0 if sig.error_lines else len(sig.text)])
    told = sig.error_lines or sig.errors
    paired = any(sig.sentence_of(r.start) == sig.sentence_of(m.start)
                 for r in sig.resolved for m in sig.remedy)
    if not (told and any(h.start >= first_error for h in fixes)) and not paired:
        return None
    fix = _fix_text(sig)
    if not fix or (all(h.phrase == "->" for h in fixes) and not concrete(fix)):
        return None  # "tests are failing -> let's sort this out first": a plan, no fix
    error = sig.key_error or first_sentence(sig, sig.errors)
    if error and error in fix:
        error = None
    return Candidate("ErrorFix", sig.turn.index, sig.turn.last, sig.lang, fix, error,
                     commands=(sig.turn.command,) if sig.turn.command else (),
                     context=sig.text[:1500])


def _fix_text(sig: Signals) -> str:
    hits = sorted(sig.cause + sig.remedy + sig.resolved, key=lambda h: h.start)
    own = " ".join(_sentences(sig, hits, 2))
    if any(h.phrase == "hint" for h in hits):  # a tool's own advice spans its lines
        advice = [m.group(1).strip() for m in _HINT_LINE.finditer(sig.text)]
        own = " ".join(advice[:6]) or own
    return own


def _sentences(sig: Signals, hits: list[Hit], limit: int = 2) -> list[str]:
    """The sentences with these hits; plus the next one after a short sentence or a bare
    cause ("... was caused by libvips 8.14; pinning 8.13 made it go away")."""
    numbers = sig.sentences_of(sorted(hits, key=lambda h: h.start), limit)
    causes_only = bool(hits) and all(h in sig.cause for h in hits)
    if numbers and (len(sig.sentence(numbers[-1])) < 50 or causes_only) \
            and numbers[-1] + 1 < len(sig.spans):
        following = numbers[-1] + 1
        if not sig.is_question(following):
            numbers.append(following)
    return [sig.sentence(n) for n in numbers]


def clauses(text: str) -> list[tuple[int, int]]:
    """Clause spans: sentences cut at commas, colons and arrows too (never inside `code`)."""
    code = [(m.start(), m.end()) for m in CODE_SPAN.finditer(text)]
    spans, start = [], 0
    for match in CLAUSE_END.finditer(text):
        if any(s < match.start() < e for s, e in code):
            continue
        if match.start() > start:
            spans.append((start, match.start()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _retry_story(sig: Signals) -> Candidate | None:
    """"tried A, no luck; tried B, same; what worked: C" → C, without A and B."""
    text = sig.text
    spans = clauses(text)

    def inside(hits: list[Hit], span: tuple[int, int]) -> bool:
        return any(span[0] <= h.start < span[1] for h in hits)

    def bare(span: tuple[int, int]) -> bool:
        words = " ".join(w.text for w in words_of(text[span[0]:span[1]]))
        return words in BARE_DENIALS or _verdict_clause(sig, spans, span)

    denied = [i for i, span in enumerate(spans) if inside(sig.deny, span) or bare(span)]
    if not denied and sig.retry:  # "first attempt failed on X; retrying ... succeeded"
        failing = sig.errors + [Hit("", text.find(ln), text.find(ln) + 1, -1)
                                for ln in sig.error_lines if ln in text]
        first_try = min(h.start for h in sig.retry)
        denied = [i for i, span in enumerate(spans)
                  if inside(failing, span) and span[1] >= first_try]
        denied = denied or [i for i, span in enumerate(spans) if inside(failing, span)
                            and any(h.start >= span[1] for h in sig.retry)]
    if not denied:
        return None
    last = denied[-1]
    success = sig.confirm + sig.success
    after = [i for i in range(last + 1, len(spans)) if inside(success, spans[i])]
    if not after:
        return None
    fixes = sig.remedy + sig.cause
    while last + 1 < after[0] and not inside(fixes, spans[last + 1]) and (
            STILL.search(text, *spans[last + 1]) or inside(sig.errors, spans[last + 1])
            or len(words_of(text[spans[last + 1][0]:spans[last + 1][1]])) <= 2):
        last += 1  # "no luck, still OOM, just later": the failure goes on
    sentence_end = sig.spans[sig.sentence_of(spans[after[0]][0])][1]
    fix = text[spans[last + 1][0]:max(sentence_end, spans[after[0]][1])].strip()
    start = denied[0]
    if start > 0 and bare(spans[start]):
        start -= 1  # "raised the timeout to 120 s: nothing": the clause before is the try
    while start > 0 and inside(sig.retry, spans[start - 1]) \
            and not inside(sig.deny, spans[start - 1]):
        start -= 1
    problem = text[spans[0][0]:spans[start - 1][1]].strip() if start > 0 else None
    if problem and (problem in fix or len(problem) > 300):
        problem = None
    return Candidate("RetrySuccess", sig.turn.index, sig.turn.last, sig.lang, fix,
                     problem, failed=len(denied), context=text[:1500])


PLAIN = re.compile(r"^[^\W\d_]+(?:[\s'’][^\W\d_]+)*[.!。！]?\s*$")  # words only: no values
VERDICT_MARK = re.compile(r"(?:[:：]|\s[—–-])\s*$")


def _verdict_clause(sig: Signals, spans: list[tuple[int, int]], span: tuple[int, int]) -> bool:
    """"régénéré le certificat : aucun changement": a clause of one to three words set after
    a try by a colon or a dash, saying nothing of success, fix or cause, is how that try
    ended — and in a story that says later what worked, it did not work."""
    number = spans.index(span)
    said = sig.text[span[0]:span[1]]
    if number == 0 or sig.error_lines or sig.turn.command or not PLAIN.match(said):
        return False  # a log's "with:" / "python-version: 3.7" lines are no verdicts
    size = len(words_of(said)) if not CJK_ANY.search(said) else len(said.strip()) // 3
    if not VERDICT_MARK.search(sig.text[spans[number - 1][1]:span[0]]):
        return False
    good = sig.confirm + sig.success + sig.resolved + sig.remedy + sig.cause
    return 1 <= size <= 3 and not any(span[0] <= h.start < span[1] for h in good) \
        and not CONFIRM_ONLY.find(words_of(said), said) and "?" not in said
