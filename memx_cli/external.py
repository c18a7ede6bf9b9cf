"""The shapes of values that come from outside (issue 26).

A committed file (``sources.lock``, ``config.yaml``, a memory), an agent's transcript or a
socket frame is written by someone else. Before one of its values reaches a subprocess, a
path, an agent's preamble or an export, it passes one of these checks, which accept only
the shape the value must have, never "whatever does not look dangerous":

- a commit id is 40 (SHA-1) or 64 (SHA-256) lowercase hex digits: it can name nothing
  else, no option (``--output=FILE``) and no path (``../..``);
- an operand (a ref, a URL, a path) is one line and never begins with ``-``, so git cannot
  read it as an option, whatever the command;
- a word (a role, an agent's name) is letters, digits and ``. _ -`` after a letter or
  digit: one word on one line, so it cannot forge a line of a preamble.

Each check says whether a value has its shape (``is_commit``, ``is_operand``,
``is_word``); ``commit`` and ``operand`` return the value or raise
``ExternalValueError`` with one line that names where the value came from. ``tests/test_external_census.py`` finds every subprocess call
and every preamble writer in the package and fails on one whose arguments' origin is not
classified.

Text shown on a terminal passes ``terminal_text``: a memory file's content, a file name or
a transcript line can hold escape sequences that a terminal would act on (set the window
title, write the clipboard with OSC 52, move the cursor and overwrite what was shown)
instead of showing them.
"""

from __future__ import annotations

import re

from memx_cli.errors import MemxError

COMMIT_RE = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
WORD_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# C0 and C1 controls, DEL, and Unicode's line and paragraph separators
_CONTROL_RE = re.compile("[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029]")
# What a terminal acts on instead of showing (ECMA-48): a CSI sequence (7- or 8-bit) whole;
# any other escape with its intermediate and final characters (the introducer of an OSC,
# DCS or APC string, whose body is then shown as text); and the remaining C0 and C1
# controls but tab, newline and carriage return. Cursor show/hide (CSI ?25h/l, which
# click's progress bar writes) is kept.
_TERMINAL_RE = re.compile("(?:\x1b\\[|\x9b)[0-?]*[ -/]*[@-~]?|\x1b[ -/]*[0-~]?"
                          "|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_CURSOR_VISIBILITY = ("\x1b[?25h", "\x1b[?25l")
MAX_OPERAND = 4096  # PATH_MAX; a URL or ref longer than that is not one


class ExternalValueError(MemxError):
    """A value from a committed file, a transcript or a socket has the wrong shape."""


def _shown(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def is_commit(value: object) -> bool:
    return isinstance(value, str) and COMMIT_RE.match(value) is not None


def is_operand(value: object) -> bool:
    return (isinstance(value, str) and 0 < len(value) <= MAX_OPERAND
            and not value.startswith("-") and _CONTROL_RE.search(value) is None)


def is_word(value: object) -> bool:
    return isinstance(value, str) and WORD_RE.match(value) is not None


def _checked(ok: bool, value: object, what: str, problem: str) -> str:
    if not ok or not isinstance(value, str):
        raise ExternalValueError(f"{what}: {_shown(value)} {problem}")
    return value


def commit(value: object, what: str) -> str:
    """``value`` if it is a full commit id; ``what`` names where it came from."""
    return _checked(is_commit(value), value, what, "is not a commit id (40 or 64 hex digits)")


def operand(value: object, what: str) -> str:
    """``value`` if git cannot take it for an option: one line, not starting with ``-``."""
    return _checked(is_operand(value), value, what, "cannot be passed to git (empty, "
                    "over-long, starting with '-' or holding a control character)")


def one_line(text: str) -> str:
    """``text`` on one line for a preamble or an export: every run of whitespace and
    control characters becomes one space, so no line can be added."""
    return " ".join(_CONTROL_RE.sub(" ", text).split())


def terminal_text(text: str, mark: str = "\ufffd") -> str:
    """``text`` as a terminal shows it rather than acts on it: each escape sequence and
    control character (tab, newline, carriage return aside) becomes ``mark``."""
    if text.isprintable():
        return text
    return _TERMINAL_RE.sub(
        lambda m: m.group() if m.group() in _CURSOR_VISIBILITY else mark, text)
