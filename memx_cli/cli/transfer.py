from __future__ import annotations

import sys
from typing import Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import counted, emit_json
from memx_cli.cli._paths import StartPath


@click.command("import")
@click.argument("paths", metavar="FILE...", nargs=-1, required=True,
                type=StartPath(exists=True, allow_dash=True))
@click.option("--raw", is_flag=True, help="ACE off: store contents verbatim, with no "
              "extraction, no dedup and NO secret sanitizing.")
@click.option("--dry-run", is_flag=True, help="Markdown: show how the files split into "
              "policies and facts; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def import_cmd(state: State, paths: tuple[str, ...], raw: bool, dry_run: bool,
               as_json: bool) -> None:
    """Import memories from FILE (- for standard input): a JSON array of objects, an
    object {"memories": [...]}, or JSONL (one object per line). Or from Markdown files
    and folders of them: agent instruction files (CLAUDE.md, AGENTS.md, .cursor/rules,
    .github/copilot-instructions.md, .windsurf/rules, a memory-bank/) or any notes.

    Markdown: each top-level bullet, paragraph, table or code block becomes one policy
    (an imperative or must/never rule) or fact, its domain the heading above it, its
    source the file and line. Importing an unchanged file again changes nothing. The
    block `memx export` manages in an instruction file is not imported (those memories
    are in the store), and memx's own Markdown export is read back as memories (id,
    kind, domain, tags and content kept), like JSON.

    Each object needs "content"; "tags", "source", "created_at", "kind", "scope",
    "domain", "topic", "veracity", "tools", "entities", "section", "type" and "id" are
    optional. "source" is kept verbatim. Every record is checked before anything is
    written; a record whose id already exists is skipped. Without --raw each record goes
    through the curator like `memx add`: duplicates are merged, contradictions recorded.

    On a terminal a progress line counts the records on stderr. Up to ten decisions other
    than "added" are listed; more are summarised per kind with a few examples (-v lists
    every one).
    """
    from pathlib import Path

    from memx_cli.cli._progress import ProgressLine
    from memx_cli.operations.transfer import is_instructions, is_markdown_export
    from memx_cli.operations.write import ace_enabled

    exported = len(paths) == 1 and paths[0] != "-" and is_markdown_export(Path(paths[0]))
    if not exported and all(p != "-" and is_instructions(Path(p)) for p in paths):
        from memx_cli.cli.instructions import import_markdown

        import_markdown(state, [Path(p) for p in paths], raw, dry_run, as_json)
        return
    if len(paths) > 1 or dry_run:
        raise click.UsageError("JSON/JSONL and memx's Markdown export: import one file at a "
                               "time, without --dry-run (Markdown notes and folders can be "
                               "combined)")
    memx = state.memx()
    progress = ProgressLine(enabled=False if as_json else None)
    try:
        with click.open_file(paths[0], "rb") as file:
            results, skipped = memx.import_records(file, raw=not ace_enabled(memx.repo, raw),
                                                   progress=progress)
    finally:
        progress.close()
    # New files: added, or added with a supersede / conflict link to an existing memory.
    written = [r for r in results if r.action not in ("merged into", "skipped")]
    if as_json:
        emit_json({"imported": [r.memory.id for r in written], "skipped": skipped,
                   "results": [{"id": r.memory.id, "action": r.action, "other": r.other,
                                "message": r.message} for r in results]})
        return
    more = f", {skipped} already present" if skipped else ""
    folded = len(results) - len(written)
    more += f", {folded} folded into existing memories" if folded else ""
    click.echo(f"Imported {counted(len(written), 'memory', 'memories')}{more}")
    for line in _decisions(results, state.verbose):
        click.echo(line)


EXAMPLES = 3  # decisions shown of each kind when there are too many to list
LIST_ALL_UP_TO = 10
KINDS = (("conflicts with", "recorded as conflicting with an existing memory"),
         ("supersedes", "superseding an existing memory"),
         ("merged into", "merged into an existing memory"),
         ("skipped", "skipped as duplicates"))


