from __future__ import annotations

from typing import Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json, one_line, terminal_width, warn_problems


@click.command("verify")
@click.option("--stale-only", is_flag=True, help="List only the stale memories.")
@click.option("--fix", "fix_id", metavar="ID",
              help="Re-anchor memory ID to where its passages are now (after code moved or a "
                   "file was renamed); says why when a passage cannot be found.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"counts", "memories": [...]} (or {"fixed", "failed"}) as JSON.')
@click.pass_obj
def verify_cmd(state: State, stale_only: bool, fix_id: str | None, as_json: bool) -> None:
    """Check every anchored memory against the work tree.

    Each memory is verified (its passages are where they were, or moved: then the
    new place is noted in .memx/local/), stale (a file is there but the passage changed
    or is gone) or unverifiable (a file is missing or outside the repository). Prints
    the counts and the memories, with what changed for the stale ones; exits 1 when
    any memory is stale. Memory files are only rewritten by --fix.
    """
    from memx_cli.anchors.verify import STALE, changes, verifier_for
    from memx_cli.errors import CheckFailedError

    memx = state.memx()
    repo = memx.repo
    short = _short_ids(repo)
    if fix_id is not None:
        _fix(memx.fix_anchors(fix_id), as_json, short)
        return
    report = memx.verify()
    warn_problems(report.problems)
    counts = report.counts()
    verifier = verifier_for(repo)
    shown = [c for c in report.checked if not stale_only or c.verification.status == STALE]
    if as_json:
        emit_json({"counts": counts, "memories": [
            {"id": c.memory.id, "store": c.store, "content": c.memory.content,
             "verification": _with_changes(c.verification.to_json(), c, verifier, changes)}
            for c in shown]})
    else:
        width = terminal_width()
        for item in shown:
            status = item.verification.status
            head = f"{short.get(item.memory.id, item.memory.id)}  {status:<12} "
            click.echo(head + one_line(item.memory.content, max(width - len(head), 20)))
            for check in item.verification.checks:
                if check.detail:
                    click.echo(f"    {check.where}: {check.status}, {check.detail}")
                if check.status == STALE:
                    for line in changes(verifier, check):
                        click.echo(f"      {line}")
        total = sum(counts.values())
        click.echo(f"{total} anchored memories: {counts['verified']} verified, "
                   f"{counts['stale']} stale, {counts['unverifiable']} unverifiable")
    if counts[STALE]:
        raise CheckFailedError(f"{counts[STALE]} stale memory(ies); see memx verify --stale-only, "
                               "then fix or edit them")


def _with_changes(data: dict[str, Any], item: Any, verifier: Any, changes: Any) -> dict[str, Any]:
    for entry, check in zip(data["anchors"], item.verification.checks, strict=True):
        if check.status == "stale":
            entry["changes"] = changes(verifier, check)
    return data


def _short_ids(repo: Any) -> dict[str, str]:
    from memx_cli.store.ids import abbreviate

    return abbreviate(p.stem for store in repo.stores() for p in store.files())


def _fix(result: Any, as_json: bool, short_ids: dict[str, str]) -> None:
    from memx_cli.anchors.anchor import label
    from memx_cli.errors import CheckFailedError

    short = short_ids.get(result.memory.id, result.memory.id)
    if as_json:
        emit_json({"id": result.memory.id,
                   "fixed": [{"was": old.to_dict(), "now": new.to_dict()}
                             for old, new in result.fixed],
                   "failed": [{"anchor": a.to_dict(), "reason": why} for a, why in result.failed]})
    else:
        for old, new in result.fixed:
            click.echo(f"{short}: re-anchored {label(old.path, old.start_line, old.end_line)} "
                       f"-> {label(new.path, new.start_line, new.end_line)}")
        for anchor, why in result.failed:
            where = label(anchor.path, anchor.start_line, anchor.end_line)
            click.echo(f"{short}: cannot fix {where}: {why}")
        if not result.fixed and not result.failed:
            click.echo(f"{short}: every anchor is where it was; nothing to fix")
    if result.failed:
        raise CheckFailedError(f"{len(result.failed)} anchor(s) of {short} could not be fixed")
