"""init, add, show, list, rm and the error boundary, driven end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import Memx


def test_init_creates_store_and_is_idempotent(bare_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memx = Memx(bare_repo, monkeypatch)
    assert memx.ok("init") == "Initialized memx store in .memx/ (commit it to share memory)\n"
    store = bare_repo / ".memx"
    assert (store / "memories").is_dir()
    assert (store / "config.yaml").is_file()
    assert (store / ".gitignore").read_text().splitlines()[1:] == ["local/", "cache/", "config.local.yaml"]
    before = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()}
    assert memx.ok("init") == "memx store already initialized in .memx/\n"
    assert {p: p.read_bytes() for p in store.rglob("*") if p.is_file()} == before


def test_init_and_hooks_answer_in_json(bare_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memx = Memx(bare_repo, monkeypatch)
    made = json.loads(memx.ok("init", "--json"))["init"]
    assert made["store"] == str(bare_repo / ".memx")
    assert made["created"] is True
    assert {".memx", ".memx/memories", ".memx/.gitattributes"} <= set(made["made"])
    again = json.loads(memx.ok("init", "--json"))["init"]
    assert (again["created"], again["made"]) == (False, [])
    hooks = json.loads(memx.ok("hooks", "install", "--hooks", "pre-commit", "--json"))["hooks"]
    assert hooks["directory"] == str(bare_repo / ".git" / "hooks")
    assert hooks["changes"] == [{"name": "pre-commit", "action": "installed"}]
    gone = json.loads(memx.ok("hooks", "uninstall", "--hooks", "pre-commit", "--json"))
    assert gone["hooks"]["changes"] == [{"name": "pre-commit", "action": "removed"}]


def test_init_from_a_subdirectory_uses_the_repository_top(bare_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sub = bare_repo / "src" / "pkg"
    sub.mkdir(parents=True)
    Memx(sub, monkeypatch).ok("init")
    assert (bare_repo / ".memx" / "memories").is_dir()
    assert not (sub / ".memx").exists()


def test_init_outside_a_repository_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = Memx(tmp_path, monkeypatch)("init")
    assert result.code == 2
    assert result.err == (
        f"memx: error: not inside a git repository ({tmp_path}); "
        "run memx in a repository, or 'git init' first\n"
    )


def test_commands_before_init_say_what_to_do(bare_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = Memx(bare_repo, monkeypatch)("list")
    assert result.code == 2
    assert result.err == f"memx: error: no memx store in {bare_repo}; run 'memx init' first\n"


def test_add_then_list_json_shows_it_with_schema_1(memx: Memx, repo: Path) -> None:
    new_id = memx.ok("add", "Use pnpm, not npm, in this repo", "--tag", "tooling").strip()
    listed = json.loads(memx.ok("list", "--json"))
    assert list(listed) == ["memories"]
    [mem] = listed["memories"]
    assert mem["id"] == new_id
    assert mem["content"] == "Use pnpm, not npm, in this repo"
    assert mem["tags"] == ["tooling"]
    assert mem["source"] == {"type": "manual"}
    text = (repo / ".memx" / "memories" / f"{new_id}.yaml").read_text()
    assert text.startswith(f"schema: 1\nid: {new_id}\n")
    assert memx.ok("validate") == "1 memory file(s) OK\n"


def test_add_reads_stdin_and_sets_every_option(memx: Memx) -> None:
    out = memx.ok("add", "-", "--kind", "policy", "--domain", "conventions", "--topic", "ci",
                  "--tag", "CI", "--tag", "ci", "--json", input="  Never push to main.  \n")
    result = json.loads(out)
    assert result["action"] == "added"
    mem = result["memory"]
    assert (mem["kind"], mem["domain"], mem["topic"], mem["tags"], mem["content"]) == (
        "policy", "conventions", "ci", ["ci"], "Never push to main.")


def test_add_raw_stores_text_verbatim(memx: Memx) -> None:
    text = "  keep   my spacing  \n\n"
    out = json.loads(memx.ok("add", "-", "--raw", "--json", input=text))
    assert out["memory"]["content"] == text


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["add", "   "], None, "memx: error: memory text is empty; pass the text to remember\n"),
        (["add", "-"], b"\x00\x01binary", "memx: error: standard input is binary, not text\n"),
        (["add", "-"], b"caf\xe9", "memx: error: standard input is not UTF-8 text\n"),
        (["add", "x", "--scope", "team"], None,
         "memx: error: invalid scope 'team'; use global, project, workspace or workspace:<name>\n"),
        (["add", "x", "--tag", "two words"], None,
         "memx: error: invalid tag 'two words': use one word (a-z, 0-9, - _ . /)\n"),
    ],
)
def test_add_rejects_bad_input_and_writes_nothing(memx: Memx, repo: Path, args: list[str],
                                                  stdin: bytes | None, message: str) -> None:
    result = memx(*args, input=stdin)
    assert result.code == 2
    assert result.err.endswith(message)
    assert list((repo / ".memx" / "memories").iterdir()) == []


def test_add_bad_kind_is_a_usage_error(memx: Memx) -> None:
    result = memx("add", "x", "--kind", "rumour")
    assert result.code == 2
    assert "memx: error: Invalid value for '--kind': 'rumour' is not one of 'fact', 'policy'." in result.err


def test_scopes_workspace_and_global(memx: Memx, repo: Path, isolated_home: Path) -> None:
    ws = json.loads(memx.ok("add", "branch note", "--scope", "workspace", "--json"))
    assert ws["memory"]["scope"] == "workspace:main"
    glob = json.loads(memx.ok("add", "my global habit", "--scope", "global", "--json"))
    assert Path(glob["path"]).parent == isolated_home / "data" / "memx" / "memories"
    listed = json.loads(memx.ok("list", "--json", "--scope", "global"))["memories"]
    assert [m["content"] for m in listed] == ["my global habit"]


def test_list_filters(memx: Memx) -> None:
    memx.ok("add", "a fact", "--tag", "x", "--tag", "y")
    memx.ok("add", "a policy", "--kind", "policy", "--tag", "x")
    contents = lambda *a: [m["content"] for m in json.loads(memx.ok("list", "--json", *a))["memories"]]  # noqa: E731
    assert contents() == ["a fact", "a policy"]
    assert contents("--kind", "policy") == ["a policy"]
    assert contents("--tag", "x", "--tag", "y") == ["a fact"]
    assert contents("--section", "debugging") == []
    human = memx.ok("list")
    assert "fact   project  a fact [x, y]" in human and "policy project  a policy [x]" in human


def test_list_keeps_its_columns_when_short_ids_differ_in_length(memx: Memx) -> None:
    # The walk-through (issue 27): two ids sharing 13 characters print 14, the others 12,
    # and the kind and scope columns of those lines were shifted by two.
    records = [{"id": "01m971ghfqwqpsxwjwrf6tyawg", "content": "first twin"},
               {"id": "01m971ghfqwqpyaxq5rz4hr3kc", "content": "second twin", "kind": "policy"},
               {"id": "01m9zzzzzzzzzzzzzzzzzzzzzz", "content": "a loner"}]
    memx.ok("import", "-", "--raw", input="\n".join(json.dumps(r) for r in records))
    assert memx.ok("list") == ("01m971ghfqwqps  fact   project  first twin\n"
                               "01m971ghfqwqpy  policy project  second twin\n"
                               "01m9zzzzzzzz    fact   project  a loner\n")


def test_list_skips_a_broken_file_with_a_warning(memx: Memx, repo: Path) -> None:
    good = memx.ok("add", "still here").strip()
    bad = memx.ok("add", "will break").strip()
    path = repo / ".memx" / "memories" / f"{bad}.yaml"
    path.write_text(path.read_text().replace("kind: fact", " kind: fact"))
    result = memx("list", "--json")
    assert result.code == 0
    assert [m["id"] for m in json.loads(result.out)["memories"]] == [good]
    assert result.err == (
        f"memx: warning: .memx/memories/{bad}.yaml:3: invalid YAML: mapping values are not "
        "allowed in this context (skipped)\n"
    )


def test_show_by_prefix_and_ambiguous_prefix(memx: Memx, repo: Path) -> None:
    first = memx.ok("add", "first").strip()
    second = memx.ok("add", "second").strip()
    shown = memx.ok("show", first[:14].upper())
    assert shown.startswith(f"# .memx/memories/{first}.yaml\nschema: 1\n")
    assert json.loads(memx.ok("show", second, "--json"))["memory"]["content"] == "second"
    common = 0
    while first[common] == second[common]:
        common += 1
    result = memx("show", first[:common])
    assert result.code == 2
    assert result.err == (
        f"memx: error: id prefix '{first[:common]}' matches 2 memories: "
        f"{first[:max(12, common + 1)]}, {second[:max(12, common + 1)]}; type more characters\n"
    )
    missing = memx("show", "zzzz")
    assert missing.err == "memx: error: no memory matches 'zzzz'; see memx list\n"
    assert memx("show", "not-an-id!").err == (
        "memx: error: 'not-an-id!' is not a memory id; ids look like 01jd3k7m2x9q...\n")


def test_an_error_shows_a_long_value_given_as_an_id_label_or_name_cut(memx: Memx) -> None:
    # walk15: a file's text pasted as an id, a tag or a scope came back whole in the
    # one-line error (3,000 characters in, 3,060 out), through the CLI and the MCP tools
    flood = "q" * 3000
    cases = [("show", flood), ("add", "x", "--domain", flood), ("add", "x", "--tag", flood),
             ("search", "x", "--scope", flood), ("config", "get", flood),
             ("notes", "--agent", flood)]
    for args in cases:
        result = memx(*args)
        assert result.code == 2, args
        assert result.err.count("\n") == 1 and len(result.err) < 300, (args, len(result.err))
        assert "'" + "q" * 60 + "'... (3,000 characters)" in result.err, args
    # control: a short value is quoted whole, as before
    assert memx("add", "x", "--domain", "a\tb").err == (
        "memx: error: invalid domain 'a\\tb': use one line of at most 64 characters, "
        "without control characters\n")
    assert memx("config", "get", "nokey").err == (
        "memx: error: unknown configuration key 'nokey'; see memx config list\n")


def test_rm_and_forget(memx: Memx, repo: Path) -> None:
    one = memx.ok("add", "one").strip()
    two = memx.ok("add", "two").strip()
    refused = memx("rm", one)
    assert refused.code == 2
    assert refused.err == ("memx: error: not deleting without confirmation: stdin is not a "
                           "terminal; pass -y\n")
    assert (repo / ".memx" / "memories" / f"{one}.yaml").exists()
    assert memx.ok("rm", one, "-y") == f"Removed {one} (.memx/memories/{one}.yaml)\n"
    assert json.loads(memx.ok("forget", two, "--yes", "--json")) == {
        "removed": [{"id": two, "path": f".memx/memories/{two}.yaml"}]}
    assert list((repo / ".memx" / "memories").iterdir()) == []


def test_rm_takes_several_ids_all_resolved_first(memx: Memx, repo: Path) -> None:
    ids = [memx.ok("add", text).strip() for text in ("one", "two", "three")]
    folder = repo / ".memx" / "memories"
    # one unknown id refuses the whole command: nothing removed
    refused = memx("rm", ids[0], "zzzzzz", ids[1], "-y")
    assert (refused.code, refused.err) == (
        2, "memx: error: no memory matches 'zzzzzz'; see memx list\n")
    assert len(list(folder.iterdir())) == 3
    out = json.loads(memx.ok("rm", ids[0], ids[1][:12], ids[1], "-y", "--json"))
    assert out == {"removed": [{"id": i, "path": f".memx/memories/{i}.yaml"} for i in ids[:2]]}
    assert [p.stem for p in folder.iterdir()] == [ids[2]]  # control: the one not named stays
    assert memx("rm", "-y").code == 2  # at least one id


def test_unexpected_errors_are_one_line_and_exit_3(memx: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli.store import queries as manage

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(manage, "load_visible", boom)
    result = memx("list")
    assert result.code == 3
    assert result.err == ("memx: error: internal error: RuntimeError: disk on fire "
                          "(run with -v for the traceback and please report it)\n")
    verbose = memx("-v", "list")
    assert "Traceback (most recent call last)" in verbose.err


def test_unknown_command_is_usage_error(memx: Memx) -> None:
    result = memx("frobnicate")
    assert result.code == 2
    assert result.err.endswith("memx: error: No such command 'frobnicate'.\n")


def test_help_does_not_import_heavy_modules() -> None:
    code = (
        "import sys\n"
        "from memx_cli.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('numpy', 'usearch', 'model2vec', 'git', 'tantivy', 'tokenizers')"
        " if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "Commands:" in out
    assert out.strip().endswith("HEAVY []")


def test_importing_the_library_facade_is_cheap() -> None:
    """`import memx_cli.api` (issue 11): no index, model, git or CLI machinery."""
    code = ("import sys\nimport memx_cli.api\n"
            "print([m for m in ('numpy', 'usearch', 'model2vec', 'git', 'tantivy', 'tokenizers',"
            " 'click', 'mcp', 'yaml') if m in sys.modules])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out == "[]\n"


def test_git_memx_entry_point_runs(memx: Memx, repo: Path) -> None:
    """`git memx` works because git finds `git-memx` on PATH."""
    exe = Path(sys.executable).parent / "git-memx"
    if not exe.exists():
        pytest.skip("git-memx console script not installed in this environment")
    env_path = f"{exe.parent}:{__import__('os').environ['PATH']}"
    out = subprocess.run(["git", "memx", "list", "--json"], cwd=repo, capture_output=True,
                         text=True, env={**__import__('os').environ, "PATH": env_path})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"memories": []}


def test_files_are_deterministic_yaml(memx: Memx, repo: Path) -> None:
    mid = memx.ok("add", "multi\nline\ntext", "--raw").strip()
    text = (repo / ".memx" / "memories" / f"{mid}.yaml").read_text()
    assert "content: |-\n  multi\n  line\n  text\n" in text
    assert text.endswith("\n") and "!!" not in text
    assert yaml.safe_load(text)["content"] == "multi\nline\ntext"


def test_a_clone_without_memories_is_still_a_store(memx: Memx, repo: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from .conftest import git

    git(repo, "add", ".memx")
    git(repo, "commit", "-qm", "memx init")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    assert not (clone / ".memx" / "memories").exists()  # git keeps no empty folder
    other = Memx(clone, monkeypatch)
    assert json.loads(other.ok("search", "anything", "--json"))["results"] == []
    other.ok("add", "first memory in the clone")
    assert len(json.loads(other.ok("list", "--json"))["memories"]) == 1


def test_file_arguments_are_read_from_the_dash_c_directory(memx: Memx, repo: Path,
                                                            tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for where, text in ((repo, "The deploy runs from the release branch"),
                        (elsewhere, "The cache lives in redis")):
        (where / "notes.jsonl").write_text(json.dumps({"content": text}) + "\n")
        (where / "ci.log").write_text(f"{text}\n")
    memx.ok("-C", str(repo), "import", "notes.jsonl", cwd=elsewhere)
    listed = memx.ok("list", "--json")
    assert "release branch" in listed and "redis" not in listed
    # ingest and validate read from there too; standard input stays standard input
    dry = json.loads(memx.ok("-C", str(repo), "ingest", "ci.log", "--dry-run", "--raw",
                             "--json", cwd=elsewhere))
    assert "release branch" in json.dumps(dry) and "redis" not in json.dumps(dry)
    (repo / ".memx" / "memories" / "bad.yaml").write_text("schema: 1\nid: [\n")
    assert memx("-C", str(repo), "validate", ".memx/memories/bad.yaml",
                cwd=elsewhere).code == 1
    assert memx("-C", str(repo), "ingest", "-", "--dry-run", input="", cwd=elsewhere).code == 0
    # control: without -C a relative path is the process's own
    memx.ok("import", str(elsewhere / "notes.jsonl"))
    assert "redis" in memx.ok("list", "--json")
    missing = memx("-C", str(repo), "import", "nowhere.jsonl", cwd=elsewhere)
    assert missing.code == 2 and "nowhere.jsonl' does not exist" in missing.err
