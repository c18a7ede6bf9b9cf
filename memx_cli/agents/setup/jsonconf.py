"""Editing an agent's JSON configuration as text, so nothing else in the file moves.

memx never re-serialises a whole file: it finds the object or array to change by its
position in the text and inserts or cuts out only its own member, in the style of the
neighbouring lines (their indentation, inline or one per line). Taking a member out is
the exact inverse of putting it in, so `memx setup` followed by `memx setup --remove`
leaves the file byte for byte as it was: line endings (CRLF or LF), a missing final
newline and every other member included. JSON with comments (JSONC: ``//`` and ``/* */``
comments, trailing commas, as VS Code and Cursor read ``mcp.json``) is read through a
view of the text with its comments and trailing commas blanked to spaces, the same
length, so every position found in the view is the position in the file: the comments
stay where they are. NaN or Infinity, or nesting deeper than ``MAX_DEPTH``, are refused in
one line rather than rewritten.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from memx_cli.errors import MemxError

Path_ = Sequence[str | int]  # object keys and array indexes from the top-level object
_WS = re.compile(r"[ \t\r\n]*")
_SCALAR = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null")
_INDENT = re.compile(r"^([ \t]+)\S", re.MULTILINE)
BLANK = ("",)  # in a Keep: the file was there but blank (no container has an empty name)
MAX_DEPTH = 64  # agents' configs nest a few levels; deeper is refused, not recursed into


@dataclass
class Node:
    start: int  # the value's span in the text: [start, end)
    end: int
    kind: str  # "object", "array" or "scalar"
    keys: list[tuple[str, int]] = field(default_factory=list)  # object: (key, key start)
    children: list[Node] = field(default_factory=list)


def _skip(text: str, i: int) -> int:
    match = _WS.match(text, i)
    return match.end() if match else i


def _node(text: str, i: int) -> Node:
    i = _skip(text, i)
    if text[i] == '"':
        return Node(i, scanstring(text, i + 1)[1], "scalar")
    if text[i] in "{[":
        node = Node(i, i, "object" if text[i] == "{" else "array")
        close = "}" if node.kind == "object" else "]"
        i = _skip(text, i + 1)
        while text[i] != close:
            if node.kind == "object":
                key, after = scanstring(text, i + 1)
                node.keys.append((key, i))
                i = _skip(text, after) + 1  # past ':'
            child = _node(text, i)
            node.children.append(child)
            i = _skip(text, child.end)
            if text[i] == ",":
                i = _skip(text, i + 1)
        node.end = i + 1
        return node
    match = _SCALAR.match(text, i)
    assert match is not None  # the text was checked by json.loads first
    return Node(i, match.end(), "scalar")


# A string, a comment (line or block; an unclosed block runs to the end) or a comma with
# only blanks and comments before a closing bracket: a trailing comma.
_JSONC = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*(?:[^*]|\*(?!/))*(?:\*/)?'
                    r'|,(?=(?:\s|//[^\n]*(?![^\n])|/\*(?:[^*]|\*(?!/))*\*/)*[\]}])')


def plain(text: str) -> str:
    """``text`` with its comments and trailing commas blanked to spaces (line ends kept),
    so positions are the same in both: plain JSON is returned as it is."""
    if "/" not in text and "," not in text:
        return text
    return _JSONC.sub(lambda m: m.group(0) if m.group(0)[0] == '"' else re.sub(
        r"[^\r\n]", " ", m.group(0)), text)


def load(text: str | None, where: str) -> dict[str, Any]:
    """The top-level object of ``text`` (an absent or blank file is an empty object)."""
    if text is None or not text.strip():
        return {}
    text = plain(text)
    if not text.strip():
        return {}
    refuse = (f"{where}: not valid JSON ({{}}); memx edits JSON (comments and trailing "
              "commas allowed): fix the file or add the entry by hand")
    if _depth(text) > MAX_DEPTH:
        raise MemxError(refuse.format(f"nested deeper than {MAX_DEPTH} levels"))
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise MemxError(refuse.format(f"line {exc.lineno}: {exc.msg}")) from None
    except ValueError as exc:
        raise MemxError(refuse.format(exc)) from None
    if not isinstance(data, dict):
        raise MemxError(f"{where}: expected a JSON object at the top level")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _depth(text: str) -> int:
    """The deepest nesting of objects and arrays in ``text`` (strings skipped), counted
    without recursion so a hostile file cannot exhaust the stack."""
    depth = deepest = 0
    for match in _BRACKETS.finditer(text):
        token = match.group(0)
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def eol(text: str) -> str:
    """The file's line ending: CRLF when its first line ends so, else LF."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _locate(text: str, path: Path_) -> Node | None:
    node = _node(plain(text), 0)
    for step in path:
        if isinstance(step, int):
            if node.kind != "array" or step >= len(node.children):
                return None
            node = node.children[step]
        else:
            names = [k for k, _ in node.keys] if node.kind == "object" else []
            if step not in names:
                return None
            node = node.children[len(names) - 1 - names[::-1].index(step)]  # last one wins
    return node


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    return _WS.match(text, start).group(0).lstrip("\r\n")  # type: ignore[union-attr]


def _unit(text: str) -> str:
    match = _INDENT.search(text)
    return match.group(1) if match else "  "


