"""KnowledgeScorer (SPEC 3.1): an instructivity score from 0 to 100, and the two labels.

score = 20 + 40 × rule confidence                      (ErrorFix 52 … RepetitiveOp 40)
      + specificity, up to 25: code spans, paths, error names, identifiers, values, tools
      + 8 if it is actionable (says what to do: use, run, set, pin, 改, 設定, ajouter …)
      + 12 if it states cause → effect (because, turned out, 因为, ため, 때문, parce que …,
        or an error together with its fix)
      − 15 if it is very short, − 8 if it hedges (maybe, 可能, たぶん, peut-être),
        − 10 if it names nothing concrete at all.
Candidates below ``ace.reflector.min_score`` (default 30) are dropped by the pipeline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memx_cli.reflector import lexicons as lx
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.names import (
    CODE_SPAN,
    ERROR_NAME_RE,
    IDENT_RE,
    PATH_RE,
    VALUE_RE,
    tools_in,
)
from memx_cli.reflector.rules import RULES
from memx_cli.reflector.vocab import CJK_ANY, HANGUL, words_of

STATED = ("Preference", "Convention", "Decision", "Fact")
TOOL_CONFIG = re.compile(
    r"tsconfig|eslint|prettier|webpack|vite\.config|babel|jest\.config|pytest\.ini|"
    r"pyproject|setup\.cfg|ruff|mypy|tox\.ini|\.editorconfig|Cargo\.toml|golangci|"
    r"pre-commit|\.npmrc|\.nvmrc|Makefile", re.IGNORECASE)
COMPARATIVE = re.compile(r"\b(?:faster|better|simpler|easier|smaller|than)\b|比|より|보다|"
                         r"plus (?:rapide|simple)", re.IGNORECASE)


@dataclass(frozen=True)
class Scored:
    candidate: Candidate
    score: int
    section: str
    type: str


def specificity(text: str) -> int:
    points = 0
    points += 7 if CODE_SPAN.search(text) else 0
    points += 5 if PATH_RE.search(text) else 0
    points += 5 if ERROR_NAME_RE.search(text) else 0
    points += 4 if IDENT_RE.search(text) else 0
    points += 3 if VALUE_RE.search(text) else 0
    points += 4 if tools_in(text) else 0
    return min(points, 25)


def score(candidate: Candidate) -> int:
    text = candidate.text
    words = words_of(text)
    value = 20 + 40 * candidate.confidence
    concrete = specificity(text)
    value += concrete
    if lx.ACTION.find(words, text) or lx.REMEDY.find(words, text):
        value += 8
    if (candidate.error and candidate.fix) or lx.CAUSE_EFFECT.find(words, text) \
            or lx.CAUSE.find(words, text):
        value += 12
    cjk = len(CJK_ANY.findall(text))  # a CJK character says about as much as a short word
    if len(text.strip()) + 2 * cjk + len(HANGUL.findall(text)) < 25:
        value -= 15
    if lx.HEDGE.find(words, text):
        value -= 8
    if concrete == 0:
        value -= 5 if cjk or HANGUL.search(text) else 10
    return max(0, min(100, round(value)))


def classify(candidate: Candidate) -> tuple[str, str]:
    """(section, knowledge type) of a candidate: the rule's default, refined by its words."""
    text = candidate.text
    words = words_of(text)
    rule = candidate.rule
    found = RULES.get(rule)
    if found is None:
        return "general", "knowledge"
    if rule in STATED:
        return found.section, found.type
    if lx.PREFERENCE.find(words, text):
        return "preferences", "preference"
    section, kind = found.section, found.type
    if rule == "ConfigChange":
        if TOOL_CONFIG.search(text):
            section = "tools"
        else:
            for name in ("workflow", "architecture", "patterns"):
                if lx.SECTION_WORDS[name].find(words, text):
                    section = name
                    break
    elif rule == "RepetitiveOp" and CODE_SPAN.search(text) \
            and not lx.SECTION_WORDS["workflow"].find(words, text):
        section = "commands"
    elif rule == "NewTool" and COMPARATIVE.search(text):
        kind = "trick"
    return section, kind


def scored(candidate: Candidate) -> Scored:
    section, kind = classify(candidate)
    return Scored(candidate, score(candidate), section, kind)
