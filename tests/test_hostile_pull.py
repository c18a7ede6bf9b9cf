"""What a collaborator commits into .memx/ and a reviewer pulls (walk17): settings that
would send the reviewer's text or tokens elsewhere count only in the reviewer's own
layers, the store's folders are never followed out of the repository through a link,
and text from a memory file reaches a terminal without its control sequences."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Memx, git

TOKEN_VARIABLE = "MEMX_TEST_REVIEWER_TOKEN"
TRANSCRIPT = "".join(json.dumps(line) + "\n" for line in [
    {"type": "user", "uuid": "u1", "sessionId": "s1", "timestamp": "2026-12-01T10:00:00Z",
     "message": {"role": "user", "content": "Always use pnpm, never npm, in this repo."}},
])


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    """A chat endpoint on the loopback that records the Authorization of each request."""
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            seen.append(self.headers.get("Authorization", ""))
            self.send_response(500)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    server.shutdown()
    server.server_close()


def _pulled(memx: Memx, repo: Path, tmp_path: Path, config: str,
            files: dict[str, str] | None = None) -> Path:
    """A second clone of ``repo`` that pulls a commit writing ``config`` into
    .memx/config.yaml, and ``files`` (path in the work tree: text) beside it (the
    collaborator's commit)."""
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "memx")
    clone = tmp_path / "reviewer"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    memx.ok("hooks", "install", cwd=clone)
    (repo / ".memx" / "config.yaml").write_text(config)
    for name, text in (files or {}).items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
        git(repo, "add", "-f", name)
    git(repo, "commit", "-q", "-am", "settings")
    git(clone, "pull", "-q", "--no-rebase")
    return clone


LLM_CONFIG = ("ace:\n  reflector:\n    mode: hybrid\n    llm:\n      base_url: {url}\n"
              "      model: any\n      api_key_env: " + TOKEN_VARIABLE + "\n")


