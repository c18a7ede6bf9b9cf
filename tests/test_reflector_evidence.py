"""Outcomes read from evidence rather than from a word for them (reflector/evidence.py),
end to end through `memx ingest` in a real repository: the stored text is exact, and what
must teach nothing stores nothing."""

from __future__ import annotations

import json
from pathlib import Path

from memx_cli.reflector import evidence

from .conftest import Memx
from .test_reflector_ingest import memories


def ingest_chat(memx: Memx, *messages: str) -> str:
    roles = {"u": "user", "a": "assistant"}
    doc = [{"role": roles[m[0]], "content": m[2:].strip()} for m in messages]
    return memx.ok("ingest", "-", input=json.dumps(doc, ensure_ascii=False))


def contents(repo: Path) -> list[object]:
    return [m["content"] for m in memories(repo)]


def test_a_reply_that_names_what_was_tried_confirms_it(memx: Memx, repo: Path) -> None:
    out = ingest_chat(
        memx,
        "u: the worker can't reach the broker: kombu.exceptions.OperationalError: "
        "[Errno 111] Connection refused",
        "a: Inside compose the broker is not on localhost. Set "
        "`CELERY_BROKER_URL=amqp://guest@rabbitmq:5672//` in worker.env.",
        "u: mit rabbitmq als Host verbindet er sich sofort")
    assert out.startswith("Stored 1 memory from 3 messages\n")
    assert contents(repo) == [
        "Error: the worker can't reach the broker: kombu.exceptions.OperationalError: "
        "[Errno 111] Connection refused. Fix: Set "
        "`CELERY_BROKER_URL=amqp://guest@rabbitmq:5672//` in worker.env."]


def test_naming_the_fix_with_a_but_or_a_negation_confirms_nothing(
        memx: Memx, repo: Path) -> None:
    out = ingest_chat(
        memx,
        "u: the worker can't reach the broker: kombu.exceptions.OperationalError: "
        "[Errno 111] Connection refused",
        "a: Set `CELERY_BROKER_URL=amqp://guest@rabbitmq:5672//` in worker.env.",
        "u: I set CELERY_BROKER_URL to rabbitmq but the worker logs show nothing")
    assert out == "Nothing to remember in 3 messages\n"
    out = ingest_chat(memx, "u: 로그인 API가 간헐적으로 느려요",
                      "a: 커넥션 풀을 늘려 보세요: `pool_size=20`.",
                      "u: pool_size=20 으로 했는데 안 돼요")
    assert out == "Nothing to remember in 3 messages\n"
    assert memories(repo) == []


def test_a_reply_that_repeats_the_error_denies_and_a_thumbs_up_confirms(
        memx: Memx, repo: Path) -> None:
    ingest_chat(
        memx,
        "u: uploads fail with HTTP 413 from the proxy",
        "a: Restart the proxy container: `docker compose restart proxy`.",
        "u: 413 here too",
        "a: The ingress has its own limit: add the annotation "
        "`nginx.ingress.kubernetes.io/proxy-body-size: 50m`.",
        "u: 👍")
    [mem] = memories(repo)
    assert "retry-success" in mem["tags"]
    assert mem["content"] == (
        "Error: uploads fail with HTTP 413 from the proxy. Fix: The ingress has its own limit: "
        "add the annotation `nginx.ingress.kubernetes.io/proxy-body-size: 50m`.")


def test_a_repeated_error_alone_teaches_nothing(memx: Memx, repo: Path) -> None:
    out = ingest_chat(
        memx,
        "u: uploads fail with HTTP 413 from the proxy",
        "a: Restart the proxy container: `docker compose restart proxy`.",
        "u: 413 here too")
    assert out == "Nothing to remember in 3 messages\n"
    assert memories(repo) == []


def test_a_green_run_pasted_back_confirms_and_is_never_the_fix(memx: Memx, repo: Path) -> None:
    ingest_chat(
        memx,
        "u: pytest: ModuleNotFoundError: No module named 'billing'",
        "a: Add `pythonpath = [\"src\"]` under [tool.pytest.ini_options].",
        "u: ============ 12 passed in 0.84s ============")
    assert contents(repo) == [
        "Error: pytest: ModuleNotFoundError: No module named 'billing'. Fix: Add "
        "`pythonpath = [\"src\"]` under [tool.pytest.ini_options]."]


