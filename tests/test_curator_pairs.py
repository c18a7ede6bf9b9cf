"""The labelled pairs of tests/data/curator_pairs*.jsonl through the real write path
(issue 12): no contradiction is ever skipped or merged, and the decisions stay right.
bench/curator_pairs.py prints the per-category table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memx_cli.operations.write import write
from memx_cli.store.records import build
from memx_cli.store.repo import Repo

from .conftest import Memx

DATA = Path(__file__).parent / "data"
ACTIONS = {"added": "independent", "skipped": "skip", "merged into": "merge",
           "supersedes": "supersede", "conflicts with": "conflict"}
SAME = {"skip": "duplicate", "merge": "duplicate"}


# (file, most wrong decisions allowed, skip and merge counted as one): the first pair of
# files is issue 12's (>= 95%); the second was written blind for pairs nobody tuned for
# (measured at the end: dev2 117/125, heldout2 59/68); the third, of memories that differ
# in one name or one value of a named thing (walk16), was written before the names rule
# (its held-out half joined once an identifier value, "eu-west-1" / "us-east-1", stopped
# being merged); none may lose a contradiction.
@pytest.mark.parametrize(("name", "allowed"), [
    ("curator_pairs.jsonl", 1 / 20), ("curator_pairs_heldout.jsonl", 1 / 20),
    ("curator_pairs_dev2.jsonl", 1 / 10), ("curator_pairs_heldout2.jsonl", 1 / 5),
    ("curator_pairs_names_dev.jsonl", 1 / 10), ("curator_pairs_names_heldout.jsonl", 1 / 10)])
def test_labelled_pairs(memx: Memx, repo: Path, name: str, allowed: float) -> None:
    pairs = [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]
    assert len(pairs) >= 30
    store = Repo(repo)
    lost, wrong = [], []
    for pair in pairs:
        shutil.rmtree(repo / ".memx" / "memories")
        (repo / ".memx" / "memories").mkdir()
        write(store, [build(pair["old"], created_at="2026-01-01T00:00:00Z")])
        [result] = write(store, [build(pair["new"])])
        got, expected = ACTIONS[result.action], pair["expected"]
        if expected in ("supersede", "conflict") and got in SAME:
            lost.append(pair["id"])
        if SAME.get(got, got) != SAME.get(expected, expected):
            wrong.append(f"{pair['id']}: {got}")
    assert lost == []
    assert len(wrong) <= int(len(pairs) * allowed), wrong
