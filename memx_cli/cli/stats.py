from __future__ import annotations

from typing import Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json, one_line, warn_problems


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {n}" for name, n in counts.items()) or "-"


@click.command("stats")
@click.option("--json", "as_json", is_flag=True, help='Print {"stats": {...}} as JSON.')
@click.pass_obj
def stats_cmd(state: State, as_json: bool) -> None:
    """Count memories by kind, scope, section and type; show the decay weight histogram,
    memories due for archiving, conflicts, harmful-heavy memories and the most recalled."""
    stats = state.memx().stats()
    warn_problems(stats.problems)
    harmful = [{"id": m.id, "helpful": m.feedback.get("helpful", 0),
                "harmful": m.feedback.get("harmful", 0), "content": m.content}
               for m in stats.harmful]
    top = [{"id": r.memory.id, "recalls": r.count, "last_recall": r.last,
            "content": r.memory.content} for r in stats.top_recalled]
    if as_json:
        payload: dict[str, Any] = {
            "memories": stats.total, "archived": stats.archived, "by": stats.by,
            "weights": dict(stats.histogram), "due_for_archive": stats.due,
            "archive_threshold": stats.threshold, "conflicts": stats.conflicts,
            "superseded": stats.superseded, "harmful": harmful, "top_recalled": top,
        }
        emit_json({"stats": payload})
        return
    click.echo(f"Memories: {stats.total} (archived: {stats.archived})")
    for name, counts in stats.by.items():
        click.echo(f"  {name + ':':<13}{_counts(counts)}")
    click.echo("Decay weights:")
    widest = max((n for _, n in stats.histogram), default=0) or 1
    for label, n in reversed(stats.histogram):
        click.echo(f"  {label}  {'#' * round(20 * n / widest):<20} {n}")
    click.echo(f"  due for archive (below {stats.threshold:g}): {stats.due}")
    click.echo(f"Conflicts: {stats.conflicts} open, superseded: {stats.superseded}")
    if stats.harmful:
        click.echo("Harmful-heavy (ranked lower):")
        for mem in stats.harmful:
            click.echo(f"  {mem.id}  harmful {mem.feedback.get('harmful', 0)}, helpful "
                       f"{mem.feedback.get('helpful', 0)}  {one_line(mem.content, 50)}")
    if stats.top_recalled:
        click.echo("Most recalled:")
        for seen in stats.top_recalled:
            click.echo(f"  {seen.memory.id}  {seen.count} recalls  "
                       f"{one_line(seen.memory.content, 50)}")
