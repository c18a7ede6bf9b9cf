"""Which memx code a process runs (issue 27): the version and a build identity that changes
with every install, so a server started by another install is never used.

The version string stayed 0.1.0 for hundreds of commits, so a server that survived a
re-install answered with code that no longer matched the files on disk (exit 3 from
``ModuleNotFoundError`` for up to 15 minutes). Every install rewrites the package's
folders, which changes their modification times (and an editable install is another
folder altogether): the identity hashes the package's location and the mtimes of its
folders. Reading them is one ``scandir`` and ~20 stats (well under a millisecond), cheap
enough for every command the thin client forwards. An editor that saves by renaming a
file into place changes it too; one that writes in place does not, which only means an
editable checkout's server lives until its idle timeout, as before. In an editable
checkout, Python's first ``__pycache__`` in a folder changes that folder's time too: the
server is then replaced once, and the identity is stable from there on (a regular install
is compiled when pip installs it).
"""

from __future__ import annotations

import os

try:  # hashlib's blake2b without hashlib, which loads OpenSSL first (~2 ms a command)
    from _blake2 import blake2b
except ImportError:  # an interpreter built without it
    from hashlib import blake2b


_IDENTITY: list[str] = []  # (not functools.cache: the thin client does not import it)


def identity() -> str:
    """``VERSION+BUILD`` for this process's memx package (computed once per process)."""
    if not _IDENTITY:
        import memx_cli

        root = os.path.dirname(os.path.abspath(memx_cli.__file__))
        _IDENTITY.append(f"{memx_cli.__version__}+{fingerprint(root)}")
    return _IDENTITY[0]


def fingerprint(root: str) -> str:
    """A short hash of ``root``'s path and the mtimes of it and its folders."""
    stamps: list[object] = [_mtime(root)]
    try:
        with os.scandir(root) as entries:
            stamps += sorted((entry.name, entry.stat().st_mtime_ns) for entry in entries
                             if entry.is_dir(follow_symlinks=False)
                             and entry.name != "__pycache__")
    except OSError:
        pass
    return blake2b(repr((root, stamps)).encode(), digest_size=6).hexdigest()


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0
