"""Shared memory repositories (issue 17): read-only stores this repository subscribes to.

A *source* is any git repository with a memx store (``.memx/memories/``): a team's or an
organisation's memory. ``.memx/config.yaml`` records the subscription (``sources: {NAME:
{url, ref, domains, weight}}``) and ``.memx/sources.lock`` (committed) pins the exact
commit, so every clone reads the same memories until someone runs ``memx source update``.

Whoever can push writes that config, so a subscription alone never makes memx fetch or
read anything on this machine: each source's location must be approved by the user, in
a list of their own that no pull writes (``approve``; ``memx source add`` approves what the
user typed). Hooks, ``memx source update`` and every reader pass over a source whose
location is not approved, saying so (trust18: a pulled config made the post-merge hook
clone a local repository of the reviewer's and serve its memories here).

Nothing of a source is committed here. Its repository is mirrored in the user's cache
and each pinned commit's memories are unpacked once, under the commit's id: ten
repositories subscribing to one source share one copy and one search index. A source
that is not in the cache (offline, never fetched, gone) is skipped with one notice.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memx_cli import external, git
from memx_cli.errors import MemxError
from memx_cli.fsutil import atomic_write
from memx_cli.safeyaml import MAX_BYTES  # what the loader reads of one file
from memx_cli.store.files import Store

log = logging.getLogger("memx")

LOCK_NAME = "sources.lock"
LABEL_PREFIX = "source:"
LOCK_HEADER = ("# memx: the commit each shared memory source is pinned to (memx source update)\n")


@dataclass(frozen=True)
class Source:
    name: str
    url: str
    ref: str | None = None
    domains: tuple[str, ...] = ()
    weight: float = 1.0
    commit: str | None = None  # pinned in the lock file
    problem: str | None = None  # why the pinned commit cannot be used (not a commit id)
    where: str | None = None  # a local folder recorded relative to the work tree, resolved

    @property
    def location(self) -> str:
        """What git clones: the recorded URL, or the relative folder resolved here."""
        return self.where or self.url

    @property
    def label(self) -> str:
        return LABEL_PREFIX + self.name


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memx" / "sources"


def approved_path() -> Path:
    """The user's own list of approved source locations, one a line."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "memx" / "approved-sources"


def _approved() -> set[str]:
    from memx_cli import safeyaml

    try:  # the user's own file, bounded like any file memx reads
        text = safeyaml.read_regular(approved_path(), follow=True).decode("utf-8", "replace")
    except FileNotFoundError:
        return set()
    except OSError as exc:
        log.warning(f"{approved_path()}: cannot read the approved sources ({exc.strerror})")
        return set()
    return {line.strip() for line in text.splitlines() if line.strip()}


def is_approved(source: Source) -> bool:
    return source.location in _approved()


def approve(source: Source) -> bool:
    """Record the user's consent to fetch and read ``source``'s location; False when it
    was approved already."""
    known = _approved()
    if source.location in known:
        return False
    path = approved_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(f"{line}\n" for line in sorted(known | {source.location}))
    atomic_write(path, ("# memx: source locations you approved (memx source approve)\n"
                        + body).encode("utf-8"))
    return True


def unapproved(source: Source) -> str:
    from memx_cli.privacy import mask

    # the URL is shown masked: a committed one may carry a password or token
    return (f"source {source.name} ({mask(source.url)}) is not approved on this machine; check "
            f"the URL, then run memx source approve {source.name} (skipped)")


def _mirror(url: str) -> Path:
    return cache_root() / "mirrors" / (hashlib.sha256(url.encode()).hexdigest()[:24] + ".git")


def snapshot_store(commit: str, name: str) -> Store:
    # the commit names a folder: a commit id only, never a path (issue 26)
    checked = external.commit(commit, f"source {name}")
    return Store(cache_root() / "commits" / checked / ".memx", LABEL_PREFIX + name)


def lock_path(repo: Any) -> Path:
    return Path(repo.store.root) / LOCK_NAME


