from __future__ import annotations

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json, read_text_arg


@click.command("notes")
@click.argument("action", type=click.Choice(["show", "set", "append", "clear"]),
                default="show")
@click.argument("text", required=False)
@click.option("--agent", metavar="NAME", help="Whose notes (default: $MEMX_AGENT, else "
              "'default').")
@click.option("--json", "as_json", is_flag=True, help='Print {"notes": {"agent", "text"}}.')
@click.pass_obj
def notes_cmd(state: State, action: str, text: str | None, agent: str | None,
              as_json: bool) -> None:
    """Show or change an agent's working notes: a private notepad kept in
    .memx/local/notes/ (this clone only, never committed) and injected verbatim into
    that agent's `memx context` preamble.

    show (the default) prints them; set TEXT replaces them; append TEXT adds a dated
    line; clear deletes them. TEXT may be - to read standard input.
    """
    if action in ("set", "append") and text is None:
        raise click.UsageError(f"memx notes {action} needs TEXT (or - for standard input)")
    memx = state.memx(agent=agent)
    name = memx.agent
    if action == "show":
        body = memx.notes()
    elif action == "set":
        body = memx.set_notes(read_text_arg(text or ""))
    elif action == "append":
        body = memx.append_note(read_text_arg(text or ""))
    else:
        memx.clear_notes()
        body = ""
    if as_json:
        emit_json({"notes": {"agent": name, "text": body}})
    elif action == "show":
        if body:
            click.echo(body, nl=False)
        else:
            click.echo(f"No notes for agent {name}.", err=True)
    elif action == "clear":
        click.echo(f"Cleared the notes of agent {name}.")
    else:
        click.echo(f"Notes of agent {name}: {len(body)} characters.")
