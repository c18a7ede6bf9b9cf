"""Readers that turn raw input into a stream of ``Turn`` records, with bounded memory.

Formats (SPEC 3.1): plain text and CI/command logs (blocks of lines), chat transcripts as
JSON (``[{role, content}]`` or ``{"messages": [...]}``) and JSONL (one record per line:
OpenAI-style messages, Claude Code session files, Codex rollout files; see
``transcripts.py``). Everything but a JSON document is read line by line, so a 100 MB CI
log costs one block of lines at a time (SPEC 10). UTF-16 input (with or without a byte order
mark, as Windows PowerShell saves a redirected log) is read as UTF-8 as it streams
(``textcodec.py``); other bytes with NULs are refused as binary.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import IO, Any

from memx_cli.clock import format_timestamp, parse_timestamp
from memx_cli.errors import MemxError
from memx_cli.reflector import aider, transcripts
from memx_cli.reflector.textcodec import Transcoded, utf16_encoding
from memx_cli.reflector.turn import Turn
from memx_cli.textproc import clean_text

FORMATS = ("auto", "text", "json", "jsonl")
SNIFF_BYTES = 64 * 1024
MAX_LINE_BYTES = 1 << 20  # longer lines are cut: nothing instructive is a megabyte wide
MAX_ANALYSED_LINE = 2000
BLOCK_LINES = 40
MAX_JSON_BYTES = 64 << 20
# A terminal's control sequences in captured output: CSI (colours, cursor), an OSC, DCS
# or APC string up to its BEL or ST terminator (OSC 8 hyperlinks end with ST, ESC \\;
# walk17: those were kept, ESC and all, in a learned memory), any other escape, and CR.
ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"
                     r"|\x1b[ -/]*[0-~]|\r")
STAMP_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?\s")
ROLE_RE = re.compile(
    r"^\s*(user|assistant|human|ai|system|me|bot|agent|developer|claude|"
    r"用户|助手|ユーザー|アシスタント|사용자|어시스턴트|utilisateur)\s*[:：]\s?(.*)$",
    re.IGNORECASE,
)
COMMAND_RE = re.compile(r"^(?:##\[group\]Run |\$ |\+ |> )(\S.*)$")
RUN_PREFIXES = ("$ ", "##[group]Run ")


class InputError(MemxError):
    """The input cannot be read as the format it claims to be."""


@dataclass
class Reader:
    """Reads ``stream`` once; ``turns()`` yields as it goes; counters fill in meanwhile."""

    stream: IO[bytes] | Transcoded
    fmt: str = "auto"
    name: str = "<stdin>"
    progress: Callable[[int], None] | None = None
    session: str | None = None
    records: int = 0
    skipped: int = 0
    bytes_read: int = 0
    lines: int = 0
    # record number -> when it was written, for records that say (a ``timestamp`` key)
    times: dict[int, str] = field(default_factory=dict)
    _head: bytes = field(default=b"", repr=False)
    _prepared: bool = field(default=False, repr=False)
    _transcoded: Transcoded | None = field(default=None, repr=False)

    def prepare(self) -> bytes:
        """Read the first bytes once: the encoding (UTF-16 is read as UTF-8 from here on)
        and the format; returns the head, as UTF-8."""
        if self._prepared:
            return self._head
        self._prepared = True
        head = self.stream.read(SNIFF_BYTES)
        found = utf16_encoding(head)
        if found is not None:
            codec, bom = found
            assert not isinstance(self.stream, Transcoded)  # prepared once
            self._transcoded = Transcoded(self.stream, codec, head[bom:])
            self._transcoded.consumed = bom
            self.stream = self._transcoded
            head = self.stream.read(SNIFF_BYTES)
        self._head = head
        self._count(len(head))
        if b"\x00" in self._head:
            raise InputError(f"{self.name}: binary file, not text; pass a log, a text or a "
                             "JSON/JSONL transcript")
        if self.fmt == "auto":
            self.fmt = sniff(self._head)
        return self._head

    def further(self, limit: int) -> bytes:
        """The head read on to ``limit`` bytes (or the end of the input), for a look past
        the first bytes: a runner's log quoted at the end of a long report. The lines are
        then read from its start as before."""
        self.prepare()
        while len(self._head) < limit:
            chunk = self.stream.read(min(SNIFF_BYTES, limit - len(self._head)))
            if not chunk:
                break
            self._count(len(chunk))
            self._head += chunk
        return self._head

    def numbered_lines(self) -> Iterator[tuple[int, str]]:
        """The input's lines, numbered from 1, decoded (for the CI log reader)."""
        self.prepare()
        yield from self._decoded()

    def turns(self) -> Iterator[Turn]:
        self.prepare()
        if self.fmt == "json":
            yield from self._json()
        elif self.fmt == "jsonl":
            yield from self._jsonl()
        else:
            yield from self._text()

    # ------------------------------------------------------------ plumbing

    def _count(self, n: int) -> None:
        if self._transcoded is not None:  # count the bytes of the file, not of the UTF-8
            n = self._transcoded.consumed - self.bytes_read
        self.bytes_read += n
        if self.progress is not None and n:
            self.progress(n)

    def _raw_lines(self) -> Iterator[bytes]:
        """Lines of at most about MAX_LINE_BYTES (the rest of a longer line is dropped)."""
        pending = self._head
        self._head = b""
        while True:
            chunk = self.stream.read(SNIFF_BYTES)
            self._count(len(chunk))
            if not chunk:
                lines = pending.split(b"\n")
                if lines[-1] == b"":
                    lines.pop()
                yield from lines
                return
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()  # the unfinished last line
            yield from lines
            if len(pending) >= MAX_LINE_BYTES:  # an overlong line: keep its start only
                yield pending[:MAX_LINE_BYTES]
                pending = self._skip_to_newline()

    def _skip_to_newline(self) -> bytes:
        while True:
            chunk = self.stream.read(SNIFF_BYTES)
            self._count(len(chunk))
            if not chunk:
                return b""
            cut = chunk.find(b"\n")
            if cut != -1:
                return chunk[cut + 1:]

    def _decoded(self) -> Iterator[tuple[int, str]]:
        for raw in self._raw_lines():
            self.lines += 1
            if b"\x00" in raw:
                raise InputError(f"{self.name}:{self.lines}: binary data in the input; "
                                 "pass a text log or transcript")
            try:
                yield self.lines, raw.decode("utf-8").removeprefix("\ufeff")
            except UnicodeDecodeError:
                raise InputError(
                    f"{self.name}:{self.lines}: not UTF-8 text; convert the input to UTF-8 "
                    "first (for example: iconv -f latin1 -t utf-8)"
                ) from None

    # ------------------------------------------------------------ formats

    def _text(self) -> Iterator[Turn]:
        lines = self._decoded()
        leading: list[tuple[int, str]] = []
        for entry in lines:  # an aider chat history is told by its first line
            leading.append(entry)
            if entry[1].strip():
                break
        if leading and aider.starts(leading[-1][1]):
            for turn in aider.turns(itertools.chain(leading, lines)):
                self.records += 1
                yield turn
            return
        role, start, command = "text", 0, None
        block: list[str] = []
        for number, line in itertools.chain(leading, lines):
            if "\x1b" in line or "\r" in line:
                line = ANSI_RE.sub("", line)
            if line[:1].isdigit():
                line = STAMP_RE.sub("", line)
            line = line[:MAX_ANALYSED_LINE].rstrip()
            found = ROLE_RE.match(line)
            ran = COMMAND_RE.match(line)
            starts = ran is not None and line.startswith(RUN_PREFIXES)  # a new command's output
            if found or (not line.strip() and block) or len(block) >= BLOCK_LINES \
                    or (starts and block):
                if block:
                    self.records += 1
                    yield Turn(start, role, "\n".join(block), command=command, end=number - 1)
                block = []
                if found:
                    role = _role(found.group(1))
                    line = found.group(2)
            if ran:
                command = ran.group(1).strip()
            if line.strip() or block:
                if not block:
                    start = number
                block.append(line)
        if block:
            self.records += 1
            yield Turn(start, role, "\n".join(block), command=command, end=self.lines)

    def _jsonl(self) -> Iterator[Turn]:
        state = transcripts.State()
        for number, line in self._decoded():
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):  # nested deeper than Python's stack
                self.skipped += 1
                continue
            yield from self._record(record, number, state)

    def _json(self) -> Iterator[Turn]:
        data = self._head
        while True:
            chunk = self.stream.read(1 << 20)
            self._count(len(chunk))
            if not chunk:
                break
            data += chunk
            if len(data) > MAX_JSON_BYTES:
                raise InputError(f"{self.name}: a JSON document over {MAX_JSON_BYTES >> 20} MB; "
                                 "pass large transcripts as JSONL (one message per line)")
        try:
            doc = json.loads(data.decode("utf-8").removeprefix("\ufeff"))
        except UnicodeDecodeError:
            raise InputError(f"{self.name}: not UTF-8 text; convert the input to UTF-8 "
                             "first") from None
        except ValueError as exc:
            raise InputError(f"{self.name}: invalid JSON ({exc}); use --format text for "
                             "plain text") from None
        except RecursionError:
            raise InputError(f"{self.name}: JSON nested too deep to read; a transcript is "
                             "an array of messages") from None
        if isinstance(doc, dict) and isinstance(doc.get("messages"), list):
            self.session = self.session or _text_or_none(
                doc.get("session") or doc.get("id") or doc.get("sessionId"))
            doc = doc["messages"]
        if not isinstance(doc, list):
            doc = [doc]
        state = transcripts.State()
        for number, record in enumerate(doc, 1):
            yield from self._record(record, number, state)

    def _record(self, record: Any, number: int, state: transcripts.State) -> Iterator[Turn]:
        turns = transcripts.parse(record, number, state)
        if state.session and not self.session:
            self.session = state.session
        if turns is None:
            self.skipped += 1
            return
        self.records += 1
        stamp = record.get("timestamp") if isinstance(record, dict) else None
        if isinstance(stamp, str):
            try:
                self.times[number] = format_timestamp(parse_timestamp(stamp))
            except ValueError:
                pass  # an unreadable time: the memory gets the ingest's time
        for turn in turns:
            if turn.text.strip() or turn.command or turn.rejected:
                yield _clean_turn(turn)

    def time_of(self, last: int) -> str | None:
        """When the record ``last`` (or the nearest dated one before it) was written."""
        dated = [n for n in self.times if n <= last]
        return self.times[max(dated)] if dated else None


