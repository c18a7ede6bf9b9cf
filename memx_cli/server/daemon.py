"""The memx server process (issue 15): one per user, serving every repository.

It listens on the private socket (wire/paths.py), takes one request at a time and
runs the read command the thin client forwarded through the real CLI (memx_cli.cli.main)
with the caller's working directory, environment, terminal size and output encoding, so
its output, errors and exit code are those of the command run in process. What it adds
is warmth: one ``Searcher`` per repository (open tantivy reader, usearch view, loaded
model) whose stores are watched (freshness/drain.py, freshness/journal.py) instead of re-stat-ed.

One request at a time is deliberate: the environment and the standard streams are the
process's, and a search takes milliseconds. It ends itself after ``server.idle_timeout``
seconds without a request, on a ``stop`` request, or on SIGTERM; another server already
holding the lock makes it exit at once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from memx_cli.freshness.drain import open_watcher
from memx_cli.freshness.journal import Watched, verify_trusted
from memx_cli.freshness.upkeep import compact, never
from memx_cli.server.caller import (
    Outcomes,
    as_caller,
    captured,
    confirmed,
    read_request,
    same_user,
)
from memx_cli.server.lent import Vouched
from memx_cli.server.opening import Counter, alive, through_cli
from memx_cli.server.upkeep import COMPACT_AFTER, fill
from memx_cli.server.warmth import footprint, searcher_key
from memx_cli.wire import paths
from memx_cli.wire.build import identity
from memx_cli.wire.protocol import PROTOCOL, ProtocolError, send_json

if TYPE_CHECKING:
    from memx_cli.generator.search import Searcher
    from memx_cli.index import StoreIndex
    from memx_cli.store.files import Store
    from memx_cli.store.repo import Repo

log = logging.getLogger("memx.server")

# Warm searchers are kept while the index files they hold open (memory-mapped, read at
# each search) add up to at most this many bytes, the least recent out first and the most
# recent always kept (issue 29: a fixed count of 8 dropped the 9th small repository as
# readily as a 1M-memory one); and never more than MAX_REPOSITORIES of them (each holds
# file descriptors and watches).
MEMORY_BUDGET = 512 << 20
MAX_REPOSITORIES = 64
# The stores of dropped searchers stay watched, with where their last check left the
# watcher's journal, so that a searcher made for one again checks only the files changed
# since (issue 29: the 9th repository's switch checked every file, 100-360 ms).
MAX_REMEMBERED = 64
# Longest wait of the opening of the first repository for the command that started the
# server to end (issue 29; a forwarded command ends the wait at once).
AFTER_WAIT = 30.0
def _pending(listener: socket.socket) -> bool:
    """Has a client connected (a connection waits in the listener's backlog)?"""
    import select

    try:
        return bool(select.select([listener], [], [], 0)[0])
    except (OSError, ValueError):
        return False


class _Terminated(BaseException):
    """Raised by the SIGTERM handler to leave whatever the server is waiting on."""


class Daemon:
    def __init__(self, idle_timeout: float, repository: str | None = None,
                 spawn_lock: int | None = None, after: int | None = None):
        self.idle_timeout = idle_timeout
        # issue 29: the repository whose command started this server, opened as soon as
        # it has bound, and the spawn lock that command holds for it until then
        self.repository = repository
        self.spawn_lock = spawn_lock
        self._warming: threading.Thread | None = None
        # the starting command's process: the opening waits for it to end (they would
        # share the cores), unless a forwarded command comes first (``_hurry``)
        self.after = after
        self._hurry = threading.Event()
        self.started = time.time()
        self.last_request = time.monotonic()
        self.requests = 0
        self.watcher = open_watcher()
        self.searchers: OrderedDict[tuple[Any, ...], Searcher] = OrderedDict()
        self.footprints: dict[tuple[Any, ...], int] = {}  # bytes of each one's index files
        # store -> (watch epoch, event number) of its last check by a dropped searcher
        self.remembered: OrderedDict[str, tuple[int, int]] = OrderedDict()
        self.socket_path = ""
        self._stop = False
        self._waiting = False  # on a connection or a request: SIGTERM ends the wait
        self._used: tuple[Any, ...] | None = None  # the searcher key of this request
        self._compacted = True  # nothing served yet: nothing to fold
        self.outcomes = Outcomes()  # of recent writes, for a client that lost the answer

    # ------------------------------------------------------------------ serving

    def serve(self) -> int:
        """Bind, serve until idle or stopped, clean up; 0, or 1 when another server runs."""
        directory = paths.private_dir(create=True)
        lock = paths.server_lock(os.path.join(directory, paths.LOCK_NAME))
        if lock is None:
            log.info("another memx server holds the lock; exiting")
            self._spawned()
            return 1
        self.socket_path = os.path.join(directory, paths.SOCKET_NAME)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.socket_path)  # we hold the lock: whatever is there is stale
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            listener.bind(self.socket_path)
        finally:
            os.umask(old)
        os.chmod(self.socket_path, 0o600)
        listener.listen(16)
        listener.settimeout(1.0)
        bound = os.stat(self.socket_path).st_ino
        signal.signal(signal.SIGTERM, self._terminate)
        log.info(f"memx server {identity()} (pid {os.getpid()}) listening on "
                 f"{self.socket_path}; idle timeout {self.idle_timeout:g} s")
        self._spawned()
        if self.repository is not None:
            self._warming = threading.Thread(target=self.warm, args=(self.repository,),
                                             name="memx-warm", daemon=True)
            self._warming.start()
        try:
            while not self._stop:
                if time.monotonic() - self.last_request > self.idle_timeout:
                    log.info("idle; exiting")
                    break
                try:
                    self._waiting = True
                    conn, _ = listener.accept()
                except TimeoutError:
                    self._waiting = False
                    if not _still_bound(self.socket_path, bound):
                        # removed (or replaced): no client can reach this server any more;
                        # exiting frees the lock so the next command starts one (issue 27:
                        # every command ran cold for up to 15 minutes)
                        log.info(f"{self.socket_path} was removed; exiting")
                        break
                    self.idle_tick(partial(_pending, listener))
                    continue
                finally:
                    self._waiting = False
                with conn:
                    self._serve_one(conn)
                self.verify()  # the answer is sent: the check its trust put off
        except _Terminated:
            log.info("SIGTERM; exiting")
        finally:
            with contextlib.suppress(OSError):
                if os.stat(self.socket_path).st_ino == bound:
                    os.unlink(self.socket_path)
            listener.close()
            self._stop = True  # an opening not begun yet is not begun at all
            self._warmed()  # one under way ends first (an index update), as a request's
            self.watcher.stop()
            os.close(lock)
        return 0

    def _spawned(self) -> None:
        """Let go of the spawn lock: commands from now on find this server, or start
        one of their own."""
        if self.spawn_lock is not None:
            with contextlib.suppress(OSError):
                os.close(self.spawn_lock)
            self.spawn_lock = None

    def warm(self, repository: str) -> None:
        """Open the store of ``repository`` (its indexes, vectors and model) as the first
        search there would, on a thread of its own, so the accept loop answers meanwhile;
        a forwarded command waits for it (``_warmed``) rather than doing the same work
        again. A notice (a model that cannot load, an unfetched source) leaves it to the
        first command, which shows the notice as in process."""
        from memx_cli.store.repo import Repo

        deadline = time.monotonic() + AFTER_WAIT
        while (self.after is not None and alive(self.after) and time.monotonic() < deadline
               and not self._hurry.wait(0.05)):
            pass
        if self._stop:
            return
        started = time.monotonic()
        warned = Counter()
        memx_log = logging.getLogger("memx")
        memx_log.addHandler(warned)  # (no command runs meanwhile: they wait for this)
        try:
            repo = Repo.discover(Path(repository))
            if not repo.store.exists() or not repo.config["server.enabled"]:
                return
            key, searcher = searcher_key(repo), self._new_searcher(repo)
            # one search as the first command's would run, counting no recall: the
            # indexes checked and opened with their vectors, the model loaded, the
            # ranking's own state (recall statistics, the fusion's graph) read
            searcher.search("warm up", mode="hybrid", record_recalls=False)
            # then the same search through the CLI as a forwarded command runs it, its
            # output dropped: what that command imports and builds the first time (the
            # facade, the JSON output, the access grants, the query's regular
            # expressions) is then ready too (issue 29: the second command after a
            # cold start took ~15 ms more than the third)
            through_cli(repo.worktree, searcher)
            if warned.count:
                log.info(f"{repo.worktree}: not kept warm (a notice for its first command)")
                return
            self._keep(key, searcher)
            log.info(f"{repo.worktree}: opened in {time.monotonic() - started:.2f} s")
        except Exception as exc:  # the first command opens it instead
            log.info(f"opening {repository} ahead failed: {type(exc).__name__}: {exc}")
        finally:
            memx_log.removeHandler(warned)

    def _warmed(self) -> None:
        """Wait for the opening of the first repository, if under way."""
        if self._warming is not None:
            self._hurry.set()
            self._warming.join()
            self._warming = None

    def _terminate(self, *_: object) -> None:
        """SIGTERM always stops the server (issue 26: a huge frame held it 37 minutes): at
        once while it waits for a connection or a request; work under way (a command, its
        reply, an index update) ends first, so no write or index file is cut in half."""
        self._stop = True
        if self._waiting:
            raise _Terminated

    def _serve_one(self, conn: socket.socket) -> None:
        if not same_user(conn):
            log.warning("refused a connection from another user")
            return
        try:
            self._waiting = True
            request = read_request(conn)
        except ProtocolError as exc:
            log.warning(f"bad request: {exc}")
            return
        finally:
            self._waiting = False
        self.requests += 1
        op = request.get("op")
        if op == "run":  # asking for the status (memx doctor) does not keep it alive
            self.last_request = time.monotonic()
            self._compacted = False
        try:
            if request.get("proto") != PROTOCOL or request.get("version") != identity():
                # another memx: answer only "stop" and "status", and say who we are
                if op == "stop":
                    self._stop = True
                send_json(conn, {"status": "version", "version": identity(),
                                 "proto": PROTOCOL, "pid": os.getpid()})
            elif op == "run":
                reply = self.run(request, conn)
                if reply is not None:  # None: a write the client did not confirm
                    header, out, err = reply
                    send_json(conn, header, *((out, err) if header["status"] == "ok" else ()))
                    if request.get("write") and header["status"] == "ok":
                        conn.close()  # the client is done: it need not wait for this
                        self.refresh_written()
            elif op == "outcome":  # after the write: one request at a time
                header, frames = self.outcomes.reply(str(request.get("id")))
                send_json(conn, header, *frames)
            elif op == "status":
                send_json(conn, {"status": "ok", **self.status()})
            elif op == "stop":
                self._stop = True
                send_json(conn, {"status": "ok", "pid": os.getpid()})
            else:
                send_json(conn, {"status": "error", "message": f"unknown op {op!r}"})
        except OSError as exc:  # the client went away (it timed out and ran in process)
            log.warning(f"reply to a {op} request failed: {exc}")
        except Exception as exc:  # never let one request end the server
            log.exception(f"a {op} request failed: {type(exc).__name__}: {exc}")
            try:
                send_json(conn, {"status": "error", "message": str(exc)})
            except OSError:
                pass

    def refresh_written(self) -> None:
        """After answering a write: check the warm indexes of its repository now (its own
        events mark them changed) rather than in the next request, and so record the
        index's change stamp on disk, which a command without the server then reads
        instead of scanning every file (issue 15)."""
        from memx_cli.embed import is_loaded

        searcher = self.searchers.get(self._used) if self._used is not None else None
        if searcher is None:
            return
        try:
            searcher.settle()
            for index in searcher.indexes:
                searcher.open_index(index, want_vectors=is_loaded(index.model_spec))
        except Exception as exc:  # the next request checks again; never end the server
            log.warning(f"checking the indexes after a write failed: {exc}")

    def idle_tick(self, waiting: Callable[[], bool] = never) -> None:
        """Once a second without a request: count the inotify events queued meanwhile
        (the observer's threads need no help), so a quiet spell's writes do not
        overflow the queue; then the idle upkeep, which gives way to a command that
        ``waiting`` says has come."""
        self.watcher.settle(())
        self.verify()
        self.compact_when_idle(waiting)
        self.fill_when_idle(waiting)

    def verify(self) -> None:
        """The full check of every store whose first open trusted its index (issue 29:
        ``Watched.trust_first``), begun once the answer that trust made fast is sent, on
        a thread of its own, and taken in here once it has ended (after each answer is
        sent, and once a second when idle), or by a write's check of the store; a search
        never waits for that take-in (its commit of the text index)."""
        for searcher in list(self.searchers.values()):
            verify_trusted(searcher.freshness, searcher.repo.worktree)

    def compact_when_idle(self, waiting: Callable[[], bool] = never) -> None:
        """Once per quiet spell (COMPACT_AFTER seconds without a request), the warm
        stores' upkeep (``upkeep.compact``); a request that comes meanwhile pauses it
        until the next quiet spell."""
        if self._compacted or time.monotonic() - self.last_request < COMPACT_AFTER:
            return
        self._compacted = compact(list(self.searchers.values()), waiting)

    def fill_when_idle(self, waiting: Callable[[], bool] = never) -> None:
        """The e5 vectors missing in the warm stores (``upkeep.fill``)."""
        fill(list(self.searchers.values()), waiting)

    def status(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "version": identity(), "proto": PROTOCOL,
                "socket": self.socket_path, "started": self.started,
                "uptime": round(time.time() - self.started, 1), "requests": self.requests,
                "idle_timeout": self.idle_timeout,
                # (copies: the opening of the first repository may add one meanwhile)
                "repositories": sorted({key[0] for key in list(self.searchers)}),
                "watched": sorted(self.watcher.roots),
                # stores watching failed for (inotify limits): re-checked by time, their
                # watch tried again RETRY_WATCH_SECONDS after each failure
                "unwatched": self.watcher.unwatched(),
                # full stat scans of the warm stores' files (the watcher could not vouch)
                "scans": sum(index.scans for searcher in list(self.searchers.values())
                             for index in searcher.indexes),
                # stores opened on their index's word whose full check is still to come
                "unverified": sorted({path for searcher in list(self.searchers.values())
                                      for path in getattr(searcher.freshness, "unverified",
                                                          ())}),
                # how the stores are watched (inotify read at settle time, or the
                # observer with marks), its marks not back in time (the observer's
                # only) and the kernel's overflowed queues: each a full check
                "watch": self.watcher.kind, "marks_late": self.watcher.late,
                "overflows": self.watcher.overflows}

    # ------------------------------------------------------------------ running

    def run(self, request: dict[str, Any],
            conn: socket.socket | None = None) -> tuple[dict[str, Any], bytes, bytes] | None:
        """Run one forwarded command as the caller; the reply header, stdout, stderr.
        A write runs only once its client has confirmed it on ``conn`` (else None)."""
        from memx_cli import cli

        # the command runs in the caller's environment and folder: never beside the
        # opening of the first repository, which reads the server's own
        self._warmed()
        try:
            argv = [str(a) for a in request["argv"]]
            cwd = str(request["cwd"])
            env = {str(k): str(v) for k, v in dict(request["env"]).items()}
            streams = request.get("streams") or {}
            write = bool(request.get("write"))
            request_id = str(request["id"]) if write else ""
            mask = int(request["umask"]) & 0o777 if write else None
        except (KeyError, TypeError, ValueError):
            return {"status": "error", "message": "malformed run request"}, b"", b""
        with as_caller(env, cwd, mask), captured(streams) as (out, err):
            if not _enabled_for(cwd):
                return {"status": "disabled"}, b"", b""
            if write and (conn is None or not confirmed(conn, request_id)):
                log.info(f"{argv[0]} {request_id[:8]}: not confirmed by its client; not run")
                return None
            if write:
                log.info(f"{argv[0]} {request_id[:8]}: accepted")
                self.outcomes.running(request_id)
            self._used = None
            warned = Counter()
            logging.getLogger("memx").addHandler(warned)
            try:
                # the command is lent this server's warm parts (memx_cli/services.py):
                # ``searcher`` and ``write_index`` below
                cli.main(["-C", cwd, *argv], services=self)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            finally:
                logging.getLogger("memx").removeHandler(warned)
            if warned.count and self._used is not None:
                # A notice a searcher gives once (an unfetched source, a model that
                # cannot load) is given by every in-process command: start afresh.
                self.searchers.pop(self._used, None)
            sys.stdout.flush()
            sys.stderr.flush()
            if write:
                log.info(f"{argv[0]} {request_id[:8]}: done, exit {code}")
                self.outcomes.finished(request_id, code, out.getvalue(), err.getvalue())
            return {"status": "ok", "code": code}, out.getvalue(), err.getvalue()

    def write_index(self, store: Store, model: str | None) -> StoreIndex | None:
        """The warm index of ``store`` for the write being run, if this request's searcher
        has one (else None: the write path makes its own)."""
        searcher = self.searchers.get(self._used) if self._used is not None else None
        if searcher is None:
            return None
        for index in searcher.indexes:
            if index.store.root == store.root and index.model_spec == model:
                # a StoreIndex in all but its check, which the watcher vouches for
                return cast("StoreIndex", Vouched(index, searcher.freshness))
        return None

    def searcher(self, repo: Repo) -> Searcher:
        """The warm Searcher of ``repo`` (made on first use), keyed by what shapes it:
        the work tree, the global store, the configuration files and MEMX_* settings."""
        key = searcher_key(repo)
        self._used = key
        found: Searcher | None = self.searchers.get(key)
        if found is None:
            found = self._keep(key, self._new_searcher(repo))
        self.searchers.move_to_end(key)
        return found

    def _new_searcher(self, repo: Repo) -> Searcher:
        from memx_cli.generator.e5voice import SERVED_ENCODE
        from memx_cli.generator.search import Searcher

        searcher = Searcher(repo, freshness=Watched(self.watcher, resumed=self.remembered,
                                                    trust_first=True))
        searcher.e5_budget = SERVED_ENCODE  # the rest: fill_when_idle
        return searcher

    def _keep(self, key: tuple[Any, ...], searcher: Searcher) -> Searcher:
        """Keep ``searcher`` warm under ``key``; past MEMORY_BUDGET or MAX_REPOSITORIES
        the least recent go. Their stores stay watched (the last MAX_REMEMBERED) with
        where their checks left off, for the next searcher of one of them."""
        self.searchers[key] = searcher
        self.searchers.move_to_end(key)
        self.footprints[key] = footprint(searcher)
        dropped = []
        while len(self.searchers) > 1 and (
                len(self.searchers) > MAX_REPOSITORIES
                or sum(self.footprints.get(k, 0) for k in self.searchers) > MEMORY_BUDGET):
            old_key, old = self.searchers.popitem(last=False)
            self.footprints.pop(old_key, None)
            dropped.append(old)
        if dropped:
            for old in dropped:
                if isinstance(old.freshness, Watched):
                    for store, position in old.freshness.synced.items():
                        if store in old.freshness.unverified:
                            continue  # only trusted: the next searcher's check is in full
                        self.remembered[store] = position
                        self.remembered.move_to_end(store)
            while len(self.remembered) > MAX_REMEMBERED:
                self.remembered.popitem(last=False)
            self.watcher.forget({str(i.store.root) for s in self.searchers.values()
                                 for i in s.indexes} | set(self.remembered))
        return searcher


