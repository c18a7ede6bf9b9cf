from __future__ import annotations

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json, read_text_arg


@click.group("policy")
def policy_group() -> None:
    """Policies: rules pushed to every agent in its `memx context` preamble."""


@policy_group.command("add")
@click.argument("rule")
@click.option("--domain", help="Group it: conventions, decisions, codebase, ... (grants in "
              ".memx/access.yaml are per domain).")
@click.option("--topic", help="A finer grouping inside the domain.")
@click.option("--for-role", "required_role", metavar="ROLE",
              help="Whom the rule addresses (shown with it; every agent still gets it).")
@click.option("--role", metavar="ROLE", help="Your role (default: $MEMX_ROLE); with a role, "
              "the domain must be granted 'write' to it in .memx/access.yaml.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def add_cmd(state: State, rule: str, domain: str | None, topic: str | None,
            required_role: str | None, role: str | None, as_json: bool) -> None:
    """Propose RULE as an active policy (- reads standard input); same as
    `memx add --kind policy`, with --for-role and --role."""
    from memx_cli.jsonout import write_json

    result = state.memx(role=role).add(read_text_arg(rule), kind="policy", domain=domain,
                                       topic=topic, required_role=required_role)
    if as_json:
        emit_json(write_json(result))
        return
    click.echo(result.memory.id)
    if result.action != "added":
        click.echo(result.message, err=True)


@policy_group.command("list")
@click.option("--all", "include_inactive", is_flag=True, help="Also list inactive policies.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"policies": [...]}, each with the "store" it comes from (project, '
                   'global or source:NAME).')
@click.pass_obj
def list_cmd(state: State, include_inactive: bool, as_json: bool) -> None:
    """List current policies as they appear in a preamble: - [domain] rule. Those of
    subscribed sources (memx source) are marked with their origin."""
    from memx_cli.generator.context import policy_line
    from memx_cli.jsonout import memory_json
    from memx_cli.store.sources import LABEL_PREFIX

    found = state.memx().policy_origins(include_inactive)
    if as_json:
        emit_json({"policies": [{**memory_json(m), "store": label} for label, m in found]})
        return
    if not found:
        click.echo("No policies.", err=True)
    for label, mem in found:
        origin = (f" (from source {label.removeprefix(LABEL_PREFIX)})"
                  if label.startswith(LABEL_PREFIX) else "")
        click.echo(f"{mem.id}  {policy_line(mem)}{origin}{'' if mem.active else '  (inactive)'}")


@policy_group.command("deactivate")
@click.argument("memory_id", metavar="ID")
@click.option("--undo", is_flag=True, help="Activate it again.")
@click.pass_obj
def deactivate_cmd(state: State, memory_id: str, undo: bool) -> None:
    """Switch policy ID off: it stays in .memx/ (reviewable) but leaves every preamble."""
    mem = state.memx().deactivate(memory_id, active=undo)
    click.echo(f"{mem.id} {'active' if mem.active else 'inactive'}")
