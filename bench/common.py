"""What the benchmark scripts share: a pinned git identity and an isolated home."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

GIT_ENV = {
    "GIT_AUTHOR_NAME": "memx bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "memx bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
}
_HOME_DIRS = {"HOME": "", "XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "/config",
              "XDG_CACHE_HOME": "/cache"}


@contextlib.contextmanager
def isolated_env(tmp: str) -> Iterator[None]:
    """Inside the block: the pinned git identity and HOME/XDG folders under ``tmp`` (no
    global store or config of the user running the benchmark); restored afterwards."""
    saved = {k: os.environ.get(k) for k in (*GIT_ENV, *_HOME_DIRS)}
    os.environ.update(GIT_ENV)
    os.environ.update({k: tmp + sub for k, sub in _HOME_DIRS.items()})
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


# A child forked straight from a large benchmark process starts with that process's
# resident size in its ru_maxrss high-water mark (fork, then exec, keep the maximum). So
# peaks are measured one process further away: a small launcher forks the command from
# its own small image, waits for it and reports the command's peak on stderr.
LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
sys.stderr.write(f"\\nmemx-bench-peak-kib {usage.ru_maxrss}\\n")
sys.exit(os.waitstatus_to_exitcode(status))
"""
PEAK_MARK = "memx-bench-peak-kib "


def launched(argv: list[str]) -> list[str]:
    """``argv`` run through the launcher (see ``peak_mb``)."""
    import sys

    return [sys.executable, "-c", LAUNCHER, *argv]


def peak_mb(stderr: str) -> float:
    """The command's peak RSS in MB, from the launcher's stderr."""
    lines = [ln for ln in stderr.splitlines() if ln.startswith(PEAK_MARK)]
    if not lines:
        raise RuntimeError("the launcher reported no peak")
    return int(lines[-1][len(PEAK_MARK):]) / 1024


def print_rows(rows: list[tuple[str, str, str]]) -> None:
    """A stage's rows as the Markdown table its script prints when run on its own."""
    print("| figure | measured | target |\n|---|---|---|")
    for figure, measured, target in rows:
        print(f"| {figure} | {measured} | {target} |")
