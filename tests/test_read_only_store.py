"""A store this user cannot write (a read-only mount or checkout) can still be searched:
its indexes, lock and recall statistics go to a folder of the user's cache, and nothing
under .memx/ changes; a write fails with one line and changes nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .conftest import Memx


def _files(root: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def _read_only(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store is read-only: for real where permissions apply, else as access() says."""
    real = os.access

    def access(path: object, mode: int, *args: object, **kwargs: object) -> bool:
        if mode & os.W_OK and Path(str(path)) == store:
            return False
        return real(path, mode, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)
    if os.geteuid() != 0:
        for path in [store, *store.rglob("*")]:
            if path.is_dir():
                path.chmod(0o555)  # restored by the test's finally


def test_a_read_only_store_is_searched_with_its_caches_aside(memx: Memx, repo: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    first = memx.ok("add", "Use pnpm, not npm, for the web client").strip()
    store = repo / ".memx"
    before = _files(store)
    _read_only(store, monkeypatch)
    try:
        out = memx.ok("search", "pnpm web client")
        assert out.splitlines()[1].strip() == "Use pnpm, not npm, for the web client"
        assert first.startswith(out.split()[0])
        memx.ok("search", "pnpm web client")  # a second search reads the caches aside
        assert _files(store) == before  # no index, lock or statistic written under .memx/
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        aside = list((base / "memx" / "read-only").iterdir())
        assert len(aside) == 1 and (aside[0] / "cache").is_dir()
        assert (aside[0] / "local" / "recalls.log").is_file()
    finally:
        for path in [store, *store.rglob("*")]:
            if path.is_dir():
                path.chmod(0o755)
