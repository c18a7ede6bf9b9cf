"""Reflect and store (SPEC 3.1): run the Reflector's stages over one input and send what
they find through the ACE write path.

- ``ingest(repo, stream, ...)`` — ``memx ingest``: a text, a CI log, a JSON/JSONL transcript
- ``reflect_run(repo, record, cwd)`` — ``memx run``: one command run, with run history
- ``reflect_commit(repo, message, files, diffstat, small_diffs)`` — a commit (git hooks);
  returns candidate memories without writing them

The stages are imported lazily: the hooks import this module and must stay cheap.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memx_cli.reflector.llm import ChatClient
    from memx_cli.reflector.pipeline import Item, Stats
    from memx_cli.reflector.runs import RunRecord
    from memx_cli.store.memory import Memory
    from memx_cli.store.records import WriteResult
    from memx_cli.store.repo import Repo

CI_RUN_VARS = ("GITHUB_RUN_ID", "CI_PIPELINE_ID", "BUILDKITE_BUILD_NUMBER", "CIRCLE_BUILD_NUM",
               "BUILD_ID")
INTERRUPTED = (130, 143)  # SIGINT, SIGTERM: the user stopped it, the command did not fail
CI_JOB_VARS = ("GITHUB_JOB", "CI_JOB_NAME", "BUILDKITE_LABEL", "CIRCLE_JOB", "JOB_NAME")


@dataclass(frozen=True)
class Outcome:
    """What a reflection found and, unless it was a dry run, what it stored."""

    items: tuple[Item, ...]
    memories: tuple[Memory, ...]
    results: tuple[WriteResult, ...]
    stats: Stats
    format: str = "text"
    already_seen: int = 0  # found again in a session ingested before: not stored twice


def to_memory(item: Item, source: Mapping[str, Any], created_at: str | None = None) -> Memory:
    """``created_at``: when its evidence was said (a transcript's message time), if known
    and not in the future; else now. ``updated_at`` is now either way: the forgetting
    curve counts from when memx learnt it (an old session ingested today is not stale)."""
    from memx_cli.clock import now_iso
    from memx_cli.store.records import build

    written = now_iso()
    stamp = min(created_at, written) if created_at else None
    mem = build(item.content, source=source, veracity=item.veracity, tags=item.tags,
                created_at=stamp).replace(updated_at=written)
    return mem.replace(section=item.section, type=item.type, tools=item.tools,
                       entities=item.entities, instructivity=item.score,
                       confidence=round(item.confidence, 2), memory_type=item.memory_type)


def _source(kind: str, session: str | None, item: Item, name: str) -> dict[str, Any]:
    if kind == "transcript":
        found: dict[str, Any] = {"type": "transcript"}
        if session:
            found["session"] = session
        found["turns"] = [item.first, item.last]
        return found
    if kind == "ci":
        found = {"type": "ci"}
        for key, names in (("run", CI_RUN_VARS), ("job", CI_JOB_VARS)):
            value = next((os.environ[n] for n in names if os.environ.get(n)), None)
            if value:
                found[key] = value
        found["lines"] = [item.first, item.last]
        return found
    return {"type": "manual"}


def ingest(repo: Repo, stream: IO[bytes], *, fmt: str = "auto", source: str | None = None,
           name: str = "<stdin>", session: str | None = None, dry_run: bool = False,
           raw: bool = False, progress: Callable[[int], None] | None = None,
           client: ChatClient | None = None) -> Outcome:
    """Reflect on one input and store what is worth remembering (unless ``dry_run``)."""
    from memx_cli.operations import write as ace
    from memx_cli.reflector import cilog, history
    from memx_cli.reflector.inputs import Reader
    from memx_cli.reflector.pipeline import Reflector, Settings

    if not ace.ace_enabled(repo, raw):
        return _ingest_raw(repo, stream, name, source or "manual", dry_run)
    reader = Reader(stream, fmt, name, progress)
    reflector = Reflector(Settings.from_config(repo.config), client)
    head = reader.prepare()
    ci_log = reader.fmt == "text" and cilog.reads(head, source)
    if reader.fmt == "text" and not ci_log and source is None:
        # a runner's log quoted past the first bytes (a long failure report ending on it)
        ci_log = cilog.quoted_further(reader.further(cilog.QUOTE_SCAN))
    if ci_log:  # a runner's log or a tool's output: failures with their diagnosis
        found, reader.records = cilog.read(reader.numbered_lines(), head)
        items = reflector.reflect_candidates(found)
        reflector.stats.turns = reader.records
        reflector.stats.last_turn = reader.lines
        reflector.stats.input_tokens = reader.bytes_read // 4
    else:
        items = reflector.reflect(reader.turns())
    stats: Stats = reflector.stats
    stats.records, stats.skipped = reader.records, reader.skipped
    kind = source or ("ci" if ci_log else "transcript" if reader.fmt in ("json", "jsonl")
                      else "manual")
    sid = session or (reader.session if kind == "transcript" else None)
    mark = history.read(repo).session_mark(sid) if sid else 0
    fresh = [i for i in items if i.last > mark]
    memories = tuple(to_memory(i, _source(kind, sid, i, name), reader.time_of(i.last))
                     for i in fresh)
    results: tuple[WriteResult, ...] = ()
    if not dry_run:
        results = tuple(ace.write(repo, memories))
        if sid and stats.last_turn:
            with history.updating(repo) as past:
                past.set_session_mark(sid, stats.last_turn)
    return Outcome(tuple(fresh), memories, results, stats, "ci-log" if ci_log else reader.fmt,
                   len(items) - len(fresh))


def _ingest_raw(repo: Repo, stream: IO[bytes], name: str, kind: str, dry_run: bool) -> Outcome:
    """ACE off: the input is stored as it is — no extraction, no dedup, no sanitizing."""
    from memx_cli.operations import write as ace
    from memx_cli.reflector.inputs import InputError
    from memx_cli.reflector.pipeline import Stats
    from memx_cli.store.records import MAX_CONTENT_CHARS, build

    data = stream.read(MAX_CONTENT_CHARS * 4 + 1)
    if b"\x00" in data:
        raise InputError(f"{name}: binary file, not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{name}: not UTF-8 text; convert the input to UTF-8 first") from None
    if len(text) > MAX_CONTENT_CHARS or stream.read(1):
        raise InputError(f"{name}: with ACE off the whole input becomes one memory, and it is "
                         f"over {MAX_CONTENT_CHARS} characters; leave ACE on to extract from it")
    memory = build(text, source={"type": kind}, raw=True)
    results = () if dry_run else tuple(ace.write(repo, [memory], raw=True))
    return Outcome((), (memory,), results, Stats(mode="off"), "raw")


def reflect_run(repo: Repo, record: RunRecord, cwd: Path, *, dry_run: bool = False,
                client: ChatClient | None = None) -> Outcome:
    """Record one ``memx run`` in the history and store what the history teaches."""
    from memx_cli.operations import write as ace
    from memx_cli.privacy.sanitizer import cached
    from memx_cli.reflector import history, runs
    from memx_cli.reflector.pipeline import Reflector, Settings
    from memx_cli.reflector.scorer import scored

    settings = Settings.from_config(repo.config)
    clean = cached(settings.custom_patterns).sanitize
    key = runs.command_key(record.argv, repo, cwd, clean)
    error = runs.error_line(record)
    found = []
    past = history.read(repo)
    with (history.updating(repo) if not dry_run else contextlib.nullcontext(past)) as past:
        before = past.runs(key)
        if record.exit_code == 0:
            failures: list[dict[str, Any]] = []
            for run in reversed(before):
                if run.get("exit") == 0:
                    break
                if not run.get("interrupted"):  # Ctrl-C is not a failure of the command
                    failures.insert(0, run)
            if failures:  # only then is the state of the work tree worth a `git status`
                said = runs.changes(repo, failures[-1].get("snapshot") or {},
                                    runs.snapshot(repo))
                found.append(runs.retry_success(key, failures, said, len(before) + 1))
        if len(before) + 1 >= 3 and not past.reported(key, "RepetitiveOp"):
            found.append(runs.repetitive(key, before + [{}], len(before) + 1))
            past.add("reported", key, rule="RepetitiveOp")
        entry: dict[str, Any] = {"exit": record.exit_code,
                                 "error": clean(error) if error else None}
        if record.exit_code in INTERRUPTED:
            entry.update(error=None, interrupted=True)
        elif record.exit_code != 0:
            entry["snapshot"] = runs.snapshot(repo)
        past.add("run", key, **entry)
    reflector = Reflector(settings, client)
    items = reflector.items([scored(c) for c in found])
    source = {"type": "command", "command": key, "exit_code": record.exit_code}
    memories = tuple(to_memory(i, source) for i in items)
    results = () if dry_run else tuple(ace.write(repo, memories))
    return Outcome(tuple(items), memories, results, reflector.stats, "command")


def reflect_commit(repo: Repo, message: str, files: Sequence[tuple[str, str]], diffstat: str,
                   small_diffs: Mapping[str, str], sha: str | None = None) -> list[Memory]:
    """Candidate memories from one commit; nothing is written (the caller decides).

    ``files`` are ``(status, path)`` pairs as ``git diff --name-status`` prints them;
    ``small_diffs`` maps a path to its unified diff, for the files small enough to read.
    Rules only, whatever the configured mode: a post-commit hook must stay fast.
    """
    from memx_cli.privacy.sanitizer import cached
    from memx_cli.reflector import commit
    from memx_cli.reflector.pipeline import Reflector, Settings
    from memx_cli.textproc import clean_text

    settings = replace(Settings.from_config(repo.config), mode="rules")
    # Text from git, normalised at the boundary: NUL or a lone surrogate in a path or a
    # message must not reach the rules or the YAML writer (issue 14).
    message, diffstat = clean_text(message), clean_text(diffstat)
    files = [(clean_text(status), clean_text(path)) for status, path in files]
    small_diffs = {clean_text(p): clean_text(d) for p, d in small_diffs.items()}
    # issue 12: mask first; the rules rewrite diffs into prose the patterns cannot read
    clean = cached(settings.custom_patterns).sanitize
    message = clean(message)
    small_diffs = {path: clean(diff) for path, diff in small_diffs.items()}
    found, _ = commit.reviewed(message, files, diffstat, small_diffs, settings.min_score)
    items = Reflector(settings).items(found)
    source: dict[str, Any] = {"type": "commit"}
    if sha:
        source["sha"] = sha
    return [to_memory(i, source) for i in items]
