"""Recent history, persisted in ``.memx/local/reflector-history.jsonl`` (SPEC 3.1).

Every hook and command is a new process, so the rules that need the past — RetrySuccess
(a command failed, then passed) and RepetitiveOp (a command run three times) — read it
from here. The file is per clone (``local/`` is never tracked), bounded (the last
``MAX_RUNS`` runs plus a few markers) and rewritten atomically under the store lock.
A damaged file is read as far as it parses: losing local history loses no memory.

Records (one JSON object per line):
- ``{"kind": "run", "key", "at", "exit", "error", "snapshot"?}`` — a ``memx run``
- ``{"kind": "reported", "key", "rule", "at"}`` — a history rule already fired for key
- ``{"kind": "session", "key", "turn", "at"}`` — how far a transcript session was ingested
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memx_cli.clock import now_iso
from memx_cli.fsutil import Masked, write_text
from memx_cli.privacy import mask_data
from memx_cli.store.repo import Repo

FILE_NAME = "reflector-history.jsonl"
MAX_RUNS = 200
MAX_MARKERS = 100


@dataclass
class History:
    path: Path
    entries: list[dict[str, Any]] = field(default_factory=list)
    changed: bool = False

    @classmethod
    def load(cls, path: Path) -> History:
        entries: list[dict[str, Any]] = []
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return cls(path)
        for line in text.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("key"), str):
                entries.append(entry)
        return cls(path, entries)

    def save(self) -> None:
        if not self.changed:
            return
        runs = [e for e in self.entries if e.get("kind") == "run"][-MAX_RUNS:]
        reported = [e for e in self.entries if e.get("kind") == "reported"][-MAX_MARKERS:]
        sessions = [e for e in self.entries if e.get("kind") == "session"][-MAX_MARKERS:]
        keep = {id(e) for e in runs + reported + sessions}
        self.entries = [e for e in self.entries if id(e) in keep]
        # every entry was masked when it was added (``add``), or read back from this file
        data = Masked("".join(json.dumps(e, ensure_ascii=False, sort_keys=True) + "\n"
                              for e in self.entries))
        write_text(self.path, data)
        self.changed = False

    def add(self, kind: str, key: str, **data: Any) -> dict[str, Any]:
        entry = mask_data({"kind": kind, "key": key, "at": now_iso(), **data})  # issue 12
        self.entries.append(entry)
        self.changed = True
        return entry

    def runs(self, key: str) -> list[dict[str, Any]]:
        return [e for e in self.entries if e.get("kind") == "run" and e["key"] == key]

    def reported(self, key: str, rule: str) -> bool:
        return any(e.get("kind") == "reported" and e["key"] == key and e.get("rule") == rule
                   for e in self.entries)

    def session_mark(self, session: str) -> int:
        marks = [e.get("turn", 0) for e in self.entries
                 if e.get("kind") == "session" and e["key"] == session]
        return max((m for m in marks if isinstance(m, int)), default=0)

    def set_session_mark(self, session: str, turn: int) -> None:
        if turn > self.session_mark(session):
            self.entries = [e for e in self.entries
                            if not (e.get("kind") == "session" and e["key"] == session)]
            self.add("session", session, turn=turn)


def path_for(repo: Repo) -> Path:
    return repo.store.local_dir / FILE_NAME


def read(repo: Repo) -> History:
    """The history as it is now, without the lock (for dry runs and reports)."""
    return History.load(path_for(repo))


@contextlib.contextmanager
def updating(repo: Repo) -> Iterator[History]:
    """Load, let the caller change, save atomically — all under the store lock.

    Do not write memories inside: ``ace.write`` takes the same lock.
    """
    with repo.store.lock():
        history = History.load(path_for(repo))
        yield history
        history.save()