def read_lock(repo: Any) -> dict[str, dict[str, str]]:
    from memx_cli import safeyaml

    try:  # committed: bounded like every YAML memx reads (issue 26)
        data = safeyaml.loads(safeyaml.read_regular(lock_path(repo), follow=False).decode("utf-8")) or {}
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise MemxError(f".memx/{LOCK_NAME}: cannot read it ({exc}); fix or delete it, then "
                        "run memx source update") from None
    except safeyaml.YamlInputError as exc:
        raise MemxError(f"{exc.where('.memx/' + LOCK_NAME)}: {exc.message}; fix or delete "
                        "it, then run memx source update") from None
    if not isinstance(data, dict):
        raise MemxError(f".memx/{LOCK_NAME}: expected a mapping of sources; fix or delete it, "
                        "then run memx source update")
    return {str(k): dict(v) for k, v in data.items() if isinstance(v, dict)}


def write_lock(repo: Any, entries: dict[str, dict[str, str]]) -> None:
    import yaml

    body = yaml.safe_dump(entries, sort_keys=True, default_flow_style=False) if entries else ""
    atomic_write(lock_path(repo), (LOCK_HEADER + body).encode("utf-8"))


def configured(repo: Any) -> list[Source]:
    """The subscribed sources, with the commit each is pinned to."""
    entries = repo.config["sources"]
    if not entries:
        return []
    lock = read_lock(repo)
    found = []
    for name, entry in sorted(entries.items()):
        commit, problem = lock.get(name, {}).get("commit"), None
        if commit is not None and not external.is_commit(commit):
            # issue 26: a committed lock once passed `--output=FILE` to git archive
            problem = (f".memx/{LOCK_NAME}: source {name}: the pinned commit {commit!r} is not "
                       "a commit id (40 or 64 hex digits); run memx source update")
            commit = None
        url = entry["url"]
        found.append(Source(name, url, entry.get("ref"),
                            tuple(entry.get("domains") or ()), float(entry.get("weight", 1.0)),
                            commit, problem, folder(repo, url)))
    return found


def folder(repo: Any, url: str) -> str | None:
    """A source recorded as a folder relative to the work tree (``../team-memory``), as a
    path of this machine; None for any other URL."""
    if url in (".", "..") or url.startswith(("./", "../")):
        return str((Path(repo.worktree) / url).resolve())
    return None


# A fetch runs from git hooks too: git must fail, not wait at a password prompt that
# holds `git pull` (use SSH keys or a credential helper for a private source).
_NO_PROMPT = {"GIT_TERMINAL_PROMPT": "0", "GCM_INTERACTIVE": "never"}


# A fetch is bounded in time and in the size of the mirror it writes: a host that accepts
# and never answers held `memx source add`, `memx source update` and the post-merge hook
# for good, and a source's repository is someone else's. MEMX_SOURCE_TIMEOUT (seconds)
# and MEMX_SOURCE_MAX_BYTES move the bounds for a slow link or a large repository.
FETCH_SECONDS = 300.0
FETCH_MAX_BYTES = 2 << 30  # the whole mirror: a source may be a project's own repository


