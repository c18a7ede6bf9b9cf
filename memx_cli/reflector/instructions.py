"""Rules written into an agent's instruction file during a session (issue 24).

When a user has the agent write a rule into ``CLAUDE.md``, ``AGENTS.md``, ``GEMINI.md``,
``.github/copilot-instructions.md`` or a file under ``.cursor/rules/`` (at any depth), the
rule is the team's convention in the file's own words. Read from the structure of the
calls, not from what anyone says about them:

- an edit tool call (``Edit``/``Write``/``MultiEdit``…) on such a file, whose result the
  tool accepted (``Turn.applied``): a call the user turned down or the tool refused
  writes nothing;
- each line the edit adds (in its new text and not in the text it replaces) that is a
  bullet or a sentence: not a heading, a table row, a line inside a code fence or a line
  of code; markdown emphasis, links and list markers are dropped;
- and that states a rule: a word of obligation, habit or prohibition (must, should,
  always, never, don't, avoid, prefer, make sure…). Instruction files also describe the
  code ("Creates a shadow branch per commit", "`pkg/x`: the helpers"); such a line is no
  rule, nor is an imperative without such a word ("Run `make test`"), which is missed;
- a line a later accepted edit of the same file takes out again does not stand;
- an edit that adds more than ``MAX_PER_EDIT`` such lines writes a document (an ``/init``
  overview, a whole file rewritten), not a rule, and gives none; a session gives at most
  ``MAX_RULES``, each once.
"""

from __future__ import annotations

import re

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.knowledge import HABIT
from memx_cli.reflector.turn import Turn
from memx_cli.reflector.vocab import Lexicon, phrases, words_of

# The files agents read their instructions from, by name wherever they lie.
NAMED = re.compile(r"(?:^|/)((?:CLAUDE|AGENTS|GEMINI)\.md|\.cursorrules|"
                   r"\.github/copilot-instructions\.md|\.cursor/rules/[^/]+(?:/[^/]+)*)$",
                   re.IGNORECASE)
MAX_PER_EDIT = 4
MAX_RULES = 5
MAX_PENDING = 16
MIN_WORDS = 4
MAX_LINE = 300
FENCE = re.compile(r"^\s*(?:```|~~~)")
HEADING = re.compile(r"^\s*(?:#{1,6}\s|#{1,6}$|[=-]{3,}\s*$|\|)")
BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?")
LINK = re.compile(r"\[([^\]\n]+)\]\([^)\n]*\)")
EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])")
# A line of code rather than prose: it opens or closes a block, ends a statement, is a
# shell prompt or a markup tag.
CODE = re.compile(r"^\s*(?:[$>]\s|<[/!?\w]|[{}\[\]();]|//|/\*)|[{;]\s*$|^\S+\s*[:=]\s*\S*$")
WORD = re.compile(r"[^\W\d_]{2,}")
# What makes a line a rule rather than a description of the code ("Creates a branch per
# commit", "`pkg/x`: the helpers"): a word of obligation, habit or prohibition. Closed-class
# words of modality, not phrases of any one project.
MODAL = Lexicon(phrases("""
must; must not; should; should not; shouldn't; need to; needs to; required; requires that;
make sure; ensure; avoid; prefer; only ever; do not; don't; never; always; no longer use
必须; 禁止; 应该; 必ず; してはいけない; 하지 마; 해야; doit; doivent; ne jamais; muss; müssen;
debe; deben; deve; devem
""") + list(HABIT.phrases))


def instruction_file(path: str) -> str | None:
    """How a path names an agent instruction file ("CLAUDE.md", "docs/AGENTS.md"), or None."""
    found = NAMED.search(path.replace("\\", "/"))
    if found is None:
        return None
    return found.group(1) if path.startswith("/") else path


def rule_lines(old: str, new: str) -> list[str]:
    """The rule lines ``new`` adds to ``old``, markup dropped."""
    before = {" ".join(line.split()) for line in old.splitlines()}
    out: list[str] = []
    fenced = False
    for line in new.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or " ".join(line.split()) in before or HEADING.match(line):
            continue
        bullet = BULLET.match(line)
        text = line[bullet.end():] if bullet else line
        if CODE.search(text) or text.lstrip().startswith(">"):
            continue
        text = _plain(text)
        if len(WORD.findall(text)) < MIN_WORDS or len(text) > MAX_LINE:
            continue
        if not MODAL.find(words_of(text), text):
            continue  # a description of the code, not a rule
        if not bullet and not text.endswith((".", "!", ":", "。")) and text[:1].islower():
            continue  # a line of a wrapped paragraph, not a sentence of its own
        out.append(text)
    return out


def _plain(text: str) -> str:
    text = LINK.sub(r"\1", text)
    text = EMPHASIS.sub(lambda m: m.group(2) or m.group(3) or "", text)
    return " ".join(text.split()).rstrip(":")


class Instructions:
    """Feeds turns; ``finish`` returns the rules that stand as Convention candidates. Holds
    at most ``MAX_PENDING`` edits waiting for their result."""

    def __init__(self) -> None:
        # edits waiting for their result: turn, file, text replaced, text written, rules added
        self.pending: list[tuple[int, str, str, str, list[str]]] = []
        self.written: dict[tuple[str, str], int] = {}  # (file, rule) -> turn, in order

    def feed(self, turn: Turn) -> None:
        if turn.kind == "tool_use" and turn.edited is not None and len(turn.files) == 1:
            name = instruction_file(turn.files[0])
            if name is not None:
                old, new = turn.edited
                self.pending.append((turn.index, name, old, new, rule_lines(old, new)))
                del self.pending[:-MAX_PENDING]
        elif turn.rejected:
            self.pending.clear()  # the calls waiting were turned down: nothing written
        elif turn.kind == "tool_result" and (turn.applied or turn.files):
            self._answered(turn)

    def _answered(self, turn: Turn) -> None:
        names = {instruction_file(f) for f in turn.applied or turn.files}
        for number, (index, name, old, new, added) in enumerate(self.pending):
            if name not in names:
                continue
            del self.pending[number]
            if not turn.applied:
                return  # the tool refused the edit: the file is as it was
            kept = _plain(new)
            for key in [k for k in self.written
                        if k[0] == name and k[1] in _plain(old) and k[1] not in kept]:
                del self.written[key]  # a rule this edit rewrites or takes out
            if len(added) <= MAX_PER_EDIT:
                for line in added:
                    self.written.setdefault((name, line), index)
            return

    def finish(self, lang: str = "en") -> list[Candidate]:
        out: list[Candidate] = []
        seen: set[str] = set()
        for (name, line), index in self.written.items():
            if line.lower() in seen:
                continue
            seen.add(line.lower())
            out.append(Candidate("Convention", index, index, lang,
                                 f"{name} rule: {line}", files=(name,),
                                 veracity="stated", context=line))
            if len(out) >= MAX_RULES:
                break
        self.written.clear()
        self.pending.clear()
        return out
