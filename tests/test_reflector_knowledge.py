"""Preference, Convention, Decision (issue 13): stated knowledge, each a Rule record with
its section, type and decay; a convention is a fact with a policy suggestion, never a
policy by itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from memx_cli import config as configmod
from memx_cli.decay.curve import DecayCurves
from memx_cli.reflector import reflect_text
from memx_cli.reflector.pipeline import Item
from memx_cli.reflector.rules import RULES

from .conftest import Memx


def one(text: str) -> Item:
    items = reflect_text(text)
    assert len(items) == 1, items
    return items[0]


@pytest.mark.parametrize(("text", "rule", "words"), [
    ("I prefer tabs over spaces in Go files.", "Preference", "tabs"),
    ("以后给我写测试的时候请用 pytest 风格的函数，不要用 unittest 的类。", "Preference", "pytest"),
    ("Je préfère que les messages de commit soient en anglais.", "Preference", "anglais"),
    ("저는 변수 이름을 줄여 쓰지 않는 걸 선호해요. usr 말고 user 로 써 주세요.", "Preference", "user 로"),
    ("Our convention: every public function needs a docstring with an example.", "Convention",
     "docstring"),
    ("このリポジトリでは、ブランチ名は feature/チケット番号 の形式にするルールです。", "Convention",
     "feature/"),
    ("Team rule: no direct pushes to main; everything goes through a PR.", "Convention",
     "through a PR"),
    ("We decided to use Postgres advisory locks because the Redis locks lost jobs on failover.",
     "Decision", "advisory locks because"),
    ("最后决定用 SQLite 做本地缓存，而不是 LevelDB，因为标准库自带 sqlite3。", "Decision", "SQLite"),
    ("認証は Keycloak を使うことに決めました。SSO 対応が必要だからです。", "Decision", "Keycloak"),
])
def test_each_kind_is_found_with_its_words(text: str, rule: str, words: str) -> None:
    item = one(text)
    assert item.rule == rule and words in item.content


@pytest.mark.parametrize("text", [
    "Do you prefer Vim or Emacs?",
    "I like how fast the new CI runners are.",
    "we should probably decide between Redis and Memcached at some point.",
    "npm install --prefer-offline finished in 12s",
    "The team is off on Friday.",
])
def test_questions_likes_and_undecided_talk_are_not_knowledge(text: str) -> None:
    assert reflect_text(text) == []


def test_the_assistant_does_not_state_the_team_s_rules() -> None:
    doc = [{"role": "user", "content": "how should I name branches?"},
           {"role": "assistant", "content": "Our convention: branch names are feature/<ticket>."}]
    assert reflect_text(json.dumps(doc), fmt="json") == []


def test_each_kind_has_its_record_section_type_and_slow_decay() -> None:
    assert {n: (r.section, r.type, r.memory_type) for n, r in RULES.items()
            if n in ("Preference", "Convention", "Decision")} == {
        "Preference": ("preferences", "preference", "preference"),
        "Convention": ("patterns", "convention", "convention"),
        "Decision": ("architecture", "decision", "decision")}
    curves = DecayCurves.from_config(configmod.load(None, {}))
    year = 365.0
    assert curves.weight(None, year, 0) < 0.001  # a log line is long gone after a year
    assert curves.weight("decision", year, 0) > 0.7  # a decision is not
    assert curves.weight("convention", year, 0) == pytest.approx(0.5)
    custom = configmod.load(None, {"ace.decay.types": {"decision": {"half_life": 10}}})
    assert DecayCurves.from_config(custom).weight("decision", 10, 0) == pytest.approx(0.5)


def test_ingested_kinds_are_facts_with_their_type_and_a_policy_suggestion(
        memx: Memx, repo: Path) -> None:
    (repo / "notes.txt").write_text(
        "Our convention: every public function needs a docstring with an example.\n\n"
        "We decided to use Postgres advisory locks because the Redis locks lost jobs.\n")
    memx.ok("ingest", "notes.txt")
    found = {m["memory_type"]: m for m in (
        yaml.safe_load(p.read_text()) for p in (repo / ".memx" / "memories").glob("*.yaml"))}
    assert set(found) == {"convention", "decision"}
    convention, decision = found["convention"], found["decision"]
    assert (convention["kind"], convention["section"], convention["type"]) == (
        "fact", "patterns", "convention")
    assert convention["tags"] == ["convention", "policy-suggestion"]
    assert "active" not in convention  # a suggestion for review, not a policy
    assert (decision["kind"], decision["section"], decision["type"], decision["tags"]) == (
        "fact", "architecture", "decision", ["decision"])
    assert decision["veracity"] == "stated"


@pytest.mark.parametrize(("text", "words"), [
    ("that is not correct, we don't squash-merge pull requests in this project",
     "we don't squash-merge"),
    ("please note in CLAUDE.md that we should always run `make fmt` before `make lint`",
     "we should always run"),
])
def test_a_correction_of_the_team_s_way_is_a_convention(text: str, words: str) -> None:
    item = one(text)
    assert (item.rule, words in item.content) == ("Convention", True)


def test_we_dont_without_a_correction_is_no_convention() -> None:
    assert reflect_text("I know I asked for the note, but we don't need it three times :P") == []


SCENARIOS = ("Please write down what happens in each of these cases:\n"
             "1. Job starts, writes rows, job finishes, operator exports the table\n"
             "2. Job starts, writes rows, job fails halfway, nothing is exported\n"
             "3. Job starts, writes rows, job finishes, operator decided to split the export "
             "into monthly files\n")


def test_a_case_among_parallel_list_items_decides_nothing() -> None:
    """Items that open alike are cases to describe; "operator decided to split" in one of
    them is what happens in the case, not the speaker's decision."""
    assert reflect_text(SCENARIOS) == []


@pytest.mark.parametrize("text", [
    # the same decision said outside the list
    SCENARIOS + "\nWe decided to split the export into monthly files because one file is "
                "too large.",
    # items that do not open alike are statements of their own
    "Notes from the meeting:\n1. Exports stay nightly\n2. We decided to split the export "
    "into monthly files\n3. Alerts go to the data channel\n",
])
def test_a_decision_outside_a_list_of_cases_is_kept(text: str) -> None:
    assert one(text).rule == "Decision"
