from __future__ import annotations

import click

from . import State
from ._output import emit_json, memory_json, read_text_arg


@click.command("add")
@click.argument("text")
@click.option("--tag", "tags", multiple=True, metavar="TAG", help="Label it (repeatable).")
@click.option("--scope", default="project", show_default=True,
              help="global, project, workspace (the current branch) or workspace:NAME.")
@click.option("--kind", type=click.Choice(["fact", "policy"]), default="fact",
              show_default=True, help="A fact is searched; a policy is pushed to every agent.")
@click.option("--domain", help="Group it: conventions, decisions, codebase, ...")
@click.option("--topic", help="A finer grouping inside the domain.")
@click.option("--raw", is_flag=True,
              help="ACE off: store TEXT verbatim, with no extraction, no dedup and NO "
                   "secret sanitizing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def add_cmd(state: State, text: str, tags: tuple[str, ...], scope: str, kind: str,
            domain: str | None, topic: str | None, raw: bool, as_json: bool) -> None:
    """Remember TEXT (use - to read it from standard input). Prints the new id."""
    from .. import ace
    from ..manage import build

    repo = state.repo()
    content = read_text_arg(text)
    raw = not ace.ace_enabled(repo, raw)
    mem = build(content, kind=kind, scope=repo.normalize_scope(scope), tags=tags,
                domain=domain, topic=topic, raw=raw)
    [result] = ace.write(repo, [mem], raw=raw)
    if as_json:
        emit_json({"action": result.action, "memory": memory_json(result.memory),
                   "path": str(result.path)})
    else:
        click.echo(result.memory.id)
