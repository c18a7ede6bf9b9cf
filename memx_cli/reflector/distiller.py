"""BulletDistiller (SPEC 3.1): one kept candidate → one self-contained memory text of at
most ``max_content_length`` characters (cut at a sentence boundary), plus the ``tools``,
``entities`` and ``tags`` the metadata layer of retrieval matches on.

An ErrorFix reads "Error: <what failed>. Fix: <what fixed it>", labelled in the language
of the input, so the memory makes sense without the conversation it came from; a topic
(a commit's title, when neither slot names what it is about) leads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.names import ECOSYSTEM, entities_in, program_of, tools_in
from memx_cli.reflector.rules import RULES

LABELS = {  # error, fix, why
    "en": ("Error", "Fix", "Why"),
    "zh": ("错误", "解决", "原因"),
    "ja": ("エラー", "解決", "原因"),
    "ko": ("오류", "해결", "원인"),
    "fr": ("Erreur", "Correctif", "Cause"),
    "es": ("Error", "Solución", "Causa"),
    "pt": ("Erro", "Solução", "Causa"),
    "de": ("Fehler", "Lösung", "Ursache"),
}
_BULLET = re.compile(r"^\s*(?:[-*+•>]|\d+[.)])\s+", re.MULTILINE)
# "e.g.", "i.e.", "vs.", "cf." end no sentence: a text cut after one ends mid-thought
# ("… such as e.g."), and a body split there is two halves of one sentence
NOT_ABBREVIATION = r"(?<![eE]\.g\.)(?<![iI]\.e\.)(?<!\b[vV]s\.)(?<!\b[cC]f\.)"
_BOUNDARY = re.compile(rf"(?<=[.!?;]){NOT_ABBREVIATION}\s|(?<=[。！？；])")
# a clause inside a sentence: after a comma, a colon or a dash
_CLAUSE = re.compile(r"(?<=[,:，：])\s|\s(?=[—–]\s)")
# the files a commit's fix changed, as ``commit_fix`` appends them to the Fix
CHANGED = re.compile(r"\s*\(changed [^()]*(?:\([^()]*\)[^()]*)*\)\.?$")


@dataclass(frozen=True)
class Draft:
    content: str
    tools: tuple[str, ...]
    entities: tuple[str, ...]
    tags: tuple[str, ...]


# Markdown's bold marks; a glob's "**" (src/**/*.ts, **/*.py) touches a slash and stays
_BOLD = re.compile(r"(?<!/)\*\*(?!/)")


def tidy(text: str) -> str:
    """A line as a memory says it: no bullet, no bold marks, one space between words."""
    text = _BOLD.sub("", _BULLET.sub("", text))
    return " ".join(text.split())


def _end(text: str, lang: str) -> str:
    text = text.rstrip().rstrip(";,:；，：、").rstrip()
    if not text or text[-1] in ".!?。！？…":  # a cut text ends with its ellipsis
        return text
    return text + ("。" if lang in ("zh", "ja") else ".")


def compose(candidate: Candidate) -> str:
    lang = candidate.lang if candidate.lang in LABELS else "en"
    error_label, fix_label, why_label = LABELS[lang]
    colon = "：" if lang in ("zh", "ja") else (" : " if lang == "fr" else ": ")
    fix = tidy(candidate.fix)
    parts: list[str] = []
    if candidate.topic:  # "utils/ipaddr: Render … as "::". Error: …": what it is about
        parts.append(_end(tidy(candidate.topic), lang))
    if candidate.error:
        error = tidy(candidate.error)
        if error.lower().startswith(error_label.lower() + ":"):  # "Error: error: ..." reads badly
            error = error[len(error_label) + 1:].lstrip()
        if candidate.commands and candidate.commands[0] not in error:
            error = f"`{_command(candidate.commands[0])}` — {error}"
        parts.append(_end(error_label + colon + error, lang))
        parts.append(_end(fix_label + colon + fix, lang))
    else:
        parts.append(_end(fix, lang))
    if candidate.cause and tidy(candidate.cause) not in fix:
        parts.append(_end(why_label + colon + tidy(candidate.cause), lang))
    joiner = "" if lang in ("zh", "ja") else " "
    return joiner.join(parts)


MAX_COMMAND = 100  # a long pipeline in the Error slot would leave no room for the fix


def _command(command: str) -> str:
    """A command as the Error slot shows it: one line, at most ``MAX_COMMAND`` characters."""
    line = " ".join(command.split())
    return line if len(line) <= MAX_COMMAND else line[:MAX_COMMAND - 1].rstrip() + "…"


def shorten(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut after the last whole sentence that fits."""
    if len(text) <= limit:
        return text
    cut = 0
    for match in _BOUNDARY.finditer(text, 0, limit):
        cut = match.start()
    if cut >= limit // 3:
        return text[:cut].rstrip()
    space = text.rfind(" ", 0, limit - 1)
    head = text[:space] if space > limit // 2 else text[:limit - 1]
    return head.rstrip() + "…"


