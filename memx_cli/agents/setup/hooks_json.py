"""Lifecycle hooks in the JSON settings of Claude Code and Gemini CLI: both read
``{"hooks": {"EVENT": [{"matcher": ..., "hooks": [{"type": "command", "command": ...}]}]}}``
and pass the hook a JSON object on standard input that names the session's transcript
(``transcript_path``). memx adds one group per event holding its command and, on removal,
takes out only the hook entries whose command is its own (and what that leaves empty).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memx_cli.agents.setup import jsonconf
from memx_cli.agents.setup.base import Keep, Part


def part(path: Path, where: str, events: tuple[str, ...], hook: dict[str, Any]) -> Part:
    command = hook["command"]

    def ours(entry: Any) -> bool:
        return isinstance(entry, dict) and entry.get("command") == command

    def places(data: dict[str, Any], event: str) -> list[tuple[int, int]]:
        """(group, hook) indexes of memx's hook entries under one event."""
        found = []
        groups = jsonconf.find(data, ("hooks", event))
        for g in jsonconf.indexes(groups, lambda g: isinstance(g, dict)):
            for h in jsonconf.indexes(groups[g].get("hooks"), ours):
                found.append((g, h))
        return found

    def install(text: str | None, replace: bool) -> str | None:
        for event in events:
            if not places(jsonconf.load(text, where), event):
                text = jsonconf.append_item(text, where, ("hooks", event),
                                            {"hooks": [dict(hook)]})
        return text

    def uninstall(text: str | None, keep: Keep) -> str | None:
        for event in events:
            # Last first, so the indexes of the ones still to remove stay valid.
            for g, h in reversed(places(jsonconf.load(text, where), event)):
                assert text is not None
                text = jsonconf.remove(text, ["hooks", event, g, "hooks", h], keep)
                if text is None:
                    return None
        return text

    def installed(text: str | None) -> bool:
        data = jsonconf.load(text, where)
        return all(places(data, e) for e in events)

    return Part(path, "hooks " + ", ".join(events), install, uninstall, installed,
                (("hooks",), *(("hooks", e) for e in events)))
