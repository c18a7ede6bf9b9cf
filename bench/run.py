"""memx benchmark suite (SPEC 11): speed at 1k / 10k / 100k memories, and retrieval
quality on the LoCoMo dev split. Prints two Markdown tables; see bench/README.md.

    python bench/run.py [--sizes 1000,10000,100000] [--quick] [--only scale|quality|pipeline]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common import GIT_ENV as COMMON_GIT_ENV
from common import launched, peak_mb
from user_paths import (
    ADD_RUNS,
    PACE_SECONDS,
    PACED_RUNS,
    add_then_search,
    bare_tantivy,
    paced_warm,
    recall_everything,
    served_cold,
    served_paced,
    server_allowed,
    stop_server,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
# The evaluation data sits beside the repository; MEMX_BENCH_DATA points elsewhere (a git
# worktree, for instance).
DATA_DIR = Path(os.environ.get("MEMX_BENCH_DATA") or REPO_ROOT.parent / "shared" / "data")
LOCOMO_DIR = DATA_DIR / "locomo-dev"
SEED = 20261101
COLD_RUNS, INCREMENTAL_RUNS, WARM_RUNS = 15, 5, 200
FIRST_ROUNDS = 5  # rounds of the first three commands after a cold start (issue 29)
IMPORT_MAX = 10_000  # records of the timed `memx import --raw`
GIT_ENV = {**COMMON_GIT_ENV, "GIT_AUTHOR_DATE": "2026-11-01T12:00:00Z",
           "GIT_COMMITTER_DATE": "2026-11-01T12:00:00Z"}


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def warm_searcher(tmp: Path, size: int, rng: random.Random) -> Any:
    """A committed synthetic store of ``size`` memories under ``tmp`` (own HOME), and a
    Searcher over it after one hybrid search: the in-process warm rows' setup."""
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    isolate(tmp / "home")
    root = new_repo(tmp / "store")
    write_store(root, size, rng)
    commit_store(root)
    searcher = Searcher(Repo.discover(root))
    searcher.search("warm up", mode="hybrid", record_recalls=False)
    return searcher


def print_medians(size: int, times: dict[str, list[float]], what: str) -> None:
    """One line per row of ``times``: its median and p95 in ms over ``size`` memories."""
    for name, values in times.items():
        print(f"{size} memories, {name}: p50 {statistics.median(values):.2f} ms, "
              f"p95 {pct(values, 95):.2f} ms ({len(values)} {what})")


def pct(values: Sequence[float], q: float) -> float:
    """Percentile with linear interpolation (q in 0..100)."""
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


# ---------------------------------------------------------------- processes


@dataclass
class Run:
    seconds: float
    peak_mb: float
    stdout: bytes
    # user + system CPU of the command and its children (git): steadier than wall time
    # on a shared machine, where a busy neighbour stretches the wall time (issue 29)
    cpu_seconds: float = 0.0


def memx_argv() -> list[str]:
    script = Path(sys.executable).parent / "memx"
    return [str(script)] if script.exists() else [sys.executable, "-m", "memx_cli"]


def run_child(argv: Sequence[str], cwd: Path, peak: bool = False) -> Run:
    """Run a fresh process: its wall time, and with ``peak`` its own peak RSS (through
    the launcher of common.py, which adds a Python start to the wall time)."""
    command = launched(list(argv)) if peak else list(argv)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                              stderr=err, check=False)
        seconds = time.perf_counter() - start
        now = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime
        out.seek(0)
        err.seek(0)
        errors = err.read().decode(errors="replace")
        if proc.returncode != 0:
            text = errors.replace(tempfile.gettempdir(), "<tmp>")
            tail = text.strip().splitlines()[-3:]
            raise RuntimeError(f"{Path(argv[0]).name} {' '.join(argv[1:2])} exited "
                               f"{proc.returncode}: {' | '.join(tail)}")
        return Run(seconds, peak_mb(errors) if peak else 0.0, out.read(), cpu)


def memx(cwd: Path, *args: str, peak: bool = False) -> Run:
    return run_child([*memx_argv(), *args], cwd, peak)


def isolate(home: Path) -> None:
    """Own HOME/XDG dirs (no global store of this user) and a pinned git identity."""
    for key in [k for k in os.environ if (k.startswith("MEMX_") and not k.startswith("MEMX_BENCH_"))
                or k in ("GIT_DIR", "GIT_WORK_TREE")]:
        del os.environ[key]
    os.environ.update(GIT_ENV)
    # Child processes cache compiled bytecode as an installed memx does; with
    # PYTHONDONTWRITEBYTECODE set (as on some CI machines) every cold start would pay
    # for compiling memx again, which no user pays.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    # Every figure is of memx without its server unless a row says "with the memx
    # server" (bench/user_paths.py server_allowed); that server is the run's own.
    os.environ["MEMX_NO_SERVER"] = "1"
    os.environ["MEMX_SERVER_DIR"] = str(home / "run")
    for key, sub in (("HOME", ""), ("XDG_DATA_HOME", "data"), ("XDG_CONFIG_HOME", "config"),
                     ("XDG_CACHE_HOME", "cache"), ("GIT_CONFIG_GLOBAL", "gitconfig")):
        os.environ[key] = str(home / sub) if sub else str(home)
    home.mkdir(parents=True, exist_ok=True)


