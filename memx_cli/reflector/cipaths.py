"""Where a path a CI log prints is in the project: the runner's workspace prefix cut off,
and whether an absolute path is inside the checkout at all (issue 24)."""

from __future__ import annotations

import re
from contextvars import ContextVar

# a runner's checkout: GitHub's hosted runners (``/home/runner/work/R/R``, macOS's
# ``/Users/runner/work/R/R``, ``/__w/R/R`` in a container, ``D:\\a\\R\\R``) and self-hosted
# ones (``_work/R/R`` under the runner's folder, wherever it is installed), or a container
# action's ``/github/workspace``
WORKSPACE = re.compile(r"^(?:(?:/home/runner/work|/Users/runner/work|/__w|[A-Za-z]:[/\\]a|(?:[A-Za-z]:)?(?:[/\\][^/\\\s]+)*?"
                       r"[/\\]_work)[/\\]([^/\\]+)[/\\]\1[/\\]|/github/workspace/)")
# the checkout the log itself names (git's ``Initialized empty Git repository in DIR/.git/``
# as a GitLab runner fetches, actions/checkout's ``Working directory is 'DIR'``), set while
# its steps are read: ``/builds/GROUP/SUBGROUP/PROJECT`` has no fixed depth to cut by
CHECKOUT: ContextVar[str | None] = ContextVar("checkout", default=None)
OUTSIDE = re.compile(r"site-packages|dist-packages|hostedtoolcache|/lib/python\d|<frozen|"
                     r"node_modules|(?:^|/)vendor/|/usr/lib/|/rustc/|\.cargo/registry|/\.?venv/|/bin/[^/]+$")
ABSOLUTE = re.compile(r"^(?:/|[A-Za-z]:[\\/])")
# an absolute path inside a message's own words (cargo's ``custom build command for `crate
# v0.1.0 (/home/runner/work/R/R/crates/c)```, Gradle's ``'/builds/G/P/build.gradle'``,
# Kotlin's ``file:///…``): it ends at a space, a quote, a bracket or a separator of a list
IN_WORDS = re.compile(r"(?<![\w.\\/-])(?:file://)?(?P<path>/[^\s'\"`()<>,;|]+|"
                      r"[A-Za-z]:[/\\][^\s'\"`()<>,;|]+)")


def relative(path: str) -> str:
    """A path as the repository knows it: the runner's workspace prefix cut off, with
    ``/`` between its parts on every runner (a Windows job prints ``src\\lib.rs``)."""
    path = WORKSPACE.sub("", path)
    home = CHECKOUT.get()
    if home and path.replace("\\", "/").startswith(home.replace("\\", "/").rstrip("/") + "/"):
        path = path[len(home.rstrip("/\\")) + 1:]
    return path if ABSOLUTE.match(path) else path.replace("\\", "/")


def inside(path: str) -> bool:
    """Is this absolute path in the checkout (the runner's workspace, or the one the log
    named)?"""
    return WORKSPACE.match(path) is not None or not ABSOLUTE.match(relative(path))


def in_words(text: str) -> str:
    """A message with the paths in its own words said as the project knows them: the
    runner's checkout cut off a path inside it, any other path left as it was."""
    def cut(hit: re.Match[str]) -> str:
        path = hit.group("path")
        if not inside(path):
            return hit.group(0)
        return relative(path) or hit.group(0)
    return IN_WORDS.sub(cut, text)
