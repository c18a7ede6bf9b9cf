"""Long agent sessions through `memx ingest` in a real repository (the blind4 mechanisms):
the failing command run again in another form, a fix the user rejects even though it
passed, a confirmation that comes late and names what worked, a log whose command is rerun
with a setting, an assistant saying an attempt did not help. Each test stores what the
session teaches and checks the memory's exact text."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from .conftest import Memx


class Session:
    """A Claude Code session file, built turn by turn."""

    def __init__(self) -> None:
        self.records: list[dict[str, object]] = []
        self.calls = 0

    def _add(self, kind: str, content: object) -> Session:
        self.records.append({"type": kind, "sessionId": "sess-7", "cwd": "/repo",
                             "message": {"role": kind, "content": content}})
        return self

    def user(self, text: str) -> Session:
        return self._add("user", text)

    def say(self, text: str) -> Session:
        return self._add("assistant", [{"type": "text", "text": text}])

    def run(self, command: str, output: str, failed: bool) -> Session:
        self.calls += 1
        tid = f"toolu_{self.calls}"
        self._add("assistant", [{"type": "tool_use", "id": tid, "name": "Bash",
                                 "input": {"command": command}}])
        return self._add("user", [{"type": "tool_result", "tool_use_id": tid,
                                   "content": output, "is_error": failed}])

    def edit(self, path: str, old: str, new: str) -> Session:
        self.calls += 1
        tid = f"toolu_{self.calls}"
        self._add("assistant", [{"type": "tool_use", "id": tid, "name": "Edit", "input": {
            "file_path": path, "old_string": old, "new_string": new}}])
        return self._add("user", [{"type": "tool_result", "tool_use_id": tid,
                                   "content": f"The file {path} has been updated."}])

    def write(self, repo: Path) -> str:
        (repo / "session.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.records))
        return "session.jsonl"


def stored(repo: Path) -> list[tuple[str, str]]:
    mems = [yaml.safe_load(p.read_text()) for p in (repo / ".memx" / "memories").glob("*.yaml")]
    return sorted((m["source"].get("rule", ""), m["content"]) for m in mems)


def contents(repo: Path) -> list[str]:
    return sorted(content for _, content in stored(repo))


BIND = "Error response from daemon: Bind for 0.0.0.0:5432 failed: port is already allocated"


def test_a_fix_chained_before_the_failing_command_is_the_lesson(memx: Memx, repo: Path) -> None:
    name = (Session().user("docker compose up fails for the db service")
            .run("docker compose up -d db", BIND, True)
            .run("docker compose down && docker compose up -d db", BIND, True)
            .run("brew services stop postgresql@15 && docker compose up -d db",
                 "==> Successfully stopped `postgresql@15`\n ✔ Container shop-db-1  Started",
                 False)
            .write(repo))
    assert memx.ok("ingest", name).startswith("Stored 1 memory from 7 messages\n")
    assert contents(repo) == [
        f"Error: `docker compose up -d db` — {BIND}. "
        "Fix: ran `brew services stop postgresql@15`."]


def test_a_flag_added_to_the_failing_command_is_the_lesson(memx: Memx, repo: Path) -> None:
    readonly = "OSError: [Errno 30] Read-only file system: '/app/.pytest_cache'"
    name = (Session().user("tests fail in the ci container")
            .run("pytest", readonly, True)
            .run("chmod -R 777 /app && pytest", "chmod: changing permissions of '/app': "
                 "Operation not permitted", True)
            .run("pytest -p no:cacheprovider", "41 passed in 4.10s", False)
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        f"Error: {readonly}. Fix: ran `pytest -p no:cacheprovider`."]


def test_a_passing_fix_the_user_rejects_is_never_the_lesson(memx: Memx, repo: Path) -> None:
    clone = "git clone https://git.corp.example/infra/modules.git"
    name = (Session().user("cloning the infra repo fails")
            .run(clone, "fatal: unable to access 'https://git.corp.example/infra/modules.git/': "
                 "SSL certificate problem: unable to get local issuer certificate", True)
            .run(f"git config --global http.sslVerify false && {clone}",
                 "Receiving objects: 100% (2211/2211), done.", False)
            .user("no, not that. the corp root CA is at /etc/ssl/certs/corp-root.pem")
            .run(f"git config --global http.sslCAInfo /etc/ssl/certs/corp-root.pem && {clone}",
                 "Receiving objects: 100% (2211/2211), done.", False)
            .user("good, that works")
            .write(repo))
    memx.ok("ingest", name)
    [content] = contents(repo)
    assert content.endswith(
        "Fix: ran `git config --global http.sslCAInfo /etc/ssl/certs/corp-root.pem`. "
        "Why: the corp root CA is at /etc/ssl/certs/corp-root.pem.")
    assert "sslVerify" not in content


def test_a_late_confirmation_keeps_the_attempt_it_names(memx: Memx, repo: Path) -> None:
    name = (Session()
            .user("staging workers lose redis every few minutes: redis.exceptions."
                  "ConnectionError: Error 104 while writing to socket")
            .say("The load balancer drops idle connections; ping them from the client.")
            .edit("app/cache.py", "Redis.from_url(URL)", "Redis.from_url(URL, health_check_interval=30)")
            .user("deploying. meanwhile rename get_usr to get_user in accounts/")
            .run("sed -i 's/get_usr/get_user/g' accounts/*.py", "", False)
            .user("two hours without a reset on staging, the health check interval did it")
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        "Error: staging workers lose redis every few minutes: redis.exceptions.ConnectionError: "
        "Error 104 while writing to socket. "
        "Fix: edited app/cache.py: `Redis.from_url(URL, health_check_interval=30)`. "
        "Why: The load balancer drops idle connections; ping them from the client."]


def test_what_the_assistant_says_did_not_help_is_not_the_fix(memx: Memx, repo: Path) -> None:
    name = (Session().user("cargo build 在新镜像里失败")
            .run("cargo build", "error: linker `cc` not found", True)
            .run("rustup target add x86_64-unknown-linux-musl && cargo build --target "
                 "x86_64-unknown-linux-musl", "error: linker `cc` not found", True)
            .say("换成 musl 目标也不行，构建脚本本身需要 C 链接器。")
            .run("apt-get install -y build-essential && cargo build",
                 "Finished `dev` profile [unoptimized] target(s) in 48.3s", False)
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        "错误：`cargo build` — error: linker `cc` not found。"
        "解决：ran `apt-get install -y build-essential`。"]


def test_a_log_rerun_with_a_setting_is_a_retry_success(memx: Memx, repo: Path) -> None:
    log = ("$ make test\nFAILED tests/test_report.py::test_order - AssertionError: "
           "['b', 'a'] != ['a', 'b']\nmake: *** [Makefile:12: test] Error 1\n"
           "$ make test PYTHONHASHSEED=0\n26 passed\n")
    memx.ok("ingest", "--source", "ci", "-", input=log)
    assert stored(repo)[0][1] == (
        "Error: `make test` — FAILED tests/test_report.py::test_order - AssertionError: "
        "['b', 'a'] != ['a', 'b']. Fix: ran `make test PYTHONHASHSEED=0`.")
    data = json.loads(memx.ok("ingest", "--dry-run", "--json", "-", input=log))
    assert [c["rule"] for c in data["candidates"]] == ["RetrySuccess"]


def test_notes_in_spanish_portuguese_and_german(memx: Memx, repo: Path) -> None:
    notes = {
        "es.txt": "La subida fallaba con `ECONNRESET`. Subí el timeout a 120 s: nada, sigue "
                  "cortándose. Lo que funcionó: `aws s3 cp --expected-size 64000000000`.",
        "pt.txt": "O build quebrava com `mergeDebugResources`. Rodei `./gradlew clean` e não "
                  "resolveu. O que resolveu foi apagar `~/.gradle/caches/transforms-3`.",
        "de.txt": "Entscheidung: Für die Job-Queue nehmen wir NATS statt RabbitMQ, weil "
                  "JetStream schon läuft.",
    }
    for file, text in notes.items():
        (repo / file).write_text(text + "\n")
        memx.ok("ingest", file)
    assert contents(repo) == [
        "Entscheidung: Für die Job-Queue nehmen wir NATS statt RabbitMQ, weil JetStream "
        "schon läuft.",
        "Erro: O build quebrava com `mergeDebugResources`. Solução: O que resolveu foi apagar "
        "`~/.gradle/caches/transforms-3`.",
        "Error: La subida fallaba con `ECONNRESET`. Solución: Lo que funcionó: "
        "`aws s3 cp --expected-size 64000000000`."]


def test_npm_error_lines_keep_their_message(memx: Memx, repo: Path) -> None:
    name = (Session().user("npm install broke after the react-router bump")
            .run("npm install", "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve "
                 "dependency tree", True)
            .run("npm install --legacy-peer-deps", "added 1187 packages in 19s", False)
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        "Error: `npm install` — code ERESOLVE. Fix: ran `npm install --legacy-peer-deps`."]


def test_where_a_kind_of_file_goes_is_a_convention(memx: Memx, repo: Path) -> None:
    name = (Session().user("add a shipped_at column to orders. our migrations live in "
                           "db/migrate, one file per change")
            .edit("db/migrate/202611300912_orders_shipped_at.sql", "",
                  "ALTER TABLE orders ADD COLUMN shipped_at timestamptz;")
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == ["our migrations live in db/migrate, one file per change."]
    [mem] = [yaml.safe_load(p.read_text()) for p in (repo / ".memx" / "memories").glob("*")]
    assert (mem["type"], mem["tags"][:2]) == ("convention", ["convention", "policy-suggestion"])



BUILD = ("# example.com/svc/internal/cache\n"
         "internal/cache/store.go:12:9: undefined: lru.NewARC\n"
         "FAIL\texample.com/svc/internal/cache [build failed]\nFAIL")


def test_a_run_piped_into_tail_is_judged_by_its_output(memx: Memx, repo: Path) -> None:
    """`go test | tail` exits with tail's status: the tool result says it passed, the
    output says it failed; the same run printing `ok  pkg` after the edit is the green
    rerun."""
    name = (Session().user("Please check that the cache package still builds with the new version.")
            .run("go test ./internal/cache/... 2>&1 | tail -40", BUILD, False)
            .edit("internal/cache/store.go", "lru.NewARC(size)", "lru.New(size)")
            .run("go test ./internal/cache/... 2>&1 | tail -5",
                 "ok  \texample.com/svc/internal/cache\t0.012s", False)
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        "Error: `go test ./internal/cache/... 2>&1` — internal/cache/store.go:12:9: "
        "undefined: lru.NewARC. Fix: edited internal/cache/store.go: `lru.New(size)`."]


def test_an_arrow_to_a_plan_is_no_fix(memx: Memx, repo: Path) -> None:
    """"tests are failing -> let's sort it out first": an arrow after a failure names what
    comes next, and a plan with nothing concrete in it fixed nothing."""
    name = (Session().user("ok - the build and the tests are failing -> let's sort that out "
                           "first, then get to the review comments.")
            .say("Sure.").write(repo))
    assert memx.ok("ingest", name).startswith("Nothing to remember in ")


def test_another_error_pasted_by_the_user_is_the_problem_now(memx: Memx, repo: Path) -> None:
    """The fix that finally works is filed under the error it fixed, not under the first
    one the session met."""
    name = (Session()
            .user("ERROR: Could not find a version that satisfies the requirement torch==2.9.9")
            .say("That version does not exist; pin `torch==2.5.1` in requirements.txt.")
            .user("ModuleNotFoundError: No module named 'numpy'")
            .say("numpy is an undeclared dependency: add `numpy>=1.26` to requirements.txt.")
            .user("that worked, thanks")
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        "Error: ModuleNotFoundError: No module named 'numpy'. Fix: numpy is an undeclared "
        "dependency: add `numpy>=1.26` to requirements.txt."]


def test_a_task_about_handling_errors_is_no_problem(memx: Memx, repo: Path) -> None:
    """"how main.go is handling errors" names a subject, not a failure: the green lint run
    after the edits closes no episode."""
    name = (Session().user("Rework how cmd/app/main.go is handling errors, the way stripe-cli "
                           "does it.")
            .edit("cmd/app/main.go", "if err != nil {", "switch {\ncase errors.As(err, &silent):")
            .run("golangci-lint run ./...", "0 issues.", False)
            .write(repo))
    assert memx.ok("ingest", name).startswith("Nothing to remember in ")


def test_making_the_missing_directory_is_no_lesson(memx: Memx, repo: Path) -> None:
    """"No such file or directory" for a file in a new folder, then `mkdir -p` before the
    same write: nothing a newcomer needs to read."""
    name = (Session().user("Write the sample config to build/conf and print it.")
            .run("echo 'port: 8080' > build/conf/app.yaml && cat build/conf/app.yaml",
                 "bash: build/conf/app.yaml: No such file or directory", True)
            .run("mkdir -p build/conf && echo 'port: 8080' > build/conf/app.yaml && "
                 "cat build/conf/app.yaml", "port: 8080", False)
            .write(repo))
    assert memx.ok("ingest", name).startswith("Nothing to remember in ")


def test_a_pipeline_stage_that_failed_with_status_0_is_a_failing_run(memx: Memx, repo: Path) -> None:
    """`… | jq … | …` exits with its last stage's status: jq's own diagnostic line
    (`jq: error …`) in the output says the run failed; the episode compares commands with
    their pipes, and the pipeline that replaced it keeps them in the lesson (the plain
    rerun of the last stage is the check, as for any chained command). A stage that only
    refuses its options (`grep: invalid option -- P`) is a mistyped call: see
    test_a_call_its_program_refused_and_then_ran_is_no_lesson."""
    name = (Session().user("List the labels on the open pull requests.")
            .run("gh api repos/acme/shop/pulls | jq -r .[].labels.name | sort -u",
                 'jq: error (at <stdin>:0): Cannot index array with "name"', False)
            .run("gh api repos/acme/shop/pulls | jq -r .[].labels[].name | sort -u",
                 "bug\nci", False)
            .say("The open pull requests carry the labels bug and ci.")
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        "Error: `gh api repos/acme/shop/pulls | jq -r .[].labels.name | sort -u` — jq: error "
        "(at <stdin>:0): Cannot index array with \"name\". Fix: ran `gh api repos/acme/shop/pulls "
        "| jq -r .[].labels[].name`."]


def test_a_test_runners_failure_is_the_error_not_a_log_line_before_it(memx: Memx,
                                                                      repo: Path) -> None:
    """The run's own verdict (go test's --- FAIL and its message), read as the CI log reader
    reads a step, names the error; a logged "context deadline exceeded" is no cause."""
    output = ("2024/05/02 08:00:01 WARN retry: context deadline exceeded\n"
              "--- FAIL: TestResetRefusesOutsideARepo (0.00s)\n"
              "    reset_test.go:45: want \"not in a repository\", got \"not a git repository\"\n"
              "FAIL\nFAIL\texample.com/tool/cmd\t0.412s\n")
    name = (Session().user("the reset tests fail")
            .run("go test ./cmd/...", output, True)
            .edit("/home/dev/tool/cmd/reset_test.go", 'want := "not in a repository"',
                  'want := "not a git repository"')
            .run("go test ./cmd/...", "ok  \texample.com/tool/cmd\t0.398s", False)
            .write(repo))
    memx.ok("ingest", name)
    [memory] = contents(repo)
    assert memory.startswith(
        "Error: `go test ./cmd/...` — TestResetRefusesOutsideARepo failed: reset_test.go:45: "
        "want \"not in a repository\", got \"not a git repository\".")
    assert "deadline" not in memory


def test_a_task_that_names_errors_is_a_report_not_a_fix(memx: Memx, repo: Path) -> None:
    """A spec for how the code treats errors names errors, an error type and code that
    handles them; it says nothing fails. The green lint run after the edit ends a piece of
    work, kept as the agent's report, never as "Error: <the task>. Fix: …". Once the user
    says the lint run fails, the run green after the next edit ends an episode."""
    report = ("Done. `main.go` now switches on `errors.As(err, &silent)`: a `SilentError` "
              "prints nothing and every other error exits with code 1.")
    name = (Session().user("What I want is what stripe-cli does:\n"
                           "1. if the error is of type cli.SilentError, do not print anything\n"
                           "2. replace `errors.Is(err, *cli.SilentError)` with `errors.As()`")
            .edit("cmd/app/main.go", "if errors.Is(err, *cli.SilentError) {",
                  "switch {\ncase errors.As(err, &silent):")
            .run("golangci-lint run ./...", "0 issues.", False)
            .say(report)
            .user("Now make unknown commands show the usage first.")
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [report + " (checked: `golangci-lint run ./...` passed)."]
    said = (Session().user("if the error is of type cli.SilentError, do not print anything")
            .edit("cmd/app/main.go", "fmt.Println(err)", "if !errors.As(err, &silent) {")
            .user("golangci-lint still fails on cmd/app/main.go")
            .edit("cmd/app/main.go", "var silent cli.SilentError", "var silent *cli.SilentError")
            .run("golangci-lint run ./...", "0 issues.", False)
            .write(repo))
    memx.ok("ingest", said)
    assert contents(repo) == [
        report + " (checked: `golangci-lint run ./...` passed).",
        "Error: if the error is of type cli.SilentError, do not print anything. Fix: edited "
        "cmd/app/main.go: `var silent *cli.SilentError`."]


def test_a_fix_after_a_long_failed_series_is_the_lesson(memx: Memx, repo: Path) -> None:
    """Twelve edits that did not help (the most an episode holds), then one that did: the
    oldest attempts make room for it, and it stays after the failure mark."""
    session = Session().user("TypeError: Cannot read properties of undefined (reading 'id')")
    for n in range(12):
        session.edit("/repo/src/user.js", f"const limit = {n};", f"const limit = {n + 1};")
    session.user("still the same error")
    session.edit("/repo/src/user.js", "return user.id;", "return user?.id;")
    name = session.user("that worked, thanks").write(repo)
    memx.ok("ingest", name)
    assert contents(repo) == [
        "Error: TypeError: Cannot read properties of undefined (reading 'id'). Fix: edited "
        "src/user.js: `return user?.id;`."]


def test_a_call_its_program_refused_and_then_ran_is_no_lesson(memx: Memx, repo: Path) -> None:
    """The agent's own mistyped call (an option the program does not take) run again
    without it teaches nothing about the project; the same refusal mended by something
    else than the same program (a plugin installed) is kept."""
    name = (Session().user("Why is the token usage missing from the checkpoint metadata?")
            .run("git show 8312232 --no-stat", "fatal: unrecognized argument: --no-stat", True)
            .run("git show 8312232", "commit 8312232\n    add tracking of token usage", False)
            .say("Now I understand what PR #60 added. The issue is these values need to be "
                 "populated in `SaveContext`.")
            .run("git log --oneline | grep -P 'token\\d+'", "grep: invalid option -- P\n"
                 "usage: grep [-abcdDEFGHhIiJLlMmnOopqRSsUVvwXxZz] [pattern] [file ...]", True)
            .run("git log --oneline | grep -E 'token[0-9]+'", "b760a7e token2 usage", False)
            .write(repo))
    assert memx.ok("ingest", name).startswith("Nothing to remember in ")


def test_a_refused_option_mended_by_another_command_is_kept(memx: Memx, repo: Path) -> None:
    name = (Session().user("Run the tests with coverage.")
            .run("pytest --cov=app tests/",
                 "pytest: error: unrecognized arguments: --cov=app", True)
            .run("pip install pytest-cov", "Successfully installed pytest-cov-5.0.0", False)
            .run("pytest --cov=app tests/", "12 passed in 0.31s", False)
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [
        "Error: `pytest --cov=app tests/` — pytest: error: unrecognized arguments: --cov=app. "
        "Fix: ran `pip install pytest-cov`."]


LINT_FAIL = ("app/store.go:41:2: not enough arguments in call to s.InitSession\n"
             "\thave (string, string)\n\twant (string, string, string)")
LINT_FIXED = ("Error: `make lint` — app/store.go:41:2: not enough arguments in call to "
              "s.InitSession. Fix: edited app/store_test.go: `s.InitSession(id, \"cli\", \"\")`.")


def _lint_fixed(closing: str, reply: str) -> Session:
    return (Session().user("Run the linters on the merged branch.")
            .run("make lint", LINT_FAIL, True)
            .edit("/repo/app/store_test.go", 's.InitSession(id, "cli")',
                  's.InitSession(id, "cli", "")')
            .say(closing)
            .user(reply))


def test_a_yes_to_the_assistants_question_is_no_verdict_on_the_fix(memx: Memx,
                                                                   repo: Path) -> None:
    """"Want me to run the whole suite first?" → "ok next: commit and push": the reply takes
    up the offer, it does not say the edit fixed the lint failure; and a user's request
    answered by a question ("Were you about to start a merge?") then "yeah, merge from
    main" is a choice, no problem solved."""
    name = (_lint_fixed("The test now passes the new third argument. Want me to run the "
                        "whole suite first?", "ok next: commit and push")
            .user("we need to fix some merge conflicts")
            .say("No merge conflicts right now: the merge commit `f9d5e461` already completed. "
                 "Were you about to start a merge? Let me know what you'd like to do, e.g. "
                 "merge `main` into your branch or rebase.")
            .user("yeah merge from main")
            .write(repo))
    assert memx.ok("ingest", name).startswith("Nothing to remember in ")


