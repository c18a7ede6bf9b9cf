"""The rest of the library facade: moving memories in and out and changing them by hand
(import, export, stats, edit, anchor, restore, resolve, feedback), each behind the same grant
check as the core verbs. Mixed into memx_cli.api.Memx; not used on its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from memx_cli.store import access
from memx_cli.store.repo import Repo

if TYPE_CHECKING:
    from memx_cli.anchors.anchor import Anchor
    from memx_cli.curator.resolve import Resolution
    from memx_cli.operations.edit import Broken, Edited
    from memx_cli.operations.feedback import FeedbackResult
    from memx_cli.operations.instructions import Candidate
    from memx_cli.operations.stats import Stats
    from memx_cli.store.files import Store
    from memx_cli.store.memory import Memory, Problem
    from memx_cli.store.records import WriteResult


class Guarded:
    """Needs ``repo``, ``role``, ``guard()`` and ``require_read()`` from the facade."""

    repo: Repo
    role: str | None

    def guard(self) -> access.Guard:
        raise NotImplementedError

    def require_read(self, mem: Memory) -> None:
        raise NotImplementedError

    def _for_write(self, prefix: str, what: str) -> tuple[Store, Memory]:
        from memx_cli.store.queries import find

        store, mem = find(self.repo, prefix)
        self.guard().require_write(mem.domain, what, kind=mem.kind)
        return store, mem

    def import_records(self, stream: IO[bytes], raw: bool = False, progress: Any = None
                       ) -> tuple[list[WriteResult], int]:
        """Check every record (fields, then grants), then write them all."""
        import io

        from memx_cli.operations.transfer import import_records, read_records, to_memory

        data = stream.read()
        if self.role is not None:  # bad input or a denied record: nothing is written
            guard = self.guard()
            for where, record in read_records(io.BytesIO(data)):
                mem = to_memory(self.repo, record, where, raw)
                guard.require_write(mem.domain, f"importing a {mem.kind}", kind=mem.kind)
        return import_records(self.repo, io.BytesIO(data), raw=raw, progress=progress)

    def import_instructions(self, paths: list[Path], raw: bool = False,
                            dry_run: bool = False
                            ) -> tuple[list[Candidate], list[WriteResult]]:
        """Import Markdown and agent instruction files (every item found, what writing the
        new ones did); each new item needs write on its domain before any is written."""
        from memx_cli.operations.instructions import import_instructions
        from memx_cli.operations.write import ace_enabled

        check = None
        if self.role is not None:
            guard = self.guard()

            def check(c: Candidate) -> None:
                guard.require_write(c.domain, f"importing a {c.kind}", kind=c.kind)

        return import_instructions(self.repo, paths, dry_run=dry_run,
                                   raw=not ace_enabled(self.repo, raw), check=check)

    def export(self, include_archived: bool = False) -> tuple[list[Memory], list[Problem]]:
        """Every memory the role may read (archived ones too when asked)."""
        from memx_cli.store.queries import load_visible

        found, problems = load_visible(self.repo)
        memories = [m for _, m in found]
        if include_archived:
            for store in self.repo.stores():
                loaded = store.load_all(archived=True)
                memories.extend(loaded.memories)
                problems.extend(loaded.problems)
        guard = self.guard()
        return [m for m in memories if guard.can_read(m.domain)], problems

    def stats(self) -> Stats:
        """Counts of every memory; the memories it names (harmful-heavy, most recalled)
        only from readable domains."""
        from dataclasses import replace

        from memx_cli.operations.stats import collect

        stats = collect(self.repo)
        guard = self.guard()
        return replace(stats, harmful=[m for m in stats.harmful if guard.can_read(m.domain)],
                       top_recalled=[r for r in stats.top_recalled
                                     if guard.can_read(r.memory.domain)])

    def editable(self, prefix: str) -> tuple[Store, Memory]:
        """The memory ``memx edit`` opens: the role needs write on its domain."""
        return self._for_write(prefix, "editing a memory")

    def mendable(self, prefix: str) -> Broken | None:
        """The memory file ``memx edit`` opens as it is, to be mended, when it does not
        parse; None when it does. Not with a role: a broken file has no domain to check
        the grant against, so the role gets the file's own error."""
        from memx_cli.operations.edit import broken

        return broken(self.repo, prefix) if self.role is None else None

    def apply_edit(self, store: Store, original: Memory, data: bytes) -> Edited | None:
        """Write an edited file (checked like any file); None when nothing changed. Moving
        a memory to another domain needs write there too."""
        from memx_cli.errors import InvalidMemoryError
        from memx_cli.operations.edit import apply_edit
        from memx_cli.store import memory as memfmt

        if self.role is not None:
            try:
                edited = memfmt.load(data, store.display(store.path_for(original.id)))
            except InvalidMemoryError:
                edited = original  # apply_edit says what is wrong with it
            kind = "policy" if "policy" in (original.kind, edited.kind) else "fact"
            self.guard().require_write(edited.domain, "editing a memory", kind=kind)
        return apply_edit(store, original, data)

    def attach_anchors(self, prefix: str, specs: Iterable[str],
                       cwd: Path) -> tuple[Memory, tuple[Anchor, ...]]:
        from memx_cli.anchors.anchor import attach

        _, mem = self._for_write(prefix, "anchoring a memory")
        return attach(self.repo, mem.id, specs, cwd)

    def restore(self, prefix: str) -> tuple[Memory, Path]:
        """Bring an archived memory back (write on its domain)."""
        from memx_cli.decay.sweep import resolve_archived, restore

        store, memory_id = resolve_archived(self.repo, prefix)
        mem = store.read_file(store.path_for(memory_id, archived=True))
        self.guard().require_write(mem.domain, "restoring a memory", kind=mem.kind)
        return restore(self.repo, memory_id)

    def resolve(self, memory_id: str | None = None, *, keep: str | None = None,
                supersede: str | None = None, by: str | None = None,
                not_conflict: bool = False, other: str | None = None) -> Resolution:
        """Settle a conflict; every memory it may change needs write on its domain."""
        from memx_cli.curator.resolve import resolve
        from memx_cli.errors import NotFoundError
        from memx_cli.store.queries import find

        if self.role is not None:
            named = [p for p in (memory_id, keep, supersede, by, other) if p is not None]
            for prefix in named:
                _, mem = self._for_write(prefix, "resolving a conflict")
                if prefix == memory_id and other is None and supersede is None:
                    for partner in mem.conflicts_with:
                        try:
                            _, linked = find(self.repo, partner)
                        except NotFoundError:
                            continue  # resolve() reports it
                        self.guard().require_write(linked.domain, "resolving a conflict",
                                                   kind=linked.kind)
        return resolve(self.repo, memory_id, keep=keep, supersede=supersede, by=by,
                       not_conflict=not_conflict, other=other)

    def feedback(self, prefix: str, helpful: bool) -> FeedbackResult:
        """A helpful or harmful vote: a reader's verdict, so it needs read, not write."""
        from memx_cli.operations.feedback import record
        from memx_cli.store.queries import find

        _, mem = find(self.repo, prefix)
        self.require_read(mem)
        return record(self.repo, mem.id, helpful)
