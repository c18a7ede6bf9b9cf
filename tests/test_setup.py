"""`memx setup AGENT`: each writer against a fixture of its agent's format (other servers
and settings kept, byte for byte after --remove), idempotency, --user, --json, errors."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from .conftest import Memx

CLAUDE_MCP = """{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}
    }
  }
}
"""
CLAUDE_SETTINGS = """{
    "permissions": {
        "allow": ["Bash(npm run lint)", "Bash(npm test:*)"],
        "deny": ["Read(./.env)"]
    },
    "hooks": {
        "PreCompact": [
            {
                "matcher": "auto",
                "hooks": [{"type": "command", "command": "./scripts/backup-transcript.sh"}]
            }
        ]
    },
    "model": "sonnet"
}"""


def write(path: Path, text: str) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path.read_bytes()


def test_claude_code_setup_then_remove_leaves_the_files_byte_for_byte(memx: Memx,
                                                                     repo: Path) -> None:
    mcp = write(repo / ".mcp.json", CLAUDE_MCP)
    settings = write(repo / ".claude" / "settings.json", CLAUDE_SETTINGS)

    shown = memx.ok("setup", "claude-code")
    assert shown.startswith("--- a/.mcp.json\n+++ b/.mcp.json\n")
    assert "+++ b/.claude/settings.json\n" in shown
    assert shown.endswith("Nothing written; run again with --yes to write these changes.\n")
    assert (repo / ".mcp.json").read_bytes() == mcp  # a plan only

    out = memx.ok("setup", "claude-code", "--yes")
    assert "Set up Claude Code (project): updated .mcp.json, updated .claude/settings.json\n" in out
    servers = json.loads((repo / ".mcp.json").read_text())["mcpServers"]
    assert list(servers) == ["github", "memx"]
    assert servers["memx"] == {"command": "memx", "args": ["mcp", "--agent", "claude-code"]}
    assert servers["github"]["args"] == ["-y", "@modelcontextprotocol/server-github"]
    data = json.loads((repo / ".claude" / "settings.json").read_text())
    assert list(data) == ["permissions", "hooks", "model"]
    ours = {"hooks": [{"type": "command", "command": "memx agent-hook claude-code"}]}
    assert data["hooks"]["SessionEnd"] == [ours]
    assert data["hooks"]["PreCompact"][0]["hooks"][0]["command"] == "./scripts/backup-transcript.sh"
    assert data["hooks"]["PreCompact"][1] == ours
    # The user's lines are untouched: the file keeps its 4-space style.
    assert (repo / ".claude" / "settings.json").read_text().startswith(CLAUDE_SETTINGS[:120])

    again = memx.ok("setup", "claude-code", "--yes")
    assert again == "Claude Code is already set up (project): .mcp.json, .claude/settings.json\n"

    out = memx.ok("setup", "claude-code", "--remove", "--yes")
    assert out.endswith("Removed memx from Claude Code (project): updated .mcp.json, "
                        "updated .claude/settings.json\n")
    assert (repo / ".mcp.json").read_bytes() == mcp
    assert (repo / ".claude" / "settings.json").read_bytes() == settings
    assert memx.ok("setup", "claude-code", "--remove") == (
        "Claude Code is not set up by memx (project): nothing to remove\n")


def test_files_memx_created_are_deleted_by_remove(memx: Memx, repo: Path) -> None:
    out = memx.ok("setup", "cursor", "--yes")
    assert out.startswith(
        '--- /dev/null\n+++ b/.cursor/mcp.json\n@@ -0,0 +1,12 @@\n+{\n+  "mcpServers": {\n'
        '+    "memx": {\n+      "command": "memx",\n+      "args": [\n+        "mcp",\n')
    assert "Set up Cursor (project): created .cursor/mcp.json\n" in out
    memx.ok("setup", "cursor", "--remove", "--yes")
    assert not (repo / ".cursor").exists()


def test_a_user_hook_sharing_a_group_with_memx_stays(memx: Memx, repo: Path) -> None:
    memx.ok("setup", "claude-code", "--yes")
    path = repo / ".claude" / "settings.json"
    data = json.loads(path.read_text())
    data["hooks"]["SessionEnd"][0]["hooks"].append({"type": "command", "command": "./notify.sh"})
    path.write_text(json.dumps(data, indent=2) + "\n")
    memx.ok("setup", "claude-code", "--remove", "--yes")
    assert json.loads(path.read_text()) == {
        "hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "./notify.sh"}]}]}}
    assert not (repo / ".mcp.json").exists()


CODEX = """# Codex configuration
model = "gpt-5-codex"
approval_policy = "on-request"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]   # keep this comment

