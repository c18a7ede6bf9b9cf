"""The package's shape, read from the source: imports only go down the floors (FLOORS),
no package imports itself back, no import cycles, click only in cli/, a small top level
(issues 11, 28)."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memx_cli"
# The base modules allowed beside the packages at the top of memx_cli/.
BASE_MODULES = {"__init__", "__main__", "api", "clock", "config", "doctor", "e5", "embed",
                "errors", "executable", "external", "fsutil", "git", "jsonout", "safeyaml",
                "services", "textproc", "wordpiece", "yamledit"}

# The floors of memx_cli, lowest first (issue 28; docs/architecture.md draws them). A module
# may import at run time from its own floor or any floor below, never from one above, and
# the packages of one floor must not import each other in a loop. Imports only for the type
# checker (under `if TYPE_CHECKING:`) do not count; imports inside functions do.
FLOORS: tuple[frozenset[str], ...] = tuple(frozenset(floor) for floor in (
    # base: no memx imports above it
    # (services: the protocols a host lends the library through, types only)
    {"__init__", "clock", "errors", "external", "fsutil", "git", "safeyaml", "services",
     "textproc", "yamledit"},
    {"privacy", "embed", "e5", "wordpiece"},  # text masking; the model
    {"config"},
    {"store"},  # memory files, access grants, working notes, recall counts
    {"freshness"},  # whether an index is current: file events, else its own check by time
    {"index", "reflector", "anchors"},  # derived caches; Reflector stages; source anchors
    {"curator", "decay"},
    {"operations", "generator"},  # one verb per module; retrieval
    {"api", "jsonout", "wire"},  # the facade, its JSON shapes, the server's wire format
    # front ends, doctor which inspects them, and the command line's parts without click
    {"githooks", "agents", "cli", "doctor", "command"},
    {"server"},  # the host: runs the CLI for forwarded commands
    {"executable", "__main__"},  # entry points: `memx`, `python -m memx_cli`
))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(path: Path, name: str, modules: set[str]) -> set[str]:
    """Every memx_cli module ``name`` imports at run time (module level or inside a
    function; imports only for the type checker do not count)."""
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = name.split(".") if is_pkg else name.split(".")[:-1]
                    parts = parts[: len(parts) - (child.level - 1)]
                    base = ".".join([*parts, base] if base else parts)
                found.add(base)
                found.update(f"{base}.{a.name}" for a in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    names = set(modules)
    graph = {}
    for name, path in modules.items():
        deps = _imports(path, name, names)
        # importing a.b.c runs a/__init__ and a/b/__init__ first
        for dep in list(deps):
            parts = dep.split(".")
            deps.update(".".join(parts[:i]) for i in range(2, len(parts)) if
                        ".".join(parts[:i]) in names)
        deps.discard(name)
        graph[name] = {d for d in deps if not name.startswith(d + ".")}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                return stack[stack.index(dep):] + [dep]
            if dep not in state:
                found = walk(dep)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = walk(node)
            if found:
                return found
    return None


def test_the_import_graph_has_no_cycle() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("name", sorted(_modules()))
def test_click_is_imported_only_in_cli(name: str) -> None:
    path = _modules()[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                for a in n.names}
    imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree)
                 if isinstance(n, ast.ImportFrom) and not n.level}
    if "click" in imported:
        # command.base hands click.echo what it does not write itself (an ANSI escape,
        # a stream click would wrap): the lean `memx search` imports click only then
        assert name in ("memx_cli.cli", "memx_cli.command.base") or name.startswith(
            "memx_cli.cli."), (
            f"{path.relative_to(PACKAGE.parent)} imports click outside cli/")


def test_the_top_level_holds_packages_and_a_few_base_modules() -> None:
    loose = {p.stem for p in PACKAGE.glob("*.py")}
    assert loose <= BASE_MODULES, f"move into a package: {sorted(loose - BASE_MODULES)}"


def _room(module: str) -> str:
    """The package (or top-level module) a module lives in: memx_cli.store.files -> store."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _floor_of() -> dict[str, int]:
    return {room: level for level, rooms in enumerate(FLOORS) for room in rooms}


