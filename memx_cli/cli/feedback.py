from __future__ import annotations

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json


@click.command("feedback")
@click.argument("memory_id", metavar="ID")
@click.option("--helpful", is_flag=True, help="The memory helped.")
@click.option("--harmful", is_flag=True, help="The memory misled or hurt; it will rank lower.")
@click.option("--json", "as_json", is_flag=True, help="Print the new counts as JSON.")
@click.pass_obj
def feedback_cmd(state: State, memory_id: str, helpful: bool, harmful: bool,
                 as_json: bool) -> None:
    """Count a helpful or harmful vote for the memory whose id starts with ID.

    The counts are kept in the memory file (commit them to share the verdict). Search
    multiplies a memory's score by (helpful + 1) / (helpful + harmful + 1).
    """
    from memx_cli.errors import MemxError
    from memx_cli.operations.feedback import feedback_factor

    if helpful and harmful:  # one flag each, so both given is seen (not the last wins)
        raise MemxError("choose one: --helpful or --harmful")
    if not (helpful or harmful):
        raise MemxError("say how it went: memx feedback ID --helpful or --harmful")
    result = state.memx().feedback(memory_id, helpful=helpful)
    counts = {"helpful": result.memory.feedback.get("helpful", 0),
              "harmful": result.memory.feedback.get("harmful", 0)}
    factor = feedback_factor(counts)
    if as_json:
        emit_json({"feedback": {"id": result.memory.id, **counts,
                                "factor": round(factor, 4)}})
    else:
        click.echo(f"{result.memory.id}: helpful {counts['helpful']}, harmful "
                   f"{counts['harmful']} (search factor {factor:.2f})")
