from __future__ import annotations

import click

from memx_cli.cli import State


@click.command("init")
@click.pass_obj
def init_cmd(state: State) -> None:
    """Create the .memx/ store at the top of this git repository.

    Makes .memx/config.yaml, .memx/memories/ and a .memx/.gitignore that keeps the
    per-clone local/ and cache/ folders out of git. Safe to run again: existing files
    are left as they are. Works from any subdirectory of the repository.
    """
    from memx_cli.store.repo import init

    repo = state.repo(initialized=False)
    made = init(repo)
    where = repo.store.display(repo.store.root)
    if made:
        click.echo(f"Initialized memx store in {where}/ (commit it to share memory)")
    else:
        click.echo(f"memx store already initialized in {where}/")
