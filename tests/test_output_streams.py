"""What memx writes to standard streams it does not control: an output declared in an
encoding that cannot hold a memory's text (PYTHONIOENCODING=latin-1, a legacy code page)
and a pipe whose reader has gone (`memx list | head`). Real processes, on the lean path
(the `memx` executable's own reading of a search) and the click path alike."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memx_cli.command.base import failed, json_text, whole_unicode

from .conftest import Memx

TEXT = "Deploys print the → arrow and the 🚀 rocket once the build is green"
LEAN = [sys.executable, "-m", "memx_cli.executable"]  # a search read without click
FULL = [sys.executable, "-m", "memx_cli"]


def _run(argv: list[str], cwd: Path, encoding: str, **kwargs: object
         ) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "MEMX_NO_SERVER": "1", "PYTHONIOENCODING": encoding}
    return subprocess.run(argv, cwd=cwd, env=env, **kwargs)  # type: ignore[call-overload]


@pytest.fixture
def store(memx: Memx, repo: Path) -> Path:
    memx.ok("add", TEXT, "--raw")
    memx.ok("add", "The build cache lives in .cache/build", "--raw")
    memx.ok("reindex")
    return repo


@pytest.mark.parametrize("argv", [
    [*LEAN, "search", "rocket arrow build", "-n", "1"],
    [*FULL, "search", "rocket arrow build", "--limit=1"],  # --name=value: click's reading
])
def test_text_an_output_cannot_hold_is_escaped_not_fatal(store: Path,
                                                         argv: list[str]) -> None:
    """Declared latin-1, the output cannot hold → or 🚀: the search was an internal error
    (exit 3, UnicodeEncodeError). The text is now written with escapes and the JSON with
    \\u escapes, which read back to the memory's text; in UTF-8 (the control) both are
    written as they are."""
    latin = _run(argv, store, "latin-1", capture_output=True)
    assert (latin.returncode, latin.stderr) == (0, b""), latin.stderr
    assert b"\\u2192 arrow" in latin.stdout and b"\\U0001f680 rocket" in latin.stdout
    latin = _run([*argv, "--json"], store, "latin-1", capture_output=True)
    assert latin.returncode == 0, latin.stderr
    assert latin.stdout.isascii()
    assert json.loads(latin.stdout)["results"][0]["content"] == TEXT
    utf8 = _run(argv, store, "utf-8", capture_output=True)
    assert utf8.returncode == 0 and TEXT in utf8.stdout.decode("utf-8")
    utf8 = _run([*argv, "--json"], store, "utf-8", capture_output=True)
    assert f'"content": "{TEXT}"' in utf8.stdout.decode("utf-8")


@pytest.mark.parametrize("args", [
    ["list"], ["list", "--json"], ["context", "a task about the rocket arrow and the build"],
    ["context", "a task about the rocket arrow and the build", "--json"],
])
def test_every_command_printing_memories_writes_them_in_latin_1(store: Path,
                                                                args: list[str]) -> None:
    proc = _run([*FULL, *args], store, "latin-1", capture_output=True)
    assert (proc.returncode, proc.stderr) == (0, b""), proc.stderr
    assert b"\\u2192 arrow" in proc.stdout
    if "--json" in args:
        assert TEXT in json.dumps(json.loads(proc.stdout), ensure_ascii=False)


@pytest.mark.parametrize("fmt", ["json", "jsonl", "markdown"])
def test_an_export_is_utf_8_whatever_the_output_declares(store: Path, fmt: str) -> None:
    """`memx export > file` is read back by `memx import` as UTF-8: declared latin-1, it
    was an internal error; it is the same bytes as under UTF-8 (the control)."""
    latin = _run([*FULL, "export", "--format", fmt], store, "latin-1", capture_output=True)
    utf8 = _run([*FULL, "export", "--format", fmt], store, "utf-8", capture_output=True)
    assert (latin.returncode, latin.stderr) == (0, b""), latin.stderr
    assert latin.stdout == utf8.stdout and TEXT.encode("utf-8") in latin.stdout


def test_json_escapes_only_where_the_encoding_needs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def declared(encoding: str) -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BytesIO(), encoding=encoding)

    assert whole_unicode(declared("utf-8")) and whole_unicode(declared("gb18030"))
    assert whole_unicode(io.StringIO())  # no encoding: text is kept as text
    assert not whole_unicode(declared("latin-1")) and not whole_unicode(declared("cp1252"))
    monkeypatch.setattr(sys, "stdout", declared("latin-1"))
    assert json_text({"a": "→"}) == '{"a": "\\u2192"}'
    monkeypatch.setattr(sys, "stdout", declared("utf-8"))
    assert json_text({"a": "→"}) == '{"a": "→"}'


@pytest.mark.parametrize("argv", [
    [*LEAN, "search", "build", "-n", "100"],
    [*FULL, "search", "build", "--limit=100"],
    [*FULL, "list"],
    [*FULL, "export"],
    [*FULL, "--help"],
])
def test_a_reader_gone_ends_the_command_quietly_with_0(store: Path,
                                                       argv: list[str]) -> None:
    """`memx ... | head` whose reader stopped reading: exit 0 and nothing said, as
    ripgrep (Python and click exit 1; git dies of SIGPIPE): a script under `set -o
    pipefail` goes on. The lean path and click's main both exited 1."""
    read, write = os.pipe()
    os.close(read)
    try:
        proc = _run(argv, store, "utf-8", stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr) == (0, b"")


def test_a_broken_pipe_of_another_kind_is_an_internal_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The control: a BrokenPipeError while the command's own output is open (a child
    process that stopped reading its input) is the command's failure."""
    try:
        raise BrokenPipeError(32, "Broken pipe")
    except BrokenPipeError as exc:
        code = failed(exc, verbose=False)
    assert code == 3
    assert "internal error: BrokenPipeError" in capsys.readouterr().err
