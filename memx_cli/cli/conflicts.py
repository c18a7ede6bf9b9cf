from __future__ import annotations

from typing import Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import counted, emit_json, one_line, warn_problems

SHOWN = 20  # pairs printed in full; past them, a count per cause (--all prints every one)


@click.command("conflicts")
@click.option("--no-scan", is_flag=True, help="Only list the conflicts recorded in the files.")
@click.option("--all", "show_all", is_flag=True,
              help=f"Print every pair in full (by default the first {SHOWN}, then a count "
                   "per cause).")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"conflicts": [{"older", "newer", "similarity", "why", "recorded", '
                   '"suggestion"}]}.')
@click.pass_obj
def conflicts_cmd(state: State, no_scan: bool, show_all: bool, as_json: bool) -> None:
    """List conflicting memories: the conflicts recorded when they were written, then
    contradictions nobody recorded yet, found among similar memories.

    Each pair shows its similarity, why the two contradict and how to settle it with
    `memx resolve`. Of the two, the newer is the version changed last: for the two
    versions a merge kept of one memory edited on both sides, the later edit; for a
    conflict recorded when a memory was written, that memory. Pairs are printed as they are found, with progress on a terminal
    (memories searched, pairs found): the memories are searched for similar ones in id
    order, and a pair comes with the first of its two memories whose search finds the
    other (--json lists them in the same order). Past the first 20, the rest are counted
    by cause (the setting or value they disagree on), so one cause that produced
    thousands of pairs is one line. A count closes the list.
    """
    from memx_cli.cli._progress import ProgressLine
    from memx_cli.curator.review import cause

    progress = ProgressLine(enabled=False if as_json else None)
    so_far = [0]  # pairs found: the progress line counts them (past the first 20 they are
    # not printed until the end)

    def report(phase: str, done: int, total: int) -> None:
        progress(phase, done, total, f", {counted(so_far[0], 'conflict')} found")

    problems, found = state.memx().iter_conflicts(scan=not no_scan, progress=report)
    warn_problems(problems)
    if as_json:
        from memx_cli.jsonout import conflict_json

        emit_json({"conflicts": [conflict_json(p) for p in found]})
        return
    shown = recorded = 0
    rest: dict[str, int] = {}
    try:
        for pair in found:
            so_far[0] += 1
            recorded += pair.recorded
            if show_all or shown < SHOWN:
                progress.close()
                _print_pair(pair)
                shown += 1
            else:
                rest[cause(pair)] = rest.get(cause(pair), 0) + 1
    finally:
        progress.close()
    total = shown + sum(rest.values())
    if not total:
        click.echo("No conflicts.")
        return
    if rest:
        click.echo(f"... and {counted(sum(rest.values()), 'more pair')}, by cause "
                   "(memx conflicts --all prints every one):")
        for why, count in sorted(rest.items(), key=lambda kv: (-kv[1], kv[0])):
            click.echo(f"  {count:>6}  {why}")
    click.echo(f"{counted(total, 'conflict')} ({recorded} recorded, {total - recorded} "
               "detected)")


def _print_pair(pair: Any) -> None:
    sim = "" if pair.similarity is None else f", similarity {pair.similarity:.2f}"
    status = "recorded" if pair.recorded else "detected"
    click.echo(f"{pair.older.id} <> {pair.newer.id}  ({status}{sim})")
    click.echo(f"  older: {one_line(pair.older.content, 70)}")
    click.echo(f"  newer: {one_line(pair.newer.content, 70)}")
    click.echo(f"  why:   {pair.why}")
    click.echo(f"  fix:   {pair.suggestion}")


@click.command("resolve")
@click.argument("memory_id", metavar="[ID]", required=False)
@click.option("--keep", metavar="A", help="Keep memory A; the other side of the conflict is "
              "superseded by it (with --keep ID: every memory ID conflicts with).")
@click.option("--supersede", metavar="OLD", help="Mark OLD as superseded ...")
@click.option("--by", metavar="NEW", help="... by NEW.")
@click.option("--not-conflict", is_flag=True, help="The memories do not contradict: remove "
              "the conflict and stop reporting the pair.")
@click.option("--with", "other", metavar="B", help="With --not-conflict: only the pair ID, B "
              "(default: every conflict of ID).")
@click.option("--json", "as_json", is_flag=True, help="Print what changed as JSON.")
@click.pass_obj
def resolve_cmd(state: State, memory_id: str | None, keep: str | None, supersede: str | None,
                by: str | None, not_conflict: bool, other: str | None, as_json: bool) -> None:
    """Settle a conflict of memory ID: keep one side, supersede one memory by another, or
    mark the pair as not a conflict.

    Superseding never deletes: the old file stays with superseded_by, the new one lists it
    in supersedes. Marks made with --not-conflict are kept in .memx/local/ (this clone).
    """
    result = state.memx().resolve(memory_id, keep=keep, supersede=supersede, by=by,
                                  not_conflict=not_conflict, other=other)
    if as_json:
        emit_json({"resolved": {"action": result.action,
                                "pairs": [list(p) for p in result.pairs],
                                "changed": [m.id for m in result.memories]}})
        return
    for first, second in result.pairs:
        if result.action == "supersedes":
            click.echo(f"{first} supersedes {second}")
        else:
            click.echo(f"{first} and {second}: not a conflict")
