from __future__ import annotations

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_obj
def doctor_cmd(state: State, as_json: bool) -> None:
    """Report versions, store and index state, git hooks and configuration problems.

    Exits 1 when something needs attention; a store folder that is a symbolic link is
    listed as a problem, with what can be checked without the store.
    """
    from memx_cli.doctor import diagnose
    from memx_cli.errors import CheckFailedError, NotARepoError

    try:
        repo = state.repo(initialized=False)
    except NotARepoError:
        repo = None
    report = diagnose(repo)
    if as_json:
        emit_json({"doctor": report})
    else:
        click.echo("versions:")
        for name, version in report["versions"].items():
            click.echo(f"  {name:<10} {version or 'not installed'}")
        server = report["server"]
        if server["running"]:
            click.echo(f"server:     running (pid {server['pid']}, memx {server['version']})")
        else:
            click.echo("server:     not running ("
                       + (f"disabled: {server['disabled']})" if server.get("disabled")
                          else "started on demand)"))
        if server.get("last_fallback"):
            click.echo(f"  last said {server['last_fallback']} (log: {server['log']})")
        store = report.get("store")
        if store:
            click.echo(f"store:      {store['path']}")
            if store["initialized"]:
                click.echo(f"  memories  {store['memories']} ({store['archived']} archived, "
                           f"{store['invalid_files']} invalid)")
        hooks = ", ".join(f"{k}={v}" for k, v in report.get("hooks", {}).items())
        if store and "index" not in report:  # a store doctor cannot open: the hooks only
            click.echo(f"hooks:      {hooks}")
        elif store:
            click.echo(f"global:     {report['global_store']['path']} "
                       f"({report['global_store']['memories']} memories)")
            index = report["index"]
            click.echo(f"index:      {'built' if index['built'] else 'not built yet'}")
            if "change_check" in index:
                click.echo(f"  changes   seen through {index['change_check']}")
            if index.get("note"):
                click.echo(f"note:       {index['note']}")
            click.echo(f"hooks:      {hooks}")
            agents = [f"{a['agent']} ({a['scope']}{'' if a['complete'] else ', partly'})"
                      for a in report["agents"]]
            click.echo(f"agents:     {', '.join(agents) or 'none set up (see memx setup)'}")
            merge = report.get("merge_driver")
            if merge is not None:
                click.echo(f"merge:      {'memx driver' if merge['command'] else 'no memx driver'}"
                           f"{'' if merge['attributes'] else ', .memx/.gitattributes missing'}")
        for problem in report["problems"]:
            click.echo(f"problem:    {problem}")
    if report["problems"]:
        raise CheckFailedError(f"{len(report['problems'])} problem(s) found")
    if not as_json:
        click.echo("No problems found.")
