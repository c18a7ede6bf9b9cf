"""``memx source add|update|list|remove``: subscribing to shared memory repositories
(issue 17). The subscription lives in ``.memx/config.yaml``, the pinned commit in
``.memx/sources.lock``; the memories themselves only in the user's cache."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memx_cli import config as configmod
from memx_cli.errors import ConfigError, MemxError
from memx_cli.store import sources as srcmod
from memx_cli.store.repo import Repo
from memx_cli.store.sources import Source


@dataclass(frozen=True)
class Updated:
    source: Source
    old: str | None  # the commit pinned before
    new: str | None  # pinned now (None: the source could not be fetched)
    memories: int = 0
    problem: str | None = None


def _config_path(repo: Repo) -> Path:
    return repo.store.root / "config.yaml"


def _write_sources(repo: Repo, entries: dict[str, dict[str, object]]) -> None:
    """Change only the ``sources`` key of .memx/config.yaml (comments and keys stay)."""
    import json

    path = _config_path(repo)
    if entries:
        configmod.set_value(path, "sources", json.dumps(entries))
    else:
        configmod.unset_value(path, "sources")


def _url(repo: Repo, url: str) -> str:
    """A local folder given relative (``../team-memory``) is recorded relative to the work
    tree, so the committed config names no path of this machine and a teammate's clone
    beside the same folder reads it too (``store/sources.configured`` resolves it); one
    given absolute stays absolute, as typed."""
    import os

    local = Path(url).expanduser()
    if local.is_absolute() or url.startswith("~"):
        return str(local.resolve()) if local.is_dir() else url
    if not (repo.worktree / local).is_dir():
        return url  # a URL, or a path git will refuse with its own words
    relative = Path(os.path.relpath((repo.worktree / local).resolve(), repo.worktree.resolve()))
    text = relative.as_posix()
    return text if text.startswith("../") or text == ".." else f"./{text}"


def _refuse_credentials(name: str, url: str) -> None:
    """The URL is committed (config and lock): no password or token in it (issue 12)."""
    from urllib.parse import urlsplit

    from memx_cli.privacy import default, kinds

    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    if password or kinds(default().sanitize(url)):
        raise MemxError(f"source {name}: the URL holds a credential, and .memx/config.yaml is "
                        "committed; use SSH or a git credential helper instead")


def add(repo: Repo, name: str, url: str, ref: str | None = None,
        domains: tuple[str, ...] = (), weight: float = 1.0) -> Updated:
    """Subscribe, fetch and pin. Nothing is recorded when the source cannot be read."""
    repo.require_store()
    entries = dict(repo.config["sources"])
    if name in entries:
        raise MemxError(f"source {name!r} already exists; memx source remove {name} first, "
                        "or memx source update")
    _refuse_credentials(name, url)
    entry = {"url": _url(repo, url), "ref": ref, "domains": list(domains), "weight": weight}
    try:
        checked = configmod.parse_value("sources", {name: entry})[name]
    except ConfigError as exc:
        message = str(exc).replace("configuration key 'sources': ", "")
        raise MemxError(message.rsplit(", got ", 1)[0]) from None
    source = Source(name, checked["url"], ref, tuple(domains), float(weight),
                    where=srcmod.folder(repo, checked["url"]))
    commit = srcmod.fetch(source)
    store = srcmod.materialize(source, commit)
    srcmod.approve(source)  # the user typed this location: their consent to fetch it
    entries[name] = checked
    _write_sources(repo, entries)
    lock = srcmod.read_lock(repo)
    lock[name] = {"url": source.url, "commit": commit}
    srcmod.write_lock(repo, lock)
    return Updated(source, None, commit, len(store.ids()))


def _shown(exc: Exception) -> str:
    """An error to report, masked: it names the source's URL, which may carry a
    password or token (``https://user:TOKEN@host/...``), and git's own words."""
    from memx_cli.privacy import mask

    return mask(str(exc))


def update(repo: Repo, names: tuple[str, ...] = ()) -> list[Updated]:
    """Fetch each source (or the named ones) and pin its ref's current commit. A source
    that cannot be fetched keeps its pin and is reported, not raised."""
    repo.require_store()
    found = srcmod.configured(repo)
    unknown = sorted(set(names) - {s.name for s in found})
    if unknown:
        raise MemxError(f"no source {unknown[0]!r}; see memx source list")
    lock = srcmod.read_lock(repo)
    results = []
    for source in found:
        if names and source.name not in names:
            continue
        if not srcmod.is_approved(source):
            results.append(Updated(source, source.commit, None,
                                   problem=srcmod.unapproved(source).removesuffix(" (skipped)")))
            continue
        try:
            commit = srcmod.fetch(source)
            store = srcmod.materialize(source, commit)
        except MemxError as exc:
            results.append(Updated(source, source.commit, None, problem=_shown(exc)))
            continue
        lock[source.name] = {"url": source.url, "commit": commit}
        results.append(Updated(source, source.commit, commit, len(store.ids())))
    srcmod.write_lock(repo, {k: v for k, v in lock.items()
                             if k in {s.name for s in found}})
    return results


def sync(repo: Repo) -> list[Updated]:
    """Bring the cache to the pinned commits (the post-merge hook, when the lock moved):
    fetch only the approved sources whose pinned commit is not unpacked yet."""
    results = []
    for source in srcmod.configured(repo):
        if source.commit is not None and not srcmod.is_approved(source):
            results.append(Updated(source, source.commit, None,
                                   problem=srcmod.unapproved(source)))
            continue
        if source.commit is None or srcmod.snapshot_store(source.commit,
                                                           source.name).memories_dir.is_dir():
            continue
        try:
            srcmod.materialize(source, source.commit)
        except MemxError:
            try:
                srcmod.fetch(source)
                srcmod.materialize(source, source.commit)
            except MemxError as exc:
                results.append(Updated(source, source.commit, None, problem=_shown(exc)))
                continue
        results.append(Updated(source, source.commit, source.commit))
    return results


def approve(repo: Repo, names: tuple[str, ...]) -> list[tuple[Source, bool]]:
    """Record the user's consent to fetch and read the named sources from the locations
    the configuration gives now; (source, newly approved) each. Nothing is fetched."""
    repo.require_store()
    found = {s.name: s for s in srcmod.configured(repo)}
    unknown = sorted(set(names) - set(found))
    if unknown:
        raise MemxError(f"no source {unknown[0]!r}; see memx source list")
    return [(found[name], srcmod.approve(found[name])) for name in dict.fromkeys(names)]


def remove(repo: Repo, name: str) -> Source:
    repo.require_store()
    found = {s.name: s for s in srcmod.configured(repo)}
    if name not in found:
        raise MemxError(f"no source {name!r}; see memx source list")
    entries = dict(repo.config["sources"])
    del entries[name]
    _write_sources(repo, entries)
    lock = srcmod.read_lock(repo)
    lock.pop(name, None)
    srcmod.write_lock(repo, lock)
    return found[name]


def listing(repo: Repo) -> list[tuple[Source, int | None, bool]]:
    """Each source with its number of memories at the pinned commit (None: not cached)
    and whether its location is approved on this machine."""
    rows = []
    for source in srcmod.configured(repo):
        store = srcmod.snapshot_store(source.commit, source.name) if source.commit else None
        rows.append((source, len(store.ids()) if store and store.memories_dir.is_dir()
                     else None, srcmod.is_approved(source)))
    return rows
