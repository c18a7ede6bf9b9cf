"""``memx validate``: check every memory file, the links between memories and the
configuration (SPEC 2, SPEC 10)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from memx_cli import config as configmod
from memx_cli.errors import ConfigError, InvalidMemoryError, MemxError
from memx_cli.store import intents
from memx_cli.store.access import ACCESS_FILE, read_grants
from memx_cli.store.files import LinkedStoreError, Store, _problem_from
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
    links: dict[str, str] = {}
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
            if mem.superseded_by:
                links[shown] = mem.superseded_by
    # A superseded memory is hidden from search: a link to nothing hides it for nothing.
    for shown, newer in links.items():
        if newer not in seen:
            report.problems.append(Problem(shown, None, f"superseded_by {newer}, which does "
                                                         "not exist (an interrupted supersede?)"))
    for path, data in intents.pending(store):
        report.problems.append(Problem(store.display(path), None, (
            f"an interrupted {data.get('operation', 'operation')}; the next memx write "
            "finishes or undoes it")))
    return report


def check_files(repo: Repo, paths: list[Path]) -> Report:
    """Check named files only (what a pre-commit hook passes): memory files, the
    configuration and access.yaml, each by what it is (issue 14: the framework hook
    rejected access.yaml with "missing field 'schema'")."""
    store = repo.store
    report = Report()
    configs = {p.resolve() for _, p in configmod.layer_paths(store.root)[1:]}
    for path in paths:
        if path.name.startswith(".") and path.name.endswith(".tmp"):
            report.checked += 1
            report.problems.append(Problem(store.display(path), None, TEMP_PROBLEM))
            continue
        if path.suffix != ".yaml":
            continue
        report.checked += 1
        if path.resolve() in configs:
            report.problems.extend(p for p in check_config(repo)
                                   if p.path == store.display(path))
        elif path.resolve() == (store.root / ACCESS_FILE).resolve():
            report.problems.extend(check_access(repo))
        elif path.parent.resolve() in (store.memories_dir.resolve(),
                                       store.archive_dir.resolve()):
            try:
                store.read_file(path)
            except InvalidMemoryError as exc:
                report.problems.append(_problem_from(exc, store.display(path)))
        else:
            report.checked -= 1  # not a file memx reads
    return report


TEMP_PROBLEM = ("temporary file left by an interrupted memx write; the next memx command "
                "removes it (or delete it)")


def check_access(repo: Repo) -> list[Problem]:
    try:
        read_grants(repo)
    except MemxError as exc:
        return [_problem_from(exc, repo.store.display(repo.store.root / ACCESS_FILE))]
    return []


def check_leftovers(store: Store) -> list[Problem]:
    """Temporary files an interrupted write left beside the memories."""
    found = []
    for directory in (store.memories_dir, store.archive_dir):
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        found += [Problem(store.display(directory / n), None, TEMP_PROBLEM)
                  for n in names if n.startswith(".") and n.endswith(".tmp")]
    return found


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
    try:
        repo.require_store()
    except LinkedStoreError as exc:
        # a finding like a bad file, listed (trust18): a pull can bring a linked .memx
        return Report(problems=[Problem(exc.shown, None, "a symbolic link; " + exc.REASON)])
    if paths:
        return check_files(repo, paths)
    report = check_store(repo.store)
    report.problems.extend(check_links(repo))
    report.problems.extend(check_config(repo))
    report.problems.extend(check_access(repo))
    report.problems.extend(check_leftovers(repo.store))
    return report


def check_links(repo: Repo) -> list[Problem]:
    """Curator links (supersedes, superseded_by, conflicts_with) to a memory that no
    visible store holds (issue 12)."""
    from memx_cli.curator.links import dangling

    return [Problem(store.display(store.path_for(mem.id, archived)), None,
                    f"{field} names {target}, which no memory has (a dangling link: "
                    f"{MERGE_COPY if field == 'conflicts_with' else ''}remove the id from "
                    "the file)")
            for store, mem, archived, field, target in dangling(repo)
            if store is repo.store]


# A merge that kept both sides' text records the conflict in the merged file at once, but
# the other side's copy is a new file its hook only stages: pushed before it is committed,
# every other clone has the link without the memory.
MERGE_COPY = ("if a merge made it, the other version is a file the merging clone has "
              "yet to commit; otherwise ")