def _upward(graph: dict[str, set[str]], floor_of: dict[str, int]) -> list[str]:
    """Every import from a lower floor to a higher one, and every module whose package or
    top-level module is on no floor, as 'a -> b (floor x -> y)'."""
    found = []
    for name in sorted(graph):
        here = _room(name)
        if here not in floor_of:
            found.append(f"{name} is on no floor: add {here!r} to FLOORS")
            continue
        for dep in sorted(graph[name]):
            there = _room(dep)
            if there in floor_of and floor_of[there] > floor_of[here]:
                found.append(f"{name} -> {dep} (floor {floor_of[here]} -> {floor_of[there]})")
    return found


def _package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    rooms: dict[str, set[str]] = {}
    for name, deps in graph.items():
        rooms.setdefault(_room(name), set()).update(
            _room(d) for d in deps if _room(d) != _room(name))
    for deps in list(rooms.values()):
        for dep in deps:
            rooms.setdefault(dep, set())
    return rooms


def test_every_import_goes_down_the_floors() -> None:
    upward = _upward(_graph(), _floor_of())
    assert not upward, "imports that climb a floor:\n" + "\n".join(upward)


def test_no_package_imports_itself_back() -> None:
    cycle = _cycle(_package_graph(_graph()))
    assert cycle is None, "package cycle: " + " -> ".join(cycle or [])


def test_each_package_is_on_one_floor() -> None:
    rooms = [room for floor in FLOORS for room in floor]
    assert len(rooms) == len(set(rooms)), "a package is named on two floors"
    on_disk = {_room(name) for name in _modules()}
    assert set(rooms) == on_disk, (
        f"not on disk: {sorted(set(rooms) - on_disk)}; on no floor: {sorted(on_disk - set(rooms))}")


def test_the_layer_check_finds_an_upward_import(tmp_path: Path) -> None:
    """A store module that imports the facade is caught, read from a real file the same
    way as the package's own modules; the same import in the other direction is not."""
    module = tmp_path / "files.py"
    module.write_text("import os\n\ndef f():\n    from memx_cli.api import Memx\n",
                      encoding="utf-8")
    deps = _imports(module, "memx_cli.store.files", {"memx_cli.api", "memx_cli.store.files"})
    assert deps == {"memx_cli.api"}
    floors = _floor_of()
    assert _upward({"memx_cli.store.files": deps}, floors) == [
        f"memx_cli.store.files -> memx_cli.api (floor {floors['store']} -> {floors['api']})"]
    assert _upward({"memx_cli.api": {"memx_cli.store.files"}}, floors) == []
    assert _upward({"memx_cli.nowhere.x": set()}, floors) == [
        "memx_cli.nowhere.x is on no floor: add 'nowhere' to FLOORS"]


def test_the_layer_check_skips_imports_for_the_type_checker(tmp_path: Path) -> None:
    module = tmp_path / "files.py"
    module.write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                      "    from memx_cli.api import Memx\n", encoding="utf-8")
    assert _imports(module, "memx_cli.store.files", {"memx_cli.api"}) == set()


def test_the_package_cycle_check_finds_two_packages_importing_each_other() -> None:
    """No module cycle, yet the packages import each other: the loop issue 28 found."""
    graph = {"memx_cli.front.tool": {"memx_cli.facade.api"},
             "memx_cli.facade.api": {"memx_cli.front.rules"}, "memx_cli.front.rules": set()}
    assert _cycle(graph) is None
    assert _cycle(_package_graph(graph)) == ["facade", "front", "facade"]


LONG_MODULE = 500  # lines of code (no blank or comment-only lines): split by responsibility


def _lines_of_code(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.lstrip().startswith("#"))


def _long_modules(root: Path, limit: int) -> dict[str, int]:
    return {str(p.relative_to(root.parent)): n for p in sorted(root.rglob("*.py"))
            if (n := _lines_of_code(p)) > limit}


def test_long_modules_are_named() -> None:
    """A warning, not a failure: where code goes is decided by what it does (issue 28)."""
    for path, lines in _long_modules(PACKAGE, LONG_MODULE).items():
        warnings.warn(f"{path} has {lines} lines of code (over {LONG_MODULE}): does it hold "
                      "more than one responsibility?", stacklevel=1)


def test_the_size_check_counts_code_not_blanks_or_comments(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "long.py").write_text("a = 1\n\n# why\nb = 2\nc = 3\n", encoding="utf-8")
    (package / "short.py").write_text("a = 1\n", encoding="utf-8")
    assert _long_modules(package, 2) == {"pkg/long.py": 3}
