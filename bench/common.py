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