def _decisions(results: list[Any], verbose: bool) -> list[str]:
    """Every decision other than "added" when there are few (or with -v); else a count
    per kind with a few examples and how to see the rest."""
    from memx_cli.cli._output import one_line

    notable = [r for r in results if r.action != "added"]
    if verbose or len(notable) <= LIST_ALL_UP_TO:
        return [f"  {r.message}: {one_line(r.memory.content, 60)}" for r in notable]
    lines = []
    for action, words in KINDS:
        group = [r for r in notable if r.action == action]
        if not group:
            continue
        lines.append(f"  {len(group)} {words}, for example:")
        lines += [f"    {r.message}: {one_line(r.memory.content, 60)}"
                  for r in group[:EXAMPLES]]
    hint = "memx conflicts lists the conflicts; " if any(
        r.action == "conflicts with" for r in notable) else ""
    lines.append(f"  ({hint}memx -v import ... lists every decision)")
    return lines


@click.command("export")
@click.option("--format", "fmt", type=click.Choice(["json", "jsonl", "markdown", "agents-md",
                                                   "claude-md", "cursor-rules"]),
              default="json", show_default=True, help="Output format.")
@click.option("--include-archived", is_flag=True, help="Also export archived memories.")
@click.option("--output", type=click.Path(dir_okay=False), help="agents-md, claude-md, "
              "cursor-rules: the file to write (default AGENTS.md, CLAUDE.md, "
              ".cursor/rules/memx.mdc); missing folders are made only inside the "
              "repository.")
@click.option("--max-chars", type=click.IntRange(500, 200_000), default=6000,
              show_default=True, help="agents-md, claude-md, cursor-rules: size of the block.")
@click.pass_obj
def export_cmd(state: State, fmt: str, include_archived: bool, output: str | None,
               max_chars: int) -> None:
    """Write every memory this repository sees to standard output.

    JSON is {"memories": [...]}; `memx import` reads all three machine formats back.
    They are written in UTF-8, whatever encoding the output declares.

    agents-md, claude-md and cursor-rules (for agents without MCP) instead write the
    active policies and the best facts into a block between `<!-- memx:begin -->` and
    `<!-- memx:end -->` markers in AGENTS.md, CLAUDE.md or .cursor/rules/memx.mdc,
    leaving the rest of the file as it is; running it again changes nothing.
    """
    if output == "":  # a variable left empty, not the default file
        raise click.BadParameter("empty path; name the file to write, or leave --output out "
                                 "for the default", param_hint="--output")
    if fmt in ("agents-md", "claude-md", "cursor-rules"):
        from memx_cli.operations.agents_file import export_block

        memx = state.memx()
        guard = memx.guard() if memx.role is not None else None
        done = export_block(memx.repo, fmt, state.cwd / output if output else None, max_chars,
                            None if guard is None else lambda m: guard.can_read(m.domain))
        more = f", {done.left_out} left out for size" if done.left_out else ""
        verb = "Updated" if done.changed else "Up to date:"
        click.echo(f"{verb} {done.display} ({counted(done.policies, 'policy', 'policies')}, {counted(done.facts, 'fact')}, "
                   f"{done.chars} characters{more})")
        return
    if output is not None:
        raise click.UsageError(f"--output is for agents-md, claude-md and cursor-rules; for "
                               f"{fmt}, redirect standard output: memx export --format {fmt} "
                               f"> {output}")
    from memx_cli.cli._output import warn_problems
    from memx_cli.operations.transfer import export_text

    memories, problems = state.memx().export(include_archived)
    warn_problems(problems)
    # UTF-8 whatever the output's declared encoding: the file `memx import` reads back
    sys.stdout.flush()
    out = getattr(sys.stdout, "buffer", None)
    for chunk in export_text(memories, fmt):
        if out is None:
            sys.stdout.write(chunk)
        else:
            out.write(chunk.encode("utf-8"))
