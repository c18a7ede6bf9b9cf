"""What `memx setup` knows about an agent: the files it writes and how (issue 18)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# Text of a file before -> after (None: the file is absent / is to be deleted); the flag
# says whether an entry of memx's name that memx did not write may be replaced.
Transform = Callable[[str | None, bool], str | None]
# Key paths of the objects and lists that were in the file before memx wrote to it (``()``:
# the file itself), which removal must leave even when empty.
Keep = frozenset[tuple[str, ...]]
Removal = Callable[[str | None, Keep], str | None]

HOOK_COMMAND = "memx agent-hook"  # + the agent's name; marks memx's hook entries


def server_args(agent: str, *before: str) -> list[str]:
    """The MCP server command line: ``memx [before...] mcp --agent NAME``."""
    return [*before, "mcp", "--agent", agent]


@dataclass(frozen=True)
class Place:
    """Where a setup applies: the repository (project scope) or the user's home."""

    root: Path  # the repository work tree
    home: Path
    user: bool

    def display(self, path: Path) -> str:
        for base, label in ((self.root, ""), (self.home, "~/")):
            try:
                rel = path.relative_to(base)
            except ValueError:
                continue
            if label or not self.user:
                return f"{label}{rel.as_posix()}"
        return str(path)


@dataclass(frozen=True)
class Part:
    """One file memx writes for an agent, and what it puts in it."""

    path: Path
    what: str  # "MCP server", "hooks SessionEnd, PreCompact"
    install: Transform
    uninstall: Removal
    installed: Callable[[str | None], bool]
    containers: tuple[tuple[str, ...], ...] = ()  # what install may create, outermost first
    # The key path of the entry named memx (MCP servers), and whether the text holds one
    # that memx did not write: such an entry is the user's, kept unless they say replace.
    entry: tuple[str, ...] = ()
    foreign: Callable[[str | None], bool] = lambda text: False


@dataclass(frozen=True)
class Agent:
    name: str
    title: str
    docs: tuple[str, ...]  # the agent's own documentation of the formats used
    parts: Callable[[Place], list[Part]]
    aliases: tuple[str, ...] = ()
    hooks: tuple[str, ...] = ()  # lifecycle events memx hooks into (empty: MCP only)
