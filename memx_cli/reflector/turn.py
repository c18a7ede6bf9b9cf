"""The unit every reader produces and every rule reads: one ``Turn``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Turn:
    """One message of a transcript, or one block of lines of a text or log."""

    index: int  # 1-based: message number (JSON), line number (JSONL, text, logs)
    role: str  # user | assistant | tool | system | text
    text: str
    kind: str = "text"  # text | tool_use | tool_result
    command: str | None = None  # a shell command run (tool_use) or answered (tool_result)
    files: tuple[str, ...] = ()  # files a tool_use edits
    failed: bool | None = None  # tool_result / command: did it fail
    end: int | None = None  # last line of a block
    change: str | None = None  # tool_use edit: the new text, short ("`x = 1`"), if any
    replaced: str | None = None  # tool_use edit: the text it replaced, short, if any
    # tool_use edit: the text it replaced and the text it writes, each cut at EDIT_TEXT
    # characters, to check what the assistant said before the edit against it
    edited: tuple[str, str] | None = None
    # A user's word given through a tool call rather than a message (role "user", kind
    # "text"): ``rejected`` turns down the call just made (``text`` holds what the user
    # typed with it, empty for a bare rejection); ``picked`` answers a question prompt
    # (``text`` is the question and the option chosen).
    rejected: bool = False
    picked: bool = False
    # A user turn that is a plan the agent wrote and the user approved (Claude Code's
    # "Implement the following plan:"): the task about to be done, not what happened.
    planned: bool = False
    # tool_result: the files of the edit call it answers, when the tool accepted the edit
    applied: tuple[str, ...] = ()

    @property
    def last(self) -> int:
        return self.end if self.end is not None else self.index


EDIT_TEXT = 4000


def clip(text: str, head: int = 8000, tail: int = 16000) -> str:
    """Long tool output: keep the start and the end, where errors usually are."""
    if len(text) <= head + tail:
        return text
    return text[:head] + "\n[...]\n" + text[-tail:]
