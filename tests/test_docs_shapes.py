"""Every JSON output shape README.md, docs/ and `--help` document is the one produced
(issue 27). test_docs_commands.py checks that the commands and options exist; this one
runs them.

A shape is read in the notation the help texts use: ``{"a", "b": [...]}`` is an object
that has the keys a and b, b a list; ``{value, origin}`` names keys without quotes;
``{key: {...}}`` (a bare name before a colon) stands for every key of the object;
``[{"x"}]`` is a list whose items have x; ``...``, ``{...}`` and a bare word are any
value (``bool``: true or false). Keys a shape does not name may be present. A list whose
items a shape describes must not be empty in the output checked, or nothing was checked.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest

from .conftest import Memx, git
from .test_server import FULL, run, served  # noqa: F401 - a fixture

ROOT = Path(__file__).resolve().parent.parent
_TOKEN = re.compile(r'\s*("(?:[^"\\]|\\.)*"|\.\.\.|[A-Za-z_*][\w*]*|[{}\[\]:,])')


@dataclass(frozen=True)
class Shape:
    kind: str  # object, list, any, bool
    members: tuple[tuple[str, bool, Shape | None], ...] = ()  # key, placeholder, value
    item: Shape | None = None


def parse(text: str) -> Shape:
    tokens = [t for t in _TOKEN.findall(text)]
    if "".join(tokens).replace(" ", "") != re.sub(r"\s+", "", text):
        raise ValueError(f"not a shape: {text}")
    shape, at = _value(tokens, 0)
    if at != len(tokens):
        raise ValueError(f"not a shape (trailing {tokens[at:]}): {text}")
    return shape


def _value(tokens: list[str], at: int) -> tuple[Shape, int]:
    token = tokens[at]
    if token == "{":
        return _object(tokens, at + 1)
    if token == "[":
        if tokens[at + 1] == "]":
            return Shape("list"), at + 2
        item, at = _value(tokens, at + 1)
        if tokens[at] != "]":
            raise ValueError(f"expected ] at {tokens[at:]}")
        return Shape("list", item=None if item.kind == "any" else item), at + 1
    if token == "bool":
        return Shape("bool"), at + 1
    return Shape("any"), at + 1  # "...", a placeholder word (paths, N), a quoted value


def _object(tokens: list[str], at: int) -> tuple[Shape, int]:
    members: list[tuple[str, bool, Shape | None]] = []
    while tokens[at] != "}":
        token = tokens[at]
        if token == "...":
            at += 1
        else:
            quoted = token.startswith('"')
            key = token[1:-1] if quoted else token
            at += 1
            value = None
            if tokens[at] == ":":
                value, at = _value(tokens, at + 1)
            members.append((key, not quoted and value is not None, value))
        if tokens[at] == ",":
            at += 1
        elif tokens[at] != "}":
            raise ValueError(f"expected , or }} at {tokens[at:]}")
    return Shape("object", tuple(members)), at + 1


def mismatches(value: Any, shape: Shape, where: str = "$") -> list[str]:
    """How ``value`` differs from ``shape``, one line each."""
    if shape.kind == "any":
        return []
    if shape.kind == "bool":
        return [] if isinstance(value, bool) else [f"{where}: {value!r} is not true/false"]
    if shape.kind == "list":
        if not isinstance(value, list):
            return [f"{where}: not a list"]
        if shape.item is None:
            return []
        if not value:
            return [f"{where}: an empty list (its items' shape is unchecked)"]
        return [m for i, v in enumerate(value) for m in mismatches(v, shape.item, f"{where}[{i}]")]
    if not isinstance(value, dict):
        return [f"{where}: not an object"]
    found = []
    for key, placeholder, sub in shape.members:
        if placeholder:
            if not value:
                found.append(f"{where}: an empty object (its values' shape is unchecked)")
            found += [m for k, v in value.items() for m in mismatches(v, sub, f"{where}.{k}")]  # type: ignore[arg-type]
        elif key not in value:
            found.append(f"{where}: no key {key!r} (has {sorted(value)})")
        elif sub is not None:
            found += mismatches(value[key], sub, f"{where}.{key}")
    return found


def help_shapes() -> dict[str, list[str]]:
    """The shapes the `--json` option of each command names in its help."""
    from memx_cli.cli import cli

    out: dict[str, list[str]] = {}

    def walk(command: click.Command, path: list[str]) -> None:
        ctx = click.Context(command, info_name=path[-1])
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None
                walk(sub, [*path, name])
            return
        for param in command.params:
            if "--json" in getattr(param, "opts", []):
                shapes = braces(" ".join((getattr(param, "help", "") or "").split()))
                if shapes:
                    out[" ".join(path[1:])] = shapes

    walk(cli, ["memx"])
    return out


def braces(text: str) -> list[str]:
    """The outermost balanced {...} groups of ``text``."""
    found, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "{":
            start = i if depth == 0 else start
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                found.append(text[start:i + 1])
    return found


def doc_shapes() -> list[tuple[str, str]]:
    """JSON shapes of command output in README.md and docs/: a `{"...` code span (or a
    run of them across lines), and the ```json example block of anchors.md."""
    out = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        joined = re.sub(r"`\s*\n\s*`|\n(?!\n)", " ", text)
        for match in re.finditer(r"`(\{\"[^`]*\})`", joined):
            out.append((page.name, " ".join(match.group(1).split())))
        for match in re.finditer(r"#\s*(\{\"[^\n]*\})", text):
            out.append((page.name, match.group(1)))
    return out


# ---------------------------------------------------------------- the commands

# Each shape: the command line that prints it, run in the repository `documented` makes.
HELP_RUNS: dict[str, list[list[str]]] = {
    "init": [["init", "--json"]],
    "search": [["search", "pool size", "--json"]],
    "list": [["list", "--json"]],
    "validate": [["validate", "--json"]],
    "config list": [["config", "list", "--json"]],
    "conflicts": [["conflicts", "--json"]],
    "sweep": [["sweep", "--dry-run", "--json"]],
    "stats": [["stats", "--json"]],
    "anchor": [["anchor", "{anchored}", "src/db.py:1-2", "--json"]],
    "verify": [["verify", "--json"], ["verify", "--fix", "{anchored}", "--json"]],
    "source list": [["source", "list", "--json"]],
    "hooks install": [["hooks", "install", "--json"]],
    "hooks status": [["hooks", "status", "--json"]],
    "hooks uninstall": [["hooks", "uninstall", "--json"]],
    "context": [["context", "fix the pool", "--agent", "claude", "--json"]],
    "notes": [["notes", "--agent", "claude", "--json"]],
    "policy list": [["policy", "list", "--json"]],
    "remember": [["remember", "the pool test is flaky", "--session", "s1", "--json"]],
    "consolidate": [["consolidate", "--json"]],
    "server status": [["server", "status", "--json"]],
    "server stop": [["server", "stop", "--json"]],
    # each removes a memory of its own, which no other run reads
    "forget": [["forget", "{removable}", "--yes", "--json"]],
    "rm": [["rm", "{removable2}", "--yes", "--json"]],
}
# Shapes in the pages: the command line that prints each (documented beside it).
DOC_RUNS: dict[str, list[str]] = {
    '{"query", "mode", "results": [...]}': ["search", "连接池", "--json"],
    '{"memories": [...]}': ["list", "--json"],
    '{"counts": {...}, "memories": [...]}': ["verify", "--json"],
    # (its words, not its id: a random id as the query found nothing in about 1 run of 8)
    '{"status": "unanchored", "anchors": []}': ["search", "staging database reset Monday",
                                                "--json"],
    '"dates": {"from", "until", "phrase"}': ["search", "pool size changed last May",
                                              "--json", "--explain"],
}
# Shapes that are not the output of a command line: what memx reads, or the memx
# server's frames (tests/test_server.py covers the protocol).
NOT_OUTPUT = {"pipeline.md", "server.md"}
# The diff shape of git.md has a test of its own (its `attention` is a second span).
ELSEWHERE = ('{"diff": ', '{"count", ')


@pytest.fixture
def documented(memx: Memx, repo: Path) -> dict[str, str]:
    """A repository with something in every list the shapes describe."""
    (repo / "src").mkdir()
    (repo / "src" / "db.py").write_text("POOL_SIZE = 10\nTIMEOUT = 30\nRETRIES = 3\n")
    git(repo, "add", "src")
    git(repo, "commit", "-q", "-m", "db")
    anchored = memx.ok("add", "The pool size lives in src/db.py", "--anchor",
                       "src/db.py:1").strip()
    memx.ok("add", "Redis pool size 10 is enough")
    memx.ok("add", "Redis pool size must be at least 50 for stability")  # recorded conflict
    memx.ok("add", "Never push to main", "--kind", "policy")
    memx.ok("add", "连接池的大小在 src/db.py 里配置")
    unanchored = memx.ok("add", "The staging database is reset every Monday").strip()
    removable = memx.ok("add", "The old lint job ran flake8 on every push").strip()
    removable2 = memx.ok("add", "The nightly export ran at two in the morning").strip()
    memx.ok("notes", "--agent", "claude", "append", "halfway through the pool fix")
    (repo / "bad.yaml").write_text("schema: 1\nid: [\n")
    memx.ok("config", "set", "ace.retrieval.max_results", "8")
    source = repo.parent / "team"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    Memx(source, memx.monkeypatch).ok("init")
    Memx(source, memx.monkeypatch).ok("add", "The team deploys on Tuesdays")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "memory")
    memx.ok("source", "add", "team", str(source))
    memx.ok("remember", "the pool test is flaky", "--session", "s0")
    # the anchored lines move: verify --fix has something to fix
    (repo / "src" / "db.py").write_text("# settings\nPOOL_SIZE = 10\nTIMEOUT = 30\n"
                                        "RETRIES = 3\n")
    return {"anchored": anchored, "unanchored": unanchored, "removable": removable,
            "removable2": removable2}


