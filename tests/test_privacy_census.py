"""The write-path census (issue 12): every fake secret of the corpus pushed through every
public write path — each CLI command that writes, each MCP tool that writes, the git
hooks — then every byte under ``.memx/`` and the isolated home scanned for it.

The paths are enumerated from the code (the click command tree, the MCP server's tool
list, the hook types): a new command, tool or hook fails ``test_every_*_is_in_the_census``
until it has a driver here or a stated reason why it stores nothing from outside.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .census import SECRETS, Secret, scan
from .conftest import Memx, git
from .test_hooks import commit, wait_for_background
from .test_mcp import call, run_session

Driver = Callable[[Memx, Path], None]
DRIVERS: dict[str, Driver] = {}
# How many of the corpus lines a path must bring into the store (its reference word):
# a path that stores nothing would pass the scan without proving anything.
MIN_REACHED: dict[str, int] = {}


# The Curator may merge or skip a near-duplicate line: most lines, not all, are stored.
MOST = len(SECRETS) * 9 // 10


def driver(name: str, reach: int = MOST) -> Callable[[Driver], Driver]:
    def register(fn: Driver) -> Driver:
        DRIVERS[name], MIN_REACHED[name] = fn, reach
        return fn
    return register


def single() -> list[Secret]:
    return [s for s in SECRETS if s.single_line]


# ---------------------------------------------------------------- CLI drivers


@driver("add")
def _add(memx: Memx, repo: Path) -> None:
    for s in SECRETS:
        memx.ok("add", s.line)


@driver("add --scope global")
def _add_global(memx: Memx, repo: Path) -> None:
    for s in SECRETS:
        memx.ok("add", "--scope", "global", s.line)


@driver("add --kind policy")
def _add_policy(memx: Memx, repo: Path) -> None:
    for s in SECRETS:
        memx.ok("add", "--kind", "policy", "--domain", "ops", s.line)


@driver("policy add")
def _policy_add(memx: Memx, repo: Path) -> None:
    for s in SECRETS:
        memx.ok("policy", "add", "--domain", "ops", s.line)


def _secret_file(repo: Path) -> Path:
    """A committed file holding every corpus line (anchors read their snippets from it)."""
    path = repo / "deploy" / "notes.txt"
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(s.line + "\n" for s in SECRETS), encoding="utf-8")
    git(repo, "add", "deploy/notes.txt")
    git(repo, "commit", "-q", "-m", "deploy notes")
    return path


def _line_ranges(path: Path) -> list[str]:
    ranges, number = [], 1
    for s in SECRETS:
        height = s.line.count("\n") + 1
        ranges.append(f"deploy/notes.txt:{number}-{number + height - 1}")
        number += height
    return ranges


@driver("add --anchor", reach=0)  # the lines reach the store as snippets, masked
def _add_anchor(memx: Memx, repo: Path) -> None:
    path = _secret_file(repo)
    for i, where in enumerate(_line_ranges(path)):
        memx.ok("add", "--anchor", where, f"The deploy notes passage number {i} matters")


@driver("anchor", reach=0)
def _anchor(memx: Memx, repo: Path) -> None:
    path = _secret_file(repo)
    memory_id = memx.ok("add", "The deploy notes list every credential").strip()
    memx.ok("anchor", memory_id, *_line_ranges(path))


@driver("verify --fix", reach=0)
def _verify_fix(memx: Memx, repo: Path) -> None:
    path = _secret_file(repo)
    memory_id = memx.ok("add", "--anchor", "deploy/notes.txt:1-3",
                        "The deploy notes start with the CI key").strip()
    text = path.read_text(encoding="utf-8")
    path.write_text("\n\n" + text, encoding="utf-8")  # the passage moved down two lines
    memx("verify")  # notes the move in .memx/local/
    memx.ok("verify", "--fix", memory_id)


@driver("import")
def _import(memx: Memx, repo: Path) -> None:
    records = [{"content": s.line, "source": {"type": "import", "note": s.line},
                "scope": "global" if s.number % 4 == 0 else "project"} for s in SECRETS]
    data = repo.parent / "import.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    memx.ok("import", str(data))


@driver("import markdown")
def _import_markdown(memx: Memx, repo: Path) -> None:
    blocks = [f"## Note {s.number}\n\n```text\n{s.line}\n```\n" for s in SECRETS]
    (repo / "AGENTS.md").write_text("# AGENTS.md\n\n" + "\n".join(blocks), encoding="utf-8")
    memx.ok("import", "AGENTS.md")


@driver("ingest", reach=len(SECRETS) // 2)
def _ingest(memx: Memx, repo: Path) -> None:
    messages = []
    for s in SECRETS:
        messages += [
            {"role": "user", "content": f"The deploy fails with: Error: unauthorized, {s.line}"},
            {"role": "assistant", "content": "Fixed: always export the credentials before "
                                             f"deploying, as in {s.line}"},
            # issue 13: only a confirmed fix is a lesson
            {"role": "user", "content": "that worked, thanks"},
        ]
        data = repo.parent / f"session{s.number}.json"
        data.write_text(json.dumps({"messages": messages[-3:]}), encoding="utf-8")
        memx.ok("ingest", str(data))


@driver("run", reach=len(single()) * 9 // 10)
def _run(memx: Memx, repo: Path) -> None:
    flag = repo.parent / "run-ok"
    script = f'test -f {shlex.quote(str(flag))} || {{ echo "error: login failed: $1" >&2; exit 1; }}'
    for s in single():
        flag.unlink(missing_ok=True)
        assert memx("run", "-q", "--", "sh", "-c", script, "census", s.line).code == 1
        flag.write_text("")
        assert memx("run", "-q", "--", "sh", "-c", script, "census", s.line).code == 0


EDITOR = """\
import sys
from pathlib import Path
path = Path(sys.argv[1])
lines = Path(os.environ["CENSUS_TEXT"]).read_text(encoding="utf-8")
text = path.read_text(encoding="utf-8")
head, _, rest = text.partition("content:")
body = "".join("  " + line + "\\n" for line in lines.splitlines())
tail = rest.split("\\n", 1)[1]
while tail.startswith("  "):
    tail = tail.split("\\n", 1)[1]
