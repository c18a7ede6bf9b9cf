"""The MCP server (SPEC 7): `memx mcp` serves one repository's memory over stdio.

A thin front end, like the CLI: every tool is one call of the library facade
(memx_cli.api.Memx: access grants, sanitizing, curation, recall counting) whose result is
the same JSON object the matching CLI command prints with ``--json``
(memx_cli/jsonout.py). One facade lives as long as the server, so the search indexes
stay open and the agent's name, role and session are fixed when the server starts. A
library error becomes an MCP error carrying the CLI's one-line message.

Imported only by `memx mcp`: the MCP SDK costs ~0.3 s to import and nothing else needs it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS
from pydantic import Field

from memx_cli import __version__
from memx_cli.agents.mcp_stdio import Answered, wire_streams
from memx_cli.errors import EXIT_INTERNAL, MemxError
from memx_cli.jsonout import (
    conflict_json,
    item_json,
    search_json,
    sweep_json,
    verify_json,
    write_json,
)
from memx_cli.store.repo import Repo

if TYPE_CHECKING:
    from memx_cli.freshness.drain import Drain
    from memx_cli.freshness.journal import Watcher
    from memx_cli.generator.search import Searcher
    from memx_cli.index import StoreIndex
    from memx_cli.store.files import Store

T = TypeVar("T")
log = logging.getLogger("memx")
# Seconds without a call before the server makes the e5 vectors a question in another
# language left missing (generator/e5voice.py: a search here encodes at most
# SERVED_ENCODE of its candidates, as in the memx server).
QUIET = 1.0
# Seconds without a call before the stores' state is recorded after searches (``keep``:
# a look at the folders and git's index, then a write of the state; the memx server's
# idle upkeep waits as long, server.upkeep.COMPACT_AFTER).
KEEP_AFTER = 5.0
INSTRUCTIONS = (
    "Long-term memory of this git repository (memx). Search memory before answering "
    "questions about the codebase, its conventions or past decisions, and before "
    "re-investigating a failure; propose a fact when you learn something a later session "
    "would need (a cause, a fix, a convention, a decision). Keep your own progress in "
    "your notes; follow every policy in get_context.")


class WarmSearch:
    """What the MCP server lends its facade (memx_cli/services.py): one searcher of its
    repository whose stores its file watcher watches. Its writes open their own index,
    as a command run in a process of its own does; the watcher then tells the searcher
    which files they changed. As in the memx server, a large store's first open trusts
    its index where the memory folders are as it last held every file (issue 29,
    ``Watched.trust_first``); the full check follows the first answer (``verify``)."""

    def __init__(self, watcher: Watcher | Drain):
        self.watcher = watcher
        self._searcher: Searcher | None = None

    def searcher(self, repo: Repo) -> Searcher:
        if self._searcher is None:
            from memx_cli.freshness.journal import Watched
            from memx_cli.generator.e5voice import SERVED_ENCODE
            from memx_cli.generator.search import Searcher

            self._searcher = Searcher(repo, freshness=Watched(self.watcher, trust_first=True))
            self._searcher.e5_budget = SERVED_ENCODE  # the rest: MemoryService.fill_e5
        return self._searcher

    def e5_pending(self) -> bool:
        return self._searcher is not None and self._searcher.e5_pending()

    def unverified(self) -> bool:
        """Whether a store's first open trusted its index and its full check is not yet
        taken in."""
        return self._searcher is not None and bool(
            getattr(self._searcher.freshness, "unverified", None))

    def verify(self) -> bool:
        """Begin the full check a trusted first open put off (a thread of its own), or
        take in what it found (``freshness.journal.verify_trusted``). True when none is
        left."""
        from memx_cli.freshness.journal import verify_trusted

        searcher = self._searcher
        return searcher is None or verify_trusted(searcher.freshness, searcher.repo.worktree)

    def write_index(self, store: Store, model: str | None) -> StoreIndex | None:
        return None


class MemoryService:
    """What one server keeps between calls: one facade (memx_cli.api.Memx, so the search
    indexes stay warm and the agent, role and session are fixed) and a lock. Each method
    is one facade call turned into the JSON of the matching CLI command."""

    def __init__(self, repo: Repo, agent: str | None = None, role: str | None = None,
                 session_name: str | None = None):
        from memx_cli.api import Memx
        from memx_cli.freshness.drain import open_watcher

        # Issue 15: the stores are watched, so a call re-checks only a store whose files
        # changed (a write in place included) instead of stat-ing every file each second.
        self.watcher = open_watcher()
        self.warm = WarmSearch(self.watcher)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        self.memx = Memx(repo, agent=agent, role=role, session=session_name or f"mcp-{stamp}",
                         services=self.warm)
        self._lock = threading.Lock()  # the SDK runs sync tools on worker threads
        self.opened = False  # a search or a context has run (the indexes are open)
        # A call has begun since the idle fill started (it gives way before its next
        # batch), and when the last one began.
        self._called = threading.Event()
        self.last_call = time.monotonic()
        self.wake: anyio.Event | None = None  # set on the loop: a search left a fill to do
        # A search or a context ran since the store's state was last recorded: its
        # watched checks may have taken in changes the state then leaves out (``keep``).
        self.unkept = False

    def call(self, fn: Callable[[], T]) -> T:
        """Run one library call; MemxError -> an MCP error with the CLI's message."""
        self._begun()
        with self._lock:
            return self._run(fn)

    def _begun(self) -> None:
        self._called.set()
        self.last_call = time.monotonic()

    async def read(self, fn: Callable[[], T]) -> T:
        """A search or a context on the event loop itself once the store is open, when no
        other call runs: no worker thread to wake and wait for (issue 29: the SDK runs
        a plain function on one, a hand-off each way). The first (it opens the indexes
        and loads the model) and one arriving during a longer call (a sweep, a scan)
        run on a worker thread, so the loop keeps reading meanwhile."""
        self._begun()
        if self.opened and self._lock.acquire(blocking=False):
            try:
                result = self._run(fn)
            finally:
                self._lock.release()
        else:
            result = await anyio.to_thread.run_sync(self.call, fn)
            self.opened = True
        self.unkept = True
        if self.wake is not None:
            self.wake.set()
        return result

    def answered(self) -> None:
        """A reply was written (``mcp_stdio.Answered``): the full check that a trusted
        first open put off begins now, on a thread of its own, or what it found is taken
        in (issue 29: here, not in a search, which never waits for the take-in's commit).
        Skipped while a call runs: the quiet loop (``fill_when_idle``) comes back to it."""
        if not self.warm.unverified() or not self._lock.acquire(blocking=False):
            return
        try:
            self.warm.verify()
        finally:
            self._lock.release()

    def fill_e5(self) -> bool:
        """Make the e5 vectors a question in another language left missing (Searcher.
        fill_e5), a few at a time, giving way to a call: one that comes waits for the
        batch under way at most. False when it gave way (or a call was running)."""
        self._called.clear()
        if not self._lock.acquire(blocking=False):
            return False
        try:
            searcher = self.warm._searcher
            return searcher is None or searcher.fill_e5(self._called.is_set)
        except Exception as exc:  # never end the server; the next quiet second retries
            log.warning(f"filling e5 vectors skipped: {exc}")
            return True
        finally:
            self._lock.release()

    def keep(self) -> bool:
        """The memx server's idle upkeep of the searcher's stores (``server.upkeep.
        compact``, issue 29): their vector deltas and text segments folded past their
        thresholds and the logs of the search statistics folded (else the search that
        crosses a log's size folds them: ~2.5 s at 100k memories), then recorded in each
        store's state what the changes the watcher took in left out: the change stamp,
        for a command without a server, and the folders' marks at which the index holds
        every file, for the next start's trusted first open. Gives way to a call before
        each step (a call that comes waits for the step under way at most); False when
        it did (or a call was running)."""
        from memx_cli.freshness.upkeep import compact

        self._called.clear()
        searcher = self.warm._searcher
        if not self._lock.acquire(blocking=False):
            return False
        try:
            done = searcher is None or compact([searcher], self._called.is_set)
        finally:
            self._lock.release()
        if done and not self._called.is_set():
            self.unkept = False
        return done

    async def fill_when_idle(self) -> None:
        """Run for the server's life: after a search or a context, wait for a quiet
        second, then take in a store's full check after its trusted first open when it
        is done (``answered``) and fill the e5 vectors a search left to make, on a worker
        thread; once the quiet spell reaches KEEP_AFTER, the stores' upkeep (``keep``:
        folds and their state), on a worker thread too. Until the next search the loop sleeps."""
        self.wake = anyio.Event()
        while True:
            await self.wake.wait()
            self.wake = anyio.Event()
            while self.warm.e5_pending() or self.warm.unverified() or self.unkept:
                await anyio.sleep(QUIET)
                quiet = time.monotonic() - self.last_call
                if quiet < QUIET:
                    continue
                self.answered()
                if self.warm.e5_pending():
                    await anyio.to_thread.run_sync(self.fill_e5)
                elif self.unkept and quiet >= KEEP_AFTER and not self.warm.unverified():
                    await anyio.to_thread.run_sync(self.keep)

    def close(self) -> None:
        """Stop a fill under way after its batch."""
        self._called.set()

    @staticmethod
    def _run(fn: Callable[[], T]) -> T:
        try:
            return fn()
        except MemxError as exc:
            # 3, and 4 (a custom pattern ran over its time): not the caller's arguments
            code = INTERNAL_ERROR if exc.exit_code >= EXIT_INTERNAL else INVALID_PARAMS
            raise MCPError(code, str(exc)) from None

    def search(self, query: str, mode: str, scope: str | None, limit: int) -> dict[str, Any]:
        from memx_cli.generator.context import unreviewed

        # issue 13: ace.context.reviewed_only (left out before the limit is filled)
        return search_json(self.memx.search(query, mode=mode, scope=scope, limit=limit,
                                            hide=unreviewed(self.memx.repo)))

    def context(self, task: str, budget: int | None) -> dict[str, Any]:
        from memx_cli.generator.context import to_json

        return {"context": to_json(self.memx.context(task, budget))}

    def propose(self, content: str, kind: str, **fields: Any) -> dict[str, Any]:
        # issue 13: `memx review` shows who proposed it
        origin = {"type": "agent", "agent": self.memx.agent, "via": "mcp"}
        return write_json(self.memx.add(content, kind=kind, veracity="inferred", source=origin,
                                        **fields))

    def supersede(self, old_id: str, content: str, kind: str) -> dict[str, Any]:
        return write_json(self.memx.supersede(old_id, content, kind))

    def remember(self, content: str, mark: bool) -> dict[str, Any]:
        return {"remembered": item_json(self.memx.remember(content, mark))}

    def notes(self, text: str, replace: bool) -> dict[str, Any]:
        body = self.memx.set_notes(text) if replace else self.memx.append_note(text)
        return {"notes": {"agent": self.memx.agent, "text": body}}

    def conflicts(self, scan: bool) -> dict[str, Any]:
        pairs, _ = self.memx.conflicts(scan)
        return {"conflicts": [conflict_json(p) for p in pairs]}

    def sweep(self, dry_run: bool) -> dict[str, Any]:
        return {"sweep": sweep_json(self.memx.sweep(dry_run))}

    def consolidate(self, dry_run: bool) -> dict[str, Any]:
        from memx_cli.operations.session import consolidation_json

        return {"consolidated": consolidation_json(self.memx.consolidate(dry_run))}

    def verify(self, stale_only: bool) -> dict[str, Any]:
        return verify_json(self.memx.verify(), stale_only)


