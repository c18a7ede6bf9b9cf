"""The MCP server entry in a JSON configuration: ``{"mcpServers": {"memx": {...}}}``
(Claude Code, Cursor, Gemini CLI, Windsurf) or ``{"servers": {"memx": {...}}}`` (VS Code).

An entry named memx is memx's own only when it is exactly what memx writes; any other
(``--role intern`` added, another command) is the user's: setup keeps it unless asked to
replace it, and ``--remove`` never takes it out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memx_cli.agents.setup import jsonconf
from memx_cli.agents.setup.base import Keep, Part

SERVER_NAME = "memx"


def part(path: Path, where: str, entry: dict[str, Any],
         container: tuple[str, ...] = ("mcpServers",)) -> Part:
    key_path = (*container, SERVER_NAME)

    def current(text: str | None) -> Any:
        servers = jsonconf.find(jsonconf.load(text, where), container)
        return servers.get(SERVER_NAME) if isinstance(servers, dict) else None

    def install(text: str | None, replace: bool) -> str | None:
        if foreign(text) and not replace:
            return text
        return jsonconf.set_member(text, where, container, SERVER_NAME, entry)

    def uninstall(text: str | None, keep: Keep) -> str | None:
        if not installed(text) or key_path in keep:  # the user's, or there before memx
            return text
        assert text is not None
        return jsonconf.remove(text, list(key_path), keep)

    def installed(text: str | None) -> bool:
        return current(text) == entry

    def foreign(text: str | None) -> bool:
        found = current(text)
        return found is not None and found != entry

    return Part(path, "MCP server", install, uninstall, installed,
                tuple(container[:i] for i in range(1, len(container) + 1)),
                key_path, foreign)
