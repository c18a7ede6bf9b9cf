"""Process-wide settings of a memx command (issue 15): one BLAS thread, a fast exit.

Kept apart from the CLI so the MCP server and tests can reason about them, and so a
command memx runs for the user (``memx run``) gets the user's environment untouched.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

# numpy's BLAS starts a thread per core at import; memx's vectors are a few hundred
# numbers per memory, where the threads only burn CPU (21% more in issue 15's figures).
# Read when numpy loads, so they are set before anything imports it; never OpenMP's
# variable, which would also slow the vector index build.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
_added: set[str] = set()


def one_blas_thread() -> None:
    """Ask numpy's BLAS for one thread, unless the user set it."""
    for name in BLAS_THREADS:
        if name not in os.environ:
            os.environ[name] = "1"
            _added.add(name)


def user_environ() -> dict[str, str]:
    """The environment as the user gave it, for commands memx runs on their behalf."""
    return {k: v for k, v in os.environ.items() if k not in _added}


def fast_exit(code: int) -> NoReturn:
    """Leave at once after flushing the standard streams: interpreter shutdown (module
    teardown, the native libraries' destructors) cost 24-62 ms per command in issue 15.
    Only for a finished command whose files are all closed; a stream that cannot be
    flushed (a closed pipe) takes the ordinary exit."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    os._exit(code)