Text = Annotated[str, Field(min_length=1, max_length=100_000)]
MemoryId = Annotated[str, Field(description="A memory id or a unique prefix of one.")]
Domain = Annotated[str | None, Field(description="conventions, decisions, codebase, ...")]


def build_server(service: MemoryService) -> MCPServer:
    server: MCPServer = MCPServer("memx", version=__version__, instructions=INSTRUCTIONS)
    call = service.call

    @server.tool()
    async def search_memory(
            query: Text,
            mode: Literal["keyword", "semantic", "hybrid"] = "hybrid",
            scope: Annotated[str | None, Field(description="project (default), global, "
                                               "workspace or workspace:NAME")] = None,
            limit: Annotated[int, Field(ge=1, le=100)] = 5) -> dict[str, Any]:
        """Search long-term memory. hybrid (default) blends words and meaning; keyword is
        full text only; semantic fuses full text and vectors by rank. Results carry
        anchor verification (verified / stale / unverifiable)."""
        return await service.read(lambda: service.search(query, mode, scope, limit))

    @server.tool()
    async def get_context(task: Text,
                    budget: Annotated[int | None, Field(ge=200)] = None) -> dict[str, Any]:
        """The preamble for a task: every active policy, your working notes and up to 5
        keyword-matched facts (tasks of 20+ characters). Verify load-bearing items with
        search_memory."""
        return await service.read(lambda: service.context(task, budget))

    @server.tool()
    def propose_fact(content: Text, domain: Domain = None, topic: str | None = None,
                     tags: list[str] | None = None, scope: str = "project") -> dict[str, Any]:
        """Add a fact (something true about this repository). Duplicates are merged and
        contradictions recorded, as for `memx add`; the result says which. Needs write access
        to the domain when the server runs with a role."""
        return call(lambda: service.propose(content, "fact", domain=domain, topic=topic,
                                            tags=tuple(tags or ()), scope=scope))

    @server.tool()
    def supersede_fact(old_id: MemoryId, content: Text) -> dict[str, Any]:
        """Replace a fact that is no longer true; the old one is kept, marked superseded."""
        return call(lambda: service.supersede(old_id, content, "fact"))

    @server.tool()
    def propose_policy(rule: Text, domain: Domain = None, topic: str | None = None,
                       for_role: Annotated[str | None, Field(
                           description="whom the rule addresses (shown, not enforced)")] = None
                       ) -> dict[str, Any]:
        """Add a policy: a rule pushed to every agent's context. Needs write access to the
        domain when the server runs with a role."""
        return call(lambda: service.propose(rule, "policy", domain=domain, topic=topic,
                                            required_role=for_role))

    @server.tool()
    def supersede_policy(old_id: MemoryId, rule: Text) -> dict[str, Any]:
        """Replace a policy by a new rule (same domain); the old one is kept, superseded."""
        return call(lambda: service.supersede(old_id, rule, "policy"))

    @server.tool()
    def remember(content: Text, mark: bool = False) -> dict[str, Any]:
        """Keep an item for this session only. consolidate_memory promotes it to a fact
        once it recurs in another session, or at once when mark is true."""
        return call(lambda: service.remember(content, mark))

    @server.tool()
    def record_observation(observation: Text) -> dict[str, Any]:
        """Append a dated line to your private working notes (shown in your context)."""
        return call(lambda: service.notes(observation, replace=False))

    @server.tool()
    def update_my_notes(notes_text: Annotated[str, Field(max_length=100_000)]) -> dict[str, Any]:
        """Replace your private working notes (what you are in the middle of)."""
        return call(lambda: service.notes(notes_text, replace=True))

    @server.tool()
    def list_memory_conflicts(scan: bool = True) -> dict[str, Any]:
        """Recorded conflicts, plus (scan) contradictions found among similar memories,
        each with a suggested resolution."""
        return call(lambda: service.conflicts(scan))

    @server.tool()
    def run_decay_sweep(dry_run: bool = False) -> dict[str, Any]:
        """Archive memories the forgetting curve let go (files move to .memx/archive/).
        With a role, a real sweep needs write access to every domain ("*")."""
        return call(lambda: service.sweep(dry_run))

    @server.tool()
    def consolidate_memory(dry_run: bool = False) -> dict[str, Any]:
        """Promote recurring or marked session items to facts, merge near-duplicate
        facts, prune stale session items."""
        return call(lambda: service.consolidate(dry_run))

    @server.tool()
    def verify_memory(stale_only: bool = False) -> dict[str, Any]:
        """Check every anchored memory against the working tree."""
        return call(lambda: service.verify(stale_only))

    return server


def serve(repo: Repo, agent: str | None = None, role: str | None = None) -> None:
    """Run the server on stdin/stdout until the client closes the connection."""
    from mcp.server.stdio import stdio_server

    service = MemoryService(repo, agent, role)
    server = build_server(service)
    stdin, stdout = wire_streams()
    if stdout is not None:  # (else the quiet loop begins the check put off)
        stdout = Answered(stdout, service.answered)

    async def run() -> None:
        async with (stdio_server(stdin=stdin, stdout=stdout) as (read_stream, write_stream),
                    anyio.create_task_group() as tasks):
            tasks.start_soon(service.fill_when_idle)
            lowlevel = server._lowlevel_server  # what MCPServer.run("stdio") runs
            try:
                await lowlevel.run(read_stream, write_stream,
                                   lowlevel.create_initialization_options())
            finally:
                service.close()
                tasks.cancel_scope.cancel()

    try:
        anyio.run(run)
    finally:
        service.watcher.stop()
