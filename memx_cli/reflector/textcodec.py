"""Text as people save it: UTF-16 from Windows PowerShell (``gh run view --log > file``
writes UTF-16 LE with a BOM), UTF-16 without a BOM, and the mojibake PowerShell adds when
it reads a program's UTF-8 output in the console's code page before writing it again.

``utf16_encoding`` tells UTF-16 from binary by the byte order mark or by where the NUL
bytes fall (every second byte of mostly-ASCII text); ``Transcoded`` streams such input as
UTF-8 so the readers stay line-based and bounded; ``unmangle`` undoes the code-page
round trip on one line.
"""

from __future__ import annotations

import codecs
from typing import IO

PROBE = 4096
# the console code pages UTF-8 goes through on Windows: the US OEM page, the ANSI page, and
# the Western European OEM page (``´╗┐`` for a BOM, ``┬À`` for ·)
MANGLED_CODEPAGES = ("cp437", "cp1252", "cp850")


def utf16_encoding(head: bytes) -> tuple[str, int] | None:
    """(codec, BOM length) when ``head`` is UTF-16 text, else None."""
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le", 2
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be", 2
    probe = head[:PROBE - PROBE % 2]
    pairs = len(probe) // 2
    if pairs < 2:
        return None
    even = sum(1 for i in range(0, 2 * pairs, 2) if probe[i] == 0)
    odd = sum(1 for i in range(1, 2 * pairs, 2) if probe[i] == 0)
    # ASCII-range text in UTF-16: the high byte of nearly every unit is NUL, the low never
    if odd >= 0.6 * pairs and even <= 0.02 * pairs:
        return "utf-16-le", 0
    if even >= 0.6 * pairs and odd <= 0.02 * pairs:
        return "utf-16-be", 0
    return None


class Transcoded:
    """A byte stream read as UTF-16 and handed on as UTF-8, chunk by chunk."""

    def __init__(self, stream: IO[bytes], codec: str, head: bytes) -> None:
        self.stream = stream
        self.decoder = codecs.getincrementaldecoder(codec)(errors="replace")
        self.pending = head
        self.consumed = 0  # raw bytes read so far (for progress)
        self.done = False

    def read(self, size: int = -1) -> bytes:
        while not self.done:
            raw = self.pending or self.stream.read(size if size > 0 else 1 << 16)
            self.pending = b""
            self.consumed += len(raw)
            text = self.decoder.decode(raw, final=not raw)
            if not raw:
                self.done = True
            if text:
                return text.encode("utf-8", "replace")
        return b""


def unmangle(line: str) -> str:
    """UTF-8 that went through a single-byte code page (``∩╗┐`` for a BOM, ``Γ£à`` for
    ✅, ``â€™`` for ’), put back; any other line is returned as it is."""
    if line.isascii():
        return line
    for page in MANGLED_CODEPAGES:
        try:
            fixed = line.encode(page).decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            continue
        if fixed != line:
            return fixed
    return line
