"""Server on = server off (issue 27): after each everyday change to a repository (a memx
command, an editor's save, a git operation, a source update, a configuration change ...)
the same reads through the thin client with the server running print exactly what the
full CLI prints in process. Every scenario warms the server on its own clone first, so a
change the server does not notice shows as a stale answer.

One server serves the whole module (it is per user; each scenario has its own clone), so
the model is loaded once. Each scenario also checks that the server answered its reads
(a read the server fails runs in process and would hide a stale server): a client that
runs a command in process says why in the server log, so a read that left no line there
was the server's (`World.served`), whatever the machine's speed. Each read and its
in-process twin run with one pinned "now" (`MEMX_NOW`): the ranking's recency moves with
the clock, and the two runs may be seconds apart. A read that differs leaves both answers
in the module's temporary folder (`mismatches/`) and names the fields that differ."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memx_cli.clock import format_timestamp
from memx_cli.wire.build import identity
from memx_cli.wire.paths import SOCKET_NAME
from memx_cli.wire.protocol import PROTOCOL, recv_json, send_json

from .conftest import GIT_ENV
from .test_server import FACTS, FULL, THIN

Change = Callable[["World", Path], None]


class World:
    """A home of its own (environment passed explicitly: the module outlives each test's
    isolated home), a template repository with FACTS committed, and one server."""

    def __init__(self, base: Path):
        self.base = base
        home = base / "home"
        home.mkdir()
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith("MEMX_") and k not in ("GIT_DIR", "GIT_WORK_TREE")}
        self.env.update(GIT_ENV)
        self.env.update({
            "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"), "XDG_CACHE_HOME": str(home / "cache"),
            "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
            "MEMX_SERVER_DIR": str(home / "run"), "COLUMNS": "100", "LINES": "20",
            # the client's wait for an answer only catches a hung server: a slow answer
            # on a loaded machine is still the server's (its default, 5 s, would run
            # the read in process and make the suite depend on the machine's speed)
            "MEMX_SERVER_TIMEOUT": "120",
        })
        self.cold = {**self.env, "MEMX_NO_SERVER": "1"}
        self.template = base / "template"
        self.template.mkdir()
        self.git(self.template, "init", "-q", "-b", "main")
        self.memx(self.template, "init")
        for content, domain in FACTS:
            self.memx(self.template, "add", "--raw", content, "--domain", domain)
        self.git(self.template, "add", "-A")
        self.git(self.template, "commit", "-q", "-m", "memories")
        self.count = 0
        self.mismatches = 0

    def run(self, cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=120)
        return proc.returncode, proc.stdout.decode(), proc.stderr.decode()

    def memx(self, cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
        """A memx command in process (no server), which must succeed."""
        code, out, err = self.run([*FULL, *args], cwd, {**self.cold, **(env or {})})
        assert code == 0, f"memx {' '.join(args)}: {err}"
        return out

    def git(self, cwd: Path, *args: str) -> str:
        proc = subprocess.run(["git", *args], cwd=cwd, env=self.env, capture_output=True,
                              text=True)
        assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
        return proc.stdout

    def clone(self, name: str | None = None) -> Path:
        self.count += 1
        root = self.base / (name or f"repo{self.count}")
        self.git(self.base, "clone", "-q", str(self.template), str(root))
        return root

    def served(self, args: list[str], cwd: Path,
               env: dict[str, str] | None = None) -> tuple[int, str, str]:
        """A command through the thin client, which the server must have answered: a client
        that runs a command in process says why in the server log (`memx[PID]: ...`
        lines; the server's own lines are timestamped), so no new such line means the
        server's answer was the one printed."""
        log = Path(self.env["XDG_CACHE_HOME"]) / "memx" / "server.log"
        start = log.stat().st_size if log.exists() else 0
        result = self.run([*THIN, *args], cwd, {**self.env, **(env or {})})
        with open(log, "ab+") as file:
            file.seek(start)
            said = [line for line in file.read().decode("utf-8", "replace").splitlines()
                    if line.startswith("memx[")]
        assert not said, f"memx {' '.join(args)} ran in process: {said}"
        return result

    def requests(self) -> int:
        """The requests the server has answered (asked on its socket, as `memx server
        status` does, without starting a process)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(30)
            sock.connect(self.env["MEMX_SERVER_DIR"] + os.sep + SOCKET_NAME)
            send_json(sock, {"proto": PROTOCOL, "version": identity(), "op": "status"})
            reply = recv_json(sock)
        assert reply["status"] == "ok", reply
        return int(reply["requests"])


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    made = World(tmp_path_factory.mktemp("scenarios"))
    code, _, err = made.run([*FULL, "server", "start"], made.base, made.env)
    assert code == 0, err
    yield made
    made.run([*FULL, "server", "stop"], made.base, made.env)


QUERY = "payment webhook retries"
READS = [
    ["search", QUERY],
    ["search", QUERY, "--json"],
    ["list"],
    ["list", "--json"],
    ["context", "fix the " + QUERY],
    ["context", "fix the " + QUERY, "--json"],
]


Result = tuple[int, str, str]


def field_diff(thin: Any, full: Any, where: str = "$") -> list[str]:
    """The fields where two JSON documents differ, one line each (`path: thin | full`)."""
    if isinstance(thin, dict) and isinstance(full, dict):
        lines = []
        for key in [*thin, *(k for k in full if k not in thin)]:
            if key not in full or key not in thin:
                side = "server only" if key in thin else "in process only"
                lines.append(f"{where}.{key}: {side}")
            else:
                lines += field_diff(thin[key], full[key], f"{where}.{key}")
        return lines
    if isinstance(thin, list) and isinstance(full, list):
        lines = [f"{where}: {len(thin)} items | {len(full)} items"] \
            if len(thin) != len(full) else []
        for n, (a, b) in enumerate(zip(thin, full, strict=False)):
            lines += field_diff(a, b, f"{where}[{n}]")
        return lines
    return [] if thin == full else [f"{where}: {thin!r} | {full!r}"]


def explain_mismatch(world: World, args: list[str], thin: Result, full: Result,
                     times: tuple[float, float, float]) -> str:
    """Both answers saved beside the scenario's repositories, and what differs: the
    fields of a JSON output, else the lines. ``times``: when the server's read started,
    when the in-process one started, when it ended."""
    world.mismatches += 1
    folder = world.base / "mismatches"
    folder.mkdir(exist_ok=True)
    stem = f"{world.mismatches:02d}-{os.environ.get('PYTEST_CURRENT_TEST', '?').split()[0]}"
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in stem)
    stamps = [time.strftime("%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1000):03d}"
              for t in times]
    for name, (code, out, err), span in (("server", thin, stamps[:2]),
                                          ("in-process", full, stamps[1:])):
        (folder / f"{stem}.{name}.txt").write_text(
            f"memx {' '.join(args)}\nran {span[0]} - {span[1]} UTC\nexit {code}\n"
            f"--- stdout\n{out}--- stderr\n{err}")
    lines = [f"memx {' '.join(args)}: the server's answer (left, {stamps[0]} - {stamps[1]}"
             f" UTC) is not the in-process one (right, until {stamps[2]});"
             f" both in {folder}/{stem}.*"]
    if thin[0] != full[0]:
        lines.append(f"exit: {thin[0]} | {full[0]}")
    try:
        fields = field_diff(json.loads(thin[1]), json.loads(full[1]))
    except ValueError:
        fields = [line.rstrip("\n") for line in difflib.unified_diff(
            thin[1].splitlines(True), full[1].splitlines(True), "server", "in process")]
    lines += fields
    if thin[2] != full[2]:
        lines += [line.rstrip("\n") for line in difflib.unified_diff(
            thin[2].splitlines(True), full[2].splitlines(True), "server stderr",
            "in-process stderr")]
    return "\n".join(lines)


def same(world: World, repo: Path, env: dict[str, str] | None = None,
         reads: list[list[str]] = READS) -> None:
    """Every read prints the same through the server as in process, and the server
    answered each (none ran in process: no word from the client in the log)."""
    before = world.requests()
    for args in reads:
        # Both runs at one moment: a fresh memory's recency boost falls by ~2e-7 of its
        # score a second, so the in-process run, seconds after the server's on a loaded
        # machine, could print a 4-decimal score of --json one lower (0.704 | 0.7039).
        pinned = {**(env or {}), "MEMX_NOW": format_timestamp(datetime.now(UTC))}
        started = time.time()
        thin = world.served(args, repo, pinned)
        between = time.time()
        full = world.run([*FULL, *args], repo, {**world.cold, **pinned})
        assert thin == full, explain_mismatch(world, args, thin, full,
                                              (started, between, time.time()))
    # each thin read was answered by the server (plus this status request)
    assert world.requests() >= before + len(reads) + 1, "a read ran in process"


def warm(world: World, repo: Path, env: dict[str, str] | None = None) -> None:
    """The server holds this repository warm (its searcher synced) before the change."""
    for args in (["search", QUERY], ["list"], ["context", QUERY]):
        code, _, err = world.served(args, repo, env)
        assert code == 0, err


def memory_file(repo: Path, word: str) -> Path:
    [path] = [p for p in (repo / ".memx" / "memories").glob("*.yaml") if word in p.read_text()]
    return path


def scenario(world: World, change: Change, env: dict[str, str] | None = None) -> Path:
    repo = world.clone()
    warm(world, repo, env)
    change(world, repo)
    same(world, repo, env)
    return repo


# -- memx commands -------------------------------------------------------------------

def test_add_in_process(world: World) -> None:
    scenario(world, lambda w, r: w.memx(r, "add", "--raw", "Payment webhook retries are logged",
                                        "--domain", "payments"))


def test_add_through_the_server(world: World) -> None:
    def change(w: World, r: Path) -> None:
        code, _, err = w.served(["add", "--raw", "Webhook retries page the on-call",
                                 "--domain", "payments"], r)
        assert code == 0, err
    scenario(world, change)


def test_rm(world: World) -> None:
    scenario(world, lambda w, r: w.memx(r, "rm", "--yes", memory_file(r, "retries 5").stem))


def test_superseded(world: World) -> None:
    def change(w: World, r: Path) -> None:
        w.memx(r, "add", "The payment webhook retries 7 times with exponential backoff now",
               "--domain", "payments")
        assert "superseded_by" in memory_file(r, "retries 5 times").read_text()
    scenario(world, change)


def test_conflict_recorded(world: World) -> None:
    def change(w: World, r: Path) -> None:
        w.memx(r, "add", "The payment webhook does not retry with exponential backoff",
               "--domain", "payments")
        assert "conflicts_with" in memory_file(r, "retries 5 times").read_text()
    scenario(world, change)


def test_sweep_archives_an_expired_memory(world: World) -> None:
    def change(w: World, r: Path) -> None:
        path = memory_file(r, "retries 5")
        path.write_text(path.read_text() + "valid_until: '2020-01-01T00:00:00Z'\n")
        w.memx(r, "sweep")
        assert not path.exists()
    scenario(world, change)


def test_config_set(world: World) -> None:
    scenario(world, lambda w, r: w.memx(r, "config", "set", "ace.retrieval.max_results", "2"))


def test_access_yaml_with_a_role(world: World) -> None:
    def change(w: World, r: Path) -> None:
        (r / ".memx" / "access.yaml").write_text("grants:\n  intern: {payments: none}\n")
    scenario(world, change, env={"MEMX_ROLE": "intern"})


def test_global_memory(world: World) -> None:
    # a global store of its own: the other scenarios' answers do not include it
    env = {"XDG_DATA_HOME": str(world.base / "data-global")}
    scenario(world, lambda w, r: w.memx(r, "add", "--raw", "--scope", "global",
                                        "Payment webhook retries alert after the third",
                                        env=env), env=env)


def test_policy_add_and_deactivate(world: World) -> None:
    def change(w: World, r: Path) -> None:
        out = w.memx(r, "policy", "add", "Retry payment webhooks idempotently")
        w.memx(r, "add", "--raw", "--kind", "policy", "Never retry a refund webhook")
        assert out
        policy = memory_file(r, "refund webhook")
        w.memx(r, "policy", "deactivate", policy.stem)
    scenario(world, change)


def test_reindex_full_by_another_process(world: World) -> None:
    def change(w: World, r: Path) -> None:
        path = memory_file(r, "pnpm")
        path.write_text(path.read_text().replace("pnpm", "payment webhook retries via yarn"))
        w.memx(r, "reindex", "--full")
    scenario(world, change)


def test_cache_deleted(world: World) -> None:
    scenario(world, lambda w, r: shutil.rmtree(r / ".memx" / "cache"))


# -- edits by hand -------------------------------------------------------------------

def test_edit_in_place(world: World) -> None:
    def change(w: World, r: Path) -> None:
        path = memory_file(r, "retries 5")
        text = path.read_text().replace("5 times", "9 times")
        with open(path, "w") as out:
            out.write(text)
    scenario(world, change)


def test_edit_by_rename_over(world: World) -> None:
    def change(w: World, r: Path) -> None:
        path = memory_file(r, "retries 5")
        temp = path.with_name(".tmp-edit")
        temp.write_text(path.read_text().replace("5 times", "11 times"))
        os.replace(temp, path)
    scenario(world, change)


def test_delete_by_hand(world: World) -> None:
    scenario(world, lambda w, r: memory_file(r, "retries 5").unlink())


def test_file_made_invalid(world: World) -> None:
    scenario(world, lambda w, r: memory_file(r, "retries 5").write_text("content: [unclosed\n"))


def test_edit_keeping_the_old_mtime(world: World) -> None:
    def change(w: World, r: Path) -> None:
        path = memory_file(r, "retries 5")
        st = path.stat()
        path.write_text(path.read_text().replace("5 times", "6 times"))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 10**12))
    scenario(world, change)


def test_hard_link_edited_from_outside(world: World) -> None:
    # a memory file with a second name outside .memx/ (made before the server saw it)
    repo = world.clone()
    path = memory_file(repo, "retries 5")
    outside = repo.parent / f"{repo.name}-linked.yaml"
    os.link(path, outside)
    warm(world, repo)
    for count, index_first in (("12", False), ("13", True)):
        text = outside.read_text().replace("5 times", f"{count} times").replace("12", count)
        with open(outside, "w") as out:
            out.write(text)
        if index_first:
            world.memx(repo, "search", "webhook")  # another command indexes the edit
        same(world, repo, reads=READS[:4])


def test_bulk_import_of_many_files(world: World) -> None:
    def change(w: World, r: Path) -> None:
        source = memory_file(r, "retries 5").read_text()
        old_id = memory_file(r, "retries 5").stem
        for n in range(600):
            new_id = f"{old_id[:-4]}{n:04d}"
            (r / ".memx" / "memories" / f"{new_id}.yaml").write_text(
                source.replace(old_id, new_id).replace("5 times", f"{n} times"))
    scenario(world, change)


def test_edit_while_the_server_is_busy(world: World) -> None:
    def change(w: World, r: Path) -> None:
        busy = subprocess.Popen([*THIN, "list"], cwd=r, env=w.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        path = memory_file(r, "retries 5")
        path.write_text(path.read_text().replace("5 times", "15 times"))
        busy.communicate(timeout=60)
    scenario(world, change)


# -- git -----------------------------------------------------------------------------

def _branch_with_changes(w: World, r: Path) -> None:
    w.git(r, "checkout", "-q", "-b", "other")
    memory_file(r, "pnpm").unlink()
    w.memx(r, "add", "--raw", "Payment webhook retries wait 30 s on the other branch")
    w.git(r, "add", "-A")
    w.git(r, "commit", "-q", "-m", "other branch")
    w.git(r, "checkout", "-q", "main")


def test_checkout_of_another_branch(world: World) -> None:
    def change(w: World, r: Path) -> None:
        w.git(r, "checkout", "-q", "other")
    repo = world.clone()
    _branch_with_changes(world, repo)
    warm(world, repo)
    change(world, repo)
    same(world, repo)
    world.git(repo, "checkout", "-q", "main")  # and back
    same(world, repo)


def test_pull_from_a_second_clone(world: World) -> None:
    upstream = world.template
    repo = world.clone()
    warm(world, repo)
    second = world.clone()
    world.memx(second, "add", "--raw", "Payment webhook retries are capped at one hour")
    world.git(second, "add", "-A")
    world.git(second, "commit", "-q", "-m", "a memory")
    world.git(second, "push", "-q", str(upstream), "HEAD:incoming")
    world.git(repo, "pull", "-q", "--no-rebase", "origin", "incoming")
    same(world, repo)


def test_merge(world: World) -> None:
    def change(w: World, r: Path) -> None:
        w.git(r, "merge", "-q", "--no-edit", "other")
    repo = world.clone()
    _branch_with_changes(world, repo)
    world.memx(repo, "add", "--raw", "Payment webhook retries are logged on main")
    world.git(repo, "add", "-A")
    world.git(repo, "commit", "-q", "-m", "main memory")
    warm(world, repo)
    change(world, repo)
    same(world, repo)


def test_rebase(world: World) -> None:
    repo = world.clone()
    _branch_with_changes(world, repo)
    world.memx(repo, "add", "--raw", "Payment webhook retries are logged on main")
    world.git(repo, "add", "-A")
    world.git(repo, "commit", "-q", "-m", "main memory")
    world.git(repo, "checkout", "-q", "other")
    warm(world, repo)
    world.git(repo, "rebase", "-q", "main")
    same(world, repo)


def test_revert(world: World) -> None:
    repo = world.clone()
    world.memx(repo, "add", "--raw", "Payment webhook retries are reverted soon")
    world.git(repo, "add", "-A")
    world.git(repo, "commit", "-q", "-m", "a memory")
    warm(world, repo)
    world.git(repo, "revert", "--no-edit", "HEAD")
    same(world, repo)


def test_second_repository_then_back(world: World) -> None:
    repo = world.clone()
    other = world.clone()
    warm(world, repo)
    warm(world, other)
    world.memx(other, "add", "--raw", "Payment webhook retries in the other repository")
    same(world, other)
    memory_file(repo, "retries 5").write_text(
        memory_file(repo, "retries 5").read_text().replace("5 times", "21 times"))
    same(world, repo)


# -- sources -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def team(world: World) -> Path:
    root = world.base / "team-memory"
    root.mkdir()
    world.git(root, "init", "-q", "-b", "main")
    world.memx(root, "init")
    world.memx(root, "add", "--raw", "--domain", "payments",
               "Team rule: payment webhook retries use jitter")
    world.git(root, "add", "-A")
    world.git(root, "commit", "-q", "-m", "team memory")
    return root


def test_source_add_update_remove(world: World, team: Path) -> None:
    repo = world.clone()
    warm(world, repo)
    world.memx(repo, "source", "add", "team", str(team))
    same(world, repo)
    world.memx(team, "add", "--raw", "--domain", "payments",
               "Team rule: payment webhook retries stop after a day")
    world.git(team, "add", "-A")
    world.git(team, "commit", "-q", "-m", "more")
    world.memx(repo, "source", "update", "team")
    same(world, repo)
    world.memx(repo, "source", "remove", "team")
    same(world, repo)
