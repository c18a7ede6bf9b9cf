"""Memory ids: ULIDs in lowercase Crockford base32.

26 characters: 10 encode the creation time in milliseconds (so ids sort by creation
time and file listings read chronologically), 16 are random (so two people adding
memories on two branches never collide). Lowercase keeps file names identical on
case-insensitive file systems; input is matched case-insensitively.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import threading
import time
from collections.abc import Iterable
from typing import Any

from memx_cli.clock import parse_timestamp

ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
ID_LENGTH = 26
# Long enough to pass the 10 time characters: ids created in one session share ~6-8.
MIN_ABBREV = 12

_lock = threading.Lock()
_last: tuple[int, int] = (0, 0)


def _encode(value: int, length: int) -> str:
    chars = []
    for _ in range(length):
        chars.append(ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def new_id(now_ms: int | None = None) -> str:
    """A new id; strictly increasing within one process even inside one millisecond.

    Inside one millisecond the random part grows by a random step of up to 2^75 rather
    than by 1, so ids made in a burst (an import) still differ early enough to be
    abbreviated; on overflow the time part moves on by a millisecond.
    """
    global _last
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    with _lock:
        rand = int.from_bytes(os.urandom(10), "big")
        last_ms, last_rand = _last
        if ms <= last_ms:
            ms = last_ms
            rand = last_rand + 1 + (int.from_bytes(os.urandom(9), "big") % (1 << 75))
            if rand >= 1 << 80:
                ms, rand = ms + 1, int.from_bytes(os.urandom(10), "big") >> 1
        _last = (ms, rand)
    return _encode(ms, 10) + _encode(rand, 16)


def make_id(millis: int, random_part: int) -> str:
    """The id made of a time in milliseconds and an 80-bit value (for ids that must be the
    same wherever they are made, such as the merge driver's conflict copies)."""
    return _encode(millis, 10) + _encode(random_part % (1 << 80), 16)


def is_valid_id(value: str) -> bool:
    return len(value) == ID_LENGTH and all(c in ALPHABET for c in value)


def normalize_prefix(prefix: str) -> str:
    """Lowercase and map the Crockford look-alikes (i, l → 1; o → 0)."""
    table = str.maketrans({"i": "1", "l": "1", "o": "0"})
    return prefix.strip().lower().translate(table)


def abbreviate(ids: Iterable[str], min_len: int = MIN_ABBREV,
               wanted: Iterable[str] | None = None) -> dict[str, str]:
    """Shortest unique prefix (at least ``min_len``) among ``ids``, like git's short shas;
    for every id, or only for ``wanted`` ones (each must be among ``ids``)."""
    ordered = sorted(set(ids))
    positions = (range(len(ordered)) if wanted is None
                 else [bisect.bisect_left(ordered, w) for w in wanted])
    result: dict[str, str] = {}
    for i in positions:
        value = ordered[i]
        need = min_len
        for j in (i - 1, i + 1):
            if 0 <= j < len(ordered):
                other = ordered[j]
                common = 0
                while common < len(value) and value[common] == other[common]:
                    common += 1
                need = max(need, common + 1)
        result[value] = value[: min(need, len(value))]
    return result


def copy_id(original: str, content: str, written: str) -> str:
    """The id of the conflict copy of memory ``original`` holding ``content`` as edited at
    ``written``: its time and a digest of what it holds."""
    digest = hashlib.sha256(f"{original}\0{content}".encode()).digest()
    millis = int(parse_timestamp(written).timestamp() * 1000)
    return make_id(millis, int.from_bytes(digest[:10], "big"))


def is_copy_of(copy: Any, original: Any) -> bool:
    """Whether ``copy`` is the conflict copy a merge made of ``original``'s other side
    (and its text was not edited since)."""
    return copy.id == copy_id(original.id, copy.content, copy.created_at)
