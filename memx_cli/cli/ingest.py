from __future__ import annotations

import os
import sys
from typing import IO, Any

import click

from memx_cli.cli import State
from memx_cli.cli._output import counted, emit_json, one_line, short_ids
from memx_cli.cli._paths import StartPath
from memx_cli.jsonout import ingest_json


def _open(path: str) -> tuple[IO[bytes], str, int | None]:
    if path == "-":
        return sys.stdin.buffer, "<stdin>", None
    from memx_cli.errors import MemxError

    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        raise MemxError(f"cannot read {path or repr(path)}: {exc.strerror}") from None
    try:
        size = os.fstat(handle.fileno()).st_size
    except OSError:
        size = None
    return handle, path, size


@click.command("ingest")
@click.argument("file", metavar="[FILE|-]", required=False,
                type=StartPath(allow_dash=True))
@click.option("--git-log", "git_log", is_flag=False, flag_value="HEAD", default=None,
              metavar="[RANGE]", help="Learn from the repository's history instead of a file: "
              "every commit of RANGE (default HEAD, e.g. v1.0..main) not ingested before, "
              "through the commit rules; merge commits, bots and routine commits (releases, "
              "bumps, pins, formatting) teach nothing.")
@click.option("--format", "fmt", type=click.Choice(["auto", "text", "json", "jsonl"]),
              default="auto", show_default=True,
              help="text and logs; JSON: [{role, content}] or {messages: [...]}; JSONL: one "
                   "record per line (OpenAI-style messages, Claude Code or Codex session files).")
@click.option("--source", type=click.Choice(["ci", "transcript", "manual"]),
              help="What the input is; recorded in each memory's source. Default: transcript "
                   "for JSON/JSONL, ci for a GitHub Actions log (gh run view --log or a job "
                   "log, also quoted in a report), manual for other text. ci reads a log's "
                   "failures with their diagnosis.")
@click.option("--session", metavar="ID", help="Transcript session id (default: the one in the "
              "file). Ingesting a session again stores only what is new.")
@click.option("--dry-run", is_flag=True, help="Print the candidates (rule, score, section, type, "
              "sanitized text) and write nothing.")
@click.option("--all", "show_all", is_flag=True, help="With --git-log: also list every "
              "candidate that was dropped, with why (--json always includes them).")
@click.option("--budget", type=click.IntRange(min=0), default=None, metavar="N",
              help="With --git-log: keep at most N memories per 1,000 commits, those of "
                   "the highest lesson value, and never fewer than 5 (default 60; 0: no "
                   "limit).")
@click.option("--stats", "show_stats", is_flag=True, help="Also report what was read, rule "
              "candidates, LLM calls made and tokens sent.")
@click.option("--raw", is_flag=True, help="ACE off: store the whole input verbatim as one "
              "memory, with no extraction, no dedup and NO secret sanitizing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def ingest_cmd(state: State, file: str | None, git_log: str | None, fmt: str,
               source: str | None, session: str | None, dry_run: bool, show_all: bool,
               budget: int | None, show_stats: bool, raw: bool,
               as_json: bool) -> None:
    """Learn from FILE (- for standard input): a chat transcript, a CI or command log, or
    plain text. The Reflector finds errors and their fixes, what finally worked after
    failed attempts, configuration changes, new tools and repeated chores, keeps what
    scores at least ace.reflector.min_score, masks secrets and stores one short memory
    each. Large logs are streamed. ace.reflector.mode hybrid or llm asks a configured
    model too, and falls back to rules if it fails.

    With ACE off (--raw or ace.enabled: false) the whole input is stored verbatim as one
    memory: no extraction, no dedup, no secret sanitizing.

    With --git-log the input is the repository's own history: each commit gives what the
    post-commit hook would have learned (fixes with their cause, rules stated in a
    subject, reverts and reasons, settings whose change the message explains, new
    dependencies, CI workflows added, named by what they run, a note or warning the
    commit writes into its docs), or else a title that
    states a behaviour, with the body's first sentences or the changelog entry the
    commit adds (no fix, test, docs or chore commit, unless its body says what the
    platform or a library does), at most one memory a commit, dated by the commit, scored by its lesson
    value (a why about a named thing above a title that restates the change). A
    series of commits on one subject is one memory, and at most --budget memories per
    1,000 commits are kept. A summary by kind ends the output; --all lists the dropped
    candidates and why. Running it again stores nothing new. On a terminal a
    progress line counts the commits on standard error (MEMX_PROGRESS=1 shows it
    anyway, 0 hides it).
    """
    from memx_cli.operations.reflect import ingest

    if file is not None and git_log is not None:
        raise click.UsageError(f"--git-log reads the repository's history, not {file}: give "
                               "FILE or --git-log, not both")
    if file is None and git_log is None:
        raise click.UsageError("give FILE (or - for standard input), or --git-log [RANGE]")
    # an option the other input has no use for would be ignored without a word
    if git_log is not None:
        _refuse_unused({"--format": fmt != "auto", "--source": source, "--session": session,
                        "--stats": show_stats, "--raw": raw}, "a FILE, not --git-log")
    else:
        _refuse_unused({"--all": show_all, "--budget": budget is not None},
                       "--git-log, not a FILE")
    repo = state.repo()
    if git_log is not None:
        from memx_cli.cli.ingest_git import git_log_cmd

        git_log_cmd(repo, git_log, dry_run, as_json, show_all, budget)
        return
    assert file is not None
    stream, name, size = _open(file)
    bar: Any = None
    if size and size > 4 << 20 and sys.stderr.isatty() and not as_json:
        bar = click.progressbar(length=size, label="Reading", file=sys.stderr)
    try:
        if bar is not None:
            bar.__enter__()
        outcome = ingest(repo, stream, fmt=fmt, source=source, name=name, session=session,
                         dry_run=dry_run, raw=raw, progress=bar.update if bar else None)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
        if stream is not sys.stdin.buffer:
            stream.close()
    if as_json:
        emit_json(ingest_json(outcome, dry_run))
        return
    _print(repo, outcome, dry_run, show_stats)