def _insert(text: str, node: Node, key: str | None, value: Any) -> str:
    """Text with ``value`` added last to the object/array ``node`` (as ``key``)."""
    head = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
    nl = eol(text)
    if not node.children:
        # Whatever stood between the brackets stays after the new member, so _cut can
        # take out exactly what was put in: ``{ }`` -> ``{NL  "k": v NL }``.
        indent = _line_indent(text, node.start)
        inner = indent + _unit(text)
        body = json.dumps(value, indent=_unit(text), ensure_ascii=False).replace("\n", nl + inner)
        piece = f"{nl}{inner}{head}{body}{nl}{indent}"
        return text[: node.start + 1] + piece + text[node.start + 1:]
    last = node.children[-1]
    first_pos = node.keys[0][1] if node.keys else node.children[0].start
    if "\n" not in text[node.start:first_pos]:  # written inline: {"a": 1, "b": 2}
        body = json.dumps(value, ensure_ascii=False)
        return text[: last.end] + ", " + head + body + text[last.end:]
    inner = _line_indent(text, node.keys[-1][1] if node.keys else last.start)
    body = json.dumps(value, indent=_unit(text), ensure_ascii=False).replace("\n", nl + inner)
    return text[: last.end] + f",{nl}{inner}{head}{body}" + text[last.end:]


def _cut(text: str, node: Node, index: int) -> str:
    """Text without member/element ``index`` of ``node``: the inverse of _insert."""
    starts = [k for _, k in node.keys] if node.kind == "object" else [c.start for c in node.children]
    if len(node.children) == 1:
        closing = eol(text) + _line_indent(text, node.start)
        end = node.children[0].end
        if text.startswith(closing, end):  # what _insert put after the only member
            end += len(closing)
        else:  # edited since: close the container as {}
            end = node.end - 1
        return text[: node.start + 1] + text[end:]
    if index > 0:
        return text[: node.children[index - 1].end] + text[node.children[index].end:]
    return text[: starts[0]] + text[starts[1]:]


def set_member(text: str | None, where: str, path: Sequence[str], key: str, value: Any) -> str:
    """``value`` as member ``key`` of the object at ``path`` (objects created when missing)."""
    load(text, where)
    if text is None or not text.strip():
        # A blank file keeps its whitespace after the new object, for remove() to restore.
        return json.dumps(_wrap(path, key, value), indent=2, ensure_ascii=False) + "\n" + (
            text or "")
    node: Node | None = None
    for depth in range(len(path) + 1):
        node = _locate(text, path[:depth])
        if node is None or node.kind != "object":
            raise MemxError(f"{where}: {'.'.join(path[:depth])} is not a JSON object")
        if depth < len(path) and path[depth] not in [k for k, _ in node.keys]:
            return _insert(text, node, path[depth], _wrap(path[depth + 1:], key, value))
    assert node is not None
    if key not in [k for k, _ in node.keys]:
        return _insert(text, node, key, value)
    member = _locate(text, [*path, key])
    assert member is not None
    if json.loads(plain(text)[member.start: member.end]) == value:
        return text
    indent = _line_indent(text, member.start)
    body = json.dumps(value, indent=_unit(text), ensure_ascii=False).replace(
        "\n", eol(text) + indent)
    return text[: member.start] + body + text[member.end:]


def _wrap(path: Sequence[str], key: str, value: Any) -> Any:
    nested: Any = {key: value}
    for step in reversed(path):
        nested = {step: nested}
    return nested


def append_item(text: str | None, where: str, path: Sequence[str], item: Any) -> str:
    """``item`` added last to the array at ``path`` (objects and the array created)."""
    if text is not None and text.strip():
        node = _locate(text, path)
        if node is not None:
            if node.kind != "array":
                raise MemxError(f"{where}: {'.'.join(path)} is not a list")
            return _insert(text, node, None, item)
    return set_member(text, where, path[:-1], path[-1], [item])


def _index(parent: Node | None, step: str | int) -> int | None:
    if parent is None:
        return None
    if isinstance(step, int):
        return step if parent.kind == "array" and step < len(parent.children) else None
    names = [k for k, _ in parent.keys]
    return len(names) - 1 - names[::-1].index(step) if step in names else None


def remove(text: str, path: Path_, keep: frozenset[tuple[str, ...]] = frozenset()) -> str | None:
    """Text without the member or element at ``path``, and without the objects and lists
    that leaves empty, except those whose key path (indexes left out) is in ``keep``.
    None when only an empty top-level object is left and ``()`` is not in ``keep``."""
    depth = len(path)
    while depth > 0:
        if depth < len(path):
            container = _locate(text, path[:depth])
            named = tuple(str(s) for s in path[:depth] if isinstance(s, str))
            if container is None or container.children or (
                    isinstance(path[depth - 1], str) and named in keep):
                break  # still holds something, or was there before memx
        parent = _locate(text, path[: depth - 1])
        index = _index(parent, path[depth - 1])
        if parent is None or index is None:
            break
        text = _cut(text, parent, index)
        depth -= 1
    if json.loads(plain(text)) != {}:
        return text
    if BLANK in keep and text.startswith("{}\n"):
        return text[3:]  # the blank file set_member started from
    return text if () in keep else None


def find(data: Any, path: Path_) -> Any:
    node = data
    for step in path:
        if isinstance(step, int):
            if not isinstance(node, list) or step >= len(node):
                return None
        elif not isinstance(node, dict) or step not in node:
            return None
        node = node[step]
    return node


def indexes(items: Any, match: Callable[[Any], bool]) -> list[int]:
    return [i for i, item in enumerate(items) if match(item)] if isinstance(items, list) else []
