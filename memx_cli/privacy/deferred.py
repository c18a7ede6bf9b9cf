"""A regular expression compiled on its first use (issue 29).

The sanitizer holds ~80 patterns, each behind a guard (a cheap substring test); most
text passes few guards, yet compiling them all cost a `memx add` ~35 ms of CPU before
anything was checked. A deferred pattern is the same expression with the same flags,
compiled once, when a guard first lets text through to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable


class Deferred:
    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled().search(text, pos)

    def sub(self, repl: Callable[[re.Match[str]], str], text: str) -> str:
        return self.compiled().sub(repl, text)