def test_a_brief_ack_then_a_new_request_confirms(memx: Memx, repo: Path) -> None:
    ingest_chat(
        memx,
        "u: TypeError: Object of type Decimal is not JSON serializable",
        "a: Pass `default=str` to json.dumps.",
        "u: ok, next: can you add a created_at column to invoices?")
    assert contents(repo) == [
        "Error: TypeError: Object of type Decimal is not JSON serializable. Fix: Pass "
        "`default=str` to json.dumps."]


def test_a_bare_question_after_ok_may_be_the_same_problem(memx: Memx, repo: Path) -> None:
    out = ingest_chat(memx, "u: TypeError: Object of type Decimal is not JSON serializable",
                      "a: Pass `default=str` to json.dumps.",
                      "u: ok, can you show me the logs of the worker?")
    assert out == "Nothing to remember in 3 messages\n"
    assert memories(repo) == []


def test_a_plan_to_try_later_or_thanks_for_an_answer_store_nothing(
        memx: Memx, repo: Path) -> None:
    out = ingest_chat(
        memx,
        "u: TypeError: Object of type Decimal is not JSON serializable",
        "a: Pass `default=str` to json.dumps.",
        "u: ok, I'll try default=str tomorrow")
    assert out == "Nothing to remember in 3 messages\n"
    out = ingest_chat(memx, "u: how do I list remote branches?", "a: `git branch -r`.",
                      "u: thanks 👍")
    assert out == "Nothing to remember in 3 messages\n"
    assert memories(repo) == []


def claude_session(*events: tuple[str, ...]) -> str:
    """Claude Code JSONL: ("user", text) | ("bash", command, output, exit status) |
    ("edit", path, old text, new text)."""
    records: list[dict[str, object]] = []
    for n, event in enumerate(events):
        if event[0] == "user":
            records.append({"type": "user", "sessionId": "s-7", "message": {
                "role": "user", "content": event[1]}})
            continue
        if event[0] == "edit":
            _, path, old, new = event
            call = {"type": "tool_use", "id": f"t{n}", "name": "Edit",
                    "input": {"file_path": path, "old_string": old, "new_string": new}}
            output, status = f"The file {path} has been updated.", "0"
        else:
            _, command, output, status = event
            call = {"type": "tool_use", "id": f"t{n}", "name": "Bash",
                    "input": {"command": command}}
        records.append({"type": "assistant", "sessionId": "s-7", "message": {
            "role": "assistant", "content": [call]}})
        records.append({"type": "user", "sessionId": "s-7", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{n}", "is_error": status != "0",
             "content": output}]}})
    return "\n".join(json.dumps(r) for r in records) + "\n"


def test_a_command_that_runs_the_failing_one_in_other_words_closes_it(
        memx: Memx, repo: Path) -> None:
    (repo / "s.jsonl").write_text(claude_session(
        ("user", "the nightly cleanup does not run on the new server"),
        ("bash", "sudo -u app bash -c 'cleanup.sh'", "bash: cleanup.sh: command not found", "127"),
        ("bash", "sudo -u app /opt/app/bin/cleanup.sh", "removed 412 expired sessions", "0")))
    memx.ok("ingest", "s.jsonl")
    assert contents(repo) == [
        "Error: `sudo -u app bash -c 'cleanup.sh'` — bash: cleanup.sh: command not found. "
        "Fix: ran `sudo -u app /opt/app/bin/cleanup.sh`."]


def test_a_try_chained_before_the_first_failing_check_failed(memx: Memx, repo: Path) -> None:
    (repo / "s.jsonl").write_text(claude_session(
        ("user", "the api deploy is stuck in CrashLoopBackOff"),
        ("bash", "kubectl rollout restart deploy/api && kubectl rollout status deploy/api",
         "error: timed out waiting for the condition", "1"),
        ("bash", "kubectl set env deploy/api PORT=8080 && kubectl rollout status deploy/api",
         "deployment \"api\" successfully rolled out", "0")))
    memx.ok("ingest", "s.jsonl")
    [mem] = memories(repo)
    assert "retry-success" in mem["tags"]
    assert mem["content"] == (
        "Error: `kubectl rollout status deploy/api` — timed out waiting for the condition. "
        "Fix: ran `kubectl set env deploy/api PORT=8080`.")


