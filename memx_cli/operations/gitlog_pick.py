"""Which of a history's candidates ``memx ingest --git-log`` keeps, in bounded memory
(issue 29): the candidates wait in a temporary file, not in a list as long as the history.

After the last commit is read, three passes over that file pick the memories, in the
order the steps are defined: a change a later commit reverts is dropped (the reverts are
few: a small map), a series of commits on one subject becomes one memory (a series ends
``series.WINDOW`` commits after its last member: only open series are held), and the
budget keeps the best-scored ones (a heap of the kept). The dropped candidates go to
another temporary file, in the order they were dropped.

The steps read a candidate's lesson value and rule, never its memory's text: a candidate
is sanitized and distilled (``drafted``) once it is kept, or, dropped, when its content is
read (``--json``, ``--dry-run --all``). A range's candidates are many times its memories.
"""

from __future__ import annotations

import heapq
import pickle
import tempfile
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from memx_cli.reflector.pipeline import Item, Reflector, Settings
    from memx_cli.reflector.scorer import Scored

T = TypeVar("T")
MIN_KEPT = 5


class Spool(Generic[T]):
    """Records in a temporary file, read back in the order they were added (also while
    more are added)."""

    def __init__(self) -> None:
        # unlinked at once, closed with the spool
        self._file = tempfile.TemporaryFile()  # noqa: SIM115
        self._count = 0

    def add(self, record: T) -> None:
        self._file.seek(0, 2)
        pickle.dump(record, self._file, pickle.HIGHEST_PROTOCOL)
        self._count += 1

    def extend(self, records: Iterable[T]) -> None:
        for record in records:
            self.add(record)

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[T]:
        offset = 0
        for _ in range(self._count):
            self._file.seek(offset)
            record: T = pickle.load(self._file)
            offset = self._file.tell()
            yield record


@dataclass(frozen=True)
class DroppedCandidate:
    sha: str
    rule: str
    score: int
    reason: str
    text: str  # what was dropped, when it was never a memory (``scored`` is None)
    scored: Scored | None = None  # a candidate the steps dropped, not distilled
    settings: Settings | None = None
    note: str = ""

    @property
    def content(self) -> str:
        """What the memory said or would have said."""
        if self.scored is None or self.settings is None:
            return self.text
        return drafted(self.scored, self.settings, self.note).content


@dataclass(frozen=True)
class Found:
    """A candidate of the history that passed its commit's rules, before the steps."""
    sha: str
    scored: Scored
    date: str  # its commit's committer date
    position: int  # its commit's place among those reflected
    subject: str  # its commit's subject line
    note: str = ""  # the series it stands for (``_merge``)

    @property
    def rule(self) -> str:
        return self.scored.candidate.rule

    @property
    def score(self) -> int:
        """Its lesson value (``commit_value``), read from the commit: no distilled text."""
        return self.scored.score

    def dropped(self, reason: str, settings: Settings) -> DroppedCandidate:
        return DroppedCandidate(self.sha, self.rule, self.score, reason,
                                self.scored.candidate.text, self.scored, settings, self.note)


@lru_cache(maxsize=4)
def _reflector(settings: Settings) -> Reflector:
    from memx_cli.reflector.pipeline import Reflector

    return Reflector(settings)


def drafted(scored: Scored, settings: Settings, note: str = "") -> Item:
    """The memory a kept candidate becomes: sanitized and distilled by the rules
    (``settings.mode`` is "rules": its score passed), the series' note last, within
    ``settings.max_length``."""
    if not note:
        [item] = _reflector(settings).items([scored])
        return item
    # distilled within what the note leaves: an Error/Fix pair keeps its Fix
    [item] = _reflector(settings).items([scored], max(50, settings.max_length - len(note)))
    return replace(item, content=item.content.rstrip(".") + note)


