"""Progress of bulk work on standard error (issue 17): one line rewritten in place, on a
terminal only, so pipes, logs and --json stay clean. MEMX_PROGRESS=1 shows it anyway
(a CI log that wants it); MEMX_PROGRESS=0 hides it on a terminal too."""

from __future__ import annotations

import os
import sys
import time

INTERVAL = 0.1  # seconds between redraws: a 5,000-record import redraws ~100 times, not 5,000


class ProgressLine:
    def __init__(self, enabled: bool | None = None):
        forced = os.environ.get("MEMX_PROGRESS")
        if enabled is None:
            enabled = forced == "1" if forced in ("0", "1") else sys.stderr.isatty()
        self.enabled = enabled
        self._last = 0.0
        self._width = 0

    def __call__(self, phase: str, done: int, total: int, note: str = "") -> None:
        """Show ``phase done/total (percent)``, then ``note`` (", 12 found")."""
        if not self.enabled:
            return
        moment = time.monotonic()
        if done != total and moment - self._last < INTERVAL:
            return
        self._last = moment
        text = (f"memx: {phase} {done}/{total} ({done * 100 // total}%){note}" if total
                else f"memx: {phase} {done}{note}")
        sys.stderr.write("\r" + text.ljust(self._width))
        sys.stderr.flush()
        self._width = len(text)

    def close(self) -> None:
        """Clear the line, so what follows starts at the left margin."""
        if self.enabled and self._width:
            sys.stderr.write("\r" + " " * self._width + "\r")
            sys.stderr.flush()
            self._width = 0