def test_moving_on_after_a_failed_run_is_no_confirmation(memx: Memx, repo: Path) -> None:
    (repo / "s.jsonl").write_text(claude_session(
        ("bash", "pytest -q", "ImportError: cannot import name 'Invoice' from 'billing'", "1"),
        ("bash", "pip install -e . && pytest -q",
         "ImportError: cannot import name 'Invoice' from 'billing'", "1"),
        ("user", "ok, next: add pagination to the users endpoint")))
    assert memx.ok("ingest", "s.jsonl") == "Nothing to remember in 5 messages\n"
    assert memories(repo) == []


def test_a_green_summary_after_an_edit_closes_a_reported_failure(memx: Memx, repo: Path) -> None:
    (repo / "s.jsonl").write_text(claude_session(
        ("user", "test_checkout_total fails since the tax change"),
        ("edit", "shop/checkout.py", "return subtotal + tax", "return round(subtotal + tax, 2)"),
        ("bash", "pytest tests/test_checkout.py -q", "......\n6 passed in 0.29s", "0")))
    memx.ok("ingest", "s.jsonl")
    assert contents(repo) == [
        "Error: test_checkout_total fails since the tax change. Fix: edited shop/checkout.py: "
        "`return round(subtotal + tax, 2)`."]


def test_a_long_edit_is_shown_by_the_lines_it_brings(memx: Memx, repo: Path) -> None:
    old = "    op.add_column('orders', sa.Column('status', sa.Enum('new', 'paid', name='st')))"
    new = ("    status = sa.Enum('new', 'paid', name='st')\n"
           "    status.create(op.get_bind(), checkfirst=True)\n"
           "    op.add_column('orders', sa.Column('status', status, nullable=False, "
           "server_default='new'))")
    (repo / "s.jsonl").write_text(claude_session(
        ("bash", "alembic upgrade head", 'psycopg.errors.UndefinedObject: type "st" does not exist',
         "1"),
        ("edit", "migrations/7a1c.py", old, new),
        ("bash", "alembic upgrade head", "Running upgrade 5e2d -> 7a1c", "0")))
    memx.ok("ingest", "s.jsonl")
    assert contents(repo) == [
        'Error: `alembic upgrade head` — psycopg.errors.UndefinedObject: type "st" does not '
        "exist. Fix: edited migrations/7a1c.py: `status = sa.Enum('new', 'paid', name='st') "
        "status.create(op.get_bind(), checkfirst=True)`."]


def test_the_error_message_coming_back_or_the_fix_hitting_it_too_is_no_success(
        memx: Memx, repo: Path) -> None:
    problem = "u: vite won't start: Error: listen EADDRINUSE: address already in use :::5173"
    fix = "a: Start it with `vite --port 5174 --strictPort`."
    for reply in ("u: hmm, it says address already in use :::5174 now",
                  "u: 5174 is taken too"):
        assert ingest_chat(memx, problem, fix, reply) == "Nothing to remember in 3 messages\n"
    out = ingest_chat(memx, "u: 服务启动报错 Error: listen EADDRINUSE :::3000",
                      "a: 换个端口：`PORT=3001 npm start`。", "u: 3001 也被占用了")
    assert out == "Nothing to remember in 3 messages\n"
    assert memories(repo) == []


def test_naming_an_answer_to_a_question_is_choosing_it_not_a_fix(
        memx: Memx, repo: Path) -> None:
    out = ingest_chat(memx, "u: what's a good name for the billing service?",
                      "a: `ledger` or `billing-core`.", "u: ledger it is 👍")
    assert out == "Nothing to remember in 3 messages\n"
    assert memories(repo) == []


