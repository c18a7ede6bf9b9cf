"""The memx server and the thin client (issue 15), end to end in real processes: the
output of a forwarded command is byte for byte the in-process CLI's, writes are seen,
and every way the server can be missing falls back to the same output."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memx_cli.clock import format_timestamp
from memx_cli.wire.build import identity

from .conftest import Memx
from .test_sources import team_repo  # noqa: F401 - a fixture

THIN = [sys.executable, "-m", "memx_cli.executable"]
FULL = [sys.executable, "-m", "memx_cli"]
FACTS = [
    ("The payment webhook retries 5 times with exponential backoff", "payments"),
    ("Use pnpm, not npm, to install JavaScript dependencies", "tooling"),
    ("The staging database is reset every Sunday night", "infra"),
    ("Run the test suite with pytest -q before every push", "tooling"),
    ("Webhook signatures are checked with the shared secret from the vault", "payments"),
    ("Deploys go through the release branch, never straight from main", "process"),
]


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None,
        timeout: float = 60) -> tuple[int, bytes, bytes]:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout,
                          env=env if env is not None else os.environ.copy())
    return proc.returncode, proc.stdout, proc.stderr


def status() -> dict:
    code, out, _ = run([*FULL, "server", "status", "--json"], Path.cwd())
    assert code == 0
    return json.loads(out)["server"]


def wait_running(timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = status()
        if info["running"]:
            return info
        time.sleep(0.1)
    raise AssertionError("the server did not start")


def settled_status(timeout: float = 30) -> dict:
    """status() once no server is starting: a command that spawns one passes it the spawn
    lock, which it lets go only after binding its socket. So a server a command started
    answers here, and "not running" means none was started (no sleep to guess how long a
    start takes; the deadline only bounds a hang)."""
    lock = Path(os.environ["MEMX_SERVER_DIR"]) / "spawn.lock"
    deadline = time.monotonic() + timeout
    while lock.exists():
        fd = os.open(lock, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break  # free (closing the descriptor lets go of it)
        except BlockingIOError:
            assert time.monotonic() < deadline, "a server held the spawn lock for 30 s"
        finally:
            os.close(fd)
        time.sleep(0.05)
    return status()


def wait_stopped(timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while (info := status())["running"]:
        assert time.monotonic() < deadline, "the server did not stop"
        time.sleep(0.05)
    return info


def connections_to(sock: str) -> int:
    """Sockets bound to or connected through ``sock``'s path (Linux /proc/net/unix: the
    listening socket, then one per connection, accepted or still in its backlog)."""
    lines = Path("/proc/net/unix").read_text().splitlines()[1:]
    return sum(1 for line in lines if line.split()[-1] == sock)


@pytest.fixture
def served(memx: Memx, repo: Path) -> Iterator[Path]:
    """A store with a few facts and a running server; stopped (or killed) afterwards."""
    for content, domain in FACTS:
        memx.ok("add", "--raw", content, "--domain", domain)
    code, _, err = run([*FULL, "server", "start"], repo)
    assert code == 0, err
    yield repo
    info = status()
    run([*FULL, "server", "stop"], repo)
    if info.get("pid"):
        try:
            os.kill(info["pid"], signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_closed_stdout_through_the_server_ends_as_in_process(served: Path) -> None:
    """`memx add ... >&-` answered by the server: the write to the closed descriptor has
    nowhere to go, and the command's own exit code stands (0), as it does in process; it
    was 1 with nothing said. The control: the same add with its output open prints the
    id, and both memories are stored."""
    before = requests_served()
    code, out, err = run(["sh", "-c", 'exec "$@" >&-', "sh", *THIN, "add",
                          "Release notes are written in CHANGES.md"], served)
    assert (code, err) == (0, b"")
    assert requests_served() > before  # the server ran it
    code, out, err = run([*THIN, "add", "Tags are signed with the release key"], served)
    assert code == 0 and out.strip()
    code, out, _ = run([*FULL, "list"], served)
    assert b"Release notes are written in CHANGES.md" in out
    assert b"Tags are signed with the release key" in out


def test_a_reader_gone_and_a_narrow_encoding_through_the_server(served: Path) -> None:
    """Answered by the server, as in process (tests/test_output_streams.py): a reader
    gone ends a search with 0 and nothing said; an output declared latin-1 gets the
    memory's → as an escape, the JSON as \\u escapes. The control: UTF-8 writes it."""
    added = run([*FULL, "add", "--raw", "Webhook retries → exponential backoff"], served)
    assert added[0] == 0
    before = requests_served()
    read, write = os.pipe()
    os.close(read)
    try:
        gone = subprocess.run([*THIN, "search", "webhook", "-n", "50"], cwd=served,
                              stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert (gone.returncode, gone.stderr) == (0, b"")
    latin = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    code, out, err = run([*THIN, "search", "webhook backoff", "-n", "1"], served, latin)
    assert (code, err) == (0, b"") and b"retries \\u2192 exponential" in out
    code, out, err = run([*THIN, "search", "webhook backoff", "-n", "1", "--json"], served,
                         latin)
    assert code == 0 and out.isascii() and b"\\u2192" in out
    assert requests_served() >= before + 3  # the server ran them
    code, out, _ = run([*THIN, "search", "webhook backoff", "-n", "1"], served)
    assert code == 0 and "retries → exponential" in out.decode("utf-8")


def requests_served() -> int:
    return int(status()["requests"])


COMMANDS = [
    ["search", "webhook"],
    ["search", "webhook retries", "--mode", "keyword"],
    ["search", "how do we install packages", "--json"],
    ["search", "database reset", "--mode", "semantic", "--json"],
    ["search", "webhook", "--explain", "-n", "1"],
    ["search", "zzzz unrelated qqqq"],
    ["search", "webhook", "--limit", "0"],
    ["search", "webhook", "--bogus"],
    ["search", "webhook", "--scope", "nonsense scope"],
    ["list"],
    ["list", "--json", "--kind", "fact"],
    ["context", "fix the payment webhook retry logic in the worker"],
    ["context", "fix the payment webhook retry logic in the worker", "--json"],
    ["search", "--help"],
]


def test_forwarded_output_is_byte_identical(served: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # one "now" for both runs: the recency factor in the scores moves with the clock
    monkeypatch.setenv("MEMX_NOW", format_timestamp(datetime.now(UTC)))
    before = requests_served()
    for args in COMMANDS:
        assert run([*THIN, *args], served) == run([*FULL, *args], served), args
    # each thin call was answered by the server (one status request per count too)
    assert requests_served() >= before + len(COMMANDS)


def test_access_rules_and_identity_are_the_callers(served: Path, repo: Path) -> None:
    (repo / ".memx" / "access.yaml").write_text("grants:\n  intern: {payments: none}\n")
    env = {**os.environ, "MEMX_ROLE": "intern", "MEMX_AGENT": "helper"}
    full = run([*FULL, "search", "webhook", "--json"], served, env)
    thin = run([*THIN, "search", "webhook", "--json"], served, env)
    assert thin == full
    assert json.loads(full[1])["results"] == []  # both payments facts are hidden
    assert json.loads(run([*THIN, "search", "webhook", "--json"], served)[1])["results"]
    assert (run([*THIN, "context", "payment webhook retry logic in the worker"], served, env)
            == run([*FULL, "context", "payment webhook retry logic in the worker"], served, env))


def recall_lines(repo: Path) -> int:
    log = repo / ".memx" / "local" / "recalls.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_recalls_are_counted_once_per_forwarded_search(served: Path) -> None:
    start = recall_lines(served)
    run([*THIN, "search", "webhook"], served)
    after_thin = recall_lines(served)
    run([*FULL, "search", "webhook"], served)
    assert after_thin - start == recall_lines(served) - after_thin == 1


def memory_file(repo: Path, word: str) -> Path:
    [path] = [p for p in (repo / ".memx" / "memories").glob("*.yaml") if word in p.read_text()]
    return path


def test_writes_in_place_are_seen_by_the_next_search(served: Path) -> None:
    assert b"pnpm" in run([*THIN, "search", "pnpm", "--mode", "keyword"], served)[1]
    path = memory_file(served, "pnpm")
    text = path.read_text().replace("pnpm", "yarnberry")
    with open(path, "w") as out:  # truncate and write, as an editor saving in place does
        out.write(text)
    found = run([*THIN, "search", "yarnberry", "--mode", "keyword", "--json"], served)
    assert [r["id"] for r in json.loads(found[1])["results"]] == [path.stem]
    gone = run([*THIN, "search", "pnpm", "--mode", "keyword", "--json"], served)
    assert path.stem not in gone[1].decode()
    path.unlink()
    left = run([*THIN, "search", "yarnberry", "--mode", "keyword", "--json"], served)
    assert json.loads(left[1])["results"] == []


def test_first_call_runs_in_process_and_starts_the_server(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memx.ok("add", "--raw", "The cache key includes the locale")
    assert not status()["running"]
    monkeypatch.setenv("MEMX_NOW", format_timestamp(datetime.now(UTC)))  # one "now" for both
    first = run([*THIN, "search", "cache key"], repo)
    assert first == run([*FULL, "search", "cache key"], repo)
    info = wait_running()
    try:
        assert run([*THIN, "search", "cache key"], repo) == first
        assert status()["requests"] >= 2
    finally:
        os.kill(info["pid"], signal.SIGTERM)


def test_disabled_by_environment_or_configuration(served: Path, repo: Path) -> None:
    before = requests_served()
    env = {**os.environ, "MEMX_NO_SERVER": "1"}
    assert run([*THIN, "search", "webhook"], served, env) == run([*FULL, "search", "webhook"],
                                                               served)
    assert requests_served() == before + 1  # only the status request itself
    (repo / ".memx" / "config.yaml").write_text("server:\n  enabled: false\n")
    assert run([*THIN, "list"], served) == run([*FULL, "list"], served)
    # asked, refused: the command ran in process
    assert requests_served() == before + 3


def test_no_server_is_started_when_disabled(memx: Memx, repo: Path) -> None:
    memx.ok("add", "--raw", "The cache key includes the locale")
    (repo / ".memx" / "config.yaml").write_text("server:\n  enabled: false\n")
    assert run([*THIN, "list"], repo)[0] == 0
    run([*THIN, "search", "cache", "key"], repo, {**os.environ, "MEMX_NO_SERVER": "1"})
    assert not settled_status()["running"]


def test_killed_server_leaves_a_socket_that_is_cleaned_up(served: Path) -> None:
    pid = status()["pid"]
    os.kill(pid, signal.SIGKILL)
    sock = Path(wait_stopped()["socket"])
    assert sock.exists()  # what a crash leaves behind
    assert run([*THIN, "search", "webhook"], served) == run([*FULL, "search", "webhook"], served)
    info = wait_running()  # the stale socket was removed and a new server started
    assert info["pid"] != pid


def test_server_killed_mid_request_falls_back(served: Path) -> None:
    info = status()
    pid, sock = info["pid"], info["socket"]
    os.kill(pid, signal.SIGSTOP)  # the request will hang ...
    env = {**os.environ, "MEMX_SERVER_TIMEOUT": "30"}
    listening = connections_to(sock)
    proc = subprocess.Popen([*THIN, "search", "webhook"], cwd=served, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while connections_to(sock) == listening:  # the client has connected: mid-request
        assert time.monotonic() < deadline and proc.poll() is None, "the client never connected"
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)  # ... until the server dies under it
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == run([*FULL, "search", "webhook"], served)


def test_hung_server_times_out_quickly(served: Path) -> None:
    pid = status()["pid"]
    os.kill(pid, signal.SIGSTOP)
    try:
        env = {**os.environ, "MEMX_SERVER_TIMEOUT": "0.3"}
        assert run([*THIN, "list"], served, env) == run([*FULL, "list"], served)
    finally:
        os.kill(pid, signal.SIGCONT)
    log = Path(status()["log"]).read_text()
    assert "the server did not answer list (timed out); ran it in process" in log


def test_a_server_of_another_version_is_not_used(memx: Memx, repo: Path) -> None:
    memx.ok("add", "--raw", "The cache key includes the locale")
    other = subprocess.Popen([sys.executable, "-c", "import memx_cli, sys\n"
                              "memx_cli.__version__ = '0.0.1-other'\n"
                              "from memx_cli.server.daemon import main\nsys.exit(main())"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        info = wait_running()
        assert info["version"].startswith("0.0.1-other+") and "not used" in info["problem"]
        assert run([*THIN, "search", "cache key"], repo) == run([*FULL, "search", "cache key"],
                                                               repo)
        assert other.wait(timeout=60) == 0  # asked to stop
        assert wait_running()["version"] == identity()  # and a server of ours took its place
    finally:
        other.kill()
        run([*FULL, "server", "stop"], repo)


def test_a_server_of_another_install_of_the_same_version_is_not_used(memx: Memx,
                                                                     repo: Path) -> None:
    """memx re-installed while its server runs: same version string, other code (issue 27:
    exit 3 with ModuleNotFoundError for up to 15 minutes)."""
    memx.ok("add", "--raw", "The cache key includes the locale")
    other = subprocess.Popen([sys.executable, "-c", "import memx_cli, sys\n"
                              "import memx_cli.wire.build as build\n"
                              "build.identity = lambda: memx_cli.__version__ + '+0ld1nsta11'\n"
                              "from memx_cli.server.daemon import main\nsys.exit(main())"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_running()["version"].endswith("+0ld1nsta11")
        assert run([*THIN, "search", "cache key"], repo) == run([*FULL, "search", "cache key"],
                                                               repo)
        assert other.wait(timeout=60) == 0  # asked to stop
        assert wait_running()["version"] == identity()
    finally:
        other.kill()
        run([*FULL, "server", "stop"], repo)


def test_the_build_identity_changes_when_an_install_rewrites_the_package(
        tmp_path: Path) -> None:
    from memx_cli.wire.build import fingerprint

    root = tmp_path / "memx_cli"
    (root / "cli").mkdir(parents=True)
    (root / "cli" / "add.py").write_text("")
    first = fingerprint(str(root))
    assert fingerprint(str(root)) == first
    os.utime(root / "cli", ns=(0, 1_000_000_000))  # a file put in place or removed there
    assert fingerprint(str(root)) != first
    assert fingerprint(str(tmp_path / "elsewhere")) != first


def test_socket_directory_open_to_others_is_refused(memx: Memx, repo: Path,
                                                   tmp_path: Path) -> None:
    memx.ok("add", "--raw", "The cache key includes the locale")
    shared = Path(os.environ["MEMX_SERVER_DIR"])
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    assert run([*THIN, "list"], repo) == run([*FULL, "list"], repo)
    info = settled_status()
    assert not (shared / "server.sock").exists()  # refused, and none started there
    assert not info["running"] and "is open to other users (mode 755)" in info["problem"]
    assert "not using the server: " in Path(info["log"]).read_text()


def test_a_file_posing_as_the_socket_is_refused(memx: Memx, repo: Path) -> None:
    memx.ok("add", "--raw", "The cache key includes the locale")
    shared = Path(os.environ["MEMX_SERVER_DIR"])
    shared.mkdir(mode=0o700)
    (shared / "server.sock").write_text("not a socket")
    assert run([*THIN, "list"], repo) == run([*FULL, "list"], repo)
    assert "is not a socket" in status()["problem"]


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to give the directory away")
def test_socket_directory_of_another_user_is_refused(memx: Memx, repo: Path) -> None:
    memx.ok("add", "--raw", "The cache key includes the locale")
    shared = Path(os.environ["MEMX_SERVER_DIR"])
    shared.mkdir(mode=0o700)
    os.chown(shared, 4242, -1)
    assert run([*THIN, "list"], repo) == run([*FULL, "list"], repo)
    assert "belongs to uid 4242, not to this user" in status()["problem"]


def test_thin_client_imports_nothing_heavy(served: Path) -> None:
    """Issue 29: a forwarded command imports none of memx's heavy dependencies, and not
    even the standard library's slower modules: typing, socket's selectors and hashlib's
    OpenSSL were a tenth of its time, re and json with what they pull in (enum, functools,
    collections) a fifth. Run with -S, the interpreter's own start-up only: a site's .pth
    files (coverage's subprocess hook under the README's test command) import some of them
    before memx does."""
    import memx_cli

    probe = ("import sys\nfrom memx_cli import executable as client\n"
             "reply, _ = client._forward(['search', 'webhook'])\n"
             "assert reply is not None and reply[0] == 0 and b'webhook' in reply[1]\n"
             "heavy = ['click', 'yaml', 'numpy', 'tantivy', 'usearch', 'model2vec', 'git',\n"
             "         'typing', 'socket', 'selectors', 'hashlib', '_hashlib',\n"
             "         're', 'json', 'enum', 'functools', 'collections']\n"
             "print(sorted(m for m in heavy if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": str(Path(memx_cli.__file__).resolve().parent.parent)}
    code, out, err = run([sys.executable, "-S", "-c", probe], served, env)
    assert (code, out, err) == (0, b"[]\n", b"")


def test_start_is_refused_where_the_server_is_disabled(memx: Memx, repo: Path) -> None:
    """A server started where it is disabled would serve nobody: say so, start none."""
    code, out, err = run([*FULL, "server", "start"], repo, {**os.environ, "MEMX_NO_SERVER": "1"})
    assert (code, out, err) == (2, b"", b"memx: error: the memx server is disabled here "
                                        b"(MEMX_NO_SERVER is set); commands run in process\n")
    (repo / ".memx" / "config.yaml").write_text("server:\n  enabled: false\n")
    code, out, err = run([*FULL, "server", "start"], repo)
    assert (code, out, err) == (2, b"", b"memx: error: the memx server is disabled here "
                                        b"(server.enabled is false); commands run in process\n")
    # -C names where: the setting of that repository, not of the process's directory
    code, out, err = run([*FULL, "-C", str(repo), "server", "start"], repo.parent)
    assert (code, out) == (2, b"") and b"(server.enabled is false)" in err
    code, out, err = run([*FULL, "-C", str(repo), "server", "status"], repo.parent)
    assert code == 0 and b"disabled here: server.enabled is false" in out
    assert not status()["running"]


def test_server_commands_without_a_server(repo: Path) -> None:
    code, out, err = run([*FULL, "server", "stop"], repo)
    assert (code, out, err) == (0, b"no memx server was running\n", b"")
    assert status()["running"] is False


def test_doctor_shows_the_server(served: Path) -> None:
    code, out, _ = run([*FULL, "doctor", "--json"], served)
    server = json.loads(out)["doctor"]["server"]
    assert code == 0 and server["running"] and server["pid"] == status()["pid"]
    text = run([*FULL, "doctor"], served)[1].decode()
    assert f"server:     running (pid {server['pid']}, memx {identity()})\n" in text
    run([*FULL, "server", "stop"], served)
    assert "server:     not running (started on demand)\n" in run([*FULL, "doctor"],
                                                                  served)[1].decode()


def test_dropped_searchers_stop_being_watched(memx: Memx, repo: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli.server import daemon
    from memx_cli.store.repo import Repo

    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=other, check=True)
    memx.ok("init", cwd=other)
    monkeypatch.setattr(daemon, "MAX_REPOSITORIES", 1)
    monkeypatch.setattr(daemon, "MAX_REMEMBERED", 0)  # none of them remembered either
    server = daemon.Daemon(idle_timeout=60)
    try:
        first = server.searcher(Repo(repo))
        first.search("anything", mode="keyword")
        assert list(server.watcher.roots) == [str(repo / ".memx")]
        assert server.searcher(Repo(repo)) is first  # kept warm
        server.searcher(Repo(other)).search("anything", mode="keyword")
        assert list(server.watcher.roots) == [str(other / ".memx")]
        assert not list((repo / ".memx" / "local").glob("server-watch-*"))
    finally:
        server.watcher.stop()


def _repositories(memx: Memx, tmp_path: Path, count: int) -> list[Path]:
    roots = []
    for i in range(count):
        root = tmp_path / f"repo{i}"
        root.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        memx.ok("init", cwd=root)
        memx.ok("add", "--raw", f"Service {i} deploys with make ship-{i}", cwd=root)
        roots.append(root)
    return roots


def test_warm_searchers_are_kept_by_the_size_of_their_indexes(
        memx: Memx, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: nine small repositories stay warm (a fixed count of 8 dropped the
    9th); a budget for two repositories' index files keeps the two most recent."""
    from memx_cli.server import daemon
    from memx_cli.server.warmth import footprint
    from memx_cli.store.repo import Repo

    roots = _repositories(memx, tmp_path, 9)
    server = daemon.Daemon(idle_timeout=60)
    try:
        for root in roots:
            server.searcher(Repo(root)).search("deploys", mode="keyword")
        assert sorted(key[0] for key in server.searchers) == sorted(map(str, roots))
    finally:
        server.watcher.stop()
    server = daemon.Daemon(idle_timeout=60)
    try:
        server.searcher(Repo(roots[0])).search("deploys", mode="keyword")
        size = max(footprint(s) for s in server.searchers.values())
        assert size > 0
        monkeypatch.setattr(daemon, "MEMORY_BUDGET", int(size * 2.5))
        for root in roots[1:4]:
            server.searcher(Repo(root)).search("deploys", mode="keyword")
        assert [key[0] for key in server.searchers] == [str(roots[2]), str(roots[3])]
    finally:
        server.watcher.stop()


def test_a_repository_opened_again_is_checked_for_its_changes_only(
        memx: Memx, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: the searcher of a repository dropped to make room leaves its stores
    watched; a searcher made for it again looks at the files changed since (an edit by
    hand) and at no other: no look at the store (git's check or a stat of every file).
    Before: every file checked (100-360 ms for the 9th repository)."""
    from memx_cli.freshness import journal
    from memx_cli.generator.search import Searcher
    from memx_cli.index import sync
    from memx_cli.server import daemon
    from memx_cli.store.repo import Repo

    first, other = _repositories(memx, tmp_path, 2)
    memx.ok("add", "--raw", "The nightly backup runs at two", cwd=first)
    monkeypatch.setattr(daemon, "MAX_REPOSITORIES", 1)
    server = daemon.Daemon(idle_timeout=60)
    looks: list[object] = []
    real_look, real_links = sync.look, journal._note_links
    monkeypatch.setattr(sync, "look", lambda *a: looks.append(a) or real_look(*a))
    monkeypatch.setattr(journal, "_note_links", lambda root, ids: (
        looks.append(ids) if ids is None else None) or real_links(root, ids))
    try:
        server.searcher(Repo(first)).search("nightly backup", mode="hybrid")
        server.searcher(Repo(other)).search("deploys", mode="hybrid")
        assert [key[0] for key in server.searchers] == [str(other)]  # the first dropped
        edited = next(p for p in (first / ".memx" / "memories").glob("*.yaml")
                      if "nightly" in p.read_text())
        edited.write_text(edited.read_text().replace("at two", "at four in the morning"))
        looks.clear()
        again = server.searcher(Repo(first))
        found = again.search("nightly backup", mode="hybrid")
        assert looks == []
        assert sum(index.scans for index in again.indexes) == 0
        assert [hit.doc["content"] for hit in found.hits] == [
            "The nightly backup runs at four in the morning"]
        alone = Searcher(Repo(first)).search("nightly backup", mode="hybrid",
                                             record_recalls=False)
        assert [(h.id, round(h.score, 6)) for h in found.hits] == [
            (h.id, round(h.score, 6)) for h in alone.hits]
    finally:
        server.watcher.stop()


def test_a_notice_given_once_per_searcher_is_given_every_time(served: Path, memx: Memx,
                                                              team_repo: Path,  # noqa: F811
                                                              ) -> None:
    """An unreachable source is noticed each time the stores are opened: once per
    in-process command, so the server must not keep the searcher that noticed it."""
    import shutil

    memx.ok("source", "add", "team", str(team_repo))
    shutil.rmtree(Path(os.environ["XDG_CACHE_HOME"]) / "memx" / "sources")
    full = run([*FULL, "search", "webhook"], served)
    assert b"is not in the cache; run memx source update (skipped)" in full[2]
    for _ in range(2):
        assert run([*THIN, "search", "webhook"], served) == full


def test_a_source_update_reaches_the_server(memx: Memx, served: Path,
                                           team_repo: Path) -> None:  # noqa: F811
    """The server's searcher is keyed by the sources' pinned commits too (issue 27: after
    `memx source update` it kept searching the old commit's memories)."""
    from tests.conftest import git

    memx.ok("source", "add", "team", str(team_repo))
    assert run([*THIN, "search", "kestrel"], served)[0] == 0  # the server now holds it
    memx.ok("add", "--raw", "--domain", "infra", "The production cluster is named osprey",
            cwd=team_repo)
    git(team_repo, "add", ".memx")
    git(team_repo, "commit", "-q", "-m", "more team memory")
    memx.ok("source", "update")
    thin = run([*THIN, "search", "osprey cluster"], served)
    assert thin == run([*FULL, "search", "osprey cluster"], served)
    assert b"osprey" in thin[1]


def test_a_server_whose_socket_was_removed_makes_way(served: Path) -> None:
    """Its socket gone, no client can reach it: it exits (freeing the lock) and the next
    command starts a new one (issue 27: every command ran cold for up to 15 minutes)."""
    first = status()
    os.unlink(first["socket"])
    deadline = time.monotonic() + 60  # bounds a hang only (it looks once a second)
    while time.monotonic() < deadline:
        try:
            os.kill(first["pid"], 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the server outlived its socket")
    assert run([*THIN, "search", "webhook"], served)[0] == 0  # in process; starts one
    assert wait_running()["pid"] != first["pid"]


def test_a_read_the_server_fails_runs_in_process(memx: Memx, repo: Path) -> None:
    """Commands never fail because of the server (issue 27): an internal error in the
    server's run of a search is not shown; the search runs here, the server is asked to
    stop and the log says what happened."""
    memx.ok("add", "--raw", "The cache key includes the locale")
    broken = subprocess.Popen([sys.executable, "-c", "import sys\n"
                               "from memx_cli import api\n"
                               "def boom(*a, **k):\n    raise RuntimeError('half-upgraded')\n"
                               "api.Memx.search = boom\n"
                               "from memx_cli.server.daemon import main\nsys.exit(main())"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        pid = wait_running()["pid"]
        assert pid == broken.pid
        thin = run([*THIN, "search", "cache key"], repo)
        assert thin == run([*FULL, "search", "cache key"], repo) and thin[0] == 0
        assert broken.wait(timeout=60) == 0  # asked to stop
        log = Path(status()["log"]).read_text()
        assert "the server failed search (memx: error: internal error: RuntimeError: " \
               "half-upgraded" in log
        doctor = json.loads(run([*FULL, "doctor", "--json"], repo)[1])["doctor"]["server"]
        assert doctor["last_fallback"].startswith("the server failed search (memx: error: "
                                                  "internal error: RuntimeError")
    finally:
        broken.kill()
        run([*FULL, "server", "stop"], repo)


def test_the_server_ends_itself_when_idle(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMX_SERVER_IDLE_TIMEOUT", "5")
    code, _, err = run([*FULL, "server", "start"], repo)
    assert code == 0, err
    info = status()
    assert info["running"] and info["idle_timeout"] == 5
    deadline = time.monotonic() + 60  # bounds a hang only: the event is "idle; exiting"
    while status()["running"] and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not status()["running"]
    assert not Path(info["socket"]).exists()
    assert "idle; exiting" in Path(info["log"]).read_text()


def test_status_text_shows_every_counter_of_the_json(served: Path) -> None:
    run([*THIN, "search", "webhook"], served)
    info = status()
    code, out, err = run([*FULL, "server", "status"], served)
    assert code == 0 and err == b""
    lines = out.decode().splitlines()
    assert lines[0].startswith(f"running: pid {info['pid']}, memx {info['version']}, up ")
    assert f"  serving {served}" in lines
    assert f"scans: {info['scans']}" in lines and f"marks_late: {info['marks_late']}" in lines
    shown = {"running", "problem", "note", "pid", "version", "uptime", "started", "requests",
             "idle_timeout", "repositories", "socket", "log"}
    named = {line.split(":")[0].split(".")[0] for line in lines}
    assert set(info) - shown <= named and set(info) - shown >= {"scans", "marks_late"}


def test_status_text_prints_what_the_payload_holds(capsys: pytest.CaptureFixture[str]) -> None:
    from memx_cli.cli.server import _show

    _show({"running": True, "pid": 42, "version": "9.9", "uptime": 12.5, "requests": 3,
           "idle_timeout": 900.0, "started": 1.0, "repositories": ["/w/a"],
           "socket": "/run/s.sock", "log": "/l/server.log", "scans": 2, "marks_late": 0,
           "watched": ["/w/a/.memx", "/w/b/.memx"], "proto": 3,
           "watcher": {"events": 17, "overflows": 0, "ratio": 0.25, "busy": False},
           "new_counter": None, "queues": []}, as_json=False)
    assert capsys.readouterr().out == (
        "running: pid 42, memx 9.9, up 12.5 s, 3 requests, idle timeout 900 s\n"
        "  serving /w/a\n"
        "socket:  /run/s.sock\n"
        "log:     /l/server.log\n"
        "marks_late: 0\n"
        "new_counter: none\n"
        "proto: 3\n"
        "queues: none\n"
        "scans: 2\n"
        "watched: /w/a/.memx, /w/b/.memx\n"
        "watcher.busy: false\n"
        "watcher.events: 17\n"
        "watcher.overflows: 0\n"
        "watcher.ratio: 0.25\n")


def test_the_first_command_leaves_its_store_open_for_the_second(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: the server a first command starts opens that repository's store by
    itself, so the second command finds it warm; a command arriving meanwhile is
    answered as in process."""
    memx.ok("add", "--raw", "The cache key includes the locale")
    assert not status()["running"]
    monkeypatch.setenv("MEMX_NOW", format_timestamp(datetime.now(UTC)))  # one "now" for both
    first = run([*THIN, "search", "cache key", "--json"], repo)
    assert first == run([*FULL, "search", "cache key", "--json"], repo)
    info = wait_running()
    try:
        # no forwarded command yet: only the server's own opening can list it
        deadline = time.monotonic() + 30
        while str(repo) not in info["repositories"] and time.monotonic() < deadline:
            time.sleep(0.1)
            info = status()
        assert info["repositories"] == [str(repo)]
        assert "opened in" in Path(info["log"]).read_text()
        assert run([*THIN, "search", "cache key", "--json"], repo) == first
    finally:
        os.kill(info["pid"], signal.SIGTERM)


def test_the_opening_leaves_nothing_for_the_second_command_to_load(memx: Memx,
                                                                     repo: Path) -> None:
    """Issue 29: the opening of the first repository runs the search through the CLI as
    a forwarded command does (its output dropped, no recall counted), so the second
    command imports nothing more (it imported the facade, the JSON output and more:
    ~15 ms over the third command)."""
    memx.ok("add", "--raw", "The cache key includes the locale")
    probe = ("import json, os, sys\n"
             "from memx_cli.server.daemon import Daemon\n"
             "from memx_cli.store import recall\n"
             "from memx_cli.store.repo import Repo\n"
             "here = os.getcwd()\n"
             "daemon = Daemon(60, repository=here)\n"
             "daemon.warm(here)\n"
             "counted = sorted(recall.load(Repo.discover().store).items())\n"
             "loaded = set(sys.modules)\n"
             "header, out, err = daemon.run({'argv': ['search', 'cache key', '--json'],\n"
             "    'cwd': here, 'env': dict(os.environ), 'streams': {}})\n"
             "print(json.dumps([header, sorted(set(sys.modules) - loaded), counted,\n"
             "    [c for c, _ in recall.load(Repo.discover().store).values()],\n"
             "    sorted(k[0] for k in daemon.searchers)]))\n")
    code, out, err = run([sys.executable, "-c", probe], repo)
    assert code == 0, err
    header, imported, counted, counts, warm = json.loads(out)
    assert header == {"status": "ok", "code": 0}
    assert imported == [], imported
    # the opening's own searches counted no recall; the forwarded one did
    assert (counted, counts, warm) == ([], [1], [str(repo)])


def server_processes(server_dir: str) -> set[int]:
    """The memx server processes (python -m memx_cli.server) of this test's server
    folder, as /proc shows them now."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            if b"memx_cli.server" not in argv:
                continue
            env = (entry / "environ").read_bytes().split(b"\0")
        except OSError:  # gone meanwhile, or not ours
            continue
        if f"MEMX_SERVER_DIR={server_dir}".encode() in env:
            found.add(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_concurrent_first_commands_start_one_server(memx: Memx, repo: Path) -> None:
    """Issue 29: four first commands at once start one server at a time (they started
    four, which each imported memx before three exited on the server lock). The test
    holds the server lock meanwhile, so no server can bind and answer a late command:
    every command finds none and would start one."""
    import fcntl

    from memx_cli.wire import paths

    memx.ok("add", "--raw", "The cache key includes the locale")
    assert not status()["running"]
    server_dir = paths.private_dir(create=True)
    held = os.open(os.path.join(server_dir, paths.LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)
    seen: set[int] = set()
    most = 0
    try:
        clients = [subprocess.Popen([*THIN, "search", "cache key"], cwd=repo,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                   for _ in range(4)]
        # a command starts its server (if any) before it runs itself: every server
        # started lives (waiting for the lock) while some command still runs
        while any(client.poll() is None for client in clients):
            alive = server_processes(server_dir)
            seen |= alive
            most = max(most, len(alive))
            time.sleep(0.02)
        assert [client.returncode for client in clients] == [0, 0, 0, 0]
    finally:
        os.close(held)
        run([*FULL, "server", "stop"], repo)
        for pid in seen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert seen and most == 1
