"""``memx validate``: check every memory file, the links between memories and the
configuration (SPEC 2, SPEC 10)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memx_cli import config as configmod
from memx_cli.errors import ConfigError, InvalidMemoryError
from memx_cli.store.files import Store, _problem_from
from memx_cli.store.memory import Problem
from memx_cli.store.repo import Repo


@dataclass
class Report:
    checked: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_store(store: Store) -> Report:
    report = Report()
    seen: dict[str, str] = {}
    for archived in (False, True):
        for path in store.files(archived):
            report.checked += 1
            shown = store.display(path)
            try:
                mem = store.read_file(path)
            except InvalidMemoryError as exc:
                report.problems.append(_problem_from(exc, shown))
                continue
            if mem.id in seen:
                report.problems.append(
                    Problem(shown, 2, f"duplicate id {mem.id} (also in {seen[mem.id]})")
                )
            seen[mem.id] = shown
    return report


def check_files(store: Store, paths: list[Path]) -> Report:
    """Check named files only (what a pre-commit hook passes)."""
    report = Report()
    for path in paths:
        if path.suffix != ".yaml" or path.name.startswith("config"):
            continue
        report.checked += 1
        try:
            store.read_file(path)
        except InvalidMemoryError as exc:
            report.problems.append(_problem_from(exc, store.display(path)))
    return report


def check_config(repo: Repo) -> list[Problem]:
    problems = []
    for _, path in configmod.layer_paths(repo.store.root)[1:]:
        try:
            flat = configmod.read_file(path)
        except ConfigError as exc:
            shown = str(exc).replace(str(path), repo.store.display(path), 1)
            where, _, message = shown.partition(": ")
            file, _, line = where.partition(":")
            problems.append(Problem(file, int(line) if line.isdigit() else None, message))
            continue
        for key, value in flat.items():
            try:
                configmod.parse_value(key, value)
            except ConfigError as exc:
                problems.append(Problem(repo.store.display(path), None, str(exc)))
    return problems


def validate(repo: Repo, paths: list[Path] | None = None) -> Report:
    repo.require_store()
    if paths:
        return check_files(repo.store, paths)
    report = check_store(repo.store)
    report.problems.extend(check_links(repo))
    report.problems.extend(check_config(repo))
    return report


def check_links(repo: Repo) -> list[Problem]:
    """Curator links (supersedes, superseded_by, conflicts_with) to a memory that no
    visible store holds (issue 12)."""
    from memx_cli.curator.links import dangling

    return [Problem(store.display(store.path_for(mem.id, archived)), None,
                    f"{field} names {target}, which no memory has (a dangling link: "
                    "remove the id from the file)")
            for store, mem, archived, field, target in dangling(repo)
            if store is repo.store]
