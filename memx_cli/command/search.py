"""``memx search``'s work and output, and its lean start without click (issue 29).

``run`` is the command's body: the click command (memx_cli/cli/search.py) calls it,
and so does ``lean``, which a cold ``memx search`` without the server takes
(memx_cli/executable.py): it reads the arguments of the usual invocations itself
and runs the same body with the same State, notices, error report and exit as the
click CLI (memx_cli/command/base.py), never importing click or the CLI package (10-20 ms of
a cold search's CPU, measured). Anything it does not read exactly as click would (help, ``-``
for standard input, an option it does not know, a repeated option, an option's
value that looks like an option or is not a number, ``--name=value``, ``--``) is
left to the full CLI: ``lean`` returns None before it has printed or done anything.
"""

from __future__ import annotations

from typing import Any

from memx_cli.command.base import (
    LINKS_SHOWN,
    Options,
    State,
    clean_args,
    echo,
    emit_json,
    link_marks,
    one_line,
    read_args,
    run_lean,
    terminal_width,
)

MODES = ("keyword", "semantic", "hybrid")
OPTIONS: Options = {
    "-n": ("limit", int), "--limit": ("limit", int),
    "--scope": ("scope", str),
    "--mode": ("mode", str),
    "--budget": ("budget", int),
    "--include-archived": ("include_archived", None),
    "--explain": ("explain", None),
    "--closest": ("closest", None),
    "--json": ("as_json", None),
}


def parse(args: list[str]) -> dict[str, Any] | None:
    """The keywords of ``run`` for ``memx search ARGS`` (after the command's name), or
    None when click's reading is needed to be sure (see the module's docstring)."""
    read = read_args(args, OPTIONS)
    if read is None or read[1].get("mode", "hybrid") not in MODES:
        return None
    query, found = read
    return {"query": query, "limit": None, "scope": None, "mode": "hybrid", "budget": None,
            "include_archived": False, "explain": False, "closest": False, "as_json": False,
            **found}


def lean(args: list[str]) -> int | None:
    """Run ``memx search ARGS`` in this process without click: its exit code, or None
    (nothing done) when the full CLI must read these arguments. Only for a process of
    its own (the ``memx`` executable): a success leaves through base.fast_exit."""
    args = clean_args(args)
    keywords = parse(args)
    return None if keywords is None else run_lean(args, run, keywords)


def run(state: State, query: str, limit: int | None, scope: str | None, mode: str,
        budget: int | None, include_archived: bool, explain: bool, closest: bool,
        as_json: bool) -> None:
    """Search memory for ``query`` (already read: never ``-``) and print the results."""
    from memx_cli.generator.candidates import voices
    from memx_cli.generator.shortids import short_ids
    from memx_cli.jsonout import search_json

    memx = state.memx()
    result = memx.search(query, mode=mode, limit=limit, scope=scope,
                         budget=budget, include_archived=include_archived, explain=explain,
                         closest=closest)
    searcher = memx.searcher
    for problem in result.problems:
        echo(f"memx: warning: {problem} (skipped)", err=True)
    if as_json:
        emit_json(search_json(result, explain))
        return
    if explain and result.when is not None:
        echo(f"dates: {result.when.describe()}")
    if explain and result.absent is not None:
        echo(f"absent: no memory names {result.absent!r}; meaning is no evidence of relevance")
    if not result.hits:  # --explain still says what it read in the query (above)
        if result.over_budget:
            echo(f"No result fits the token budget ({result.over_budget} skipped); "
                 "raise --budget.", err=True)
            return
        echo("No matching memories." if result.relevant else
             "Nothing relevant (--closest lists the closest memories anyway).", err=True)
        return
    width = terminal_width()
    shown = [h.id for h in result.hits]  # and the links printed beside them, as short
    for hit in result.hits:
        shown += (hit.doc.get("supersedes") or [])[:LINKS_SHOWN]
        shown += (hit.doc.get("conflicts_with") or [])[:LINKS_SHOWN]
        shown += [hit.doc["superseded_by"]] if hit.doc.get("superseded_by") else []
    short = short_ids(searcher, list(dict.fromkeys(shown)))
    for hit in result.hits:
        doc = hit.doc
        tags = f" [{', '.join(doc.get('tags', []))}]" if doc.get("tags") else ""
        marks = link_marks(doc.get("supersedes") or [], doc.get("superseded_by"),
                           doc.get("conflicts_with") or [], short)
        if hit.verification is not None:
            marks += f" ({hit.verification.status})"
        where = hit.store if hit.store.startswith("source:") else doc.get("scope", "project")
        echo(f"{short.get(hit.id, hit.id)}  {hit.score:.3f}  {where}{tags}{marks}")
        for line in doc["content"].splitlines()[:6]:
            echo("    " + one_line(line, width - 4))
        for check in hit.verification.checks if hit.verification is not None else ():
            if check.detail:
                echo(f"    anchor {check.where}: {check.status}, {check.detail}")
        if explain:
            lay, fac = hit.layers, hit.factors
            echo(
                f"    explain: exact {lay['exact']:.2f} + fuzzy {lay['fuzzy']:.2f} + metadata "
                f"{lay['metadata']:.2f} + context {lay['context']:.2f} -> keyword "
                f"{lay['norm_keyword']:.3f}; semantic {lay['semantic']:.3f}; blended "
                f"{lay['blended']:.3f}")
            echo(
                f"             x decay {fac['decay']:.3f} x recency {fac['recency']:.3f} x scope "
                f"{fac['scope']:.2f} x superseded {fac['superseded']:.2f}"
                + (f" x verification {fac['verification']:.2f}" if "verification" in fac else "")
                + (f" x date {fac['date']:.2f}" if "date" in fac else "")
                + (f" x question {fac['question']:.2f}" if "question" in fac else "")
                + (f" x symptom {fac['symptom']:.2f}" if "symptom" in fac else "")
                + (f" x feedback {fac['feedback']:.2f}" if fac.get("feedback", 1.0) != 1.0 else "")
                + f" = {hit.composite:.3f} (score {hit.score:.3f})")
            echo("    voices: " + _voices_line(voices(hit)))
            echo(f"    relevance {hit.relevance:.3f}: meaning "
                 f"{lay.get('meaning_relevance', 0.0):.3f}"
                 + (" (absent name)" if "subject_absent" in lay else "") + ", words "
                 f"{lay.get('word_share', 0.0):.3f}")


def _voices_line(said: dict[str, float | None]) -> str:
    def added(name: str) -> str:
        value = said[name]
        return f"{name} off" if value is None else f"{name} {value:.3f}"

    return (f"{added('keyword')} (role {said['role']:.3f}), {added('meaning')}, {added('e5')}, "
            f"{added('temporal')} "
            f"x{said['temporal_factor']:.2f}, {added('graph')}, feedback "
            f"x{said['feedback']:.2f}, decay x{said['decay']:.3f}")