def clip(text: str, limit: int) -> str:
    """At most ``limit`` characters of one slot: its whole sentences that fit, else its
    whole clauses (a comma, a colon, a dash) with an ellipsis, else its words."""
    if len(text) <= limit:
        return text
    cut = max((m.start() for m in _BOUNDARY.finditer(text, 0, limit)), default=0)
    if cut >= limit // 3:
        return text[:cut].rstrip()
    cut = max((m.start() for m in _CLAUSE.finditer(text, 0, limit - 1)), default=0)
    if cut >= limit // 3:
        return text[:cut].rstrip(" ,:，：—–") + "…"
    return shorten(text, limit)


def fitted(candidate: Candidate, limit: int) -> str:
    """The composed memory within ``limit`` characters. An Error/Fix pair keeps its Fix:
    cut from the end, a long Error would leave "Error: …" alone. So, when the Fix is
    settled (a fix by its form, not a sentence picked by its place), what gives way is,
    in turn, the files the fix changed (the memory names them among its entities), the
    Why (cut from the end), then the longer of the two slots, at a sentence or a clause:
    an Error no longer than its Fix stays whole and a longer one keeps at least half of
    the room, as long as the Fix keeps its first sentence."""
    text = compose(candidate)
    if len(text) <= limit or not candidate.error or not candidate.settled:
        return shorten(text, limit)
    bare = replace(candidate, fix=CHANGED.sub("", candidate.fix) or candidate.fix)
    text = compose(bare)
    if len(text) <= limit:
        return text
    pair = replace(bare, cause=None)
    need = len(compose(pair))
    if need <= limit:  # the Error and the Fix fit: only the Why is cut
        return shorten(text, limit)
    error, fix = tidy(pair.error or ""), tidy(pair.fix)
    room = limit - (need - len(error) - len(fix))  # for the two slots' own words
    keep = len(error) if len(error) <= len(fix) else max(room - len(fix), room // 2)
    # the Fix keeps its first sentence (what was done) whatever the Error's length
    first = next((m.start() for m in _BOUNDARY.finditer(fix)), len(fix))
    error = clip(error, min(keep, room - min(first, room // 2)))
    fix = clip(fix, room - len(error))
    return shorten(compose(replace(pair, error=error, fix=fix)), limit)


def distill(candidate: Candidate, max_length: int, content: str | None = None) -> Draft:
    """The memory a candidate becomes; ``content`` overrides the composed text (LLM)."""
    text = shorten(tidy(content), max_length) if content else fitted(candidate, max_length)
    programs = tuple(p for p in (program_of(c) for c in candidate.commands) if p)
    tools = tools_in(text + " " + " ".join(programs), candidate.commands)[:8]
    entities = [e for e in entities_in(text) if e.lower() not in tools]
    entities += [f for f in candidate.files if f not in entities]
    found = RULES.get(candidate.rule)
    tags = [found.tag if found else "llm"]
    if found is not None and found.suggests_policy:
        tags.append("policy-suggestion")
    for tool in tools:
        eco = ECOSYSTEM.get(tool)
        if eco and eco not in tags:
            tags.append(eco)
    return Draft(text, tuple(tools), tuple(entities[:12]), tuple(tags[:4]))
