"""Codex CLI's MCP server table in ``config.toml``: ``[mcp_servers.memx]``.

memx edits the text, not a parsed copy: it appends its table (after one blank line, in
the file's own line endings) and later cuts out exactly that table and what it put
before it, so every other byte of the file stays as it was, comments, CRLF and a
missing final newline included. A ``memx`` server that is not exactly memx's table (other
arguments, an inline table, dotted keys) is the user's: kept unless they ask to replace
it, never removed.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from memx_cli.agents.setup.base import Keep, Part
from memx_cli.agents.setup.jsonconf import eol
from memx_cli.errors import MemxError

_HEADER = re.compile(r'^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*("memx"|memx)[ \t]*\][ \t]*(#.*)?$')
_SUBTABLE = re.compile(r'^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*("memx"|memx)[ \t]*\.')
_ANY_TABLE = re.compile(r"^[ \t]*\[")
ENTRY = ("mcp_servers", "memx")


def block(command: str, args: list[str]) -> str:
    # JSON strings are valid TOML basic strings for the plain text used here.
    return (f"[mcp_servers.memx]\ncommand = {json.dumps(command)}\n"
            f"args = [{', '.join(json.dumps(a) for a in args)}]\n")


def _parse(text: str, where: str) -> dict[str, object]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MemxError(f"{where}: not valid TOML ({exc}); fix it first") from None
    except RecursionError:
        raise MemxError(f"{where}: not valid TOML (nested too deeply); fix it first") from None


def _span(text: str) -> tuple[int, int] | None:
    """Character offsets of the memx table and its sub-tables, up to the next table."""
    lines = text.splitlines(keepends=True)
    offset, start, end = 0, None, None
    for line in lines:
        bare = line.rstrip("\r\n")
        if start is None and _HEADER.match(bare):
            start = offset
        elif start is not None and end is None and _ANY_TABLE.match(bare) \
                and not _SUBTABLE.match(bare):
            end = offset
        offset += len(line)
    if start is None:
        return None
    return start, len(text) if end is None else end


def _defined(text: str, where: str) -> bool:
    servers = _parse(text, where).get("mcp_servers")
    return isinstance(servers, dict) and "memx" in servers


def part(path: Path, where: str, command: str, args: list[str]) -> Part:
    ours = block(command, args)

    def own(text: str) -> bool:
        """The memx table is exactly the one memx writes (in any line ending)."""
        span = _span(text)
        return span is not None and \
            text[span[0]:span[1]].replace("\r\n", "\n").rstrip("\n") == ours.rstrip("\n")

    def install(text: str | None, replace: bool) -> str | None:
        text = text or ""
        _parse(text, where)
        if own(text):
            return text
        nl = eol(text)
        mine = ours.replace("\n", nl)
        span = _span(text)
        if span is not None or _defined(text, where):
            if not replace:
                return text  # the user's own memx server
            if span is None:
                raise MemxError(f"{where}: mcp_servers.memx is defined in a form memx does "
                                "not edit; change or remove it by hand")
            start, end = span
            old = text[start:end]
            gap = old[len(old.rstrip("\r\n")):] or nl  # keep the blank lines after it
            new = text[:start] + mine.rstrip("\r\n") + gap + text[end:]
        elif not text:
            new = mine
        elif text.endswith("\n"):
            new = text + nl + mine
        else:  # no final newline: memx's table has none either, and remove knows it
            new = text + nl + nl + mine.rstrip("\r\n")
        _parse(new, where)
        return new

    def uninstall(text: str | None, keep: Keep) -> str | None:
        if text is None or ENTRY in keep or not own(text):
            return text
        span = _span(text)
        assert span is not None
        start, end = span
        head, tail = text[:start], text[end:]
        nl = eol(text)
        if not tail and head:  # the blank line (two line ends: no final newline) memx put
            table = text[start:end]
            cut = nl if table.endswith("\n") else nl + nl
            if head.endswith(cut):
                head = head[: len(head) - len(cut)]
        new = head + tail
        return new if new or () in keep else None

    def installed(text: str | None) -> bool:
        return text is not None and own(text)

    def foreign(text: str | None) -> bool:
        return bool(text) and not own(text or "") and (
            _span(text or "") is not None or _defined(text or "", where))

    return Part(path, "MCP server", install, uninstall, installed, (), ENTRY, foreign)