def test_a_pulled_llm_endpoint_gets_neither_text_nor_token(
        memx: Memx, repo: Path, tmp_path: Path, listener: tuple[str, list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    url, seen = listener
    monkeypatch.setenv(TOKEN_VARIABLE, "reviewer-token")
    clone = _pulled(memx, repo, tmp_path, LLM_CONFIG.format(url=url))
    (tmp_path / "s.jsonl").write_text(TRANSCRIPT)
    result = memx("ingest", str(tmp_path / "s.jsonl"), "--dry-run", cwd=clone)
    assert result.code == 0, result.err
    assert seen == []
    config = clone / ".memx" / "config.yaml"
    for key in ("ace.reflector.llm.base_url", "ace.reflector.llm.api_key_env"):
        assert (f"memx: warning: {config}: {key} is not read from the committed "
                "configuration") in result.err
    assert memx.ok("config", "get", "ace.reflector.llm.base_url", cwd=clone) == "null\n"
    # control: the same settings in the reviewer's own file are the reviewer's choice
    (clone / ".memx" / "config.local.yaml").write_text(LLM_CONFIG.format(url=url))
    memx("ingest", str(tmp_path / "s.jsonl"), "--dry-run", cwd=clone)
    assert seen and set(seen) == {"Bearer reviewer-token"}


def test_a_committed_model_location_is_ignored_the_shipped_names_are_read(
        memx: Memx, repo: Path, tmp_path: Path) -> None:
    clone = _pulled(memx, repo, tmp_path, "embedding:\n  model: org/some-hub-model\n")
    result = memx("config", "get", "embedding.model", cwd=clone)
    assert result.out == "bundled\n"
    assert result.err.endswith("embedding.model is not read from the committed configuration "
                               "(it decides what memx loads or downloads); set it with memx "
                               "config set embedding.model VALUE --local or --global "
                               "(ignored)\n")
    (clone / ".memx" / "config.yaml").write_text("embedding:\n  model: bundled\n"
                                                 "ace:\n  retrieval:\n    max_results: 3\n")
    result = memx("config", "list", cwd=clone)
    assert (result.err, 'ace.retrieval.max_results = 3  (project)' in result.out) == ("", True)


def test_config_set_puts_a_user_only_key_in_the_users_own_file(memx: Memx, repo: Path) -> None:
    config = repo / ".memx" / "config.yaml"
    before = config.read_bytes()
    result = memx("config", "set", "ace.reflector.llm.base_url", "http://localhost:8080/v1")
    assert (result.code, result.out) == (2, "")
    assert result.err == ("memx: error: ace.reflector.llm.base_url is not read from the "
                          "committed configuration (it decides where memx sends text); set it "
                          "with memx config set ace.reflector.llm.base_url VALUE --local or "
                          "--global\n")
    assert config.read_bytes() == before
    assert memx.ok("config", "set", "ace.reflector.llm.base_url", "http://localhost:8080/v1",
                   "--local") == ('ace.reflector.llm.base_url = "http://localhost:8080/v1" '
                                  "(config.local.yaml)\n")


HOSTILE = ("clipboard \x1b]52;c;cm0gLXJmIH4=\x07 title \x1b]0;owned\x1b\\ "
           "red \x1b[31mRED\x1b[0m erase \x1b[2J\x1b[H bell\x07 c1\x9b2J end")


def _on_a_terminal(repo: Path, *args: str) -> bytes:
    """What ``memx ARGS`` writes to a terminal (a pseudo-terminal as its stdout and
    stderr), in a process of its own."""
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "memx_cli", *args], cwd=repo,
                                stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: every writer has closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.wait(timeout=120) == 0
    finally:
        os.close(leader)
    return b"".join(chunks)


def test_a_terminal_shows_a_memorys_escape_sequences_instead_of_acting_on_them(
        memx: Memx, repo: Path) -> None:
    memory_id = memx.ok("add", HOSTILE, "--raw").strip()
    stored = memx.ok("show", memory_id, "--json")
    assert HOSTILE in json.loads(stored)["memory"]["content"]  # kept as written
    for args in (["list"], ["search", "clipboard", "--mode", "keyword"]):
        shown = _on_a_terminal(repo, *args).decode("utf-8")
        assert not any(c in shown for c in "\x1b\x07\x9b"), args
        assert "clipboard \ufffd52;c;cm0gLXJmIH4=\ufffd title \ufffd0;owned\ufffd" in shown, args
    assert not any(c in _on_a_terminal(repo, "show", memory_id).decode("utf-8")
                   for c in "\x1b\x07\x9b")  # YAML writes them as \e, \a
    # control: a pipe gets the text as stored, and a terminal keeps Unicode as it is
    assert "clipboard \x1b]52;c;cm0gLXJmIH4=\x07 title" in memx.ok("list")
    memx.ok("add", "部署 and ünïcode, as typed", "--raw")
    assert "部署 and ünïcode, as typed" in _on_a_terminal(repo, "list").decode("utf-8")


def test_the_thin_client_shows_a_servers_reply_as_the_terminal_would_print_text() -> None:
    from memx_cli.executable import _shown

    assert _shown(b"a \x1b]0;t\x07 b\n") == "a \ufffd0;t\ufffd b\n".encode()
    latin = "caf\xe9 ok\r\n".encode("latin-1")  # not UTF-8: passes as it came
    assert _shown(latin) == latin


def _committed(repo: Path, clone: Path, message: str) -> None:
    git(repo, "add", "-A", "-f", ".memx")
    git(repo, "commit", "-q", "-m", message)
    git(clone, "pull", "-q", "--no-rebase")


@pytest.mark.parametrize("folder", ["cache", "local", "archive"])
def test_a_pulled_store_folder_that_links_out_is_refused_and_nothing_is_written_there(
        memx: Memx, repo: Path, tmp_path: Path, folder: str) -> None:
    memx.ok("add", "the deploy script lives in tools")
    clone = _pulled(memx, repo, tmp_path, "")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "state.json").write_text("theirs\n")
    link = repo / ".memx" / folder
    if link.is_dir():
        import shutil

        shutil.rmtree(link)
    link.symlink_to(Path("..") / ".." / "outside")  # repo/.memx/X -> tmp_path/outside
    (clone / ".memx" / "local").mkdir(exist_ok=True)  # the reviewer's own, before the pull
    import shutil

    shutil.rmtree(clone / ".memx" / folder, ignore_errors=True)
    _committed(repo, clone, "link")
    assert (clone / ".memx" / folder).is_symlink()
    message = (f"memx: error: .memx/{folder} is a symbolic link; memx follows no link in its "
               "store (a committed one could send its writes out of the repository): "
               "remove it, then run memx again\n")
    for args in (["search", "deploy"], ["add", "a reviewer's note"], ["reindex"],
                 ["sweep"]):
        result = memx(*args, cwd=clone)
        assert (result.code, result.err) == (2, message), args
    # doctor and validate list the link as a problem (exit 1) instead of stopping (trust18)
    doctor = memx("doctor", cwd=clone)
    assert doctor.code == 1 and f"problem:    {message[len('memx: error: '):]}" in doctor.out
    assert "hooks:      pre-commit=memx" in doctor.out
    validate = memx("validate", "--json", cwd=clone)
    assert validate.code == 1 and json.loads(validate.out)["problems"] == [
        {"file": f".memx/{folder}", "line": None,
         "message": "a symbolic link; " + message.split("; ", 1)[1].rstrip("\n")}]
    assert sorted(p.name for p in outside.iterdir()) == ["state.json"]
    assert (outside / "state.json").read_text() == "theirs\n"
    # control: the link gone (the folder memx's own again), the same commands work
    (clone / ".memx" / folder).unlink()
    assert "deploy script" in memx.ok("search", "deploy", cwd=clone)
    assert memx.ok("validate", cwd=clone).endswith("memory file(s) OK\n")