def new_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    memx(root, "init")
    return root


# ---------------------------------------------------------------- synthetic store

TOOLS = ["git", "pytest", "docker", "kubectl", "npm", "poetry", "make", "cargo", "terraform",
         "psql", "redis-cli", "ruff", "mypy", "uv", "gh", "helm", "nginx", "gradle", "go"]
COMMANDS = ["git rebase -i origin/main", "pytest -x -k {word}", "docker compose up -d --build",
            "kubectl rollout restart deploy/{svc}", "npm ci --prefer-offline",
            "make release VERSION={ver}", "cargo test --workspace", "terraform plan -out=tfplan",
            "psql -c 'VACUUM ANALYZE {table}'", "ruff check --fix .", "mypy --strict {path}",
            "uv pip sync requirements.lock", "gh pr checkout {num}",
            "helm upgrade --install {svc} ./chart", "redis-cli FLUSHDB", "go test ./... -race"]
ERRORS = ["ModuleNotFoundError: No module named '{module}'", "ECONNREFUSED 127.0.0.1:{port}",
          "fatal: refusing to merge unrelated histories", "OOMKilled", "ImagePullBackOff",
          "sqlite3.OperationalError: database is locked", "CrashLoopBackOff",
          "TypeError: Cannot read properties of undefined (reading '{word}')",
          "permission denied while trying to connect to the Docker daemon socket",
          "ssl.SSLCertVerificationError: certificate verify failed", "deadlock detected",
          "error[E0502]: cannot borrow `{word}` as mutable", "HTTP 429 rate limit exceeded"]
CONFIG_KEYS = ["database.pool_size", "server.port", "logging.level", "cache.ttl_seconds",
               "auth.jwt_expiry", "retry.max_attempts", "feature_flags.new_checkout",
               "worker.concurrency", "s3.bucket", "timeouts.read_ms"]
PATHS = ["src/api/handlers.py", "services/billing/invoice.go", "web/src/components/Checkout.tsx",
         "infra/terraform/main.tf", ".github/workflows/ci.yml", "migrations/0042_add_index.sql",
         "docker-compose.yml", "pyproject.toml", "scripts/deploy.sh", "charts/api/values.yaml",
         "tests/conftest.py", "Makefile"]
SERVICES = ["billing", "auth", "search", "gateway", "notifier", "scheduler", "ledger", "web"]
WORDS = ["checkout", "invoice", "session", "tenant", "refund", "webhook", "payload", "cursor",
         "retry", "migration", "snapshot", "quota"]
CAUSES = ["a stale virtualenv", "the VPN dropping", "a missing migration", "the cache volume",
          "an expired token", "two workers racing", "the wrong kube context", "a pinned base image"]
TEAMS = ["platform", "payments", "data", "frontend", "SRE"]
ZH = ["部署 {svc} 之前先运行 `{command}`，否则会出现 `{error}`。",
      "{path} 里的 `{config}` 不要改成 {value}，会导致线上超时。",
      "调试 {tool} 的时候记得加上 --verbose 参数，日志在 /var/log/{svc}。",
      "{svc} 服务的数据库迁移必须在维护窗口执行。"]
TEMPLATES = ["Run `{command}` before pushing; otherwise CI fails on the {tool} step.",
             "When {tool} reports `{error}`, the cause is usually {cause}. Fix: `{command}`.",
             "`{config}` must stay at {value} in {path} because {svc} depends on it.",
             "{path} is owned by the {team} team; ask them before changing `{config}`.",
             "To debug {svc} locally use `{command}` and set {config}={value}.",
             "Prefer {tool} over {tool2} for {word} work in this repository.",
             "The {svc} tests are flaky when `{error}` shows up; rerun them once with {tool}."]
TAGS = ["ci", "deploy", "db", "frontend", "backend", "infra", "security", "perf", "testing",
        "docs", "k8s", "python", "go", "rust", "node", "oncall"]
QUERIES = ["{error}", "how to fix {error}", "{tool} {config}", "deploy {svc}", "{path}",
           "why does {tool} fail on {word}", "{config} value for {svc}", "部署 {svc}",
           "{svc} 数据库迁移", "who owns {path}", "{command}", "flaky {svc} tests"]


