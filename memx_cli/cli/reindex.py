from __future__ import annotations

import sys
from typing import Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import counted, emit_json


@click.command("reindex")
@click.option("--full", is_flag=True, help="Rebuild from scratch instead of updating.")
@click.option("--json", "as_json", is_flag=True, help="Print what was done as JSON.")
@click.pass_obj
def reindex_cmd(state: State, full: bool, as_json: bool) -> None:
    """Bring the search indexes up to date with the memory files.

    Every search does this by itself for what changed; run it to rebuild after an
    upgrade or to pay the cost up front. It also folds recent vector changes into the
    main vector file once there are a few hundred. Shows progress on a terminal.
    A memory file that does not parse is left out with a warning, as search does
    (--json lists it under "problems"), and counted as neither added nor changed; once
    mended, it is added.
    """
    from memx_cli.index import StoreIndex

    repo = state.repo()
    spec = repo.config["embedding.model"]
    summary: dict[str, dict[str, Any]] = {}
    for index in (StoreIndex(store, spec) for store in repo.stores()):
        bar = None
        if sys.stderr.isatty() and not as_json:
            bar = click.progressbar(length=max(len(index.store.files()) + len(
                index.store.files(archived=True)), 1), label=f"indexing {index.store.label}",
                file=sys.stderr)
        def progress(done: int, total: int, bar: object = bar, last: list[int] = [0]) -> None:  # noqa: B006 (one list per loop turn: the default is made with the function)
            if bar is not None:
                bar.update(done - last[0])  # type: ignore[attr-defined]
                last[0] = done

        report = index.sync(full=full, progress=progress)
        if report.vectors:
            index.compact()  # the vector delta folded into the main file (issue 15)
        if bar is not None:
            bar.render_finish()
        summary[index.store.label] = {
            "added": report.added, "changed": report.changed, "removed": report.removed,
            "rebuilt": report.rebuilt or full, "vectors": report.vectors,
            "documents": index.lexical.num_docs() if index.manifest() else 0,
            "problems": report.problems,
        }
        for problem in report.problems:  # as search says it: the file is left out
            click.echo(f"memx: warning: {problem} (skipped)", err=True)
    if as_json:
        emit_json({"reindex": summary})
        return
    for label, s in summary.items():
        vectors = "with vectors" if s["vectors"] else "keyword only (no embedding model)"
        click.echo(f"{label}: {counted(s['documents'], 'memory', 'memories')} indexed ({s['added']} added, "
                   f"{s['changed']} changed, {s['removed']} removed), {vectors}")
