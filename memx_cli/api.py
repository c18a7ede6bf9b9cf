"""memx as a library: ``Memx``, the one facade the CLI and the MCP server both call.

    from memx_cli.api import Memx

    mx = Memx.open("path/to/repo", agent="claude", role="agent")
    mx.add("The payment webhook retries 5 times", domain="codebase")
    for hit in mx.search("webhook retries").hits:
        print(hit.id, hit.doc["content"])

A ``Memx`` is one repository seen by one agent (its working notes) with one role (its
access grants, .memx/access.yaml). Every read and every write goes through the same
grant check (store/access.py ``Guard``): reads leave out the domains the role may not
read, writes need ``write`` on the domain they touch. Writes go through the ACE write
path (operations/write.py: sanitizer, Curator, store); a recall is counted only for a
result actually returned, after the access filter. Without a role (a person at a
terminal) nothing is filtered or refused. Errors are ``MemxError`` subclasses with one
line to show.

Cheap to import (no numpy, usearch, tantivy or click): the work is imported by the
method that needs it. Results are the library's own records (``SearchResult``,
``WriteResult``, ``Memory`` ...); memx_cli/jsonout.py turns them into the JSON the CLI's
``--json`` and the MCP tools print.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memx_cli.operations.guarded import Guarded
from memx_cli.store import access, notes
from memx_cli.store.repo import Repo

if TYPE_CHECKING:
    from memx_cli.anchors.verify import FixResult, Report
    from memx_cli.curator.review import ConflictPair
    from memx_cli.decay.sweep import SweepReport
    from memx_cli.generator.context import Preamble
    from memx_cli.generator.search import Searcher, SearchResult
    from memx_cli.operations.edit import Removal
    from memx_cli.operations.session import Consolidation, Item
    from memx_cli.services import Services
    from memx_cli.store.files import Store
    from memx_cli.store.memory import Memory
    from memx_cli.store.records import WriteResult

__all__ = ["Memx"]


class Memx(Guarded):
    """One repository's memory, as one agent with one role sees and changes it.

    The core verbs are here; import, export, edit, anchor, restore, resolve and feedback
    come from operations/guarded.py, behind the same check."""

    def __init__(self, repo: Repo, *, agent: str | None = None, role: str | None = None,
                 session: str | None = None, services: Services | None = None):
        self.repo = repo.require_store()
        self.agent = notes.agent_name(agent)
        self.role = access.current_role(role)
        self._session = session
        # ``services``: what a long-lived host lends (memx_cli/services.py): the memx
        # server's or the MCP server's warm searcher, its index for a write
        self.services = services
        self._searcher: Searcher | None = None

    @classmethod
    def open(cls, path: str | os.PathLike[str] = ".", *, agent: str | None = None,
             role: str | None = None, session: str | None = None,
             overrides: dict[str, Any] | None = None,
             services: Services | None = None) -> Memx:
        """The store of the repository at (or above) ``path``; role defaults to $MEMX_ROLE,
        agent to $MEMX_AGENT, session to $MEMX_SESSION."""
        return cls(Repo.discover(Path(path), overrides), agent=agent, role=role,
                   session=session, services=services)

    # ------------------------------------------------------------------ access

    def guard(self) -> access.Guard:
        """This role's grants, read now: an edit of access.yaml applies at once."""
        return access.guard(self.repo, self.role)

    def can_read(self, mem: Memory) -> bool:
        return self.guard().can_read(mem.domain)

    def require_read(self, mem: Memory) -> None:
        """Refuse to show one memory of a domain the role may not read."""
        if not self.can_read(mem):
            raise access.AccessDeniedError(
                f"role {self.role!r} has none access to domain "
                f"{mem.domain or access.NO_DOMAIN!r}; {mem.id} is not shown to it")

    @property
    def session(self) -> str:
        """The session ``remember`` tags items with (operations/session.py costs ~50 ms to
        import, so only when asked)."""
        from memx_cli.operations.session import session_name

        return session_name(self._session)

    # ------------------------------------------------------------------- reads

    @property
    def searcher(self) -> Searcher:
        """One warm searcher per facade: the indexes stay open between searches (the
        host's, kept across facades, when one lends it)."""
        if self._searcher is None:
            if self.services is not None:
                self._searcher = self.services.searcher(self.repo)
            else:
                from memx_cli.generator.search import Searcher

                self._searcher = Searcher(self.repo)
        return self._searcher

    def search(self, query: str, *, mode: str = "hybrid", scope: str | None = None,
               limit: int | None = None, budget: int | None = None,
               include_archived: bool = False, explain: bool = False,
               hide: Collection[str] = (), closest: bool = False) -> SearchResult:
        """Hybrid (or keyword / semantic) search; ``limit`` counts readable results that
        are not in ``hide`` (ids left out before the limit is filled)."""
        guard = self.guard()
        role = self.role

        def allow(doc: dict[str, Any]) -> bool:
            return doc.get("id") not in hide and (role is None
                                                  or guard.can_read(doc.get("domain")))

        return self.searcher.search(
            query, mode=mode, scope=scope, limit=limit, budget=budget,
            include_archived=include_archived, explain=explain,
            allow=allow if hide or role is not None else None, closest=closest)

    def context(self, task: str, budget: int | None = None) -> Preamble:
        """The preamble for ``task``: policies, this agent's notes, readable facts."""
        from memx_cli.generator import context

        return context.build(self.repo, task, agent=self.agent, role=self.role, budget=budget,
                             searcher=self.searcher, can_read=self.guard().can_read)

    def memories(self, *, kind: str | None = None, scope: str | None = None,
                 tags: Iterable[str] = (), section: str | None = None
                 ) -> tuple[list[str], list[Memory], list[str]]:
        """(the ids of every readable memory, those matching the filters, problems).
        With a host's watched warm searcher (the memx or MCP server) from the index's
        stored documents, else from the memory files (memx_cli/index/listing.py)."""
        from memx_cli.store.queries import load_visible, select

        guard = self.guard()
        scope = self.repo.normalize_scope(scope) if scope else None
        if self.services is not None:  # a host's searcher: its stores watched
            from memx_cli.index.listing import listed

            entries, problems = listed(self.searcher, self.repo.stores())
            entries = [e for e in entries if guard.can_read(e.doc.get("domain"))]
            # select() decides; these only spare making Memories it would drop anyway
            wanted = [e.memory for e in entries
                      if (kind is None or e.doc.get("kind", "fact") == kind)
                      and (scope is None or e.doc.get("scope") == scope)
                      and (section is None or e.doc.get("section") == section)]
            chosen = select(wanted, kind=kind, scope=scope, tags=tuple(tags), section=section)
            return [str(e.doc["id"]) for e in entries], chosen, problems
        found, failed = load_visible(self.repo)
        readable = [m for _, m in found if guard.can_read(m.domain)]
        chosen = select(readable, kind=kind, scope=scope, tags=tuple(tags), section=section)
        return [m.id for m in readable], chosen, [str(p) for p in failed]

    def get(self, prefix: str) -> tuple[Store, Memory]:
        """The current memory whose id starts with ``prefix`` (readable by the role)."""
        from memx_cli.store.queries import find

        store, mem = find(self.repo, prefix)
        self.require_read(mem)
        return store, mem

    def policies(self, include_inactive: bool = False) -> list[Memory]:
        """Current policies: pushed to every role, so not filtered (SPEC 5)."""
        return [m for _, m in self.policy_origins(include_inactive)]

    def policy_origins(self, include_inactive: bool = False) -> list[tuple[str, Memory]]:
        """``policies`` with the store each comes from: ``project``, ``global`` or
        ``source:NAME`` (a subscribed source's, pushed like the others)."""
        from memx_cli.operations.policy import policies

        return [(store.label, m) for store, m in policies(self.repo, include_inactive)]

    def conflicts(self, scan: bool = True) -> tuple[list[ConflictPair], list[str]]:
        """Recorded and detected conflicts whose two sides the role may read."""
        problems, pairs = self.iter_conflicts(scan)
        return sorted(pairs, key=lambda p: (not p.recorded, p.older.id, p.newer.id)), problems

    def iter_conflicts(self, scan: bool = True,
                       progress: Callable[[str, int, int], None] | None = None
                       ) -> tuple[list[str], Iterator[ConflictPair]]:
        """``conflicts`` as they are found (the recorded ones first), for a long scan."""
        from memx_cli.curator.review import iter_conflicts

        problems, pairs = iter_conflicts(self.repo, scan=scan, progress=progress)
        guard = self.guard()
        return problems, (p for p in pairs if guard.can_read(p.older.domain)
                          and guard.can_read(p.newer.domain))

    def verify(self) -> Report:
        """Every readable anchored memory checked against the work tree."""
        from memx_cli.anchors.verify import verify_all

        report = verify_all(self.repo)
        guard = self.guard()
        return replace(report, checked=tuple(c for c in report.checked
                                             if guard.can_read(c.memory.domain)))

    # ------------------------------------------------------------------ writes

    def add(self, content: str, *, kind: str = "fact", domain: str | None = None,
            topic: str | None = None, tags: Sequence[str] = (), scope: str = "project",
            anchors: Sequence[str] = (), cwd: Path | None = None, raw: bool = False,
            veracity: str = "stated", required_role: str | None = None,
            source: Mapping[str, Any] | None = None) -> WriteResult:
        """Write a fact or a policy through the ACE write path (``raw``: verbatim);
        ``source`` records where it came from (default ``{type: manual}``)."""
        from memx_cli.operations import write as ace
        from memx_cli.operations.policy import Proposal, new_memory

        raw = not ace.ace_enabled(self.repo, raw)
        mem = new_memory(self.repo, Proposal(content, kind, domain, topic, tuple(tags), scope,
                                             required_role, veracity), raw=raw)
        if source is not None:
            mem = mem.replace(source=dict(source))
        # the user's global store reaches every repository: an explicit grant, like a policy
        strict = kind == "policy" or mem.scope == "global"
        self.guard().require_write(mem.domain, _writing(kind),
                                   kind="policy" if strict else "fact")
        if anchors:
            from memx_cli.anchors.anchor import create, require_repo_scope

            require_repo_scope(mem.scope)
            mem = mem.replace(anchors=create(self.repo.worktree, anchors,
                                             cwd or self.repo.worktree))
        [result] = ace.write(self.repo, [mem], raw=raw, services=self.services)
        return result

    def supersede(self, old_id: str, content: str, kind: str = "fact") -> WriteResult:
        """Replace memory OLD (kept, marked superseded) by one saying ``content``."""
        from memx_cli.operations.policy import supersede
        from memx_cli.store.queries import find

        _, old = find(self.repo, old_id)
        self.guard().require_write(old.domain, f"superseding a {old.kind}", kind=old.kind)
        return supersede(self.repo, old.id, content, kind)

    def deactivate(self, policy_id: str, active: bool = False) -> Memory:
        """Switch a policy off (or back on); it stays in the store."""
        from memx_cli.operations.policy import deactivate
        from memx_cli.store.queries import find

        _, mem = find(self.repo, policy_id)
        self.guard().require_write(mem.domain, "deactivating a policy")
        return deactivate(self.repo, mem.id, active)

    def remove(self, prefix: str, relink: bool = False) -> tuple[Memory | None, Path]:
        """Delete one memory file (git keeps its history)."""
        done = self.remove_memory(prefix, relink)
        return done.memory, done.path

    def remove_memory(self, prefix: str, relink: bool = False) -> Removal:
        """Delete one memory file; one that others link to (supersede chain, conflict) is
        refused with their list unless ``relink`` mends their links (each needs write)."""
        return self.remove_memories([prefix], relink)[0]

    def remove_memories(self, prefixes: Sequence[str], relink: bool = False) -> list[Removal]:
        """Delete several memory files as ``remove_memory`` one: every id resolved and
        every permission and link checked first, so a refusal removes nothing."""
        from memx_cli.curator.links import dependants
        from memx_cli.operations.edit import remove_memories

        for prefix in prefixes:
            mem = self._existing(prefix)
            if mem is not None:
                self.guard().require_write(mem.domain, "deleting a memory", kind=mem.kind)
                if relink:
                    for dep in dependants(self.repo, mem.id):
                        self.guard().require_write(dep.memory.domain, "relinking a memory",
                                                   kind=dep.memory.kind)
            elif self.role is not None:
                self.guard().require_write(access.ANY, "deleting an unreadable file")
        return remove_memories(self.repo, prefixes, relink)

    def sweep(self, dry_run: bool = False) -> SweepReport:
        """Archive what the forgetting curve let go; a real sweep needs write on ``*``."""
        from memx_cli.decay.sweep import sweep

        guard = self.guard()
        if not dry_run:
            guard.require_write_all("a real sweep")
        report = sweep(self.repo, dry_run=dry_run)
        return replace(report, moved=[w for w in report.moved
                                      if guard.can_read(w.memory.domain)])

    def consolidate(self, dry_run: bool = False) -> Consolidation:
        """Promote recurring session items, merge duplicate facts (write on ``*``)."""
        from memx_cli.operations.session import consolidate

        if not dry_run:
            self.guard().require_write_all("consolidating memory")
        return consolidate(self.repo, dry_run=dry_run)

    def fix_anchors(self, prefix: str) -> FixResult:
        """Re-anchor memory ``prefix`` to where its passages are now."""
        from memx_cli.anchors.verify import fix

        _, mem = self.get(prefix)
        self.guard().require_write(mem.domain, "re-anchoring a memory", kind=mem.kind)
        return fix(self.repo, mem.id)

    # ------------------------------------- private to this agent or this session

    def remember(self, content: str, mark: bool = False) -> Item:
        """Keep a session item (.memx/local/, never committed) for consolidation."""
        from memx_cli.operations.session import remember

        return remember(self.repo, content, self.session, mark)

    def notes(self) -> str:
        return notes.read(self.repo, self.agent)

    def set_notes(self, text: str) -> str:
        return notes.write(self.repo, text, self.agent)

    def append_note(self, text: str) -> str:
        return notes.append(self.repo, text, self.agent)

    def clear_notes(self) -> bool:
        return notes.clear(self.repo, self.agent)

    def _existing(self, prefix: str) -> Memory | None:
        from memx_cli.errors import InvalidMemoryError
        from memx_cli.store.files import resolve

        store, memory_id = resolve(self.repo.stores(), prefix)
        try:
            return store.read_file(store.path_for(memory_id))
        except InvalidMemoryError:
            return None


def _writing(kind: str) -> str:
    return "proposing a policy" if kind == "policy" else "writing a fact"
