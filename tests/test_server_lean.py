"""The memx server runs a forwarded search or add without click when the lean reader
reads its arguments (issue 29, command/base.served_lean): the same output, notices and
exit code as the click command run in process, on a real store through the server's own
``Daemon.run``; arguments only click reads, and a ``-C`` folder that is gone, still go
through click."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import pytest

from memx_cli.cli import LazyGroup
from memx_cli.clock import format_timestamp
from memx_cli.server import daemon

from .conftest import Memx

FACTS = [
    "The payment webhook retries 5 times with exponential backoff",
    "Use pnpm, not npm, to install JavaScript dependencies",
    "The staging database is reset every Sunday night",
]


@pytest.fixture
def server(memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for content in FACTS:
        memx.ok("add", "--raw", content)
    # one "now" for the served and the in-process runs: recency moves the scores
    monkeypatch.setenv("MEMX_NOW", format_timestamp(datetime.now(UTC)))
    host = daemon.Daemon(idle_timeout=60)
    try:
        yield host
    finally:
        host.watcher.stop()


@pytest.fixture
def clicked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The commands click's group dispatched from here on."""
    seen: list[str] = []
    resolve = LazyGroup.get_command

    def counted(self: LazyGroup, ctx: click.Context, name: str) -> click.Command | None:
        seen.append(name)
        return resolve(self, ctx, name)

    monkeypatch.setattr(LazyGroup, "get_command", counted)
    return seen


def served(host: Any, cwd: Path, *argv: str) -> tuple[int, str, str]:
    request = {"argv": list(argv), "cwd": str(cwd), "env": dict(os.environ),
               "streams": {"stdout_encoding": "utf-8", "stderr_encoding": "utf-8"}}
    header, out, err = host.run(request)
    assert header["status"] == "ok", header
    return header["code"], out.decode("utf-8"), err.decode("utf-8")


def in_process(memx: Memx, *argv: str) -> tuple[int, str, str]:
    result = memx(*argv)
    return result.code, result.out, result.err


@pytest.mark.parametrize("argv", [
    ("search", "webhook retries", "--json"),
    ("search", "install packages", "--mode", "keyword", "-n", "1"),
    ("search", "zzzz unrelated qqqq"),
    ("search", "webhook", "--scope", "nonsense scope"),  # the error boundary's report
])
def test_a_lean_search_is_served_without_click_as_in_process(
        server: Any, memx: Memx, repo: Path, clicked: list[str], argv: tuple[str, ...]
) -> None:
    got = served(server, repo, *argv)
    assert clicked == []  # the lean path ran it
    assert got == in_process(memx, *argv)


@pytest.mark.parametrize("argv", [
    ("search", "webhook retries", "--mode=keyword"),  # --name=value: click's reading
    ("search", "webhook", "-n1", "--json"),
    ("list", "--json"),
])
def test_arguments_only_click_reads_still_go_through_click(
        server: Any, memx: Memx, repo: Path, clicked: list[str], argv: tuple[str, ...]
) -> None:
    got = served(server, repo, *argv)
    assert clicked == [argv[0]]
    assert got == in_process(memx, *argv)


def test_a_folder_that_is_gone_is_clicks_error(server: Any, memx: Memx, repo: Path,
                                               clicked: list[str]) -> None:
    """The -C folder the caller stood in was removed: click's group says so (exit 1),
    as `memx -C GONE search` in process does; the lean path leaves it to click."""
    gone = repo / "gone"
    code, out, err = served(server, gone, "search", "webhook")
    assert clicked == ["search"]
    assert (code, out, err) == in_process(memx, "-C", str(gone), "search", "webhook")
    assert code != 0 and "no such directory" in err


def test_a_lean_add_is_served_without_click(server: Any, memx: Memx, repo: Path,
                                            clicked: list[str]) -> None:
    """An add the lean reader reads stores its memory and prints its JSON as the click
    command does; the control, an option only click reads (--tag=x), goes through click
    and stores the other memory alike."""
    code, out, err = served(server, repo, "add", "Releases are tagged from the release branch",
                           "--tag", "release", "--json")
    assert clicked == [] and (code, err) == (0, "")
    lean = json.loads(out)
    code, out, err = served(server, repo, "add", "Hotfixes are tagged from main",
                           "--tag=release", "--json")
    assert clicked == ["add"] and (code, err) == (0, "")
    full = json.loads(out)
    assert set(lean) == set(full) and lean["action"] == full["action"] == "added"
    listed = memx.ok("list", "--json")
    assert lean["memory"]["tags"] == full["memory"]["tags"] == ["release"]
    assert lean["memory"]["id"] in listed and full["memory"]["id"] in listed
