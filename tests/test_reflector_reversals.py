"""A request the user overturns once it is done (reversals.py, issue 24): the next request
about the same thing takes the earlier work out, and is a Decision naming the one it
replaced. Sessions are written in Claude Code's record shapes and ingested with
`memx ingest` in a real repository."""

from __future__ import annotations

from pathlib import Path

from .conftest import Memx
from .test_reflector_diagnosis import another_session
from .test_reflector_replies import Replies, stored

EARLIER = "let's mark the legacy sync endpoint as deprecated"
DEPRECATED = "// Deprecated: clients should call /v2/sync instead."


def deprecated_endpoint() -> Replies:
    return (Replies().user(EARLIER)
            .edit("/home/dev/api/handlers/sync.go", "func SyncHandler(w http.ResponseWriter) {",
                  DEPRECATED + "\nfunc SyncHandler(w http.ResponseWriter) {")
            .say("Done: the handler carries a deprecation comment."))


def test_the_next_request_taking_the_work_out_is_a_decision(memx: Memx, repo: Path) -> None:
    name = (deprecated_endpoint()
            .user("on second thought, drop the legacy sync endpoint entirely")
            .run("git rm api/handlers/sync.go", "rm 'api/handlers/sync.go'", False)
            .say("Removed the handler.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [("decision", (
        "Changed course: \"on second thought, drop the legacy sync endpoint entirely\" "
        "(overturns the earlier request, carried out first: \"" + EARLIER + "\")."))]


def test_an_edit_removing_the_added_line_overturns_it_too(memx: Memx, repo: Path) -> None:
    name = (deprecated_endpoint()
            .user("thinking again, keep the legacy sync endpoint supported for now and "
                  "document the date instead")
            .edit("/home/dev/api/handlers/sync.go",
                  DEPRECATED + "\nfunc SyncHandler(w http.ResponseWriter) {",
                  "// SyncHandler serves /sync until 2027-01.\nfunc SyncHandler(w http.ResponseWriter) {")
            .write(repo))
    memx.ok("ingest", name)
    assert [kind for kind, text in stored(repo) if text.startswith("Changed course")] \
        == ["decision"]


def test_work_that_builds_on_it_or_restates_it_overturns_nothing(memx: Memx, repo: Path) -> None:
    """Controls: a request about the same endpoint that adds to the work; the request said
    again with more words (a restatement: every earlier word kept); an earlier edit the user
    turned down (no work done to overturn)."""
    builds = (deprecated_endpoint()
              .user("now log a warning whenever the legacy sync endpoint is called")
              .edit("/home/dev/api/handlers/sync.go", "func SyncHandler(w http.ResponseWriter) {",
                    "func SyncHandler(w http.ResponseWriter) {\n\tlog.Warn(\"legacy sync called\")"))
    memx.ok("ingest", builds.write(repo))
    restated = (deprecated_endpoint()
                .user(EARLIER + " and remove it from the docs index")
                .run("git rm api/handlers/sync.go", "rm 'api/handlers/sync.go'", False))
    memx.ok("ingest", another_session(restated, "sess-8").write(repo))
    refused = (Replies().user(EARLIER)
               .rejected_edit("/home/dev/api/handlers/sync.go", DEPRECATED, None)
               .user("on second thought, drop the legacy sync endpoint entirely")
               .run("git rm api/handlers/sync.go", "rm 'api/handlers/sync.go'", False))
    memx.ok("ingest", another_session(refused, "sess-9").write(repo))
    assert [text for _, text in stored(repo) if text.startswith("Changed course")] == []