def _fill(template: str, rng: random.Random) -> str:
    slots: dict[str, Callable[[], str]] = {
        "tool": lambda: rng.choice(TOOLS), "tool2": lambda: rng.choice(TOOLS),
        "error": lambda: _fill(rng.choice(ERRORS), rng),
        "command": lambda: _fill(rng.choice(COMMANDS), rng),
        "config": lambda: rng.choice(CONFIG_KEYS), "path": lambda: rng.choice(PATHS),
        "svc": lambda: rng.choice(SERVICES), "word": lambda: rng.choice(WORDS),
        "cause": lambda: rng.choice(CAUSES), "team": lambda: rng.choice(TEAMS),
        "module": lambda: rng.choice(SERVICES) + "_" + rng.choice(WORDS),
        "value": lambda: str(rng.choice([1, 5, 30, 64, 300, 8080])),
        "port": lambda: str(rng.choice([5432, 6379, 8080, 9200])),
        "ver": lambda: f"1.{rng.randint(0, 40)}.{rng.randint(0, 9)}",
        "num": lambda: str(rng.randint(100, 9999)),
        "table": lambda: rng.choice(WORDS) + "s",
    }
    return re.sub(r"\{(\w+)\}", lambda m: slots[m.group(1)](), template)


def synthetic_memory(rng: random.Random, index: int, ms: int) -> Any:
    from memx_cli.clock import format_timestamp
    from memx_cli.store.ids import new_id
    from memx_cli.store.memory import KNOWLEDGE_TYPES, SECTIONS, Memory

    template = rng.choice(ZH) if rng.random() < 0.1 else rng.choice(TEMPLATES)
    content = _fill(template, rng)
    if rng.random() < 0.5:
        content += f" (see {rng.choice(['JIRA', 'OPS', 'PAY'])}-{rng.randint(1, 9999)})"
    stamp = format_timestamp(datetime.fromtimestamp(ms / 1000, UTC))
    source: dict[str, Any] = {"type": "manual"}
    if rng.random() < 0.3:  # transcript memories come in sessions of ~10 neighbours
        source = {"type": "transcript", "session": f"s{index // 10}"}
    return Memory(id=new_id(ms), content=content, created_at=stamp, updated_at=stamp,
                  kind="policy" if rng.random() < 0.1 else "fact",
                  section=rng.choice(SECTIONS), type=rng.choice(KNOWLEDGE_TYPES),
                  tags=tuple(sorted(set(rng.sample(TAGS, rng.randint(0, 3))))),
                  tools=tuple(sorted({t for t in TOOLS if re.search(rf"\b{t}\b", content)})[:3]),
                  source=source, veracity="stated")


