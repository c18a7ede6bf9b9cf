"""The Reflector pipeline (SPEC 3.1) over a stream of turns:

    PatternDetector → KnowledgeScorer (rule score) → PrivacySanitizer
      → [hybrid: the LLM judges each candidate; score = mean(rule, LLM)]
      → min_score → BulletDistiller

In ``llm`` mode the model reads the sanitized input itself, in chunks of about 3K tokens
(one call per chunk, at most ``MAX_LLM_CHUNKS`` per input). Any LLM failure gives one
notice and falls back to the rules for everything the model has not read: no input is
lost. Memory stays bounded: the detector keeps a window, the pipeline keeps the
``MAX_CANDIDATES`` best candidates.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from memx_cli.privacy.sanitizer import Sanitizer, cached
from memx_cli.reflector import llm as llmmod
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.detector import PatternDetector
from memx_cli.reflector.distiller import compose, distill
from memx_cli.reflector.rules import rule
from memx_cli.reflector.runners import Runners
from memx_cli.reflector.scorer import Scored, scored
from memx_cli.reflector.turn import Turn

log = logging.getLogger("memx")
MAX_CANDIDATES = 100
CHUNK_CHARS = 12_000
MAX_LLM_CHUNKS = 20
MAX_NOTED = 5  # what runner targets run takes at most a fifth of a memory's room


@dataclass(frozen=True)
class Settings:
    mode: str = "rules"
    min_score: int = 30
    max_length: int = 500
    llm: llmmod.LLMSettings | None = None
    custom_patterns: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_config(cls, config: Any) -> Settings:
        base_url, model = config["ace.reflector.llm.base_url"], config["ace.reflector.llm.model"]
        llm = None
        if base_url and model:
            llm = llmmod.LLMSettings(base_url, model, config["ace.reflector.llm.api_key_env"],
                                     float(config["ace.reflector.llm.timeout"]))
        custom = tuple((p["name"], p["pattern"])
                       for p in config["ace.reflector.custom_patterns"] or [])
        return cls(config["ace.reflector.mode"], int(config["ace.reflector.min_score"]),
                   int(config["ace.reflector.max_content_length"]), llm, custom)


@dataclass(frozen=True)
class Item:
    """A kept candidate, distilled: everything a memory needs but its id and source."""

    rule: str
    confidence: float
    score: int
    section: str
    type: str
    content: str
    tools: tuple[str, ...]
    entities: tuple[str, ...]
    tags: tuple[str, ...]
    first: int
    last: int
    veracity: str = "inferred"
    refined: bool = False  # the LLM wrote or judged it
    memory_type: str | None = None  # picks the decay curve (rules.Rule.memory_type)


@dataclass
class Stats:
    mode: str = "rules"
    records: int = 0
    skipped: int = 0
    turns: int = 0
    input_tokens: int = 0
    candidates: int = 0
    kept: int = 0
    below_min: int = 0
    llm_calls: int = 0
    llm_tokens: int = 0
    fallback: str | None = None
    last_turn: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Reflector:
    settings: Settings
    client: llmmod.ChatClient | None = None
    stats: Stats = field(default_factory=Stats)
    _down: bool = False

    def __post_init__(self) -> None:
        self.stats.mode = self.settings.mode
        self._said: set[tuple[str, str]] = set()  # (rule, text) of the candidates kept
        # what the task-runner targets the input ran echoed: a memory naming one says it,
        # in at most a fifth of its room (the distiller cuts the rest to make it)
        self._runners = Runners()
        self.sanitizer: Sanitizer = cached(self.settings.custom_patterns)
        if self.settings.mode != "rules" and self.client is None:
            if self.settings.llm is None:
                self._fall_back(f"ace.reflector.mode is {self.settings.mode} but "
                                "ace.reflector.llm.base_url and .model are not set")
            else:
                try:
                    self.client = llmmod.HttpChatClient(self.settings.llm)
                except llmmod.LLMError as exc:
                    self._fall_back(str(exc))

    def _fall_back(self, why: str) -> None:
        if not self._down:
            self._down = True
            self.stats.fallback = why
            log.warning(f"LLM stage unavailable: {why}; reflecting with rules only")

    @property
    def llm_ready(self) -> bool:
        return self.client is not None and not self._down

    # ------------------------------------------------------------ entry points

    def reflect(self, turns: Iterable[Turn]) -> list[Item]:
        detector = PatternDetector(self.sanitizer)
        self._said = set()
        self._runners = Runners()
        best: list[tuple[int, int, Scored]] = []
        chunk: list[str] = []
        extracted: list[Item] = []
        covered = last = 0  # last turn index the LLM has read (llm mode), last seen
        for order, turn in enumerate(turns):
            last = turn.last
            self.stats.turns += 1
            self.stats.input_tokens += max(1, len(turn.text) // 4)
            if self.settings.mode == "llm" and self.llm_ready:
                chunk.append(f"[{turn.index}] {turn.role}: {_short(turn)}")
                if sum(map(len, chunk)) >= CHUNK_CHARS:
                    covered = self._extract(chunk, extracted, turn.last, covered)
                    chunk = []
            self._runners.feed(turn)
            for candidate in detector.feed(turn):
                self._keep(best, candidate, order)
        for extra, candidate in enumerate(detector.finish()):
            # each its own order: two of equal score must never compare their records
            self._keep(best, candidate, self.stats.turns + extra)
        if chunk and self.settings.mode == "llm" and self.llm_ready:
            covered = self._extract(chunk, extracted, last, covered)
        self.stats.last_turn = last
        ruled = [s for _, _, s in sorted(best, key=lambda e: -e[1])]
        if self.settings.mode == "llm":
            ruled = [s for s in ruled if s.candidate.first > covered]
        return self._finish(extracted + self.items(ruled))

    def reflect_candidates(self, candidates: Iterable[Candidate]) -> list[Item]:
        """Candidates a reader found itself (a CI log's failures): scored, sanitized and
        distilled like the detector's, at most ``MAX_CANDIDATES``."""
        ruled: list[Scored] = []
        for candidate in candidates:
            self.stats.candidates += 1
            if len(ruled) < MAX_CANDIDATES:
                ruled.append(scored(candidate))
        return self._finish(self.items(ruled))

    def _keep(self, best: list[tuple[int, int, Scored]], candidate: Candidate,
              order: int) -> None:
        """The MAX_CANDIDATES best candidates, in a heap: memory stays bounded. A candidate
        that says word for word what an earlier one of its rule said is not scored again:
        it would make the same memory, and the earlier one is kept (``_finish``)."""
        self.stats.candidates += 1
        said = (candidate.rule, candidate.text)
        if said in self._said:
            return
        if len(self._said) < MAX_CANDIDATES * 4:
            self._said.add(said)
        rated = scored(candidate)
        entry = (rated.score, -order, rated)
        if len(best) < MAX_CANDIDATES:
            heapq.heappush(best, entry)
        else:
            heapq.heappushpop(best, entry)

    def items(self, candidates: list[Scored], max_length: int | None = None) -> list[Item]:
        """Rule candidates → items: sanitize, (hybrid) ask the LLM, filter, distill, each
        within ``max_length`` characters (the settings' when None)."""
        limit = self.settings.max_length if max_length is None else max_length
        out: list[Item] = []
        for entry in candidates:
            candidate = self._sanitized(entry.candidate)
            score, section, kind, content = entry.score, entry.section, entry.type, None
            refined = False
            if self.settings.mode == "hybrid" and self.llm_ready:
                verdict = self._evaluate(candidate)
                if verdict is not None:
                    score = round((score + verdict.score) / 2)
                    section, kind = verdict.section or section, verdict.type or kind
                    content, refined = verdict.content, True
            if score < self.settings.min_score:
                self.stats.below_min += 1
                continue
            said = self.sanitizer.sanitize(content) if content else None
            notes = [self.sanitizer.sanitize(n)
                     for n in self._runners.notes(said or compose(candidate))]
            room = sum(len(n) + 1 for n in notes)
            notes = notes if room <= limit // MAX_NOTED else []
            draft = distill(candidate, limit - (room if notes else 0), said)
            if notes and not all(n in map(self.sanitizer.sanitize,
                                          self._runners.notes(draft.content)) for n in notes):
                # the room taken cut out a target the notes tell of (a report's "checked:
                # `mise run test:ci` passed"): the memory stays as it was, without them
                draft, notes = distill(candidate, limit, said), []
            found = rule(candidate.rule)
            out.append(Item(candidate.rule, candidate.confidence, score, section, kind,
                            " ".join([draft.content, *notes]), draft.tools,
                            draft.entities, draft.tags,
                            candidate.first, candidate.last, candidate.veracity, refined,
                            found.memory_type if found else None))
        return out

    # ------------------------------------------------------------ internals

    def _finish(self, items: list[Item]) -> list[Item]:
        unique: dict[str, Item] = {}
        for item in items:
            key = " ".join(item.content.lower().split())
            if key not in unique or unique[key].score < item.score:
                unique[key] = item
        kept = sorted(unique.values(), key=lambda i: (i.first, i.last))
        self.stats.kept = len(kept)
        return kept

    def _sanitized(self, candidate: Candidate) -> Candidate:
        clean = self.sanitizer.sanitize
        # the context only ever goes to the LLM: mask it only when it will be sent
        context = clean(candidate.context) if self.llm_ready else ""
        return replace(candidate, fix=clean(candidate.fix),
                       error=clean(candidate.error) if candidate.error else None,
                       attempts=clean(candidate.attempts) if candidate.attempts else None,
                       cause=clean(candidate.cause) if candidate.cause else None,
                       commands=tuple(clean(c) for c in candidate.commands),
                       files=tuple(clean(f) for f in candidate.files), context=context)

    def _evaluate(self, candidate: Candidate) -> llmmod.Verdict | None:
        assert self.client is not None
        try:
            verdict, tokens = llmmod.evaluate(self.client, candidate.rule, candidate.text,
                                              candidate.context, self.settings.max_length)
        except llmmod.LLMError as exc:
            self._fall_back(str(exc))
            return None
        self.stats.llm_calls += 1
        self.stats.llm_tokens += tokens
        return verdict

    def _extract(self, chunk: list[str], out: list[Item], last: int, covered: int) -> int:
        assert self.client is not None
        if self.stats.llm_calls >= MAX_LLM_CHUNKS:
            self._fall_back(f"input longer than {MAX_LLM_CHUNKS} chunks; the rest goes to rules")
            return covered
        text = self.sanitizer.sanitize("\n".join(chunk))
        try:
            verdicts, tokens = llmmod.extract(self.client, text, self.settings.max_length)
        except llmmod.LLMError as exc:
            self._fall_back(str(exc))
            return covered
        self.stats.llm_calls += 1
        self.stats.llm_tokens += tokens
        for verdict in verdicts:
            if verdict.score < self.settings.min_score or not verdict.content:
                self.stats.below_min += 1
                continue
            candidate = Candidate(verdict.rule or "Other", covered + 1, last, "en",
                                  verdict.content, confidence=0.7)
            draft = distill(candidate, self.settings.max_length,
                            self.sanitizer.sanitize(verdict.content))
            out.append(Item(candidate.rule, 0.7, verdict.score, verdict.section or "general",
                            verdict.type or "knowledge", draft.content, draft.tools,
                            draft.entities, draft.tags, covered + 1, last,
                            "inferred", True))
        return last


def _short(turn: Turn) -> str:
    text = turn.text
    if turn.kind == "tool_result" and len(text) > 2000:
        text = text[:500] + "\n[...]\n" + text[-1500:]
    return text
