"""A change to a source group rewrites the text documents of the changed memories and of
the neighbours whose context window it moves, not the whole group (issue 29): a turn
appended to a long session rewrote every turn of it. What the index holds afterwards is
what a full rebuild from the files holds."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from memx_cli.index.documents import stored_documents
from memx_cli.index.lexical import IndexDoc, LexicalIndex
from memx_cli.store.ids import new_id

from .conftest import Memx

START = 1_780_000_000_000


def _turns(numbers: range, session: str = "long") -> list[dict[str, object]]:
    """Turns of one session, a minute apart, each with a word of its own (w007)."""
    return [{"id": new_id(START + n), "content": f"turn w{n:03d} of the deploy talk",
             "created_at": f"2026-05-01T{n // 60:02d}:{n % 60:02d}:00Z",
             "source": {"type": "transcript", "session": session}} for n in numbers]


def _import(memx: Memx, repo: Path, records: list[dict[str, object]]) -> None:
    payload = repo / "records.jsonl"
    payload.write_text("\n".join(json.dumps(r) for r in records))
    memx.ok("import", "--raw", str(payload))


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The ids of the text documents the index writes."""
    ids: list[str] = []
    real = LexicalIndex.apply

    def apply(self: LexicalIndex, remove_ids: Sequence[str], add: Sequence[IndexDoc]) -> None:
        ids.extend(d.memory_id for d in add)
        real(self, remove_ids, add)

    monkeypatch.setattr(LexicalIndex, "apply", apply)
    yield ids


def _index(repo: Path) -> tuple[list[IndexDoc], dict[str, list[int]]]:
    """The stored documents, and per turn word the documents whose context holds it."""
    lexical = LexicalIndex(repo / ".memx" / "cache" / "lexical")
    docs = sorted(stored_documents(lexical), key=lambda d: d.memory_id)
    words = {d.content.split()[1] for d in docs}
    context = {w: sorted(lexical.search([w], [("context", 1.0)], 100, True)) for w in words}
    return docs, context


def _same_as_rebuilt(memx: Memx, repo: Path) -> None:
    now = _index(repo)
    assert any(now[1].values())  # the context field is searched, not empty
    memx.ok("reindex", "--full")
    assert _index(repo) == now


@pytest.mark.parametrize("times", ["rows", "documents", "none"])
def test_turns_appended_to_a_session_rewrite_only_their_neighbours(
        memx: Memx, repo: Path, written: list[str], monkeypatch: pytest.MonkeyPatch,
        times: str) -> None:
    """The session's order takes the other turns' times from their manifest rows (issue
    29: no stored document fetched for them), else from the index's documents (rows
    without a time, as moved from a JSON manifest), and only the turns whose text a
    rewritten document holds are made memories (checked field by field); control:
    without the times, every turn is."""
    from memx_cli.index import manifest, sync

    first = _turns(range(30))
    _import(memx, repo, first)
    memx.ok("search", "deploy", "--mode", "keyword")  # the store is indexed
    written.clear()
    loaded: list[str] = []
    real = sync.stored_memories

    def stored_memories(lexical: LexicalIndex, ids: Sequence[str]) -> object:
        loaded.extend(ids)
        return real(lexical, ids)

    dated: list[str] = []
    real_times = sync.stored_times

    def stored_times(lexical: LexicalIndex, ids: Sequence[str]) -> object:
        dated.extend(ids)
        return real_times(lexical, ids) if times != "none" else {}

    monkeypatch.setattr(sync, "stored_memories", stored_memories)
    monkeypatch.setattr(sync, "stored_times", stored_times)
    if times != "rows":
        real_state = manifest._state
        monkeypatch.setattr(manifest, "_state", lambda row: real_state(row)._replace(
            created=None))
    appended = _turns(range(30, 33))
    _import(memx, repo, appended)
    monkeypatch.undo()
    # The three new turns and the two last ones, whose context now holds new turns.
    assert sorted(written) == sorted(str(r["id"]) for r in first[-2:] + appended)
    # Turns 28 and 29 are rewritten: their context reaches back to 26.
    assert sorted(loaded) == sorted(str(r["id"]) for r in first[0 if times == "none" else 26:])
    # The rows' times leave no stored document to fetch for the order.
    assert (dated == []) is (times == "rows")
    _same_as_rebuilt(memx, repo)


