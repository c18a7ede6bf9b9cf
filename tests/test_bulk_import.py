"""`memx import --raw` writes in batches (issue 15): each file atomic and synced, one
folder sync per batch, one index update at the end; killed midway it leaves whole files
only, and running the import again completes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from memx_cli import fsutil
from memx_cli.store.ids import new_id

from .conftest import Memx

MEMX = [sys.executable, "-m", "memx_cli"]


def _records(count: int) -> list[dict[str, object]]:
    start = 1_780_000_000_000
    return [{"id": new_id(start + n), "content": f"service {n} restarts nightly at {n % 24}h",
             "tags": [f"svc{n % 7}"], "source": {"type": "transcript", "session": f"s{n // 10}"}}
            for n in range(count)]


def test_one_folder_sync_per_batch(memx: Memx, repo: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    memories = repo / ".memx" / "memories"
    synced: list[Path] = []
    real = fsutil._fsync_dir

    def spy(directory: Path) -> None:
        synced.append(directory)
        real(directory)

    monkeypatch.setattr(fsutil, "_fsync_dir", spy)
    monkeypatch.setattr(fsutil, "WRITE_BATCH", 40)
    payload = repo / "records.jsonl"
    records = _records(85)
    payload.write_text("\n".join(json.dumps(r) for r in records))
    assert memx.ok("import", "--raw", str(payload)) == f"Imported {len(records)} memories\n"
    assert synced.count(memories) == 3
    names = sorted(p.stem for p in memories.glob("*.yaml"))
    assert names == sorted(str(r["id"]) for r in records)
    first = yaml.safe_load((memories / f"{records[0]['id']}.yaml").read_text())
    assert (first["content"], first["tags"]) == (records[0]["content"], records[0]["tags"])


def test_killed_import_leaves_whole_files_and_completes(memx: Memx, repo: Path) -> None:
    records = _records(2 * fsutil.WRITE_BATCH)
    payload = repo / "records.jsonl"
    payload.write_text("\n".join(json.dumps(r) for r in records))
    memories = repo / ".memx" / "memories"
    proc = subprocess.Popen([*MEMX, "import", "--raw", str(payload)], cwd=repo,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if any(name.endswith(".yaml") for name in os.listdir(memories)):
            break
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    written = sorted(memories.glob("*.yaml"))
    assert 0 < len(written) < len(records)  # killed midway
    by_id = {str(r["id"]): r for r in records}
    for path in written:  # whole files only: each parses and holds its record
        assert yaml.safe_load(path.read_text())["content"] == by_id[path.stem]["content"]
    assert sorted(os.listdir(memories)) == [p.name for p in written]  # no temporary here

    result = memx("import", "--raw", str(payload))
    assert result.code == 0
    assert result.out == (f"Imported {len(records) - len(written)} memories, "
                          f"{len(written)} already present\n")
    assert sorted(p.stem for p in memories.glob("*.yaml")) == sorted(by_id)
    tmp = repo / ".memx" / "local" / "tmp"
    assert not tmp.exists() or os.listdir(tmp) == []
    assert memx("validate").code == 0


def test_a_failed_batch_leaves_no_staged_file(memx: Memx, repo: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    payload = repo / "records.jsonl"
    records = _records(30)
    payload.write_text("\n".join(json.dumps(r) for r in records))
    real, calls = os.fsync, []

    def failing(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 7:
            raise OSError(28, "No space left on device")
        real(fd)

    monkeypatch.setattr(fsutil.os, "fsync", failing)
    result = memx("import", "--raw", str(payload))
    assert (result.code, result.err) == (3, "memx: error: No space left on device (free some "
                                            "space, then run the command again)\n")
    assert list((repo / ".memx" / "memories").glob("*.yaml")) == []
    tmp = repo / ".memx" / "local" / "tmp"
    assert not tmp.exists() or os.listdir(tmp) == []


# Records of the fast writer's shape and records only YAML's emitter writes (issue 15).
SHAPES = [
    {"content": "plain text, one line"},
    {"content": "Fix: `make test` # then push", "tags": ["ci", "make"]},
    {"content": " ".join(["word"] * 60) + " 'quoted' and: colons " * 3},
    {"content": "缓存失效时先清理 redis 再重启服务", "source": {"type": "chat", "turn": 7,
                                                     "ok": True, "note": None}},
    {"content": "two\nlines of text"},
    {"content": "a\ttab"},
    {"content": "an emoji 😀 here"},
    {"content": "x", "confidence": 1e-7},
    {"content": "x", "source": {"type": "x", "files": ["a.py", "b.py"]}},
    {"content": "2026-01-02", "topic": "yes", "domain": "null"},
]


def test_raw_import_writes_the_emitters_bytes(memx: Memx, repo: Path) -> None:
    from memx_cli.store import memory as memfmt

    records = [dict(r, id=new_id(1_780_000_000_000 + n)) for n, r in enumerate(SHAPES)]
    payload = repo / "records.jsonl"
    payload.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records))
    assert memx.ok("import", "--raw", str(payload)) == f"Imported {len(records)} memories\n"
    for record in records:
        data = (repo / ".memx" / "memories" / f"{record['id']}.yaml").read_bytes()
        mem = memfmt.load(data)
        assert data == memfmt.yaml_dump(mem.to_dict()).encode("utf-8")
        assert mem.content == record["content"]
    assert memx("validate").code == 0


def test_a_bad_field_is_named_on_either_path(memx: Memx, repo: Path) -> None:
    payload = repo / "records.jsonl"
    for content in ("one line", "two\nlines"):
        payload.write_text(json.dumps({"content": content, "section": "nowhere"}))
        result = memx("import", "--raw", str(payload))
        assert (result.code, result.err) == (
            2, "memx: error: import: record 1: field 'section': expected one of commands, "
               "debugging, architecture, workflow, tools, patterns, preferences, general, got "
               "'nowhere'\n")
    assert list((repo / ".memx" / "memories").glob("*.yaml")) == []


def test_raw_import_stores_secrets_as_given_and_import_masks_them(memx: Memx,
                                                                 repo: Path) -> None:
    """As ``memx add --raw`` (SPEC 3: ACE off stores text as given): unchanged by the
    fast writer. Without --raw the privacy gate masks them."""
    key = "AKIA" + "QWERTYUIOPASDFGH"
    payload = repo / "records.jsonl"
    for n, flag in enumerate((["--raw"], [])):
        mid = new_id(1_780_000_000_000 + n)
        payload.write_text(json.dumps({"id": mid, "content": f"deploy uses {key} ({n})"}))
        assert memx.ok("import", *flag, str(payload)) == "Imported 1 memory\n"
        stored = (repo / ".memx" / "memories" / f"{mid}.yaml").read_text()
        expected = key if flag else "[REDACTED:aws_access_key]"
        assert f"content: deploy uses {expected} ({n})\n" in stored


def test_an_import_into_an_indexed_store_indexes_its_records_without_reading_them(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: the index update after an import takes the records it just wrote from
    memory (3,258 reads and 3,514 parses for 1,000 records before); what it indexes is
    what a full rebuild from the files indexes, neighbours in a session included."""
    from memx_cli.index import update
    from memx_cli.index.documents import stored_documents
    from memx_cli.index.lexical import LexicalIndex
    from memx_cli.store.files import Store

    records = _records(60)
    first, second = records[:25], records[25:]  # session s2 spans both imports
    payload = repo / "records.jsonl"
    payload.write_text("\n".join(json.dumps(r) for r in first))
    memx.ok("import", "--raw", str(payload))
    memx.ok("search", "service", "--mode", "keyword")  # the store is indexed
    read: list[str] = []
    real_read, real_regular = Store.read_file, update.read_regular

    def read_file(self: Store, path: Path, data: bytes | None = None) -> object:
        read.append(Path(path).stem)
        return real_read(self, path, data)

    def read_regular(path: Path, *args: object) -> bytes:
        read.append(Path(path).stem)
        return real_regular(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "read_file", read_file)
    monkeypatch.setattr(update, "read_regular", read_regular)
    payload.write_text("\n".join(json.dumps(r) for r in second))
    assert memx.ok("import", "--raw", str(payload)) == f"Imported {len(second)} memories\n"
    monkeypatch.undo()
    # Neither the records written nor the neighbours of the joined session (s2) are
    # read: those come from the index's stored documents.
    assert read == []

    def documents() -> list[object]:
        docs = stored_documents(LexicalIndex(repo / ".memx" / "cache" / "lexical"))
        return sorted(docs, key=lambda d: d.memory_id)

    imported = documents()
    assert len(imported) == len(records)
    memx.ok("reindex", "--full")
    assert documents() == imported


