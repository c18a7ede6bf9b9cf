"""Facts and policies as agents write them (SPEC 5, SPEC 7): propose, supersede, list,
deactivate. Every write goes through the ACE write path (sanitizer, Curator, store),
like `memx add`. Access grants are checked before, in one place: memx_cli.api.Memx.
"""

from __future__ import annotations

from dataclasses import dataclass

from memx_cli.clock import now_iso
from memx_cli.errors import MemxError
from memx_cli.operations import write as ace
from memx_cli.store import access, intents
from memx_cli.store.files import Store
from memx_cli.store.memory import Memory
from memx_cli.store.queries import find, load_visible
from memx_cli.store.records import WriteResult, build
from memx_cli.store.repo import Repo


@dataclass(frozen=True)
class Proposal:
    """What an agent wants remembered."""

    content: str
    kind: str = "fact"
    domain: str | None = None
    topic: str | None = None
    tags: tuple[str, ...] = ()
    scope: str = "project"
    required_role: str | None = None
    veracity: str = "stated"


def new_memory(repo: Repo, proposal: Proposal, raw: bool = False) -> Memory:
    """The memory a proposal becomes (every field checked), not written yet."""
    if proposal.required_role is not None:
        access.current_role(proposal.required_role)  # the same one-word check as --role
    mem = build(proposal.content, kind=proposal.kind, scope=repo.normalize_scope(proposal.scope),
                tags=proposal.tags, domain=proposal.domain, topic=proposal.topic,
                veracity=proposal.veracity, raw=raw)
    return mem.replace(required_role=proposal.required_role) if proposal.kind == "policy" else mem


def supersede(repo: Repo, old_prefix: str, content: str, kind: str) -> WriteResult:
    """Replace memory OLD by a new one saying ``content`` (SPEC 3.2: never overwrite).

    The new memory keeps OLD's kind, domain, topic, scope and tags and goes through the
    Curator; whichever memory holds the text afterwards (the new one, or an existing
    duplicate it merged into) supersedes OLD, and OLD gets ``superseded_by``.
    """
    repo.require_store()
    store, old = find(repo, old_prefix)
    if old.kind != kind:
        raise MemxError(f"{old.id} is a {old.kind}, not a {kind}; use supersede_{old.kind}")
    if old.superseded_by:
        raise MemxError(f"{old.id} is already superseded by {old.superseded_by}; supersede "
                        "that one instead")
    new = new_memory(repo, Proposal(content, kind, old.domain, old.topic, old.tags, old.scope,
                                old.required_role))
    stamp = now_iso()
    # An intent first: killed between marking OLD and writing NEW, the next memx writer
    # removes the dangling superseded_by (issue 14).
    with intents.intent(store, "supersede", old=old.id, new=new.id):
        # Mark OLD first: the Curator then neither merges the new text into it nor records
        # a conflict with it (it compares current memories only).
        # write_over: a vote or an edit made since ``find`` is kept (issue 14)
        marked = store.write_over(old, old.replace(superseded_by=new.id, updated_at=stamp))
        try:
            [result] = ace.write(repo, [new.replace(supersedes=(old.id,))])
        except BaseException:
            store.write_over(marked, marked.replace(superseded_by=None, updated_at=old.updated_at))
            raise
        holder = result.memory
        if holder.id != new.id:  # merged into / skipped: the existing memory holds the text
            target = repo.store_for(holder.scope)
            linked = holder.supersedes + (() if old.id in holder.supersedes else (old.id,))
            holder = holder.replace(supersedes=linked, updated_at=stamp)
            target.write_over(result.memory, holder)
            store.write_over(marked, marked.replace(superseded_by=holder.id))
            result = WriteResult(result.action, holder, target.path_for(holder.id), result.other)
    return result


def policies(repo: Repo, include_inactive: bool = False) -> list[tuple[Store, Memory]]:
    """Every current policy (not superseded), active ones only unless asked: this
    repository's and the global store's, then those of the subscribed sources (within
    their domains), the ones `memx context` pushes (a source's store is labelled
    ``source:NAME``)."""
    from memx_cli.store.sources import stores as source_stores

    def current(mem: Memory) -> bool:
        return mem.kind == "policy" and not mem.superseded_by and (mem.active or include_inactive)

    found, _ = load_visible(repo)
    chosen = [(s, m) for s, m in found if current(m)]
    for source, store in source_stores(repo):
        chosen.extend((store, m) for m in store.load_all().memories
                      if current(m) and (not source.domains or m.domain in source.domains))
    return chosen


def deactivate(repo: Repo, prefix: str, active: bool = False) -> Memory:
    """Switch a policy off (or back on): it stays in the store, out of every preamble."""
    store, mem = find(repo, prefix)
    if mem.kind != "policy":
        raise MemxError(f"{mem.id} is a fact, not a policy; only policies can be deactivated")
    if mem.active == active:
        return mem
    return store.write_over(mem, mem.replace(active=active, updated_at=now_iso()))
