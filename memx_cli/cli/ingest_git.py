"""``memx ingest --git-log [RANGE]``: output of a history ingest (the command is ingest.py)."""

from __future__ import annotations

from typing import Any

import click

from memx_cli.cli._output import counted, emit_json_rows, one_line


def git_log_cmd(repo: Any, rev_range: str, dry_run: bool, as_json: bool,
                show_all: bool = False, budget: int | None = None) -> None:
    from memx_cli.cli._progress import ProgressLine
    from memx_cli.operations.gitlog import ingest_git_log

    line = ProgressLine(enabled=False if as_json else None)

    def progress(done: int, total: int) -> None:
        line("reflecting on commits", done, total)

    try:
        outcome = ingest_git_log(repo.require_store(), rev_range, dry_run=dry_run,
                                 progress=progress, budget=budget)
    finally:
        line.close()
    if as_json:  # the dropped candidates, as many as the history has, a row at a time
        emit_json_rows({"dry_run": dry_run, "range": rev_range, **outcome.as_dict(),
                        "candidates": [{"sha": sha, "rule": item.rule, "score": item.score,
                                        "section": item.section, "type": item.type,
                                        "content": item.content}
                                       for sha, item in outcome.items],
                        "dropped": [],
                        "stored": [{"id": r.memory.id, "action": r.message,
                                    "path": str(r.path)} for r in outcome.results]},
                       "dropped", ({"sha": d.sha, "rule": d.rule, "score": d.score,
                                    "reason": d.reason, "content": d.content}
                                   for d in outcome.dropped))
        return
    skipped = (f"{outcome.merges} merges, {outcome.bots} by bots, {outcome.already} already "
               "ingested")
    if outcome.unreadable:  # objects missing from the repository: read without the diff
        skipped += (f"; {counted(outcome.unreadable, 'commit')} read without "
                    f"{'its' if outcome.unreadable == 1 else 'their'} diff: objects missing")
    verb = "Would store" if dry_run else "Stored"
    count = len(outcome.items) if dry_run else len(outcome.results)
    click.echo(f"{verb} {counted(count, 'memory', 'memories')} from "
               f"{counted(outcome.reflected, 'commit')} ({skipped})")
    shown = outcome.items if dry_run else [(s, i) for (s, i), _ in
                                           zip(outcome.items, outcome.results)]
    for sha, item in shown:
        click.echo(f"  {sha[:10]}  {item.rule:<12} {item.score:>3}  "
                   f"{one_line(item.content, 70)}")
    if show_all and outcome.dropped:
        click.echo(f"Dropped {counted(len(outcome.dropped), 'candidate')}:")
        for dropped in outcome.dropped:
            click.echo(f"  {dropped.sha[:10]}  {dropped.rule:<12} {dropped.reason}: "
                       f"{one_line(dropped.content, 60)}")
    kinds = ", ".join(f"{n} {kind}" for kind, n in outcome.by_kind().items())
    per = 1000 * len(outcome.items) / outcome.reflected if outcome.reflected else 0.0
    click.echo(f"By kind: {kinds or 'none'} ({per:.0f} per 1,000 commits reflected; "
               f"{counted(len(outcome.dropped), 'candidate')} dropped)")