def test_a_turn_inserted_mid_session_rewrites_two_on_each_side(
        memx: Memx, repo: Path, written: list[str]) -> None:
    """Control: the window around a change in the middle of the order, and a record of
    no session, which rewrites only itself."""
    turns = _turns(range(0, 40, 2))  # even minutes
    _import(memx, repo, turns)
    memx.ok("search", "deploy", "--mode", "keyword")
    written.clear()
    inserted = _turns(range(21, 22))  # between minutes 20 and 22
    alone = {"id": new_id(START + 500), "content": "the cache is cleared nightly"}
    _import(memx, repo, [*inserted, alone])
    neighbours = [str(r["id"]) for r in turns[9:13]]  # minutes 18, 20, 22, 24
    assert sorted(written) == sorted([*neighbours, str(inserted[0]["id"]), str(alone["id"])])
    _same_as_rebuilt(memx, repo)


def test_a_moved_and_a_removed_turn_rewrite_their_old_and_new_neighbours(
        memx: Memx, repo: Path, written: list[str]) -> None:
    """A file edited behind memx (a turn's time moved to the session's end) and one
    deleted: the next read rewrites the windows around their old places (from the
    index's old documents) and the new one, and no other turn."""
    turns = _turns(range(20))
    _import(memx, repo, turns)
    memx.ok("search", "deploy", "--mode", "keyword")
    written.clear()
    memories = repo / ".memx" / "memories"
    moved = memories / f"{turns[5]['id']}.yaml"
    moved.write_text(moved.read_text().replace("2026-05-01T00:05:00Z", "2026-05-01T00:59:00Z"))
    (memories / f"{turns[12]['id']}.yaml").unlink()
    memx.ok("search", "deploy", "--mode", "keyword")
    around = [3, 4, 5, 6, 7, 10, 11, 13, 14, 18, 19]  # old places of 5 and 12, 5's new one
    assert sorted(written) == sorted(str(turns[n]["id"]) for n in around)
    _same_as_rebuilt(memx, repo)


def test_without_the_old_documents_the_whole_group_is_rewritten(
        memx: Memx, repo: Path, written: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Control: where the index cannot give a moved turn's old version, its old place is
    unknown and every turn of the session is written again, as before."""
    from memx_cli.index import sync

    turns = _turns(range(12))
    _import(memx, repo, turns)
    memx.ok("search", "deploy", "--mode", "keyword")
    written.clear()
    monkeypatch.setattr(sync, "stored_memories", lambda lexical, ids: {})
    (repo / ".memx" / "memories" / f"{turns[3]['id']}.yaml").unlink()
    memx.ok("search", "deploy", "--mode", "keyword")
    assert sorted(written) == sorted(str(r["id"]) for r in turns if r is not turns[3])
    monkeypatch.undo()
    _same_as_rebuilt(memx, repo)


def _vectors(repo: Path) -> dict[int, list[float]]:
    from memx_cli.index.vectors import VectorIndex

    lexical = LexicalIndex(repo / ".memx" / "cache" / "lexical")
    keys = [d.key for d in stored_documents(lexical)]
    found = VectorIndex(repo / ".memx" / "cache" / "vectors.usearch").get(keys)
    return {key: [round(float(x), 5) for x in found[key]] for key in sorted(found)}


@pytest.mark.parametrize("model_loaded", [False, True])
def test_vectors_of_a_partial_batch_are_those_of_a_rebuild(
        memx: Memx, repo: Path, written: list[str], model_loaded: bool,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A vector mixes its adjacent neighbours' own embeddings: a batch of some members
    (a turn inserted, one appended; embedded by the next semantic search, or by the
    import itself when its process has the model loaded) embeds their unchanged
    neighbours beside it, and every vector equals a full rebuild's."""
    from memx_cli import embed

    turns = _turns(range(0, 40, 2))
    _import(memx, repo, turns)
    memx.ok("search", "deploy", "--mode", "hybrid")  # the vectors are built
    written.clear()
    monkeypatch.setattr(embed, "is_loaded", lambda spec: model_loaded)
    _import(memx, repo, [*_turns(range(21, 22)), *_turns(range(50, 51))])
    # The inserted turn and two on each side, the appended one and the last two.
    assert len(written) == 5 + 3
    monkeypatch.undo()
    memx.ok("search", "deploy", "--mode", "hybrid")
    now = _vectors(repo)
    assert len(now) == len(turns) + 2
    memx.ok("reindex", "--full")
    assert _vectors(repo) == now
