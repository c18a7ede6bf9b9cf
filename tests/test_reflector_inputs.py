"""Readers: plain text and logs in blocks, JSON chats, JSONL transcripts of common agents,
skipped records, bad input, and streaming with bounded memory."""

from __future__ import annotations

import codecs
import io
import json
import tracemalloc

import pytest

from memx_cli.reflector.inputs import InputError, Reader, sniff
from memx_cli.reflector.pipeline import Reflector, Settings
from memx_cli.reflector.textcodec import unmangle, utf16_encoding
from memx_cli.reflector.turn import Turn


def read(data: str | bytes, fmt: str = "auto") -> tuple[list[Turn], Reader]:
    raw = data.encode() if isinstance(data, str) else data
    reader = Reader(io.BytesIO(raw), fmt, "in.txt")
    return list(reader.turns()), reader


def test_a_log_line_loses_every_terminal_sequence_and_keeps_its_text() -> None:
    """OSC 8 hyperlinks end with ST (ESC backslash), not BEL: they were kept, ESC and all,
    in the learned memory (walk17); a window title, a charset switch and colours too."""
    line = ("\x1b]8;;file:///src/app.py\x1b\\app.py\x1b]8;;\x1b\\: \x1b[1;31merror\x1b[0m "
            "\x1b]0;build\x07ModuleNotFoundError\x1b(B: No module named 'yaml'\n")
    turns, _ = read("User: the build fails\n" + line)
    assert turns[0].text == "the build fails\napp.py: error ModuleNotFoundError: No module named 'yaml'"
    # control: a backslash and brackets that belong to the text stay
    turns, _ = read("User: the path C:\\tmp\\[x] fails\n")
    assert turns[0].text == "the path C:\\tmp\\[x] fails"


def test_text_is_read_in_blocks_with_roles_and_clean_log_lines() -> None:
    text = ("User: the build fails\nwith this\n\nAssistant: try `make clean`\n"
            "2026-11-01T12:00:00.1234567Z \x1b[31mERROR\x1b[0m boom\n##[group]Run npm test\nok\n")
    turns, reader = read(text)
    assert reader.fmt == "text"
    assert [(t.index, t.role, t.text) for t in turns] == [
        (1, "user", "the build fails\nwith this"),
        (4, "assistant", "try `make clean`\nERROR boom"),
        (6, "assistant", "##[group]Run npm test\nok")]  # a command starts its own block
    assert turns[1].command is None and turns[1].end == 5
    assert turns[2].command == "npm test" and turns[2].end == 7


def test_long_logs_are_cut_into_bounded_blocks() -> None:
    turns, _ = read("".join(f"line {i}\n" for i in range(100)))
    assert [(t.index, t.end) for t in turns] == [(1, 40), (41, 80), (81, 100)]


def test_json_chat_and_messages_object() -> None:
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [
        {"type": "text", "text": "hello"}]}, {"oops": 1}]
    turns, reader = read(json.dumps(chat))
    assert reader.fmt == "json"
    assert [(t.index, t.role, t.text) for t in turns] == [(1, "user", "hi"), (2, "assistant", "hello")]
    assert (reader.records, reader.skipped) == (2, 1)
    turns, reader = read(json.dumps({"session": "s1", "messages": chat[:1]}))
    assert reader.session == "s1" and len(turns) == 1


def test_openai_style_jsonl_with_tool_calls() -> None:
    lines = [
        {"role": "user", "content": "run the tests"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "shell", "arguments": json.dumps({"command": "pytest -q"})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "1 failed\nexit code: 1"},
    ]
    turns, reader = read("\n".join(json.dumps(x) for x in lines) + "\nnot json\n")
    assert reader.fmt == "jsonl" and reader.skipped == 1
    assert [(t.kind, t.command, t.failed) for t in turns] == [
        ("text", None, None), ("tool_use", "pytest -q", None), ("tool_result", "pytest -q", True)]


def test_claude_code_session_jsonl() -> None:
    records = [
        {"type": "summary", "summary": "Fixing tests", "leafUuid": "u9"},
        {"type": "user", "sessionId": "abc-123", "message": {"role": "user",
                                                            "content": "fix the import error"}},
        {"type": "assistant", "sessionId": "abc-123", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "..."},
            {"type": "text", "text": "Running the tests."},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q"}}]}},
        {"type": "user", "sessionId": "abc-123", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
             "content": [{"type": "text", "text": "ImportError: cannot import name 'x'"}]}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t2", "name": "Edit",
             "input": {"file_path": "app/models.py", "old_string": "a", "new_string": "b"}}]}},
        {"type": "file-history-snapshot", "snapshot": {}},
        {"type": "progress", "data": {}},
    ]
    turns, reader = read("\n".join(json.dumps(r) for r in records))
    assert reader.session == "abc-123"
    assert (reader.records, reader.skipped) == (6, 1)  # "progress" is unknown
    assert [(t.index, t.kind, t.role) for t in turns] == [
        (2, "text", "user"), (3, "text", "assistant"), (3, "tool_use", "assistant"),
        (4, "tool_result", "tool"), (5, "tool_use", "assistant")]
    assert (turns[3].command, turns[3].failed) == ("pytest -q", True)
    assert turns[4].files == ("app/models.py",)


