from __future__ import annotations

import click

from memx_cli.cli import State
from memx_cli.cli._output import counted, emit_json, one_line, warn_problems


@click.command("sweep")
@click.option("--dry-run", is_flag=True, help="Show what would move; change nothing.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"sweep": {"threshold", "checked", "dry_run", "archived": [...]}}.')
@click.pass_obj
def sweep_cmd(state: State, dry_run: bool, as_json: bool) -> None:
    """Archive memories whose decay weight fell below ace.decay.archive_threshold.

    The weight follows the forgetting curve of the memory's type, counted from its last
    change, boosted by its recalls in this clone; a memory past its valid_until is
    archived too. Files move from .memx/memories/ to .memx/archive/ (nothing is
    deleted; `memx restore ID` brings one back). Policies are never archived.
    """
    from memx_cli.jsonout import sweep_json

    report = state.memx().sweep(dry_run=dry_run)
    warn_problems(report.problems)
    if as_json:
        emit_json({"sweep": sweep_json(report)})
        return
    if not report.moved:
        click.echo(f"Nothing to archive: {counted(report.checked, 'memory', 'memories')} "
                   f"checked, none below {report.threshold:g}.")
        return
    verb = "Would archive" if dry_run else "Archived"
    click.echo(f"{verb} {len(report.moved)} of {counted(report.checked, 'memory', 'memories')} "
               f"(weight below {report.threshold:g}):")
    for item in report.moved:
        click.echo(f"  {item.memory.id}  {item.reason}  {one_line(item.memory.content, 50)}")
    if not dry_run:
        click.echo("Review and commit .memx/; `memx restore ID` brings one back.")


@click.command("restore")
@click.argument("memory_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the restored memory as JSON.")
@click.pass_obj
def restore_cmd(state: State, memory_id: str, as_json: bool) -> None:
    """Bring the archived memory whose id starts with ID back to .memx/memories/.

    Its updated_at becomes now, so it starts its forgetting curve again; a valid_until
    that has passed is removed (the memory holds again until you set a new one).
    """
    from memx_cli.jsonout import memory_json

    memx = state.memx()
    repo = memx.repo
    mem, path = memx.restore(memory_id)
    shown = repo.store.display(path) if path.is_relative_to(repo.store.root) else str(path)
    if as_json:
        emit_json({"restored": {"memory": memory_json(mem), "path": shown}})
    else:
        click.echo(f"Restored {mem.id} ({shown})")