def run_json(memx: Memx, repo: Path, argv: list[str], ids: dict[str, str]) -> Any:
    args = [a.format(**ids) for a in argv]
    if args[0] == "init":
        fresh = repo.parent / "fresh"
        fresh.mkdir()
        git(fresh, "init", "-q", "-b", "main")
        result = memx(*args, cwd=fresh)
    elif args[0] == "validate":
        result = memx(*args, str(repo / "bad.yaml"))
    else:
        result = memx(*args)
    assert result.code in (0, 1), f"memx {' '.join(args)}: {result.err}"
    return json.loads(result.out)


def test_every_shape_the_help_documents_is_produced(memx: Memx, repo: Path,
                                                     documented: dict[str, str]) -> None:
    shapes = help_shapes()
    assert sorted(shapes) == sorted(HELP_RUNS), "a --json shape with no command line here"
    bad = []
    for command, texts in shapes.items():
        assert len(texts) == len(HELP_RUNS[command]), command
        for text, argv in zip(texts, HELP_RUNS[command]):
            data = run_json(memx, repo, argv, documented)
            bad += [f"memx {command}: {text}: {m}" for m in mismatches(data, parse(text))]
    assert bad == []


def test_every_shape_the_pages_document_is_produced(memx: Memx, repo: Path,
                                                    documented: dict[str, str]) -> None:
    shapes = [(page, text) for page, text in doc_shapes()
              if page not in NOT_OUTPUT and not text.startswith(ELSEWHERE)]
    bad = []
    for page, text in shapes:
        if text not in DOC_RUNS:
            bad.append(f"{page}: {text}: no command line here prints it")
            continue
        data = run_json(memx, repo, DOC_RUNS[text], documented)
        if text.startswith('"dates"'):  # a key of the output, as the page says
            data, text = {"dates": data.get("dates")}, "{" + text + "}"
        elif "unanchored" in text:
            [hit] = [r for r in data["results"] if r["id"] == documented["unanchored"]]
            data = hit["verification"]
        bad += [f"{page}: {text}: {m}" for m in mismatches(data, parse(text))]
    assert bad == []


