"""The one YAML reader of memx: memory files, configuration and access grants (issue 14).

YAML is richer than what memx keeps in it, and the rich parts are where it breaks: an
alias bomb ("billion laughs", 1 KB that expands to gigabytes), a tag (``!!timestamp``,
``!!int abc``) that makes the constructor raise something other than a YAML error,
nesting deep enough to exhaust the recursion limit, a FIFO that never ends. This reader
takes only plain data (mappings, sequences, untagged scalars) from one document, builds
it from the parser's events with an explicit stack (no recursion), and reads only
regular files of bounded size. Everything else is a ``YamlInputError`` with a line.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

MAX_DEPTH = 32  # a memory file nests 3 deep, a config 4; 32 is generous, 900 is an attack
MAX_BYTES = 1_000_000  # a memory is a paragraph, a config a page
MAX_NODES = 200_000  # scalars and collections in one document
# Anchors and aliases, where a file may hold them (a CI file checked for secrets): an alias
# bomb needs few (9 levels of 9), but a walk that follows them visits 9**9 nodes; the
# walk below visits each node once, and this bounds what the parser keeps (issue 26)
MAX_ALIASES = 1_000


class YamlInputError(ValueError):
    """The text is not plain YAML data memx accepts; ``line`` is 1-based when known."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line

    def where(self, path: str) -> str:
        return f"{path}:{self.line}" if self.line else path


class NotRegularFileError(OSError):
    """The path is a FIFO, a device, a directory...: never read (it could block forever)."""


def read_regular(path: Path, limit: int = MAX_BYTES, follow: bool = True) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes.

    Opened without blocking (a FIFO named ``*.yaml`` must not hang memx), checked with
    ``fstat`` on the open descriptor (no race with a rename). Raises FileNotFoundError,
    NotRegularFileError, or ``OSError(EFBIG)`` when too large. ``follow=False``: a
    symbolic link is not a regular file either (a committed memory file that links to
    a file outside the repository is never read through; walk17).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags if follow else flags | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        if not follow and exc.errno == errno.ELOOP:
            raise NotRegularFileError(0, "not a regular file", str(path)) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(0, "not a regular file", str(path))
        if info.st_size > limit:
            raise OSError(27, f"{info.st_size} bytes, over the limit of {limit}", str(path))
        chunks = []
        total = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > limit:  # grew while we read
                raise OSError(27, f"over {limit} bytes", str(path))
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


