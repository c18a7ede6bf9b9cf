from __future__ import annotations

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json, read_text_arg


@click.command("context")
@click.argument("task")
@click.option("--agent", metavar="NAME", help="Whose working notes to include (default: "
              "$MEMX_AGENT, else 'default').")
@click.option("--role", metavar="ROLE", help="The agent's role (default: $MEMX_ROLE): facts "
              "of domains granted 'none' to it in .memx/access.yaml are left out.")
@click.option("--budget", type=int, metavar="CHARS", help="Characters for the whole "
              "preamble (default: ace.context.budget, 6000).")
@click.option("--json", "as_json", is_flag=True, help='Print {"context": {"text", "agent", '
              '"role", "budget", "chars", "policies", "notes", "facts", "warnings"}}.')
@click.pass_obj
def context_cmd(state: State, task: str, agent: str | None, role: str | None,
                budget: int | None, as_json: bool) -> None:
    """Print the memory preamble for an agent about to work on TASK (- reads stdin).

    Every active policy as "- [domain] rule", the agent's working notes verbatim, and up
    to 5 keyword-matched facts within about 1,200 characters (only when TASK has at
    least 20 characters), closed by a reminder to verify load-bearing items with a full
    search. Keyword search only, for speed. The text is wrapped in <memx-context> with
    memory text escaped, so it is safe to paste into a prompt. Warns on stderr when
    policies alone take more than half the budget.
    """
    from memx_cli.generator import context

    if budget is not None and budget < 1:
        raise click.BadParameter("must be positive", param_hint="--budget")
    pre = state.memx(agent=agent, role=role).context(read_text_arg(task), budget)
    for warning in pre.warnings:
        click.echo(f"memx: warning: {warning}", err=True)
    if as_json:
        emit_json({"context": context.to_json(pre)})
    else:
        click.echo(pre.text, nl=False)
