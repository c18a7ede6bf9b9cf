"""A fast writer of memory files for the usual record shape (issue 15).

``memory.dump_data`` gives its bytes to YAML's emitter (libyaml's when present). That
costs ~0.15 ms a memory, most of a bulk import's CPU. This module writes the same text
for the shape nearly every memory has: a mapping of scalars, lists of scalars and flat
mappings of scalars, whose text is one line of printable characters. For anything else
(a line break, a tab, a character outside the emitter's printable set, an empty or
nested collection, a float in exponent form, a long or huge record) ``dump`` returns
None and the caller uses the emitter: the fast path only ever takes shapes it writes
exactly as the emitter does. ``tests/test_emit.py`` compares the two on thousands of
generated records, the awkward characters and foldings included.

The emitter rules followed here (block style, ``width=100``, ``indent=2``, unicode on):
a string is written plain when it reads back as the same string (YAML's resolver says
``str``) and has no indicator (``: ``, `` #``, a leading ``- ``, ``#``, a quote...);
otherwise in single quotes with ``'`` doubled. Both fold at a single space once the
column is past the width, continuing on the next line at the value's indent.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Mapping
from typing import Any

WIDTH = 100
# The emitter's printable characters (line feed aside): printable ASCII, U+00A0-U+D7FF,
# U+E000-U+FFFD without the byte-order mark; U+2028 and U+2029 are line breaks to YAML.
# libyaml escapes characters past U+FFFF.
_PRINTABLE = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]+\\Z")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}\Z")
_FIRST_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
# Past these the reader's own limits (values per document, characters) come near: the
# emitter's path and the full read-back check handle such records.
MAX_VALUES = 1000
MAX_CHARS = 200_000
_STR = "tag:yaml.org,2002:str"


# When a one-line plain scalar reads back as text, known from its shape without asking
# YAML 1.1's implicit resolvers (PyYAML's, the ones the dumper consults; issue 29: asking
# imports PyYAML, ~15-30 ms of a write). tests/test_emit.py checks every answer against
# YAML's own resolver, which stays the reference where the shape leaves a doubt:
# - numbers, dates and times start with one of these and hold only these characters
#   (digits, signs, separators, hex digits, 0x, 0b, the T and Z of a time, .inf, .nan);
_NUMBER_FIRST = frozenset("-+.0123456789")
_NUMBER_CHARS = frozenset("0123456789+-._: \tabcdefABCDEFxtTZiInN")
# ...and of those, the times memx writes (ISO 8601, seconds, UTC or an offset) and plain
# decimal integers are certainly not text;
_ISO_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
                       r"(?:[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2})?)?")
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
# - these first characters resolve only as a whole scalar (merge, value, null, and
#   PyYAML's ``yaml`` tag);
_WHOLE_FIRST = frozenset("<=~!&*")
_WHOLE = frozenset({"<<", "=", "~", "!", "&", "*"})
# - with any other first character, only booleans and nulls, as whole words ("yes",
#   not "yEs").
_WORDS = frozenset(form for word in ("yes", "no", "true", "false", "on", "off", "null")
                   for form in (word, word.capitalize(), word.upper()))


@functools.cache
def _resolver() -> tuple[Any, frozenset[str]]:
    """(the tag YAML gives a plain scalar, the first characters for which that can be
    anything but ``str``): the resolver the dumper itself consults."""
    import yaml

    resolver = yaml.resolver.Resolver()
    node = yaml.ScalarNode
    table = resolver.yaml_implicit_resolvers
    firsts = frozenset(str(c) for c in table) if None not in table else frozenset()
    return (lambda text: resolver.resolve(node, text, (True, False))), firsts


@functools.lru_cache(maxsize=4096)  # kinds, sections, sources, tools: the same words
def _reads_as_text(text: str) -> bool:
    """Whether ``text`` (one line) written plain reads back as text (not a number,
    bool, null...)."""
    first = text[0]
    if first in _NUMBER_FIRST:
        if not _NUMBER_CHARS.issuperset(text):
            return True
        if _ISO_TIME.fullmatch(text) or _DECIMAL.fullmatch(text):
            return False
        return _yaml_reads_as_text(text)
    if first in _WHOLE_FIRST:
        return text not in _WHOLE
    return text not in _WORDS


def _yaml_reads_as_text(text: str) -> bool:
    """YAML's own answer (the reference)."""
    resolve, firsts = _resolver()
    if firsts and text[0] not in firsts:
        return True
    return bool(resolve(text) == _STR)


