"""A value that is an identifier with digits joined by hyphens, dots, underscores or a
colon (a cloud region, a zone, an instance type, an image tag, a VM size): two texts
whose only difference is such a value after the same words are a value change, never a
copy; the same value in other words is still one statement (curator/statement.py
``identifier_change``, curator/text.py ``identifiers``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memx_cli.curator.contradiction import detect
from memx_cli.curator.statement import identifier_change
from memx_cli.curator.text import identifiers
from memx_cli.operations.write import write
from memx_cli.store.records import build
from memx_cli.store.repo import Repo

from .conftest import Memx

DATA = Path(__file__).parent / "data"


def test_identifiers_need_letters_and_digits_joined() -> None:
    text = ("AWS_REGION is eu-west-1, FROM node:18-alpine on t3.medium; read-only x86 "
            "v2.4.1 1.5s PAY-12 2024-01-05 https://x.io/eu-west-2 a/b-3 Standard_D4s_v3.")
    assert [x for x, _ in identifiers(text)] == ["eu-west-1", "node:18-alpine", "t3.medium",
                                                 "standard_d4s_v3"]


@pytest.mark.parametrize(("old", "new", "clear"), [
    ("AWS_REGION is eu-west-1 for the production account",
     "AWS_REGION is us-east-1 for the production account", False),
    ("The GKE cluster runs in zone europe-west4-b",
     "The GKE cluster now runs in zone us-central1-a", True),
    ("CI runners use t3.medium instances", "CI runners use m5.large instances", False),
    ("The build agent VM size is Standard_D4s_v3",
     "The build agent VM size is Standard_D8s_v3", False),
    ("Builds use the VM size Standard_D4s_v3", "Builds use the VM size Standard_D8s_v3", False),
    ("Backups are copied to ap-southeast-2",
     "Backups are copied to ap-southeast-1 from now on", True),
    ("DATABASE_URL points to localhost:5432 in the dev setup",
     "DATABASE_URL points to db:5432 in the dev setup", False),
    # a host before a shared port is the value, not a subject ahead of the head "5432"
    ("The dev database listens on localhost:5432", "The dev database listens on db:5432", False),
    ("Redis runs at cache:6379", "Redis runs at localhost:6379", False),
])
def test_a_changed_identifier_value_contradicts(old: str, new: str, clear: bool) -> None:
    found = detect(old, new)
    assert found is not None and found.kind == "value" and found.clear is clear


@pytest.mark.parametrize(("old", "new"), [
    # the identifier is what the text is about: it opens it or has a predicate after it
    ("worker-1 restarts nightly after the deploy", "worker-2 restarts nightly after the deploy"),
    ("Logs from node-3 are shipped to Loki", "Logs from node-4 are shipped to Loki"),
    # the cue is in another clause
    ("Deploys go to production. eu-west-1 hosts the primary database",
     "Deploys go to production. us-east-1 hosts the primary database"),
    # other words differ too: two statements
    ("The api runs in eu-west-1", "The batch jobs run in us-east-1"),
    # the same identifier on both sides
    ("AWS_REGION is eu-west-1 for the production account",
     "The production account uses AWS_REGION eu-west-1"),
])
def test_no_identifier_change(old: str, new: str) -> None:
    assert identifier_change(old, new) is None


@pytest.mark.parametrize(("old", "new"), [
    # two services, each at its own host: two statements, not a changed address
    ("The staging database is at staging-db:5432", "The prod database is at prod-db:5432"),
    ("The auth service listens on auth:8080", "The billing service listens on billing:8080"),
])
def test_hosts_of_two_things_do_not_contradict(old: str, new: str) -> None:
    assert detect(old, new) is None


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("AWS_REGION is eu-west-1 for the production account",
     "AWS_REGION is us-east-1 for the production account", "conflicts with"),
    ("The Dockerfile builds from node:20-alpine", "The Dockerfile now builds from node:20-slim",
     "supersedes"),
    # two things named by identifiers: added beside, not merged
    ("eu-west-1 hosts the primary database", "us-east-1 hosts the primary database", "added"),
    # controls: a paraphrase keeping the value, and hyphenated words without digits
    ("CI runners use t3.medium instances", "The CI runners use t3.medium instances",
     ("skipped", "merged into")),
    ("The replica database is read-only for application users",
     "For application users the replica database is read-only", ("skipped", "merged into")),
])
def test_write_path(memx: Memx, repo: Path, old: str, new: str,
                    expected: str | tuple[str, ...]) -> None:
    store = Repo(repo)
    write(store, [build(old, created_at="2026-01-01T00:00:00Z")])
    [result] = write(store, [build(new)])
    assert result.action in ((expected,) if isinstance(expected, str) else expected)


@pytest.mark.parametrize(("name", "allowed"), [("curator_pairs_idvalues_dev.jsonl", 0),
                                               ("curator_pairs_idvalues_heldout.jsonl", 3)])
def test_labelled_identifier_pairs(memx: Memx, repo: Path, name: str, allowed: int) -> None:
    """No pair of the family is merged away; the tuning half is all right, skip and merge
    counted as one (the held-out half was written before the rule and measured once)."""
    same = {"skip": "merge"}
    actions = {"added": "independent", "skipped": "skip", "merged into": "merge",
               "supersedes": "supersede", "conflicts with": "conflict"}
    store = Repo(repo)
    lost, wrong = [], []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        pair = json.loads(line)
        shutil.rmtree(repo / ".memx" / "memories")
        (repo / ".memx" / "memories").mkdir()
        write(store, [build(pair["old"], created_at="2026-01-01T00:00:00Z")])
        [result] = write(store, [build(pair["new"])])
        got = same.get(actions[result.action], actions[result.action])
        if pair["expected"] in ("supersede", "conflict") and got == "merge":
            lost.append(pair["id"])
        if got != same.get(pair["expected"], pair["expected"]):
            wrong.append(pair["id"])
    assert lost == []
    assert len(wrong) <= allowed, wrong
