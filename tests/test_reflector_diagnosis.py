"""An agent's diagnosis that the session bears out (diagnosis.py, issue 24): the assistant
states the cause, edits, and a check run passes or the user moves on without contradicting
it. Sessions are written in Claude Code's record shapes and ingested with `memx ingest` in a
real repository."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import Memx
from .test_reflector_replies import Replies, stored

DEPLOY_ERROR = ("Run ./scripts/publish.sh\n"
                "remote: Permission to acme/site.git denied to deploy-bot.\n"
                "fatal: unable to access 'https://git.example.com/acme/site/': "
                "The requested URL returned error: 403")
CAUSE = ("The issue is that the `checkout` step keeps its own read-only credentials, so the "
         "later `git push` in publish.sh ignores `DEPLOY_TOKEN`. The fix: pass "
         "`persist-credentials: false` to the checkout step.")


def deploy_session() -> Replies:
    session = Replies()
    session.user("The publish job fails since yesterday:\n" + DEPLOY_ERROR)
    session.say(CAUSE)
    session.edit("/home/dev/site/.ci/publish.yml", "      - uses: checkout",
                 "      - uses: checkout\n        with:\n          persist-credentials: false")
    session.say("Updated the checkout step in publish.yml.")
    return session


def test_a_cause_acted_on_and_accepted_by_the_user_moving_on(memx: Memx, repo: Path) -> None:
    name = deploy_session().user("Good. Now add a step that posts the site URL to the PR.") \
        .write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == [("pitfall", (
        "Error: fatal: unable to access 'https://git.example.com/acme/site/': The requested "
        "URL returned error: 403. Fix: Pass `persist-credentials: false` to the checkout step "
        "(edited publish.yml: `- uses: checkout with: persist-credentials: false`). Why: The issue is that the "
        "`checkout` step keeps its own read-only credentials, so the later `git push` in "
        "publish.sh ignores `DEPLOY_TOKEN`."))]


def test_the_user_repeating_the_error_or_turning_the_edit_down_keeps_nothing(
        memx: Memx, repo: Path) -> None:
    repeated = deploy_session().user("Same thing: The requested URL returned error: 403")
    name = repeated.write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == []
    turned_down = Replies().user("The publish job fails since yesterday:\n" + DEPLOY_ERROR)
    turned_down.say(CAUSE)
    turned_down.rejected_edit("/home/dev/site/.ci/publish.yml", "persist-credentials: false",
                              None)
    turned_down.user("Let's look at the release notes instead.")
    memx.ok("ingest", turned_down.write(repo))
    assert stored(repo) == []


def test_a_cause_inside_an_episode_is_its_why(memx: Memx, repo: Path) -> None:
    """The failing linter green again after the edit closes an episode; the diagnosis the
    assistant stated inside it becomes its Why (one memory, not two)."""
    name = (Replies().user("Add a --json flag to the report command.")
            .run("golangci-lint run ./...",
                 "cmd/report/main.go:41:2: ineffectual assignment to err (ineffassign)\n"
                 "1 issues:\n* ineffassign: 1", True)
            .say("The issue is that `err` from `json.Marshal` is overwritten by the next "
                 "`fmt.Fprintln` before anyone checks it.")
            .edit("/home/dev/report/cmd/report/main.go", "out, err := json.Marshal(r)",
                  "out, err := json.Marshal(r)\n\tif err != nil {\n\t\treturn err\n\t}")
            .run("golangci-lint run ./cmd/report/...", "0 issues.", False)
            .say("Lint is clean now.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [("pitfall", (
        "Error: `golangci-lint run ./...` — cmd/report/main.go:41:2: ineffectual assignment "
        "to err (ineffassign). Fix: edited /home/[REDACTED:user]/report/cmd/report/main.go: "
        "`out, err := json.Marshal(r) if err != nil { return err }`; ran `golangci-lint run "
        "./cmd/report/...`. Why: The issue is that `err` from `json.Marshal` is overwritten "
        "by the next `fmt.Fprintln` before anyone checks it."))]


def test_a_cause_confirmed_by_another_green_check_run(memx: Memx, repo: Path) -> None:
    """No user word at all, and not the failing command: the test runner's green summary
    after the edit bears the cause out."""
    name = (Replies().user("The importer drops the last row of every CSV file.")
            .run("python -m importer data/sample.csv", "imported 41 rows", False)
            .say("The bug is that `rows[:-1]` in `read_rows()` was meant to skip a trailing "
                 "blank line, but `csv.reader` never yields one.")
            .edit("/home/dev/importer/importer/read.py", "return rows[:-1]", "return rows")
            .run("pytest -q tests/test_read.py", "5 passed in 0.21s", False)
            .say("Fixed: all 42 rows are read now.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [("pitfall", (
        "edited read.py: `return rows`. Why: The bug is that `rows[:-1]` in `read_rows()` was meant "
        "to skip a trailing blank line, but `csv.reader` never yields one."))]


def test_a_cause_the_next_run_disproves_is_no_lesson(memx: Memx, repo: Path) -> None:
    """"Still slow" after the edit: a detour, whatever the linter said."""
    name = (Replies().user("Every command takes almost a second to exit. Find out why.")
            .say("The issue is that the metrics client flushes synchronously in `Close()` "
                 "with no deadline.")
            .edit("/home/dev/tool/metrics/client.go", "c.flush()", "c.flushWithin(50 * time.Millisecond)")
            .run("golangci-lint run ./...", "0 issues.", False)
            .run("time ./tool version", "real 0m0.912s", False)
            .say("Still slow: 0.9 s. Something else blocks the exit.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == []


def test_a_run_that_passed_without_doing_its_job_then_another_way(memx: Memx, repo: Path) -> None:
    """The agent itself says the passing command did not do what it was for, and the next
    command, another program, does: a RetrySuccess with both commands."""
    name = (Replies().user("Drop the debug commit from this branch and push it again.")
            .run("git rebase -i origin/main < todo.txt", "Successfully rebased and updated "
                 "refs/heads/feature.", False)
            .run("git log --oneline origin/main..HEAD", "a1b2c3d debug output\n9f8e7d6 feature",
                 False)
            .say("The rebase did not drop the debug commit. I'll rebuild the branch instead.")
            .run("git reset --hard origin/main && git cherry-pick 9f8e7d6",
                 "HEAD is now at 0a0a0a0 main\n[feature 1c1c1c1] feature", False)
            .run("git push --force-with-lease", "+ 5c5c5c5...1c1c1c1 feature -> feature "
                 "(forced update)", False)
            .say("Done: the branch holds only the feature commit now.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [("trick", (
        "Error: `git rebase -i origin/main < todo.txt` — The rebase did not drop the debug "
        "commit. Fix: ran `git reset --hard origin/main && git cherry-pick 9f8e7d6`."))]


def test_the_same_command_again_or_a_failing_other_way_is_no_retry(
        memx: Memx, repo: Path) -> None:
    name = (Replies().user("Publish the docs.")
            .run("make docs", "built 12 pages", False)
            .say("The build did not pick up the new page. Running it again.")
            .run("make docs", "built 13 pages", False)
            .say("Now it has all 13.")
            .run("mkdocs gh-deploy", "INFO - Copying site", False)
            .say("The deploy did not push anything; trying the script.")
            .run("./scripts/deploy-docs.sh", "error: remote rejected", True)
            .say("That failed as well.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == []


def test_a_long_edit_is_shown_as_far_as_the_memory_has_room(memx: Memx, repo: Path) -> None:
    """The fix keeps what the assistant said of its edit and the start of the edit itself,
    cut at a word with its code span closed; the cause still fits after it."""
    long_new = ("git tag -a \"$VERSION\" -m \"Release $VERSION\" -m \"Built from $SHA on the "
                "release runner\" && git push origin \"$VERSION\"")
    name = (Replies().user("The release workflow stopped at the tag step:\n"
                           "Error: .ci/release.yml (Line: 40, Col: 3): did not find expected key")
            .say("The issue is that the second line of the tag message starts at column 1, "
                 "so it ends the `run: |` block.")
            .edit("/home/dev/app/.ci/release.yml", "git tag -a \"$VERSION\"", long_new)
            .say("Each line is its own `-m` now, so nothing leaves the `run: |` block.")
            .user("Thanks. Next, cache the Go modules in that workflow.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [("pitfall", (
        "Error: .ci/release.yml (Line: 40, Col: 3): did not find expected key. Fix: Each line "
        "is its own `-m` now, so nothing leaves the `run: |` block (edited release.yml: `git "
        "tag -a \"$VERSION\" -m \"Release $VERSION\" -m \"Built from $SHA on the…`). Why: "
        "The issue is that the second line of the "
        "tag message starts at column 1, so it ends the `run: |` block."))]


def test_two_diagnoses_of_equal_score_at_the_end_are_both_kept(memx: Memx, repo: Path) -> None:
    """Diagnoses wait for the end of the session; two that score the same are ordered by
    where they were found, never by comparing their records (that raised a TypeError)."""
    session = Replies()
    for job in ("import", "export"):
        session.user(f"Why is the nightly {job} job so slow?")
        session.say(f"The issue is that `{job}_batch()` opens one connection per row.")
        session.edit(f"/home/dev/jobs/{job}.py", "for row in rows: connect()",
                     "with connect() as db: db.run_all(rows)")
    session.user("Thanks, that is all for today.")
    memx.ok("ingest", session.write(repo))
    assert [kind for kind, _ in stored(repo)] == ["pitfall", "pitfall"]


def pattern_session() -> tuple[Replies, str]:
    """"The issue is the expected value itself." names nothing concrete: the sentence after
    it ("The pattern … matches `key=…` as one token") is the cause the green run bears out."""
    session = (Replies().user("Make the redaction test pass.")
               .run("go test ./redact/...",
                    "--- FAIL: TestLine (0.00s)\n    redact_test.go:12: got [REDACTED], want "
                    "key=[REDACTED]\nFAIL\nFAIL\texample.com/app/redact\t0.01s", True)
               .say("The issue is the expected value itself. The pattern `[A-Za-z0-9=-]{10,}` "
                    "matches `key=abc123def456` as one token, so the whole value is replaced.")
               .edit("/home/dev/app/redact/redact_test.go", 'want := "key=[REDACTED]"',
                     'want := "[REDACTED]"')
               .run("go test ./redact/...", "ok  \texample.com/app/redact\t0.01s", False)
               .say("All tests pass. One change in `redact_test.go`: the expectation is now "
                    "`[REDACTED]`."))
    return session, ("Why: The issue is the expected value itself. The pattern "
                     "`[A-Za-z0-9=-]{10,}` matches `key=abc123def456` as one token, so the "
                     "whole value is replaced.")


def quoting_session() -> tuple[Replies, str]:
    """No cause phrase: the assistant says what is wrong by quoting the code ("Line 58 has
    `bytes(...)` which should be `[]byte(...)`"), the edit then takes out the one and brings
    in the other, and the user moves on: the statement is borne out."""
    session = (Replies().user("Please fix the compile error in the report test.")
               .say("Line 31 has `strconv.Itoa(total)` which should be "
                    "`strconv.FormatInt(total, 10)`. The `total` counter is an `int64`, and "
                    "`Itoa` only takes an `int`.")
               .edit("/home/dev/app/report/report_test.go", "want := strconv.Itoa(total)",
                     "want := strconv.FormatInt(total, 10)")
               .say("Fixed the conversion in report_test.go.")
               .user("run the tests"))
    return session, ("Why: Line 31 has `strconv.Itoa(total)` which should be "
                     "`strconv.FormatInt(total, 10)`. The `total` counter is an `int64`, and "
                     "`Itoa` only takes an `int`.")


@pytest.mark.parametrize("built", [pattern_session, quoting_session])
def test_the_cause_is_the_sentence_that_says_what_was_wrong(
        memx: Memx, repo: Path, built: Callable[[], tuple[Replies, str]]) -> None:
    session, why = built()
    memx.ok("ingest", session.write(repo))
    [(kind, content)] = stored(repo)
    assert kind == "pitfall"
    assert content.endswith(why)


def test_a_narrated_plan_or_a_quote_the_edit_does_not_bear_out_is_no_diagnosis(
        memx: Memx, repo: Path) -> None:
    """"Let me replace `a` with `b`" narrates the edit; a statement quoting code that the next
    edit neither takes out nor brings in was about something else."""
    name = (Replies().user("Raise the client timeout in cli.go.")
            .say("Let me replace `DefaultTimeout = 30` with `DefaultTimeout = 60` in cli.go.")
            .edit("/home/dev/app/cli.go", "DefaultTimeout = 30", "DefaultTimeout = 60")
            .say("Raised.")
            .user("Now tidy the help text of the export command.")
            .say("The help of `export` says `Exports rows` but `--since` is not mentioned.")
            .edit("/home/dev/app/export.go", 'Short: "Exports rows"',
                  'Short: "Export rows to CSV"')
            .say("Updated the short help.")
            .user("Thanks, that's all.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == []


MERGE_CONFLICT = ("Auto-merging app/session.go\nCONFLICT (content): Merge conflict in "
                  "app/session.go\nAutomatic merge failed; fix conflicts and then commit the "
                  "result.")


def merge_session(summary: str) -> Replies:
    session = Replies().user("merge origin/main into this branch")
    session.run("git merge origin/main", MERGE_CONFLICT, True)
    session.say(summary)
    session.edit("/home/dev/app/app/session.go", "<<<<<<< HEAD\n\tkind := resolveKind(ctx)",
                 "\tkind := resolveKind(ctx)\n\ts.start(id, kind, \"\")")
    session.say("Resolved the conflict in session.go.")
    session.user("Good. Now push it.")
    return session


def test_a_fix_only_named_in_passing_is_no_announced_fix(memx: Memx, repo: Path) -> None:
    """"the `resolveKind` helper (the fix for the agent name)" names some fix, it does not
    introduce one: a resolved merge told that way is no diagnosis."""
    name = merge_session("Both sides are kept: the `resolveKind` helper (the fix for the "
                         "agent name) and the new `userPrompt` argument of `start`.").write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == []


def test_a_fix_introduced_with_a_colon_is_announced(memx: Memx, repo: Path) -> None:
    """Control: the same merge where the assistant announces the fix."""
    name = merge_session("The fix: keep the `resolveKind` helper and pass the new "
                         "`userPrompt` argument to `start`.").write(repo)
    memx.ok("ingest", name)
    assert [kind for kind, _ in stored(repo)] == ["pitfall"]


def _ci_only_failure(before: str, before_failed: bool) -> Replies:
    """A check run locally before anything is changed, a failure seen only in the CI log,
    the agent's cause, its edit and the same local check after it."""
    return (Replies().user("why does the typecheck job fail on the pull request?")
            .run("make typecheck", before, before_failed)
            .run("gh run view 4411 --log-failed",
                 "typecheck\tRun mypy\tsrc/app/cache.py:14: error: Item \"None\" of "
                 "\"Optional[Conn]\" has no attribute \"get\"  [union-attr]", False)
            .say("The issue is that `self.conn` is `Optional[Conn]` and `lookup()` uses it "
                 "without narrowing it first.")
            .edit("/home/dev/app/src/app/cache.py", "return self.conn.get(key)",
                  "assert self.conn is not None\n        return self.conn.get(key)")
            .run("make typecheck", "Success: no issues found in 12 source files", False)
            .say("Added the assert in `lookup()`."))


def test_a_check_already_green_before_the_edit_bears_nothing_out(
        memx: Memx, repo: Path) -> None:
    """The local check passed before the edit with the failure there (it was seen only in
    CI): the same check green after the edit tells nothing about the cause."""
    name = _ci_only_failure("Success: no issues found in 12 source files", False).write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == []


def test_a_check_failing_before_the_edit_and_green_after_it_bears_the_cause_out(
        memx: Memx, repo: Path) -> None:
    """Control: the same check failed before the edit, so its green run after it counts."""
    name = _ci_only_failure("src/app/cache.py:14: error: Item \"None\" of \"Optional[Conn]\" "
                            "has no attribute \"get\"  [union-attr]\nFound 1 error in 1 file",
                            True).write(repo)
    memx.ok("ingest", name)
    assert [kind for kind, _ in stored(repo)] == ["pitfall"]
    assert "Why: The issue is that `self.conn` is `Optional[Conn]`" in stored(repo)[0][1]


def test_a_hedged_cause_is_a_guess_and_no_diagnosis(memx: Memx, repo: Path) -> None:
    """"likely due to …" is the agent's own guess: the green run after its edit does not
    make it a cause (control: the cause said plainly, the test above)."""
    name = (Replies().user("The importer drops the last row of every CSV file.")
            .run("python -m importer data/sample.csv", "imported 41 rows", False)
            .say("The last row is likely dropped due to `rows[:-1]` in `read_rows()`.")
            .edit("/home/dev/importer/importer/read.py", "return rows[:-1]", "return rows")
            .run("pytest -q tests/test_read.py", "5 passed in 0.21s", False)
            .say("All 42 rows are read now.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == []


# The agent says it has found the problem in a sentence of its own, and the sentences after
# it state the cause (no "the issue is" anywhere): the session's structure, not a phrase,
# carries the cause — edit, then a passing check.
FOUND = ("Now I understand the problem. When the cache is rebuilt after midnight, "
         "`cacheKey()` takes today's date while `LookupEntry()` keeps the key it was created "
         "with, so the two never meet. Let me fix that in the store.")
STORE_REPORT = ("Done. `Store.Put` now builds its key with `keyFromEntry(entry)`, which keeps "
                "the entry's own date, so an entry written before midnight is found after it.")


def rebuilt_cache(first_words: str) -> Replies:
    return (Replies().user("Entries written just before midnight cannot be found the next "
                           "morning. Can you look at the store?")
            .say(first_words)
            .edit("/home/dev/kv/store/put.go", "key := cacheKey(time.Now(), e.ID)",
                  "key := keyFromEntry(e)")
            .run("go test ./store/...", "ok  \texample.com/kv/store\t0.04s", False))


def another_session(session: Replies, name: str) -> Replies:
    """The session under another id: ingested into the same repository, it is read from
    its start, not resumed after the turns of the session ingested before it."""
    for record in session.records:
        record["sessionId"] = name
    return session


def test_a_cause_after_the_agent_says_it_found_it_is_the_reports_why(
        memx: Memx, repo: Path) -> None:
    """The report tells what was done; the cause the agent announced before its edit is its
    Why: one memory."""
    name = rebuilt_cache(FOUND).say(STORE_REPORT).user("Thanks, now the release notes.") \
        .write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == [("knowledge", (
        STORE_REPORT + " (checked: `go test ./store/...` passed). Why: When the cache is "
        "rebuilt after midnight, `cacheKey()` takes today's date while `LookupEntry()` keeps "
        "the key it was created with, so the two never meet."))]


def test_sentences_after_no_announcement_or_a_rejected_edit_give_no_why(
        memx: Memx, repo: Path) -> None:
    """Controls: the same sentences after a look-around ("Let me read the store.") are
    narration, the report stands alone; an edit the user turned down keeps nothing."""
    turned_down = (Replies().user("Entries written just before midnight cannot be found the "
                                  "next morning. Can you look at the store?")
                   .say(FOUND)
                   .rejected_edit("/home/dev/kv/store/put.go", "key := keyFromEntry(e)",
                                  "no, the date must stay in the key")
                   .user("Let's look at the release notes instead."))
    memx.ok("ingest", turned_down.write(repo))
    assert all("midnight" not in text for _, text in stored(repo))
    plain = FOUND.replace("Now I understand the problem.", "Let me read the store.")
    plain_session = rebuilt_cache(plain).say(STORE_REPORT).user("Thanks, now the release notes.")
    name = another_session(plain_session, "sess-8").write(repo)
    memx.ok("ingest", name)
    assert [m for m in stored(repo) if "keyFromEntry" in m[1]] == [
        ("knowledge", STORE_REPORT + " (checked: `go test ./store/...` passed).")]


def test_a_found_cause_with_no_report_names_the_edit_not_the_next_step(
        memx: Memx, repo: Path) -> None:
    """No report after the check: the diagnosis stands, its fix is the edit, never the
    assistant's announcement of what it does next ("Let me run the tests")."""
    name = (rebuilt_cache(FOUND)
            .say("Let me also run `go vet ./store/...` to be sure.")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [("pitfall", (
        "edited put.go: `key := keyFromEntry(e)`. Why: When the cache is rebuilt after "
        "midnight, `cacheKey()` takes today's date while `LookupEntry()` keeps the key it was "
        "created with, so the two never meet."))]


def test_a_lead_in_to_a_quote_after_found_it_is_no_cause(memx: Memx, repo: Path) -> None:
    """"Found it. The failing test is:" introduces the failure, not its cause: the report
    stands alone."""
    quoted = ("Found it. The failing test is:\n\n```\nTestLookup/after_midnight: entry not "
              "found\n```")
    memx.ok("ingest", rebuilt_cache(quoted).say(STORE_REPORT)
            .user("Thanks, now the release notes.").write(repo))
    assert stored(repo) == [("knowledge",
                             STORE_REPORT + " (checked: `go test ./store/...` passed).")]


def test_a_finding_said_in_one_sentence_is_the_cause(memx: Memx, repo: Path) -> None:
    """"I can see that X" states the cause itself: the lead-in is dropped. Control first:
    the same words as the agent's plan ("I will check that …") are narration, no cause."""
    seen = ("Reading put.go, I can see that the store keys every entry by today's date in "
            "`cacheKey()`, never by the entry's own date.")
    planned = seen.replace("I can see that", "I will check that")
    memx.ok("ingest", rebuilt_cache(planned).say("Let me also run `go vet ./store/...`.")
            .write(repo))
    assert stored(repo) == []
    seen_session = rebuilt_cache(seen).say("Let me also run `go vet ./store/...`.")
    memx.ok("ingest", another_session(seen_session, "sess-8").write(repo))
    assert stored(repo) == [("pitfall", (
        "edited put.go: `key := keyFromEntry(e)`. Why: The store keys every entry by today's "
        "date in `cacheKey()`, never by the entry's own date."))]


# What the agent finds between a failing run and its edit, with no word of cause ("`x` can
# go negative"): the same command green after the edit bears it out (episodes.py).
GO_TEST = "go test ./internal/quota/..."
GO_FAIL = ("--- FAIL: TestRemaining_AllDeleted (0.00s)\n"
           "    quota_test.go:48: Remaining() = -3, want 0\n"
           "FAIL\nFAIL\texample.com/svc/internal/quota\t0.012s")
GO_PASS = "ok  \texample.com/svc/internal/quota\t0.011s"
FINDING = ("`usedLines` is subtracted from `granted` a second time for deleted lines, and "
           "`Remaining()` goes below zero.")
QUOTA = "/home/dev/svc/internal/quota/quota.go"


def _found_then_edited(finding: str = FINDING) -> Replies:
    session = Replies().user("Add a test for a quota whose lines were all deleted.")
    session.run(GO_TEST, GO_FAIL, True)
    session.say(finding + " Let me clamp it.")
    session.edit(QUOTA, "return granted - usedLines", "return max(0, granted-usedLines)")
    return session


def _why(repo: Path) -> list[str]:
    return [content.partition(" Why: ")[2] for _, content in stored(repo)]


def test_a_finding_the_same_command_bears_out_is_the_why(memx: Memx, repo: Path) -> None:
    """The agent's words between the edit and the green run ("Vet passes cleanly.") report
    a check; what it found before the edit is why."""
    name = _found_then_edited().run("go vet ./...", "", False) \
        .say("Vet passes cleanly. Now format and the quota tests.") \
        .run(f"gofmt -w . && {GO_TEST}", GO_PASS, False).say("All quota tests pass now.") \
        .write(repo)
    memx.ok("ingest", name)
    assert stored(repo) == [("pitfall", (
        f"Error: `{GO_TEST}` — TestRemaining_AllDeleted failed: quota_test.go:48: Remaining() "
        "= -3, want 0. Fix: edited /home/[REDACTED:user]/svc/internal/quota/quota.go: "
        "`return max(0, granted-usedLines)`; ran `go vet ./...`; ran `gofmt -w .`. Why: "
        + FINDING))]


def test_a_long_edit_gives_up_room_for_the_finding(memx: Memx, repo: Path) -> None:
    """Edits that would fill the memory are cut after a whole edit so the finding fits."""
    session = _found_then_edited()
    for n in range(4):
        session.edit(QUOTA, f"old{n}", f"if deleted{n} > usedLines {{ deleted{n} = usedLines }} "
                     f"// clamp the deleted lines of batch {n} before subtracting them")
    name = session.run(GO_TEST, GO_PASS, False).write(repo)
    memx.ok("ingest", name)
    [(_, content)] = stored(repo)
    assert content.endswith("Why: " + FINDING)
    assert content.count("`") % 2 == 0 and "clamp the deleted lines of batch" in content


def test_a_finding_the_shown_edits_do_not_touch_is_no_why(memx: Memx, repo: Path) -> None:
    """Control: after several pieces of work one green run confirms the finding only
    through an edit of what it names; shown beside edits of other code (made for another
    item), it would pin the wrong change on the cause, so the finding is left out."""
    session = _found_then_edited()
    for n in range(4):
        session.edit(QUOTA, f"old{n}", f"if batch{n}Size > limit {{ batch{n}Size = limit }} "
                     f"// clamp the size of batch {n} before sending it to the server")
    name = session.run(GO_TEST, GO_PASS, False).write(repo)
    memx.ok("ingest", name)
    [(_, content)] = stored(repo)
    assert FINDING not in content and "clamp the size of batch" in content


@pytest.mark.parametrize("after", [
    # the same command still failing, then a second edit with no word: the first finding
    # was disproved
    lambda s: s.run(GO_TEST, GO_FAIL, True)
               .edit(QUOTA, "usedLines -= deleted", "")
               .run(GO_TEST, GO_PASS, False),
    # another command green: no confirmation of the finding (and no end of the problem)
    lambda s: s.run("go vet ./...", "", False).say("Vet is clean."),
], ids=["still-failing", "another-command"])
def test_a_finding_no_green_run_of_its_command_bears_out_is_no_why(
        memx: Memx, repo: Path, after: Callable[[Replies], Replies]) -> None:
    name = after(_found_then_edited()).write(repo)
    memx.ok("ingest", name)
    assert all(FINDING not in why for why in _why(repo))


def test_a_finding_the_user_turned_down_is_no_why(memx: Memx, repo: Path) -> None:
    """Control: the user rejects the edit the finding led to; the edit made after their
    word passes, and the finding is not its Why."""
    session = Replies().user("Add a test for a quota whose lines were all deleted.")
    session.run(GO_TEST, GO_FAIL, True)
    session.say(FINDING)
    session.rejected_edit(QUOTA, "return max(0, granted-usedLines)",
                          "no, the counter is right; the test data is wrong")
    session.edit("/home/dev/svc/internal/quota/quota_test.go", "deleted: 5", "deleted: 2")
    name = session.run(GO_TEST, GO_PASS, False).write(repo)
    memx.ok("ingest", name)
    assert all(FINDING not in why for why in _why(repo))



def test_only_the_sentences_about_the_failing_code_are_the_finding(memx: Memx, repo: Path) -> None:
    """A review's list told in the same message: the items about other code (a doc file, a
    flag, a name found only inside the failing test's name) are other work; the one naming
    what failed is the finding."""
    name = _found_then_edited("1. `docs/limits.md` still shows the `--max-lines` flag. "
                              "2. `AllDeleted` fixtures are missing from `testdata/`. "
                              "3. " + FINDING).run(GO_TEST, GO_PASS, False).write(repo)
    memx.ok("ingest", name)
    assert _why(repo) == [FINDING]