def test_a_few_plain_words_after_a_try_and_a_colon_are_how_it_ended(
        memx: Memx, repo: Path) -> None:
    memx.ok("ingest", "-", "--format", "text", input=(
        "Das Build-Image war zu groß für die Registry. Den Cache im Dockerfile geleert: "
        "unverändert. Erst ein Multi-Stage-Build mit `FROM gcr.io/distroless/python3` hat es "
        "gelöst, jetzt 80 MB."))
    [mem] = memories(repo)
    assert "retry-success" in mem["tags"]
    assert mem["content"] == (
        "Fehler: Das Build-Image war zu groß für die Registry. Lösung: Erst ein "
        "Multi-Stage-Build mit `FROM gcr.io/distroless/python3` hat es gelöst, jetzt 80 MB.")


def test_a_log_block_running_the_failing_command_in_other_words_is_its_outcome(
        memx: Memx, repo: Path) -> None:
    memx.ok("ingest", "-", "--format", "text", input=(
        "$ sudo -u app bash -c 'cleanup.sh'\nbash: cleanup.sh: command not found\n[exit 127]\n"
        "$ sudo -u app /opt/app/bin/cleanup.sh\nremoved 412 expired sessions\n[exit 0]\n"))
    [mem] = memories(repo)
    assert "retry-success" in mem["tags"]
    assert mem["content"] == (
        "Error: `sudo -u app bash -c 'cleanup.sh'` — bash: cleanup.sh: command not found. "
        "Fix: ran `sudo -u app /opt/app/bin/cleanup.sh`.")


def test_a_passing_run_of_other_targets_is_no_fix(memx: Memx, repo: Path) -> None:
    """`pytest -k slow` passing after `pytest -k smoke` failed ran other tests: nothing
    was fixed (a CI log with several selections)."""
    (repo / "ci.log").write_text(
        "$ pytest -k smoke\nFAILED tests/test_api.py::test_health - ConnectionError\n"
        "1 failed, 3 passed\n$ pytest -k slow\n5 passed\n")
    assert memx.ok("ingest", "ci.log").startswith("Nothing to remember")
    (repo / "shard.log").write_text(
        "$ npm test\nError: ECONNREFUSED 127.0.0.1:5432 at TCPConnectWrap\nFAIL src/db.test.ts\n"
        "$ npm test -- --shard=2\nTests: 3 passed, 0 failed\n")
    assert memx.ok("ingest", "shard.log").startswith("Nothing to remember")
    assert contents(repo) == []


def test_a_setting_change_the_user_turns_down_is_not_kept(memx: Memx, repo: Path) -> None:
    out = ingest_chat(
        memx,
        "u: what should gunicorn run with on the new box?",
        "a: Set `workers = 8` in gunicorn.conf.py, up from 2.",
        "u: no, keep 2 workers, the box has 1 GB of memory")
    assert out.startswith("Nothing to remember")
    assert contents(repo) == []
    out = ingest_chat(
        memx,
        "u: what should gunicorn run with on the new box?",
        "a: Set `workers = 8` in gunicorn.conf.py, up from 2.",
        "u: thanks")
    assert out.startswith("Stored 1 memory from 3 messages\n")
    assert contents(repo) == ["Set `workers = 8` in gunicorn.conf.py, up from 2."]


def test_linters_and_type_checkers_green_summaries_are_passing_runs() -> None:
    assert evidence.passing_run("[lint] $ golangci-lint run ./...\n0 issues.")
    assert evidence.passing_run("Success: no issues found in 14 source files")
    assert not evidence.passing_run("3 issues:\n* errcheck: 3")


def test_a_go_compile_error_is_the_error_not_the_command_before_it(memx: Memx,
                                                                   repo: Path) -> None:
    # `file.go:LINE:COL: message` carries no "error" word; the Error slot held the user's
    # context line ("go build ./...") instead of the failure
    out = ingest_chat(
        memx,
        "u: go build ./... stops here:\ncmd/root.go:41:9: undefined: telemetry.Close",
        "a: telemetry.Close was renamed to Shutdown when the client moved to the batch "
        "sender. Call `telemetry.Shutdown(ctx)` in cmd/root.go instead.",
        "u: with telemetry.Shutdown it builds now")
    assert out.startswith("Stored 1 memory from 3 messages\n")
    assert contents(repo) == [
        "Error: cmd/root.go:41:9: undefined: telemetry.Close. Fix: telemetry.Close was "
        "renamed to Shutdown when the client moved to the batch sender. Call "
        "`telemetry.Shutdown(ctx)` in cmd/root.go instead."]