def test_codex_rollout_jsonl() -> None:
    records = [
        {"type": "session_meta", "payload": {"id": "019a-codex", "cwd": "/w"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "build it"}]}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "call_id": "k",
                                              "arguments": json.dumps({"command": ["bash", "-lc", "make"]})}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "k",
                                              "output": json.dumps({"output": "make: *** [all] Error 2",
                                                                    "metadata": {"exit_code": 2}})}},
        {"type": "event_msg", "payload": {"type": "token_count"}},
    ]
    turns, reader = read("\n".join(json.dumps(r) for r in records))
    assert reader.session == "019a-codex" and reader.skipped == 0
    assert [(t.kind, t.command, t.failed, t.text) for t in turns] == [
        ("text", None, None, "build it"), ("tool_use", "make", None, "shell: make"),
        ("tool_result", "make", True, "make: *** [all] Error 2")]


def test_format_sniffing() -> None:
    assert sniff(b'  [{"role": "user"}]') == "json"
    assert sniff(b'{"role": "user", "content": "x"}\n{"role": "user"}') == "jsonl"
    assert sniff(b'{\n  "messages": []\n}') == "json"
    assert sniff(b"plain text") == "text"


@pytest.mark.parametrize(("data", "fmt", "message"), [
    (b"abc\x00def", "auto", "in.txt: binary file, not text; pass a log, a text or a JSON/JSONL "
                            "transcript"),
    (b"ok\ncaf\xe9\n", "text", "in.txt:2: not UTF-8 text; convert the input to UTF-8 first "
                               "(for example: iconv -f latin1 -t utf-8)"),
    (b"[1, 2", "json", "in.txt: invalid JSON (Expecting ',' delimiter: line 1 column 6 (char 5)); "
                       "use --format text for plain text"),
])
def test_bad_input_is_refused_with_one_clear_line(data: bytes, fmt: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        read(data, fmt)
    assert str(caught.value) == message


def test_an_overlong_line_is_cut_not_buffered() -> None:
    turns, _ = read(b"x" * (3 << 20) + b"\nTypeError: boom\n")
    first, second = turns[0].text.split("\n")
    assert (len(first), second) == (2000, "TypeError: boom")


class _Log(io.RawIOBase):
    """A generated CI log of ``size`` bytes that is never held in memory at once."""

    def __init__(self, size: int):
        self.left = size
        lines = [f"[build] step {i}: compiling module_{i}.py ... ok" for i in range(120)]
        self.chunk = ("\n".join(lines) + "\nFAILED tests/test_x.py::test_y - AssertionError\n"
                      ).encode()
        self.pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        n = min(len(buffer), self.left)
        start = self.pos % len(self.chunk)
        data = (self.chunk * (n // len(self.chunk) + 2))[start:start + n]
        buffer[:n] = data
        self.left -= n
        self.pos += n
        return n


def _peak(size: int) -> int:
    tracemalloc.start()
    try:
        reflector = Reflector(Settings())
        reader = Reader(io.BufferedReader(_Log(size)), "text")
        reflector.reflect(reader.turns())
        assert reader.bytes_read == size
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_large_logs_stream_with_bounded_memory() -> None:
    _peak(1 << 16)  # warm up: first-use caches are not the input's cost
    small, large = _peak(256 << 10), _peak(1 << 20)
    assert large < small + (256 << 10), (small, large)  # 4x the input, same memory
    assert large < 4 << 20  # a window of blocks, whatever the size of the log


# ------------------------------------------------------------ text as Windows saves it

SAVED_LOG = "build\tCompile\t2024-05-02T08:00:01.0000000Z error: linker failed\nsecond line é ✅\n"


@pytest.mark.parametrize("raw", [
    codecs.BOM_UTF16_LE + SAVED_LOG.encode("utf-16-le"),  # PowerShell's `>`
    SAVED_LOG.encode("utf-16-le"),
    codecs.BOM_UTF16_BE + SAVED_LOG.encode("utf-16-be"),
    SAVED_LOG.encode("utf-16-be"),
], ids=["le-bom", "le", "be-bom", "be"])
def test_utf16_logs_are_read_as_text_with_or_without_a_bom(raw: bytes) -> None:
    reader = Reader(io.BytesIO(raw), "auto", "ci.log")
    assert list(reader.numbered_lines()) == [(1, SAVED_LOG.splitlines()[0]),
                                             (2, SAVED_LOG.splitlines()[1])]
    assert reader.bytes_read == len(raw)  # progress counts the file's bytes
    turns, _ = read(raw)
    assert turns[0].text.startswith("build\tCompile\t")


def test_utf16_is_told_from_binary_by_where_the_nul_bytes_fall() -> None:
    assert utf16_encoding(b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00") is None
    assert utf16_encoding("plain".encode("utf-16-le")) == ("utf-16-le", 0)
    with pytest.raises(InputError, match="binary file, not text"):
        read(b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00")


def test_a_utf16_file_is_streamed_in_bounded_chunks() -> None:
    line = "job\tstep\t2024-05-02T08:00:01.0000000Z " + "x" * 70 + "\n"
    raw = codecs.BOM_UTF16_LE + (line * 20_000).encode("utf-16-le")  # 2.2 MB
    reader = Reader(io.BytesIO(raw), "text", "ci.log")
    tracemalloc.start()
    count = sum(1 for _ in reader.numbered_lines())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert count == 20_000 and peak < 1_500_000


def test_code_page_mojibake_is_put_back() -> None:
    # what PowerShell writes when it reads a program's UTF-8 in the OEM code page
    assert unmangle("\u2229\u2557\u2510" + "2024-05-02T08:00:01Z x") == "\ufeff2024-05-02T08:00:01Z x"
    assert unmangle("\u0393\u00a3\u00e0 passed") == "\u2705 passed"
    assert unmangle("caf\u00e9 \u00d7 2") == "caf\u00e9 \u00d7 2"  # real text stays
