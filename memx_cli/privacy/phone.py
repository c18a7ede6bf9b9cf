"""Whether a run of digits that looks like a phone number is written as one.

Logs are full of long numbers shaped like phone numbers: Go's monotonic clock reading
(``m=+25.738448103``), CI run and job ids in URLs (``/actions/runs/19182754211``), issue
and run numbers (``#18603721483``). What tells them apart is the structure a phone number
has and they lack:

- an international number written with a separator after its country code names a real
  E.164 country code (``+44 20 ...``, ``+1.415...``); ``+25.7384`` is a signed decimal;
- a plain run of digits that is a whole path segment of a URL, after a collection segment
  (``/runs/<id>``, ``/jobs/<id>``), is a resource id; one right after ``#`` is an issue
  or run number. A host's own path (``wa.me/<number>``), a query value, a ``+``-number or
  a number with separators is never read as an id.

Anything else that the phone patterns match is still masked: the rule only lets a number go
when its own structure says it is not a phone number.
"""

from __future__ import annotations

import re

# E.164 country codes (ITU-T), by length. Two-digit prefixes under which every code has
# three digits are the "zones" below: a code written as two digits there is not a code.
_ONE = frozenset("17")


def _codes(*spans: tuple[int, int]) -> frozenset[str]:
    return frozenset(str(n) for low, high in spans for n in range(low, high + 1))


_TWO = _codes((20, 20), (27, 27), (30, 34), (36, 36), (39, 41), (43, 49), (51, 58), (60, 66),
              (81, 82), (84, 84), (86, 86), (90, 95), (98, 98))
_THREE_ZONES = _codes((21, 26), (28, 29), (35, 35), (37, 38), (42, 42), (50, 50), (59, 59),
                      (67, 69), (80, 80), (85, 85), (87, 88), (96, 97), (99, 99))

_SEPARATORS = " .-("
# a whole URL path segment: "/" before, and "/", "?", "#", a quote, a bracket or the end after
_SEGMENT_END = re.compile(r"(?:[/?#\"')\]>]|\s|$)")
_COLLECTION = re.compile(r"/[a-z][a-z_-]*/$")


def _country_code_ok(written: str) -> bool:
    if len(written) == 1:
        return written in _ONE
    if len(written) == 2:
        return written in _TWO
    return written[:2] in _THREE_ZONES


def international(match: re.Match[str]) -> bool:
    """A ``+``-number is a phone number unless the code it writes is no country code."""
    body = match.group(0)[1:]
    head = re.match(r"\d{1,3}", body)
    if head is None:
        return False
    rest = body[head.end():]
    # "+25.738448103": a signed decimal, not "+25 ..."
    return not rest or rest[0] not in _SEPARATORS or _country_code_ok(head.group(0))


def national(match: re.Match[str]) -> bool:
    """A bare number shaped like a national phone number, unless it is an id by place."""
    return not (match.group(0).isdigit() and _numbered(match))


def _numbered(match: re.Match[str]) -> bool:
    text, start, end = match.string, match.start(), match.end()
    if start and text[start - 1] == "#":
        return True  # "#18603721483": an issue, run or build number
    if not start or text[start - 1] != "/" or not _SEGMENT_END.match(text, end):
        return False
    token = re.split(r"[\s\"'(<\[]", text[max(0, start - 2000):start])[-1]
    schemes = list(re.finditer(r"[a-z][a-z0-9+.-]*://", token, re.IGNORECASE))
    if not schemes:
        return False
    path = token[schemes[-1].end():]
    return "/" in path.rstrip("/") and _COLLECTION.search("/" + path) is not None