def test_neighbours_the_index_lacks_are_read_from_their_files(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Control for the test above: a neighbour whose stored document cannot be used
    (here: none can) is read from its file, and the index is the same as a rebuild's."""
    from memx_cli.index import documents, sync
    from memx_cli.index.lexical import LexicalIndex
    from memx_cli.store.files import Store

    records = _records(40)
    payload = repo / "records.jsonl"
    payload.write_text("\n".join(json.dumps(r) for r in records[:15]))
    memx.ok("import", "--raw", str(payload))
    memx.ok("search", "service", "--mode", "keyword")
    read: list[str] = []
    real_read = Store.read_file

    def read_file(self: Store, path: Path, data: bytes | None = None) -> object:
        read.append(Path(path).stem)
        return real_read(self, path, data)

    monkeypatch.setattr(Store, "read_file", read_file)
    monkeypatch.setattr(sync, "stored_memories", lambda lexical, ids: {})
    payload.write_text("\n".join(json.dumps(r) for r in records[15:]))
    memx.ok("import", "--raw", str(payload))
    monkeypatch.undo()
    # s1 (records 10-19) spans both imports: its stored members whose text a document
    # indexed again holds are read (13 and 14 are indexed again, with 15-19; their
    # context reaches back to 11); the group's order takes 10's time from the index.
    assert sorted(read) == sorted(str(r["id"]) for r in records[11:15])

    def documents_now() -> list[object]:
        docs = documents.stored_documents(LexicalIndex(repo / ".memx" / "cache" / "lexical"))
        return sorted(docs, key=lambda d: d.memory_id)

    imported = documents_now()
    memx.ok("reindex", "--full")
    assert documents_now() == imported


def test_stored_memories_are_the_memories_of_the_files(memx: Memx, repo: Path) -> None:
    """What the index hands back for a neighbour equals its file, field by field
    (anchors, feedback, entities, lists, a multi-line text); a document that does not
    check as a memory is left out, for its file to be read."""
    from memx_cli.index.documents import stored_memories
    from memx_cli.index.lexical import LexicalIndex
    from memx_cli.store.files import Store
    from memx_cli.store.memory import load

    (repo / "app.py").write_text("def main():\n    return 1\n")
    memx.ok("add", "--raw", "main returns one\nsee app.py", "--tag", "a", "--tag", "b",
            "--anchor", "app.py:1-2")
    rich = {"id": new_id(1_780_000_000_000), "content": "retry the deploy twice",
            "entities": ["deploy"], "tools": ["kubectl"], "feedback": {"helpful": 2, "harmful": 1},
            "source": {"type": "transcript", "session": "s9", "turn": 3},
            "valid_until": "2030-01-01T00:00:00Z", "domain": "ops"}
    payload = repo / "rich.json"
    payload.write_text(json.dumps([rich]))
    memx.ok("import", "--raw", str(payload))
    memx.ok("search", "deploy", "--mode", "keyword")
    store = Store(repo / ".memx", "project")
    files = {p.stem: load(p.read_bytes()) for p in store.memories_dir.glob("*.yaml")}
    lexical = LexicalIndex(store.cache_dir / "lexical")
    assert len(files) == 2
    assert stored_memories(lexical, files) == files
    assert any(m.anchors for m in files.values())
    assert files[str(rich["id"])].feedback == {"helpful": 2, "harmful": 1}
    # A document whose fields do not check (a kind no memory has) is not handed back.
    import tantivy

    writer = lexical.index.writer(heap_size=15_000_000, num_threads=1)
    from memx_cli.index.keys import memory_key

    bad = dict(stored_memories(lexical, [str(rich["id"])])[str(rich["id"])].to_dict())
    bad.pop("schema")
    bad["kind"] = 7
    writer.delete_documents_by_term("id", str(rich["id"]))
    doc = tantivy.Document()
    doc.add_unsigned("key", memory_key(str(rich["id"])))
    doc.add_text("id", str(rich["id"]))
    doc.add_bytes("doc", json.dumps(bad).encode())
    writer.add_document(doc)
    writer.commit()
    lexical.refresh()
    assert set(stored_memories(lexical, files)) == set(files) - {str(rich["id"])}


@pytest.mark.parametrize("name_bytes", [1, 10**9])  # look each id up / list the folders
def test_stored_ids_are_skipped_whether_looked_up_or_listed(
        memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch, name_bytes: int) -> None:
    """An import skips the records whose id is stored, live or archived, the same way
    whichever look the folder sizes choose (issue 29: per id into a large store)."""
    from memx_cli.operations import transfer

    monkeypatch.setattr(transfer, "NAME_BYTES", name_bytes)
    records = _records(6)
    payload = repo / "records.jsonl"
    payload.write_text("\n".join(json.dumps(r) for r in records[:3]))
    memx.ok("import", "--raw", str(payload))
    archive = repo / ".memx" / "archive"  # as archiving leaves it
    archive.mkdir(exist_ok=True)
    name = f"{records[0]['id']}.yaml"
    (repo / ".memx" / "memories" / name).rename(archive / name)
    payload.write_text("\n".join(json.dumps(r) for r in records))
    assert memx.ok("import", "--raw", str(payload)) == (
        "Imported 3 memories, 3 already present\n")
    live = sorted(p.stem for p in (repo / ".memx" / "memories").glob("*.yaml"))
    assert live == sorted(str(r["id"]) for r in records[1:])


# Runs `memx import` in process and lists which of some modules it loaded.
LOADED = ("import sys\nfrom memx_cli.cli import main\n"
          "try:\n    main(sys.argv[1:])\nexcept SystemExit as exc:\n    assert not exc.code, exc\n"
          "sys.stderr.write('LOADED ' + ' '.join(m for m in ('memx_cli.anchors.auto',"
          " 'memx_cli.operations.instructions') if m in sys.modules) + '\\n')\n")


def test_a_raw_import_loads_no_anchoring_or_markdown_module(memx: Memx,
                                                                   repo: Path) -> None:
    """Issue 29: a raw import into an indexed store neither anchors nor reads Markdown,
    and no longer imports the modules that do (~15 ms a process); the ACE import
    (anchors) and a Markdown import (the reader) are the controls."""
    payload = repo / "records.jsonl"
    payload.write_text("\n".join(json.dumps(r) for r in _records(12)))
    notes = repo / "NOTES.md"
    notes.write_text("# Build\n\n- Always run the linter before pushing.\n")
    memx.ok("import", "--raw", str(payload))
    memx.ok("search", "service", "--mode", "keyword")  # the store is indexed
    env = {**os.environ, "MEMX_NO_SERVER": "1"}

    def loaded(*argv: str) -> set[str]:
        """The modules of interest ``memx *argv`` loaded (it imported what it was given)."""
        done = subprocess.run([sys.executable, "-c", LOADED, *argv], cwd=repo, env=env,
                              capture_output=True, text=True, check=True)
        assert done.stdout.startswith("Imported 1 memor" if "--raw" not in argv
                                      or argv[-1].endswith(".md") else "Imported 12 ")
        line = [x for x in done.stderr.splitlines() if x.startswith("LOADED")][-1]
        return set(line.split()[1:])

    more = repo / "more.jsonl"
    more.write_text("\n".join(json.dumps({**r, "id": new_id(1_790_000_000_000 + n)})
                              for n, r in enumerate(_records(12))))
    assert loaded("import", "--raw", str(more)) == set()
    ace = repo / "ace.jsonl"
    ace.write_text(json.dumps({"content": "the nightly backup runs at 2h on host db1"}))
    assert "memx_cli.anchors.auto" in loaded("import", str(ace))
    assert "memx_cli.operations.instructions" in loaded("import", "--raw", str(notes))