@functools.cache
def _libyaml() -> bool:
    """Whether the dumper is libyaml's, the emitter these rules were checked against
    (PyYAML's own emitter differs at the edges: it prints characters past U+FFFF).
    Before PyYAML is imported, whether its package holds libyaml's binding (a file
    beside its modules): a write of the usual shape need not import it."""
    yaml = sys.modules.get("yaml")
    if yaml is not None:
        return hasattr(yaml, "CSafeDumper")
    import importlib.machinery
    import importlib.util

    spec = importlib.util.find_spec("yaml")
    folders = (spec.submodule_search_locations or []) if spec is not None else []
    return any(os.path.isfile(os.path.join(folder, f"_yaml{suffix}"))
               for folder in folders for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def dump(data: Mapping[str, Any]) -> str | None:
    """The emitter's text for ``data``, or None when ``data`` is outside the fast shape."""
    if not _libyaml():
        return None
    out: list[str] = []
    values = 0
    for key, value in data.items():
        if not _plain_key(key):
            return None
        if isinstance(value, dict):
            if not value:
                return None
            out.append(f"{key}:\n")
            for inner, item in value.items():
                if not _plain_key(inner):
                    return None
                text = _scalar(item, 2 + len(inner) + 1, 4)
                if text is None:
                    return None
                out.append(f"  {inner}:{text}\n")
            values += len(value)
        elif isinstance(value, list):
            if not value:
                return None
            out.append(f"{key}:\n")
            for item in value:
                text = _scalar(item, 1, 2)
                if text is None:
                    return None
                out.append(f"-{text}\n")
            values += len(value)
        else:
            text = _scalar(value, len(key) + 1, 2)
            if text is None:
                return None
            out.append(f"{key}:{text}\n")
            values += 1
        if values > MAX_VALUES:
            return None
    result = "".join(out)
    return result if len(result) <= MAX_CHARS else None


@functools.lru_cache(maxsize=1024)
def _plain_key(key: Any) -> bool:
    return isinstance(key, str) and _KEY.match(key) is not None and _reads_as_text(key)


def _scalar(value: Any, column: int, indent: int) -> str | None:
    """`` value`` as written after a key or a ``-`` that ends at ``column``; None when
    outside the fast shape. Continuation lines start at ``indent``."""
    if isinstance(value, str):
        if not _PRINTABLE.match(value):
            return None  # empty, a line break, a tab, a control or astral character
        if _plain(value):
            return " " + _fold(value, column + 1, indent, quoted=False)
        quoted = value.replace("'", "''")
        return " '" + _fold(quoted, column + 2, indent, quoted=True) + "'"
    if value is None:
        return " null"
    if value is True or value is False:
        return " true" if value else " false"
    if type(value) is int:
        return f" {value}"
    if type(value) is float:
        text = repr(value)
        # 0.6 or -12.5 read back as themselves; exponents, inf and nan take the emitter.
        return f" {text}" if "." in text and text[-1].isdigit() and "e" not in text else None
    return None


def _plain(text: str) -> bool:
    """Whether the emitter writes ``text`` (printable, one line) without quotes."""
    first = text[0]
    if first == " " or text[-1] == " " or first in _FIRST_INDICATORS:
        return False
    if first in "?:-" and (len(text) == 1 or text[1] == " "):
        return False
    if text.startswith(("---", "...")) or ": " in text or " #" in text or text[-1] == ":":
        return False
    return _reads_as_text(text)


def _fold(text: str, column: int, indent: int, quoted: bool) -> str:
    """``text`` written from ``column``: a single space (not the first or last
    character of a quoted one) past the width becomes a line break and ``indent``."""
    last = len(text) - 1
    if column + last <= WIDTH:
        return text
    parts: list[str] = []
    start = 0
    space = text.find(" ")
    while space != -1:
        if (column + space - start > WIDTH and space < last and text[space + 1] != " "
                and space > 0 and text[space - 1] != " "):
            parts.append(text[start:space])
            parts.append("\n" + " " * indent)
            column, start = indent, space + 1
        space = text.find(" ", space + 1)
    parts.append(text[start:])
    return "".join(parts)
