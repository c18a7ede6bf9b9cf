from __future__ import annotations

import click

from memx_cli.cli import State


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
    """  # the body is memx_cli/command/search.py's, which a cold `memx search` runs without click
    from memx_cli.cli._output import read_text_arg
    from memx_cli.command.search import run

    run(state, read_text_arg(query), limit=limit, scope=scope, mode=mode, budget=budget,
        include_archived=include_archived, explain=explain, closest=closest, as_json=as_json)
