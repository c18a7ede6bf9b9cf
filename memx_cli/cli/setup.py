from __future__ import annotations

import sys
from pathlib import Path

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json

AGENT_NAMES = "claude-code, codex, cursor, gemini, copilot, windsurf"


@click.command("setup")
@click.argument("agent", metavar="AGENT")
@click.option("--user", is_flag=True, help="Write the user's configuration (in the home "
              "directory) instead of the project's.")
@click.option("--remove", is_flag=True, help="Take out what memx setup wrote; leave every "
              "other entry alone.")
@click.option("-y", "--yes", is_flag=True, help="Write without asking.")
@click.option("--replace", is_flag=True, help="Replace a memx server entry that memx did "
              "not write (the user's own is kept otherwise).")
@click.option("--json", "as_json", is_flag=True, help="Print the plan (and whether it was "
              "written) as JSON.")
@click.pass_obj
def setup_cmd(state: State, agent: str, user: bool, remove: bool, yes: bool,
              replace: bool, as_json: bool) -> None:
    """Register memx with a coding AGENT: claude-code, codex, cursor, gemini, copilot
    (VS Code) or windsurf.

    Adds the MCP server (`memx mcp --agent AGENT`) to the agent's own configuration file,
    project scope unless --user, keeping every other entry. For Claude Code and Gemini
    CLI it also adds a session-end and pre-compaction hook that runs `memx ingest` on the
    session's transcript in the background. Shows a diff first and writes only with
    --yes or after you confirm at a terminal; running it again changes nothing. A `memx`
    server entry that memx did not write (your own, with other arguments) is kept unless
    you confirm or pass --replace; --remove takes out only what setup wrote. Files keep
    their line endings, formatting and comments (JSON with comments and trailing commas, as
    VS Code and Cursor read it, is edited too), and a symlinked file is edited through its
    link. See docs/agents.md for the exact files.
    """
    from memx_cli import git
    from memx_cli.agents.setup.plan import apply, plan
    from memx_cli.errors import NotARepoError

    home = Path.home()
    try:
        root: Path | None = git.find_worktree(state.cwd)
    except NotARepoError:
        if not user:
            raise
        root = None
    setup = plan(agent, root or home, home, user=user, remove=remove, replace=replace)
    interactive = not as_json and sys.stdin.isatty() and sys.stdout.isatty()
    if setup.kept and not remove and not yes and interactive and click.confirm(
            f"Your own memx entry ({'; '.join(setup.kept)}) differs from memx's; "
            "replace it?", default=False):
        setup = plan(agent, root or home, home, user=user, replace=True)
    title, scope = setup.agent.title, setup.scope
    for kept in ([] if remove or as_json else setup.kept):
        click.echo(f"memx: kept your own {kept} (memx did not write it); to replace it: "
                   f"memx setup {setup.agent.name}{' --user' if user else ''} --replace",
                   err=True)
    files = ", ".join(c.display for c in setup.changes)
    pending = setup.pending
    if not pending:
        if as_json:
            emit_json({"setup": {**setup.to_json(), "written": False}})
        elif remove:
            click.echo(f"{title} is not set up by memx ({scope}): nothing to remove")
        else:
            click.echo(f"{title} is already set up ({scope}): {files}")
        return
    if not as_json:
        click.echo(setup.diff(), nl=False)
    write = yes or (interactive and click.confirm("Write these changes?", default=False))
    if write:
        apply(setup, tuple(p for p in (root, home) if p is not None))
    if as_json:
        emit_json({"setup": {**setup.to_json(), "written": write}})
        return
    if not write:
        click.echo("Nothing written; run again with --yes to write these changes.")
        return
    done = ", ".join(f"{c.action}d {c.display}" for c in pending)
    if remove:
        click.echo(f"Removed memx from {title} ({scope}): {done}")
    else:
        click.echo(f"Set up {title} ({scope}): {done}")
        import shutil

        if shutil.which("memx") is None:
            click.echo(f"memx: warning: no `memx` on PATH here; {title} starts `memx` from "
                       "its PATH, so put memx's bin directory on it", err=True)
        click.echo(f"Restart {title} (or reload its MCP servers) to use memx.")
        if setup.agent.hooks:
            click.echo(f"At {' and '.join(setup.agent.hooks)} it runs `memx ingest` on the "
                       "session's transcript in the background.")


@click.command("agent-hook", hidden=True)
@click.argument("agent", metavar="AGENT")
@click.pass_obj
def agent_hook_cmd(state: State, agent: str) -> None:
    """What an agent's lifecycle hook runs (hidden): reads the hook's JSON on standard
    input and starts `memx ingest` on its transcript in the background."""
    from memx_cli.agents.agent_hook import run

    data = sys.stdin.buffer.read() if not sys.stdin.isatty() else b""
    try:
        run(agent, data, state.cwd)
    except Exception as exc:  # a hook never fails the agent
        click.echo(f"memx agent-hook: {type(exc).__name__}: {exc}", err=True)
