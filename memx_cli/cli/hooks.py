from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json

HOOKS_OPTION_HELP = ("Only these hooks (comma-separated or repeated): pre-commit, post-commit, "
                     "post-merge, post-checkout, post-rewrite. Default: all five.")


@click.group("hooks")
def hooks_group() -> None:
    """Install, remove or inspect memx's git hooks.

    post-commit queues each commit and a background run turns it into memories, left
    uncommitted for you to review (`memx diff`); post-merge, post-checkout and
    post-rewrite keep the search index fresh; pre-commit checks staged .memx/ files
    (validity, conflict markers, secrets). A hook that was already there is kept and
    runs first. Skip memx's hooks for one command with MEMX_SKIP_HOOKS=1 (for example
    `MEMX_SKIP_HOOKS=1 git commit ...`). See docs/git.md.
    """


def _where(worktree: Path, path: Path) -> str:
    try:
        return path.relative_to(worktree).as_posix()
    except ValueError:
        return str(path)


JSON_HELP = 'Print {"hooks": {"directory", "changes": [{"name", "action"}]}} as JSON.'


@hooks_group.command("install")
@click.option("--hooks", "names", multiple=True, metavar="LIST", help=HOOKS_OPTION_HELP)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def install_cmd(state: State, names: tuple[str, ...], as_json: bool) -> None:
    """Write the hook shims into the repository's hooks directory.

    Uses core.hooksPath when it is set (the folder must exist, as git makes none). The
    shims run memx with the Python that runs this command, so install them again
    after moving memx to another environment. Also registers
    memx's merge driver for memory files in this clone (.git/config) and writes
    .memx/.gitattributes when it is missing.
    """
    from memx_cli.githooks.install import install, parse_names
    from memx_cli.operations.merge_driver import register

    repo = state.repo(initialized=False)
    changes = list(install(repo.worktree, parse_names(names)))
    driver = register(repo.worktree, repo.store.root)
    if as_json:
        _report_json(repo.worktree, changes, driver)
        return
    _report(repo.worktree, changes)
    for change in driver:
        click.echo(f"  {'merge driver':<14} {change}")


@hooks_group.command("uninstall")
@click.option("--hooks", "names", multiple=True, metavar="LIST", help=HOOKS_OPTION_HELP)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def uninstall_cmd(state: State, names: tuple[str, ...], as_json: bool) -> None:
    """Remove memx's shims and put back the hooks they replaced."""
    from memx_cli.githooks.install import parse_names, uninstall

    repo = state.repo(initialized=False)
    changes = list(uninstall(repo.worktree, parse_names(names)))
    if as_json:
        _report_json(repo.worktree, changes, [])
    else:
        _report(repo.worktree, changes)


def _report_json(worktree: Path, changes: Any, driver: list[str]) -> None:
    from memx_cli.githooks.install import hooks_directory

    payload: dict[str, Any] = {
        "directory": str(hooks_directory(worktree)),
        "changes": [{"name": c.name, "action": c.action} for c in changes]}
    if driver:
        payload["merge_driver"] = driver
    emit_json({"hooks": payload})


def _report(worktree: Path, changes: Any) -> None:
    from memx_cli.githooks.install import hooks_directory

    click.echo(f"memx hooks in {_where(worktree, hooks_directory(worktree))}:")
    for change in changes:
        click.echo(f"  {change.name:<14} {change.action}")


@hooks_group.command("status")
@click.option("--json", "as_json", is_flag=True, help='Print {"hooks": {...}} as JSON.')
@click.pass_obj
def status_cmd(state: State, as_json: bool) -> None:
    """Show which hooks are memx's, someone else's, or absent."""
    from memx_cli.githooks.install import status

    repo = state.repo(initialized=False)
    directory, states = status(repo.worktree)
    if as_json:
        emit_json({"hooks": {
            "directory": str(directory),
            "hooks": [{"name": s.name, "state": s.state, "chained": s.chained,
                       "python": s.python, "problem": s.problem} for s in states]}})
        return
    click.echo(f"hooks directory: {_where(repo.worktree, directory)}")
    for s in states:
        if s.state == "memx":
            text = "memx" + (", runs the previous hook first" if s.chained else "")
            text += f" ({s.problem})" if s.problem else ""
        elif s.state == "other":
            text = "not memx's (memx hooks install keeps it and runs it first)"
        else:
            text = "absent" + (f" (a previous hook waits in {s.name}.memx-legacy)"
                               if s.chained else "")
        click.echo(f"  {s.name:<14} {text}")


@hooks_group.command("check")
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--secrets", "secrets_only", is_flag=True,
              help="Only look for secrets (what the memx-secrets pre-commit hook runs).")
@click.pass_obj
def check_cmd(state: State, files: tuple[Path, ...], secrets_only: bool) -> None:
    """Check .memx/ files the way the pre-commit hook does.

    Memory files must be valid; no file may contain a merge-conflict marker or a secret
    (anything memx's sanitizer would mask). Without FILES, checks the staged content of
    the staged .memx/ files. Prints `file:line: problem` and exits 1 on any problem.
    """
    from memx_cli.errors import CheckFailedError
    from memx_cli.operations.precommit import check_files, check_staged

    repo = state.repo(initialized=False)
    paths = [p if p.is_absolute() else state.cwd / p for p in files]
    result = check_files(repo, paths, secrets_only) if files else check_staged(repo)
    for line in result.messages:
        click.echo(line, err=True)
    if result.error:
        raise CheckFailedError(result.error)


@click.command("hook-impl", hidden=True,
               context_settings={"ignore_unknown_options": True, "help_option_names": []})
@click.argument("hook")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.pass_obj
def hook_impl_cmd(state: State, hook: str, args: tuple[str, ...]) -> None:
    """What the installed git hook shims run (not for direct use)."""
    from memx_cli.errors import CheckFailedError
    from memx_cli.githooks.impl import run

    result = run(hook, args, state.cwd)
    for line in result.messages:
        click.echo(line, err=True)
    if result.error:
        raise CheckFailedError(result.error)
