"""Episodes (issue 13): a problem, the attempts, a confirmed outcome; the lesson is what
worked. Each failure the issue lists has its test here, and the agent transcript shapes
(Claude Code, Codex, OpenAI function calls) are read from fixtures in tests/data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memx_cli.reflector import reflect_text
from memx_cli.reflector.inputs import Reader
from memx_cli.reflector.pipeline import Item, Reflector, Settings

DATA = Path(__file__).parent / "data" / "transcripts"


def chat(*messages: str) -> list[Item]:
    roles = {"u": "user", "a": "assistant"}
    doc = [{"role": roles[m[0]], "content": m[2:].strip()} for m in messages]
    return reflect_text(json.dumps(doc), fmt="json")


def fixture(name: str) -> list[Item]:
    with (DATA / name).open("rb") as stream:
        return Reflector(Settings()).reflect(Reader(stream).turns())


def test_a_traceback_fixed_by_an_encoding_and_confirmed() -> None:
    items = chat(
        "u: the report script fails on Windows:\nTraceback (most recent call last):\n"
        "  File \"report.py\", line 88, in <module>\n    fh.write(summary)\n"
        "UnicodeEncodeError: 'charmap' codec can't encode character '\\u2192' in position 14",
        "a: Windows opens files in cp1252 by default. Open it with encoding='utf-8': "
        "`open(path, 'w', encoding='utf-8')`.",
        "u: yes, that sorted it. thanks!")
    assert [i.rule for i in items] == ["ErrorFix"]
    assert items[0].content.startswith("Error: UnicodeEncodeError: 'charmap' codec can't encode")
    assert "encoding='utf-8'" in items[0].content


def test_a_retry_sequence_keeps_what_worked_not_the_failed_attempt() -> None:
    items = chat(
        "u: pip install fails on my M1 building grpcio: error: command '/usr/bin/clang' failed "
        "with exit code 1",
        "a: Try exporting GRPC_PYTHON_BUILD_SYSTEM_OPENSSL=1 and installing again.",
        "u: still failing, same clang error",
        "a: Then pin grpcio==1.60.1 in requirements.txt; that version ships an arm64 wheel.",
        "u: that worked!")
    assert [i.rule for i in items] == ["RetrySuccess"]
    assert "grpcio==1.60.1" in items[0].content
    assert "GRPC_PYTHON_BUILD_SYSTEM_OPENSSL" not in items[0].content


def test_a_bare_confirmation_is_never_the_lesson() -> None:
    items = chat(
        "u: error[E0502]: cannot borrow `self.items` as mutable because it is also borrowed "
        "as immutable",
        "a: Collect the ids first: `let ids: Vec<_> = self.items.iter().map(|i| i.id).collect();`"
        " then loop over `ids`.",
        "u: That fixes the compile error.")
    assert [i.rule for i in items] == ["ErrorFix"]
    assert "collect()" in items[0].content
    assert "That fixes the compile error" not in items[0].content


def test_an_eight_message_session_pairs_nothing_wrongly() -> None:
    items = chat(
        "u: the test suite fails with `sqlalchemy.exc.OperationalError: no such table: users`",
        "a: Did you run the migrations for the test database?",
        "u: how do I do that here?",
        "a: Run `alembic upgrade head` before pytest; the test DB starts empty.",
        "u: ok that fixed it. btw, in this repo we use conventional commits, so name the "
        "commit accordingly",
        "a: Sure: `test: run migrations before the suite`.",
        "u: also first time using uv here, how do I add a dev dependency?",
        "a: `uv add --dev pytest-cov`.")
    assert [i.rule for i in items] == ["ErrorFix", "Convention"]
    fix, convention = items
    assert "alembic upgrade head" in fix.content and "conventional" not in fix.content
    assert "conventional commits" in convention.content and "alembic" not in convention.content


def test_an_unconfirmed_or_denied_suggestion_is_not_a_lesson() -> None:
    assert chat("u: jest says `ReferenceError: TextEncoder is not defined`",
                "a: You could add a polyfill in jest.setup.js: "
                "`global.TextEncoder = require('util').TextEncoder`.") == []
    assert chat("u: getting Error: connect ECONNREFUSED 127.0.0.1:6379",
                "a: Is redis running? Try `brew services start redis`.",
                "u: still the same error. I'll look at it tomorrow.") == []
    assert chat("u: the build fails with `TS2307: Cannot find module 'x'`",
                "a: Add `x` to paths in tsconfig.json; that should fix it.",
                "u: ok, thanks") == []


@pytest.mark.parametrize(("deny", "confirm"), [
    ("nope, still hangs", "yep, that did it"),
    ("还是不行", "搞定了，谢谢"),
    ("ダメでした、変わらずです", "直りました！"),
    ("여전히 안 돼요", "됐어요! 감사합니다"),
    ("toujours pas, même erreur", "ça marche, merci !"),
])
def test_denial_and_confirmation_in_five_languages(deny: str, confirm: str) -> None:
    items = chat("u: `docker build` fails: Error: failed to fetch `https://deb.example/dists`",
                 "a: Build with `--network=host`.",
                 f"u: {deny}",
                 "a: Set `{\"dns\": [\"8.8.8.8\"]}` in /etc/docker/daemon.json, then restart "
                 "docker.",
                 f"u: {confirm}")
    assert [i.rule for i in items] == ["RetrySuccess"]
    assert "daemon.json" in items[0].content and "--network=host" not in items[0].content


def test_a_note_that_tells_its_own_retries() -> None:
    [item] = reflect_text("k8s 的 pod 一直 CrashLoopBackOff，先加大了内存 limit 没用，又把镜像回滚"
                          "了也不行，最后发现是 configmap 里 DB_HOST 写错了，改成 postgres.prod.svc "
                          "就起来了。")
    assert item.rule == "RetrySuccess"
    assert item.content == ("错误：k8s 的 pod 一直 CrashLoopBackOff。解决：最后发现是 configmap 里 "
                            "DB_HOST 写错了，改成 postgres.prod.svc 就起来了。")


def test_claude_code_session_a_failed_edit_and_its_revert_are_not_the_lesson() -> None:
    [item] = fixture("claude_code_retry.jsonl")
    assert (item.rule, item.section, item.type) == ("RetrySuccess", "debugging", "trick")
    assert item.content == (
        "Error: `pytest -q tests/test_dates.py` — ValueError: time data '2026-03-01T10:00:00Z' "
        "does not match format '%Y-%m-%dT%H:%M:%S'. Fix: edited app/dates.py: "
        "`return datetime.fromisoformat(text)`. Why: Python 3.11's `datetime.fromisoformat` "
        "accepts the trailing Z, so the custom format is not needed.")
    assert "%z" not in item.content  # the failed edit, and the edit that undid it


def test_codex_rollout_a_failing_command_a_patch_and_the_same_command_passing() -> None:
    [item] = fixture("codex_rollout_fix.jsonl")
    assert item.rule == "ErrorFix"
    assert item.content.startswith("Error: `cargo build` — error[E0433]: failed to resolve")
    assert "Fix: edited Cargo.toml: `serde = { version = \"1\", features = [\"derive\"] }`" \
        in item.content
    assert "Why: The derive macros live behind serde's `derive` feature" in item.content


def test_openai_function_calls_write_file_then_pass() -> None:
    [item] = fixture("openai_function_calls.json")
    assert item.rule == "ErrorFix"
    assert item.content.startswith("Error: `npm test` — FAIL src/price.test.ts. Fix: edited "
                                   "src/price.ts: `export const format")


def test_a_command_that_passes_without_any_change_teaches_nothing() -> None:
    records = [
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make e2e"}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
             "content": "FAIL e2e/login.spec.ts (timeout)"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "make e2e"}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t2", "is_error": False,
             "content": "12 passed"}]}},
    ]
    text = "\n".join(json.dumps(r) for r in records)
    assert reflect_text(text, fmt="jsonl") == []  # a flaky pass is not a fix


def test_a_lesson_never_holds_lines_of_a_multi_line_secret() -> None:
    body = ["b92MVZkOuU9/jm24yZg0ck9CglF71qXTobGPnDmacnqvgtNc87DlFXHg0o/g01aq",
            "Rr2KOqqVzblJRAiQTADW5jwgPCfYEDRY/fqXds4INuHPzjL7OchGV/ewG6C7fR5x"]
    key = "\n".join(["-----BEGIN OPENSSH PRIVATE KEY-----", *body,
                     "-----END OPENSSH PRIVATE KEY-----"])
    [item] = chat("u: the deploy fails with: Error: unauthorized",
                  f"a: Export the deploy key first, as in `DEPLOY_KEY` =\n{key}",
                  "u: that worked, thanks")
    assert "[REDACTED:private_key]" in item.content
    assert not any(line[:20] in item.content for line in body)


@pytest.mark.parametrize("request_", [
    "let's make the \"memo export\" command hidden",
    "make the \"memo export\" command hidden",
    "please make \"memo export\" hidden",
    "I do want the \"memo export\" command to be hidden",
    "we'd like \"memo export\" hidden from the help",
])
def test_a_request_for_work_is_no_error_of_an_episode(request_: str) -> None:
    # the user's words ask for work and say nothing fails: the work done is no fix, and
    # the request is never a memory's Error (the next request overturns it besides)
    reply = "thinking again: let's completely remove the export command"
    assert chat(f"u: {request_}",
                "a: Pass `--hidden` to its registration: `register(export, hidden=True)`.",
                f"u: {reply}") == []
    # control: a failure the user reports, the same proposal and the same reply
    [item] = chat("u: the \"memo export\" command hangs on an empty store",
                  "a: Pass `--no-index` to the export: `memo export --no-index`.",
                  f"u: {reply}")
    assert item.rule == "ErrorFix"
    assert item.content.startswith("Error: the \"memo export\" command hangs on an empty store")


def test_a_request_that_carries_a_problem_is_solved_by_the_users_word() -> None:
    """A request wrapped around a problem ("please help, the build hangs", "let's find out
    why …") is confirmed by the user saying so."""
    for opening in ("please help, docker build hangs at apt-get update",
                    "let's find out why docker build hangs at apt-get update"):
        [item] = chat(f"u: {opening}",
                      "a: Build with `--network=host`; the default bridge has no DNS here.",
                      "u: yep, that did it")
        assert item.rule == "ErrorFix" and "--network=host" in item.content
