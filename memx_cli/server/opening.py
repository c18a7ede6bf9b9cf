"""The parts of the memx server's opening of a repository ahead (issue 29, ``Daemon.warm``):
whether the command that started it still runs, the warnings logged meanwhile (counted
as during a forwarded command's run, ``Counter``), and its run of a search through the
CLI so that what the first forwarded command imports and builds is ready."""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from memx_cli.server.caller import captured
from memx_cli.server.lent import Uncounted

if TYPE_CHECKING:
    from memx_cli.generator.search import Searcher


class Counter(logging.Handler):
    """Counts the warnings memx logs during one request."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's process by now: not the one that started us)
        return False
    return True


def through_cli(worktree: Path, searcher: Searcher) -> None:
    """Run ``memx search --json`` in ``worktree`` through the CLI with ``searcher``,
    counting no recall, its output dropped; the CLI's context and list commands are
    imported too, as their first forwarded run would."""
    import importlib
    from datetime import UTC, datetime

    from memx_cli import cli
    from memx_cli.generator import questions, temporal
    from memx_cli.textproc import query_terms, stem, words

    for name in ("search", "context", "list"):
        importlib.import_module(f"memx_cli.cli.{cli.COMMANDS[name][0]}")
    # the stemmer too, whose import (~5 ms) a search makes only once it has hits to
    # weigh, which the opening's query may not find; and the patterns a cold process
    # compiles only for the queries that need them (a date, a question word, CJK text:
    # issue 29), which the second command's query may be
    stem("warm")
    temporal.resolve("since May 2020", datetime.now(UTC))
    questions.intent("why 为什么")
    questions.symptom("warm")
    query_terms("warmUp 部署", name_parts=True)  # a name written together, too
    words("warm 部署")
    with captured({}), contextlib.suppress(SystemExit):
        cli.main(["-C", str(worktree), "search", "warm up", "--mode", "hybrid",
                  "--json"], services=Uncounted(searcher))