def picked(found: Spool[Found], undone: dict[str, str], reflected: int, budget: int,
           settings: Settings, dropped: Spool[DroppedCandidate]) -> list[Found]:
    """The candidates kept (in history order), not yet distilled (``drafted``); the others
    are added to ``dropped``: the reverted ones first, then the series' others, then those
    over the budget."""
    reverted: Spool[DroppedCandidate] = Spool()
    merged: Spool[DroppedCandidate] = Spool()
    changed: dict[int, str] = {}  # place -> the note of the series it stands for
    gone: set[int] = set()
    kept = _series(_unreverted(found, undone, reverted, settings), settings, changed, gone,
                   merged)
    dropped.extend(reverted)
    dropped.extend(merged)
    count = kept - len(gone)
    allowed = max(MIN_KEPT, budget * reflected // 1000)
    if budget <= 0 or count <= allowed:
        return list(_merged(found, undone, changed, gone))
    best: list[tuple[int, int]] = []  # (score, place): the top ``allowed``, newest first
    for place, entry in enumerate(_merged(found, undone, changed, gone)):
        key = (entry.score, place)
        if len(best) < allowed:
            heapq.heappush(best, key)
        else:
            heapq.heappushpop(best, key)
    keep = {place for _, place in best}
    out: list[Found] = []
    for place, entry in enumerate(_merged(found, undone, changed, gone)):
        if place in keep:
            out.append(entry)
        else:
            dropped.add(entry.dropped(f"over the budget of {budget} memories per 1,000 "
                                      "commits: others scored higher", settings))
    return out


def _revert(sha: str, undone: dict[str, str]) -> str | None:
    return next((r for target, r in undone.items() if sha.startswith(target)), None)


def _unreverted(found: Spool[Found], undone: dict[str, str], dropped: Spool[DroppedCandidate],
                settings: Settings) -> Iterator[Found]:
    """A memory of a commit that a later commit of the range reverts teaches what no
    longer holds: dropped, with the revert named (its own memory keeps the reason)."""
    for entry in found:
        revert = _revert(entry.sha, undone) if undone else None
        if revert is None:
            yield entry
        else:
            dropped.add(entry.dropped(f"reverted later in the range by {revert[:10]}",
                                      settings))


def _merged(found: Spool[Found], undone: dict[str, str], changed: dict[int, str],
            gone: set[int]) -> Iterator[Found]:
    """The candidates left by the revert and series steps, a series' kept one with its
    note."""
    for place, entry in enumerate(e for e in found if not undone or _revert(e.sha, undone)
                                  is None):
        if place in gone:
            continue
        note = changed.get(place)
        yield entry if note is None else replace(entry, note=note)


@dataclass
class _Series:
    shape: tuple[str, frozenset[str]]
    members: list[tuple[int, Found]]  # (place, candidate), the first one's subject's shape
    closed: bool = False


def _series(entries: Iterator[Found], settings: Settings, changed: dict[int, str],
            gone: set[int], dropped: Spool[DroppedCandidate]) -> int:
    """Issue 24: a series of commits on one subject ("[ruff] Enable X", "[ruff] Enable Y",
    …) is one memory: the best-scored one, naming what the others were about; the others
    are dropped with the reason (``reflector.series``). Each commit's first candidate
    takes part: it joins the oldest open series whose first subject it is alike, or opens
    one; a series closes ``series.WINDOW`` commits after its last member, so what is held
    is the open series and those waiting for an older one to close (they are decided in
    the order of their first commit). Fills ``changed`` (place -> note) and ``gone``;
    returns the count of candidates read."""
    from memx_cli.reflector import docnotes, series

    waiting: deque[_Series] = deque()  # in the order of their first commit
    open_: list[_Series] = []
    seen = ""
    count = 0

    def decide(ended: bool) -> None:
        while waiting and (ended or waiting[0].closed):
            found = waiting.popleft()
            if len(found.members) > 1:
                _merge(found.members, settings, changed, gone, dropped)

    for place, entry in enumerate(entries):
        count += 1
        if entry.sha == seen:
            continue  # one candidate a commit: its own two are no series
        seen = entry.sha
        # a caveat read from the docs says the page's words, not the subject's rule: "Add
        # `jitter` option" and "Add `context` option" each wrote another note
        shape = None if docnotes.from_docs(entry.scored.candidate) else series.template(
            entry.subject)
        joined, still = False, []
        for one in open_:
            if entry.position - one.members[-1][1].position > series.WINDOW:
                one.closed = True
                continue
            if not joined and shape is not None and series.alike(one.shape, shape):
                one.members.append((place, entry))
                joined = True
            still.append(one)
        open_ = still
        if not joined and shape is not None:
            opened = _Series(shape, [(place, entry)])
            waiting.append(opened)
            open_.append(opened)
        decide(False)
    decide(True)
    return count


def _merge(group: list[tuple[int, Found]], settings: Settings, changed: dict[int, str],
           gone: set[int], dropped: Spool[DroppedCandidate]) -> None:
    from memx_cli.reflector import series

    best_place, best = max(group, key=lambda m: (m[1].score, -m[0]))
    others = [m for m in group if m[0] != best_place]
    named = [series.name(other.subject, best.subject) for _, other in others]
    named = [n for n in dict.fromkeys(named) if n][:series.MAX_NAMES]
    more = f"the same in {len(others)} more commit{'s' if len(others) > 1 else ''}"
    note = f" ({more}: {', '.join(named)})." if named else f" ({more})."
    changed[best_place] = note  # ``drafted`` fits it in the memory's length
    for place, other in others:
        gone.add(place)
        dropped.add(other.dropped("one of a series of commits on one subject: kept with "
                                  f"{best.sha[:10]}", settings))