[mcp_servers.docs.env]
DOCS_TOKEN = "from-env"

[profiles.fast]
model = "gpt-5-mini"
"""


def test_codex_edits_only_its_table(memx: Memx, repo: Path) -> None:
    path = repo / ".codex" / "config.toml"
    original = write(path, CODEX)
    memx.ok("setup", "codex", "--yes")
    text = path.read_text()
    assert text == CODEX + '\n[mcp_servers.memx]\ncommand = "memx"\nargs = ["mcp", "--agent", "codex"]\n'
    parsed = tomllib.loads(text)
    assert set(parsed["mcp_servers"]) == {"docs", "memx"}
    assert memx.ok("setup", "codex") == "Codex CLI is already set up (project): .codex/config.toml\n"
    memx.ok("setup", "codex", "--remove", "--yes")
    assert path.read_bytes() == original


def test_codex_replaces_a_memx_table_it_did_not_write_only_when_asked(memx: Memx,
                                                                     repo: Path) -> None:
    path = repo / ".codex" / "config.toml"
    old = CODEX.replace("[profiles.fast]", '[mcp_servers.memx]\ncommand = "memx"\nargs = ["mcp"]\n\n'
                        "[profiles.fast]")
    write(path, old)
    result = memx("setup", "codex", "--yes")
    assert (result.code, result.out) == (0, "Codex CLI is already set up (project): "
                                            ".codex/config.toml\n")
    assert result.err == ("memx: kept your own MCP server in .codex/config.toml (memx did not "
                          "write it); to replace it: memx setup codex --replace\n")
    assert path.read_text() == old
    memx.ok("setup", "codex", "--remove", "--yes")
    assert path.read_text() == old  # not memx's to remove
    memx.ok("setup", "codex", "--yes", "--replace")
    assert path.read_text() == old.replace('args = ["mcp"]', 'args = ["mcp", "--agent", "codex"]')
    memx.ok("setup", "codex", "--remove", "--yes")
    assert path.read_text() == CODEX


def test_codex_refuses_a_memx_server_it_cannot_edit(memx: Memx, repo: Path) -> None:
    path = repo / ".codex" / "config.toml"
    original = write(path, 'mcp_servers.memx = { command = "memx", args = ["mcp"] }\n')
    assert memx("setup", "codex", "--yes").code == 0  # the user's: kept
    assert path.read_bytes() == original
    result = memx("setup", "codex", "--yes", "--replace")
    assert result.code == 2
    assert result.err == ("memx: error: .codex/config.toml: mcp_servers.memx is defined in a form "
                          "memx does not edit; change or remove it by hand\n")
    assert path.read_bytes() == original


GEMINI = """{
  "theme": "GitHub",
  "mcpServers": {
    "search": {"httpUrl": "https://example.invalid/mcp", "timeout": 5000}
  },
  "general": {"vimMode": true}
}
"""


def test_gemini_gets_the_server_and_its_hooks_in_one_file(memx: Memx, repo: Path) -> None:
    path = repo / ".gemini" / "settings.json"
    original = write(path, GEMINI)
    memx.ok("setup", "gemini", "--yes")
    data = json.loads(path.read_text())
    assert list(data) == ["theme", "mcpServers", "general", "hooks"]
    assert data["mcpServers"]["memx"] == {"command": "memx", "args": ["mcp", "--agent", "gemini"]}
    hook = {"name": "memx-ingest", "type": "command", "command": "memx agent-hook gemini"}
    assert data["hooks"] == {"SessionEnd": [{"hooks": [hook]}], "PreCompress": [{"hooks": [hook]}]}
    assert memx.ok("setup", "gemini") == "Gemini CLI is already set up (project): .gemini/settings.json\n"
    memx.ok("setup", "gemini", "--remove", "--yes")
    assert path.read_bytes() == original


def test_vscode_uses_servers_with_a_type_and_the_workspace_folder(memx: Memx, repo: Path) -> None:
    path = repo / ".vscode" / "mcp.json"
    original = write(path, '{\n\t"inputs": [],\n\t"servers": {}\n}\n')
    memx.ok("setup", "copilot", "--yes")
    assert path.read_text() == (
        '{\n\t"inputs": [],\n\t"servers": {\n\t\t"memx": {\n\t\t\t"type": "stdio",\n'
        '\t\t\t"command": "memx",\n\t\t\t"args": [\n\t\t\t\t"-C",\n\t\t\t\t"${workspaceFolder}",\n'
        '\t\t\t\t"mcp",\n\t\t\t\t"--agent",\n\t\t\t\t"copilot"\n\t\t\t]\n\t\t}\n\t}\n}\n')
    memx.ok("setup", "vscode", "--remove", "--yes")  # the alias names the same agent
    assert path.read_bytes() == original


def test_json_with_comments_is_edited_keeping_them(memx: Memx, repo: Path) -> None:
    # walk16: VS Code and Cursor read mcp.json as JSON with comments and trailing commas;
    # memx refused such a file
    path = repo / ".vscode" / "mcp.json"
    original = write(path, '{\n  // my servers\n  "servers": {\n    "db": {"command": "x"},'
                           ' /* a, }, "b" */\n  },\n}\n')
    memx.ok("setup", "copilot", "--yes")
    text = path.read_text()
    assert text.startswith('{\n  // my servers\n  "servers": {\n    "db": {"command": "x"},\n'
                           '    "memx": {\n')
    assert text.endswith('    }, /* a, }, "b" */\n  },\n}\n')
    assert memx.ok("setup", "copilot", "--yes") == memx.ok("setup", "copilot", "--yes")
    memx.ok("setup", "copilot", "--remove", "--yes")
    assert path.read_bytes() == original
    # control: what is not JSON with comments either is still refused, the file left alone
    broken = write(path, '{\n  // my servers\n  "servers": {\n')
    result = memx("setup", "copilot", "--yes")
    assert (result.code, path.read_bytes()) == (2, broken)
    assert result.err == ("memx: error: .vscode/mcp.json: not valid JSON (line 4: Expecting "
                          "property name enclosed in double quotes); memx edits JSON (comments "
                          "and trailing commas allowed): fix the file or add the entry by hand\n")


def test_user_scope_writes_the_home_configuration(memx: Memx, isolated_home: Path) -> None:
    claude_json = write(isolated_home / ".claude.json",
                        '{"numStartups": 3, "projects": {"/w": {"allowedTools": []}}}')
    out = memx.ok("setup", "claude-code", "--user", "--yes")
    assert ("Set up Claude Code (user): updated ~/.claude.json, "
            "created ~/.claude/settings.json\n") in out
    data = json.loads((isolated_home / ".claude.json").read_text())
    assert list(data) == ["numStartups", "projects", "mcpServers"]
    memx.ok("setup", "claude-code", "--user", "--remove", "--yes")
    assert (isolated_home / ".claude.json").read_bytes() == claude_json
    assert not (isolated_home / ".claude").exists()


def test_windsurf_has_only_a_user_configuration(memx: Memx, isolated_home: Path) -> None:
    result = memx("setup", "windsurf")
    assert (result.code, result.out) == (2, "")
    assert result.err == ("memx: error: Windsurf reads MCP servers only from the user's "
                          "~/.codeium/windsurf/mcp_config.json; run: memx setup windsurf --user\n")
    memx.ok("setup", "windsurf", "--user", "--yes")
    data = json.loads((isolated_home / ".codeium" / "windsurf" / "mcp_config.json").read_text())
    assert data == {"mcpServers": {"memx": {"command": "memx",
                                            "args": ["mcp", "--agent", "windsurf"]}}}


def test_json_output_and_doctor_list_the_agents(memx: Memx, repo: Path) -> None:
    report = json.loads(memx.ok("setup", "cursor", "--json"))["setup"]
    assert (report["agent"], report["scope"], report["changed"], report["written"]) == (
        "cursor", "project", True, False)
    assert report["files"] == [{"path": ".cursor/mcp.json", "what": ["MCP server"],
                                "action": "create", "kept": []}]
    assert report["diff"].startswith("--- /dev/null\n+++ b/.cursor/mcp.json\n")
    report = json.loads(memx.ok("setup", "cursor", "--json", "--yes"))["setup"]
    assert report["written"] is True
    memx.ok("setup", "claude-code", "--yes")
    agents = json.loads(memx.ok("doctor", "--json"))["doctor"]["agents"]
    assert [(a["agent"], a["scope"], a["complete"]) for a in agents] == [
        ("claude-code", "project", True), ("cursor", "project", True)]
    assert "agents:     claude-code (project), cursor (project)\n" in memx.ok("doctor")


@pytest.mark.parametrize("args, message", [
    (("setup", "emacs"), "memx: error: unknown agent 'emacs'; choose one of claude-code, codex, "
                         "cursor, gemini, copilot, windsurf\n"),
    (("setup", "cursor", "--yes"), None),
])
def test_bad_agent_names_are_one_line(memx: Memx, repo: Path, args: tuple[str, ...],
                                      message: str | None) -> None:
    result = memx(*args)
    if message is None:
        assert result.code == 0
        return
    assert (result.code, result.err) == (2, message)
    assert not (repo / ".cursor").exists()


CURSOR = """{
  "mcpServers": {
    "postgres": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/dev"]
    },
    "remote": {"url": "https://mcp.example.invalid/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}}
  }
}
"""
WINDSURF = """{
  "mcpServers": {
    "git": {
      "command": "uvx",
      "args": ["mcp-server-git"],
      "disabled": false,
      "env": {}
    }
  }
}
"""


@pytest.mark.parametrize("agent, where, text, user", [
    ("cursor", ".cursor/mcp.json", CURSOR, False),
    ("cursor", ".cursor/mcp.json", CURSOR, True),
    ("windsurf", ".codeium/windsurf/mcp_config.json", WINDSURF, True),
])
def test_mcp_json_writers_keep_other_servers(memx: Memx, repo: Path, isolated_home: Path,
                                             agent: str, where: str, text: str,
                                             user: bool) -> None:
    path = (isolated_home if user else repo) / where
    original = write(path, text)
    flags = ("--user",) if user else ()
    memx.ok("setup", agent, *flags, "--yes")
    servers = json.loads(path.read_text())["mcpServers"]
    assert list(servers)[-1] == "memx" and servers["memx"]["args"] == ["mcp", "--agent", agent]
    assert {k: v for k, v in servers.items() if k != "memx"} == json.loads(text)["mcpServers"]
    assert path.read_text().startswith(text.rsplit("\n  }\n}", 1)[0])  # lines kept as they were
    memx.ok("setup", agent, *flags, "--remove", "--yes")
    assert path.read_bytes() == original


def test_at_a_terminal_setup_asks_first(repo: Path, memx: Memx, isolated_home: Path) -> None:
    import os
    import pty
    import subprocess
    import sys

    def run(answer: bytes) -> str:
        main, child = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "memx_cli", "setup", "cursor"], cwd=repo,
                                stdin=child, stdout=child, stderr=child, env=dict(os.environ))
        os.close(child)
        os.write(main, answer)
        out = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        proc.wait(timeout=60)
        os.close(main)
        return out.decode().replace("\r\n", "\n")

    out = run(b"n\n")
    assert "+++ b/.cursor/mcp.json\n" in out and "Write these changes? [y/N]: " in out
    assert "Nothing written; run again with --yes" in out
    assert not (repo / ".cursor").exists()
    out = run(b"y\n")
    assert "Set up Cursor (project): created .cursor/mcp.json" in out
    assert (repo / ".cursor" / "mcp.json").exists()


def test_a_warning_when_the_agent_would_not_find_memx(memx: Memx, repo: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setenv("PATH", str(repo / "nowhere"))
    result = memx("setup", "cursor", "--yes")
    assert result.code == 0
    assert result.err == ("memx: warning: no `memx` on PATH here; Cursor starts `memx` from its "
                          "PATH, so put memx's bin directory on it\n")
    memx.ok("setup", "cursor", "--remove", "--yes")
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    assert memx("setup", "cursor", "--yes").err == ""


@pytest.mark.parametrize("text, why", [
    ('{"mcpServers": {}, "timeout": NaN}\n', "NaN is not a JSON number"),
    ('{"limit": -Infinity}', "-Infinity is not a JSON number"),
    ('{"a": ' * 5000 + "1" + "}" * 5000, "nested deeper than 64 levels"),
])
def test_json_it_cannot_edit_is_refused_in_one_line(memx: Memx, repo: Path, text: str,
                                                    why: str) -> None:
    original = write(repo / ".cursor" / "mcp.json", text)
    result = memx("setup", "cursor", "--yes")
    assert (result.code, result.out) == (2, "")
    assert result.err == (f"memx: error: .cursor/mcp.json: not valid JSON ({why}); memx edits "
                          "JSON (comments and trailing commas allowed): fix the file or add "
                          "the entry by hand\n")
    assert (repo / ".cursor" / "mcp.json").read_bytes() == original


def test_a_users_own_memx_entry_is_kept_and_survives_remove(memx: Memx, repo: Path) -> None:
    own = ('{\r\n  "mcpServers": {\r\n    "memx": {"command": "memx", "args": '
           '["--role", "intern", "mcp"]}\r\n  }\r\n}')
    path = repo / ".mcp.json"
    original = write(path, own)
    result = memx("setup", "claude-code", "--yes")
    assert result.code == 0
    assert result.err.startswith("memx: kept your own MCP server in .mcp.json (memx did not "
                                 "write it); to replace it: memx setup claude-code --replace\n")
    assert path.read_bytes() == original
    memx.ok("setup", "claude-code", "--remove", "--yes")
    assert path.read_bytes() == original
    assert not (repo / ".claude" / "settings.json").exists()
    memx.ok("setup", "claude-code", "--yes", "--replace")
    assert json.loads(path.read_text())["mcpServers"]["memx"]["args"] == [
        "mcp", "--agent", "claude-code"]
    assert b"\r\n" in path.read_bytes()


def test_a_symlinked_config_is_edited_through_its_link(memx: Memx, repo: Path,
                                                       tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "mcp.json"
    original = write(target, '{"mcpServers": {"gh": {"command": "gh"}}}')
    (repo / ".cursor").mkdir()
    (repo / ".cursor" / "mcp.json").symlink_to(target)
    memx.ok("setup", "cursor", "--yes")
    assert (repo / ".cursor" / "mcp.json").is_symlink()
    assert "memx" in json.loads(target.read_text())["mcpServers"]
    memx.ok("setup", "cursor", "--remove", "--yes")
    assert (repo / ".cursor" / "mcp.json").is_symlink()
    assert target.read_bytes() == original
