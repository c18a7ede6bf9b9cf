from __future__ import annotations

import sys
from typing import Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json, one_line, short_ids


@click.command("review")
@click.argument("ids", nargs=-1, metavar="[ID...]")
@click.option("--base", metavar="REV", help="List every memory that differs from REV (e.g. "
              "origin/main), staged or committed, instead of the unstaged ones only.")
@click.option("--accept", is_flag=True, help="Stage the memories ID... "
              "(or all with --all): reviewed; commit them as usual.")
@click.option("--reject", is_flag=True, help="Remove the memories ID... "
              "(or all with --all); a changed one goes back to its committed version. A copy "
              "is kept in .memx/local/rejected/.")
@click.option("--edit", "edit_", is_flag=True, help="Open each memory ID... in "
              "$VISUAL / $EDITOR, then stage it.")
@click.option("--all", "everything", is_flag=True, help="Apply --accept, --reject or --edit to "
              "every memory listed.")
@click.option("--json", "as_json", is_flag=True, help="Print the list (or what was done) as "
              "JSON.")
@click.pass_obj
def review_cmd(state: State, ids: tuple[str, ...], base: str | None, accept: bool,
               reject: bool, edit_: bool, everything: bool, as_json: bool) -> None:
    """Review what memx learned by itself before it is trusted: the memory files that hooks,
    memx ingest, memx run and agents wrote and that nobody has staged yet, each with its
    provenance (rule, score, source commit, transcript or command, who proposed it).
    Your own memx add and memx import are yours already: they are counted, not listed
    (commit them with git add .memx); with --base, every memory that differs is listed.

    Without an action, on a terminal, it asks about each one: accept (stage), edit,
    reject (remove), skip. Elsewhere it lists them. A convention learned from a transcript
    is shown with a policy suggestion; it never becomes a policy by itself.

    With ace.context.reviewed_only set, memx context and the MCP server leave memories
    that are still pending review out.
    """
    from memx_cli.operations import review

    # One action: as options sharing a name, the last one given won without a word
    # (`--accept ... --reject` removed what was meant to be staged).
    actions = [name for name, on in (("accept", accept), ("reject", reject), ("edit", edit_))
               if on]
    if len(actions) > 1:
        raise click.UsageError("choose one of --accept, --reject and --edit, not "
                               + " and ".join(f"--{a}" for a in actions))
    action = actions[0] if actions else None
    repo = state.repo()
    named = found = review.pending(repo, base)  # an id may name one of your own
    own = 0
    if base is None:
        own = sum(p.own for p in found)
        found = [p for p in found if not p.own]
    if action is None:
        if ids or everything:
            raise click.UsageError("say what to do with them: --accept, --reject or --edit")
        short = short_ids(repo, [p.memory.id for p in found])
        if as_json or not sys.stdin.isatty():
            _list(found, base, as_json, short, own)
            return
        _interactive(state, found, short, own)
        return
    if bool(ids) == everything:
        raise click.UsageError(f"name the memories to {action} (ID...) or pass --all")
    chosen = list(found) if everything else review.select(named, ids)
    if action == "edit":
        for item in chosen:
            _edit(state, item)
    elif action == "accept":
        review.accept(repo, chosen)
    else:
        review.reject(repo, chosen)
    done = {"edit": "Edited and staged", "accept": "Accepted (staged)", "reject": "Rejected"}
    if as_json:
        emit_json({"action": action, "ids": [p.memory.id for p in chosen]})
        return
    click.echo(f"{done[action]} {len(chosen)} memor{'y' if len(chosen) == 1 else 'ies'}")
    short = short_ids(repo, [p.memory.id for p in chosen])
    for item in chosen:
        click.echo(f"  {short[item.memory.id]}  {one_line(item.memory.content, 70)}")


def _own_note(own: int) -> str:
    """The line that counts the person's own unstaged memories, which review skips."""
    one = own == 1
    return (f"{own} memor{'y' if one else 'ies'} you added or imported {'is' if one else 'are'}"
            " not staged either: yours, not reviewed here (git add .memx, then commit)")


def _list(found: list[Any], base: str | None, as_json: bool, short: dict[str, str],
          own: int) -> None:
    if as_json:
        emit_json({"base": base, "pending": [p.as_dict() for p in found], "own_unstaged": own})
        return
    if not found:
        click.echo("Nothing to review" + (f" against {base}" if base else ""))
        if own:
            click.echo(_own_note(own))
        return
    one = len(found) == 1
    what = (f"differ{'s' if one else ''} from {base}" if base
            else f"{'is' if one else 'are'} not staged yet")
    # "learned" only when memx wrote them all (a memory added by hand has no rule)
    learned = "learned " if all(item.rule for item in found) else ""
    click.echo(f"{len(found)} {learned}memor{'y' if one else 'ies'} {what}:")
    for item in found:
        click.echo(_block(item, short))
    if own:
        click.echo("\n" + _own_note(own))


def _block(item: Any, short: dict[str, str]) -> str:
    mem = item.memory
    score = f"score {mem.instructivity}" if mem.instructivity is not None else "no score"
    head = (f"\n  {short[mem.id]}  {item.state:<9} {item.rule or mem.kind:<12} {score}  "
            f"from {item.origin}  proposed by {item.proposer}")
    lines = [head, f"    {one_line(mem.content, 200)}"]
    if "policy-suggestion" in mem.tags:
        lines.append("    suggestion: a team rule; to make every agent follow it, accept it "
                     "and run: memx policy add \"<rule>\"")
    return "\n".join(lines)


def _interactive(state: State, found: list[Any], short: dict[str, str], own: int) -> None:
    from memx_cli.operations import review

    repo = state.repo()
    if not found:
        click.echo("Nothing to review")
        if own:
            click.echo(_own_note(own))
        return
    counts = {"accepted": 0, "edited": 0, "rejected": 0, "skipped": 0}
    for number, item in enumerate(found, 1):
        click.echo(f"[{number}/{len(found)}]" + _block(item, short))
        answer = click.prompt("  [a]ccept, [e]dit, [r]eject, [s]kip, [q]uit",
                              type=click.Choice(["a", "e", "r", "s", "q"]), default="s",
                              show_choices=False)
        if answer == "q":
            break
        if answer == "a":
            review.accept(repo, [item])
            counts["accepted"] += 1
        elif answer == "e":
            _edit(state, item)
            counts["edited"] += 1
        elif answer == "r":
            review.reject(repo, [item])
            counts["rejected"] += 1
        else:
            counts["skipped"] += 1
    click.echo(", ".join(f"{n} {k}" for k, n in counts.items()))
    if own:
        click.echo(_own_note(own))


def _edit(state: State, item: Any) -> None:
    """The memory in the editor (validated and masked as `memx edit` does), then staged."""
    from memx_cli.cli.edit import edit_in_editor
    from memx_cli.operations import review

    edit_in_editor(state.memx(), item.memory.id)
    review.accept(state.repo(), [item])
