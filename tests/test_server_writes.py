"""Writes through the memx server (issue 15): `memx add`, `feedback` and `remember` are
forwarded, run exactly once, and their output is byte for byte the in-process CLI's;
every way the server can fail before accepting a write runs it in process, and no way
after accepting it runs it twice."""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memx_cli.fsutil import locked

from .conftest import Memx, git
from .test_server import (
    FACTS,
    FULL,
    THIN,
    requests_served,
    run,
    settled_status,
    status,
    wait_running,
)

NOW = {"MEMX_NOW": "2026-11-20T10:00:00Z"}


def _wait_for_log(line: bytes, proc: subprocess.Popen[bytes] | None = None,
                  timeout: float = 30) -> None:
    """Until the server's log holds ``line`` (and ``proc``, if given, still runs); the
    deadline only bounds a hang."""
    log = Path(status()["log"])
    deadline = time.monotonic() + timeout
    while line not in log.read_bytes():
        assert time.monotonic() < deadline, f"never logged: {line.decode()}"
        assert proc is None or proc.poll() is None, "the client ended first"
        time.sleep(0.05)


def contents(repo: Path) -> dict[str, str]:
    """id -> content of every memory of ``repo`` (as `memx list` shows them)."""
    code, out, err = run([*FULL, "list", "--json"], repo)
    assert code == 0, err
    return {m["id"]: m["content"] for m in json.loads(out)["memories"]}


def normalised(data: bytes, repo: Path, ids: dict[str, str]) -> str:
    """Output with this repository's path and memory ids (and their prefixes) replaced
    by what they stand for, so two repositories built alike compare equal."""
    text = data.decode().replace(str(repo), "<repo>")
    for ident, content in ids.items():  # whole ids first: ids made in one burst share
        text = text.replace(ident, f"<{content[:40]}>")  # their first 12 characters
    for ident, content in ids.items():
        text = re.sub(re.escape(ident[:12]) + "[0-9a-z]*", f"<{content[:40]}>", text)
    return re.sub(r"\b[0-9a-z]{26}\b", "<item>", text)  # session items (remember)


def stocked(memx: Memx, root: Path) -> Path:
    for content, domain in FACTS:
        memx.ok("add", "--raw", content, "--domain", domain, cwd=root)
    return root


