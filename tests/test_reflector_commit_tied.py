"""Issue 24, what a memory read from a commit is tied to (``reflector/commit.py``,
``commit_diff.py``, ``commit_message.py``): a setting changed in a commit that changes
code too is kept only when the message names it (its key, its file or a name its line
holds), not on the strength of a reason that is about the code; and a changelog entry or
a body sentence that begins with the title does not say the title twice. Each with the
control that stays as it was."""

from __future__ import annotations

import json
from pathlib import Path

from memx_cli.reflector import commit_message as msg
from memx_cli.reflector.commit_fix import fix_commit

from .conftest import Memx
from .test_reflector_commit_changelog import CHANGES, _add, candidates
from .test_reflector_gitlog import commit

AGENT_CONFIG = '[mcp_servers.memx]\ncommand = "memx"\nargs = ["mcp"]\n'
RETRY = "def send(event):\n    for attempt in range(3):\n        post(event)\n"


def _dropped(memx: Memx, base: str) -> dict[str, list[dict[str, object]]]:
    """The dropped candidates of ``base..HEAD`` by commit (--dry-run --all --json)."""
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--all",
                               "--json", "--budget", "0"))
    by_sha: dict[str, list[dict[str, object]]] = {}
    for drop in found["dropped"]:
        by_sha.setdefault(str(drop["sha"]), []).append(drop)
    return by_sha


def test_a_setting_committed_with_a_fix_is_not_kept_on_the_fixs_reason(
        memx: Memx, repo: Path) -> None:
    """"fix: retry the webhook …, because …" committed with an agent's config file: the
    reason is the webhook's, so the config line is no memory; the fix is. Controls: the
    same setting in a commit of settings only keeps the reason, and a commit changing code
    whose message names the setting's key keeps the setting."""
    base = commit(repo, "Start", {"app/webhook.py": "def send(event):\n    post(event)\n",
                                  "deploy/worker.toml": "retries = 1\n"})
    fixed = commit(repo, "fix: retry the webhook on timeouts\n\nTimeouts happen because the "
                   "receiver restarts every night.",
                   {"app/webhook.py": RETRY, ".codex/config.toml": AGENT_CONFIG})
    alone = commit(repo, "Register the agent's server\n\nThe agent cannot reach the memory "
                   "because no server was configured.", {".agent/config.toml": AGENT_CONFIG})
    named = commit(repo, "Raise the worker retries to 5 because the receiver restarts",
                   {"deploy/worker.toml": "retries = 5\n", "app/webhook.py": RETRY + "\n"})
    kept = candidates(memx, base)
    dropped = _dropped(memx, base)
    assert kept[fixed]["rule"] == "ErrorFix"
    assert "memx" not in str(kept[fixed]["content"]).replace(".codex", "")
    assert [d["reason"] for d in dropped[fixed] if d["rule"] == "ConfigChange"] == [
        "a setting the message names neither by its key nor its file, in a commit that "
        "changes code: its reason is the code's"]
    assert kept[alone]["rule"] == "ConfigChange"
    assert "no server was configured" in str(kept[alone]["content"])
    assert kept[named]["rule"] == "ConfigChange"
    assert "`retries = 5` (changed from 1)" in str(kept[named]["content"])


def test_a_setting_whose_line_holds_a_name_the_message_says_is_tied(
        memx: Memx, repo: Path) -> None:
    """A warning filter's line holds `allow_redirects`, which the message names: the
    setting is the change's even with code changed too. Control: the same change told
    without the name ties nothing."""
    start = 'filterwarnings = [\n    "ignore:The allow_redirects argument:DeprecationWarning",\n]\n'
    base = commit(repo, "Start", {"tool.toml": start, "app/client.py": "a = 1\n"})
    removed = commit(repo, "Remove the deprecated `allow_redirects` argument because "
                     "nobody passes it", {"tool.toml": "filterwarnings = [\n]\n",
                                          "app/client.py": "a = 2\n"})
    untied = commit(repo, "Remove the deprecated argument because nobody passes it",
                    {"tool.toml": start, "app/client.py": "a = 3\n"})
    reasons = {sha: [d["reason"] for d in drops if d["rule"] == "ConfigChange"]
               for sha, drops in _dropped(memx, base).items()}
    unnamed = ("a setting the message names neither by its key nor its file, in a commit "
               "that changes code: its reason is the code's")
    assert reasons[removed] and unnamed not in reasons[removed]
    assert reasons[untied] == [unnamed]


def test_an_entry_that_begins_with_the_title_says_it_once(memx: Memx, repo: Path) -> None:
    """"Catch OSError in the pool" adding the entry "Catch `OSError` in the pool when a
    worker dies, …": the memory is the entry, not "Title: Title …". Control: an entry in
    other words is led by the title."""
    base = commit(repo, "Start", {"CHANGES.rst": CHANGES, "src/pool.py": "a = 1\n"})
    again = commit(repo, "Catch OSError in the pool", {
        "src/pool.py": "a = 2\n",
        "CHANGES.rst": _add("-   Catch ``OSError`` in the pool when a worker dies, so the "
                            "pool refills itself.\n")})
    other = commit(repo, "Refill the pool after a crash", {
        "src/pool.py": "a = 3\n",
        "CHANGES.rst": _add("-   A worker that dies is replaced at once.\n",
                            (repo / "CHANGES.rst").read_text())})
    kept = candidates(memx, base)
    assert kept[again]["content"] == ("Catch ``OSError`` in the pool when a worker dies, so "
                                      "the pool refills itself (in 2.1.0).")
    assert kept[other]["content"] == ("Refill the pool after a crash: A worker that dies is "
                                      "replaced at once (in 2.1.0).")


