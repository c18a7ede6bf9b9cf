"""Reflector benchmarks (SPEC 11, issue 13): blind quality per labelled batch
(``reflector_quality.py``), rules mode on a 2k-token transcript (target ≤ 10 ms), the
sanitizer, and a 100 MB CI log streamed through a whole `memx ingest` process.

    python bench/reflector.py [--log-mb 100] [--runs 200]

``run()`` returns table rows (figure, measured, target) for bench/run.py.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import launched, peak_mb, print_rows
from reflector_quality import BATCHES, DEVELOPMENT
from reflector_quality import rows as quality_rows

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))


def transcript(tokens: int = 2000) -> bytes:
    """A Claude Code style session of about ``tokens`` tokens (4 characters a token): asks,
    tool calls and outputs, a stack trace, its fix, a config change, chit-chat."""
    records: list[dict[str, object]] = []
    turn = 0

    def say(role: str, content: object) -> None:
        records.append({"type": role, "sessionId": "bench", "message": {"role": role,
                                                                          "content": content}})

    while len(json.dumps(records)) < tokens * 4:
        turn += 1
        say("user", f"The checkout test {turn} is red again, can you look? Run `pytest "
                    f"tests/test_checkout.py -k case_{turn}` first.")
        say("assistant", [{"type": "text", "text": "Running the failing test."},
                          {"type": "tool_use", "id": f"t{turn}", "name": "Bash",
                           "input": {"command": f"pytest tests/test_checkout.py -k case_{turn}"}}])
        say("user", [{"type": "tool_result", "tool_use_id": f"t{turn}", "is_error": True,
                      "content": "Traceback (most recent call last):\n  File \"shop/cart.py\", "
                                 f"line {40 + turn}, in total\n    return sum(i.price for i in "
                                 "items)\nTypeError: unsupported operand type(s) for +: 'int' "
                                 "and 'NoneType'\n1 failed, 57 passed in 2.31s"}])
        say("assistant", [{"type": "text", "text": "The issue is that gift cards have no "
                           "`price`, so the sum sees None. The fix is to default it with "
                           "`i.price or 0` in `Cart.total()`; I also raised CART_MAX_ITEMS "
                           "from 50 to 200 as discussed."},
                          {"type": "tool_use", "id": f"e{turn}", "name": "Edit",
                           "input": {"file_path": "shop/cart.py", "old_string": "x",
                                     "new_string": "y"}}])
        say("user", "great, thanks! looks good now")
    return ("\n".join(json.dumps(r) for r in records) + "\n").encode()


def time_rules(data: bytes, runs: int) -> list[float]:
    from memx_cli.reflector.inputs import Reader
    from memx_cli.reflector.pipeline import Reflector, Settings

    timings = []
    for _ in range(runs + 5):
        start = time.perf_counter()
        Reflector(Settings()).reflect(Reader(io.BytesIO(data), "jsonl").turns())
        timings.append(time.perf_counter() - start)
    return sorted(timings[5:])  # the first runs pay for imports and caches


def time_sanitizer(text: str, runs: int) -> list[float]:
    from memx_cli.privacy.sanitizer import Sanitizer

    sanitizer = Sanitizer()
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        sanitizer.sanitize(text)
        timings.append(time.perf_counter() - start)
    return sorted(timings)


def ingest_big_log(megabytes: int) -> tuple[float, float, str]:
    """Wall seconds and peak RSS (MB) of one `memx ingest --dry-run` over a generated log."""
    block = "".join(f"2026-11-01T12:00:{i % 60:02d}.1234567Z [build] step {i}: compiling "
                    f"module_{i}.py ... ok\n" for i in range(300))
    block += ("FAILED tests/test_api.py::test_login - AssertionError: 401 != 200\n"
              "hint: run `make db-migrate` before the tests\n")
    chunk = block.encode()
    total = megabytes << 20
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "c"),
               "XDG_DATA_HOME": str(home / "d"), "GIT_CONFIG_NOSYSTEM": "1"}
        repo = home / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env=env)
        memx = [sys.executable, "-m", "memx_cli"]
        subprocess.run([*memx, "init"], cwd=repo, check=True, env=env, capture_output=True)
        start = time.perf_counter()
        proc = subprocess.Popen(launched([*memx, "ingest", "--dry-run", "--stats", "--source",
                                          "ci", "-"]),
                                cwd=repo, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

        def feed() -> None:
            assert proc.stdin is not None
            sent = 0
            while sent < total:
                piece = chunk[: total - sent]
                proc.stdin.write(piece)
                sent += len(piece)
            proc.stdin.close()

        writer = threading.Thread(target=feed)
        writer.start()
        out = proc.stdout.read() if proc.stdout else b""
        err = proc.stderr.read() if proc.stderr else b""  # small: the peak line
        proc.wait()
        writer.join()
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(err.decode(errors="replace"))
    summary = next((ln for ln in out.decode().splitlines() if ln.startswith("rules:")), "")
    return seconds, peak_mb(err.decode(errors="replace")), summary


def history(repo: Path, commits: int) -> None:
    """``commits`` commits through one ``git fast-import``: features, fixes with a body,
    config changes and dependency additions, one in five of them teaching something."""
    lines: list[bytes] = []
    stamp = 1_700_000_000
    for i in range(1, commits + 1):
        kind = i % 5
        if kind == 1:
            message = (f"fix(api): crash {i} when the cart is empty\n\nThe handler read "
                       f"items[0] without a check, so an IndexError crashed it.\n\nReturn an "
                       f"empty total for carts without items.")
            path, body = f"src/api_{i % 50}.py", f"def total_{i}(): return 0\n"
        elif kind == 2:
            message, path, body = (f"tune the pool for load test {i}", "config/settings.yaml",
                                   f"database:\n  pool_size: {i % 40 + 5}\n")
        else:
            message = f"feat: screen {i} of the new checkout"
            path, body = f"web/screen_{i % 200}.tsx", f"export const n = {i};\n"
        data = body.encode()
        text = message.encode()
        lines += [b"commit refs/heads/main", b"mark :%d" % i,
                  b"committer Dev <dev@example.invalid> %d +0000" % (stamp + i),
                  b"data %d" % len(text), text]
        if i > 1:
            lines.append(b"from :%d" % (i - 1))
        lines += [b"M 100644 inline " + path.encode(), b"data %d" % len(data), data, b""]
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, check=True,
                   input=b"\n".join(lines) + b"\n")
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=repo, check=True)


def time_git_log(commits: int) -> list[tuple[str, str, str]]:
    """Wall time of `memx ingest --git-log` (dry run, then storing) over ``commits``."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "c"),
               "XDG_DATA_HOME": str(home / "d"), "GIT_CONFIG_NOSYSTEM": "1"}
        repo = home / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True, env=env)
        history(repo, commits)
        memx = [sys.executable, "-m", "memx_cli"]
        subprocess.run([*memx, "init"], cwd=repo, check=True, env=env, capture_output=True)
        rows = []
        for label, extra in (("--dry-run", ["--dry-run"]), ("storing", [])):
            start = time.perf_counter()
            # the peak of the process and of the git processes it runs (issue 29)
            done = subprocess.run(launched([*memx, "ingest", "--git-log", *extra]), cwd=repo,
                                  env=env, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            if done.returncode != 0:
                raise RuntimeError(done.stderr)
            rows.append((f"`memx ingest --git-log` {label}, {commits} commits",
                         f"{seconds:.1f} s, peak RSS {peak_mb(done.stderr):.0f} MB "
                         f"({done.stdout.splitlines()[0]})", "≤ 60 s; ≤ 150 MB"))
        start = time.perf_counter()
        subprocess.run([*memx, "ingest", "--git-log"], cwd=repo, env=env, check=True,
                       capture_output=True)
        rows.append((f"`memx ingest --git-log` again (nothing new), {commits} commits",
                     f"{time.perf_counter() - start:.1f} s", "—"))
    return rows


def run(log_mb: int = 100, runs: int = 200,
        heldout: bool = False, git_log: int = 10_000) -> list[tuple[str, str, str]]:
    data = transcript()
    tokens = len(data) // 4
    rules = time_rules(data, runs)
    p50, p95 = statistics.median(rules) * 1000, rules[int(len(rules) * 0.95)] * 1000
    text = data.decode()[: 8000] + " AKIAIOSFODNN7EXAMPLE ops@acme.io"
    clean = time_sanitizer(text, runs)
    rows = quality_rows(BATCHES if heldout else DEVELOPMENT)
    rows += [
        (f"Reflector rules mode, {tokens}-token transcript (in process), p50 / p95",
         f"{p50:.1f} / {p95:.1f} ms", "p50 ≤ 10 ms"),
        ("PrivacySanitizer, 8 KB of transcript text, p50",
         f"{statistics.median(clean) * 1000:.2f} ms", "—"),
    ]
    if git_log:
        rows += time_git_log(git_log)
    if log_mb:
        seconds, rss, summary = ingest_big_log(log_mb)
        rows.append((f"`memx ingest --dry-run` of a {log_mb} MB CI log (whole process)",
                     f"{seconds:.1f} s, peak RSS {rss:.0f} MB ({log_mb / seconds:.1f} MB/s; "
                     f"{summary})", "streamed, bounded memory"))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log-mb", type=int, default=100, help="size of the CI log (0: skip)")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--heldout", action="store_true",
                        help="also score the held-out batch (only once the rules are final)")
    parser.add_argument("--git-log", type=int, default=10_000,
                        help="commits of history for `memx ingest --git-log` (0: skip)")
    args = parser.parse_args()
    print_rows(run(args.log_mb, args.runs, args.heldout, args.git_log))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
