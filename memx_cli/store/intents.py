"""Intent records: a multi-file operation says what it is about to do before it does it
(issue 14), so one killed halfway is finished or undone by the next memx writer.

An intent is a small JSON file in ``local/intents/`` written (fsynced) before the first
change and removed after the last. A file left behind by a process that is gone names
an operation that stopped between its steps; ``recover`` looks at what it touched and
repairs it. Today: a supersede, whose first step marks the old memory ``superseded_by``
a memory written in its second step; killed between, the link would dangle.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memx_cli.errors import InvalidMemoryError
from memx_cli.fsutil import atomic_write
from memx_cli.store.ids import is_valid_id

if TYPE_CHECKING:
    from memx_cli.store.files import Store

INTENTS = "intents"


def _directory(store: Store) -> Path:
    return store.local_dir / INTENTS


@contextlib.contextmanager
def intent(store: Store, operation: str, **details: Any) -> Iterator[None]:
    """Record ``operation`` for the duration of the block; kept if the process dies."""
    path = _directory(store) / f"{operation}-{os.getpid()}-{id(details):x}.json"
    atomic_write(path, json.dumps({"operation": operation, "pid": os.getpid(),
                                   **details}).encode())
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def pending(store: Store) -> list[tuple[Path, dict[str, Any]]]:
    """Intents whose process is gone: operations that stopped halfway."""
    found: list[tuple[Path, dict[str, Any]]] = []
    try:
        names = sorted(os.listdir(_directory(store)))
    except OSError:
        return []
    for name in names:
        path = _directory(store) / name
        try:
            data = json.loads(path.read_bytes())
            pid = int(data["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            found.append((path, {}))  # unreadable: written half, so nothing was done yet
            continue
        if pid != os.getpid() and not _alive(pid):
            found.append((path, data))
    return found


def recover(store: Store) -> list[str]:
    """Finish or undo what killed operations left (call under the store lock); returns
    one line per repair."""
    repaired = []
    for path, data in pending(store):
        # The ids an intent names become paths: only a memory id's shape is taken (an
        # intent committed into local/ by someone else could name '../../file'; walk17).
        if data.get("operation") == "supersede" and _an_id(data.get("old")):
            line = _undo_dangling(store, str(data["old"]))
            if line:
                repaired.append(line)
        elif data.get("operation") == "import" and isinstance(data.get("entries"), list):
            entries = [e for e in data["entries"]
                       if isinstance(e, list) and len(e) == 2 and _an_id(e[0])]
            append_journal(store, [str(d) for i, d in entries if d and _exists(store, str(i))])
            repaired += _drop_links_to_unwritten(store, {str(i) for i, _ in entries})
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    return repaired


def _an_id(value: object) -> bool:
    return isinstance(value, str) and is_valid_id(value)


def _undo_dangling(store: Store, old_id: str) -> str | None:
    """The old memory of a supersede that was killed: its ``superseded_by`` is kept when
    the newer memory exists, else removed (the supersede never happened)."""
    path = store.path_for(old_id)
    try:
        old = store.read_file(path)
    except (InvalidMemoryError, ValueError):
        return None
    newer = old.superseded_by
    if newer is None or _exists(store, newer):
        return None
    atomic_write(path, _dump(store.masker(old.replace(superseded_by=None))),
                 tmp_dir=store.tmp_dir)
    return f"{old_id}: an interrupted supersede left superseded_by {newer}, which does not exist; removed"


def _drop_links_to_unwritten(store: Store, batch: set[str]) -> list[str]:
    """A killed import wrote some of its memories: links the Curator recorded to the ones
    never written (conflicts, supersedes) are removed; the memories written are kept (a
    re-run of the import skips them)."""
    unwritten = {i for i in batch if not _exists(store, i)}
    if not unwritten:
        return []
    repaired = []
    for archived in (False, True):
        for mem in store.load_all(archived).memories:
            links = set(mem.conflicts_with) | set(mem.supersedes) | {mem.superseded_by}
            if not links & unwritten:
                continue
            fixed = mem.replace(
                conflicts_with=tuple(i for i in mem.conflicts_with if i not in unwritten),
                supersedes=tuple(i for i in mem.supersedes if i not in unwritten),
                superseded_by=None if mem.superseded_by in unwritten else mem.superseded_by)
            atomic_write(store.path_for(mem.id, archived), _dump(store.masker(fixed)),
                         tmp_dir=store.tmp_dir)
            repaired.append(f"{mem.id}: an interrupted import left links to memories it never "
                            "wrote; removed")
    return repaired


JOURNAL = "imported.txt"  # in local/: a digest of each record imported, one a line


def read_journal(store: Store) -> set[str]:
    """Digests of the import records this clone imported (``memx import`` skips them)."""
    try:
        with open(store.local_dir / JOURNAL, encoding="utf-8", errors="replace") as handle:
            return {line.strip() for line in handle if line.strip()}
    except FileNotFoundError:
        return set()


def append_journal(store: Store, digests: list[str]) -> None:
    if not digests:
        return
    store.local_dir.mkdir(parents=True, exist_ok=True)
    with store.lock(), open(store.local_dir / JOURNAL, "a", encoding="utf-8") as handle:
        handle.write("".join(d + "\n" for d in digests))
        handle.flush()
        os.fsync(handle.fileno())


def _exists(store: Store, memory_id: str) -> bool:
    return store.path_for(memory_id).exists() or store.path_for(memory_id, True).exists()


def _dump(mem: Any) -> bytes:
    from memx_cli.store.memory import dump

    return dump(mem)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
