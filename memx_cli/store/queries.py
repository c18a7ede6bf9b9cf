"""Find and select memories across the stores a repository sees (project, then global)."""

from __future__ import annotations

from collections.abc import Iterable

from memx_cli.store import memory as memfmt
from memx_cli.store.files import Loaded, Store, resolve
from memx_cli.store.memory import Memory
from memx_cli.store.records import normalize_labels
from memx_cli.store.repo import Repo


def load_visible(repo: Repo) -> tuple[list[tuple[Store, Memory]], list[memfmt.Problem]]:
    """Every memory this repository can see (project, then global), plus file problems."""
    found: list[tuple[Store, Memory]] = []
    problems: list[memfmt.Problem] = []
    for store in repo.stores():
        loaded: Loaded = store.load_all()
        found.extend((store, m) for m in loaded.memories)
        problems.extend(loaded.problems)
    return found, problems


def select(
    memories: Iterable[Memory],
    *,
    kind: str | None = None,
    scope: str | None = None,
    tags: Iterable[str] = (),
    section: str | None = None,
) -> list[Memory]:
    wanted = set(normalize_labels(tags, "tag"))
    chosen = []
    for mem in memories:
        if kind and mem.kind != kind:
            continue
        if scope and mem.scope != scope:
            continue
        if section and mem.section != section:
            continue
        if wanted and not wanted.issubset(mem.tags):
            continue
        chosen.append(mem)
    return chosen


def find(repo: Repo, prefix: str) -> tuple[Store, Memory]:
    store, memory_id = resolve(repo.stores(), prefix)
    return store, store.read_file(store.path_for(memory_id))
