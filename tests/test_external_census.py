"""The census of values from outside (issue 26), read from the code: every subprocess call
and every place a memory's one-line fields are written into an agent's preamble or an
export, each with the origin of what it is given. A new call fails here until it is
classified; a git argument list fails when a value that is not a literal comes before
the end of options (``--`` or ``--end-of-options``), where git could take it for one.

Origins:
- ``constant``: literals, memx's own executable or module, the current interpreter;
- ``own``: paths and revisions memx itself made (its cache, its worktree, git's output);
- ``user``: the user's own command line or environment (``memx run -- CMD``);
- ``checked``: read from a committed file, a transcript or a socket, and passed through
  ``memx_cli.external`` (or the memory file check) before it gets here;
- ``bound``: text bound to its option (``-e PATTERN``), which git never reads as one;
- ``wrapper``: a wrapper's ``["git", *args]``: its callers are each in the census.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "memx_cli"
ORIGINS = {"constant", "own", "user", "checked", "bound", "wrapper"}
# Modules of other processes' entry points: everything under these names is a subprocess.
_PROCESS_CALLS = {("subprocess", n) for n in ("run", "Popen", "call", "check_call",
                                              "check_output", "getoutput", "getstatusoutput")}
_PROCESS_CALLS |= {("os", n) for n in ("system", "popen", "execv", "execve", "execvp",
                                       "execvpe", "execl", "execle", "execlp", "execlpe",
                                       "spawnv", "spawnve", "spawnvp", "spawnvpe", "spawnl",
                                       "posix_spawn", "posix_spawnp")}
# memx's git wrappers: git.run / run_bytes / stream / run_bounded, and each module's _git
_GIT_WRAPPERS = {("git", "run"), ("git", "run_bytes"), ("git", "stream"),
                 ("git", "run_bounded")}
_GIT_LOCAL = {"run", "run_bytes", "stream", "run_bounded", "_git"}

# path::function::callee -> origin of the arguments
SUBPROCESS_CENSUS: dict[str, str] = {
    "memx_cli/agents/agent_hook.py::run::subprocess.Popen": "own",  # memx, its worktree
    "memx_cli/git.py::run::subprocess.run": "wrapper",
    "memx_cli/config.py::_tracked::git.run": "own",  # the config file's name, after --
    "memx_cli/git.py::run_bytes::subprocess.run": "wrapper",
    "memx_cli/git.py::stream::subprocess.Popen": "wrapper",
    "memx_cli/git.py::run_bounded::subprocess.Popen": "wrapper",
    "memx_cli/git.py::version::subprocess.run": "constant",
    "memx_cli/git.py::changed_paths::run": "checked",  # revisions: external.operand
    "memx_cli/git.py::commit_diff::run": "checked",
    "memx_cli/git.py::commit_files::run_bytes": "checked",
    "memx_cli/git.py::current_branch::run": "constant",
    "memx_cli/git.py::find_worktree::run": "constant",
    "memx_cli/git.py::git_dir::run": "constant",
    "memx_cli/git.py::grep::run": "bound",  # patterns from memories, each after -e
    "memx_cli/git.py::head_commit::run": "constant",
    "memx_cli/git.py::hooks_dir::run": "constant",
    "memx_cli/git.py::ls_files::run": "own",
    "memx_cli/git.py::merge_base::run": "checked",
    "memx_cli/git.py::merge_text::subprocess.run": "own",  # the temporary files git made
    "memx_cli/git.py::private_git_dir::run": "constant",
    "memx_cli/git.py::read_blobs::run_bytes": "own",  # specs on standard input
    "memx_cli/git.py::renames_since::run": "checked",  # an anchor's commit: is_operand
    "memx_cli/git.py::resolve_rev::run": "checked",
    "memx_cli/git.py::untracked::run": "own",
    "memx_cli/git.py::unmerged::run": "own",  # the store's folder, after --
    "memx_cli/operations/merge_driver.py::stage_copies::git.run": "own",  # the driver's copies
    "memx_cli/githooks/impl.py::_start_background::subprocess.Popen": "constant",
    "memx_cli/githooks/install.py::install::git.run": "constant",  # core.hooksPath asked
    # this interpreter, memx's own fold worker, the store root memx found (issue 29)
    "memx_cli/index/fold.py::request::subprocess.Popen": "own",
    "memx_cli/freshness/ahead.py::start::subprocess.Popen": "constant",
    "memx_cli/freshness/quick.py::_git::subprocess.run": "wrapper",
    "memx_cli/freshness/quick.py::_diff_files::_git": "constant",
    "memx_cli/freshness/quick.py::basis::_git": "constant",
    "memx_cli/operations/gitlog_read.py::_git::subprocess.Popen": "wrapper",
    "memx_cli/operations/gitlog_read.py::_patches::_git": "own",  # shas git listed, on stdin
    "memx_cli/operations/gitlog_read.py::_described_once::_git": "own",
    "memx_cli/operations/gitlog_read.py::_alone::_git": "own",  # a sha git listed
    # memx ingest --git-log RANGE, after --end-of-options (the history is streamed)
    "memx_cli/operations/gitlog_read.py::_rev_list::_git": "user",
    "memx_cli/operations/gitlog_read.py::count_merges::_git": "user",
    "memx_cli/operations/instructions.py::_walk::git.run_bytes": "own",
    "memx_cli/operations/review.py::_diff_index::git.run": "own",
    "memx_cli/operations/review.py::accept::git.run": "own",  # memx's review items
    "memx_cli/operations/review.py::reject::git.run": "own",
    "memx_cli/reflector/runs.py::_execute_tty::subprocess.Popen": "user",  # memx run -- CMD
    "memx_cli/reflector/runs.py::execute::subprocess.Popen": "user",
    "memx_cli/reflector/runs.py::changes::git.run": "own",  # HEADs git reported
    "memx_cli/reflector/runs.py::_committed::git.run": "own",  # a HEAD, paths git reported
    "memx_cli/reflector/runs.py::snapshot::git.run": "constant",
    "memx_cli/wire/control.py::spawn::subprocess.Popen": "constant",
    # this interpreter and a constant program; patterns and texts go on its standard input
    "memx_cli/privacy/runner.py::_child::subprocess.Popen": "constant",
    "memx_cli/store/sources.py::_git::git.run_bounded": "wrapper",
    "memx_cli/store/sources.py::fetch::_git": "checked",  # url, ref: external.operand
    "memx_cli/store/sources.py::materialize::git.stream": "checked",  # external.commit
}

# Memory fields of one line that reach an agent's preamble or an export, and where each is
# formatted into text -> how it is shaped there.
ONE_LINE_FIELDS = {"required_role", "domain", "topic", "tags"}
WRITER_CENSUS: dict[str, str] = {
    # the preamble: a role is shown only when it is one word
    "memx_cli/generator/context.py::policy_line::required_role": "external.is_word",
    # the AGENTS.md export
    "memx_cli/operations/agents_file.py::_line::domain": "external.one_line",
    # messages to the user, not to an agent: the file check (fields.LABEL_RE) keeps them
    # on one line
    "memx_cli/api.py::require_read::domain": "fields.LABEL_RE",
    "memx_cli/cli/_output.py::summary::tags": "fields.LABEL_RE",
    "memx_cli/cli/instructions.py::import_markdown::domain": "fields.LABEL_RE",
    # memx's Markdown export: "[domain]" on the item's head line, read back by import
    "memx_cli/operations/transfer.py::export_text::domain": "fields.LABEL_RE",
}


@dataclass(frozen=True)
class Site:
    key: str
    call: ast.Call
    path: Path
    literals: frozenset[str]  # module constants that are lists or tuples of literals


def _literal_constants(tree: ast.Module) -> frozenset[str]:
    names = set()
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Tuple))
                and all(isinstance(e, ast.Constant) for e in node.value.elts)):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return frozenset(names)


def _functions(tree: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node


def _callee(call: ast.Call) -> tuple[str, str] | None:
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id, func.attr
    if isinstance(func, ast.Name):
        return "", func.id
    return None


def _is_git_call(path: Path, callee: tuple[str, str]) -> bool:
    owner, name = callee
    if (owner, name) in _GIT_WRAPPERS:
        return True
    if owner == "" and name == "_git":
        return True
    return owner == "" and name in _GIT_LOCAL and path.name == "git.py"


@functools.cache
def _package() -> tuple[tuple[Path, ast.Module], ...]:
    return tuple((p, ast.parse(p.read_text(encoding="utf-8")))
                 for p in sorted(PACKAGE.rglob("*.py")))


def _trees(sources: Iterator[tuple[Path, str]] | None) -> Iterator[tuple[Path, ast.Module]]:
    if sources is None:
        yield from _package()
    else:
        yield from ((path, ast.parse(text)) for path, text in sources)


def sites(sources: Iterator[tuple[Path, str]] | None = None) -> Iterator[Site]:
    """Every subprocess call and git wrapper call in the package, with its function."""
    for path, tree in _trees(sources):
        literals = _literal_constants(tree)
        rel = path.relative_to(PACKAGE.parent).as_posix()
        seen: set[int] = set()
        for fname, fn in _functions(tree):
            for node in ast.walk(fn):
                if not isinstance(node, ast.Call) or id(node) in seen:
                    continue
                callee = _callee(node)
                if callee is None:
                    continue
                if callee in _PROCESS_CALLS or _is_git_call(path, callee):
                    seen.add(id(node))
                    name = ".".join(p for p in callee if p)
                    yield Site(f"{rel}::{fname}::{name}", node, path, literals)


def writer_sites(sources: Iterator[tuple[Path, str]] | None = None) -> Iterator[str]:
    """Every function that formats a one-line memory field into text."""
    for path, tree in _trees(sources):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        for fname, fn in _functions(tree):
            for node in ast.walk(fn):
                if not isinstance(node, ast.FormattedValue):
                    continue
                for sub in ast.walk(node.value):
                    if isinstance(sub, ast.Attribute) and sub.attr in ONE_LINE_FIELDS:
                        yield f"{rel}::{fname}::{sub.attr}"


def _argv(site: Site) -> ast.List | None:
    """The argument list literal of a call (the first list among its positional
    arguments), or None when it is built elsewhere."""
    for arg in site.call.args:
        if isinstance(arg, ast.List):
            return arg
    return None


def _loose_operands(argv: ast.List, literals: frozenset[str] = frozenset()) -> list[str]:
    """Values that are not literals before the end of options (git could read them as
    options); an option with its value glued on (``f"--format={x}"``) is fine, and so is
    a module constant of literals (``*DIFF``)."""
    loose = []
    for element in argv.elts:
        if (isinstance(element, ast.Starred) and isinstance(element.value, ast.Name)
                and element.value.id in literals):
            continue
        if isinstance(element, ast.Constant):
            if element.value in ("--", "--end-of-options"):
                return loose
            continue
        if isinstance(element, ast.JoinedStr) and element.values and isinstance(
                element.values[0], ast.Constant) and str(element.values[0].value).startswith("-"):
            continue
        loose.append(ast.unparse(element))
    return loose


def _is_git(site: Site) -> bool:
    argv = _argv(site)
    first = argv.elts[0] if argv is not None and argv.elts else None
    return not site.key.endswith(("subprocess.run", "subprocess.Popen")) or (
        isinstance(first, ast.Constant) and first.value == "git")


def test_every_subprocess_call_is_classified() -> None:
    found = {s.key for s in sites()}
    assert len(found) >= 40  # the enumeration sees the package
    unclassified = sorted(found - set(SUBPROCESS_CENSUS))
    assert unclassified == [], "classify the origin of each argument: " + ", ".join(unclassified)
    assert sorted(set(SUBPROCESS_CENSUS) - found) == []  # no stale entry
    assert set(SUBPROCESS_CENSUS.values()) <= ORIGINS


def test_checked_calls_sit_in_modules_that_check() -> None:
    for site in sites():
        if SUBPROCESS_CENSUS.get(site.key) == "checked":
            assert "external." in site.path.read_text(encoding="utf-8"), site.key


def test_every_git_argument_list_ends_options_before_values() -> None:
    loose = []
    for site in sites():
        argv = _argv(site)
        if argv is None or not _is_git(site) or SUBPROCESS_CENSUS.get(site.key) == "wrapper":
            continue
        loose += [f"{site.key}: {value}" for value in _loose_operands(argv, site.literals)]
    assert loose == []


def test_every_preamble_and_export_writer_is_classified() -> None:
    found = set(writer_sites())
    assert "memx_cli/generator/context.py::policy_line::required_role" in found
    assert sorted(found - set(WRITER_CENSUS)) == []
    assert sorted(set(WRITER_CENSUS) - found) == []


NEW_CODE = """
import subprocess
from memx_cli import git

def pin(repo, lock):
    git.run(["archive", lock["commit"], "--", ".memx"], cwd=repo)
    subprocess.run(["git", "fetch", lock["url"]])

def line(mem):
    return f"- {mem.required_role}"
"""


def test_a_new_call_is_caught_until_classified() -> None:
    source = [(PACKAGE / "store" / "newcode.py", NEW_CODE)]
    keys = {s.key for s in sites(iter(source))}
    assert keys == {"memx_cli/store/newcode.py::pin::git.run",
                    "memx_cli/store/newcode.py::pin::subprocess.run"}
    assert keys - set(SUBPROCESS_CENSUS) == keys
    loose = {v for s in sites(iter(source)) if _is_git(s) and (argv := _argv(s)) is not None
             for v in _loose_operands(argv)}
    assert loose == {"lock['commit']", "lock['url']"}
    assert set(writer_sites(iter(source))) == {"memx_cli/store/newcode.py::line::required_role"}
