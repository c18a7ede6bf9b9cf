from __future__ import annotations

import codecs
import sys
from collections.abc import Callable
from typing import IO

import click

from memx_cli.cli import State
from memx_cli.cli._output import one_line, short_ids


def _sink(stream: IO[str]) -> Callable[[bytes], None]:
    """Write bytes through unchanged (to the binary buffer when the stream has one)."""
    raw = getattr(stream, "buffer", None)
    if raw is not None:
        def write(data: bytes) -> None:
            raw.write(data)
            raw.flush()
        return write
    decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def write_text(data: bytes) -> None:
        stream.write(decoder.decode(data))
        stream.flush()
    return write_text


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@click.command("run", context_settings={"ignore_unknown_options": True,
                                        "allow_interspersed_args": False})
@click.option("-q", "--quiet", is_flag=True, help="No note on standard error when a memory "
              "is stored.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED,
                metavar="-- COMMAND [ARGS]...")
@click.pass_obj
def run_cmd(state: State, quiet: bool, command: tuple[str, ...]) -> None:
    """Run COMMAND with its output and exit status passed through unchanged, then learn
    from it. Each run is recorded in .memx/local/ (per clone): when a command that failed
    later passes, memx stores what changed in between (files, commits, environment
    variables) as a RetrySuccess memory; a command run three times becomes a
    RepetitiveOp memory. Outside a memx repository the command still runs, unrecorded.
    On a terminal the command gets a terminal too (colours and columns as usual).
    """
    from memx_cli.errors import MemxError
    from memx_cli.operations.reflect import reflect_run
    from memx_cli.reflector.runs import execute

    out, err = _sink(sys.stdout), _sink(sys.stderr)
    tty = _is_terminal(sys.stdout) and _is_terminal(sys.stderr)
    record = execute(list(command), state.cwd, out, err, tty=tty)
    if record.launch_error:
        click.echo(f"memx run: {record.launch_error}", err=True)
    try:
        outcome = reflect_run(state.repo(), record, state.cwd)
    except MemxError as exc:
        click.echo(f"memx: warning: run not recorded: {exc}", err=True)
    else:
        if outcome.results and not quiet:
            short = short_ids(state.repo(), [r.memory.id for r in outcome.results])
        for item, result in zip(outcome.items, outcome.results):
            if not quiet:
                click.echo(f"memx: note: {result.message} {short[result.memory.id]} "
                           f"({item.rule}): {one_line(item.content, 80)}", err=True)
    click.get_current_context().exit(record.exit_code)