def _refuse_unused(given: dict[str, Any], meant: str) -> None:
    names = [name for name, value in given.items() if value]
    if names:
        listed = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        raise click.UsageError(f"{listed} {'is' if len(names) == 1 else 'are'} for {meant}")


def _print(repo: Any, outcome: Any, dry_run: bool, show_stats: bool) -> None:
    stats = outcome.stats
    unit = {"json": "message", "jsonl": "message", "ci-log": "step"}.get(outcome.format, "block")
    read = counted(stats.records, unit)
    if outcome.format == "raw":
        verb = "Would store" if dry_run else "Stored"
        click.echo(f"{verb} the input as one memory (ACE off: not sanitized)")
        for result in outcome.results:
            click.echo(result.memory.id)
        return
    if not outcome.items and not stats.records:
        click.echo(f"Nothing to remember: no message among {counted(stats.skipped, 'record')}"
                   if stats.skipped else "Nothing to remember: the input is empty")
    elif not outcome.items:
        seen = f" ({outcome.already_seen} already ingested)" if outcome.already_seen else ""
        click.echo(f"Nothing to remember in {read}{seen}")
    elif dry_run:
        click.echo(f"Dry run: {counted(len(outcome.items), 'candidate')} from {read}; "
                   "nothing written")
        for item in outcome.items:
            click.echo(f"\n{item.rule}  score {item.score}  {item.section}/{item.type}  "
                       f"[{', '.join(item.tools)}]")
            click.echo(f"  {item.content}")
    else:
        # a duplicate (skipped) or a merge counts a mention: nothing new was stored
        known = sum(r.action in ("skipped", "merged into") for r in outcome.results)
        click.echo(f"Stored {counted(len(outcome.results) - known, 'memory', 'memories')} from {read}"
                   + (f", {known} already present" if known else ""))
        width = 100
        short = short_ids(repo, [result.memory.id for result in outcome.results])
        for item, result in zip(outcome.items, outcome.results):
            click.echo(f"  {short[result.memory.id]}  {result.message:<10} {item.rule:<12} "
                       f"{item.section}/{item.type} {item.score:>3}  "
                       f"{one_line(item.content, width - 50)}")
    if show_stats:
        click.echo(f"\ninput: {outcome.format}, {read} read, {counted(stats.skipped, 'record')} skipped, "
                   f"~{stats.input_tokens} tokens")
        click.echo(f"rules: {counted(stats.candidates, 'candidate')}, {stats.kept} kept, "
                   f"{stats.below_min} below min_score")
        if stats.mode == "rules":
            click.echo("llm: not used (ace.reflector.mode is rules)")
        else:
            click.echo(f"llm: mode {stats.mode}, {stats.llm_calls} calls, "
                       f"{stats.llm_tokens} tokens sent")
        if stats.fallback:
            click.echo(f"llm: fell back to rules: {stats.fallback}")
