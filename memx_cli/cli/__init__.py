"""The ``memx`` command line: the only place that imports click.

Commands live one per module and are imported only when invoked, so ``memx --help``
and git hooks stay fast (SPEC 11). ``main`` is the single error boundary: library
errors become ``memx: error: <message>`` with the exit codes of SPEC 7.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memx_cli import __version__
from memx_cli.command.base import (
    State,
    aborted,
    clean_args,
    failed,
    fast_exit,
    served_lean,
    setup_logging,
    tolerant_streams,
    verbose_asked,
)
from memx_cli.errors import EXIT_USAGE, MemxError

if TYPE_CHECKING:
    from memx_cli.services import Services

# name -> (module, attribute, one-line help shown in `memx --help`)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "init": ("init", "init_cmd", "Create the .memx/ store in this repository."),
    "add": ("add", "add_cmd", "Remember a fact or a policy."),
    "ingest": ("ingest", "ingest_cmd", "Learn from a transcript, CI log or text (Reflector)."),
    "run": ("run", "run_cmd", "Run a command, pass it through, learn from failures/repeats."),
    "search": ("search", "search_cmd", "Search memory (keyword, semantic or hybrid)."),
    "show": ("show", "show_cmd", "Show one memory."),
    "list": ("list_", "list_cmd", "List memories, with filters."),
    "edit": ("edit", "edit_cmd", "Edit a memory in $EDITOR (validated on save)."),
    "rm": ("rm", "rm_cmd", "Delete memories (alias: forget)."),
    "forget": ("rm", "rm_cmd", "Delete memories (alias of rm)."),
    "validate": ("validate", "validate_cmd", "Check every memory file; exit 1 on problems."),
    "reindex": ("reindex", "reindex_cmd", "Bring the search indexes up to date."),
    "import": ("transfer", "import_cmd", "Import memories from JSON, JSONL, Markdown or agent instruction files."),
    "export": ("transfer", "export_cmd", "Export memories as JSON, JSONL or Markdown, or into AGENTS.md, CLAUDE.md or Cursor rules."),
    "config": ("config", "config_group", "Read and change configuration."),
    "doctor": ("doctor", "doctor_cmd", "Report versions, store, index and hook state."),
    "conflicts": ("conflicts", "conflicts_cmd", "List recorded and detected conflicts."),
    "resolve": ("conflicts", "resolve_cmd", "Settle a conflict: keep, supersede or dismiss."),
    "sweep": ("sweep", "sweep_cmd", "Archive memories the forgetting curve let go."),
    "restore": ("sweep", "restore_cmd", "Bring an archived memory back."),
    "stats": ("stats", "stats_cmd", "Counts, decay weights, conflicts, top recalled."),
    "feedback": ("feedback", "feedback_cmd", "Vote a memory helpful or harmful."),
    "anchor": ("anchor", "anchor_cmd", "Anchor a memory to a file or lines of the repository."),
    "verify": ("verify", "verify_cmd", "Check anchored memories against the code; --fix one."),
    "diff": ("diff", "diff_cmd", "What a commit range does to memory (for PR review)."),
    "review": ("review", "review_cmd", "Accept, edit or reject what memx learned by itself."),
    "source": ("source", "source_group", "Subscribe to shared memory repositories."),
    "hooks": ("hooks", "hooks_group", "Install, remove or inspect memx's git hooks."),
    "hook-impl": ("hooks", "hook_impl_cmd", "What the git hook shims run (hidden)."),
    "merge-file": ("merge_file", "merge_file_cmd", "What git's memx merge driver runs (hidden)."),
    "context": ("context", "context_cmd", "Print the memory preamble for an agent's task."),
    "notes": ("notes", "notes_cmd", "Show or change an agent's private working notes."),
    "policy": ("policy", "policy_group", "Add, list and deactivate policies."),
    "remember": ("remember", "remember_cmd", "Keep a session item for later consolidation."),
    "consolidate": ("remember", "consolidate_cmd",
                    "Promote recurring session items; merge duplicate facts."),
    "mcp": ("mcp", "mcp_cmd", "Serve memory to agents over MCP (stdio)."),
    "server": ("server", "server_group", "Start, stop or inspect the per-user memx server."),
    "setup": ("setup", "setup_cmd", "Register memx with a coding agent (MCP server, hooks)."),
    "agent-hook": ("setup", "agent_hook_cmd", "What an agent's lifecycle hook runs (hidden)."),
}
# Resolved by name but left out of `memx --help` and docs/cli.md.
HIDDEN = frozenset({"hook-impl", "agent-hook", "merge-file"})


# click 8.2+ raises this for a group given no command (8.1 printed the help, exit 0)
_NO_ARGS = getattr(click.exceptions, "NoArgsIsHelpError", ())


class _Unread(Exception):
    """A broken pipe carried past click's main, which would end it with exit 1 whatever
    broke; ``main`` hands the pipe's error to ``failed`` (a reader gone: exit 0)."""


