from __future__ import annotations

import click

from memx_cli.cli import State
from memx_cli.cli._output import read_text_arg


@click.command("add")
@click.argument("text")
@click.option("--tag", "tags", multiple=True, metavar="TAG", help="Label it (repeatable).")
@click.option("--scope", default="project", show_default=True,
              help="global, project, workspace (the current branch) or workspace:NAME.")
@click.option("--kind", type=click.Choice(["fact", "policy"]), default="fact",
              show_default=True, help="A fact is searched; a policy is pushed to every agent.")
@click.option("--domain", help="Group it: conventions, decisions, codebase, ...")
@click.option("--topic", help="A finer grouping inside the domain.")
@click.option("--anchor", "anchor_specs", multiple=True, metavar="PATH[:START[-END]]",
              help="Anchor it to a file of the repository, or to lines of one (repeatable); "
                   "searches then check the passage is unchanged.")
@click.option("--raw", is_flag=True,
              help="ACE off: store TEXT verbatim, with no extraction, no dedup and NO "
                   "secret sanitizing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def add_cmd(state: State, text: str, tags: tuple[str, ...], scope: str, kind: str,
            domain: str | None, topic: str | None, anchor_specs: tuple[str, ...], raw: bool,
            as_json: bool) -> None:
    """Remember TEXT (use - to read it from standard input).

    Prints the id of the memory that holds TEXT now. When the curator did more than
    add it, stderr says what: merged into ID, skipped (duplicate of ID), supersedes ID
    or conflicts with ID (--json always has "action").

    With a role ($MEMX_ROLE), the domain must be granted 'write' to it in
    .memx/access.yaml (docs/agents.md).
    """
    # the body is memx_cli/command/add.py's, which a cold `memx add` runs without click
    from memx_cli.command.add import run

    run(state, read_text_arg(text), tags=tags, scope=scope, kind=kind, domain=domain,
        topic=topic, anchor_specs=anchor_specs, raw=raw, as_json=as_json)
