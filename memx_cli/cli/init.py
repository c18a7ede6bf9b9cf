from __future__ import annotations

import os

import click

from memx_cli.cli import State


@click.command("init")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"init": {"store", "created", "made": [paths]}} as JSON.')
@click.pass_obj
def init_cmd(state: State, as_json: bool) -> None:
    """Create the .memx/ store at the top of this git repository.

    Makes .memx/config.yaml, .memx/memories/, a .memx/.gitignore that keeps the
    per-clone local/ and cache/ folders out of git, and a .memx/.gitattributes that
    routes memory files to memx's merge driver (registered in this clone's .git/config;
    other clones get it from `memx hooks install`). Safe to run again: existing files
    are left as they are. Works from any subdirectory of the repository.
    """
    from memx_cli.operations.init import initialize

    repo = state.repo(initialized=False)
    made = initialize(repo)
    # where the user stands: from src/app the store is ../../.memx, not .memx
    where = os.path.relpath(repo.store.root, state.cwd.resolve())
    if as_json:
        from memx_cli.cli._output import emit_json

        emit_json({"init": {"store": str(repo.store.root), "created": bool(made),
                            "made": [p.relative_to(repo.worktree).as_posix() for p in made]}})
        return
    if made:
        click.echo(f"Initialized memx store in {where}/ (commit it to share memory)")
    else:
        click.echo(f"memx store already initialized in {where}/")
