"""Configuration layers (SPEC 12) and `memx config`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memx_cli import config as configmod
from memx_cli.errors import ConfigError

from .conftest import Memx


def test_defaults_match_spec() -> None:
    cfg = configmod.load(None)
    assert cfg["ace.curator.dedup_threshold"] == 0.9
    assert cfg["ace.retrieval.scope_boost"] == 1.5
    assert cfg["ace.retrieval.max_results"] == 5
    assert cfg["ace.decay.half_life"] == 30
    assert all(origin == "default" for origin in cfg.origins.values())


def test_precedence_flag_env_local_project_global(tmp_path: Path, isolated_home: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    key = "ace.retrieval.max_results"
    store = tmp_path / ".memx"
    store.mkdir()
    glob = isolated_home / "config" / "memx" / "config.yaml"
    glob.parent.mkdir(parents=True)
    glob.write_text("ace:\n  retrieval:\n    max_results: 2\n")
    assert configmod.load(store)[key] == 2
    (store / "config.yaml").write_text("ace:\n  retrieval:\n    max_results: 3\n")
    assert configmod.load(store)[key] == 3
    (store / "config.local.yaml").write_text("ace:\n  retrieval:\n    max_results: 4\n")
    assert configmod.load(store)[key] == 4
    monkeypatch.setenv("MEMX_ACE_RETRIEVAL_MAX_RESULTS", "5")
    cfg = configmod.load(store)
    assert (cfg[key], cfg.origins[key]) == (5, "env")
    cfg = configmod.load(store, {key: 6})
    assert (cfg[key], cfg.origins[key]) == (6, "flag")


def test_unknown_key_warns_and_bad_value_names_the_key(tmp_path: Path) -> None:
    store = tmp_path / ".memx"
    store.mkdir()
    (store / "config.yaml").write_text("ace:\n  retreival:\n    max_results: 3\n")
    cfg = configmod.load(store)
    assert cfg.warnings == [f"{store}/config.yaml: unknown configuration key "
                            "'ace.retreival.max_results' (ignored)"]
    (store / "config.yaml").write_text("ace:\n  curator:\n    dedup_threshold: 1.5\n")
    with pytest.raises(ConfigError) as info:
        configmod.load(store)
    assert str(info.value) == (f"{store}/config.yaml: configuration key "
                               "'ace.curator.dedup_threshold': expected a value from 0 to 1, got 1.5")


def test_bad_environment_value_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMX_ACE_REFLECTOR_MODE", "magic")
    with pytest.raises(ConfigError) as info:
        configmod.load(None)
    assert str(info.value) == ("MEMX_ACE_REFLECTOR_MODE: configuration key 'ace.reflector.mode': "
                               "expected one of rules, hybrid, llm, got 'magic'")


def test_config_cli_set_get_list_unset(memx: Memx, repo: Path) -> None:
    assert memx.ok("config", "get", "ace.retrieval.max_results") == "5\n"
    assert memx.ok("config", "set", "ace.retrieval.max_results", "8") == (
        "ace.retrieval.max_results = 8 (config.yaml)\n")
    assert "max_results: 8" in (repo / ".memx" / "config.yaml").read_text()
    memx.ok("config", "set", "--local", "ace.verification.policy", "demote")
    listed = json.loads(memx.ok("config", "list", "--json"))["config"]
    assert listed["ace.retrieval.max_results"] == {"value": 8, "origin": "project"}
    assert listed["ace.verification.policy"] == {"value": "demote", "origin": "local"}
    assert "ace.verification.policy = \"demote\"  (local)" in memx.ok("config", "list")
    memx.ok("config", "unset", "ace.retrieval.max_results")
    assert memx.ok("config", "get", "ace.retrieval.max_results") == "5\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["config", "set", "ace.retrieval.max_results", "many"],
         "memx: error: configuration key 'ace.retrieval.max_results': expected an integer, got 'many'\n"),
        (["config", "set", "ace.nope", "1"],
         "memx: error: unknown configuration key 'ace.nope'; see memx config list\n"),
        (["config", "get", "nope"],
         "memx: error: unknown configuration key 'nope'; see memx config list\n"),
    ],
)
def test_config_cli_bad_input_changes_nothing(memx: Memx, repo: Path, args: list[str],
                                              message: str) -> None:
    before = (repo / ".memx" / "config.yaml").read_bytes()
    result = memx(*args)
    assert (result.code, result.err) == (2, message)
    assert (repo / ".memx" / "config.yaml").read_bytes() == before


def test_unknown_key_in_project_config_warns_on_commands(memx: Memx, repo: Path) -> None:
    (repo / ".memx" / "config.yaml").write_text("colour: blue\n")
    result = memx("add", "x")
    assert result.code == 0
    assert result.err == (f"memx: warning: {repo}/.memx/config.yaml: unknown configuration key "
                          "'colour' (ignored)\n")


def test_ace_disabled_in_config_stores_verbatim(memx: Memx) -> None:
    memx.ok("config", "set", "ace.enabled", "false")
    out = json.loads(memx.ok("add", "-", "--json", input="  spaced  "))
    assert out["memory"]["content"] == "  spaced  "


COMMENTED = """\
# Team settings: reviewed in pull requests.
ace:
  # how many results an agent sees
  retrieval:
    max_results: 8   # agents read fewer
    fusion: blended
  curator:
    conflict_band:
      - 0.5
      - 0.8
    # keep the better of two duplicates
    merge_strategy: keep_best

