"""Whether a commit's memory names something outside the project (issue 24): a platform,
a Python version, another tool or library, a standard, a module of the standard library.

A lesson a newcomer could not rediscover from the code is mostly about the world the code
runs in: ``pip`` intersects pins, Windows needs a flush before a Ctrl+C event, httpx 0.27
deprecated a keyword. An explanation that names only the project's own modules and
commands tells what the diff tells. What is the project's own is read from the commit:
the folders and file names it changed (``src/pipx/commands/run.py`` makes ``pipx``,
``commands`` and ``run`` its own), never from a list of projects.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable

from memx_cli.reflector.names import CODE_SPAN, tools_in
from memx_cli.reflector.routine import PLATFORM

# tools whose names are also everyday words ("clean coverage", "make sure", "just"): a
# name only when written as code
WORDS_TOO = frozenset(["black", "buf", "coverage", "gem", "hatch", "just", "kind", "make",
                       "mise", "node", "perf", "react", "requests", "swift", "vault", "venv",
                       "wheel"])
# A numbered standard ("PEP 751", "RFC 9110") or a named one ("the ASGI spec").
STANDARD = re.compile(r"\b(?:PEP|RFC|ISO|ECMA|CVE|WCAG)[- ]?\d{2,}\b|"
                      r"\b[A-Z][A-Z0-9]{1,}(?:[ -][A-Z][A-Za-z0-9]*)? spec(?:ification)?s?\b")
# A name with its constraint ("pip==20", "httptools>=0.6.3") or a product's name with its
# version ("Django 5.1", "OpenSSL 3.0"): a lower-case word before a number is a sentence's
# ("about 0.34.3")
VERSIONED = re.compile(r"(?<![\w.-])(?:([A-Za-z][\w.-]*?)\s?(?:[<>=!~]=|[<>])\s?v?\d+|"
                       r"([A-Z][\w.-]*)\sv?\d+\.\d+)(?:\.\d+)*(?![\w.])")
# the words a version follows in a sentence, not a thing's name ("from 0.6", "version 2.1")
NOT_A_NAME = frozenset(["a", "an", "and", "as", "at", "before", "below", "above", "from", "in",
                        "into", "is", "of", "on", "or", "since", "than", "the", "to",
                        "until", "up", "upgrade", "upgraded", "bump", "bumped", "version",
                        "versions", "release", "v"])
# dotted code whose first part is a module of Python's standard library ("sys.stdin",
# "tarfile.data_filter", "asyncio.iscoroutinefunction")
DOTTED = re.compile(r"(?<![\w.])([a-z_][a-z0-9_]*)\.[A-Za-z_]\w*")
STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
OUTSIDE = 12  # the lesson value a name outside the project adds (``commit_value``)


def own_names(paths: Iterable[str]) -> frozenset[str]:
    """The project's own names a commit shows: its changed paths' folders and file stems,
    lower case, without leading underscores (``src/_pytest`` gives ``pytest``)."""
    names: set[str] = set()
    for path in paths:
        for part in path.split("/"):
            stem = part.split(".", 1)[0].lower().lstrip("_")
            if len(stem) >= 2:
                names.add(stem)
    return frozenset(names)


def named(text: str, own: frozenset[str]) -> list[str]:
    """The things outside the project that ``text`` names, in kinds (platform, standard,
    tool, module, versioned name)."""
    found: list[str] = []
    if PLATFORM.search(text):
        found.append("platform")
    if STANDARD.search(text):
        found.append("standard")
    spans = CODE_SPAN.findall(text)
    in_code = {tool for span in spans for tool in tools_in(span)}
    if any(tool not in own and (tool not in WORDS_TOO or tool in in_code)
           for tool in tools_in(text)):
        found.append("tool")
    code = " ".join(spans) or text
    if any(m.group(1) in STDLIB and m.group(1) not in own for m in DOTTED.finditer(code)):
        found.append("module")
    for match in VERSIONED.finditer(text):
        name = (match.group(1) or match.group(2)).lower().strip(".-")
        if name not in NOT_A_NAME and name not in own and not name.isdigit():
            found.append("versioned")
            break
    return found


