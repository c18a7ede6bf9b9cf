from __future__ import annotations

from pathlib import Path

import click

from memx_cli.cli import State


@click.command("merge-file", hidden=True, context_settings={"help_option_names": []})
@click.argument("base", type=click.Path(path_type=Path))
@click.argument("ours", type=click.Path(path_type=Path))
@click.argument("theirs", type=click.Path(path_type=Path))
@click.argument("pathname")
@click.pass_context
def merge_file_cmd(ctx: click.Context, base: Path, ours: Path, theirs: Path,
                   pathname: str) -> None:
    """What git's memx merge driver runs: merge THEIRS into OURS (git's %O %A %B %P).

    Exits 0 when merged, 1 when git should report a conflict (OURS left unchanged).
    """
    from memx_cli import git
    from memx_cli.errors import MemxError
    from memx_cli.operations.merge_file import run_driver

    state: State = ctx.obj
    try:
        worktree: Path | None = git.find_worktree(state.cwd)
    except MemxError:  # a bare repository (git merge-tree): no place for a conflict copy
        worktree = None
    result = run_driver(base, ours, theirs, pathname, worktree)
    if result.message:
        click.echo(result.message, err=True)
    if not result.clean:
        ctx.exit(1)
