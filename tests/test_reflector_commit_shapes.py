"""Commit shapes of histories the rules were not tuned on (issue 24): a gitmoji before the
Conventional Commits type ("🐛 fix(run): …", ":bug: fix: …"), an action pin moved in a
commit whose message tells another change, a body that tells how its regression test
works, and a failure told in a body's prose as the fix's why."""

from __future__ import annotations

from pathlib import Path

from memx_cli.reflector import commit_value
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.commit_message import without_emoji

from .conftest import Memx
from .test_reflector_commit import reflect

BODY = ("\n\nThe cache key compared versions as strings, so `0.10` sorted below `0.6` and the "
        "stale entry won.\n\nParse the versions with `packaging.version.Version` first.")


def test_a_gitmoji_before_the_type_is_taken_off() -> None:
    assert without_emoji("🐛 fix(run): keep the cache (#12)\n\nbody") == \
        "fix(run): keep the cache (#12)\n\nbody"
    assert without_emoji(":bug: fix: keep the cache") == "fix: keep the cache"
    assert without_emoji("♻️ refactor: split the reader") == "refactor: split the reader"
    # control: a subject without one, and a subject that is all symbols, stay as written
    assert without_emoji("fix: keep the cache") == "fix: keep the cache"
    assert without_emoji("🎉") == "🎉"
    assert without_emoji("Café: a sign") == "Café: a sign"


def test_a_gitmoji_fix_is_read_as_a_fix(memx: Memx, repo: Path) -> None:
    found = reflect(repo, "🐛 fix(cache): compare parsed versions (#7)" + BODY,
                    [("M", "app/cache.py")])
    plain = reflect(repo, "fix(cache): compare parsed versions (#7)" + BODY,
                    [("M", "app/cache.py")])
    assert found == plain
    assert found[0][0] == "error-fix" and found[0][1].startswith(
        "Error: The cache key compared versions as strings"), found


def test_a_pin_the_message_does_not_name_is_by_the_way(memx: Memx, repo: Path) -> None:
    pin = ("@@ -10,3 +10,3 @@\n     steps:\n-      - uses: actions/download-artifact@v7\n"
           "+      - uses: actions/download-artifact@v8\n")
    files = [("M", "app/build.py"), ("M", ".github/workflows/release.yml")]
    # the message tells a fix, with words of the action's name ("download", "artifact")
    # but not the action: the pin's reason would be the fix's
    found = reflect(repo, "fix(build): bundle the Windows extras\n\nThe release runner "
                          "resolved the markers on Linux, so the download broke on Windows "
                          "because the artifact lacked colorama.", files,
                    {".github/workflows/release.yml": pin})
    assert [kind for kind, _ in found] == ["error-fix"], found
    # control: the message names the action it moves
    named = reflect(repo, "ci: move download-artifact to v8 because v7 drops the run id",
                    [("M", ".github/workflows/release.yml")],
                    {".github/workflows/release.yml": pin})
    assert named and "download-artifact@v8" in named[0][1], named


def test_a_sentence_about_the_regression_test_is_no_error(memx: Memx, repo: Path) -> None:
    message = ("fix(sweep): skip the cache tag (#9)\n\nThe sweep removed `CACHEDIR.TAG` as an "
               "expired entry once it was older than 14 days. Filter the candidates to "
               "directories. The regression advances the clock past the threshold and "
               "keeps the tag.")
    found = reflect(repo, message, [("M", "app/sweep.py")])
    assert found and "advances the clock" not in found[0][1], found
    assert "removed `CACHEDIR.TAG`" in found[0][1]
    # control: a regression *in* a release is a breakage and stays the error
    broke = reflect(repo, "fix(sweep): keep the tag\n\nA regression in 2.1 removed "
                          "`CACHEDIR.TAG` on every run. Filter the candidates to directories.",
                    [("M", "app/sweep.py")])
    assert broke and "A regression in 2.1 removed" in broke[0][1], broke


def test_a_failure_told_in_prose_is_the_fixs_why() -> None:
    body = ("Older releases raise `TypeError` on the keyword, so extraction fails there.\n\n"
            "* fix(tar): pass the filter only where it exists\n* test: cover old releases")
    message = "fix(tar): feature-detect the data filter\n\n" + body
    told = Candidate("ErrorFix", 1, 1, "en", "Feature-detect the data filter.",
                     "Older releases raise `TypeError` on the keyword, so extraction fails there.")
    listed = Candidate("ErrorFix", 1, 1, "en", "Feature-detect the data filter.",
                       "fix(tar): pass the filter only where it exists")
    assert commit_value.told(told.error or "", body)
    assert not commit_value.told(listed.error or "", body)  # a squash merge's listed commit
    assert commit_value.value(told, message) > commit_value.value(listed, message)