@functools.cache
def _parts() -> tuple[Any, Any, Any, Any]:
    """(yaml module, parser loader class, resolver, constructor), imported on first use:
    PyYAML costs ~25 ms to import (SPEC 11)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # SPEC 11: C parser, ~9x faster
    return yaml, loader, yaml.resolver.Resolver(), yaml.constructor.SafeConstructor()


_PLAIN_TAGS = {
    "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:timestamp",
}


def loads(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """Plain data from one YAML document (None for an empty one). Raises YamlInputError."""
    yaml, loader_cls, resolver, constructor = _parts()
    if len(text) > MAX_BYTES:
        raise YamlInputError(f"{len(text)} characters, over the limit of {MAX_BYTES}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate: the parser would raise it raw
        raise YamlInputError(f"not valid Unicode text (character {exc.start})") from None
    stack: list[Any] = []  # open collections: a list or a _MapFrame
    result: Any = None
    documents = 0
    nodes = 0
    loader = loader_cls(text)
    try:
        for kind, event, line in _events(loader):
            if kind == "DocumentStartEvent":
                documents += 1
                if documents > 1:
                    raise YamlInputError("more than one YAML document; keep one", line)
                continue
            if kind in ("StreamStartEvent", "StreamEndEvent", "DocumentEndEvent"):
                continue
            if kind == "AliasEvent" or getattr(event, "anchor", None) is not None:
                raise YamlInputError("YAML anchors and aliases (& and *) are not accepted; "
                                     "write the value out", line)
            if getattr(event, "tag", None) is not None:
                shown = str(event.tag).replace("tag:yaml.org,2002:", "!!")
                raise YamlInputError(f"YAML tag {shown} is not accepted; "
                                     "write a plain value", line)
            if kind.endswith("EndEvent"):
                frame = stack.pop()
                value = frame.data if isinstance(frame, _MapFrame) else frame
                _attach(stack, value, line)
                if not stack:
                    result = value
                continue
            nodes += 1
            if nodes > MAX_NODES:
                raise YamlInputError(f"more than {MAX_NODES} values in one document", line)
            if kind == "ScalarEvent":
                tag = resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
                if tag not in _PLAIN_TAGS:
                    raise YamlInputError(f"{event.value!r} is not a plain value "
                                         "(merge keys and YAML specials are not accepted)", line)
                node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark)
                try:
                    value = constructor.yaml_constructors[tag](constructor, node)
                except (ValueError, OverflowError) as exc:
                    raise YamlInputError(f"{event.value!r}: {exc}", line) from None
                _attach(stack, value, line)
                if not stack:
                    result = value
                continue
            if len(stack) >= max_depth:
                raise YamlInputError(f"nested more than {max_depth} levels deep", line)
            stack.append(_MapFrame() if kind == "MappingStartEvent" else [])
    except yaml.YAMLError as exc:
        raise _input_error(exc) from None
    finally:
        loader.dispose()
    return result


def compose_all(text: str, max_depth: int = MAX_DEPTH) -> list[Any]:
    """The node trees of every document of ``text`` (for line numbers and raw scalars),
    bounded like ``loads``: size, depth, nodes, and at most MAX_ALIASES aliases. Walk them
    with ``nodes``, which visits an aliased node once. Raises YamlInputError."""
    yaml, loader_cls, _, _ = _parts()
    if len(text) > MAX_BYTES:
        raise YamlInputError(f"{len(text)} characters, over the limit of {MAX_BYTES}")
    depth = count = aliases = 0
    loader = loader_cls(text)
    try:  # first the events alone: nothing is built before the bounds hold
        for kind, _event, line in _events(loader):
            if kind == "AliasEvent":
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise YamlInputError(f"more than {MAX_ALIASES} YAML aliases", line)
            elif kind in ("MappingStartEvent", "SequenceStartEvent"):
                depth += 1
                if depth > max_depth:
                    raise YamlInputError(f"nested more than {max_depth} levels deep", line)
            elif kind in ("MappingEndEvent", "SequenceEndEvent"):
                depth -= 1
            if kind in ("ScalarEvent", "MappingStartEvent", "SequenceStartEvent"):
                count += 1
                if count > MAX_NODES:
                    raise YamlInputError(f"more than {MAX_NODES} values", line)
        return [n for n in yaml.compose_all(text, Loader=loader_cls) if n is not None]
    except yaml.YAMLError as exc:
        raise _input_error(exc) from None
    finally:
        loader.dispose()


def compose(text: str) -> Any:
    """The node tree of a one-document ``text`` (None when empty); see ``compose_all``."""
    found = compose_all(text)
    if len(found) > 1:
        raise YamlInputError("more than one YAML document; keep one")
    return found[0] if found else None


def nodes(roots: list[Any]) -> list[Any]:
    """Every node under ``roots``, each once however many aliases name it."""
    yaml = _parts()[0]
    seen: set[int] = set()
    found = []
    stack = list(roots)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        if isinstance(node, yaml.MappingNode):
            stack += [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    return found


def _events(loader: Any) -> Iterator[tuple[str, Any, int | None]]:
    """(kind, event, 1-based line) of each parser event."""
    while loader.check_event():
        event = loader.get_event()
        yield (type(event).__name__, event,
               event.start_mark.line + 1 if event.start_mark is not None else None)


def _input_error(exc: Exception) -> YamlInputError:
    """The parser's error as one line, with its line number when it has one."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return YamlInputError(f"invalid YAML: {problem}", mark.line + 1 if mark is not None else None)


class _MapFrame:
    """A mapping being built: its data and the key waiting for a value."""

    __slots__ = ("data", "has_key", "key")

    def __init__(self) -> None:
        self.data: dict[Any, Any] = {}
        self.key: Any = None
        self.has_key = False


def _attach(stack: list[Any], value: Any, line: int | None) -> None:
    if not stack:
        return
    frame = stack[-1]
    if isinstance(frame, _MapFrame):
        if not frame.has_key:
            if isinstance(value, (dict, list)):
                raise YamlInputError("a mapping key must be a plain value", line)
            if value in frame.data:
                raise YamlInputError(f"duplicate key {value!r}", line)
            frame.key, frame.has_key = value, True
        else:
            frame.data[frame.key] = value
            frame.key, frame.has_key = None, False
    else:
        frame.append(value)
