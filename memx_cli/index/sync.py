"""Derived indexes of one store, kept in step with its YAML files (SPEC 9).

``StoreIndex.sync`` compares the memory files with the manifest (stat first, content
hash only for files whose stat changed) and updates only what changed: new, edited,
deleted, archived files, whether memx wrote them or git, an editor or a merge did.
A missing, corrupt or incompatible index is rebuilt with a one-line notice. The YAML
stays the only truth: deleting ``cache/`` loses nothing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from memx_cli.errors import ModelUnavailableError
from memx_cli.freshness.quick import (
    LOOSE_LIMIT,
    SLOW_MS,
    Basis,
    Claim,
    Look,
    check_cost,
    counted,
    held_marks,
    look,
    marks_before,
    memory_path,
    same_index,
    settled,
    unmoved,
)
from memx_cli.freshness.scan import ListedIds, Seen, scan, shift, stat_ids
from memx_cli.index.documents import build_documents, stored_memories, stored_times
from memx_cli.index.keys import is_index_error
from memx_cli.index.lexical import IndexDoc, LexicalIndex
from memx_cli.index.manifest import Manifest
from memx_cli.index.state import (
    dir_times,
    load_manifest,
    read_state,
    save_state,
    stamp_for,
    wipe,
    write_state,
)
from memx_cli.index.update import compare
from memx_cli.index.vector_sync import update_vectors
from memx_cli.index.vectors import VectorIndex
from memx_cli.store.files import Store, Written
from memx_cli.store.memory import Memory

log = logging.getLogger("memx")

Progress = Callable[[int, int], None]


@dataclass
class SyncReport:
    added: int = 0
    changed: int = 0
    removed: int = 0
    rebuilt: bool = False
    vectors: bool = False  # vectors are current for the configured model
    problems: list[str] = field(default_factory=list)

    @property
    def touched(self) -> int:
        return self.added + self.changed + self.removed




@dataclass
class Aside:
    """A store's full check looked at by another thread (``StoreIndex.look_aside``), for
    the index to take in later (``sync(aside=...)``): the state it began from, the
    folders' marks before it, the change stamp's look, and the scan when that look
    could not vouch for the files, with what it saw besides (None without a scan): the
    ids of the files that have more than one name, and those whose stat differs from
    the manifest's rows, files gone included (the ids the take-in compares; None also
    when the index moved while the rows were read: then it compares every row)."""

    state: dict[str, Any] | None
    held: list[str] | None
    seen: Look | None
    scanned: tuple[dict[str, Seen], str] | None
    linked: set[str] | None
    differs: set[str] | None = None


class StoreIndex:
    def __init__(self, store: Store, model_spec: str | None):
        self.store = store
        self.model_spec = model_spec
        self.dir = store.cache_dir
        self.manifest_path = self.dir / "manifest.db"
        self.legacy_manifest_path = self.dir / "manifest.json"  # memx before issue 15
        # A small summary of the manifest, so the common "nothing changed" check reads
        # a few bytes instead of parsing one entry per memory.
        self.state_path = self.dir / "state.json"
        self.lexical = LexicalIndex(self.dir / "lexical")
        self.vectors = VectorIndex(self.dir / "vectors.usearch")
        self._manifest: Manifest | None = None
        self._encoder: Any = None
        self._encoder_failed: str | None = None
        self._checked: tuple[float, tuple[int, ...], SyncReport] | None = None
        # The last scan (None after a quick check) and the state it left, for
        # ``sync_written``; the state also tells whether another process moved the index.
        self._last: tuple[dict[str, Seen] | None, dict[str, Any] | None] | None = None
        self.ids: Iterable[str] = ()  # every memory id the last check saw
        self.scans = 0  # full scans of the store's files (`memx server status`)
        self.linked: set[str] = set()  # ids of files with more than one name (last scan)

    # ------------------------------------------------------------ model

    def encoder(self) -> Any:
        """The embedding model, or None (logged once) when it cannot be loaded."""
        if self._encoder is None and self._encoder_failed is None:
            from memx_cli.embed import load_encoder

            try:
                self._encoder = load_encoder(self.model_spec)
            except ModelUnavailableError as exc:
                self._encoder_failed = str(exc)
                log.warning(str(exc))
        return self._encoder

    def _model_kept(self) -> bool:
        """False once the loaded model's files changed on disk (an upgrade, issue 15):
        it is dropped, and the next check re-embeds with the new one."""
        from memx_cli.embed import still_current

        if self._encoder is None or still_current(self._encoder):
            return True
        self._encoder = None
        return False

    # ------------------------------------------------------------ scanning

    def _scan(self) -> tuple[dict[str, Seen], str]:
        self.scans += 1
        self.linked = set()
        return scan(self.store, self.linked)

    def sync_written(self, ids: Iterable[str], want_vectors: bool = True,
                     written: Mapping[str, Written] | None = None) -> SyncReport:
        """Update the index after this process wrote (or removed) the files of ``ids``:
        a stat of those files and their manifest rows, not a scan of the whole store
        (issue 15); the fingerprint of the last full scan is shifted by their change. A
        file changed behind memx meanwhile is left to the next reader's full scan (no
        stamp is recorded here), whose fingerprint then differs from this one.
        ``written``: the records ``Store.write_many`` returned, indexed as they are
        instead of read back (issue 29) while their files are still that write."""
        ids = set(ids)
        with self.store.lock():
            last, state = self._last, read_state(self.state_path)
            if last is not None and not same_index(state, last[1]):
                self._reopen()  # another process moved the index since this one looked
            manifest = self._manifest if self._manifest is not None else self._load_manifest()
            if manifest is None or state is None:
                return self._sync(False, None, want_vectors, quick=False)
            now = stat_ids(self.store, ids)
            before = {i: (r.mtime_ns, r.size, r.archived)
                      for i, r in manifest.rows(ids).items()}
            fingerprint = shift(str(state.get("fingerprint")), before, now,
                                self.store.archive_dir.is_dir())
            if fingerprint is None:
                return self._sync(False, None, want_vectors, quick=False)
            self.ids = ListedIds(self.store)
            report = self._update(manifest, now, None, want_vectors, quiet=False, only=ids,
                                  written=written)
            on = Basis.from_json(state.get("basis"), self.store)
            moved = on.moved(before, now) if on is not None else None
            held = self._held_after(state)
            left = self._left(state)
            # No stamp: a file changed behind memx since the last check would go unseen.
            # Instead a claim the next reader checks with the look it takes anyway
            # (quick.Claim); without one that reader scans in full. A store with too many
            # untracked files for a stamp keeps the marks this write left for the next
            # write (``unstamped``).
            write_state(self.state_path, fingerprint, self._manifest, None, moved,
                        self._claim(state, before, now) if moved is not None else None,
                        left=left[0] if left is not None else None, held=held,
                        unstamped={"dirs": list(left[0]), "git": left[1]}
                        if left is not None else None)
            self._last = (None, read_state(self.state_path))
            self._checked = None
        return self._report_problems(report)

    def _sync_known(self, ids: Collection[str], want_vectors: bool) -> SyncReport:
        """``sync(known=ids)``: nothing to do when no file changed and the last report
        still holds, else ``sync_written`` of those ids (which also embeds vectors left
        behind by a keyword-only check, and reopens an index another process moved)."""
        checked = self._checked
        if (not ids and checked is not None and (checked[2].vectors or not want_vectors)
                and self._model_kept()):
            return checked[2]
        folders = dir_times(self.store)
        report = ((self._adopt(want_vectors) if not ids and checked is None else None)
                  or self._holds(ids, want_vectors) or self.sync_written(ids, want_vectors))
        self._checked = (time.monotonic(), folders, report)
        return report

    def _adopt(self, want_vectors: bool) -> SyncReport | None:
        """The report of an index this object has not checked yet, when a watcher
        vouches that no file changed since another index of this process checked the
        store (a searcher of the memx server made again, issue 29): the index on disk is
        that check's, so neither a look at the files nor a write; None when it cannot
        serve as it is (no index yet, vectors to bring up to date)."""
        if self._last is not None or not self.lexical.path.is_dir():
            return None
        state = read_state(self.state_path)
        if state is None:
            return None
        self.ids = ListedIds(self.store)
        return self._current(state, want_vectors, None)

    def _holds(self, ids: Collection[str], want_vectors: bool) -> SyncReport | None:
        """The report when the index this process holds open already has the files of
        ``ids`` as they are now (memx's own write, indexed as it was made), else None:
        then nothing is written at all."""
        state = read_state(self.state_path)
        if (self._manifest is None or self._last is None or state is None
                or not same_index(state, self._last[1]) or not self._model_kept()):
            return None
        rows = self._manifest.rows(ids)
        if stat_ids(self.store, ids) != {i: (r.mtime_ns, r.size, r.archived)
                                         for i, r in rows.items()}:
            return None
        return self._current(state, want_vectors, None)

    def _held_after(self, state: dict[str, Any]) -> list[str] | None:
        """The folders' marks at which the index will hold every file once this
        process's writes are indexed: where they left the folders, when they began where
        the index held every file (``held`` of ``state``); else None."""
        wrote = self.store.wrote
        if wrote is None or state.get("held") != list(wrote[0]) or "?" in wrote[1]:
            return None
        return list(wrote[1])

    def _left(self, state: dict[str, Any]) -> tuple[tuple[str, str], str | None] | None:
        """The memory folders' marks after this process's writes, with git's index mark
        of ``settled``, when those writes began where ``state`` left the folders
        (``settled``: nothing else added or removed a file since), else None; either way
        the writes' marks are taken."""
        wrote, self.store.wrote = self.store.wrote, None
        marks = settled(state)
        if wrote is None or marks is None or wrote[0] != marks[0] or "?" in wrote[1]:
            return None
        return wrote[1], marks[1]

    def sync_before_write(self, want_vectors: bool) -> SyncReport:
        """``sync`` for a write's Curator (issue 29): when the memory folders and git's
        index are as the last check or memx write left them (``quick.unmoved``), the
        index is used as it is, with no look at every file (git's, or a listing); the
        write's update then leaves its claim for the next reader, which checks it as
        before. Else, or when vectors are behind, ``sync``."""
        state = read_state(self.state_path)
        if (self._last is None and state is not None and self.lexical.path.is_dir()
                and unmoved(self.store, state)):
            report = self._current(state, want_vectors, None)
            if report is not None:
                self.ids = ListedIds(self.store)
                return report
        return self.sync(want_vectors=want_vectors)

    def _claim(self, state: dict[str, Any], before: dict[str, Seen],
               now: dict[str, Seen]) -> Claim | None:
        """What an update of the files ``before`` -> ``now`` leaves the next reader
        (issue 29): the look behind the recorded stamp, or the claim an earlier write
        left, with these files added as indexed; None when there is neither (that
        reader scans in full) or the claim would name more than LOOSE_LIMIT files."""
        prior = Claim.from_json(state["written"]) if state.get("written") else None
        if prior is None:
            base = Look.from_json(state["look"]) if state.get("look") else None
            if base is None or base.digest() != state.get("quick"):
                return None
            prior = Claim(base, {})
        ours = dict(prior.ours)
        ours.update((memory_path(i, seen[2]), None) for i, seen in before.items())
        ours.update((memory_path(i, seen[2]), (seen[0], seen[1])) for i, seen in now.items())
        return Claim(prior.before, ours) if len(ours) <= LOOSE_LIMIT else None

    def _trusts(self, state: dict[str, Any], seen: Look) -> bool:
        """Whether the index of ``state`` holds the files as ``seen`` found them: the
        recorded stamp matches, or the write that left none left what the next reader
        checks (quick.Claim)."""
        if seen.digest() == state.get("quick"):
            return True
        pending = Claim.from_json(state.get("written")) if state.get("written") else None
        return pending is not None and pending.holds(self.store, seen,
                                                     str(state.get("fingerprint")))

    def _load_manifest(self) -> Manifest | None:
        return load_manifest(self.manifest_path, self.legacy_manifest_path)

    # ------------------------------------------------------------ syncing

    def saved_state(self) -> dict[str, Any] | None:
        """The index's state file as it is now (None: none, or unreadable)."""
        return read_state(self.state_path)

    def look_aside(self) -> Aside:
        """The look at every file of a full check, without changing this index (safe on
        another thread while this one searches: the memx server's check after a trusted
        first open, freshness/journal.py): the change stamp's look, and the scan when the
        state does not trust that look."""
        state = read_state(self.state_path)
        on = Basis.from_json(state.get("basis"), self.store) if state is not None else None
        held = held_marks(self.store)
        seen = look(self.store, on) if on is not None else None
        if state is not None and seen is not None and self._trusts(state, seen):
            return Aside(state, held, seen, None, None)
        linked: set[str] = set()
        scanned = scan(self.store, linked)
        return Aside(state, held, seen, scanned, linked, self._differs(state, scanned[0]))

    def _differs(self, state: dict[str, Any] | None, seen: dict[str, Seen]) -> set[str] | None:
        """The ids whose stat in ``seen`` differs from the manifest's row, or that have a
        row and no file: the full comparison's first step, made off the request path
        (issue 29: at 100k memories reading and comparing every row takes ~1 s) through
        a connection of its own. None when there is no manifest, or the index moved
        while its rows were read (the take-in then compares every row)."""
        if state is None:
            return None
        try:
            manifest = Manifest.load(self.manifest_path)  # (never a legacy one's move)
        except ValueError:
            return None
        if manifest is None:
            return None
        try:
            known = manifest.stats() if manifest.compatible() else None
        finally:
            manifest.close()
        if known is None:
            return None
        if read_state(self.state_path) != state:
            return None
        return {i for i, now in seen.items() if known.get(i) != now} | (known.keys() - seen.keys())

    def sync(self, full: bool = False, progress: Progress | None = None,
             want_vectors: bool = True, max_age: float = 0.0,
             known: Collection[str] | None = None, aside: Aside | None = None) -> SyncReport:
        """Bring the indexes up to date with the files; cheap when nothing changed.

        ``max_age`` (seconds) lets a long-lived process skip the per-file stat scan when
        the last one is that recent and no file was added, removed or renamed since
        (directory times unchanged): an edit in place is then seen within ``max_age``.
        ``known``: a file watcher vouches that since this index's last check only the
        files of these ids can have changed (freshness/journal.py): those are re-read, as
        after memx's own writes, and no other file is looked at.
        ``aside``: the look at the files another thread made (``look_aside``), taken
        in as this check's own when the index has not moved since it began.
        """
        if known is not None and not full:
            return self._sync_known(known, want_vectors)
        if max_age > 0 and not full and self._checked is not None and self._model_kept():
            at, stamp, last = self._checked
            if (time.monotonic() - at < max_age and stamp == dir_times(self.store)
                    and (last.vectors or not want_vectors)):
                return last
        stamp = dir_times(self.store)
        report = self._sync(full, progress, want_vectors, aside=None if full else aside)
        self._checked = (time.monotonic(), stamp, report)
        return report

    def open_for_search(self, want_vectors: bool, max_age: float = 0.0,
                        known: Collection[str] | None = None,
                        aside: Aside | None = None) -> SyncReport:
        """Sync, then open the indexes; an unreadable index is rebuilt with a notice."""
        report = self.sync(want_vectors=want_vectors, max_age=max_age, known=known,
                           aside=aside)
        damage = self._unreadable(report, want_vectors)
        if damage is not None:
            detail = " ".join(str(damage).split())[:100]
            log.warning(f"search index in {self.store.display(self.dir)} is unreadable "
                        f"({detail}); rebuilding it")
            report = self.sync(full=True, want_vectors=want_vectors)
        return report

    def _unreadable(self, report: SyncReport, want_vectors: bool) -> BaseException | None:
        """Open the text index (and the vectors when ``report`` says they serve): None,
        or the damage that makes them unreadable (any other error is raised)."""
        try:
            self.lexical.searcher()
            if report.vectors and want_vectors:
                self.vectors.check()
        except BaseException as exc:
            if not is_index_error(exc):
                raise
            return exc
        return None

    def open_trusted(self, want_vectors: bool) -> SyncReport | None:
        """Open the index as the last check or memx write left it, without looking at
        every file, for the memx server's first open of a large store (issue 29: at 1M
        memories that look took the first search 10 s); its watcher then follows the
        store, and the server's full check of every file comes after that first answer
        (``freshness.journal.Watched``). The index is trusted only where that look
        would be slow (its estimate past ``SLOW_MS``) and the memory folders' marks are
        those at which it held every file (``held``: no file was added, removed or
        renamed since, by memx, git or an editor that saves by rename); a file written
        in place meanwhile is seen by that full check. None (nothing opened): no such
        index, another check first, or vectors to bring up to date."""
        if self._last is not None or not self.lexical.path.is_dir():
            return None
        state = read_state(self.state_path)
        files = counted(state.get("fingerprint")) if state is not None else None
        if (state is None or files is None or check_cost(self.store, files, state)[1] <= SLOW_MS
                or state.get("held") is None or state["held"] != held_marks(self.store)):
            return None
        report = self._current(state, want_vectors, None)
        if report is None:
            return None
        if self._unreadable(report, want_vectors) is not None:
            self._last = None  # the full check rebuilds it, with its notice
            return None
        self.ids = ListedIds(self.store)
        self._checked = (time.monotonic(), dir_times(self.store), report)
        return report

    def _sync(self, full: bool, progress: Progress | None, want_vectors: bool,
              quick: bool = True, aside: Aside | None = None) -> SyncReport:
        state = None if full else read_state(self.state_path)
        if self._last is not None and not same_index(self._last[1], state):
            self._reopen()
        # The stamp is taken before the scan: a change in between makes the next one
        # differ (one more scan), never the reverse.
        on = Basis.from_json(state.get("basis"), self.store) if state is not None else None
        differs = None  # what differs from the manifest, when the look aside found it
        unstamped = None  # the marks for the next write when there can be no stamp
        if aside is not None and aside.state == state:
            held, seen_now, scanned = aside.held, aside.seen, aside.scanned
            if scanned is not None:
                self.scans += 1
                self.linked = aside.linked or set()
                differs = aside.differs
        else:
            held = held_marks(self.store)  # (before the look: a change after it moves them)
            unstamped = marks_before(self.store, on, held)
            seen_now = look(self.store, on) if on is not None else None
            scanned = None
        before = seen_now.digest() if seen_now is not None else None
        if quick and state is not None and seen_now is not None and self._trusts(state,
                                                                                  seen_now):
            if before != state.get("quick"):
                state = self._take_written(state, seen_now)
            self.ids = ListedIds(self.store)
            report = self._current(state, want_vectors, None)
            if report is not None:
                return report
        seen, fingerprint = scanned if scanned is not None else self._scan()
        self.ids = seen.keys()
        if state is not None and state.get("fingerprint") == fingerprint:
            report = self._current(state, want_vectors, seen)
            if report is not None:
                if before is None or before != state.get("quick") or held != state.get("held"):
                    self._record_stamp(state, seen, on, seen_now, held, unstamped)
                return report
        with self.store.lock():
            # Another memx process may have updated the index while this one waited for
            # the lock: then look at the files again, else the scan above is current.
            if not same_index(read_state(self.state_path), state):
                seen, fingerprint = self._scan()
                self.ids = seen.keys()  # the first scan's view kept it alive: 2x at 1M
                differs = None
            # Without its text index, a manifest describes nothing: rebuild (a partial
            # index would answer with a silent subset; issue 14).
            manifest = (None if full or not self.lexical.path.is_dir()
                        else self._load_manifest())
            report = self._update(manifest, seen, progress, want_vectors, quiet=full,
                                  only=differs)
            write_state(self.state_path, fingerprint, self._manifest, *stamp_for(
                self.store, seen, on, before), seen=seen_now, held=held, unstamped=unstamped)
            self._last = (seen, read_state(self.state_path))
        return self._report_problems(report)

    def _take_written(self, state: dict[str, Any], seen: Look) -> dict[str, Any]:
        """After a write's claim held (``_trusts``): record ``seen`` as the stamp for the
        readers after this one, unless another process moved the index meanwhile."""
        with self.store.lock():
            if read_state(self.state_path) != state:
                return state
            save_state(self.state_path,
                       {**{k: v for k, v in state.items() if k not in ("written", "left")},
                        "quick": seen.digest(), "look": seen.to_json()})
            now = read_state(self.state_path)
        return now if now is not None else state

    def _reopen(self) -> None:
        """Another StoreIndex (a `memx add` beside this MCP server) changed the index:
        what this one holds open shows the index as it was."""
        self.lexical.refresh()
        self.vectors.refresh()
        if self._manifest is not None:
            self._manifest.close()
        self._manifest = None

    def _current(self, state: dict[str, Any], want_vectors: bool,
                 seen: dict[str, Seen] | None) -> SyncReport | None:
        """The report for an index that matches the files, or None when its vectors
        must be brought up to date first."""
        has_vectors = state.get("model") is not None
        current = (has_vectors and not state.get("pending")
                   and state["model"] == self._model_fingerprint())
        if not want_vectors or current or self.encoder() is None:
            self._last = (seen, state)
            return SyncReport(vectors=current, problems=list(state.get("problems", [])))
        return None

    def _record_stamp(self, state: dict[str, Any], seen: dict[str, Seen],
                      on: Basis | None, taken: Look | None, held: list[str] | None,
                      unstamped: dict[str, Any] | None = None) -> None:
        """Remember a stamp taken before a scan that found nothing changed (``taken``,
        the look it is the digest of), so the next reader skips the scan (written once,
        when the stamp first holds), what the next stamp covers when that changed, and
        the folders' marks taken before the scan (``held``); where the basis leaves no
        stamp, the marks for the next write (``unstamped``, ``quick.marks_before``)."""
        quick, new = stamp_for(self.store, seen, on,
                               taken.digest() if taken is not None else None)
        if new is None or new.loose is not None:
            unstamped = None
        if (quick == state.get("quick") and (new is on or (new is not None and new.same(on)))
                and held == state.get("held") and unstamped == state.get("unstamped")):
            return
        with self.store.lock():
            if read_state(self.state_path) != state:
                return  # another process moved the index meanwhile
            kept = {k: v for k, v in state.items()
                    if k not in ("written", "look", "left", "held", "unstamped")}
            save_state(self.state_path, {
                **kept, "quick": quick, "basis": new.to_json() if new is not None else None,
                **({"look": taken.to_json()} if quick is not None and taken is not None
                   else {}), **({"held": held} if held is not None else {}),
                **({"unstamped": unstamped} if unstamped is not None else {})})
            self._last = (seen, read_state(self.state_path))

    def _report_problems(self, report: SyncReport) -> SyncReport:
        if self._manifest is not None:
            report.problems.extend(self._manifest.problems())
        return report

    def _model_fingerprint(self) -> str | None:
        """Identifies the configured model cheaply (without loading it)."""
        from memx_cli.index.model_id import configured

        return configured(self.model_spec, self.dir / "model.json")

    def _update(self, manifest: Manifest | None, seen: dict[str, Seen],
                progress: Progress | None, want_vectors: bool, quiet: bool,
                only: Collection[str] | None = None,
                written: Mapping[str, Written] | None = None) -> SyncReport:
        report = SyncReport()
        if manifest is None:
            if not quiet and (self.manifest_path.exists() or self.lexical.path.exists()
                              or self.legacy_manifest_path.exists()):
                log.warning(f"search index in {self.store.display(self.dir)} was incomplete, "
                            "corrupt or from another memx version; rebuilding it")
            manifest = self._rebuilt()
            report.rebuilt = True
            return self._rebuild(manifest, seen, progress, want_vectors, report)
        try:
            self.lexical.open(create=True)
        except (OSError, ValueError) as exc:
            log.warning(f"search index could not be opened ({exc}); rebuilding it")
            manifest = self._rebuilt()
            report.rebuilt = True
            self.lexical.open(create=True)

        plan = compare(self.store, manifest, seen, None if report.rebuilt else only, progress,
                       written, None if report.rebuilt else self._indexed,
                       None if report.rebuilt else self._dated)
        report.added, report.removed = plan.added, len(plan.removed)
        report.changed = len(plan.changed) - plan.added - plan.broken
        docs = build_documents(self.store, plan.reindex, plan.memories, plan.states,
                               plan.members, plan.times)
        if plan.reindex or plan.removed:
            try:
                self.lexical.apply(sorted(plan.reindex | plan.removed), docs)
            except BaseException as exc:
                if report.rebuilt or not is_index_error(exc):
                    raise
                # Damage no repair in place covers: rebuild from the files, never exit 3.
                detail = " ".join(str(exc).split())[:100]
                log.warning(f"search index in {self.store.display(self.dir)} could not be "
                            f"written ({detail}); rebuilding it")
                if only is not None:  # ``seen`` holds only the written files
                    seen = self._scan()[0]
                manifest = self._rebuilt()
                report = SyncReport(rebuilt=True)
                return self._rebuild(manifest, seen, progress, want_vectors, report)
        report.vectors = self._update_vectors(manifest, docs, plan.removed | plan.reindex,
                                              want_vectors, report.rebuilt)
        manifest.complete = True  # the rows go in after their documents
        manifest.write(plan.upserts, plan.removed)
        self._manifest = manifest
        if progress is not None:
            total = len(seen)
            progress(total, total)
        return report

    def _indexed(self, ids: Collection[str]) -> dict[str, Memory]:
        """Unchanged neighbours of a changed memory as this index holds them."""
        return stored_memories(self.lexical, ids)

    def _dated(self, ids: Collection[str]) -> dict[str, str]:
        """The times of unchanged members of a changed memory's group (their order)."""
        return stored_times(self.lexical, ids)

    def _rebuilt(self) -> Manifest:
        self._wipe()
        return Manifest.create(self.manifest_path)

    def _rebuild(self, manifest: Manifest, seen: dict[str, Seen], progress: Progress | None,
                 want_vectors: bool, report: SyncReport) -> SyncReport:
        """Everything from the files, streamed in batches (index/rebuild.py)."""
        from memx_cli.index.rebuild import rebuild

        self.lexical.open(create=True)
        done = rebuild(self.store, seen, self.lexical, self.vectors,
                       self.encoder() if want_vectors else None, progress,
                       lambda rows: manifest.write(rows, ()))
        manifest.model = self._model_fingerprint() if done.vectors else None
        manifest.complete = True  # every row's document is committed now
        manifest.write({}, ())
        report.added, report.vectors = done.memories, done.vectors
        self._manifest = manifest
        return report

    def _update_vectors(self, manifest: Manifest, docs: list[IndexDoc], remove: set[str],
                        want: bool, rebuilt: bool) -> bool:
        current = update_vectors(manifest, docs, remove, want=want, rebuilt=rebuilt,
                                 fingerprint=self._model_fingerprint(), encoder=self.encoder,
                                 lexical=self.lexical, vectors=self.vectors,
                                 where=self.store.display(self.dir))
        if self.vectors.fold_wanted or self.lexical.merge_wanted:
            # Off the request path (issue 29): a detached worker, or the memx server
            # when idle (``compact``).
            from memx_cli.index import fold

            self.vectors.fold_wanted = self.lexical.merge_wanted = False
            fold.request(self.store)
        return current

    def restamp(self, check: Callable[[], object]) -> bool:
        """Where a file watcher keeps this index current (the memx server, when idle):
        record what the changes it took in left out of the state, so that the next
        command without the server need not scan (the change stamp, which memx's own
        writes leave out: ``sync_written``) and the server's next first open of the
        store may trust the index (``held``: the memory folders' marks at which it
        holds every file, which a change the watcher named drops, issue 29). Both are
        taken first, then ``check`` has the watcher bring the index up to date (settle,
        watched check): the index holds the files as they were when they were taken, or
        later; a file added, removed or renamed after them moves a folder's mark, so
        the marks no longer match at the next first open. Recorded only when no other
        process changed the index meanwhile. False when there is nothing to record, or
        the index moved meanwhile."""
        state = read_state(self.state_path)
        if state is None:
            return False
        held = held_marks(self.store)  # (None while a mark is too recent to tell apart)
        if held == state.get("held"):
            held = None
        on = Basis.from_json(state.get("basis"), self.store)
        taken = look(self.store, on) if on is not None and state.get("quick") is None else None
        if taken is None and held is None:
            return False
        check()
        with self.store.lock():
            now = read_state(self.state_path)
            if now is None or self._last is None or not same_index(now, self._last[1]):
                return False
            record: dict[str, Any] = {}
            if (taken is not None and now.get("quick") is None
                    and now.get("basis") == state.get("basis")):
                record = {"quick": taken.digest(), "look": taken.to_json()}
            if held is not None:
                record["held"] = held
            if not record:
                return False
            save_state(self.state_path, {**{k: v for k, v in now.items()
                                            if k not in ("written", "left") or "quick" not in record},
                                         **record})
            self._last = (self._last[0], read_state(self.state_path))
        return True

    def _wipe(self) -> None:
        if self._manifest is not None:
            self._manifest.close()
            self._manifest = None
        self.lexical = LexicalIndex(self.dir / "lexical")
        self.vectors = VectorIndex(self.dir / "vectors.usearch")
        # state.json first, then the manifest: a rebuild killed after this point leaves
        # no state that says "current" and no rows that say "indexed", so the next reader
        # rebuilds instead of answering from a half-deleted or half-built index with a
        # silent empty list (issue 14).
        wipe((self.state_path, self.manifest_path, self.legacy_manifest_path,
              self.dir / "lexical", self.dir / "vectors.usearch", self.vectors.delta_path))

    def compact(self, force: bool = False) -> bool:
        """Fold the vector delta into the main vector file (issue 15) when it has grown
        past ``COMPACT_AT`` rows (any size with ``force``), and merge the full-text
        index's segments when writes left ``MERGE_AT`` or more (issue 29): for a process
        that lives on, when it is idle, the detached worker of a process without one
        (index/fold.py), and at the end of ``memx reindex``. False when nothing was
        done."""
        from memx_cli.index.vectors import COMPACT_AT

        merged = self.lexical.merge(self.store.lock)
        # built without the store lock, which is taken only to swap the new file in
        folded = self.vectors.compact(self.store.lock, 1 if force else COMPACT_AT)
        return merged or folded

    # ------------------------------------------------------------ state

    def built(self) -> bool:
        """Whether the indexes exist (cheap: reads no manifest)."""
        return self.state_path.exists() and self.lexical.path.is_dir()

    def manifest(self) -> Manifest | None:
        if self._manifest is None:
            self._manifest = self._load_manifest()
        return self._manifest