def write_store(root: Path, count: int, rng: random.Random) -> None:
    """N memory files spread over the last 400 days, written in bulk (setup, not timed).
    Plain writes of the library's bytes: per-file fsync would dominate 100k setup."""
    from memx_cli.store.memory import dump

    memories = root / ".memx" / "memories"
    end = int(time.time() * 1000)
    start = end - 400 * 86_400_000
    for i in range(count):
        mem = synthetic_memory(rng, i, start + (end - start) * i // count)
        (memories / f"{mem.id}.yaml").write_bytes(dump(mem))


RECORD_FIELDS = ("content", "tags", "tools", "source", "created_at", "kind", "section",
                 "type", "veracity")


def write_records(rng: random.Random, start: int, count: int, total: int, path: Path) -> None:
    """Synthetic memories ``start``..``start+count`` (of ``total``) as import JSONL."""
    end = int(time.time() * 1000)
    first = end - 400 * 86_400_000
    with open(path, "w", encoding="utf-8") as out:
        for i in range(start, start + count):
            data = synthetic_memory(rng, i, first + (end - first) * i // total).to_dict()
            record = {k: data[k] for k in RECORD_FIELDS if k in data}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def queries(rng: random.Random, count: int) -> list[str]:
    return [_fill(rng.choice(QUERIES), rng) for _ in range(count)]


# ---------------------------------------------------------------- scale


@dataclass
class Scale:
    size: int
    setup_s: float = 0.0
    rebuild_s: float = 0.0
    rebuild_mb: float = 0.0
    incremental_ms: float = 0.0
    import_ms: float = 0.0  # `memx import --raw` per memory, whole process
    cold: dict[str, list[float]] = field(default_factory=dict)  # mode -> ms
    hybrid_mb: float = 0.0
    warm_ms: list[float] = field(default_factory=list)
    bare_tantivy_ms: list[float] = field(default_factory=list)
    add_ms: float = 0.0
    after_add_ms: float = 0.0
    served_add_ms: float = 0.0  # `memx add` forwarded to the memx server
    served_after_add_ms: float = 0.0
    recalled_hybrid_ms: list[float] = field(default_factory=list)
    paced_ms: list[float] = field(default_factory=list)
    paced_watched_ms: list[float] = field(default_factory=list)
    served: dict[str, list[float]] = field(default_factory=dict)  # mode -> ms, with server
    served_paced_ms: list[float] = field(default_factory=list)
    # issue 29: per round, `python -c pass` and the first three commands from no server
    first: list[list[float]] = field(default_factory=list)


def cold_baseline(cwd: Path) -> dict[str, list[float]]:
    argvs = {"`python -c pass`": [sys.executable, "-c", "pass"],
             "`memx --help`": [*memx_argv(), "--help"]}
    return {name: [run_child(argv, cwd).seconds * 1000 for _ in range(COLD_RUNS)]
            for name, argv in argvs.items()}


def commit_store(root: Path) -> None:
    """Commit the memories, as a team shares them, and let git's stat cache settle (as
    the next `git status` would): what the cold path's change check reads (issue 15)."""
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, check=True, stdout=subprocess.DEVNULL)

    git("add", "-A", ".memx")
    git("config", "gc.auto", "0")  # no background repack while a benchmark copies it
    git("-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "memories")
    time.sleep(1.0)  # entries written in the index's own second are re-read by git
    git("update-index", "-q", "--refresh")


def bench_size(size: int, tmp: Path, committed: bool = True) -> Scale:
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    rng = random.Random(SEED + size)
    result = Scale(size)
    root = new_repo(tmp / f"store-{size}")
    start = time.perf_counter()
    write_store(root, size, rng)
    if committed:
        commit_store(root)
    result.setup_s = time.perf_counter() - start
    log(f"{size}: {size} memories written in {result.setup_s:.1f} s; full rebuild")

    run = memx(root, "reindex", "--full", peak=True)
    result.rebuild_s, result.rebuild_mb = run.seconds, run.peak_mb
    log(f"{size}: rebuild {run.seconds:.1f} s; incremental updates")
    store = Repo.discover(root).store
    times = []
    for i in range(INCREMENTAL_RUNS):
        store.write(synthetic_memory(rng, size + i, int(time.time() * 1000)))
        times.append(memx(root, "reindex").seconds * 1000)
    result.incremental_ms = statistics.median(times)

    log(f"{size}: import --raw of {min(size, IMPORT_MAX)} records into a new store")
    other = new_repo(tmp / f"import-{size}")
    write_records(rng, 0, min(size, IMPORT_MAX), size, tmp / "records.jsonl")
    run = memx(other, "import", "--raw", str(tmp / "records.jsonl"))
    result.import_ms = run.seconds * 1000 / min(size, IMPORT_MAX)
    shutil.rmtree(other, ignore_errors=True)

    memx(root, "search", "warm up", "--mode", "hybrid", "--json")
    log(f"{size}: cold searches")
    result.cold = {"keyword": [], "hybrid": []}
    peaks = [memx(root, "search", "peak memory", "--mode", "hybrid", "--json",
                  peak=True).peak_mb]
    for query in queries(rng, COLD_RUNS):
        for mode, times_ms in result.cold.items():
            run = memx(root, "search", query, "--mode", mode, "--json")
            payload = json.loads(run.stdout)
            if mode == "hybrid" and not payload.get("semantic"):
                log(f"{size}: WARNING hybrid search ran without vectors")
            times_ms.append(run.seconds * 1000)
    result.hybrid_mb = max(peaks)
    log(f"{size}: cold searches with the memx server")
    result.served = served_cold(root, queries(rng, COLD_RUNS), memx)
    result.bare_tantivy_ms = bare_tantivy(root, queries(rng, COLD_RUNS), run_child,
                                          sys.executable)

    log(f"{size}: memx add, then a search")
    texts = [synthetic_memory(rng, size + 100 + i, 0).content for i in range(ADD_RUNS)]
    result.add_ms, result.after_add_ms = add_then_search(root, texts, queries(rng, ADD_RUNS),
                                                         memx)
    log(f"{size}: memx add with the memx server, then a search with it")
    texts = [synthetic_memory(rng, size + 200 + i, 0).content for i in range(ADD_RUNS)]
    with server_allowed():
        result.served_add_ms, result.served_after_add_ms = add_then_search(
            root, texts, queries(rng, ADD_RUNS), memx)
    log(f"{size}: every memory recalled once; cold searches and an agent's pace")
    recall_everything(root)
    result.recalled_hybrid_ms = [
        memx(root, "search", q, "--mode", "hybrid", "--json").seconds * 1000
        for q in queries(rng, COLD_RUNS)]
    result.paced_ms = paced_warm(root, queries(rng, PACED_RUNS))
    result.paced_watched_ms = paced_warm(root, queries(rng, PACED_RUNS), watched=True)
    result.served_paced_ms = served_paced(root, queries(rng, PACED_RUNS))
    stop_server(root, memx)
    log(f"{size}: the first three commands after a cold start")
    from first_commands import first_three  # (it imports this module)

    server_dir = Path(os.environ["MEMX_SERVER_DIR"])
    result.first = [first_three(memx_argv(), root, queries(rng, 3), PACE_SECONDS, server_dir)
                    for _ in range(FIRST_ROUNDS)]

    log(f"{size}: warm searches")
    searcher = Searcher(Repo.discover(root))
    for i, query in enumerate(queries(rng, WARM_RUNS + 1)):
        start = time.perf_counter()
        searcher.search(query, mode="hybrid", record_recalls=False)
        if i:
            result.warm_ms.append((time.perf_counter() - start) * 1000)
    shutil.rmtree(root, ignore_errors=True)
    return result


def label(size: int) -> str:
    return f"{size // 1000}k" if size % 1000 == 0 else str(size)


def verdict(results: dict[int, Scale], size: int, value: Callable[[Scale], float],
            limit: float, unit: str) -> str:
    if size not in results:
        return f"n/a ({label(size)} not run)"
    got = value(results[size])
    shown = f"{got:.2f}" if unit == "s" else f"{got:.1f}" if got < 100 else f"{got:.0f}"
    return f"{'PASS' if got <= limit else 'FAIL'} ({label(size)}: {shown} {unit})"


def scale_table(results: dict[int, Scale], baseline: dict[str, list[float]]) -> str:
    sizes = sorted(results)
    head = "| figure | " + " | ".join(label(s) for s in sizes) + " | target | verdict |"
    lines = [head, "|" + "---|" * (len(sizes) + 3)]

    def row(name: str, cell: Callable[[Scale], str], target: str = "", check: str = "") -> None:
        cells = " | ".join(cell(results[s]) for s in sizes)
        lines.append(f"| {name} | {cells} | {target} | {check} |")

    for name, times in baseline.items():
        cells = " | ".join([f"{statistics.median(times):.0f} ms"] + ["" for _ in sizes[1:]])
        lines.append(f"| cold {name} p50 (baseline) | {cells} |  |  |")
    row("store setup (files written, not a target)", lambda r: f"{r.setup_s:.1f} s")
    row("full rebuild `memx reindex --full`", lambda r: f"{r.rebuild_s:.2f} s",
        "10k ≤ 4 s (issue 15)", verdict(results, 10_000, lambda r: r.rebuild_s, 4, "s"))
    row("full rebuild peak RSS", lambda r: f"{r.rebuild_mb:.0f} MB", "100k ≤ 400 MB",
        verdict(results, 100_000, lambda r: r.rebuild_mb, 400, "MB"))
    row(f"incremental `memx reindex` after +1 memory, median of {INCREMENTAL_RUNS}",
        lambda r: f"{r.incremental_ms:.0f} ms", "10k ≤ 300 ms",
        verdict(results, 10_000, lambda r: r.incremental_ms, 300, "ms"))
    row(f"`memx import --raw` per memory (up to {label(IMPORT_MAX)} records, whole process)",
        lambda r: f"{r.import_ms:.3f} ms", "10k ≤ 0.3 ms (issue 15)",
        verdict(results, 10_000, lambda r: r.import_ms, 0.3, "ms"))

    def cold_row(mode: str, limit: float) -> None:
        row(f"cold `memx search --mode {mode}` p50 / p95",
            lambda r: f"{pct(r.cold[mode], 50):.0f} / {pct(r.cold[mode], 95):.0f} ms",
            f"10k p50 ≤ {limit:.0f} ms",
            verdict(results, 10_000, lambda r: pct(r.cold[mode], 50), limit, "ms"))

    cold_row("keyword", 120)
    cold_row("hybrid", 250)
    floor = statistics.median(baseline["`python -c pass`"])
    row("  keyword p50 / `python -c pass`",
        lambda r: f"{pct(r.cold['keyword'], 50) / floor:.1f}x")
    row("  keyword p50 / bare tantivy query script p50",
        lambda r: f"{pct(r.cold['keyword'], 50) / pct(r.bare_tantivy_ms, 50):.1f}x "
                  f"(script {pct(r.bare_tantivy_ms, 50):.0f} ms)")
    row("  hybrid p50 / `python -c pass`", lambda r: f"{pct(r.cold['hybrid'], 50) / floor:.1f}x")
    for mode, limit in (("keyword", 70), ("hybrid", 90)):
        row(f"cold `memx search --mode {mode}` with the memx server p50 / p95",
            lambda r, m=mode: f"{pct(r.served[m], 50):.0f} / {pct(r.served[m], 95):.0f} ms",
            f"10k p50 ≤ {limit} ms (issue 15)",
            verdict(results, 10_000, lambda r, m=mode: pct(r.served[m], 50), limit, "ms"))
        row(f"  {mode} with the server p50 / `python -c pass`",
            lambda r, m=mode: f"{pct(r.served[m], 50) / floor:.1f}x")
    def first(slot: int) -> Callable[[Scale], float]:
        return lambda r: statistics.median(row[slot] for row in r.first)

    row(f"first three `memx search --mode hybrid` after a cold start (no server, "
        f"{PACE_SECONDS:.0f} s apart), median of {FIRST_ROUNDS} rounds",
        lambda r: " / ".join(f"{first(i)(r):.0f}" for i in (1, 2, 3)) + " ms")

    def second_ratio(r: Scale) -> float:  # against each round's own `python -c pass`
        return statistics.median(row[2] / row[0] for row in r.first)

    row("  the 2nd of them / `python -c pass` of the same rounds",
        lambda r: f"{second_ratio(r):.1f}x", "≤ 3x (issue 29)",
        verdict(results, 10_000, second_ratio, 3, "x"))
    row("cold hybrid p50, every memory recalled once",
        lambda r: f"{pct(r.recalled_hybrid_ms, 50):.0f} ms")
    row(f"`memx add` (whole process, no server), median of {ADD_RUNS}",
        lambda r: f"{r.add_ms:.0f} ms", "10k ≤ 150 ms (issue 15)",
        verdict(results, 10_000, lambda r: r.add_ms, 150, "ms"))
    row("  the hybrid search right after it (no server)",
        lambda r: f"{r.after_add_ms:.0f} ms")
    row(f"`memx add` with the memx server (whole client process), median of {ADD_RUNS}",
        lambda r: f"{r.served_add_ms:.0f} ms", "10k ≤ 150 ms, 100k ≤ 250 ms (issue 15)",
        "; ".join(verdict(results, s, lambda r: r.served_add_ms, limit, "ms")
                  for s, limit in ((10_000, 150), (100_000, 250))))
    row("  the hybrid search right after it, with the memx server",
        lambda r: f"{r.served_after_add_ms:.0f} ms")
    row("cold hybrid search peak RSS", lambda r: f"{r.hybrid_mb:.0f} MB", "100k ≤ 300 MB",
        verdict(results, 100_000, lambda r: r.hybrid_mb, 300, "MB"))
    warm = [verdict(results, s, lambda r: pct(r.warm_ms, 50), limit, "ms")
            for s, limit in ((10_000, 5), (100_000, 30))]
    row(f"warm in-process hybrid search p50 / p95 ({WARM_RUNS} queries)",
        lambda r: f"{pct(r.warm_ms, 50):.1f} / {pct(r.warm_ms, 95):.1f} ms",
        "10k ≤ 5 ms, 100k ≤ 30 ms", "; ".join(warm))
    paced = [verdict(results, s, lambda r: pct(r.paced_ms, 50), limit, "ms")
             for s, limit in ((10_000, 5), (100_000, 15))]
    row(f"warm hybrid search {PACE_SECONDS:.0f} s apart, recalls counted (MCP pace), p50 / "
        f"max of {PACED_RUNS}",
        lambda r: f"{pct(r.paced_ms, 50):.1f} / {max(r.paced_ms):.1f} ms",
        "10k ≤ 5 ms, 100k ≤ 15 ms (issue 15)", "; ".join(paced))
    for name, value in (("watched stores (the MCP server's Searcher)",
                         lambda r: r.paced_watched_ms),
                        ("through the memx server's socket", lambda r: r.served_paced_ms)):
        checks = [verdict(results, s, lambda r, v=value: pct(v(r), 50), limit, "ms")
                  for s, limit in ((10_000, 5), (100_000, 15))]
        row(f"  the same, {name}, p50 / max",
            lambda r, v=value: f"{pct(v(r), 50):.1f} / {max(v(r)):.1f} ms",
            "10k ≤ 5 ms, 100k ≤ 15 ms (issue 15)", "; ".join(checks))
    return "\n".join(lines)


# ---------------------------------------------------------------- quality

REFERENCE = {"BM25 (reference)": (0.299, 0.498, 0.570, 0.690),
             "static cosine (reference)": (0.206, 0.375, 0.489, 0.607),
             "0.6·BM25 + 0.4·cos (reference)": (0.315, 0.515, 0.590, 0.700),
             "RRF (reference)": (0.289, 0.484, 0.579, 0.711)}
KS = (1, 5, 10, 25)
MODES = ("keyword", "semantic", "hybrid")


@dataclass
class Quality:
    questions: int = 0
    evidence: int = 0
    normalised: int = 0
    unmatched: int = 0  # evidence ids that name no turn of the conversation
    turns: int = 0
    stored: int = 0  # turns still a memory of their own after import (ACE may merge some)
    lost: int = 0  # evidence ids whose turn was not stored as its own memory
    e5: int = 0  # hybrid searches the e5 voice ran for (MEMX_BENCH_E5_VOICE)
    recall: dict[str, list[list[float]]] = field(default_factory=dict)  # mode -> per-k lists
    latency_ms: dict[str, list[float]] = field(default_factory=dict)


# What memx's search configuration is on the benchmark stores: the forgetting curve and
# the recency boost are about a store's own life, not about finding evidence, and the
# turns are dated months apart (their sessions' dates), so both are neutral here.
QUALITY_CONFIG: dict[str, Any] = {"ace.decay.protection_days": 10**6, "ace.retrieval.recency_days": 0}
# MEMX_BENCH_MODEL=e5: the quality part (and the grids printed beside it) with that
# embedding model (issue 16); isolate() keeps it. The first search re-embeds each store.
if os.environ.get("MEMX_BENCH_MODEL"):
    QUALITY_CONFIG["embedding.model"] = os.environ["MEMX_BENCH_MODEL"]
# MEMX_BENCH_E5_VOICE=1: with the e5 voice on (issue 25, generator/e5voice.py); =auto:
# only for the questions it reads alone (e5voice.unread); its weight from
# MEMX_BENCH_E5_WEIGHT when set.
if os.environ.get("MEMX_BENCH_E5_VOICE"):
    QUALITY_CONFIG["ace.retrieval.e5_voice"] = (
        "auto" if os.environ["MEMX_BENCH_E5_VOICE"] == "auto" else True)
    if os.environ.get("MEMX_BENCH_E5_WEIGHT"):
        QUALITY_CONFIG["ace.retrieval.e5_weight"] = float(os.environ["MEMX_BENCH_E5_WEIGHT"])


def session_date(text: str) -> str | None:
    """'1:56 pm on 8 May, 2023' -> '2023-05-08T13:56:00Z' (None when it does not parse)."""
    try:
        moment = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def conversation_turns(conv: dict[str, Any], stem: str) -> list[dict[str, Any]]:
    """One import record per turn, in conversation order; nothing that leaks answers.
    Each turn is dated with its session, as a transcript ingest keeps a message's time."""
    sessions = sorted((int(m.group(1)), key) for key in conv
                      if (m := re.fullmatch(r"session_(\d+)", key)))
    records = []
    for number, key in sessions:
        stamp = session_date(conv.get(f"{key}_date_time", ""))
        for turn in conv[key]:
            content = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                content += f" [image: {turn['blip_caption']}]"
            # The speaker is who said it: metadata memx records for a transcript turn.
            records.append({"content": content, "entities": [turn["speaker"]], "source": {
                "type": "transcript", "session": f"{stem}-session_{number}",
                "dia_id": turn["dia_id"], "speaker": turn["speaker"]},
                **({"created_at": stamp} if stamp else {})})
    return records


def asked_at(records: list[dict[str, Any]]) -> str:
    """When the questions are asked: a day after the conversation's last turn."""
    stamps = sorted(r["created_at"] for r in records if r.get("created_at"))
    if not stamps:
        return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    last = datetime.strptime(stamps[-1], "%Y-%m-%dT%H:%M:%SZ")
    return (last + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def evidence_ids(raw: list[str], known: set[str], stored: set[str],
                 quality: Quality) -> set[str]:
    ids = set()
    for item in raw:
        parts = [p.strip() for p in re.split(r"[;,]", item) if p.strip()]
        quality.normalised += parts != [item]
        quality.evidence += len(parts)
        quality.unmatched += sum(p not in known for p in parts)
        quality.lost += sum(p in known and p not in stored for p in parts)
        ids.update(parts)
    return ids


def bench_quality(data_dir: Path, tmp: Path) -> Quality:
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    quality = Quality(recall={m: [[] for _ in KS] for m in MODES},
                      latency_ms={m: [] for m in MODES})
    for path in sorted(data_dir.glob("*.json")):
        conv = json.loads(path.read_text(encoding="utf-8"))
        records = conversation_turns(conv, path.stem)
        root = new_repo(tmp / f"locomo-{path.stem}")
        jsonl = tmp / f"{path.stem}.jsonl"
        jsonl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                         encoding="utf-8")
        # --raw: the protocol is one memory per turn, so the Curator must not merge turns.
        memx(root, "import", "--raw", str(jsonl))
        memx(root, "reindex")
        repo = Repo.discover(root, QUALITY_CONFIG)
        os.environ["MEMX_NOW"] = asked_at(records)
        known = {r["source"]["dia_id"] for r in records}
        stored = known & {str(m.source.get("dia_id")) for m in repo.store.load_all().memories}
        quality.turns += len(records)
        quality.stored += len(stored)
        log(f"{path.stem}: {len(stored)} of {len(records)} turns stored; searching")
        searcher = Searcher(repo)
        searcher.search("warm up", mode="hybrid", record_recalls=False)
        for qa in conv["qa"]:
            if qa.get("category") not in (1, 2, 3, 4) or not qa.get("evidence"):
                continue
            gold = evidence_ids(qa["evidence"], known, stored, quality)
            quality.questions += 1
            for mode in MODES:
                start = time.perf_counter()
                result = searcher.search(qa["question"], mode=mode, limit=max(KS),
                                         budget=10**6, record_recalls=False)
                quality.latency_ms[mode].append((time.perf_counter() - start) * 1000)
                quality.e5 += mode == "hybrid" and searcher.coverage is not None
                found = [h.doc.get("source", {}).get("dia_id") for h in result.hits]
                for slot, k in enumerate(KS):
                    quality.recall[mode][slot].append(len(gold & set(found[:k])) / len(gold))
        shutil.rmtree(root, ignore_errors=True)
    os.environ.pop("MEMX_NOW", None)
    return quality


def quality_table(q: Quality) -> str:
    lines = ["| method | " + " | ".join(f"R@{k}" for k in KS) + " |", "|---|---|---|---|---|"]
    for name, values in REFERENCE.items():
        lines.append(f"| {name} | " + " | ".join(f"{v:.3f}" for v in values) + " |")
    means = {m: [statistics.fmean(v) for v in q.recall[m]] for m in MODES}
    for mode in MODES:
        lines.append(f"| **memx {mode}** | " + " | ".join(f"{v:.3f}" for v in means[mode])
                     + " |")
    hybrid = dict(zip(KS, means["hybrid"]))
    checks = {5: 0.65, 10: 0.75}
    cells = [f"≥ {checks[k]:.2f}: {'PASS' if hybrid[k] >= checks[k] else 'FAIL'} "
             f"({hybrid[k]:.4f})"
             if k in checks else "" for k in KS]
    lines.append("| target (memx hybrid) | " + " | ".join(cells) + " |")
    best = max(v[KS.index(10)] for v in REFERENCE.values())
    latency = ", ".join(f"{m} {statistics.median(q.latency_ms[m]):.1f} ms" for m in MODES)
    lines += ["", (f"{q.questions} questions (categories 1-4 with evidence); {q.evidence} "
                   f"evidence ids, {q.normalised} normalised, {q.unmatched} unmatched, "
                   f"{q.lost} whose turn `memx import` did not keep as its own memory "
                   f"({q.stored} of {q.turns} turns kept)."),
              (f"Hybrid R@10 vs best reference R@10 ({best:.3f}): {hybrid[10] - best:+.3f}. "
               f"In-process search latency p50: {latency}."
               + (f" The e5 voice ran for {q.e5} of them." if "ace.retrieval.e5_voice"
                  in QUALITY_CONFIG else ""))]
    return "\n".join(lines)


# ---------------------------------------------------------------- pipeline stages

# Each module has run() -> [(figure, measured, target)]; a missing one is skipped.
STAGES = ("reflector", "curator_calibration", "anchors", "context", "hooks", "fusion")


def pipeline_table() -> str:
    import importlib

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    lines = ["| stage | figure | measured | target |", "|---|---|---|---|"]
    for name in STAGES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            lines.append(f"| {name} | not present in this checkout |  |  |")
            continue
        log(f"pipeline stage {name}")
        for row in module.run():
            figure, measured, target = (list(row) + ["", "", ""])[:3]
            lines.append(f"| {name} | {figure} | {measured} | {target} |")
    return "\n".join(lines)


# ---------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", help="comma-separated store sizes (default 1000,10000,100000)")
    parser.add_argument("--quick", action="store_true", help="sizes 1000,10000 only")
    parser.add_argument("--only", choices=("scale", "quality", "pipeline"),
                        help="run one part only")
    parser.add_argument("--uncommitted", action="store_true",
                        help="leave the synthetic memories out of git (committed by default)")
    args = parser.parse_args(argv)
    default = "1000,10000" if args.quick else "1000,10000,100000"
    sizes = [int(s) for s in (args.sizes or default).split(",") if s.strip()]
    began = time.perf_counter()
    out: list[str] = []
    with tempfile.TemporaryDirectory(prefix="memx-bench-") as name:
        tmp = Path(name)
        isolate(tmp / "home")
        if args.only in (None, "scale"):
            baseline = cold_baseline(tmp)
            results = {size: bench_size(size, tmp, not args.uncommitted) for size in sizes}
            out += ["## Scale (medians within one run; wall times include process start)", "",
                    scale_table(results, baseline), ""]
        if args.only in (None, "quality"):
            out += ["## Retrieval quality: LoCoMo dev split", ""]
            if LOCOMO_DIR.is_dir() and any(LOCOMO_DIR.glob("*.json")):
                out += [quality_table(bench_quality(LOCOMO_DIR, tmp)), ""]
                from loo import run as leave_one_out

                out += ["## Leave-one-conversation-out (bench/loo.py)", "",
                        *leave_one_out(tmp / "loo", LOCOMO_DIR)]
            else:
                out += [("Skipped: ../shared/data/locomo-dev/ (relative to the repository) "
                         "is not present on this machine."), ""]
    if args.only in (None, "pipeline"):
        out += ["## Pipeline stages", "", pipeline_table(), ""]
    out.append(f"Total benchmark time: {time.perf_counter() - began:.0f} s "
               f"(Python {sys.version.split()[0]}, {os.cpu_count()} CPUs).")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
