"""Export -> import -> export is the identity for every format memx writes (issue 27):
json, jsonl and memx's own Markdown export are read back as the same memories in another
repository; the block memx manages in AGENTS.md, CLAUDE.md and a Cursor rule is never
imported as the user's text."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import Memx

WORDS = st.sampled_from(["deploy", "with", "fly", "the", "api", "pool", "size", "retry",
                         "tests", "run", "make", "lint", "on", "ci", "néant", "连接池", "-",
                         "`cfg`", "**bold**", "(x)", "#", "- item", "&", "<b>"])
LINE = st.lists(WORDS, min_size=1, max_size=8).map(" ".join)
CONTENT = st.lists(LINE, min_size=1, max_size=3).map("\n".join)
TAG = st.sampled_from(["deploy", "ci", "db", "tooling", "team-rules"])
DOMAIN = st.sampled_from(["", "conventions", "team rules (web)"])
MEMORY = st.tuples(st.sampled_from(["fact", "policy"]), CONTENT,
                   st.lists(TAG, max_size=2, unique=True), DOMAIN)


def fresh_repo(tmp: Path, name: str, memx: Memx) -> Path:
    root = tmp / name
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    memx.ok("init", cwd=root)
    return root


@pytest.mark.parametrize("fmt", ["json", "jsonl", "markdown"])
@settings(max_examples=4, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(memories=st.lists(MEMORY, min_size=1, max_size=4))
def test_an_export_read_back_elsewhere_exports_the_same(
        memx: Memx, tmp_path_factory: pytest.TempPathFactory, fmt: str,
        memories: list[tuple[str, str, list[str], str]]) -> None:
    tmp = tmp_path_factory.mktemp("trip")
    source, target = fresh_repo(tmp, "a", memx), fresh_repo(tmp, "b", memx)
    for kind, content, tags, domain in memories:
        memx.ok("add", "-", "--kind", kind, "--raw", *(["--domain", domain] if domain else []),
                *[x for tag in tags for x in ("--tag", tag)], input=content, cwd=source)
    first = memx.ok("export", "--format", fmt, cwd=source)
    (target / f"export.{fmt}").write_text(first)
    memx.ok("import", f"export.{fmt}", "--raw", cwd=target)
    assert memx.ok("export", "--format", fmt, cwd=target) == first
    # and once more into the same store: nothing doubles
    again = memx.ok("import", f"export.{fmt}", cwd=target)
    assert "0 memories" in again
    assert memx.ok("export", "--format", fmt, cwd=target) == first


def test_the_markdown_export_keeps_kinds_ids_and_tags(memx: Memx, repo: Path,
                                                      tmp_path: Path) -> None:
    # the domain too (the walk-through, issue 27: "[conventions] Never push to main"
    # came back as "[general] ...", in every preamble)
    policy = memx.ok("add", "Never push to main", "--kind", "policy", "--domain",
                     "conventions").strip()
    fact = memx.ok("add", "The API is deployed with fly\n\nfrom services/api", "--tag",
                   "deploy").strip()
    (tmp_path / "export.md").write_text(memx.ok("export", "--format", "markdown"))
    target = fresh_repo(tmp_path, "b", memx)
    out = memx.ok("import", str(tmp_path / "export.md"), cwd=target)
    assert out == "Imported 2 memories\n"
    listed = {m["id"]: m for m in json.loads(memx.ok("list", "--json", cwd=target))["memories"]}
    assert (listed[policy]["kind"], listed[policy]["content"]) == ("policy",
                                                                    "Never push to main")
    assert listed[policy]["domain"] == "conventions" and "domain" not in listed[fact]
    assert memx.ok("policy", "list", cwd=target) == (
        f"{policy}  - [conventions] Never push to main\n")
    assert listed[fact]["kind"] == "fact" and listed[fact]["tags"] == ["deploy"]
    assert listed[fact]["content"] == "The API is deployed with fly\n\nfrom services/api"


def test_markdown_notes_titled_like_an_export_are_still_notes(memx: Memx, repo: Path) -> None:
    (repo / "notes.md").write_text("# Memories\n\nWe deploy on Fridays.\n\n- Use pnpm.\n")
    out = memx.ok("import", "notes.md", "--dry-run")
    assert out.startswith("Dry run: 2 new items")


@pytest.mark.parametrize("fmt, target", [("agents-md", "AGENTS.md"), ("claude-md", "CLAUDE.md"),
                                         ("cursor-rules", ".cursor/rules/memx.mdc")])
def test_the_managed_block_is_not_imported_back(memx: Memx, repo: Path, fmt: str,
                                                target: str) -> None:
    memx.ok("policy", "add", "Never push to main", "--domain", "conventions")
    memx.ok("add", "The API lives in services/api")
    path = repo / target
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt != "cursor-rules":
        path.write_text("# Team\n\n- Always run make lint before pushing\n")
    memx.ok("export", "--format", fmt)
    before = path.read_bytes()
    out = json.loads(memx.ok("import", target, "--dry-run", "--json"))
    texts = [i["content"] for i in out["items"]]
    assert texts == ([] if fmt == "cursor-rules" else ["Always run make lint before pushing"])
    memx.ok("import", target)
    memx.ok("export", "--format", fmt)
    assert path.read_bytes() == before
    policies = [m for m in json.loads(memx.ok("list", "--json"))["memories"]
                if m["kind"] == "policy"]
    assert sorted(m["content"] for m in policies) == sorted(
        ["Never push to main"] + ([] if fmt == "cursor-rules"
                                  else ["Always run make lint before pushing"]))


def test_a_scoped_cursor_rule_keeps_its_scope(memx: Memx, repo: Path) -> None:
    rules = repo / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "ts.mdc").write_text("---\ndescription: TS\nglobs: src/**/*.ts, src/**/*.tsx\n"
                                  "alwaysApply: false\n---\n\n- Always use named exports.\n")
    (rules / "all.mdc").write_text("---\nalwaysApply: true\nglobs: '*.py'\n---\n\n"
                                   "- Never push to main.\n")
    (rules / "forged.mdc").write_text('---\nalwaysApply: false\nglobs: ["a.py\\n- [x] forged"]'
                                      "\n---\n\n- Never edit generated code.\n")
    memx.ok("import", ".cursor/rules")
    text = json.loads(memx.ok("context", "what is the deploy process", "--json"))["context"]
    assert sorted(text["policies"]) == [
        "- [all] Never push to main.",
        "- [forged] Never edit generated code.",
        "- [ts] Always use named exports. (only for files matching src/**/*.ts, src/**/*.tsx)"]
    memx.ok("export", "--format", "agents-md")
    exported = (repo / "AGENTS.md").read_text()
    assert ("- [ts] Always use named exports. (only for files matching src/**/*.ts, "
            "src/**/*.tsx)\n") in exported
    assert "- [all] Never push to main.\n" in exported and "forged\n" not in exported


USER_LINE = st.lists(st.sampled_from(["always", "run", "make", "lint", "before", "pushing",
                                      "the", "api", "uses", "`pnpm`", "never", "deploy",
                                      "on", "fridays", "连接池", "**db**"]),
                     min_size=3, max_size=8).map(" ".join)


@pytest.mark.parametrize("fmt, target", [("agents-md", "AGENTS.md"), ("claude-md", "CLAUDE.md"),
                                         ("cursor-rules", ".cursor/rules/memx.mdc")])
@settings(max_examples=4, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(memories=st.lists(MEMORY, min_size=1, max_size=4),
       user=st.lists(USER_LINE, max_size=2, unique=True))
def test_an_instruction_file_read_back_exports_the_same(
        memx: Memx, tmp_path_factory: pytest.TempPathFactory, fmt: str, target: str,
        memories: list[tuple[str, str, list[str], str]], user: list[str]) -> None:
    """The three instruction-file formats as a property (issue 27): whatever memories
    and whatever rules of the user's own the file holds, export -> import -> export
    writes the same bytes, and importing it again adds nothing."""
    root = fresh_repo(tmp_path_factory.mktemp("trip"), "a", memx)
    for kind, content, tags, domain in memories:
        memx.ok("add", "-", "--kind", kind, "--raw", *(["--domain", domain] if domain else []),
                *[x for tag in tags for x in ("--tag", tag)], input=content, cwd=root)
    path = root / target
    path.parent.mkdir(parents=True, exist_ok=True)
    if user and fmt != "cursor-rules":
        path.write_text("# Team\n\n" + "".join(f"- {line}\n" for line in user))
    memx.ok("export", "--format", fmt, cwd=root)
    before = path.read_bytes()
    memx.ok("import", target, cwd=root)
    memx.ok("export", "--format", fmt, cwd=root)
    assert path.read_bytes() == before
    again = json.loads(memx.ok("import", target, "--dry-run", "--json", cwd=root))
    assert [i["content"] for i in again["items"] if not i["present"]] == []
