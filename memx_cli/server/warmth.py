"""What the memx server's warm searchers are (server/daemon.py): the key one is kept
under, and the size of the index files it holds open, by which they are kept (issue 29)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memx_cli.generator.search import Searcher


def searcher_key(repo: Any) -> tuple[Any, ...]:
    """What a warm searcher was built from, beside the memory files its watcher follows:
    the configuration layers, the access grants, the sources' pinned commits (issue 27:
    after `memx source update` the server kept searching the old commit's memories) and
    the user's approved sources (`memx source approve` lets a cached one in)."""
    from memx_cli import config as configmod
    from memx_cli.store.access import ACCESS_FILE
    from memx_cli.store.sources import approved_path, lock_path

    files = []
    inputs = [path for _, path in configmod.layer_paths(repo.store.root)]
    inputs += [Path(repo.store.root) / ACCESS_FILE, lock_path(repo), approved_path()]
    for path in inputs:
        try:
            st = path.stat()
            files.append((str(path), st.st_mtime_ns, st.st_size))
        except OSError:
            files.append((str(path), 0, -1))
    settings = {configmod.env_name(k) for k in configmod.SETTINGS}
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k in settings))
    return (str(repo.worktree), str(repo.global_store.root), repo.global_store.exists(),
            repo.store.exists(), tuple(files), env)


def footprint(searcher: Searcher) -> int:
    """Bytes of the index files ``searcher`` holds open (its stores' cache folders)."""
    total = 0
    for index in searcher.indexes:
        folders = [str(index.dir)]
        while folders:
            try:
                entries = os.scandir(folders.pop())
            except OSError:
                continue
            with entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            folders.append(entry.path)
                        elif entry.is_file(follow_symlinks=False):
                            total += entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue
    return total
