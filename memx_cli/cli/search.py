from __future__ import annotations

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json, one_line, terminal_width
from memx_cli.jsonout import search_json


@click.command("search")
@click.argument("query")
@click.option("-n", "--limit", type=int, help="At most this many results (default: "
              "ace.retrieval.max_results, 5).")
@click.option("--scope", help="Search from this scope: project (default), global, workspace "
              "(the current branch) or workspace:NAME. A narrower scope also sees the wider "
              "ones; the current scope is boosted.")
@click.option("--mode", type=click.Choice(["keyword", "semantic", "hybrid"]), default="hybrid",
              show_default=True, help="keyword: full text only; semantic: full text and "
              "vectors fused by reciprocal rank; hybrid: the blended score.")
@click.option("--budget", type=int, help="Token budget of all results together (default: "
              "ace.retrieval.token_budget, 2000).")
@click.option("--include-archived", is_flag=True, help="Also search archived memories.")
@click.option("--explain", is_flag=True, help="Show every layer's score and every multiplier.")
@click.option("--closest", is_flag=True, help="List the closest memories even when none is "
              "relevant (by default memx then answers that nothing is).")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"query", "mode", "results": [...]} as JSON.')
@click.pass_obj
def search_cmd(state: State, query: str, limit: int | None, scope: str | None, mode: str,
               budget: int | None, include_archived: bool, explain: bool, closest: bool,
               as_json: bool) -> None:
    """Search memory for QUERY (use - to read it from standard input).

    Brings the search index up to date with the memory files first (only what changed).
    """
    from memx_cli.cli._output import link_marks, read_text_arg
    from memx_cli.generator.candidates import voices
    from memx_cli.generator.shortids import short_ids

    memx = state.memx()
    result = memx.search(read_text_arg(query), mode=mode, limit=limit, scope=scope,
                         budget=budget, include_archived=include_archived, explain=explain,
                         closest=closest)
    searcher = memx.searcher
    for problem in result.problems:
        click.echo(f"memx: warning: {problem} (skipped)", err=True)
    if as_json:
        emit_json(search_json(result, explain))
        return
    if not result.hits:
        if result.over_budget:
            click.echo(f"No result fits the token budget ({result.over_budget} skipped); "
                       "raise --budget.", err=True)
            return
        click.echo("No matching memories." if result.relevant else
                   "Nothing relevant (--closest lists the closest memories anyway).", err=True)
        return
    width = terminal_width()
    short = short_ids(searcher, [h.id for h in result.hits])
    if explain and result.when is not None:
        click.echo(f"dates: {result.when.describe()}")
    if explain and result.absent is not None:
        click.echo(f"absent: no memory names {result.absent!r}; meaning is no evidence "
                   "of relevance")
    for hit in result.hits:
        doc = hit.doc
        tags = f" [{', '.join(doc.get('tags', []))}]" if doc.get("tags") else ""
        marks = link_marks(doc.get("supersedes") or [], doc.get("superseded_by"),
                           doc.get("conflicts_with") or [], short)
        if hit.verification is not None:
            marks += f" ({hit.verification.status})"
        where = hit.store if hit.store.startswith("source:") else doc.get("scope", "project")
        click.echo(f"{short.get(hit.id, hit.id)}  {hit.score:.3f}  {where}{tags}{marks}")
        for line in doc["content"].splitlines()[:6]:
            click.echo("    " + one_line(line, width - 4))
        for check in hit.verification.checks if hit.verification is not None else ():
            if check.detail:
                click.echo(f"    anchor {check.where}: {check.status}, {check.detail}")
        if explain:
            lay, fac = hit.layers, hit.factors
            click.echo(
                f"    explain: exact {lay['exact']:.2f} + fuzzy {lay['fuzzy']:.2f} + metadata "
                f"{lay['metadata']:.2f} + context {lay['context']:.2f} -> keyword "
                f"{lay['norm_keyword']:.3f}; semantic {lay['semantic']:.3f}; blended "
                f"{lay['blended']:.3f}")
            click.echo(
                f"             x decay {fac['decay']:.3f} x recency {fac['recency']:.3f} x scope "
                f"{fac['scope']:.2f} x superseded {fac['superseded']:.2f}"
                + (f" x verification {fac['verification']:.2f}" if "verification" in fac else "")
                + (f" x date {fac['date']:.2f}" if "date" in fac else "")
                + (f" x question {fac['question']:.2f}" if "question" in fac else "")
                + (f" x feedback {fac['feedback']:.2f}" if fac.get("feedback", 1.0) != 1.0 else "")
                + f" = {hit.composite:.3f} (score {hit.score:.3f})")
            click.echo("    voices: " + _voices_line(voices(hit)))
            click.echo(f"    relevance {hit.relevance:.3f}: meaning "
                       f"{lay.get('meaning_relevance', 0.0):.3f}"
                       + (" (absent name)" if "subject_absent" in lay else "") + ", words "
                       f"{lay.get('word_share', 0.0):.3f}")


def _voices_line(said: dict[str, float | None]) -> str:
    def added(name: str) -> str:
        value = said[name]
        return f"{name} off" if value is None else f"{name} {value:.3f}"

    return (f"{added('keyword')}, {added('meaning')}, {added('e5')}, {added('temporal')} "
            f"x{said['temporal_factor']:.2f}, {added('graph')}, feedback "
            f"x{said['feedback']:.2f}, decay x{said['decay']:.3f}")
