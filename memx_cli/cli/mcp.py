from __future__ import annotations

import click

from memx_cli.cli import State


@click.command("mcp")
@click.option("--agent", metavar="NAME", help="The agent's name, for its working notes "
              "(default: $MEMX_AGENT, else 'default').")
@click.option("--role", metavar="ROLE", help="The agent's role for access grants "
              "(default: $MEMX_ROLE).")
@click.pass_obj
def mcp_cmd(state: State, agent: str | None, role: str | None) -> None:
    """Serve this repository's memory to an agent over MCP (stdio).

    Tools: search_memory, get_context, propose_fact, supersede_fact, propose_policy,
    supersede_policy, remember, record_observation, update_my_notes,
    list_memory_conflicts, run_decay_sweep, consolidate_memory, verify_memory.
    The search index stays open between calls. See docs/agents.md to register it.
    """
    from memx_cli.agents.mcp_server import serve

    serve(state.repo(), agent=agent, role=role)
