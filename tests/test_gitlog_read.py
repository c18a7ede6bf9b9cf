"""Reading a history whose objects are missing (issue 24: a partial or fetched copy without
its large files): the commits git cannot diff are read on their message and file names,
counted, and the rest of the range goes on; nothing aborts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .conftest import Memx, git
from .test_reflector_gitlog import commit


def _drop_object(repo: Path, path: str, rev: str = "HEAD") -> None:
    """Delete the loose object of ``path`` at ``rev``, as a copy without it would lack it."""
    sha = git(repo, "rev-parse", f"{rev}:{path}").strip()
    (repo / ".git" / "objects" / sha[:2] / sha[2:]).unlink()


def _history(repo: Path) -> dict[str, str]:
    shas = {}
    commit(repo, "add the service", {"deploy/app.yaml": "timeout: 30\n",
                                     "assets/model.bin": "weights v1\n" * 50,
                                     "docs/old.txt": "first words of a long note\n" * 20})
    # its patch needs the new model blob, which is missing
    shas["patch"] = commit(repo, "Raise the request timeout\n\nThe upstream answers in 45 s "
                                 "under load, because its cache is cold after a deploy.",
                           {"deploy/app.yaml": "timeout: 60\n",
                            "assets/model.bin": "weights v2\n" * 50})
    _drop_object(repo, "assets/model.bin")
    # an inexact rename: finding it reads both blobs, and the new one is missing
    git(repo, "rm", "-q", "docs/old.txt")
    shas["rename"] = commit(repo, "Move the note under guides", {
        "guides/note.txt": "first words of a long note\n" * 19 + "and one more\n"})
    _drop_object(repo, "guides/note.txt")
    shas["after"] = commit(repo, "fix(cache): crash when REDIS_URL is unset\n\nThe client read "
                                 "REDIS_URL without a default, so a KeyError crashed the "
                                 "worker.\n\nFall back to redis://localhost:6379/0.",
                           {"app/cache.py": "url = env.get('REDIS_URL', DEFAULT)\n"})
    # git would read a blob its checkout still holds unchanged: not these
    for path in ("assets/model.bin", "guides/note.txt"):
        (repo / path).write_text("edited since\n")
    return shas


def test_missing_blobs_skip_those_diffs_and_the_run_goes_on(memx: Memx, repo: Path) -> None:
    shas = _history(repo)
    broken = subprocess.run(["git", "diff-tree", "-p", shas["patch"]], cwd=repo,
                            capture_output=True, text=True)
    assert broken.returncode != 0 and "unable to read" in broken.stderr  # git itself stops
    found = json.loads(memx.ok("ingest", "--git-log", "--dry-run", "--json"))
    assert (found["reflected"], found["diffs_unreadable"]) == (5, 2)
    by_sha = {c["sha"]: c for c in found["candidates"]}
    # the commits after the missing objects are read as before
    assert by_sha[shas["after"]]["rule"] == "ErrorFix"
    # a commit without its diff is still read on its message: its "because" is the lesson
    assert by_sha[shas["patch"]]["content"].startswith("Raise the request timeout: The upstream")
    result = memx("ingest", "--git-log")
    assert result.code == 0, result.err
    assert result.out.splitlines()[0].endswith(
        "(0 merges, 0 by bots, 0 already ingested; 2 commits read without their diff: "
        "objects missing)")


def test_a_rename_whose_blob_is_missing_keeps_its_files(repo: Path) -> None:
    """The commit git cannot find renames in is read without rename detection: its files
    are still listed, as a deletion and an addition."""
    from memx_cli.operations import gitlog_read
    from memx_cli.store.repo import Repo

    shas = _history(repo)
    read = {c.sha: c for _, c in gitlog_read.commits(Repo.discover(repo), "HEAD")}
    renamed = read[shas["rename"]]
    assert (renamed.unreadable, sorted(renamed.files)) == (
        True, [("A", "guides/note.txt"), ("D", "docs/old.txt")])
    assert renamed.message.startswith("Move the note under guides")
    assert not read[shas["after"]].unreadable and read[shas["after"]].files == [
        ("A", "app/cache.py")]