def _bound(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise MemxError(f"{name}={raw!r}: expected a positive number")
    return value


def _git(args: list[str], cwd: Path, folder: Path) -> None:
    git.run_bounded(args, cwd, _bound("MEMX_SOURCE_TIMEOUT", FETCH_SECONDS), folder,
                    int(_bound("MEMX_SOURCE_MAX_BYTES", FETCH_MAX_BYTES)), env=_NO_PROMPT)


def _temporary(folder: Path, before: set[str]) -> None:
    """The files git's own temporary names (``tmp_pack_*``, ``incoming-*``) that a
    stopped fetch left in the mirror, removed; the refs it had not moved yet stay."""
    for top, dirs, files in os.walk(folder / "objects"):
        for name in [*files, *dirs]:
            path = os.path.join(top, name)
            if path in before or not name.startswith(("tmp_", "incoming-")):
                continue
            if name in dirs:
                shutil.rmtree(path, ignore_errors=True)
            else:
                Path(path).unlink(missing_ok=True)


def fetch(source: Source) -> str:
    """Mirror the source (clone once, then fetch) and return the commit its ref names."""
    mirror = _mirror(source.location)
    try:
        if not mirror.is_dir():
            mirror.parent.mkdir(parents=True, exist_ok=True)
            tmp = mirror.with_name(f".{mirror.name}.{os.getpid()}.tmp")
            shutil.rmtree(tmp, ignore_errors=True)
            url = external.operand(source.location, f"source {source.name}: url")
            try:
                _git(["clone", "--quiet", "--mirror", "--", url, str(tmp)], mirror.parent, tmp)
            except MemxError:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            os.replace(tmp, mirror)
        else:
            before = {os.path.join(top, name) for top, dirs, files in
                      os.walk(mirror / "objects") for name in [*files, *dirs]}
            try:
                _git(["fetch", "--quiet", "--prune", "origin"], mirror, mirror)
            except MemxError:
                _temporary(mirror, before)
                raise
        rev = external.operand(source.ref or "HEAD", f"source {source.name}: ref")
        return git.resolve_rev(mirror, rev)
    except MemxError as exc:
        raise MemxError(f"source {source.name}: cannot fetch {source.url} ({exc})") from None


def materialize(source: Source, commit: str) -> Store:
    """The store of ``commit``'s memories, unpacked from the mirror once per commit."""
    store = snapshot_store(commit, source.name)  # checks that commit is a commit id
    if store.memories_dir.is_dir():
        return store
    mirror = _mirror(source.location)
    if not mirror.is_dir():
        raise MemxError(f"source {source.name} is not fetched; run memx source update")
    top = store.root.parent
    tmp = top.with_name(f".{top.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    target = tmp / ".memx" / "memories"
    target.mkdir(parents=True)
    import tarfile  # only where a source is unpacked: not on every search (issue 15)

    found = 0
    # streamed, one member at a time: a 300 MB file was read whole (943 MB RSS, issue 26);
    # git archive takes no `--`: its paths follow the end of options
    with git.stream(["archive", "--format=tar", "--end-of-options", commit,
                     ".memx/memories"], cwd=mirror) as out:
        try:
            with tarfile.open(fileobj=out, mode="r|") as archive:
                for member in archive:
                    found += 1
                    folder, _, name = member.name.rpartition("/")
                    # memory files only, by their plain name: nothing the archive names can
                    # escape; over the size a memory file may have: left out, with a notice
                    if not (member.isfile() and folder == ".memx/memories"
                            and name.endswith(".yaml") and not name.startswith(".")):
                        continue
                    if member.size > MAX_BYTES:
                        log.warning(f"source {source.name}: {name} is {member.size} bytes, "
                                    f"over the limit of {MAX_BYTES} (skipped)")
                        continue
                    handle = archive.extractfile(member)
                    if handle is not None:
                        (target / name).write_bytes(_masked(handle.read(), name))
        except tarfile.ReadError:
            found = 0  # git wrote nothing: no such commit, or no memories in it
    if not found:
        shutil.rmtree(tmp, ignore_errors=True)
        raise MemxError(f"source {source.name}: {commit[:12]} has no .memx/memories/; a "
                        "source must be a repository with a memx store")
    top.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(tmp, top)
    except OSError:  # another process unpacked it first
        shutil.rmtree(tmp, ignore_errors=True)
    return store


def _masked(data: bytes, name: str) -> bytes:
    """A source's memory file with its secrets masked, as memx would have stored it
    (issue 26: a collaborator's unmasked memory was shown and served as it was). A file
    that does not parse is kept as it is: readers report it and never show it."""
    from memx_cli.errors import InvalidMemoryError
    from memx_cli.privacy import default
    from memx_cli.privacy.sanitizer import sanitize_memory
    from memx_cli.store import memory as memfmt

    try:
        mem = memfmt.load(data, name)
    except InvalidMemoryError:
        return data
    clean = sanitize_memory(mem, default())
    return data if clean == mem else memfmt.dump(clean)


def stores(repo: Any) -> list[tuple[Source, Store]]:
    """The sources that can be read now; a missing one is skipped with one notice."""
    try:
        found = configured(repo)
    except MemxError as exc:
        _notice("lock", str(exc))
        return []
    readable = []
    for source in found:
        if source.problem is not None:
            _notice(source.name, source.problem)
            continue
        if not is_approved(source):
            _notice(source.name, unapproved(source))
            continue
        if source.commit is None:
            _notice(source.name, f"source {source.name} is not fetched yet; run memx source "
                                 "update (skipped)")
            continue
        store = snapshot_store(source.commit, source.name)
        if not store.memories_dir.is_dir():
            try:
                store = materialize(source, source.commit)  # the mirror may have it
            except MemxError:
                _notice(source.name, f"source {source.name} ({source.commit[:12]}) is not in "
                                     "the cache; run memx source update (skipped)")
                continue
        readable.append((source, store))
    return readable


def _notice(key: str, message: str) -> None:
    # (one per source each time the stores are opened: once per command, once per
    # MCP server, which keeps its searcher)
    log.warning(message)
