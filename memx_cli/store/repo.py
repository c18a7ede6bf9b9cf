"""A repository as memx sees it: its work tree, its ``.memx/`` store, the user's global
store and the configuration that applies (SPEC 2, SPEC 4, SPEC 12)."""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import Any

from memx_cli import config as configmod
from memx_cli import git
from memx_cli.errors import MemxError, NotInitializedError, shown
from memx_cli.fsutil import atomic_write
from memx_cli.store.files import Store
from memx_cli.store.memory import SCOPE_RE, Memory

STORE_DIR = ".memx"


def global_store_root() -> Path:
    """The user's own store outside any repository (SPEC 4), under the XDG data dir."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "memx"


class Repo:
    def __init__(self, worktree: Path, overrides: dict[str, Any] | None = None):
        self.worktree = worktree
        self.store = Store(worktree / STORE_DIR, "project", display_base=worktree,
                           masker=self.mask)
        self.global_store = Store(global_store_root(), "global", masker=self.mask)
        self._overrides = overrides or {}

    @classmethod
    def discover(cls, cwd: Path | None = None, overrides: dict[str, Any] | None = None) -> Repo:
        return cls(git.find_worktree(cwd or Path.cwd()), overrides)

    def require_store(self) -> Repo:
        if not self.store.exists():
            raise NotInitializedError(
                f"no memx store in {self.worktree}; run 'memx init' first"
            )
        return self

    @cached_property
    def config(self) -> configmod.Config:
        root = self.store.root if self.store.exists() else None
        return configmod.load(root, self._overrides)

    def mask(self, mem: Memory) -> Memory:
        """``mem`` through the privacy gate, with this repository's custom patterns."""
        from memx_cli.privacy.sanitizer import for_config, sanitize_memory

        return sanitize_memory(mem, for_config(self.config))

    def stores(self) -> list[Store]:
        """The stores visible from this repository: the project's, then the global one."""
        found = [self.store] if self.store.exists() else []
        if self.global_store.exists():
            found.append(self.global_store)
        return found

    def current_workspace(self) -> str:
        branch = git.current_branch(self.worktree)
        if not branch:
            raise MemxError("HEAD is detached; name the workspace: --scope workspace:<name>")
        return "workspace:" + branch

    def normalize_scope(self, scope: str | None) -> str:
        """Accept global, project, workspace (= the current branch) or workspace:<name>."""
        if scope is None or scope == "project":
            return "project"
        if scope == "workspace":
            scope = self.current_workspace()
        if not SCOPE_RE.match(scope):
            raise MemxError(
                f"invalid scope {shown(scope)}; use global, project, workspace or workspace:<name>"
            )
        return scope

    def store_for(self, scope: str) -> Store:
        return self.global_store if scope == "global" else self.store


def init(repo: Repo) -> list[Path]:
    """Create ``.memx/`` (idempotent). Returns the paths that were newly created."""
    made = repo.store.create()
    cfg = repo.store.root / "config.yaml"
    if not cfg.exists():
        atomic_write(cfg, configmod.HEADER.encode("utf-8"))
        made.append(cfg)
    return made