def sniff(head: bytes) -> str:
    """Guess the format from the first bytes: JSON array, JSONL records, or text.

    A transcript is an array of objects or an object, so JSON must open with ``[{"``,
    ``[]`` or ``{"`` (whitespace allowed between): a log line such as ``[INFO] ...``,
    ``[2026-01-02 10:00] ...`` or ``{build} ...`` is text (issue 14).
    """
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if _JSON_ARRAY_RE.match(text):
        return "json"
    if _JSON_OBJECT_RE.match(text):
        first = text.split(b"\n", 1)[0]
        try:
            record = json.loads(first)
        except (ValueError, RecursionError):
            return "json"  # a document spread over lines (or too deep: its error then)
        return "json" if isinstance(record, dict) and "messages" in record else "jsonl"
    return "text"


_JSON_ARRAY_RE = re.compile(rb'\[\s*(?:\{\s*(?:"|\})|\])')
_JSON_OBJECT_RE = re.compile(rb'\{\s*(?:"|\})')


def _clean_turn(turn: Turn) -> Turn:
    """JSON may hold ``"\\ud800"`` or NUL: a lone surrogate crashes tokenizers (issue 14)."""
    text = clean_text(turn.text)
    command = clean_text(turn.command) if turn.command else turn.command
    files = tuple(clean_text(f) for f in turn.files)
    if text is turn.text and command is turn.command and files == turn.files:
        return turn
    return replace(turn, text=text, command=command, files=files)


def _role(name: str) -> str:
    low = name.lower()
    if low in ("assistant", "ai", "bot", "agent", "claude", "助手", "アシスタント", "어시스턴트"):
        return "assistant"
    return "system" if low == "system" else "user"


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
