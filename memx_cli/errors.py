"""The exceptions library code raises; the CLI boundary turns them into one line.

Every message says what is wrong and, where possible, what to do about it
(STYLE: one error boundary). Exit codes follow SPEC section 7.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_PATTERN_TIME = 4  # a custom privacy pattern ran over its time: nothing was stored


class MemxError(Exception):
    """Base class: a problem the user can act on. Maps to exit code 2 by default."""

    exit_code = EXIT_USAGE


class NotARepoError(MemxError):
    """The current directory is not inside a git work tree."""


class NotInitializedError(MemxError):
    """The repository has no `.memx/` store yet."""


class NotFoundError(MemxError):
    """An id or prefix matched no memory."""


class AmbiguousIdError(MemxError):
    """An id prefix matched more than one memory."""


class InvalidMemoryError(MemxError):
    """A memory file or a memory object is not valid store format."""


class SchemaTooNewError(InvalidMemoryError):
    """A file was written by a newer memx than the one installed."""


class ConfigError(MemxError):
    """A configuration key is unknown in a place where that matters, or a value is bad."""


class LockTimeoutError(MemxError):
    """Another memx process held the store lock for too long."""

    exit_code = EXIT_INTERNAL


class ModelUnavailableError(MemxError):
    """The embedding model could not be loaded; callers degrade to keyword search."""


class CheckFailedError(MemxError):
    """A check (validate, pre-commit) found problems. Exit code 1."""

    exit_code = EXIT_CHECK_FAILED


class LinkedMemoryError(MemxError):
    """Other memories link to the one to remove (supersede chain, conflict)."""


class StoreError(MemxError):
    """The store's layout is damaged: a directory memx needs is a file, say."""


SHOWN_CHARS = 60


def shown(value: object) -> str:
    """``value`` quoted for an error message, cut to its first SHOWN_CHARS characters
    when longer: a pasted file or a flood of text given as an id, a label or a name
    must not turn the one-line error into that text again."""
    text = str(value)
    if len(text) <= SHOWN_CHARS:
        return repr(text)
    return f"{text[:SHOWN_CHARS]!r}... ({len(text):,} characters)"
