from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json


def _target(state: State, local: bool, global_: bool) -> Path:
    from memx_cli import config as configmod

    if global_:
        return configmod.global_config_path()
    repo = state.repo()
    return repo.store.root / ("config.local.yaml" if local else "config.yaml")


def _named(path: Path, global_: bool) -> str:
    """The file as the user should read it: the project's by name, the global one by its
    path (both are called config.yaml)."""
    if not global_:
        return path.name
    home = Path.home()
    return f"~/{path.relative_to(home).as_posix()}" if path.is_relative_to(home) else str(path)


def _load(state: State) -> Any:
    from memx_cli import config as configmod
    from memx_cli.errors import NotARepoError

    try:
        repo = state.repo(initialized=False)
    except NotARepoError:
        return configmod.load(None)
    return repo.config


_where = [
    click.option("--local", is_flag=True,
                 help="Use .memx/config.local.yaml (this clone only, not committed)."),
    click.option("--global", "global_", is_flag=True,
                 help="Use your global config (all repositories)."),
]


def _with_where(func: Any) -> Any:
    for option in reversed(_where):
        func = option(func)
    return func


@click.group("config")
def config_group() -> None:
    """Read and change configuration.

    Precedence, highest first: command-line flag, MEMX_* environment variable (the key
    in capitals with dots as underscores, e.g. MEMX_ACE_RETRIEVAL_MAX_RESULTS),
    .memx/config.local.yaml, .memx/config.yaml, your global config, built-in defaults.
    """


@config_group.command("get")
@click.argument("key")
@click.option("--json", "as_json", is_flag=True,
              help="Print the value as JSON (a string quoted), as the other types always are.")
@click.pass_obj
def get_cmd(state: State, key: str, as_json: bool) -> None:
    """Print the value KEY has here, after every layer is applied: a string as it is
    (for `$(memx config get KEY)` in scripts), numbers, booleans, lists and mappings
    as JSON."""
    import json

    value = _load(state).get(key)
    click.echo(value if isinstance(value, str) and not as_json else json.dumps(value))


@config_group.command("set")
@click.argument("key")
@click.argument("value")
@_with_where
@click.pass_obj
def set_cmd(state: State, key: str, value: str, local: bool, global_: bool) -> None:
    """Set KEY to VALUE in .memx/config.yaml (or --local / --global). VALUE is checked first."""
    import json

    from memx_cli import config as configmod

    path = _target(state, local, global_)
    stored = configmod.set_value(path, key, value, committed=not (local or global_))
    click.echo(f"{key} = {json.dumps(stored)} ({_named(path, global_)})")


@config_group.command("unset")
@click.argument("key")
@_with_where
@click.pass_obj
def unset_cmd(state: State, key: str, local: bool, global_: bool) -> None:
    """Remove KEY from .memx/config.yaml (or --local / --global)."""
    from memx_cli import config as configmod

    path = _target(state, local, global_)
    removed = configmod.unset_value(path, key)
    where = _named(path, global_)
    click.echo(f"{key} removed ({where})" if removed else f"{key} was not set in {where}")


@config_group.command("list")
@click.option("--json", "as_json", is_flag=True, help='Print {"config": {key: {value, origin}}}.')
@click.pass_obj
def list_cmd(state: State, as_json: bool) -> None:
    """Print every key with its value and where the value came from."""
    import json

    cfg = _load(state)
    if as_json:
        emit_json({"config": {k: {"value": v, "origin": cfg.origins[k]}
                              for k, v in cfg.values.items()}})
        return
    for key, value in cfg.values.items():
        click.echo(f"{key} = {json.dumps(value)}  ({cfg.origins[key]})")
