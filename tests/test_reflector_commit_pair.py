"""An Error/Fix memory is a whole pair (issue 24): a long Error gives way so that the Fix
is there, an Error shorter than its Fix stays whole, a Fix picked only by its place in a
body is no reason to cut the Error, and "e.g." / "i.e." / "vs." end no sentence."""

from __future__ import annotations

import json
from pathlib import Path

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.distiller import distill, shorten

from .conftest import Memx
from .test_reflector_commit import reflect
from .test_reflector_gitlog import commit

FAILURE = ("A V1 event behind a custom domain base path mapping also carries a rawPath, so "
           "checking for rawPath alone made isProxyEventV2 classify it as a V2 event. The "
           "request was then routed on the wrong path and the V2 processor read fields the "
           "V1 event does not have, which surfaced as an undefined stage in every handler "
           "that logged it and as a 404 for every route mounted under the base path.")
ORDER = ("Require the V2-only requestContext.http instead, which every HTTP API and "
         "function URL event includes.")
FILES = [("M", "src/adapter/aws-lambda/handler.ts"),
         ("M", "src/adapter/aws-lambda/handler.test.ts")]


def test_a_long_error_gives_way_to_its_fix(memx: Memx, repo: Path) -> None:
    """Before: "Error: A V1 event … every route mounted under the base path." and no Fix:
    the pair ran over 500 characters and was cut from its end."""
    [(_, content)] = reflect(repo, "fix(aws-lambda): detect V2 events by request context\n\n"
                             f"{FAILURE}\n\n{ORDER}", FILES)
    assert len(content) <= 500
    assert content.startswith("aws-lambda: Detect V2 events by request context. Error: A V1 "
                              "event behind a custom domain base path mapping")
    assert content.endswith(f"Fix: {ORDER}")
    assert "every route mounted" not in content  # the Error's last sentence gave way
    # control: a pair that fits is whole, with the files the fix changed
    [(_, short)] = reflect(repo, "fix(aws-lambda): detect V2 events by request context\n\n"
                           f"{FAILURE.split('. ')[0]}.\n\n{ORDER}", FILES)
    assert short.endswith("function URL event includes (changed "
                          "src/adapter/aws-lambda/handler.ts, "
                          "src/adapter/aws-lambda/handler.test.ts).")


def test_an_error_shorter_than_its_fix_stays_whole() -> None:
    error = "go vet reports 3 copies of a lock value in internal/cache."
    fix = " ".join(f"Pass *sync.Mutex instead of sync.Mutex in internal/cache/shard{n}.go, "
                   f"where the shard's lock was copied on every call." for n in range(8))
    content = distill(Candidate("ErrorFix", 1, 9, "en", fix, error), 500).content
    assert content.startswith(f"Error: {error} Fix: Pass *sync.Mutex")
    assert len(content) <= 500
    # control: an Error longer than its Fix is cut, at a sentence, and the Fix stays
    long_error = " ".join([error] * 12)
    cut = distill(Candidate("ErrorFix", 1, 9, "en", "Pass *sync.Mutex.", long_error),
                  500).content
    assert cut.endswith("Fix: Pass *sync.Mutex.") and cut.count("go vet reports") < 12


def test_a_fix_picked_by_its_place_does_not_cut_the_error(memx: Memx, repo: Path) -> None:
    """The last sentence of a short body is its fix only when it opens a paragraph: one
    that goes on with the problem's paragraph is more of the problem, and the title is
    the fix."""
    problem = ("For a parameter-less WWW-Authenticate header, the server would leave a "
               "trailing white space: \"Bearer \" instead of \"Bearer\".")
    more = "Some libraries, namely h11, rightfully reject those headers as malformed."
    [(_, content)] = reflect(repo, f"fix trailing whitespace in WWW-Authenticate bearer\n\n"
                             f"{problem} {more}", [("M", "src/auth.py")])
    assert f"Error: {problem} {more} Fix: Trailing whitespace" in content
    # control: in a paragraph of its own it is the fix
    said = "The header is now built from the non-empty parts only."
    [(_, own)] = reflect(repo, f"fix trailing whitespace in WWW-Authenticate bearer\n\n"
                         f"{problem}\n\n{said}", [("M", "src/auth.py")])
    assert f"Error: {problem} Fix: {said[:-1]}" in own


def test_an_abbreviation_ends_no_sentence(memx: Memx, repo: Path) -> None:
    """Before: "Error: `"a" , "b"`), the preceding tag kept …": the body was split after
    "e.g." and the Error began mid-sentence."""
    failure = ("When whitespace preceded a comma (e.g. `\"a\" , \"b\"`), the preceding tag "
               "kept a trailing space, so the match failed and returned 200 instead of 304.")
    [(_, content)] = reflect(repo, "fix(etag): match If-None-Match tags with whitespace\n\n"
                             f"{failure}\n\nStrip the whitespace around every tag.",
                             [("M", "src/etag.ts")])
    assert f"Error: {failure} Fix: Strip the whitespace" in content
    text = "Keep the old name, i.e. Foo. Drop the alias vs. Bar later. Then more words here."
    assert shorten(text, 50) == "Keep the old name, i.e. Foo."
    # control: a sentence's end is still one
    assert shorten("Keep the old name. Drop the alias later. Then more words here.", 45) == \
        "Keep the old name. Drop the alias later."


def test_a_link_definition_is_no_fix(memx: Memx, repo: Path) -> None:
    problem = ("As per [rfc9110#challenge] the header may omit the realm.\n\nFor those "
               "headers, the server would leave a trailing white space after the scheme.")
    link = ("[rfc9110#challenge.and.response]: "
            "https://example.org/rfc9110.html#challenge.and.response")
    [(_, content)] = reflect(repo, "fix trailing whitespace in the bearer challenge\n\n"
                             f"{problem}\n\n{link}", [("M", "src/auth.py")])
    assert "example.org" not in content and "trailing white space" in content
    # the definition adds nothing: the memory is the one of the body without it (it was
    # the Fix: "Error: As per … Fix: [rfc9110#challenge]: https://…")
    [(_, bare)] = reflect(repo, "fix trailing whitespace in the bearer challenge\n\n"
                          f"{problem}", [("M", "src/auth.py")])
    assert content == bare


def test_a_series_note_leaves_the_fix_in_place(memx: Memx, repo: Path) -> None:
    """The memory that stands for a series is distilled within the room its note leaves,
    so the note too makes a long Error give way, never the Fix (the memory was cut
    after distilling: "… every route mounted under the base path (the same in 1 more
    commit: …)")."""
    base = commit(repo, "Start", {"README.md": "app\n"})
    for n, kind in enumerate(("V2", "V1")):
        commit(repo, f"fix(lambda): detect {kind} events by the request context\n\n"
                     f"{FAILURE}\n\n{ORDER}", {f"src/handler{n}.ts": "x\n"})
    found = json.loads(memx.ok("ingest", "--git-log", f"{base}..HEAD", "--dry-run", "--json",
                               "--budget", "0"))
    [kept] = found["candidates"]
    content = str(kept["content"])
    assert "(the same in 1 more commit" in content and len(content) <= 500
    assert f"Fix: {ORDER[:-1]}" in content
    # control: alone, the same commit's memory keeps more of its Error
    first = str(kept["sha"])
    alone = json.loads(memx.ok("ingest", "--git-log", f"{first}~1..{first}", "--dry-run",
                               "--json"))
    [single] = [str(c["content"]) for c in alone["candidates"]]
    assert single.endswith(f"Fix: {ORDER}") and len(single) > len(content.split(" (the same")[0])
