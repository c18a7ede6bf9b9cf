"""Privacy: the one gate every byte from outside passes before memx writes it (SPEC 3.1,
SPEC 10, issue 12).

- ``mask(text)``: the text with every secret replaced by ``[REDACTED:kind]``, typed
  ``fsutil.Masked``: the text writers (``fsutil.write_text``, ``fsutil.append_line``) take
  nothing else, so mypy rejects a writer that forgot the gate.
- ``mask_data(value)``: the same on every string of a JSON-like value (run records,
  session items).
- memories: ``Store.write`` masks every memory it writes (``sanitizer.sanitize_memory``)
  unless the caller passes ``raw=True`` (ACE off, SPEC 3: stored as given).

Mask first, rewrite after: text is masked where it enters (a diff before it becomes
prose, each argument of a command before it is quoted), never after a rewrite that could
hide a secret from the patterns.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memx_cli.fsutil import Masked

if TYPE_CHECKING:
    from memx_cli.privacy.sanitizer import Sanitizer

_KIND = re.compile(r"\[REDACTED:([a-z0-9_]+)\]")


def default() -> Sanitizer:
    """The built-in patterns (no custom ones)."""
    from memx_cli.privacy.sanitizer import cached

    return cached(())


def mask(text: str, sanitizer: Sanitizer | None = None) -> Masked:
    """``text`` with every secret masked; raises SanitizeError (fail closed)."""
    return Masked((sanitizer or default()).sanitize(text))


def mask_data(value: Any, sanitizer: Sanitizer | None = None) -> Any:
    """Every string inside ``value`` (dicts, lists, tuples), masked; keys too."""
    clean = (sanitizer or default()).sanitize
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, Mapping):
        return {clean(k) if isinstance(k, str) else k: mask_data(v, sanitizer)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask_data(v, sanitizer) for v in value]
    return value


def dumps(value: Any, sanitizer: Sanitizer | None = None, **options: Any) -> Masked:
    """``value`` as JSON, every string in it masked first (never the serialized text:
    a pattern must not run across JSON quoting)."""
    return Masked(json.dumps(mask_data(value, sanitizer), **options))


def kinds(text: str) -> list[str]:
    """The kinds of the placeholders in ``text``, in order."""
    return _KIND.findall(text)


def new_kinds(before: str, after: str) -> list[str]:
    """Kinds masked in ``after`` that ``before`` did not already hold (a report of what
    a mask did, without the values)."""
    have = kinds(before)
    found = []
    for kind in kinds(after):
        if kind in have:
            have.remove(kind)
        else:
            found.append(kind)
    return found
