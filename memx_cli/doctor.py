"""``memx doctor``: what is installed, what state the store, indexes and hooks are in."""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path
from typing import Any

from memx_cli import __version__, git
from memx_cli.errors import ConfigError, MemxError
from memx_cli.operations import merge_driver
from memx_cli.operations.validate import (
    check_access,
    check_config,
    check_links,
    check_store,
)
from memx_cli.store.files import LinkedStoreError
from memx_cli.store.repo import Repo

PACKAGES = ("click", "pyyaml", "gitpython", "tantivy", "usearch", "model2vec", "numpy",
            "watchdog")


def _package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def diagnose(repo: Repo | None) -> dict[str, Any]:
    """A report as plain data; ``problems`` lists what needs attention."""
    import yaml

    report: dict[str, Any] = {
        "versions": {
            "memx": __version__,
            "python": platform.python_version(),
            "git": git.version(),
            **{name: _package_version(name) for name in PACKAGES},
        },
        "yaml_c_loader": hasattr(yaml, "CSafeLoader"),
        "problems": [],
    }
    problems: list[str] = report["problems"]
    report["server"] = _server_state(problems, repo)
    if not hasattr(yaml, "CSafeLoader"):
        problems.append("PyYAML has no C loader: reading memories is ~9x slower")
    if repo is None:
        problems.append("not inside a git repository")
        return report
    store = repo.store
    try:
        store.check_links()
    except LinkedStoreError as exc:
        # listed like any other problem (trust18): a pull can bring a linked .memx, and
        # the rest of the report does not need the store
        report["store"] = {"path": str(store.root), "initialized": False, "link": exc.shown}
        problems.append(str(exc))
        report["hooks"] = _hook_state(repo, problems)
        return report
    info: dict[str, Any] = {"path": str(store.root), "initialized": store.exists()}
    report["store"] = info
    if not store.exists():
        problems.append("no .memx/ store; run memx init")
    else:
        checked = check_store(store)
        info["memories"] = len(store.files())
        info["archived"] = len(store.files(archived=True))
        info["invalid_files"] = len(checked.problems)
        problems.extend(str(p) for p in checked.problems)
        problems.extend(str(p) for p in check_links(repo))  # as memx validate says them
        config_problems = [str(p) for p in check_config(repo)]
        problems.extend(config_problems)
        # the grants too: a broken access.yaml makes every grant read (issue 27)
        problems.extend(str(p) for p in check_access(repo))
        if not config_problems:  # the files are fine; environment variables may not be
            try:
                repo.config  # noqa: B018 - loading it is the check
            except ConfigError as exc:
                problems.append(str(exc))
    report["global_store"] = {"path": str(repo.global_store.root),
                              "memories": len(repo.global_store.files())}
    report["index"] = _index_state(repo)
    if report["index"].get("damage"):
        problems.append(report["index"]["damage"])
    report["hooks"] = _hook_state(repo, problems)
    report["agents"] = _agent_state(repo)
    if store.exists():
        merge = merge_driver.state(repo.worktree, store.root)
        report["merge_driver"] = {"attributes": merge.attributes, "command": merge.command}
        if merge.problem:
            problems.append(merge.problem)
        from memx_cli.githooks.impl import stuck_queue
        from memx_cli.operations.validate import check_leftovers

        stuck = stuck_queue(repo)
        if stuck:
            problems.append(stuck)
        problems.extend(str(p) for p in check_leftovers(store))
        problems.extend(_unmerged_memories(repo))
    return report


def _unmerged_memories(repo: Repo) -> list[str]:
    """Memory files a merge, rebase or cherry-pick left unmerged. Git calls no merge driver
    for a memory deleted on one side and edited on the other: the edited file stays in the
    work tree, valid, so only git's index tells that it waits for a decision."""
    store = repo.store.display(repo.store.root)
    found = git.unmerged(repo.worktree, [store])
    lines = []
    for path, stages in sorted(found.items()):
        if 2 in stages and 3 in stages:
            what = "edited on both sides and not merged; run memx validate"
        else:
            sides = ("deleted in HEAD, edited on the other side" if 3 in stages
                     else "edited in HEAD, deleted on the other side")
            what = f"{sides}; git add it to keep the memory, git rm it to let it go"
        lines.append(f"{path}: unmerged ({what})")
    return lines