def test_the_diff_shape_git_md_documents_is_produced(memx: Memx, repo: Path,
                                                     documented: dict[str, str]) -> None:
    text = re.sub(r"\s+", " ", (ROOT / "docs" / "git.md").read_text(encoding="utf-8"))
    found = re.search(r"`--format json` prints `(\{\"diff\".*?)`, where `attention` is "
                      r"`(\{.*?)`\.", text)
    assert found, "git.md no longer documents the diff shape where this test reads it"
    shape = parse(found.group(1).replace('"attention"', '"attention": ' + found.group(2)))
    (repo / ".memx" / "access.yaml").write_text("grants:\n  agent: {conventions: write}\n")
    (repo / "src" / "db.py").write_text("TIMEOUT = 30\n")  # the anchored line is gone
    note = repo / ".memx" / "memories" / (memx.ok("add", "--raw", "A note").strip() + ".yaml")
    key = "AKIA" + "Q3EGRJ5T7XW2YBMP"  # an access key id, written by hand into a memory
    note.write_text(note.read_text().replace("A note", f"The key is {key}"))
    data = json.loads(memx.ok("diff", "--format", "json"))
    assert mismatches(data, shape) == []


def test_the_verification_example_of_anchors_md_is_produced(memx: Memx, repo: Path,
                                                            documented: dict[str, str]) -> None:
    text = (ROOT / "docs" / "anchors.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(\"verification\": \{.*?\n\})\n```", text, re.S)
    assert block, "anchors.md no longer has the verification example"
    example = json.loads("{" + block.group(1) + "}")["verification"]
    git(repo, "mv", "src/db.py", "src/database.py")
    git(repo, "commit", "-q", "-m", "rename", "--", "src")
    data = json.loads(memx.ok("search", "pool size lives", "--json"))
    found = [r["verification"] for r in data["results"] if r["id"] == documented["anchored"]]
    assert found, "the anchored memory was not found"
    got = found[0]
    assert sorted(got) == sorted(example)
    assert (got["status"], got["anchors"][0]["relocated"]) == (example["status"], True)
    assert sorted(got["anchors"][0]) == sorted(example["anchors"][0])
    assert sorted(got["anchors"][0]["current"]) == sorted(example["anchors"][0]["current"])


def test_the_shape_notation_is_read_as_documented() -> None:
    shape = parse('{"config": {key: {value, origin}}, "made": [paths], "ok": bool}')
    assert mismatches({"config": {"a": {"value": 1, "origin": "x"}}, "made": [], "ok": True},
                      shape) == []
    assert mismatches({"config": {"a": {"value": 1}}, "made": 3, "ok": 1}, shape) == [
        "$.config.a: no key 'origin' (has ['value'])", "$.made: not a list",
        "$.ok: 1 is not true/false"]
    assert mismatches({"x": [{}]}, parse('{"x": [{"id"}]}')) == ["$.x[0]: no key 'id' (has [])"]
    assert mismatches({"x": []}, parse('{"x": [{"id"}]}')) == [
        "$.x: an empty list (its items' shape is unchecked)"]


def test_a_running_servers_status_has_what_its_help_says(served: Path) -> None:  # noqa: F811
    code, out, err = run([*FULL, "server", "status", "--json"], served)
    assert code == 0, err
    info = json.loads(out)["server"]
    assert info["running"] is True and {"pid", "version", "socket", "log"} <= set(info)