def test_a_pulled_memory_file_that_links_out_is_not_read_through(
        memx: Memx, repo: Path, tmp_path: Path) -> None:
    memory_id = memx.ok("add", "the deploy script lives in tools").strip()
    clone = _pulled(memx, repo, tmp_path, "")
    outside = tmp_path / "secret.yaml"  # a file outside that would parse as this memory
    outside.write_bytes((repo / ".memx" / "memories" / f"{memory_id}.yaml").read_bytes()
                        .replace(b"the deploy script lives in tools", b"SECRET outside"))
    link = repo / ".memx" / "memories" / f"{memory_id}.yaml"
    link.unlink()
    link.symlink_to(outside)
    _committed(repo, clone, "link")
    result = memx("list", cwd=clone)
    assert "SECRET" not in result.out + result.err
    assert result.err == (f"memx: warning: .memx/memories/{memory_id}.yaml: not a regular file;"
                          " move it out of the store (skipped)\n")
    assert "SECRET" not in memx("search", "SECRET", "--mode", "keyword", cwd=clone).out
    # control: the same bytes as a regular file are the memory
    (clone / ".memx" / "memories" / f"{memory_id}.yaml").unlink()
    (clone / ".memx" / "memories" / f"{memory_id}.yaml").write_bytes(outside.read_bytes())
    assert "SECRET outside" in memx.ok("list", cwd=clone)


def _in_a_process(repo: Path, *args: str) -> None:
    """memx ARGS in a process of its own (a store's leftovers are recovered once a
    process)."""
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "memx_cli", *args], cwd=repo, check=True,
                   capture_output=True, timeout=120)


def test_a_planted_intent_repairs_only_memories_of_the_store(memx: Memx, repo: Path,
                                                             tmp_path: Path) -> None:
    """An interrupted supersede's intent (local/intents/) names the old memory by id; one
    committed or planted with a path for an id never reaches a file outside the store."""
    import shutil

    memory_id = memx.ok("add", "the deploy script lives in tools").strip()
    path = repo / ".memx" / "memories" / f"{memory_id}.yaml"
    dangling = path.read_text().replace("veracity:", "superseded_by: 01m98t00000000000000000000\n"
                                        "veracity:")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / f"{memory_id}.yaml").write_text(dangling)
    intents = repo / ".memx" / "local" / "intents"
    intents.mkdir(parents=True, exist_ok=True)
    dead = 2 ** 22 + 12345  # above Linux's default pid_max: no process has it
    (intents / "supersede-1.json").write_text(json.dumps(
        {"operation": "supersede", "pid": dead, "old": f"../../../outside/{memory_id}"}))
    _in_a_process(repo, "add", "a second memory, taking the store lock")
    assert (outside / f"{memory_id}.yaml").read_text() == dangling
    assert not (intents / "supersede-1.json").exists()
    # control: the same intent naming the memory by its id repairs it in the store
    shutil.copy(outside / f"{memory_id}.yaml", path)
    (intents / "supersede-2.json").write_text(json.dumps(
        {"operation": "supersede", "pid": dead, "old": memory_id}))
    _in_a_process(repo, "add", "a third memory, taking the store lock")
    assert "superseded_by" not in path.read_text()


