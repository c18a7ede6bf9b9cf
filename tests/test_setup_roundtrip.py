"""`memx setup` then `memx setup --remove` gives the user's agent configs back byte for
byte, whatever they held (issue 26): CRLF or LF, with or without a final newline, any
indentation, other servers and hooks, their own `memx` entry, a symlinked file. Each
config format setup writes is generated here (JSON MCP servers, JSON hooks, Codex TOML)
and run through the real plan/apply on a temporary folder."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memx_cli.agents.setup.plan import apply, plan

names = st.text("abcdefgh-_", min_size=1, max_size=6)
words = st.text("abc xyz_-./", max_size=8)
server = st.fixed_dictionaries({"command": words, "args": st.lists(words, max_size=3)})
own_memx = st.fixed_dictionaries({"command": st.sampled_from(["memx", "/opt/memx"]),
                                  "args": st.lists(st.sampled_from(
                                      ["mcp", "--role", "intern", "--agent", "cursor"]),
                                      max_size=5)})
hook_group = st.fixed_dictionaries({"matcher": words, "hooks": st.lists(st.fixed_dictionaries(
    {"type": st.just("command"), "command": words}), max_size=2)})


@st.composite
def json_config(draw: st.DrawFn, container: str) -> dict[str, object]:
    data: dict[str, object] = draw(st.dictionaries(names, words | st.integers(), max_size=3))
    if draw(st.booleans()):
        servers = draw(st.dictionaries(names, server, max_size=2))
        if draw(st.booleans()):
            servers["memx"] = draw(own_memx)
        data[container] = servers
    if draw(st.booleans()):
        data["hooks"] = draw(st.dictionaries(st.sampled_from(
            ["SessionEnd", "PreCompact", "PreCompress", "Stop"]), st.lists(hook_group,
                                                                          max_size=2), max_size=2))
    return data


@st.composite
def json_text(draw: st.DrawFn, container: str) -> str | None:
    shape = draw(st.sampled_from(["absent", "blank", "data"]))
    if shape == "absent":
        return None
    if shape == "blank":
        return draw(st.sampled_from(["", "\n", "  \r\n"]))
    data = draw(json_config(container))
    indent = draw(st.sampled_from([None, 1, 2, 4, "\t", "compact"]))
    if indent == "compact":
        text = json.dumps(data, separators=(",", ":"))
    else:
        text = json.dumps(data, indent=indent)  # type: ignore[arg-type]
    return finish(draw, text)


def finish(draw: st.DrawFn, text: str) -> str:
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    if draw(st.booleans()):
        text += "\r\n" if "\r\n" in text else "\n"
    return text


@st.composite
def toml_text(draw: st.DrawFn) -> str | None:
    if draw(st.integers(0, 5)) == 0:
        return None
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append("# my codex settings")
    lines += [f'{k} = "{v}"' for k, v in draw(st.dictionaries(names, names, max_size=2)).items()]
    own = draw(st.sampled_from(["none", "table", "inline"]))
    if own == "inline":
        lines.append('mcp_servers.memx = { command = "memx", args = ["mcp", "--role", "intern"] }')
    for name in draw(st.lists(names, max_size=2, unique=True)):
        lines += ["", f"[profiles.{name}]", f'model = "{name}"']
    if own == "table":
        lines += ["", "[mcp_servers.memx]", 'command = "memx"',
                  f"args = {json.dumps(draw(st.lists(st.sampled_from(['mcp', '--role', 'intern']), max_size=3)))}"]
    return finish(draw, "\n".join(lines))


def roundtrip(agent: str, files: dict[str, str | None], link: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp) / "repo", Path(tmp) / "home"
        root.mkdir()
        home.mkdir()
        for rel, text in files.items():
            if text is None:
                continue
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if link:  # dotfiles: the config is a link to a file kept elsewhere
                target = Path(tmp) / "dotfiles" / rel.replace("/", "_")
                target.parent.mkdir(exist_ok=True)
                target.write_bytes(text.encode())
                path.symlink_to(target)
            else:
                path.write_bytes(text.encode())
        before = snapshot(Path(tmp))
        setup = plan(agent, root, home)
        apply(setup, (root, home))
        for change in setup.changes:
            if change.after is not None:
                assert change.path.is_symlink() == (link and files[change.display] is not None)
        removal = plan(agent, root, home, remove=True)
        apply(removal, (root, home))
        assert snapshot(Path(tmp)) == before


def snapshot(base: Path) -> dict[str, object]:
    return {str(p.relative_to(base)): (("link", str(p.readlink())) if p.is_symlink()
                                       else p.read_bytes() if p.is_file() else "dir")
            for p in sorted(base.rglob("*"))}


@settings(max_examples=30, deadline=None)
@given(json_text("mcpServers"), json_text("mcpServers"), st.booleans())
def test_claude_code_configs_come_back_byte_for_byte(mcp: str | None, settings_: str | None,
                                                    link: bool) -> None:
    roundtrip("claude-code", {".mcp.json": mcp, ".claude/settings.json": settings_}, link)


@settings(max_examples=25, deadline=None)
@given(json_text("mcpServers"), st.booleans())
def test_gemini_settings_come_back_byte_for_byte(text: str | None, link: bool) -> None:
    roundtrip("gemini", {".gemini/settings.json": text}, link)


@settings(max_examples=30, deadline=None)
@given(json_text("servers"), st.booleans())
def test_vscode_mcp_json_comes_back_byte_for_byte(text: str | None, link: bool) -> None:
    roundtrip("copilot", {".vscode/mcp.json": text}, link)


@settings(max_examples=30, deadline=None)
@given(toml_text(), st.booleans())
def test_codex_toml_comes_back_byte_for_byte(text: str | None, link: bool) -> None:
    roundtrip("codex", {".codex/config.toml": text}, link)
