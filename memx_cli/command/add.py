"""``memx add``'s work and output, and its lean start without click (issue 29).

``run`` is the command's body: the click command (memx_cli/cli/add.py) calls it, and so
does ``lean``, which a cold ``memx add`` without the server takes (memx_cli/executable.py),
as a cold ``memx search`` does (memx_cli/command/search.py): the usual arguments read
without click or the CLI package (~15 ms of a cold add's CPU, measured), the same
body, notices, errors and exit. Whatever ``read_args`` is not sure of (help, ``-`` for
standard input, an unknown option, ``--kind`` other than fact or policy, ...) is left
to the full CLI before anything is done.
"""

from __future__ import annotations

from typing import Any

from memx_cli.command.base import Options, State, clean_args, echo, emit_json, read_args, run_lean

KINDS = ("fact", "policy")
OPTIONS: Options = {
    "--tag": ("tags", str),
    "--scope": ("scope", str),
    "--kind": ("kind", str),
    "--domain": ("domain", str),
    "--topic": ("topic", str),
    "--anchor": ("anchor_specs", str),
    "--raw": ("raw", None),
    "--json": ("as_json", None),
}
REPEATABLE = frozenset({"tags", "anchor_specs"})


def parse(args: list[str]) -> dict[str, Any] | None:
    """The keywords of ``run`` for ``memx add ARGS`` (after the command's name), or None
    when click's reading is needed to be sure."""
    read = read_args(args, OPTIONS, REPEATABLE)
    if read is None or read[1].get("kind", "fact") not in KINDS:
        return None
    text, found = read
    return {"text": text, "tags": (), "scope": "project", "kind": "fact", "domain": None,
            "topic": None, "anchor_specs": (), "raw": False, "as_json": False, **found}


def lean(args: list[str]) -> int | None:
    """Run ``memx add ARGS`` in this process without click: its exit code, or None
    (nothing done) when the full CLI must read these arguments."""
    args = clean_args(args)
    keywords = parse(args)
    return None if keywords is None else run_lean(args, run, keywords)


def run(state: State, text: str, tags: tuple[str, ...], scope: str, kind: str,
        domain: str | None, topic: str | None, anchor_specs: tuple[str, ...], raw: bool,
        as_json: bool) -> None:
    """Remember ``text`` (already read: never ``-``) and print what became of it."""
    from memx_cli.privacy import new_kinds

    result = state.memx().add(text, kind=kind, domain=domain, topic=topic, tags=tags,
                              scope=scope, anchors=anchor_specs, cwd=state.cwd, raw=raw)
    # as `memx edit` does: say which kinds the privacy gate took out (never the values),
    # from the labels given as well as the text
    stored = result.memory
    masked = ([] if result.action in ("skipped", "merged into")  # an older memory's text
              else new_kinds("\n".join((text, *tags, domain or "", topic or "")),
                             "\n".join((stored.content, *stored.tags, stored.domain or "",
                                        stored.topic or ""))))
    if masked:
        echo(f"memx: masked {len(masked)} secret{'s' if len(masked) > 1 else ''}: "
             f"{', '.join(sorted(set(masked)))}", err=True)
    if as_json:
        from memx_cli.jsonout import write_json  # and the search's shapes: only for --json

        emit_json(write_json(result))
    else:
        echo(result.memory.id)
        if result.action != "added":
            echo(result.message, err=True)
