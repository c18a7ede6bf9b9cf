"""hybrid and llm modes against a local OpenAI-compatible chat-completions server on
127.0.0.1 (ok, failing, slow, malformed variants); fallback to rules with one notice."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from memx_cli.reflector.llm import HttpChatClient, LLMSettings
from memx_cli.reflector.pipeline import Settings

from .conftest import Memx
from .test_reflector_corpus import load, predict

SECRET = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
TEXT = ("The nightly job fails with `ConnectionResetError: [Errno 104] Connection reset by peer`. "
        f"Turned out the proxy drops idle connections; setting `keepalive=30` fixed it. "
        f"(token {SECRET})")


class Fake(ThreadingHTTPServer):
    mode = "ok"
    requests: list[dict[str, Any]]
    headers_seen: list[dict[str, str]]
    released: threading.Event  # a "slow" reply waits for it: the test's end, not a clock


class Handler(BaseHTTPRequestHandler):
    server: Fake

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        self.server.headers_seen.append(dict(self.headers))
        mode = self.server.mode
        if self.path != "/v1/chat/completions" or mode == "fail":
            self.send_error(500, "boom")
            return
        if mode == "slow":
            self.server.released.wait(60)
        system, user = body["messages"][0]["content"], body["messages"][1]["content"]
        if mode == "malformed":
            content = "Sure! Here is what I think about it."
        elif system.startswith("You review"):
            candidate = user.split("Candidate:\n", 1)[1].split("\n\nContext:", 1)[0]
            content = "```json\n" + json.dumps({
                "score": 90, "content": "LLM says: " + candidate[:80], "section": "debugging",
                "type": "pitfall"}) + "\n```"
        else:
            found = [{"content": "Proxy drops idle connections: set keepalive=30.",
                      "rule": "ErrorFix", "score": 85, "section": "debugging",
                      "type": "pitfall"}] if "rror" in user else []
            content = json.dumps({"memories": found})
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}],
                           "usage": {"prompt_tokens": (len(system) + len(user)) // 4}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def server() -> Iterator[Fake]:
    fake = Fake(("127.0.0.1", 0), Handler)
    fake.requests, fake.headers_seen, fake.released = [], [], threading.Event()
    thread = threading.Thread(target=fake.serve_forever, daemon=True)
    thread.start()
    yield fake
    fake.released.set()
    fake.shutdown()
    fake.server_close()


def configure(repo: Path, url: str, mode: str, timeout: float = 60, key_env: str | None = None) -> None:
    """``timeout`` only bounds a hang where a reply comes (the fake answers at once)."""
    llm: dict[str, Any] = {"base_url": url, "model": "tiny", "timeout": timeout}
    if key_env:
        llm["api_key_env"] = key_env
    (repo / ".memx" / "config.local.yaml").write_text(
        yaml.safe_dump({"ace": {"reflector": {"mode": mode, "llm": llm}}}))


def url_of(server: Fake) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def stored(repo: Path) -> list[dict[str, Any]]:
    return [yaml.safe_load(p.read_text()) for p in (repo / ".memx" / "memories").glob("*.yaml")]


def test_hybrid_asks_the_model_about_candidates_only(memx: Memx, repo: Path, server: Fake) -> None:
    configure(repo, url_of(server), "hybrid")
    out = memx.ok("ingest", "-", "--stats", input=TEXT + "\n\nthanks!\n\nok, see you tomorrow")
    assert len(server.requests) == 1  # one candidate, one call; chit-chat costs nothing
    [mem] = stored(repo)
    assert mem["content"].startswith("LLM says: ")
    rule_score = predict({"kind": "text", "input": TEXT})[0][0].score
    assert mem["instructivity"] == round((rule_score + 90) / 2)
    sent = json.dumps(server.requests)
    assert SECRET not in sent and "[REDACTED:github_token]" in sent  # only sanitized text leaves
    tokens = server.requests[0]["messages"]
    assert out.endswith(f"llm: mode hybrid, 1 calls, "
                        f"{(len(tokens[0]['content']) + len(tokens[1]['content'])) // 4} "
                        "tokens sent\n")
    assert server.requests[0]["model"] == "tiny"


def test_llm_mode_reads_the_whole_input_in_one_call(memx: Memx, repo: Path, server: Fake) -> None:
    configure(repo, url_of(server), "llm")
    memx.ok("ingest", "-", input=TEXT)
    assert len(server.requests) == 1
    assert server.requests[0]["messages"][0]["content"].startswith("You extract")
    [mem] = stored(repo)
    assert (mem["content"], mem["instructivity"], mem["tags"]) == (
        "Proxy drops idle connections: set keepalive=30.", 85, ["error-fix"])


@pytest.mark.parametrize(("mode", "timeout", "why"), [
    ("fail", 60, "HTTP 500 from {url}/chat/completions"),
    ("slow", 0.3, "no reply from {url}/chat/completions within 0.3s"),
    ("malformed", 60, "the model's reply has no JSON object"),
])
def test_a_failing_model_falls_back_to_rules_with_one_notice(
        memx: Memx, repo: Path, server: Fake, mode: str, timeout: float, why: str) -> None:
    server.mode = mode
    configure(repo, url_of(server), "hybrid", timeout)
    two = TEXT + "\n\nEvery deploy I have to clear the CDN cache by hand."
    result = memx("ingest", "-", input=two)
    assert result.code == 0
    assert result.err == (f"memx: warning: LLM stage unavailable: "
                          f"{why.format(url=url_of(server))}; reflecting with rules only\n")
    assert len(server.requests) == 1  # no second try after the first failure
    assert sorted(m["tags"][0] for m in stored(repo)) == ["error-fix", "repetitive-op"]


def test_an_unreachable_endpoint_still_stores_the_memory(memx: Memx, repo: Path) -> None:
    configure(repo, "http://127.0.0.1:9/v1", "llm", 2)
    result = memx("ingest", "-", input=TEXT)
    assert result.code == 0
    assert result.err.startswith("memx: warning: LLM stage unavailable: cannot reach "
                                 "http://127.0.0.1:9/v1/chat/completions (")
    [mem] = stored(repo)
    assert mem["type"] == "pitfall" and "keepalive=30" in mem["content"]


def test_api_key_comes_from_the_named_environment_variable(memx: Memx, repo: Path, server: Fake,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    configure(repo, url_of(server), "hybrid", key_env="TINY_LLM_KEY")
    result = memx("ingest", "-", "--dry-run", input=TEXT)
    assert result.err == ("memx: warning: LLM stage unavailable: environment variable "
                          "TINY_LLM_KEY (ace.reflector.llm.api_key_env) is not set; reflecting "
                          "with rules only\n")
    assert server.requests == []
    monkeypatch.setenv("TINY_LLM_KEY", "local-test-key")
    memx.ok("ingest", "-", "--dry-run", input=TEXT)
    assert server.headers_seen[0]["Authorization"] == "Bearer local-test-key"


def test_a_mode_without_an_endpoint_says_so_once(memx: Memx, repo: Path) -> None:
    (repo / ".memx" / "config.local.yaml").write_text("ace:\n  reflector:\n    mode: hybrid\n")
    result = memx("ingest", "-", input=TEXT)
    assert result.err == ("memx: warning: LLM stage unavailable: ace.reflector.mode is hybrid "
                          "but ace.reflector.llm.base_url and .model are not set; reflecting "
                          "with rules only\n")
    assert len(stored(repo)) == 1


def test_hybrid_saves_calls_and_tokens_over_llm_on_the_corpus(server: Fake) -> None:
    """The saving of "calls only for candidates", measured on the labelled corpus (each case
    one input, as a hook or an ingest would send it). Commits are left out: they always run
    rules only."""
    cases = [c for c in load() if c["kind"] != "commit"]
    totals: dict[str, list[int]] = {}
    for mode in ("hybrid", "llm"):
        settings = Settings(mode=mode, llm=LLMSettings(url_of(server), "tiny"))
        calls = tokens = 0
        for case in cases:
            _, stats = predict(case, settings, HttpChatClient(settings.llm))  # type: ignore[arg-type]
            calls += stats.llm_calls
            tokens += stats.llm_tokens
        totals[mode] = [calls, tokens]
    (h_calls, h_tokens), (l_calls, l_tokens) = totals["hybrid"], totals["llm"]
    print(f"\nLLM use on {len(cases)} corpus inputs: hybrid {h_calls} calls / {h_tokens} tokens, "
          f"llm {l_calls} calls / {l_tokens} tokens; hybrid saves "
          f"{1 - h_calls / l_calls:.0%} of calls and {1 - h_tokens / l_tokens:.0%} of tokens")
    assert l_calls == len(cases)
    assert h_calls < l_calls