def _still_bound(path: str, inode: int) -> bool:
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


def _enabled_for(cwd: str) -> bool:
    """``server.enabled`` of the repository at ``cwd`` (true outside one: the command
    then prints its own error)."""
    from memx_cli.errors import MemxError
    from memx_cli.store.repo import Repo

    try:
        repo = Repo.discover(Path(cwd))
        return not repo.store.exists() or bool(repo.config["server.enabled"])
    except MemxError:
        return True


def main() -> int:
    """``python -m memx_cli.server``: what the thin client and `memx server start` spawn."""
    from memx_cli import config as configmod
    from memx_cli.embed import one_blas_thread
    from memx_cli.errors import MemxError
    from memx_cli.index import fold, lexical

    one_blas_thread()
    fold.detached = False  # the server folds its stores' vector deltas when idle
    lexical.merge_in_foreground = True  # and its writes finish their merges (lexical.py)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s memx server: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    try:
        idle = float(configmod.load(None)["server.idle_timeout"])
    except MemxError as exc:
        log.warning(f"{exc}; using the default idle timeout")
        idle = float(configmod.SETTINGS["server.idle_timeout"][0])
    repository, spawn_lock, after = _arguments(sys.argv[1:])
    try:
        return Daemon(idle, repository, spawn_lock, after).serve()
    except OSError as exc:
        log.warning(f"cannot serve: {exc}")
        return 1


