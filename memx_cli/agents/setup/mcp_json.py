"""The MCP server entry in a JSON configuration: ``{"mcpServers": {"memx": {...}}}``
(Claude Code, Cursor, Gemini CLI, Windsurf) or ``{"servers": {"memx": {...}}}`` (VS Code).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memx_cli.agents.setup import jsonconf
from memx_cli.agents.setup.base import Keep, Part

SERVER_NAME = "memx"


def part(path: Path, where: str, entry: dict[str, Any],
         container: tuple[str, ...] = ("mcpServers",)) -> Part:
    def install(text: str | None) -> str | None:
        return jsonconf.set_member(text, where, container, SERVER_NAME, entry)

    def uninstall(text: str | None, keep: Keep) -> str | None:
        if not installed(text):
            return text
        assert text is not None
        return jsonconf.remove(text, [*container, SERVER_NAME], keep)

    def installed(text: str | None) -> bool:
        servers = jsonconf.find(jsonconf.load(text, where), container)
        return isinstance(servers, dict) and SERVER_NAME in servers

    return Part(path, "MCP server", install, uninstall, installed,
                tuple(container[:i] for i in range(1, len(container) + 1)))
