"""Regenerate docs/cli.md from the commands' own --help text.

    python scripts/gen_cli_docs.py          # rewrite docs/cli.md
    python scripts/gen_cli_docs.py --check  # exit 1 if docs/cli.md is out of date

tests/test_docs.py runs the check, so the page and `--help` cannot drift apart.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"

INTRO = """\
# memx command line

Generated from `--help` by `scripts/gen_cli_docs.py`; do not edit by hand.

Every command also runs as `git memx ...`. Global options come before the command:
`memx -C PATH -v COMMAND ...` (with -C, relative file arguments and `--output` are read
from PATH, as with `git -C`). Exit codes: 0 success, 1 a check failed, 2 bad usage or
bad input, 3 internal error, 4 a custom privacy pattern (`ace.reflector.custom_patterns`)
ran over its time budget, so nothing was stored; a reader that stops reading (`memx list
| head`) ends a command with 0. Listing and search commands take `--json` and print an object with a
top-level key (for example `{"memories": [...]}`), in \\u escapes where the output's
encoding cannot hold a character (text output writes such a character as an escape). On a
terminal, escape sequences and control characters in what memx prints (a memory, a file
name, a log line) show as U+FFFD instead of acting on the terminal.
"""


def _help(command: click.Command, path: list[str], parent: click.Context | None) -> str:
    ctx = click.Context(command, info_name=path[-1], parent=parent, terminal_width=88,
                        max_content_width=88)
    return command.get_help(ctx)


def render() -> str:
    from memx_cli.cli import cli

    root = click.Context(cli, info_name="memx", terminal_width=88, max_content_width=88,
                         **cli.context_settings)
    parts = [INTRO, "## memx\n\n```\n" + cli.get_help(root) + "\n```\n"]
    for name in cli.list_commands(root):
        command = cli.get_command(root, name)
        if command is None or name == "forget":  # an alias: documented under rm
            continue
        parts.append(f"## memx {name}\n\n```\n{_help(command, ['memx', name], root)}\n```\n")
        if isinstance(command, click.Group):
            sub_ctx = click.Context(command, info_name=name, parent=root)
            for sub in command.list_commands(sub_ctx):
                subcommand = command.get_command(sub_ctx, sub)
                assert subcommand is not None
                parts.append(f"### memx {name} {sub}\n\n```\n"
                             f"{_help(subcommand, ['memx', name, sub], sub_ctx)}\n```\n")
    return "\n".join(parts)


def main() -> int:
    text = render()
    if "--check" in sys.argv:
        if DOC.read_text(encoding="utf-8") != text:
            print("docs/cli.md is out of date: run python scripts/gen_cli_docs.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
