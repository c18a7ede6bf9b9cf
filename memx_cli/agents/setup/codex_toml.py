"""Codex CLI's MCP server table in ``config.toml``: ``[mcp_servers.memx]``.

memx edits the text, not a parsed copy: it appends its table (after one blank line) and
later cuts out exactly that table, so every other byte of the file stays as it was,
comments included. A memx server defined some other way (an inline table, dotted keys)
is left for the user to change by hand.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from memx_cli.agents.setup.base import Keep, Part
from memx_cli.errors import MemxError

_HEADER = re.compile(r'^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*("memx"|memx)[ \t]*\][ \t]*(#.*)?$')
_SUBTABLE = re.compile(r'^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*("memx"|memx)[ \t]*\.')
_ANY_TABLE = re.compile(r"^[ \t]*\[")


def block(command: str, args: list[str]) -> str:
    # JSON strings are valid TOML basic strings for the plain text used here.
    return (f"[mcp_servers.memx]\ncommand = {json.dumps(command)}\n"
            f"args = [{', '.join(json.dumps(a) for a in args)}]\n")


def _parse(text: str, where: str) -> dict[str, object]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MemxError(f"{where}: not valid TOML ({exc}); fix it first") from None


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

    def install(text: str | None) -> str | None:
        text = text or ""
        span = _span(text)
        if span is None:
            if _defined(text, where):
                raise MemxError(f"{where}: mcp_servers.memx is defined in a form memx does "
                                "not edit; change or remove it by hand")
            head = text if not text or text.endswith("\n") else text + "\n"
            new = head + ("\n" if head.strip() else "") + ours
        else:
            start, end = span
            old = text[start:end]
            if old.rstrip("\n") == ours.rstrip("\n"):
                return text
            gap = old[len(old.rstrip("\n")):] or "\n"  # keep the blank lines after it
            new = text[:start] + ours.rstrip("\n") + gap + text[end:]
        _parse(new, where)
        return new

    def uninstall(text: str | None, keep: Keep) -> str | None:
        if text is None:
            return None
        span = _span(text)
        if span is None:
            return text
        start, end = span
        head, tail = text[:start], text[end:]
        if not tail and head.endswith("\n\n"):
            head = head[:-1]  # the blank line memx put before its table
        new = head + tail
        return new if new.strip() or () in keep else None

    def installed(text: str | None) -> bool:
        return text is not None and _span(text) is not None

    return Part(path, "MCP server", install, uninstall, installed)