def test_go_compiler_lines_are_error_lines_and_grep_lines_are_not() -> None:
    from memx_cli.reflector.signals import ERROR_LINE
    assert ERROR_LINE.search("./settings.go:40:2: cannot use x (variable of type int) as "
                             "string value in assignment")
    assert ERROR_LINE.search("cmd/entire/main.go:12:9: undefined: telemetry.Close")
    assert not ERROR_LINE.search("main.go:12:\tfmt.Println(x)")  # grep -n: no column


def test_a_bare_error_label_does_not_make_two_errors_the_same() -> None:
    from memx_cli.reflector.signals import analyse
    from memx_cli.reflector.turn import Turn
    problem = "ERROR: permission denied for table users"
    reply = analyse(Turn(index=3, role="user", text="the error page shows the new layout"))
    assert not evidence.echoes(problem, reply)
    assert not evidence.same_error(problem, "ERROR: disk full")
    assert evidence.echoes("psycopg2.OperationalError: timeout", analyse(
        Turn(index=3, role="user", text="still OperationalError after the restart")))


def test_a_long_error_line_is_cut_at_a_word_not_inside_one(memx: Memx, repo: Path) -> None:
    """The Error slot keeps 240 characters of an error line: cut inside a word it read
    "… provides package entire.io/cli/cmd/entire/cli/check."."""
    long = ("cmd/app/store/migrate.go:7:2: could not import example.com/app/internal/store "
            "(cmd/app/store/migrate.go:7:2: no required module provides package "
            "example.com/app/internal/store, which the build needs for the store migration "
            "command, its tests and the nightly export job that reads the old tables)")
    ingest_chat(memx, f"u: since the rename the build fails with this error:\n{long}",
                "a: The module path is example.org/app since the rename. Import "
                "`example.org/app/internal/store` in migrate.go instead.",
                "u: with example.org/app/internal/store it builds now, thanks")
    [content] = contents(repo)
    assert isinstance(content, str)
    assert content.split(" Fix: ")[0] == (
        "Error: cmd/app/store/migrate.go:7:2: could not import example.com/app/internal/store "
        "(no required module provides package example.com/app/internal/store, which the "
        "build needs for the store migration command, its tests and the nightly export job…"), \
        content


def test_a_task_runners_prefixed_lines_are_the_tools_own_summary() -> None:
    """mise and go-task put the task's name before each line of its output."""
    assert evidence.passing_run("[lint:go] $ golangci-lint run ./...\n[lint:go] 0 issues.\n"
                                "[lint:go] Finished in 4.26s")
    assert evidence.passing_run("[test] $ go test ./...\n[test] ok  \texample.com/app\t0.31s")
    assert not evidence.passing_run("[lint:go] 2 issues:\n[lint:go] * unparam: 2")


def test_a_question_answered_is_no_error_fixed(memx: Memx, repo: Path) -> None:
    # a user's question ("why …?") asks for an answer: the answer the user thanks for is
    # no fix of an error, whatever words it has
    ingest_chat(
        memx,
        "u: why does the detached spawn only work on unix and not on windows?",
        "a: Because it sets `SysProcAttr{Setpgid: true}`, and that field only exists on "
        "unix; the windows build uses `CREATE_NEW_PROCESS_GROUP` instead.",
        "u: ok thanks, that works for me")
    assert not any(str(c).startswith("Error:") for c in contents(repo))
    # a problem stated as a statement is still one the next replies can fix
    ingest_chat(
        memx,
        "u: uploads over 1 MB are cut off by the proxy",
        "a: The ingress has its own limit: add the annotation "
        "`nginx.ingress.kubernetes.io/proxy-body-size: 50m`.",
        "u: that did it, thanks")
    assert any(str(c).startswith("Error: uploads over 1 MB are cut off by the proxy")
               for c in contents(repo))
