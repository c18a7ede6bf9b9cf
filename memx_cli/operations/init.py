"""``memx init``: the store, and the clone's merge driver for its memory files (issue 17)."""

from __future__ import annotations

from pathlib import Path

from memx_cli import git
from memx_cli.operations import merge_driver
from memx_cli.store.repo import Repo, init


def initialize(repo: Repo) -> list[Path]:
    """Create ``.memx/`` (idempotent) and register the merge driver. Returns the paths that
    were newly created."""
    git.require()  # (the driver is registered last: no half-made store without git)
    made = init(repo)
    attributes = repo.store.root / ".gitattributes"
    existed = attributes.exists()
    merge_driver.register(repo.worktree, repo.store.root)
    if not existed and attributes.exists():
        made.append(attributes)
    return made
