from __future__ import annotations

from typing import TYPE_CHECKING

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json, one_line
from memx_cli.cli._review import attention_lines
from memx_cli.jsonout import diff_json

if TYPE_CHECKING:
    from memx_cli.operations.diff import MemoryDiff
    from memx_cli.store.memory import Memory

WIDTH = 1000  # memories are a paragraph (reflector.max_content_length: 500): show them whole
TITLES = {"added": "Added", "changed": "Changed", "superseded": "Superseded",
          "archived": "Archived", "restored": "Restored", "deleted": "Deleted",
          "conflicts": "New conflicts", "problems": "Problems"}


@click.command("diff")
@click.argument("revisions", required=False, metavar="[A..B | A...B | A]")
@click.option("--staged", "--cached", "staged", is_flag=True,
              help="Compare the index (what the next commit holds) with HEAD.")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]),
              default="text", show_default=True, help="Markdown reads well as a PR comment.")
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
@click.pass_obj
def diff_cmd(state: State, revisions: str | None, staged: bool, fmt: str,
             as_json: bool) -> None:
    """What a range of commits does to memory: memories added, changed (with a content
    diff), superseded, archived, restored or deleted, and conflicts recorded for the
    first time. On top, what needs attention: policies added, changed or removed (they
    are pushed into every agent's prompt), changes to .memx/access.yaml and
    .memx/config.yaml, stale anchors and secrets the pre-commit check would block.

    A..B compares two revisions; A...B compares B with where it forked from A (what a
    pull request shows: `memx diff origin/main...HEAD`); A alone compares A with the
    work tree. Without arguments: uncommitted memory changes, new files included (what
    the post-commit hook left for review); --staged: what is staged.
    """
    from memx_cli.operations.attention import review

    if as_json and fmt not in ("text", "json"):
        raise click.UsageError(f"--json and --format {fmt} ask for two outputs: give one")
    fmt = "json" if as_json else fmt
    repo = state.repo(initialized=False)
    result = review(repo, revisions, staged)
    if fmt == "json":
        emit_json({"diff": diff_json(result)})
    else:
        click.echo(render(result, markdown=fmt == "markdown"), nl=False)


def _summary(result: MemoryDiff) -> str:
    parts = []
    for name, count in result.counts().items():
        if count:
            label = TITLES[name].lower().replace("new conflicts", "new conflict")
            if name == "conflicts" and count != 1:
                label += "s"
            if name == "problems":
                label = "problem" if count == 1 else "problems"
            parts.append(f"{count} {label}")
    return ", ".join(parts)


def _origin(mem: Memory) -> str:
    source = mem.source or {}
    kind = source.get("type", "manual")
    if kind == "commit" and source.get("sha"):
        return f"from commit {str(source['sha'])[:7]}"
    return f"from {kind}"


def _lines(result: MemoryDiff, name: str, short: dict[str, str], md: bool) -> list[str]:
    def sid(memory_id: str) -> str:
        shown = short.get(memory_id, memory_id[:12])
        return f"`{shown}`" if md else shown

    def text(memory_id: str) -> str:
        return one_line(result.contents.get(memory_id, "(not in this range)"), WIDTH)

    bullet = "-" if md else " "
    out: list[str] = []
    for item in getattr(result, name):
        if name == "changed":
            out.append(f"{bullet} {sid(item.after.id)} changed {', '.join(item.fields)}: "
                       f"{text(item.after.id)}")
            diff_lines = item.content_diff
            if diff_lines:
                out += ["  ```diff", *(f"  {d}" for d in diff_lines), "  ```"] if md else [
                    f"      {d}" for d in diff_lines]
        elif name == "superseded":
            out.append(f"{bullet} {sid(item.id)} superseded by {sid(item.superseded_by)}: "
                       f"{text(item.id)}")
        elif name == "conflicts":
            a, b = item
            out.append(f"{bullet} {sid(a)} conflicts with {sid(b)}")
            out += [f"  {bullet} {sid(i)}: {text(i)}" for i in (a, b)]
        elif name == "problems":
            out.append(f"{bullet} {item}")
        else:
            scope = f"{item.section}, " if item.section else ""
            out.append(f"{bullet} {sid(item.id)} {text(item.id)} ({scope}{_origin(item)})")
    return out


def render(result: MemoryDiff, markdown: bool) -> str:
    from memx_cli.store.ids import abbreviate

    if result.empty:
        return f"memx: no memory changes in {result.label}\n"
    ids = set(result.contents) | {i for pair in result.conflicts for i in pair}
    if result.attention is not None:
        ids |= {p.memory.id for p in result.attention.policies}
        ids |= {a.memory.id for a in result.attention.anchors}
    ids |= {m.superseded_by for m in result.superseded if m.superseded_by}
    short = abbreviate(ids)
    summary = _summary(result) or "no memory added, changed or removed"
    if markdown:
        out = [f"### memx: memory changes in {result.label}", "", summary]
    else:
        out = [f"memx: memory changes in {result.label}: {summary}"]
    if result.attention is not None:
        out += attention_lines(result.attention, short, markdown)
    for name in result.SECTIONS:
        count = len(getattr(result, name))
        if count:
            title = f"{TITLES[name]} ({count})"
            out += ["", f"**{title}**", ""] if markdown else ["", title]
            out += _lines(result, name, short, markdown)
    return "\n".join(out) + "\n"