def _server_state(problems: list[str], repo: Repo | None) -> dict[str, Any]:
    """The per-user memx server (issue 15): running or not, why it cannot be used, and
    why commands here do not use it (``disabled``: MEMX_NO_SERVER, server.enabled)."""
    from pathlib import Path

    from memx_cli.wire.control import disabled, status

    info = status()
    if info.get("problem"):
        problems.append(f"memx server: {info['problem']}")
    state: dict[str, Any] = {k: info[k] for k in ("running", "socket", "log", "pid",
                                                  "version", "uptime", "requests",
                                                  "repositories") if k in info}
    state["disabled"] = disabled(repo.worktree if repo is not None else Path.cwd())
    said = _last_client_line(str(info.get("log") or ""))
    if said:
        state["last_fallback"] = said
    return state


def _last_client_line(log: str, tail: int = 65536) -> str | None:
    """The last reason a command gave in the server log for not using the server, or
    for what it did about it (``memx[PID]: ...`` lines; the server's own lines are
    timestamped): what happened, for `memx doctor` (issue 27)."""
    try:
        with open(log, "rb") as file:
            file.seek(0, 2)
            file.seek(max(0, file.tell() - tail))
            lines = file.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    said = [line for line in lines if line.startswith("memx[")]
    return said[-1].split("]: ", 1)[-1][:300] if said else None


def _index_state(repo: Repo) -> dict[str, Any]:
    manifest = repo.store.cache_dir / "manifest.db"
    state: dict[str, Any] = {"path": str(repo.store.cache_dir), "built": manifest.exists()}
    if repo.store.exists():
        from memx_cli.freshness.quick import describe

        files = len(repo.store.ids()) + len(repo.store.ids(archived=True))
        state["change_check"], state["note"] = describe(repo.store, files)
        damage = _index_damage(repo.store.cache_dir / "lexical")
        if damage:
            state["damage"] = damage
    return state


def _index_damage(path: Path) -> str | None:
    """What in the text index would make a command fail, and what the next one does."""
    from memx_cli.index.damage import inspect

    damage = inspect(path)
    if damage.orphans and not damage.problem:
        return (f"search index: {damage.describe()}; the next memx command that writes "
                "the index removes them")
    problem = damage.problem
    if problem is None and (path / "meta.json").is_file():
        from memx_cli.index.keys import is_index_error
        from memx_cli.index.lexical import LexicalIndex

        try:
            LexicalIndex(path).open().searcher()
        except BaseException as exc:
            if not is_index_error(exc):
                raise
            problem = "unreadable (" + " ".join(str(exc).split())[:100] + ")"
    if problem is None:
        return None
    return f"search index: {problem}; the next search rebuilds it (or run memx reindex --full)"


def _agent_state(repo: Repo) -> list[dict[str, Any]]:
    """The coding agents `memx setup` registered memx with, here and for this user."""
    from pathlib import Path

    from memx_cli.agents.setup.plan import status

    return status(repo.worktree, Path.home())


def _hook_state(repo: Repo, problems: list[str]) -> dict[str, str]:
    """Each git hook memx installs: memx, other or absent (as `memx hooks status` sees
    it); a memx shim that will not run as it is (its Python gone, not executable, of
    another memx version) is a problem."""
    from memx_cli.githooks.install import status

    try:
        _, states = status(repo.worktree)
    except MemxError:
        return {}
    problems.extend(f"git hook {s.name}: {s.problem}" for s in states if s.problem)
    return {s.name: s.state for s in states}
