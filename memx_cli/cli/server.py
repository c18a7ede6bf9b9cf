from __future__ import annotations

from typing import Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json


@click.group("server")
def server_group() -> None:
    """Start, stop or inspect the per-user memx server.

    The `memx` executable sends search, context, list, add, feedback and remember to this
    server, which keeps the search indexes and the model loaded and watches the stores
    for changes (a write runs there exactly once); the first such command starts it, and it ends itself after server.idle_timeout seconds
    (default 900) without a request. Without it (stopped, disabled with
    `server.enabled: false` or MEMX_NO_SERVER=1, another memx version) every command
    runs in process, with the same output. See docs/server.md.
    """


@server_group.command("status")
@click.option("--json", "as_json", is_flag=True, help='Print {"server": {"running", '
              '"socket", "log", ...}}; a running server adds its "pid", "version" and '
              'counters.')
@click.pass_obj
def status_cmd(state: State, as_json: bool) -> None:
    """Say whether a server is running, what it serves, and its counters (every field
    of --json: full scans of the stores, late watcher marks, ...)."""
    from memx_cli.wire.control import disabled, status

    info = status()
    why = disabled(state.cwd)  # MEMX_NO_SERVER, server.enabled: false
    if why:
        info["disabled"] = why
    _show(info, as_json)


@server_group.command("start")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.pass_obj
def start_cmd(state: State, as_json: bool) -> None:
    """Start the server in the background (no-op when one is running; refused where
    it is disabled)."""
    from memx_cli.errors import MemxError
    from memx_cli.wire.control import disabled, start

    why = disabled(state.cwd)
    if why is not None:
        raise MemxError(f"the memx server is disabled here ({why}); commands run in process")
    info = start(wait=5.0)
    if not info["running"]:
        why = info.get("problem") or f"see {info['log']}"
        raise MemxError(f"the memx server did not start ({why})")
    _show(info, as_json)


@server_group.command("stop")
@click.option("--json", "as_json", is_flag=True, help='Print {"server": {"stopped": bool}}.')
def stop_cmd(as_json: bool) -> None:
    """Stop the running server (commands then run in process until one is started)."""
    from memx_cli.wire.control import stop

    stopped = stop()
    if as_json:
        emit_json({"server": {"stopped": stopped}})
    else:
        click.echo("stopped the memx server" if stopped else "no memx server was running")


# What the first lines of the text status say; every other key is printed as it comes
# (the counters: scans, late marks, what the watcher adds), so none is left out.
_SHOWN = frozenset({"running", "problem", "note", "pid", "version", "uptime", "started",
                    "requests", "idle_timeout", "repositories", "socket", "log", "disabled"})


def _show(info: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json({"server": info})
        return
    if not info["running"]:
        why = info.get("problem") or (f"disabled here: {info['disabled']}"
                                      if info.get("disabled") else info.get("note", ""))
        click.echo(f"not running ({why})")
    else:
        click.echo(f"running: pid {info.get('pid')}, memx {info.get('version')}, "
                   f"up {info.get('uptime', 0):g} s, {info.get('requests', 0)} requests, "
                   f"idle timeout {info.get('idle_timeout', 0):g} s")
        if info.get("problem"):
            click.echo(f"problem: {info['problem']}")
        if info.get("disabled"):
            click.echo(f"not used here: {info['disabled']}")
        for repo in info.get("repositories", []):
            click.echo(f"  serving {repo}")
    click.echo(f"socket:  {info['socket']}")
    click.echo(f"log:     {info['log']}")
    for name, value in _flat({k: v for k, v in info.items() if k not in _SHOWN}):
        click.echo(f"{name}: {value}")


def _flat(values: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """(name, text) of each value, by name; a nested object's keys as ``name.key``."""
    lines: list[tuple[str, str]] = []
    for name in sorted(values):
        value = values[name]
        if isinstance(value, dict):
            lines.extend(_flat(value, f"{prefix}{name}."))
        elif isinstance(value, (list, tuple)):
            lines.append((prefix + name, ", ".join(str(v) for v in value) or "none"))
        elif isinstance(value, bool) or value is None:
            lines.append((prefix + name, {True: "true", False: "false", None: "none"}[value]))
        elif isinstance(value, float):
            lines.append((prefix + name, f"{value:g}"))
        else:
            lines.append((prefix + name, str(value)))
    return lines