@contextlib.contextmanager
def _pipe_carried() -> Iterator[None]:
    try:
        yield
    except BrokenPipeError as exc:
        raise _Unread() from exc


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with _pipe_carried():  # (--help is written while the context is made)
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with _pipe_carried():
            return super().invoke(ctx)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in COMMANDS if name not in HIDDEN]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module_name, attr, _ = COMMANDS[cmd_name]
        module = importlib.import_module(f"{__name__}.{module_name}")
        command: click.Command = getattr(module, attr)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-C", "directory", metavar="PATH", help="Run as if memx was started in PATH.")
@click.option("-v", "--verbose", is_flag=True, help="Show tracebacks and debug notices.")
@click.version_option(__version__, "-V", "--version", prog_name="memx")
@click.pass_context
def cli(ctx: click.Context, directory: str | None, verbose: bool) -> None:
    """memx: long-term memory for coding agents and developers, kept in git.

    Memories are small YAML files under .memx/ in your repository, reviewed in pull
    requests like code. Start with `memx init`, then `memx add "..."` and `memx search`.
    """
    if directory is not None and not Path(directory).is_dir():
        raise MemxError(f"-C {directory}: no such directory")
    # ctx.obj arrives holding what ``main`` was given to lend (its ``services``)
    ctx.obj = State(directory, verbose, ctx.obj)
    setup_logging(verbose)


def entry() -> None:
    """The ``memx`` and ``git-memx`` executables: ``main`` in a process of its own, which
    therefore may skip the interpreter's shutdown once a command has succeeded."""
    from memx_cli.embed import one_blas_thread

    one_blas_thread()
    try:
        main()
    except SystemExit as exc:
        if exc.code in (0, None):
            fast_exit()
        raise


def main(argv: list[str] | None = None, services: Services | None = None) -> None:
    """The one error boundary (SPEC 7); returns only by SystemExit. ``services``: a
    host's warm parts for the command (the memx server's), else None."""
    args = clean_args(sys.argv[1:] if argv is None else argv)
    verbose = verbose_asked(args)
    tolerant_streams()
    if services is not None:  # the memx server: its usual commands without click
        code = served_lean(args, services)
        if code is not None:
            sys.exit(code)
    try:
        code = cli.main(args=args, prog_name="memx", standalone_mode=False, obj=services)
    except click.exceptions.Abort as exc:
        # click turns Ctrl-C into Abort: still an interrupt (130), not a declined prompt
        code = aborted(exc.__cause__ or exc.__context__)
    except click.exceptions.ClickException as exc:
        if isinstance(exc, _NO_ARGS):
            # `memx`, `memx config` with nothing after it (click 8.2+): the help, as
            # click shows it (stderr, exit 2), not the whole help as an error's message
            exc.show()
        else:
            if isinstance(exc, click.exceptions.UsageError) and exc.ctx is not None:
                click.echo(exc.ctx.get_usage(), err=True)
            click.echo(f"memx: error: {exc.format_message()}", err=True)
        code = EXIT_USAGE if isinstance(exc, click.exceptions.UsageError) else exc.exit_code
    except BaseException as exc:
        if isinstance(exc, (SystemExit, GeneratorExit)):
            raise
        code = failed((exc.__cause__ or exc) if isinstance(exc, _Unread) else exc, verbose)
    sys.exit(code if isinstance(code, int) else 0)
