"""Time in one place, so decay and recency can be tested with a fake "now".

``MEMX_NOW`` (an ISO-8601 UTC timestamp) pins the clock; it exists for tests and for
reproducing a ranking as it was on a given day.
"""

from __future__ import annotations

import functools
import os
from datetime import UTC, datetime

from memx_cli.errors import ConfigError


def now() -> datetime:
    pinned = os.environ.get("MEMX_NOW")
    if pinned:
        try:
            return parse_timestamp(pinned)
        except ValueError:
            raise ConfigError(f"MEMX_NOW: not an ISO-8601 timestamp: {pinned!r}") from None
    return datetime.now(UTC).replace(microsecond=0)


# A warm search parses each candidate's times again and again (issue 15); datetimes are
# immutable, so the parsed value of a string can be shared.
@functools.lru_cache(maxsize=16384)
def parse_timestamp(value: str) -> datetime:
    """Parse ISO-8601; naive values are taken as UTC. Raises ValueError."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def format_timestamp(moment: datetime) -> str:
    """The store's canonical form: UTC, seconds precision, ``Z`` suffix."""
    return moment.astimezone(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_iso() -> str:
    return format_timestamp(now())
