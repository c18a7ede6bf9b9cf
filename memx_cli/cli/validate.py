from __future__ import annotations

from pathlib import Path

import click

from memx_cli.cli import State
from memx_cli.cli._output import emit_json
from memx_cli.cli._paths import StartPath


@click.command("validate")
@click.argument("files", nargs=-1, type=StartPath(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help='Print {"problems": [...]} as JSON.')
@click.pass_obj
def validate_cmd(state: State, files: tuple[Path, ...], as_json: bool) -> None:
    """Check memory files: YAML syntax, schema version, field types, unknown keys,
    merge-conflict markers, duplicate ids, links to memories that do not exist
    (supersedes, superseded_by, conflicts_with), and the configuration files.

    With FILES, check only those (what a pre-commit hook passes). Prints one
    `file:line: problem` per problem and exits 1 if there is any; a folder of the
    store that is a symbolic link is such a problem.
    """
    from memx_cli.errors import CheckFailedError
    from memx_cli.operations.validate import validate

    repo = state.repo(initialized=False)  # validate says what is wrong with the store
    report = validate(repo, [p.absolute() for p in files] or None)
    if as_json:
        emit_json({
            "checked": report.checked,
            "problems": [{"file": p.path, "line": p.line, "message": p.message}
                         for p in report.problems],
        })
    else:
        for problem in report.problems:
            click.echo(str(problem))
    if not report.ok:
        raise CheckFailedError(
            f"{len(report.problems)} problem(s) in {report.checked} file(s) checked"
        )
    if not as_json:
        click.echo(f"{report.checked} memory file(s) OK")
