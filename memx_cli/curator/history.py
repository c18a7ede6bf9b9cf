"""A memory's history (SPEC 3.2): the supersede chain it belongs to and its conflicts,
for `memx show`. Linked memories are looked up in memories/ and archive/."""

from __future__ import annotations

from dataclasses import dataclass

from memx_cli.errors import InvalidMemoryError
from memx_cli.store.memory import Memory
from memx_cli.store.repo import Repo

MAX_LINKS = 100  # a hand-edited cycle must not loop forever


@dataclass(frozen=True)
class Link:
    id: str
    memory: Memory | None  # None: the file is missing or unreadable
    archived: bool = False


@dataclass(frozen=True)
class History:
    chain: list[Link]        # oldest first; the last one is current (unless superseded)
    conflicts: list[Link]

    @property
    def empty(self) -> bool:
        return len(self.chain) <= 1 and not self.conflicts


def lookup(repo: Repo, memory_id: str) -> Link:
    for store in repo.stores():
        for archived in (False, True):
            path = store.path_for(memory_id, archived)
            if path.exists():
                try:
                    return Link(memory_id, store.read_file(path), archived)
                except InvalidMemoryError:
                    return Link(memory_id, None, archived)
    return Link(memory_id, None)


def history(repo: Repo, mem: Memory) -> History:
    links = {mem.id: Link(mem.id, mem)}
    head = links[mem.id]
    while head.memory is not None and head.memory.superseded_by and len(links) < MAX_LINKS:
        nxt = head.memory.superseded_by
        if nxt in links:
            break
        head = links[nxt] = lookup(repo, nxt)
    members: dict[str, Link] = {head.id: head}
    todo = [head]
    while todo and len(members) < MAX_LINKS:
        link = todo.pop()
        for older in link.memory.supersedes if link.memory is not None else ():
            if older not in members:
                members[older] = links.get(older) or lookup(repo, older)
                todo.append(members[older])
    if mem.id not in members:
        members[mem.id] = links[mem.id]
    chain = sorted(members.values(), key=lambda link: (
        link.memory.created_at if link.memory is not None else "", link.id))
    chain.remove(head)
    chain.append(head)
    return History(chain, [lookup(repo, i) for i in mem.conflicts_with])
