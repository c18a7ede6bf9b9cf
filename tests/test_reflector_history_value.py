"""Issue 24, fewer and better memories from a history, in real temporary repositories: a
commit's candidates are scored by lesson value (a why about a named thing above a title
that restates the change), a series of commits on one subject is one memory, and a
setting read from the diff carries the reason the body gives."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import Memx
from .test_reflector_gitlog import commit

REASONED = [
    ("fix(cache): stale entries after a deploy\n\nThe cache key left out the build id, "
     "because `cache_key()` only hashed the path, so a deploy served the old bundle.",
     "app/cache.py"),
    ("Pin `tzdata` in the worker image\n\nThe scheduler skipped a day on Windows because "
     "the image shipped a tzdata without the new offsets.", "app/worker.py"),
    ("Read the upload limit from `UPLOAD_MAX` at start\n\nReading it per request was slow, "
     "because `os.environ` lookups take the GIL on PyPy.", "app/upload.py"),
]
TITLES = ["fix: keep `import.meta.url` in the preload helper as-is",
          "fix: avoid a duplicated `buildEnd` in the dev server",
          "fix: make `chunkImportMap` work with `sharedPlugins: true`",
          "fix: handle `hot.invalidate` in a virtual module",
          "fix: respect `resolve.preserveSymlinks` for the root",
          "fix: avoid a stack overflow in `invalidate()`",
          "fix: keep `Object.prototype` frozen in the interceptor"]


def dry(memx: Memx, base: str, *extra: str) -> dict[str, list[dict[str, object]]]:
    return json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json",
                              *extra))


def test_a_stated_cause_ranks_above_a_title_that_restates_the_fix(memx: Memx,
                                                                  repo: Path) -> None:
    """The three commits that say why are kept; every fix whose memory would be its
    title alone scores below all three, and below the floor (ace.reflector.min_score):
    --dry-run --all says what it lacks. With the generic score the titles scored as
    high (their code spans counted) and all ten were kept."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    reasoned = [commit(repo, message, {path: "x = 1\n"}) for message, path in REASONED]
    for n, title in enumerate(TITLES):
        commit(repo, title, {f"src/m{n}.ts": "x\n"})
    found = dry(memx, base)
    kept = {str(c["sha"]): int(c["score"]) for c in found["candidates"]}  # type: ignore[call-overload]
    assert set(kept) == set(reasoned)
    titles = [d for d in found["dropped"] if d["sha"] not in reasoned]
    assert len(titles) == len(TITLES)
    assert max(int(d["score"]) for d in titles) < min(kept.values())  # type: ignore[call-overload]
    assert all(str(d["reason"]).startswith("lesson value ") and
               str(d["reason"]).endswith("below 30: no why, the title only")
               for d in titles), titles


