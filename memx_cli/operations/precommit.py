"""The pre-commit check (SPEC 6, SPEC 10): the *staged* content of ``.memx/`` files, or
named files for the pre-commit framework (``memx hooks check``). Memory files must be
valid, and no file may hold a merge-conflict marker or a secret the write path would have
masked: the second line of defence for hand-edited files. YAML is read twice, as raw lines
and as parsed values, so folding, doubled quotes and escapes cannot hide a secret.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memx_cli import git
from memx_cli.errors import MemxError
from memx_cli.store.repo import Repo

if TYPE_CHECKING:
    from memx_cli.privacy.sanitizer import Sanitizer
    from memx_cli.store.memory import Problem

_PLACEHOLDER = re.compile(r"\[REDACTED:([a-z0-9_]+)\]")  # privacy.sanitizer.PLACEHOLDER


@dataclass(frozen=True)
class HookResult:
    messages: tuple[str, ...] = ()  # lines for standard error
    error: str | None = None  # set: the check failed (exit 1) with this summary



def _new_secrets(text: str, sanitizer: Sanitizer) -> list[str]:
    """Kinds the sanitizer masks in ``text``; placeholders already there do not count."""
    before = Counter(_PLACEHOLDER.findall(text))
    found = []
    for kind in _PLACEHOLDER.findall(sanitizer.sanitize(text)):
        if before[kind]:
            before[kind] -= 1
        else:
            found.append(kind)
    return found


def check_content(path: str, data: bytes, sanitizer: Sanitizer,
                  secrets_only: bool = False) -> list[Problem]:
    """Problems of one ``.memx/`` file (``path`` relative to the work tree)."""
    from memx_cli.errors import InvalidMemoryError
    from memx_cli.store import memory as memfmt
    from memx_cli.store.files import _problem_from
    from memx_cli.store.memory import Problem

    parts = path.split("/")
    if len(parts) > 2 and parts[1] in ("local", "cache") and not secrets_only:
        return [Problem(path, None, f"per-clone state is never committed; unstage it: "
                                    f"git rm --cached {path}")]
    problems: list[Problem] = []
    memory_file = len(parts) == 3 and parts[1] in ("memories", "archive") and path.endswith(".yaml")
    text = data.decode("utf-8", "replace")
    if memory_file and not secrets_only:
        try:
            mem = memfmt.load(data, path)
            if mem.id != parts[2][:-5]:
                problems.append(Problem(path, 2, f"id {mem.id} does not match the file name; "
                                                 f"rename the file to {mem.id}.yaml"))
        except InvalidMemoryError as exc:
            problems.append(_problem_from(exc, path))
    elif not secrets_only:
        marker = memfmt.find_conflict_marker(text)
        if marker is not None:
            problems.append(Problem(path, marker, "merge-conflict marker; resolve the conflict, "
                                                  "then stage the file again"))
    found: list[tuple[int, str]] = []
    if _new_secrets(text, sanitizer):
        for number, line in enumerate(text.splitlines(), 1):
            found += [(number, kind) for kind in _new_secrets(line, sanitizer)]
    if path.endswith((".yaml", ".yml")):
        found += _value_secrets(text, sanitizer, found)
    problems += [Problem(path, number, f"secret ({kind}); remove it, then stage the file again")
                 for number, kind in sorted(found)]
    return problems


def _value_secrets(text: str, sanitizer: Sanitizer,
                   seen: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Secrets in the *parsed* YAML values that the raw lines did not show: a value folded
    over two lines, quotes YAML doubled, an escape (``\\x41KIA...``) decode to the secret
    that search would return (issue 12). Reported at the value's first line."""
    import yaml

    from memx_cli import safeyaml

    try:  # bounded, and each aliased node once (issue 26: an alias bomb spun for hours)
        roots = safeyaml.compose_all(text)
    except safeyaml.YamlInputError:
        return []  # not YAML memx reads: the validity check reports it; raw lines scanned
    found: list[tuple[int, str]] = []
    for node in safeyaml.nodes(roots):
        if isinstance(node, yaml.ScalarNode):
            first, last = node.start_mark.line + 1, node.end_mark.line + 1
            already = [kind for number, kind in seen if first <= number <= last]
            for kind in _new_secrets(node.value, sanitizer):
                if kind in already:
                    already.remove(kind)
                else:
                    found.append((first, kind))
    return found


def _verdict(problems: list[Problem], checked: int, what: str) -> HookResult:
    if not problems:
        return HookResult()
    return HookResult(tuple(str(p) for p in problems),
                      f"{len(problems)} problem(s) in {checked} {what}")


def _sanitizer(repo: Repo) -> Sanitizer:
    """The repository's sanitizer; the built-in patterns when the configuration itself is
    broken (a conflict marker in config.yaml is one of the problems this check reports)."""
    from memx_cli.errors import ConfigError
    from memx_cli.privacy.sanitizer import cached, for_config

    try:
        return for_config(repo.config)
    except ConfigError:
        return cached(())


def check_staged(repo: Repo) -> HookResult:
    """The pre-commit check, on what is staged (not on the work tree)."""
    changed = git.changed_paths(repo.worktree, None, "index", [".memx/"])
    paths = [p for status, p in changed if status != "D"]
    if not paths:
        return HookResult()
    blobs = git.read_blobs(repo.worktree, [f":{p}" for p in paths])
    sanitizer = _sanitizer(repo)
    problems: list[Problem] = []
    for path in paths:
        data = blobs[f":{path}"]
        if data is not None:
            problems += check_content(path, data, sanitizer)
    result = _verdict(problems, len(paths), "staged .memx/ file(s)")
    if result.error:
        result = HookResult(result.messages, result.error + "; commit blocked (fix and "
                            "stage again, or skip this check once: git commit --no-verify)")
    return result


def check_files(repo: Repo, files: Sequence[Path], secrets_only: bool) -> HookResult:
    """The same check on named files as they are on disk (the pre-commit framework)."""
    sanitizer = _sanitizer(repo)
    problems: list[Problem] = []
    for path in files:
        absolute = path.resolve()
        try:
            shown = absolute.relative_to(repo.worktree.resolve()).as_posix()
        except ValueError:
            shown = str(path)
        try:
            data = absolute.read_bytes()
        except OSError as exc:
            raise MemxError(f"{shown}: cannot read: {exc.strerror}") from None
        problems += check_content(shown, data, sanitizer, secrets_only)
    return _verdict(problems, len(files), "file(s) checked")
