"""What each configuration file held before memx first wrote to it, so that
``memx setup --remove`` takes out the objects memx created and nothing the user had (an
empty ``"servers": {}`` of their own stays, and so does a ``memx`` server entry that was
there before memx's first write, even one identical to memx's). Kept per user, outside any repository, in
``$XDG_STATE_HOME/memx/setup.json``; only key paths, never file contents. Without a
record (another clone, another user) removal drops whatever memx's removal left empty.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from memx_cli.agents.setup import jsonconf
from memx_cli.agents.setup.base import Keep, Part
from memx_cli.errors import MemxError
from memx_cli.fsutil import atomic_write


def state_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "memx" / "setup.json"


def _load() -> dict[str, list[list[str]]]:
    try:
        data = json.loads(state_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return files if isinstance(files, dict) else {}


def _save(files: dict[str, list[list[str]]]) -> None:
    atomic_write(state_path(), (json.dumps({"files": files}, indent=2) + "\n").encode(),
                 durable=False)


def kept(path: Path) -> Keep | None:
    """The key paths to keep for ``path``, or None when memx has no record of it."""
    entry = _load().get(str(path))
    return None if entry is None else frozenset(tuple(p) for p in entry)


def before(path: Path, text: str | None, parts: list[Part]) -> Keep:
    """What ``text`` (the file before memx's first write) holds of what ``parts`` create."""
    if text is None:
        return frozenset()
    found: set[tuple[str, ...]] = {()}
    if not text.strip():
        found.add(jsonconf.BLANK)
    for part in parts:  # an entry named memx already there is not memx's to remove
        try:
            if part.entry and (part.installed(text) or part.foreign(text)):
                found.add(part.entry)
        except MemxError:
            pass
    containers = [c for p in parts for c in p.containers]
    if containers:
        try:
            data = jsonconf.load(text, str(path))
        except MemxError:
            return frozenset(found)
        found.update(c for c in containers if jsonconf.find(data, c) is not None)
    return frozenset(found)


def record(path: Path, keep: Keep) -> None:
    files = _load()
    files[str(path)] = sorted(list(p) for p in keep)
    _save(files)


def forget(path: Path) -> None:
    files = _load()
    if files.pop(str(path), None) is not None:
        _save(files)