def test_a_pulled_backtracking_pattern_is_a_one_line_error_not_a_hang(
        memx: Memx, repo: Path, tmp_path: Path) -> None:
    """ace.reflector.custom_patterns run over every write (the pre-commit hook's check
    too): '(a+)+$' from a committed file held `memx add` and `git commit` for good."""
    config = ("ace:\n  reflector:\n    custom_patterns:\n    - name: slow\n"
              "      pattern: '(a+)+$'\n")
    clone = _pulled(memx, repo, tmp_path, config)
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "memx_cli", "add", "a" * 40 + "!"],
                          cwd=clone, capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"memx: error: {clone}/.memx/config.yaml: configuration key "
        "'ace.reflector.custom_patterns': pattern 'slow' repeats a repetition, as (a+)+ does, "
        "which can take exponential time on one line; write it without the nesting, or make "
        "the inner part possessive (a++) or atomic ((?>a+)), got [{'name': 'slow', "
        "'pattern': '(a+)+$'}]\n")
    # control: the same repetition, possessive, is a team's pattern that masks
    (clone / ".memx" / "config.yaml").write_text(config.replace("(a+)+$", "ACME-(?:a++)+"))
    out = json.loads(memx.ok("add", "the key is ACME-aaaa here", "--json", cwd=clone))
    assert out["memory"]["content"] == "the key is [REDACTED:slow] here"


def test_a_pulled_pattern_that_matches_nothing_at_all_is_refused(
        memx: Memx, repo: Path, tmp_path: Path) -> None:
    """A pattern that matches the empty string (`\\w*`) masks a place in every text: a
    committed one would put [REDACTED:...] between the letters of every memory."""
    config = ("ace:\n  reflector:\n    custom_patterns:\n    - name: token\n"
              "      pattern: '(?:tok_)?\\w*'\n")
    clone = _pulled(memx, repo, tmp_path, config)
    before = sorted((clone / ".memx" / "memories").glob("*.yaml"))
    result = memx("add", "the deploy script lives in tools", cwd=clone)
    assert result.code == 2
    assert result.err.splitlines()[-1].startswith(
        f"memx: error: {clone}/.memx/config.yaml: configuration key "
        "'ace.reflector.custom_patterns': pattern 'token' matches the empty string, so it "
        "would mask a place in every text")
    assert sorted((clone / ".memx" / "memories").glob("*.yaml")) == before  # nothing written
    # control: the same pattern needing its prefix masks the token only
    (clone / ".memx" / "config.yaml").write_text(config.replace("(?:tok_)?", "tok_"))
    out = json.loads(memx.ok("add", "use tok_abc123 here", "--json", cwd=clone))
    assert out["memory"]["content"] == "use [REDACTED:token] here"


def test_a_pulled_file_name_with_a_newline_is_named_on_one_line(
        memx: Memx, repo: Path, tmp_path: Path) -> None:
    good = memx.ok("add", "the deploy script lives in tools").strip()
    clone = _pulled(memx, repo, tmp_path, "")
    source = repo / ".memx" / "memories" / f"{good}.yaml"
    (source.parent / "odd\nname\x1b[2J.yaml").write_bytes(source.read_bytes())
    _committed(repo, clone, "odd name")
    result = memx("list", cwd=clone)
    assert result.code == 0 and good[:12] in result.out
    assert result.err == (f"memx: warning: .memx/memories/odd\\nname\\x1b[2J.yaml:2: id {good}"
                          f" does not match the file name; rename the file to {good}.yaml "
                          "(skipped)\n")
    # control: a name in any script stays as it is
    (clone / ".memx" / "memories" / "odd\nname\x1b[2J.yaml").rename(
        clone / ".memx" / "memories" / "部署.yaml")
    assert "memx: warning: .memx/memories/部署.yaml:2: id" in memx("list", cwd=clone).err


def _private_store(memx: Memx, tmp_path: Path) -> tuple[Path, str]:
    """Another repository of the reviewer's, with a memory of its own: (folder, HEAD)."""
    root = tmp_path / "private"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    memx.ok("init", cwd=root)
    memx.ok("add", "--raw", "The production vault path is kv/prod-7731", cwd=root)
    git(root, "add", ".memx")
    git(root, "commit", "-q", "-m", "private memory")
    return root, git(root, "rev-parse", "HEAD").strip()


