"""The "needs attention" block at the top of ``memx diff`` (issue 17): text, Markdown
(a pull-request comment) and JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memx_cli.cli._output import one_line

if TYPE_CHECKING:
    from memx_cli.operations.attention import Attention

WIDTH = 1000  # memories are a paragraph: show them whole
PUSHED = {"added": "pushed into every agent's prompt", "changed": "pushed into every agent's "
          "prompt", "removed": "no longer pushed to agents"}


def attention_lines(attention: Attention, short: dict[str, str], md: bool) -> list[str]:
    """The block's lines (with a leading blank line); none when nothing needs attention."""
    if not attention.count() and not attention.notes:
        return []

    def sid(memory_id: str) -> str:
        shown = short.get(memory_id, memory_id[:12])
        return f"`{shown}`" if md else shown

    def strong(text: str) -> str:
        return f"**{text}**" if md else text

    def block(lines: tuple[str, ...], kind: str) -> list[str]:
        if not lines:
            return []
        if md:
            return [f"  ```{kind}", *(f"  {d}" for d in lines), "  ```"]
        return [f"      {d}" for d in lines]

    bullet = "-" if md else "  !"
    out: list[str] = []
    for p in attention.policies:
        what = {"added": "New policy", "changed": "Changed policy",
                "removed": "Removed policy"}[p.action]
        how = f"{p.how}; " if p.how else ""
        out.append(f"{bullet} {strong(what)} ({how}{PUSHED[p.action]}): {sid(p.memory.id)} "
                   f"{one_line(p.memory.content, WIDTH)}")
        out += block(p.diff, "diff")
    for s in attention.settings:
        out.append(f"{bullet} {strong(s.what.capitalize() + ' ' + s.status)}: {s.path}")
        out += block(s.diff, "diff")
    for a in attention.anchors:
        what = "Stale anchor" if a.status == "stale" else "Anchored file gone"
        out.append(f"{bullet} {strong(what)} ({', '.join(a.where)}): {sid(a.memory.id)} "
                   f"{one_line(a.memory.content, WIDTH)}")
    for problem in attention.secrets:
        out.append(f"{bullet} {strong('Secret')}: {problem}")
    for note in attention.notes:
        out.append(f"{bullet} {note}" if md else f"  ({note})")
    title = f"Needs attention ({attention.count()})"
    return ["", f"**{title}**", "", *out] if md else ["", title, *out]