# the model
embedding.model: bundled
"""


@pytest.mark.parametrize("key, value, shown, expected", [
    ("ace.retrieval.max_results", "12", "12",
     COMMENTED.replace("max_results: 8   #", "max_results: 12   #")),
    ("embedding.model", "bundled", "bundled", COMMENTED),
    ("ace.curator.conflict_band", "[0.4, 0.7]", "[0.4, 0.7]",
     COMMENTED.replace("conflict_band:\n      - 0.5\n      - 0.8\n",
                       "conflict_band: [0.4, 0.7]\n")),
    # a key not there yet goes into the mapping that exists (no second top-level 'ace')
    ("ace.decay.half_life", "10", "10.0",
     COMMENTED.replace("    merge_strategy: keep_best\n",
                       "    merge_strategy: keep_best\n  decay:\n    half_life: 10.0\n")),
    ("ace.retrieval.fusion", "polyphonic", "polyphonic",
     COMMENTED.replace("fusion: blended", "fusion: polyphonic")),
])
def test_config_set_changes_only_the_key_it_sets(memx: Memx, repo: Path, key: str, value: str,
                                                 shown: str, expected: str) -> None:
    path = repo / ".memx" / "config.yaml"
    path.write_text(COMMENTED)
    memx.ok("config", "set", key, value)
    assert path.read_text() == expected
    assert memx.ok("config", "get", key).strip() == shown


def test_config_get_prints_a_string_as_it_is_and_json_on_request(memx: Memx) -> None:
    assert memx.ok("config", "get", "ace.retrieval.fusion") == "blended\n"
    assert memx.ok("config", "get", "ace.retrieval.fusion", "--json") == "\"blended\"\n"
    assert memx.ok("config", "get", "ace.curator.dedup_threshold") == "0.9\n"


def test_config_unset_removes_only_that_key(memx: Memx, repo: Path) -> None:
    path = repo / ".memx" / "config.yaml"
    path.write_text(COMMENTED)
    memx.ok("config", "unset", "ace.retrieval.fusion")
    assert path.read_text() == COMMENTED.replace("    fusion: blended\n", "")
    memx.ok("config", "unset", "ace.curator.conflict_band")
    assert path.read_text() == COMMENTED.replace("    fusion: blended\n", "").replace(
        "    conflict_band:\n      - 0.5\n      - 0.8\n", "")
