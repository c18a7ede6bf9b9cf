from __future__ import annotations

from typing import Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import counted, emit_json


def _source_json(source: Any, memories: int | None, approved: bool) -> dict[str, Any]:
    return {"name": source.name, "url": source.url, "ref": source.ref,
            "domains": list(source.domains), "weight": source.weight,
            "commit": source.commit, "memories": memories, "approved": approved}


@click.group("source")
def source_group() -> None:
    """Shared memory repositories: read-only stores searched with this one's.

    A source is any git repository with a memx store (a team's or an organisation's
    memory; a local path works too). The subscription is recorded in .memx/config.yaml
    and the exact commit in .memx/sources.lock (commit both); the memories are fetched
    into your cache, never committed here. A source someone else added (a pulled
    .memx/config.yaml) is fetched and read only once you approve it: memx source
    approve NAME. Search, `memx context` and the MCP server
    include them, each result naming its source; their policies are pushed like local
    ones, marked with their origin. See docs/git.md.
    """


@source_group.command("add")
@click.argument("name")
@click.argument("url")
@click.option("--ref", help="Branch, tag or commit to follow (default: the source's HEAD).")
@click.option("--domain", "domains", multiple=True, metavar="DOMAIN",
              help="Only the source's memories of this domain (repeatable).")
@click.option("--weight", type=float, default=1.0, show_default=True,
              help="Multiplies the score of the source's memories in search.")
@click.pass_obj
def add_cmd(state: State, name: str, url: str, ref: str | None, domains: tuple[str, ...],
            weight: float) -> None:
    """Subscribe to the memory repository at URL under NAME, fetch it and pin its commit."""
    from memx_cli.operations.sources import add

    result = add(state.repo(), name, url, ref, domains, weight)
    click.echo(f"Added source {name}: {counted(result.memories, 'memory', 'memories')} at {str(result.new)[:12]} "
               "(commit .memx/config.yaml and .memx/sources.lock)")


@source_group.command("update")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click.pass_obj
def update_cmd(state: State, names: tuple[str, ...]) -> None:
    """Fetch every source (or the named ones) and pin the commit its ref names now.

    A source that cannot be fetched (offline, gone) keeps its pinned commit and is
    reported; that is not an error.
    """
    from memx_cli.operations.sources import update

    for item in update(state.repo(), names):
        name = item.source.name
        if item.problem:
            click.echo(f"memx: warning: {item.problem} (kept {str(item.old)[:12]})", err=True)
        elif item.old == item.new:
            click.echo(f"{name}: up to date at {str(item.new)[:12]} ({counted(item.memories, 'memory', 'memories')})")
        else:
            before = str(item.old)[:12] if item.old else "nothing"
            click.echo(f"{name}: {before} -> {str(item.new)[:12]} ({counted(item.memories, 'memory', 'memories')})")


@source_group.command("list")
@click.option("--json", "as_json", is_flag=True, help='Print {"sources": [...]} as JSON.')
@click.pass_obj
def list_cmd(state: State, as_json: bool) -> None:
    """The subscribed sources, their pinned commit and how many memories they hold."""
    from memx_cli.operations.sources import listing

    rows = listing(state.repo())
    if as_json:
        emit_json({"sources": [_source_json(s, n, ok) for s, n, ok in rows]})
        return
    if not rows:
        click.echo("No sources; add one with memx source add NAME URL.")
    for source, count, approved in rows:
        pinned = str(source.commit)[:12] if source.commit else "not fetched"
        held = "not in the cache" if count is None else counted(count, "memory", "memories")
        extra = f", ref {source.ref}" if source.ref else ""
        extra += f", domains {', '.join(source.domains)}" if source.domains else ""
        extra += f", weight {source.weight:g}" if source.weight != 1.0 else ""
        extra += "" if approved else f"; not approved: memx source approve {source.name}"
        click.echo(f"{source.name}  {source.url}  {pinned} ({held}{extra})")


@source_group.command("approve")
@click.argument("names", nargs=-1, required=True, metavar="NAME...")
@click.pass_obj
def approve_cmd(state: State, names: tuple[str, ...]) -> None:
    """Let memx fetch and read source NAME from the URL the configuration names now.

    .memx/config.yaml arrives by git pull: a source someone else added is never fetched
    (not by the git hooks either) until you approve it here, in a list of your own
    ($XDG_CONFIG_HOME/memx/approved-sources). Check the URL first; a changed URL needs
    approving again. memx source add approves what you type.
    """
    from memx_cli.operations.sources import approve
    from memx_cli.privacy import mask

    for source, new in approve(state.repo(), names):
        done = "Approved" if new else "Already approved"
        click.echo(f"{done} source {source.name}: {mask(source.location)} "
                   f"(memx source update {source.name} fetches it)")


@source_group.command("remove")
@click.argument("name")
@click.pass_obj
def remove_cmd(state: State, name: str) -> None:
    """Unsubscribe from source NAME (its cached copy stays for other repositories)."""
    from memx_cli.operations.sources import remove

    remove(state.repo(), name)
    click.echo(f"Removed source {name}")