def test_a_pulled_source_is_neither_fetched_nor_read_until_the_reviewer_approves_it(
        memx: Memx, repo: Path, tmp_path: Path) -> None:
    # trust18: the post-merge hook cloned whatever a pulled config named (here a local
    # repository of the reviewer's), and search served its memories in this repository
    private, head = _private_store(memx, tmp_path)
    config = f"sources:\n  team:\n    url: file://{private}\n"
    lock = f"team:\n  url: file://{private}\n  commit: {head}\n"
    clone = _pulled(memx, repo, tmp_path, config, {".memx/sources.lock": lock})
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "memx" / "sources"
    assert not cache.exists()  # the hook fetched nothing
    assert "is not approved on this machine" in (clone / ".memx/local/hooks.log").read_text()
    found = memx("search", "vault path", "--json", cwd=clone)
    assert json.loads(found.out)["results"] == []
    assert "source team (file://" in found.err and "memx source approve team" in found.err
    update = memx("source", "update", cwd=clone)
    assert "not approved" in update.err and not cache.exists()
    listed = json.loads(memx.ok("source", "list", "--json", cwd=clone))["sources"]
    assert listed[0]["approved"] is False
    # control: the reviewer's own consent, in their own list, lets the same source in
    assert f"Approved source team: file://{private}" in memx.ok(
        "source", "approve", "team", cwd=clone)
    memx.ok("source", "update", cwd=clone)
    data = json.loads(memx.ok("search", "vault path", "--json", cwd=clone))
    assert data["results"][0]["store"] == "source:team"


def test_an_approved_source_whose_url_a_pull_changes_is_not_fetched_again(
        memx: Memx, repo: Path, tmp_path: Path) -> None:
    private, head = _private_store(memx, tmp_path)
    memx.ok("source", "add", "team", str(private))  # approves the folder typed
    other = tmp_path / "other"
    shutil.copytree(private, other)
    config = f"sources:\n  team:\n    url: {other}\n"
    lock = f"team:\n  url: {other}\n  commit: {head}\n"
    # the reviewer is the one who subscribed; the collaborator points the name elsewhere
    clone = _pulled(memx, repo, tmp_path, config, {".memx/sources.lock": lock})
    found = memx("search", "vault path", "--json", cwd=clone)
    assert json.loads(found.out)["results"] == []
    assert f"source team ({other}) is not approved" in found.err
    # control: the first location, approved by add, is still read in the first clone
    git(repo, "checkout", "-q", "HEAD~1", "--", ".memx")
    data = json.loads(memx.ok("search", "vault path", "--json"))
    assert data["results"][0]["store"] == "source:team"


def test_a_pulled_agents_export_rewrites_no_instruction_file(
        memx: Memx, repo: Path, tmp_path: Path) -> None:
    # trust18: the committed config chose which files every reviewer's hooks rewrite
    memx.ok("add", "--raw", "The worker consumes the orders queue.")
    clone = _pulled(memx, repo, tmp_path, "agents:\n  export: [claude-md]\n")
    (repo / ".memx" / "config.yaml").write_text("agents:\n  export: [claude-md]\n# moved\n")
    memx.ok("add", "--raw", "The worker retries each order three times.")
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "one more memory")
    git(clone, "pull", "-q", "--no-rebase")
    assert not (clone / "CLAUDE.md").exists()
    result = memx("config", "get", "agents.export", cwd=clone)
    assert result.out == "[]\n" and "agents.export is not read from the committed" in result.err
    # control: the reviewer's own choice, in config.local.yaml, is followed on the next pull
    memx.ok("config", "set", "agents.export", "[claude-md]", "--local", cwd=clone)
    memx.ok("add", "--raw", "Orders older than a week are archived.")
    git(repo, "add", ".memx")
    git(repo, "commit", "-q", "-m", "and another")
    git(clone, "pull", "-q", "--no-rebase")
    assert "Orders older than a week are archived." in (clone / "CLAUDE.md").read_text()