def test_led_keeps_a_scope_and_needs_two_words() -> None:
    """The title's scope still leads a sentence that begins with the rest of the title; a
    one-word title is no beginning to recognise."""
    assert msg.led("css: Minify style tags", "Minify style tags in the build.") == \
        "css: Minify style tags in the build."
    assert msg.led("Minify style tags", "Style tags are minified.") == \
        "Minify style tags: Style tags are minified."
    assert msg.led("Cache", "Cache entries expire.") == "Cache: Cache entries expire."
    assert msg.led("Cache the index.", "") == "Cache the index"


def test_a_squash_merges_list_is_no_fix_of_a_platform_title(memx: Memx, repo: Path) -> None:
    """"fix: resolve the macOS link failure (#12)" whose body is the list of the pull
    request's commits: read for the platform its title names, the title alone; a listed
    commit's title ("fix(ci): restrict the workaround …") is not its Fix, nor a second
    Fix beside the one the prose before the list states. Control: that prose stays the
    fix."""
    base = commit(repo, "Start", {"build/link.go": "package build\n"})
    listed = commit(repo, "fix: resolve the macOS test link failure (#12)\n\n"
                    "* chore(ci): tune the linker flags\n\n"
                    "* fix(ci): restrict the macOS link workaround to old toolchains\n",
                    {"build/link.go": "package build\n\nvar external = true\n"})
    prose = commit(repo, "fix: resolve the macOS test link failure (#13)\n\n"
                   "Link the test binaries with the external linker on macOS.\n\n"
                   "* chore(ci): tune the linker flags\n",
                   {"build/link.go": "package build\n\nvar external = false\n"})
    both = commit(repo, "fix: signing fails when ssh is missing from the image (#14)\n\n"
                  "Install openssh-client in the slim image.\n\n"
                  "* test(image): add an SSH signing case\n",
                  {"build/link.go": "package build\n\nvar ssh = true\n"})
    ruled = commit(repo, "Fix publishing on Windows (#15)\n\n* Fix the publish workflow\n\n"
                   "* fix on windows\n\n---------\n\nCo-authored-by: A <a@example.org>\n",
                   {"build/link.go": "package build\n\nvar publish = true\n"})
    kept = candidates(memx, base)
    drops = _dropped(memx, base)
    # untyped items over GitHub's rule are a squash merge's commits too (the title alone
    # is below the floor); a lone list item with no such rule is the fix (see
    # test_reflector_history_noise: "Fix `strip` on the Windows runner")
    assert ruled not in kept
    assert [d["content"] for d in drops[ruled]] == [
        "Publishing on Windows (changed build/link.go)"]
    assert str(kept[both]["content"]).startswith(
        "Error: Signing fails when ssh is missing from the image. Fix: Install "
        "openssh-client in the slim image (changed")
    assert listed not in kept  # the title alone, valued as one (below the floor here)
    assert [d["content"] for d in drops[listed]] == [
        "Resolve the macOS test link failure (changed build/link.go)"]
    assert "Link the test binaries with the external linker on macOS" in str(
        kept[prose]["content"])
    assert "restrict" not in str(kept[prose]["content"])


def test_the_change_said_of_itself_is_the_fix_and_a_pointer_is_neither(
        memx: Memx, repo: Path) -> None:
    """A short fix body, "X is deprecated since Go 1.16. This commit replaces it with Y.
    See <link> for reference": what the commit says it does is the Fix, the link is
    neither (was Error: "This commit replaces …", Fix: "See … for reference"). Control:
    a sentence after "See #12," that says something is kept."""
    base = commit(repo, "Start", {"read.go": "package read\n"})
    told = commit(repo, "fix: remove the deprecated ioutil package (#21)\n\n"
                  "ioutil.ReadAll is deprecated since Go 1.16. This commit replaces it with\n"
                  "io.ReadAll. See https://pkg.go.dev/io/ioutil#ReadAll for reference\n",
                  {"read.go": "package read\n\nimport \"io\"\n"})
    said = commit(repo, "fix: keep the last byte of a frame (#22)\n\n"
                  "See #12, the parser drops the last byte of a frame because the length "
                  "check is off by one.\n", {"read.go": "package read\n\nvar last = 1\n"})
    kept = candidates(memx, base)
    assert kept[told]["content"] == (
        "Error: ioutil.ReadAll is deprecated since Go 1.16. Fix: This commit replaces it "
        "with io.ReadAll (changed read.go).")
    assert "the parser drops the last byte of a frame" in str(kept[said]["content"])


def test_a_one_word_fix_title_keeps_its_verb(memx: Memx, repo: Path) -> None:
    """"Fix linter" with a body that says why: the memory says "Fix linter", not
    "Linter". Control: a longer title is said without its verb, as before."""
    base = commit(repo, "Start", {"lint.toml": "build-tags = []\n", "src/a.go": "package a\n"})
    one = commit(repo, "Fix linter (#7)\n\nWe keep the old build syntax because the project "
                 "still supports Go 1.15.", {"lint.toml": 'build-tags = ["old"]\n'})
    kept = candidates(memx, base)
    assert str(kept[one]["content"]).startswith("Fix linter (changed lint.toml)")
    more = ("Fix the build tags of the linter (#8)\n\nThe linter failed on Go 1.15 because "
            "the old build syntax was missing.")
    fixed = fix_commit(more, more.splitlines()[0], ["src/a.go"], "en")
    assert fixed is not None and fixed.fix == "The build tags of the linter (changed src/a.go)"
