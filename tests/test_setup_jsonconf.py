"""The JSON text editor behind `memx setup`: adding memx's member and removing it again
gives back the very same bytes, whatever the file's style (property-based)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from memx_cli.agents.setup import jsonconf

keys = st.sampled_from(["a", "b", "mcpServers", "servers", "x"]) | st.text(max_size=6)
scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(keys, inner, max_size=3), max_leaves=8)
styles = st.sampled_from([None, 2, 4, "\t", 1])


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(keys, values, max_size=4), styles, st.booleans(),
       st.sampled_from([("mcpServers",), ("servers",), ("a", "b")]), st.booleans())
def test_set_then_remove_is_byte_exact(data: dict[str, object], indent: object, newline: bool,
                                       path: tuple[str, ...], comments: bool) -> None:
    text = json.dumps(data, indent=indent, ensure_ascii=False) + ("\n" if newline else "")  # type: ignore[arg-type]
    assert jsonconf.plain(text) == text  # nothing inside a string is taken for a comment
    if comments:  # JSON with comments: a comment after every line but the last
        text = "\n".join(line + (" // c, } /*" if i % 2 else " /* c, ] */")
                         for i, line in enumerate(text.split("\n")[:-1])) + "\n" + \
            text.split("\n")[-1]
        assert json.loads(jsonconf.plain(text)) == data
    keep = frozenset({(), *(path[:i] for i in range(1, len(path) + 1)
                            if jsonconf.find(data, path[:i]) is not None)})
    node: object = data
    for step in path:
        if not isinstance(node, dict):
            return  # a key on the way holds something else: memx refuses (CLI tests)
        if step not in node:
            break
        node = node[step]
    else:
        if not isinstance(node, dict) or "memx" in node:
            return
    entry = {"command": "memx", "args": ["mcp", "--agent", "x"]}
    added = jsonconf.set_member(text, "f", path, "memx", entry)
    parsed = json.loads(jsonconf.plain(added))
    assert jsonconf.find(parsed, (*path, "memx")) == entry
    assert jsonconf.set_member(added, "f", path, "memx", entry) == added
    assert jsonconf.remove(added, [*path, "memx"], keep) == text