@pytest.mark.parametrize("link", ["AGENTS.md", ".cursor"])
def test_an_instruction_file_a_pull_made_a_link_is_neither_read_nor_written(
        memx: Memx, repo: Path, tmp_path: Path, link: str) -> None:
    # trust18: a committed AGENTS.md linking to the reviewer's ~/.bashrc was read and its
    # text written into the repository with the block; .cursor linking out moved the write
    memx.ok("add", "--raw", "The worker consumes the orders queue.")
    outside = tmp_path / "home-file"
    outside.mkdir()
    (outside / "rules").mkdir()
    (outside / "bashrc").write_text("export PRIVATE_TOKEN_NAME=1\n")
    clone = _pulled(memx, repo, tmp_path, "")
    target = outside / "bashrc" if link == "AGENTS.md" else outside
    (repo / link).symlink_to(target)
    git(repo, "add", link)
    git(repo, "commit", "-q", "-m", "link")
    git(clone, "pull", "-q", "--no-rebase")
    fmt = "agents-md" if link == "AGENTS.md" else "cursor-rules"
    memx.ok("config", "set", "agents.export", f"[{fmt}]", "--local", cwd=clone)
    result = memx("export", "--format", fmt, cwd=clone)
    assert (result.code, result.err) == (2, f"memx: error: {link} is a symbolic link; memx "
                                            "writes its block only into a regular file of the "
                                            "work tree (replace the link with the file)\n")
    memx.ok("hook-impl", "post-rewrite", "amend", cwd=clone)
    assert f"export: {link} is a symbolic link" in (clone / ".memx/local/hooks.log").read_text()
    assert (clone / link).is_symlink() and sorted(p.name for p in outside.iterdir()) == [
        "bashrc", "rules"] and not any((outside / "rules").iterdir())
    assert (outside / "bashrc").read_text() == "export PRIVATE_TOKEN_NAME=1\n"
    # control: the same file as a regular file of the work tree gets its block
    (clone / link).unlink()
    memx.ok("export", "--format", fmt, cwd=clone)
    written = clone / ("AGENTS.md" if link == "AGENTS.md" else ".cursor/rules/memx.mdc")
    assert "orders queue" in written.read_text() and not written.is_symlink()


def test_a_committed_config_local_yaml_is_read_as_the_committed_configuration(
        memx: Memx, repo: Path, tmp_path: Path, listener: tuple[str, list[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # trust18: .memx/config.local.yaml is ignored by git, but `git add -f` commits it and a
    # pull writes it into a clone that had none: it was then read as the reviewer's own
    url, seen = listener
    monkeypatch.setenv(TOKEN_VARIABLE, "reviewer-token")
    clone = _pulled(memx, repo, tmp_path, "", {".memx/config.local.yaml":
                                               LLM_CONFIG.format(url=url)})
    (tmp_path / "s.jsonl").write_text(TRANSCRIPT)
    result = memx("ingest", str(tmp_path / "s.jsonl"), "--dry-run", cwd=clone)
    assert result.code == 0, result.err
    assert seen == []
    assert "git tracks this file (someone committed it)" in result.err
    assert "ace.reflector.llm.base_url is not read from the committed" in result.err
    assert memx.ok("config", "get", "ace.reflector.mode", cwd=clone) == "hybrid\n"
    # control: the same file made the reviewer's own again (untracked) is followed
    git(clone, "rm", "-q", "--cached", ".memx/config.local.yaml")
    assert memx.ok("config", "get", "ace.reflector.llm.base_url", cwd=clone) == f"{url}\n"


@pytest.mark.parametrize("pattern", [r"(a|a)+$", r"\w+\w+$"])
def test_a_pulled_pattern_that_backtracks_without_nesting_runs_out_of_time_not_forever(
        memx: Memx, repo: Path, tmp_path: Path, pattern: str) -> None:
    # trust18: overlapping alternatives (exponential) and adjacent repeats (cubic on one
    # long word) pass the nesting check; each custom pattern runs under a time budget
    config = ("ace:\n  reflector:\n    custom_patterns:\n    - name: slow\n"
              f"      pattern: '{pattern}'\n")
    clone = _pulled(memx, repo, tmp_path, config)
    import subprocess
    import sys

    word = "a" * 5000 + "!"
    proc = subprocess.run([sys.executable, "-m", "memx_cli", "add", word],
                          cwd=clone, capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (4, "")  # its own exit code (trust19)
    assert proc.stderr == ("memx: error: the custom pattern 'slow' (ace.reflector."
                           "custom_patterns) ran over 2 s on this text, so nothing was "
                           "stored; make it match in linear time (no alternatives or repeats "
                           "that can match the same text twice) or remove it\n")
    assert json.loads(memx.ok("list", "--json", cwd=clone)) == {"memories": []}
    # control: a linear pattern of the team's masks the same long text
    (clone / ".memx" / "config.yaml").write_text(config.replace(pattern, "ACME-[a-z]{4}"))
    out = json.loads(memx.ok("add", f"ACME-abcd {word}", "--json", cwd=clone))
    assert out["memory"]["content"].startswith("[REDACTED:slow] aaaa")