def _arguments(argv: list[str]) -> tuple[str | None, int | None, int | None]:
    """``--repository PATH`` (an existing directory, absolute), ``--spawn-lock FD`` (a
    descriptor this process holds) and ``--after PID``, as control.spawn passes them;
    anything else is logged and left out: the server then opens stores on first use."""
    repository: str | None = None
    lock: int | None = None
    pairs = dict(zip(argv[::2], argv[1::2]))
    if len(argv) % 2 or set(pairs) - {"--repository", "--spawn-lock", "--after"}:
        log.warning(f"unexpected arguments {argv!r}; only --repository, --spawn-lock and "
                    "--after are read")
    path = pairs.get("--repository")
    if path is not None:
        if os.path.isabs(path) and os.path.isdir(path):
            repository = path
        else:
            log.warning(f"--repository {path!r}: not an absolute path of a directory; ignored")
    number = pairs.get("--spawn-lock", "")
    if number.isdigit():
        try:
            os.fstat(int(number))
            lock = int(number)
        except OSError:
            log.warning(f"--spawn-lock {number}: no such descriptor; ignored")
    elif number:
        log.warning(f"--spawn-lock {number!r}: not a descriptor; ignored")
    pid = pairs.get("--after", "")
    after = int(pid) if pid.isdigit() and 0 < int(pid) < 2**31 else None
    if pid and after is None:
        log.warning(f"--after {pid!r}: not a process id; ignored")
    return repository, lock, after
