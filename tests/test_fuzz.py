"""Property-based fault suite (issue 14): no input crashes memx. Each target may only
answer or raise memx's own one-line errors.

A modest number of examples per target in CI; ``MEMX_FUZZ_EXAMPLES=100000`` for a long
run. Targets: the YAML loader and the memory loader, the Reflector (ingest of any bytes
in every format), the commit reader, search queries and MCP arguments."""

from __future__ import annotations

import io
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memx_cli.errors import InvalidMemoryError, MemxError
from memx_cli.safeyaml import YamlInputError, loads
from memx_cli.store import memory as memfmt
from memx_cli.store.repo import Repo
from tests.conftest import Memx

EXAMPLES = int(os.environ.get("MEMX_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get(
    "MEMX_FUZZ_RANDOM"), suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                HealthCheck.too_slow])

# Text with every kind of trouble: lone surrogates, NUL and control characters, YAML
# and JSON punctuation, tags, anchors, brackets.
TROUBLE = st.sampled_from(["\ud800", "\udcff", "\x00", "\x1b[31m", "\r", "!!int ", "!!timestamp",
                           "&a ", "*a", "<<: ", "[", "]", "{", "}", "- ", ": ", "\n  ", "'",
                           '"', "#", "|", ">", "---\n", "%YAML 1.1\n", "\t", "\ufeff",
                           "\u2028", "超时", "é"])
NASTY_TEXT = st.lists(st.one_of(TROUBLE, st.text(max_size=8)), max_size=30).map("".join)
GOOD_MEMORY = (b"schema: 1\nid: 01m8s1y0j2w2vbtjyp73dwk2aa\nkind: fact\ncontent: pool size "
               b"is 10\nscope: project\ncreated_at: '2026-01-02T03:04:05Z'\n")


def _mutations() -> st.SearchStrategy[bytes]:
    """A valid memory file with a slice replaced by random bytes or troublesome text."""
    return st.tuples(st.integers(0, len(GOOD_MEMORY)), st.integers(0, 20),
                     st.one_of(st.binary(max_size=20),
                               NASTY_TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")))
                     ).map(lambda c: GOOD_MEMORY[:c[0]] + c[2] + GOOD_MEMORY[c[0] + c[1]:])


@FUZZ
@given(st.one_of(NASTY_TEXT, st.text()))
def test_the_yaml_loader_only_answers_or_refuses(text: str) -> None:
    try:
        loads(text)
    except YamlInputError:
        pass


@FUZZ
@given(st.one_of(_mutations(), st.binary(max_size=200)))
def test_the_memory_loader_only_answers_or_refuses(data: bytes) -> None:
    try:
        memfmt.load(data, "f.yaml")
    except InvalidMemoryError as exc:
        assert str(exc).startswith("f.yaml") and "\n" not in str(exc)


@FUZZ
@given(data=st.one_of(st.binary(max_size=400),
                      NASTY_TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")),
                      st.lists(st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]),
                                                      "content": NASTY_TEXT}), max_size=4)
                      .map(lambda m: json.dumps(m).encode())),
       fmt=st.sampled_from(["auto", "text", "json", "jsonl"]))
def test_the_reflector_only_answers_or_refuses(memx: Memx, data: bytes, fmt: str) -> None:
    from memx_cli.operations.reflect import ingest

    try:
        ingest(Repo.discover(memx.cwd), io.BytesIO(data), fmt=fmt, dry_run=True)
    except MemxError as exc:
        assert "\n" not in str(exc)


@FUZZ
@given(message=NASTY_TEXT, paths=st.lists(NASTY_TEXT, max_size=4),
       diff=NASTY_TEXT)
def test_the_commit_reader_only_answers(memx: Memx, message: str, paths: list[str],
                                        diff: str) -> None:
    from memx_cli.operations.reflect import reflect_commit

    files = [(status, path) for status, path in zip("MADR", paths, strict=False)]
    found = reflect_commit(Repo.discover(memx.cwd), message, files, diff,
                           {p: diff for p in paths[:1]}, sha="abc1234")
    for mem in found:
        memfmt.load(memfmt.dump(mem))  # what would be written reads back


@pytest.fixture
def searched(memx: Memx) -> Repo:
    for text in ("the gateway terminates TLS", "超时时间是三十秒", "use pnpm, not npm"):
        memx.ok("add", text)
    return Repo.discover(memx.cwd)


@FUZZ
@given(query=NASTY_TEXT, mode=st.sampled_from(["keyword", "hybrid"]))
def test_search_queries_only_answer_or_refuse(searched: Repo, query: str, mode: str) -> None:
    from memx_cli.generator.search import Searcher

    try:
        result = Searcher(searched).search(query, mode=mode, record_recalls=False)
    except MemxError as exc:
        assert str(exc) == "empty query; pass the words to search for"
        return
    json.dumps([h.doc.get("content") for h in result.hits], ensure_ascii=False).encode()


@FUZZ
@given(arguments=st.dictionaries(st.sampled_from(["query", "mode", "limit", "task"]),
                                 st.one_of(NASTY_TEXT, st.integers(), st.none()), max_size=3))
def test_mcp_arguments_are_parsed_and_answered(searched: Repo, arguments: dict[str, object]
                                               ) -> None:
    """What the server reads (through clean_line) always parses as JSON-RPC, and the
    search it asks for answers or refuses with memx's message."""
    from mcp_types import jsonrpc_message_adapter

    from memx_cli.agents.mcp_server import MemoryService
    from memx_cli.agents.mcp_stdio import clean_line

    line = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                       "params": {"name": "search_memory", "arguments": arguments}})
    read = clean_line(line + "\n")
    message = jsonrpc_message_adapter.validate_json(read, by_name=False)
    sent = message.params["arguments"]  # type: ignore[union-attr]
    query = sent.get("query")
    if isinstance(query, str):
        service = MemoryService(searched)
        try:
            json.dumps(service.search(query, "keyword", None, 5), ensure_ascii=False).encode()
        except MemxError as exc:
            assert str(exc) == "empty query; pass the words to search for"