def test_a_series_of_commits_on_one_subject_is_one_memory(memx: Memx, repo: Path) -> None:
    """"[lint] Enable X" once per rule: one memory, naming the other rules, and the others
    dropped with the reason (four memories before); "[lint] Raise the line length" is
    another subject."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    shas = [commit(repo, f"[lint] Enable {rule} ({what})\n\nThe rule passes already, "
                         f"because {why}.", {f"lint{n}.toml": f"select = ['{rule}']\n"})
            for n, (rule, what, why) in enumerate([
                ("SIM118", "key in dict", "nothing iterates over dict.keys()"),
                ("C400", "unnecessary generator", "list() of a generator is never used"),
                ("RET501", "explicit return None", "no function returns None by hand"),
                ("PERF102", "dict iterator", "every loop uses items()")])]
    apart = commit(repo, "[lint] Raise the line length to 100\n\nWrapped calls hid the "
                         "argument names, because the limit was 79.", {"lint.toml": "n = 100\n"})
    found = dry(memx, base, "--budget", "0")
    kept, other = sorted(found["candidates"], key=lambda c: c["sha"] == apart)
    assert kept["sha"] in shas and other["sha"] == apart  # a subject of its own
    assert "the same in 3 more commits:" in str(kept["content"])
    others = [r for r in ("SIM118", "C400", "RET501", "PERF102") if r not in
              str(kept["content"]).split("the same in")[0]]
    assert all(r in str(kept["content"]) for r in others)
    series = [d for d in found["dropped"] if str(d["reason"]).startswith("one of a series")]
    assert sorted(str(d["sha"]) for d in series) == sorted(s for s in shas
                                                           if s != kept["sha"])
    assert series[0]["reason"] == ("one of a series of commits on one subject: kept with "
                                   f"{str(kept['sha'])[:10]}")
    # a member dropped from the series reads as the memory it would be on its own
    member = str(series[0]["sha"])
    alone = json.loads(memx.ok("ingest", "--git-log", f"{member}~1..{member}", "--dry-run",
                               "--json"))
    assert [c["content"] for c in alone["candidates"]] == [series[0]["content"]]


def test_a_setting_carries_the_reason_the_body_gives(memx: Memx, repo: Path) -> None:
    """The message says why in its body, not in its subject: the memory of the changed
    setting says it too (it kept only the subject)."""
    base = commit(repo, "Start", {"app/db.yaml": "pool: 5\ntimeout: 30\n"})
    commit(repo, "Raise the db timeout\n\nThe nightly export needs longer, because it scans "
                 "every table.", {"app/db.yaml": "pool: 5\ntimeout: 60\n"})
    [memory] = dry(memx, base)["candidates"]
    assert memory["content"] == (
        "In app/db.yaml, `timeout: 60` (changed from 30) (Raise the db timeout). Why: The "
        "nightly export needs longer, because it scans every table.")


def test_replacements_with_other_names_are_two_rules(memx: Memx, repo: Path) -> None:
    """"use base64 instead of hex" and "use sha3-256 instead of sha-1" share only their
    form: in a replacement the names are the rule, so both are kept (they read as one
    series before); the same replacement made in two modules is a series (control); two
    reverts of two changes are two memories."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    encode = commit(repo, "use base64 instead of hex\n\nThe token is shorter, because base64 "
                          "packs six bits in a character.", {"app/token.py": "b64 = 1\n"})
    digest = commit(repo, "use sha3-256 instead of sha-1\n\nThe signer runs on FIPS hosts, "
                          "because SHA-1 is not available there.", {"app/sign.py": "sha3 = 1\n"})
    found = dry(memx, base, "--budget", "0")
    assert sorted(str(c["sha"]) for c in found["candidates"]) == sorted([encode, digest])
    assert not [d for d in found["dropped"] if str(d["reason"]).startswith("one of a series")]
    same = [commit(repo, f"Use `pathlib` instead of `os.path` in the {part}\n\nPaths compare "
                         f"equal on Windows, because `os.path` keeps the {part}'s slashes.",
                   {f"app/{part}.py": "p = 1\n"}) for part in ("loader", "cache")]
    again = dry(memx, digest, "--budget", "0")
    kept = [str(c["sha"]) for c in again["candidates"] if c["sha"] in same]
    assert len(kept) == 1 and "the same in 1 more commit" in str(
        next(c["content"] for c in again["candidates"] if c["sha"] == kept[0]))
    # two reverts are of what they take back: "fix: revert, "…"" twice is no series
    undone = [commit(repo, f'fix: revert, "fix: {what}"\n\nThis reverts commit {n * 40}.',
                     {f"app/undo{n}.py": "x = 1\n"})
              for n, what in (("a", "resolve the `.modules.yaml` file from the workspace root"),
                              ("b", "escape the ids of `virtual:` modules with null bytes"))]
    reverted = dry(memx, same[-1], "--budget", "0")
    assert sorted(str(c["sha"]) for c in reverted["candidates"]) == sorted(undone)


def test_break_as_a_verb_is_a_why(memx: Memx, repo: Path) -> None:
    """"sequences that break exact pexpect matching" says why the tests force the classic
    REPL: the memory carries it and is kept; "a clean break", "exit via break" (nouns) are
    no why, and the same commit with them is not kept (control)."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    why = commit(repo, "testing: force the classic REPL for the pdb selftests on 3.15\n\n"
                       "Python 3.15 defaults pdb to PyREPL, which adds bracketed-paste "
                       "sequences that break exact pexpect matching on macOS.",
                 {"testing/test_debugging.py": "env = 1\n"})
    commit(repo, "testing: force the classic REPL for the shell selftests on 3.15\n\n"
                 "Python 3.15 defaults the shell to PyREPL, a clean break from the old "
                 "REPL that the selftests never exit via break.",
           {"testing/test_shell.py": "env = 1\n"})
    found = dry(memx, base)
    assert [str(c["sha"]) for c in found["candidates"]] == [why]
    assert "that break exact pexpect matching" in str(found["candidates"][0]["content"])