path.write_text(head + "content: |-\\n" + body + tail, encoding="utf-8")
"""


@driver("edit")
def _edit(memx: Memx, repo: Path) -> None:
    script = repo.parent / "editor.py"
    script.write_text("import os\n" + EDITOR, encoding="utf-8")
    memx.monkeypatch.setenv("EDITOR", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    for start in range(0, len(SECRETS), 16):
        text = repo.parent / "edit.txt"
        text.write_text("\n".join(s.line for s in SECRETS[start:start + 16]), encoding="utf-8")
        memx.monkeypatch.setenv("CENSUS_TEXT", str(text))
        memory_id = memx.ok("add", f"The release checklist part {start}").strip()
        result = memx("edit", memory_id)
        assert result.code == 0, result.err


@driver("notes set")
def _notes_set(memx: Memx, repo: Path) -> None:
    for start in range(0, len(SECRETS), 16):
        text = "\n".join(s.line for s in SECRETS[start:start + 16])
        memx.ok("notes", "--agent", f"agent{start}", "set", text)


@driver("notes append")
def _notes_append(memx: Memx, repo: Path) -> None:
    for s in SECRETS:
        memx.ok("notes", "--agent", f"agent{s.number // 16}", "append", s.line)


@driver("remember + consolidate")
def _remember(memx: Memx, repo: Path) -> None:
    for s in SECRETS:
        memx.ok("remember", "--session", f"s{s.number % 3}", s.line)
    memx.ok("remember", "--mark", SECRETS[0].line)
    memx.ok("consolidate")


# ---------------------------------------------------------------- git hooks


@driver("post-commit", reach=len(single()) * 9 // 10)
def _post_commit(memx: Memx, repo: Path) -> None:
    memx.ok("hooks", "install")
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "memx store")
    names = {s.number: f"{s.ref.upper()}_{s.kind.upper()}" for s in single()}
    env_lines = {s.number: f"{names[s.number]}=placeholder{s.number}" for s in single()}
    commit(repo, "add the env file", (".env", "".join(v + "\n" for v in env_lines.values())))
    batch = 3  # the Reflector describes up to three changed settings per file
    chosen = single()
    for start in range(0, len(chosen), batch):
        group = chosen[start:start + batch]
        for s in group:
            env_lines[s.number] = f"{names[s.number]}={s.value}"
        # the settings named and a reason given, as the commit noise model wants before it
        # keeps a changed setting (issue 24); the secrets' lines in the body too
        keys = ", ".join(names[s.number] for s in group)
        body = "\n".join(f"Error: the deploy failed: {s.line}" for s in group)
        result = commit(repo, f"Rotate {keys} because the deploy failed with 401 "
                              f"Unauthorized\n\n{body}",
                        (".env", "".join(v + "\n" for v in env_lines.values())),
                        ("deploy/settings.toml", f"retries = {start}\n"))
        assert result.returncode == 0, result.stderr
    wait_for_background(repo, timeout=120)


# ---------------------------------------------------------------- MCP tools


def _mcp(repo: Path, script: Callable[[Any], Any]) -> None:
    run_session(repo, script)


@driver("mcp propose_fact")
def _mcp_propose(memx: Memx, repo: Path) -> None:
    async def script(client: Any) -> None:
        for s in SECRETS:
            await call(client, "propose_fact", content=s.line,
                       scope="global" if s.number % 4 == 0 else "project")
    _mcp(repo, script)


@driver("mcp supersede_fact")
def _mcp_supersede_fact(memx: Memx, repo: Path) -> None:
    async def script(client: Any) -> None:
        for s in SECRETS:
            old = await call(client, "propose_fact", content=f"Deploy step {s.number} is manual")
            await call(client, "supersede_fact", old_id=old["memory"]["id"], content=s.line)
    _mcp(repo, script)


@driver("mcp propose_policy")
def _mcp_policy(memx: Memx, repo: Path) -> None:
    async def script(client: Any) -> None:
        for s in SECRETS:
            await call(client, "propose_policy", rule=s.line, domain="ops")
    _mcp(repo, script)


@driver("mcp supersede_policy")
def _mcp_supersede_policy(memx: Memx, repo: Path) -> None:
    async def script(client: Any) -> None:
        for s in SECRETS:
            old = await call(client, "propose_policy", rule=f"Step {s.number} needs a review",
                             domain="ops")
            await call(client, "supersede_policy", old_id=old["memory"]["id"], rule=s.line)
    _mcp(repo, script)


@driver("mcp remember + consolidate_memory")
def _mcp_remember(memx: Memx, repo: Path) -> None:
    async def script(client: Any) -> None:
        for s in SECRETS:
            await call(client, "remember", content=s.line, mark=s.number % 2 == 0)
        await call(client, "consolidate_memory")
    _mcp(repo, script)


@driver("mcp record_observation")
def _mcp_observe(memx: Memx, repo: Path) -> None:
    async def script(client: Any) -> None:
        for s in SECRETS[:40]:
            await call(client, "record_observation", observation=s.line)
    _mcp(repo, script)
    memx.monkeypatch.setenv("MEMX_AGENT", "second")

    async def rest(client: Any) -> None:
        for s in SECRETS[40:]:
            await call(client, "record_observation", observation=s.line)
    run_session(repo, rest, "--agent", "second")


@driver("mcp update_my_notes")
def _mcp_notes(memx: Memx, repo: Path) -> None:
    for start in range(0, len(SECRETS), 32):  # two agents: notes are capped at 8,000 chars
        text = "\n".join(s.line for s in SECRETS[start:start + 32])

        async def script(client: Any, text: str = text) -> None:
            await call(client, "update_my_notes", notes_text=text)
        run_session(repo, script, "--agent", f"agent{start}")


# ---------------------------------------------------------------- what writes nothing

# Commands, tools and hooks that store nothing that came from outside, and why.
CLI_NO_OUTSIDE_TEXT = {
    "init": "creates the empty layout and the config header",
    "search": "reads (recall counts are numbers keyed by id)",
    "show": "reads", "list": "reads", "validate": "reads", "export": "prints to stdout; "
    "--format agents-md etc. write masked lines into an instruction file (test_agents_file)",
    "setup": "writes memx's own server entry and hook command into agent config files",
    "agent-hook": "starts `memx ingest` on the agent's transcript (the 'ingest' driver)",
    "doctor": "reads", "stats": "reads", "diff": "reads git history", "context": "reads "
    "(its cache holds policy text read from memory files, which the census scans)",
    "conflicts": "reads and records links between memory ids",
    "resolve": "links memory ids; --not-conflict keeps id pairs",
    "rm": "deletes", "forget": "deletes", "sweep": "moves memory files",
    "restore": "moves memory files", "reindex": "derives the index from memory files",
    "feedback": "counts votes", "verify": "driven as 'verify --fix'",
    "policy list": "reads", "policy deactivate": "sets a flag on a memory",
    "hooks install": "writes the shims", "hooks uninstall": "removes the shims",
    "hooks status": "reads", "hooks check": "reads",
    "hook-impl": "driven through real commits ('post-commit')",
    "mcp": "driven through the MCP tools ('mcp ...')",
    "config get": "reads", "config list": "reads", "config unset": "removes a key",
    "config set": "refuses a value that looks like a secret (test_config_set_refuses_a_secret)",
    "consolidate": "driven as 'remember + consolidate'",
    "review": "stages, restores or removes memory files; --edit is memx edit's path",
    "merge-file": "merges two committed memory files (git's merge driver)",
    "source add": "records a URL (one holding a credential is refused) and a commit",
    "source update": "records commits", "source list": "reads",
    "source remove": "removes a key",
    "source approve": "records a location the configuration already holds, in the user's own file",
    "server start": "starts the memx server; its log holds paths, pids and reasons, no "
    "memory text (forwarded commands are the 'search'/'context'/'list' entries above)",
    "server status": "reads", "server stop": "stops the server",
}
CLI_DRIVEN = {"add": ("add", "add --scope global", "add --kind policy", "add --anchor"),
              "import": ("import", "import markdown"), "ingest": ("ingest",), "run": ("run",),
              "edit": ("edit",), "notes": ("notes set", "notes append"),
              "policy add": ("policy add",), "remember": ("remember + consolidate",),
              "anchor": ("anchor",)}
MCP_NO_OUTSIDE_TEXT = {
    "search_memory": "reads", "get_context": "reads", "list_memory_conflicts": "reads",
    "run_decay_sweep": "moves memory files", "verify_memory": "reads",
    "consolidate_memory": "driven with remember",
}
HOOKS_NO_OUTSIDE_TEXT = {
    "pre-commit": "writes nothing", "post-merge": "refreshes the index from memory files, "
    "stages the merge driver's copies (merged memory files), unpacks pinned sources",
    "post-checkout": "refreshes the index from memory files",
    "post-rewrite": "refreshes the index from memory files",
}


def cli_commands() -> list[str]:
    """Every command and subcommand name, from the click command tree itself."""
    import click

    from memx_cli.cli import COMMANDS, cli

    names: list[str] = []
    ctx = click.Context(cli)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        if isinstance(command, click.Group):
            names += [f"{name} {sub}" for sub in command.list_commands(ctx)]
        else:
            names.append(name)
    return names


def test_every_command_is_in_the_census() -> None:
    missing = [c for c in cli_commands() if c not in CLI_DRIVEN and c not in CLI_NO_OUTSIDE_TEXT]
    assert missing == [], f"commands with no census driver or stated reason: {missing}"
    for drivers in CLI_DRIVEN.values():
        assert all(d in DRIVERS for d in drivers)


def test_every_mcp_tool_is_in_the_census(memx: Memx, repo: Path) -> None:
    async def script(client: Any) -> list[str]:
        return [t.name for t in (await client.list_tools()).tools]

    tools = run_session(repo, script)
    missing = [t for t in tools if f"mcp {t}" not in DRIVERS and t not in MCP_NO_OUTSIDE_TEXT
               and not any(k.startswith(f"mcp {t} ") or f" {t}" in k for k in DRIVERS)]
    assert missing == [], f"MCP tools with no census driver or stated reason: {missing}"


def test_every_hook_is_in_the_census() -> None:
    from memx_cli.githooks.install import HOOK_TYPES

    missing = [h for h in HOOK_TYPES if h not in DRIVERS and h not in HOOKS_NO_OUTSIDE_TEXT]
    assert missing == [], f"hooks with no census driver or stated reason: {missing}"


@pytest.mark.parametrize("path", sorted(DRIVERS))
def test_no_secret_is_stored(path: str, memx: Memx, repo: Path, isolated_home: Path) -> None:
    DRIVERS[path](memx, repo)
    leaked, reached = scan(repo / ".memx", isolated_home)
    report = (f"{path}: {len(leaked)}/{len(SECRETS)} secrets stored in clear "
              f"({len(reached)} lines reached the store): "
              + ", ".join(f"{s.ref} {s.kind}" for s in leaked))
    count = len(reached)
    assert count >= MIN_REACHED[path], report
    assert not leaked, report


def test_the_corpus_is_large_and_varied() -> None:
    from .census import CLEAN

    assert len(SECRETS) >= 60 and len(CLEAN) >= 60
    assert len({s.kind for s in SECRETS}) >= 20
    assert all(s.value not in json.dumps(json.loads((Path(__file__).parent / "data" /
                                                     "privacy_census.json").read_text()))
               for s in SECRETS), "a secret is committed whole: keep it in parts"