def test_moving_on_after_a_fix_stated_without_a_question_confirms_it(memx: Memx,
                                                                     repo: Path) -> None:
    """Control: the same fix told as done, and the user moves on to the next step."""
    name = _lint_fixed("The test now passes the new third argument.",
                       "ok next: commit and push").write(repo)
    memx.ok("ingest", name)
    assert contents(repo) == [LINT_FIXED]


CONFLICT = ("Auto-merging app/session.go\nCONFLICT (content): Merge conflict in app/session.go\n"
            "Automatic merge failed; fix conflicts and then commit the result.")


def _merged(then_check: str, output: str) -> Session:
    return (Session().user("merge origin/main into this branch")
            .run("git merge origin/main", CONFLICT, True)
            .edit("/repo/app/session.go", "<<<<<<< HEAD\n\tkind := resolveKind(ctx)",
                  "\tkind := resolveKind(ctx)")
            .run(then_check, output, True))


def test_another_check_failing_after_the_edits_is_the_problem_now(memx: Memx,
                                                                  repo: Path) -> None:
    """The merge's conflict cannot be run again; the lint failing after the edits with its
    own error is the problem the session then solves."""
    name = (_merged("make lint", LINT_FAIL)
            .edit("/repo/app/store_test.go", 's.InitSession(id, "cli")',
                  's.InitSession(id, "cli", "")')
            .run("make lint", "0 issues.", False)
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == [LINT_FIXED]


def test_a_look_up_failing_after_the_edits_leaves_the_problem_open(memx: Memx,
                                                                  repo: Path) -> None:
    """Control: a search that finds nothing (grep's exit 1) is no new problem."""
    name = (_merged("grep -rn '<<<<<<<' app/", "Exit code 1")
            .edit("/repo/app/store_test.go", 's.InitSession(id, "cli")',
                  's.InitSession(id, "cli", "")')
            .run("make lint", "0 issues.", False)
            .write(repo))
    memx.ok("ingest", name)
    assert contents(repo) == []


EXPORT_FAIL = ("--- FAIL: TestExport (0.00s)\n    export_test.go:12: undefined: parseSince\n"
               "FAIL\tacme/app\t0.01s")
EXPORT_REPORT = ("Done. `export --since` now skips rows older than the given date, because "
                 "`parseSince` reads RFC 3339 dates.")


def _export_fixed(session: Session) -> Session:
    return (session.run("go test ./...", EXPORT_FAIL, True)
            .edit("/repo/app/export.go", "// helpers", "func parseSince(s string) (time.Time, "
                  "error) { return time.Parse(time.RFC3339, s) }")
            .run("go test ./...", "ok  \tacme/app\t0.02s", False)
            .say(EXPORT_REPORT))


def test_a_report_of_work_begun_before_the_failure_is_kept_beside_it(memx: Memx,
                                                                     repo: Path) -> None:
    """The report tells the feature from its first edit; the episode inside it tells only
    the failure met on the way: both are kept."""
    name = _export_fixed(Session().user("Add a --since flag to the export command.")
                         .edit("/repo/app/export.go", "func export(rows []Row) {",
                               "func export(rows []Row, since string) {")).write(repo)
    memx.ok("ingest", name)
    assert [c.split(" ", 1)[0] for c in contents(repo)] == ["Done.", "Error:"]


def test_a_report_of_the_fix_alone_is_the_episode_said_again(memx: Memx, repo: Path) -> None:
    """Control: the work begins with the failure; its report says the episode again."""
    name = _export_fixed(Session().user("go test fails:\n" + EXPORT_FAIL)).write(repo)
    memx.ok("ingest", name)
    assert [c.split(" ", 1)[0] for c in contents(repo)] == ["Error:"]


PASTED_FAIL = ("--- FAIL: TestHookInstall (0.04s)\n"
               "    --- FAIL: TestHookInstall/local_mode (0.01s)\n"
               "        hooks_test.go:650: local hooks should use 'go run', but settings.json "
               "doesn't contain it\nFAIL")


def _pasted_run(first: str) -> Session:
    return (Session().user("install the hooks through the wrapper script")
            .edit("/repo/hooks.go", 'cmd := "go run ./cmd/app"', 'cmd := "bash wrapper.sh"')
            .user(first)
            .say("The test still looks for `go run` in the settings; the hooks now call "
                 "`wrapper.sh`.")
            .edit("/repo/hooks_test.go", 'strings.Contains(s, "go run")',
                  'strings.Contains(s, "wrapper.sh")')
            .run("go test ./...", "ok  \texample.com/app\t0.31s", False))


def test_a_runners_output_the_user_pastes_names_the_failing_test(memx: Memx,
                                                                 repo: Path) -> None:
    """go test's output pasted into a message ends on a bare FAIL; the error is read as in a
    run's output: the failing test and its message. Control: the user's own words about a
    failure stay the error as typed."""
    memx.ok("ingest", _pasted_run(PASTED_FAIL).write(repo))
    [memory] = contents(repo)
    assert memory.startswith("Error: TestHookInstall failed: hooks_test.go:650: local hooks "
                             "should use 'go run', but settings.json doesn't contain it. Fix:")


def test_words_about_a_failure_stay_the_error_as_typed(memx: Memx, repo: Path) -> None:
    memx.ok("ingest", _pasted_run("FAIL: the hook install test fails now").write(repo))
    [memory] = contents(repo)
    assert memory.startswith("Error: FAIL: the hook install test fails now. Fix:")


UNCHECKED = "cmd/app/debug.go:136:14: Error return value is not checked (errcheck)"
COMPLEX = ("cmd/app/debug.go:57:1: Function name: runDebug, Cyclomatic Complexity: 36, "
           "Maintainability Index: 19 (maintidx)")


def _lint_twice(second: str) -> Session:
    return (Session().user("add a debug command")
            .run("golangci-lint run ./...", f"{UNCHECKED}\n1 issues:\n* errcheck: 1", True)
            .edit("/repo/cmd/app/debug.go", "state, _ := loadState()",
                  "state, err := loadState()\nif err != nil {\n\treturn err\n}")
            .run("golangci-lint run ./...", second, True)
            .say("The function is too complex; extracting helper functions.")
            .edit("/repo/cmd/app/debug.go", "func runDebug(w io.Writer) error {",
                  "func runDebug(w io.Writer) error {\n\treturn printState(w)")
            .run("golangci-lint run ./...", "0 issues.", False))


def test_a_check_that_fails_again_on_another_error_has_a_new_problem(memx: Memx,
                                                                     repo: Path) -> None:
    """The linter, run again after the edit for its first finding, reports another finding
    only: the edit dealt with the first (the check never passed, so no lesson) and the
    second is the problem the next edit fixes. Control: the same finding again keeps the
    first problem."""
    memx.ok("ingest", _lint_twice(f"{COMPLEX}\n1 issues:\n* maintidx: 1").write(repo))
    [memory] = contents(repo)
    assert memory.startswith(f"Error: `golangci-lint run ./...` — {COMPLEX}. Fix: edited "
                             "cmd/app/debug.go: `func runDebug(w io.Writer) error {")
    assert "errcheck" not in memory


def test_a_check_that_fails_again_on_the_same_error_keeps_its_problem(memx: Memx,
                                                                      repo: Path) -> None:
    again = UNCHECKED.replace("136:14", "141:9")
    memx.ok("ingest", _lint_twice(f"{again}\n1 issues:\n* errcheck: 1").write(repo))
    [memory] = contents(repo)
    assert memory.startswith(f"Error: `golangci-lint run ./...` — {UNCHECKED}. Fix: edited "
                             "cmd/app/debug.go: `func runDebug(w io.Writer) error {")


def _long_run(wait_before_call: bool) -> Session:
    """A failing test the user pastes, the agent's edit, and a long check whose command
    Claude Code streams as ``progress`` records before its result."""
    session = (Session().user(PASTED_FAIL)
               .edit("/repo/hooks_test.go", 'strings.Contains(s, "go run")',
                     'strings.Contains(s, "wrapper.sh")'))
    progress = [{"type": "progress", "sessionId": "sess-7", "data": {"type": "bash_progress",
                 "output": f"line {n}"}} for n in range(40)]
    if wait_before_call:
        session.records.extend(progress)
    session.calls += 1
    session._add("assistant", [{"type": "tool_use", "id": "toolu_long", "name": "Bash",
                                "input": {"command": "go test ./..."}}])
    if not wait_before_call:
        session.records.extend(progress)
    return session._add("user", [{"type": "tool_result", "tool_use_id": "toolu_long",
                                  "content": "ok  \texample.com/app\t41.2s",
                                  "is_error": False}])


def test_a_long_runs_progress_records_do_not_make_its_episode_quiet(memx: Memx,
                                                                    repo: Path) -> None:
    """The result of the call just made ends the episode however many records the harness
    wrote while the command ran. Control: as many records before the call, with nothing
    pending, leave the episode quiet and dropped."""
    memx.ok("ingest", _long_run(wait_before_call=False).write(repo))
    [memory] = contents(repo)
    assert memory.startswith("Error: TestHookInstall failed: hooks_test.go:650: local hooks "
                             "should use 'go run', but settings.json doesn't contain it. Fix: "
                             "edited hooks_test.go")


def test_records_before_the_call_leave_the_episode_quiet(memx: Memx, repo: Path) -> None:
    memx.ok("ingest", _long_run(wait_before_call=True).write(repo))
    assert contents(repo) == []


def test_an_error_of_another_shape_after_the_edit_is_what_the_try_did(memx: Memx,
                                                                      repo: Path) -> None:
    """The check fails again with an error that is no finding at a place in the code (the
    toolchain refusing the edited go.mod): the edit was a try that failed, and the problem
    stays the first finding."""
    memx.ok("ingest", _lint_twice("go: go.mod requires go >= 1.21 (running go 1.20.5; "
                                  "GOTOOLCHAIN=local)").write(repo))
    [memory] = contents(repo)
    assert memory.startswith(f"Error: `golangci-lint run ./...` — {UNCHECKED}. Fix: edited "
                             "cmd/app/debug.go: `func runDebug(w io.Writer) error {")