@pytest.fixture
def pair(memx: Memx, repo: Path, tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """Two repositories built alike, and a running server."""
    other = tmp_path / "twin"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    (other / "README.md").write_text("demo\n")
    git(other, "add", "README.md")
    git(other, "commit", "-q", "-m", "initial")
    memx.ok("init", cwd=other)
    stocked(memx, repo)
    stocked(memx, other)
    code, _, err = run([*FULL, "server", "start"], repo)
    assert code == 0, err
    yield repo, other
    stop_server()


def stop_server() -> None:
    info = status()
    run([*FULL, "server", "stop"], Path.cwd())
    if info.get("pid"):
        try:
            os.kill(info["pid"], signal.SIGKILL)
        except ProcessLookupError:
            pass


SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
WRITES: list[list[str]] = [
    ["add", "The cache key includes the locale and the tenant"],
    ["add", "The cache key includes the locale and the tenant"],  # a duplicate now
    ["add", "Use pnpm, not npm, to install JavaScript packages", "--json"],
    ["add", "--raw", "Raw note: builds run on Debian bookworm", "--tag", "ci"],
    ["add", f"The deploy bot authenticates with {SECRET}"],
    ["add", "Releases are tagged vMAJOR.MINOR.PATCH", "--kind", "policy",
     "--domain", "process"],
    ["add", "The README describes the demo", "--anchor", "README.md:1"],
    ["add", "Anchored to nothing", "--anchor", "missing.txt"],
    ["add", "Somewhere", "--scope", "nonsense scope"],
    ["add", "Unknown flag", "--bogus"],
    ["add", "--help"],
    ["feedback", "@staging database", "--helpful"],
    ["feedback", "@staging database", "--harmful", "--json"],
    ["feedback", "@staging database"],
    ["feedback", "0000000000zz", "--helpful"],
    ["remember", "The flaky test is test_upload_retry", "--session", "s1"],
    ["remember", "The flaky test is test_upload_retry", "--session", "s2", "--json"],
]


def resolved(args: list[str], repo: Path) -> list[str]:
    """``@word``: the id of the memory of ``repo`` that says ``word``."""
    out = []
    for arg in args:
        if arg.startswith("@"):
            [arg] = [i for i, c in contents(repo).items() if arg[1:] in c]
        out.append(arg)
    return out


def test_forwarded_writes_are_byte_identical_and_served(pair: tuple[Path, Path]) -> None:
    full_repo, thin_repo = pair
    env = {**os.environ, **NOW}
    results = []
    for args in WRITES:
        before = requests_served()
        full = run([*FULL, *resolved(args, full_repo)], full_repo, env)
        thin = run([*THIN, *resolved(args, thin_repo)], thin_repo, env)
        assert requests_served() == before + 2, args  # the thin call went to the server
        results.append((args, full, thin))
    full_ids, thin_ids = contents(full_repo), contents(thin_repo)
    for args, full, thin in results:
        assert full[0] == thin[0], args
        assert (normalised(full[1], full_repo, full_ids)
                == normalised(thin[1], thin_repo, thin_ids)), args
        assert (normalised(full[2], full_repo, full_ids)
                == normalised(thin[2], thin_repo, thin_ids)), args
    assert sorted(full_ids.values()) == sorted(thin_ids.values())
    assert SECRET not in json.dumps(sorted(thin_ids.values()))  # masked by the server too
    assert any(code != 0 for _, (code, _, _), _ in results)  # errors were compared too
    # the files the server wrote are the caller's: same modes as in process
    modes = {p.stat().st_mode for p in (thin_repo / ".memx" / "memories").glob("*.yaml")}
    assert modes == {p.stat().st_mode for p in (full_repo / ".memx" / "memories").glob("*.yaml")}


def test_standard_input_is_not_forwarded(pair: tuple[Path, Path]) -> None:
    repo, _ = pair
    before = requests_served()
    proc = subprocess.run([*THIN, "add", "-"], cwd=repo, input=b"Read from standard input",
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert requests_served() == before + 1  # the status request only: run in process
    assert "Read from standard input" in contents(repo).values()


def test_a_forwarded_add_is_found_at_once_and_indexed_on_disk(pair: tuple[Path, Path]) -> None:
    repo, _ = pair
    code, out, err = run([*THIN, "add", "The blue-green switch happens at the load balancer"],
                         repo)
    assert code == 0, err
    new_id = out.decode().strip()
    found = run([*THIN, "search", "blue-green switch", "--json"], repo)
    assert json.loads(found[1])["results"][0]["id"] == new_id
    # a process without the server pays nothing for it: the index on disk is current,
    # vectors included
    from memx_cli.index import StoreIndex
    from memx_cli.store.repo import Repo

    report = StoreIndex(Repo.discover(repo).store, None).sync(want_vectors=True)
    assert report.touched == 0 and report.vectors


def test_concurrent_adds_all_land(pair: tuple[Path, Path]) -> None:
    repo, _ = pair
    texts = [f"Service number {n} listens on port {8000 + n}" for n in range(6)]
    procs = [subprocess.Popen([*THIN, "add", "--raw", text], cwd=repo,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for text in texts]
    procs.append(subprocess.Popen([*FULL, "add", "--raw", "Added in process meanwhile"],
                                  cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    searches = [subprocess.Popen([*THIN, "search", "service port", "--json"], cwd=repo,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                for _ in range(3)]
    for proc in procs + searches:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        if proc in searches:
            json.loads(out)  # either state, never a broken answer
    have = list(contents(repo).values())
    for text in [*texts, "Added in process meanwhile"]:
        assert have.count(text) == 1, text


class Held:
    """The store's write lock, held by this test process (a write waits for it)."""

    def __init__(self, repo: Path):
        path = repo / ".memx" / "local" / "write.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def release(self) -> None:
        if self.fd >= 0:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = -1


UNKNOWN = (b"memx: error: the memx server accepted this add but %s; it may or may not "
           b"have been done (not retried): check with `memx list` or `git status .memx`\n")


def test_server_killed_after_accepting_is_reported_never_rerun(pair: tuple[Path, Path]) -> None:
    repo, _ = pair
    pid = status()["pid"]
    held = Held(repo)
    try:
        proc = subprocess.Popen([*THIN, "add", "--raw", "Written while the server died"],
                                cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        log = Path(status()["log"])
        deadline = time.monotonic() + 30
        while b"accepted" not in log.read_bytes() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)  # the write waits for the lock: accepted, not done
        out, err = proc.communicate(timeout=60)
    finally:
        held.release()
    reason = b"the connection broke (connection closed in the middle of a frame)"
    assert (proc.returncode, out, err) == (3, b"", UNKNOWN % reason)
    # every writer is done: a server the client started has bound (then it would have run
    # the add at once), and the write lock is free (no write holds it)
    settled_status()
    with locked(repo / ".memx" / "local" / "write.lock", wait=30):
        pass
    assert "Written while the server died" not in contents(repo).values()  # not re-run


def test_a_late_write_is_asked_after_and_its_answer_given(pair: tuple[Path, Path]) -> None:
    """No answer within MEMX_SERVER_WRITE_TIMEOUT: the client asks the server what became
    of its write, waits for it, and ends as the write did, with its output."""
    repo, _ = pair
    held = Held(repo)
    env = {**os.environ, "MEMX_SERVER_WRITE_TIMEOUT": "0.05"}
    try:
        proc = subprocess.Popen([*THIN, "add", "--raw", "Slow to land"], cwd=repo, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        log = Path(status()["log"])
        deadline = time.monotonic() + 30
        while b"asking the server what became of it" not in log.read_bytes():
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        # the write still waits for the lock: the client waits too (time passing is the
        # scenario, a client that gives up would have ended by now)
        time.sleep(0.3)
        assert proc.poll() is None
    finally:
        held.release()
    out, err = proc.communicate(timeout=60)
    [written] = [i for i, text in contents(repo).items() if text == "Slow to land"]
    assert (proc.returncode, out, err) == (0, f"{written}\n".encode(), b"")
    assert re.search(r"add: no answer came in time; asking the server what became of it\n"
                     r".*add: the server finished it: exit 0\n", log.read_text(), re.S)


def test_a_failed_late_write_ends_with_its_own_error(pair: tuple[Path, Path]) -> None:
    repo, _ = pair
    voted = sorted(contents(repo))[0]
    held = Held(repo)
    env = {**os.environ, "MEMX_SERVER_WRITE_TIMEOUT": "0.05"}
    try:  # a vote waits for the lock, late; its memory is removed before it gets the lock
        proc = subprocess.Popen([*THIN, "feedback", voted, "--helpful"], cwd=repo,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _wait_for_log(b"asking the server what became of it", proc)
        (repo / ".memx" / "memories" / f"{voted}.yaml").unlink()
    finally:
        held.release()
    out, err = proc.communicate(timeout=60)
    # the vote's own error, as the server's run of it ended (not a lost-answer error)
    assert (proc.returncode, out, err) == (2, b"", f"memx: error: no memory {voted}\n".encode())
    assert re.search(r"feedback: no answer came in time; asking the server what became of "
                     r"it\n.*feedback: the server finished it: exit 2\n",
                     Path(status()["log"]).read_text(), re.S)


def test_hung_write_times_out_with_one_line_and_runs_once(pair: tuple[Path, Path]) -> None:
    repo, _ = pair
    held = Held(repo)
    try:  # still running when the question's own wait ends too
        env = {**os.environ, "MEMX_SERVER_WRITE_TIMEOUT": "1",
               "MEMX_SERVER_OUTCOME_TIMEOUT": "1"}
        code, out, err = run([*THIN, "add", "--raw", "Slow to land"], repo, env)
    finally:
        held.release()
    assert (code, out, err) == (3, b"", UNKNOWN % b"no answer came in time")
    # the server still finishes the write it accepted, once
    deadline = time.monotonic() + 30
    while "Slow to land" not in contents(repo).values() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert list(contents(repo).values()).count("Slow to land") == 1


def test_the_server_tells_only_the_outcomes_it_kept(pair: tuple[Path, Path]) -> None:
    import socket

    from memx_cli.wire import paths
    from memx_cli.wire.build import identity
    from memx_cli.wire.protocol import PROTOCOL, recv_frame, recv_json, send_json

    repo, _ = pair

    def ask(request_id: str) -> tuple[dict, ...]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(30)
            sock.connect(paths.socket_path())
            send_json(sock, {"proto": PROTOCOL, "version": identity(), "op": "outcome",
                             "id": request_id})
            header = recv_json(sock)
            if header["status"] == "ok":
                return header, recv_frame(sock), recv_frame(sock)
            return (header,)

    assert ask("0" * 32) == ({"status": "unknown"},)
    request_id = os.urandom(16).hex()  # a write by hand, as the thin client sends one
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(60)
        sock.connect(paths.socket_path())
        send_json(sock, {"proto": PROTOCOL, "version": identity(), "op": "run",
                         "argv": ["add", "--raw", "Asked about afterwards"], "cwd": str(repo),
                         "env": dict(os.environ), "streams": {}, "write": True,
                         "id": request_id, "umask": 0o022})
        assert recv_json(sock) == {"status": "ready", "id": request_id}
        send_json(sock, {"op": "go", "id": request_id})
        answer = recv_json(sock), recv_frame(sock), recv_frame(sock)
    assert answer[0] == {"status": "ok", "code": 0}
    [written] = [i for i, text in contents(repo).items() if text == "Asked about afterwards"]
    assert answer[1] == f"{written}\n".encode()
    assert ask(request_id) == answer
    assert ask(request_id[:8]) == ({"status": "unknown"},)  # the whole id, never a prefix


def test_hung_server_before_accepting_runs_the_write_here_once(pair: tuple[Path, Path]) -> None:
    repo, _ = pair
    pid = status()["pid"]
    os.kill(pid, signal.SIGSTOP)
    try:
        env = {**os.environ, "MEMX_SERVER_TIMEOUT": "0.3"}
        code, _, err = run([*THIN, "add", "--raw", "Added around a hung server"], repo, env)
        assert code == 0, err
    finally:
        os.kill(pid, signal.SIGCONT)  # it now reads the request, gets no "go", runs nothing
    _wait_for_log(b"not confirmed by its client; not run")
    assert requests_served() >= 1
    assert list(contents(repo).values()).count("Added around a hung server") == 1
    assert "not confirmed by its client; not run" in Path(status()["log"]).read_text()


def test_a_write_is_not_forwarded_where_the_server_is_disabled(pair: tuple[Path, Path]) -> None:
    repo, _ = pair
    (repo / ".memx" / "config.yaml").write_text("server:\n  enabled: false\n")
    before = requests_served()
    code, _, err = run([*THIN, "add", "--raw", "Past a disabled server"], repo)
    assert code == 0, err
    assert requests_served() == before + 2  # asked, refused (and this status request)
    assert list(contents(repo).values()).count("Past a disabled server") == 1
    env = {**os.environ, "MEMX_NO_SERVER": "1"}
    assert run([*THIN, "add", "--raw", "Without asking"], repo, env)[0] == 0
    assert requests_served() == before + 3
    assert list(contents(repo).values()).count("Without asking") == 1


def test_a_write_is_not_given_to_a_server_of_another_version(memx: Memx, repo: Path) -> None:
    stocked(memx, repo)
    other = subprocess.Popen([sys.executable, "-c", "import memx_cli, sys\n"
                              "memx_cli.__version__ = '0.0.1-other'\n"
                              "from memx_cli.server.daemon import main\nsys.exit(main())"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_running()["version"].startswith("0.0.1-other+")
        code, _, err = run([*THIN, "add", "--raw", "Past another version"], repo)
        assert code == 0, err
        assert other.wait(timeout=60) == 0  # asked to stop
    finally:
        other.kill()
        stop_server()
    assert list(contents(repo).values()).count("Past another version") == 1


def test_a_dying_client_after_ready_leaves_nothing_done(pair: tuple[Path, Path]) -> None:
    """The server said ready and the client never said go: nothing runs."""
    import socket

    from memx_cli.wire import paths
    from memx_cli.wire.build import identity
    from memx_cli.wire.protocol import PROTOCOL, recv_json, send_json

    repo, _ = pair
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(paths.socket_path())
    send_json(sock, {"proto": PROTOCOL, "version": identity(), "op": "run", "write": True,
                     "id": "f" * 32, "umask": 0o022, "argv": ["add", "--raw", "Never said go"],
                     "cwd": str(repo), "env": dict(os.environ), "streams": {}})
    assert recv_json(sock) == {"status": "ready", "id": "f" * 32}
    sock.close()
    threading.Event().wait(0.5)
    assert run([*THIN, "list"], repo)[0] == 0  # the server is still serving
    assert "Never said go" not in contents(repo).values()


def test_the_servers_curator_sees_a_hand_edit_made_just_before(memx: Memx, repo: Path,
                                                               tmp_path: Path) -> None:
    """Above the Curator's small-store size it finds candidates through the index, which
    the server lends warm and checks only on a watcher event: an in-place edit made
    right before the add must still make the add a duplicate of the edited memory."""
    records = tmp_path / "records.jsonl"
    with open(records, "w") as out:
        for n in range(230):
            out.write(json.dumps({"content": f"Filler fact number {n} about subsystem "
                                             f"{n % 17} and queue {n * 7}"}) + "\n")
    memx.ok("import", "--raw", str(records))
    code, _, err = run([*FULL, "server", "start"], repo)
    assert code == 0, err
    try:
        assert run([*THIN, "add", "--raw", "Warm the server's searcher"], repo)[0] == 0
        assert run([*THIN, "search", "filler fact", "--json"], repo)[0] == 0
        [(target, _)] = [(i, c) for i, c in contents(repo).items()
                         if c.startswith("Filler fact number 42 ")]
        path = repo / ".memx" / "memories" / f"{target}.yaml"
        text = path.read_text().replace("Filler fact number 42 about subsystem 8 and queue "
                                        "294", "The nightly export runs at three in the "
                                        "morning from the reporting replica")
        with open(path, "w") as edit:  # in place: the folder's time does not change
            edit.write(text)
        code, out, err = run([*THIN, "add", "The nightly export runs at three in the "
                                            "morning from the reporting replica"], repo)
        assert code == 0, err
        assert out.decode().strip() == target
        assert err == f"skipped (duplicate of {target})\n".encode()
    finally:
        stop_server()


def test_the_outcomes_kept_are_bounded_oldest_first() -> None:
    from memx_cli.server.caller import KEPT_OUTCOMES, Outcomes

    kept = Outcomes()
    ids = [f"{i:032x}" for i in range(KEPT_OUTCOMES + 2)]
    for number, request_id in enumerate(ids):
        kept.running(request_id)
        assert kept.reply(request_id) == ({"status": "running"}, ())
        kept.finished(request_id, number % 3, b"out %d" % number, b"")
    assert kept.reply(ids[0]) == kept.reply(ids[1]) == ({"status": "unknown"}, ())
    assert kept.reply(ids[2]) == ({"status": "ok", "code": 2}, (b"out 2", b""))
    assert kept.reply(ids[-1]) == ({"status": "ok", "code": (len(ids) - 1) % 3},
                                   (b"out %d" % (len(ids) - 1), b""))


def test_a_forwarded_add_whose_custom_pattern_runs_over_ends_with_its_own_code(
        pair: tuple[Path, Path]) -> None:
    # trust19: exit code 4, the server's as in process, and the server answers on
    repo, _ = pair
    (repo / ".memx" / "config.yaml").write_text(
        "ace:\n  reflector:\n    custom_patterns:\n    - name: slow\n"
        "      pattern: '(a|a)+$'\n")
    before, served = contents(repo), requests_served()
    code, out, err = run([*THIN, "add", "a" * 5000 + "!"], repo)
    assert (code, out) == (4, b"")
    assert err.decode() == ("memx: error: the custom pattern 'slow' (ace.reflector."
                            "custom_patterns) ran over 2 s on this text, so nothing was "
                            "stored; make it match in linear time (no alternatives or "
                            "repeats that can match the same text twice) or remove it\n")
    assert requests_served() > served  # the server ran it
    assert contents(repo) == before
    # control: the next add, through the same server, is stored with its mask
    code, out, err = run([*THIN, "add", "The build cache key ends in aaaa"], repo)
    assert code == 0, err
    assert "[REDACTED:slow]" in contents(repo)[out.decode().strip()]
