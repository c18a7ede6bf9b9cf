"""The agents `memx setup` knows, each with the files and formats its own documentation
gives (the URLs in ``docs``; docs/agents.md has the table). Project scope writes files in
the repository; ``--user`` writes the user's configuration in the home directory.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from memx_cli.agents.setup import codex_toml, hooks_json, mcp_json
from memx_cli.agents.setup.base import HOOK_COMMAND, Agent, Part, Place, server_args
from memx_cli.errors import MemxError, shown


def _claude_code(place: Place) -> list[Part]:
    # Project: .mcp.json (shared) and .claude/settings.json; user: ~/.claude.json (its
    # top-level mcpServers) and ~/.claude/settings.json.
    base = place.home if place.user else place.root
    servers = place.home / ".claude.json" if place.user else place.root / ".mcp.json"
    settings = base / ".claude" / "settings.json"
    hook = {"type": "command", "command": f"{HOOK_COMMAND} claude-code"}
    return [mcp_json.part(servers, place.display(servers),
                          {"command": "memx", "args": server_args("claude-code")}),
            hooks_json.part(settings, place.display(settings), ("SessionEnd", "PreCompact"),
                            hook)]


def _codex(place: Place) -> list[Part]:
    home = Path(os.environ.get("CODEX_HOME") or place.home / ".codex")
    path = home / "config.toml" if place.user else place.root / ".codex" / "config.toml"
    return [codex_toml.part(path, place.display(path), "memx", server_args("codex"))]


def _cursor(place: Place) -> list[Part]:
    path = (place.home if place.user else place.root) / ".cursor" / "mcp.json"
    return [mcp_json.part(path, place.display(path),
                          {"command": "memx", "args": server_args("cursor")})]


def _gemini(place: Place) -> list[Part]:
    path = (place.home if place.user else place.root) / ".gemini" / "settings.json"
    where = place.display(path)
    hook = {"name": "memx-ingest", "type": "command", "command": f"{HOOK_COMMAND} gemini"}
    return [mcp_json.part(path, where, {"command": "memx", "args": server_args("gemini")}),
            hooks_json.part(path, where, ("SessionEnd", "PreCompress"), hook)]


def _vscode_user_dir(home: Path) -> Path:
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Code" / "User"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / "Code" / "User"
    return Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "Code" / "User"


def _copilot(place: Place) -> list[Part]:
    path = (_vscode_user_dir(place.home) if place.user else place.root / ".vscode") / "mcp.json"
    # VS Code starts servers wherever it likes; ${workspaceFolder} names the open folder.
    entry = {"type": "stdio", "command": "memx",
             "args": server_args("copilot", "-C", "${workspaceFolder}")}
    return [mcp_json.part(path, place.display(path), entry, container=("servers",))]


def _windsurf(place: Place) -> list[Part]:
    if not place.user:
        raise MemxError("Windsurf reads MCP servers only from the user's "
                        "~/.codeium/windsurf/mcp_config.json; run: memx setup windsurf --user")
    path = place.home / ".codeium" / "windsurf" / "mcp_config.json"
    return [mcp_json.part(path, place.display(path),
                          {"command": "memx", "args": server_args("windsurf")})]


AGENTS: dict[str, Agent] = {a.name: a for a in (
    Agent("claude-code", "Claude Code", (
        "https://code.claude.com/docs/en/mcp", "https://code.claude.com/docs/en/hooks"),
        _claude_code, aliases=("claude",), hooks=("SessionEnd", "PreCompact")),
    Agent("codex", "Codex CLI", ("https://developers.openai.com/codex/mcp",), _codex,
          aliases=("codex-cli",)),
    Agent("cursor", "Cursor", ("https://cursor.com/docs/mcp",), _cursor),
    Agent("gemini", "Gemini CLI", (
        "https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md",
        "https://github.com/google-gemini/gemini-cli/blob/main/docs/hooks/reference.md"),
        _gemini, aliases=("gemini-cli",), hooks=("SessionEnd", "PreCompress")),
    Agent("copilot", "GitHub Copilot (VS Code)", (
        "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",),
        _copilot, aliases=("vscode",)),
    Agent("windsurf", "Windsurf", ("https://docs.windsurf.com/windsurf/cascade/mcp",),
          _windsurf),
)}


def lookup(name: str) -> Agent:
    key = name.lower()
    for agent in AGENTS.values():
        if key == agent.name or key in agent.aliases:
            return agent
    raise MemxError(f"unknown agent {shown(name)}; choose one of {', '.join(AGENTS)}")
