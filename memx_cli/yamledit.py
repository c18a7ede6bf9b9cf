"""Change one key of a YAML mapping file and nothing else: comments, key order, quoting and
every other line stay byte for byte (``memx config set`` / ``unset``).

The document is composed (not loaded) to learn where each key and value sit in the text;
the edit replaces or inserts only those characters. The caller checks the result parses
to what it expects and falls back to a plain rewrite otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


class Unsupported(Exception):
    """The file's layout is not one this editor changes in place (e.g. a flow mapping)."""


def _scalar(value: Any) -> str:
    """``value`` as one line of YAML (flow style for lists and mappings)."""
    import yaml

    text = yaml.safe_dump(value, default_flow_style=True, width=math.inf, allow_unicode=True)
    text = text.removesuffix("\n").removesuffix("\n...").removesuffix("...")
    if "\n" in text.strip("\n"):
        raise Unsupported("the value does not fit on one line")
    return text.strip("\n")


def _compose(text: str) -> Any:
    from memx_cli import safeyaml

    try:  # bounded like every YAML memx reads (issue 26)
        return safeyaml.compose(text) if text.strip() else None
    except safeyaml.YamlInputError as exc:
        raise Unsupported(exc.message) from None


def _find(node: Any, parts: Sequence[str]) -> tuple[list[tuple[Any, Any, Any]], list[str]]:
    """Walk the key path: the (mapping, key node, value node) of each step found, and the
    parts not found. A step may be a dotted key (``ace.retrieval: {...}``)."""
    import yaml

    steps: list[tuple[Any, Any, Any]] = []
    rest = list(parts)
    while rest and isinstance(node, yaml.MappingNode):
        for size in range(len(rest), 0, -1):
            name = ".".join(rest[:size])
            match = next(((k, v) for k, v in node.value if getattr(k, "value", None) == name),
                         None)
            if match is not None:
                steps.append((node, *match))
                node = match[1]
                rest = rest[size:]
                break
        else:
            break
    return steps, rest


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _line_end(text: str, index: int) -> int:
    """Index just after the newline that ends the line holding ``index - 1``."""
    if index > 0 and text[index - 1] == "\n":
        return index
    end = text.find("\n", index)
    return len(text) if end < 0 else end + 1


def _value_end(node: Any) -> int:
    """Where a value's own text ends: for a block collection, the end of its last item
    (its end mark lies at the next token, past any comments that follow)."""
    import yaml

    if isinstance(node, yaml.SequenceNode) and node.value and not node.flow_style:
        return _value_end(node.value[-1])
    if isinstance(node, yaml.MappingNode) and node.value and not node.flow_style:
        return _value_end(node.value[-1][1])
    return int(node.end_mark.index)


def _block(parts: Sequence[str], value: Any, indent: int) -> str:
    lines = []
    for depth, part in enumerate(parts[:-1]):
        lines.append(" " * (indent + 2 * depth) + f"{part}:")
    lines.append(" " * (indent + 2 * (len(parts) - 1)) + f"{parts[-1]}: {_scalar(value)}")
    return "\n".join(lines) + "\n"


def set_key(text: str, parts: Sequence[str], value: Any) -> str:
    """``text`` with the key path ``parts`` set to ``value``."""
    import yaml

    root = _compose(text)
    if root is None:
        return text + ("" if not text or text.endswith("\n") else "\n") + _block(parts, value, 0)
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        raise Unsupported("the top level is not a block mapping")
    steps, rest = _find(root, parts)
    if not rest:
        _, key_node, node = steps[-1]
        end = _value_end(node)
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style:
            # a block value starts on its own line: put the flow form after the key
            return text[:key_node.end_mark.index] + ": " + _scalar(value) + text[end:]
        return text[:node.start_mark.index] + _scalar(value) + text[end:]
    parent = steps[-1][2] if steps else root
    if not isinstance(parent, yaml.MappingNode) or parent.flow_style:
        raise Unsupported("the key's parent is not a block mapping")
    indent = parent.value[0][0].start_mark.column if parent.value else 0
    at = len(text) if parent is root else _line_end(text, _value_end(parent))
    prefix = "" if at == 0 or text[at - 1] == "\n" else "\n"
    return text[:at] + prefix + _block(rest, value, indent) + text[at:]


def unset_key(text: str, parts: Sequence[str]) -> str:
    """``text`` without the key path ``parts`` (and without parents it leaves empty)."""

    root = _compose(text)
    steps, rest = _find(root, parts) if root is not None else ([], list(parts))
    if rest or not steps:
        return text
    # drop the deepest entry whose mapping keeps at least one other key
    for mapping, key_node, value_node in reversed(steps):
        if len(mapping.value) > 1 or mapping is root:
            if mapping.flow_style:
                raise Unsupported("the key sits in a flow mapping")
            start = _line_start(text, key_node.start_mark.index)
            end = _line_end(text, _value_end(value_node))
            return text[:start] + text[end:]
    return text  # pragma: no cover - the root is always in steps[0]
