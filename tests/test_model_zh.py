"""The bundled model's Chinese words (issue 16): segmentation, meaning, English untouched,
and an index built with another model re-embeds when the model changes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from memx_cli.embed import StaticEncoder, _read_safetensors, bundled_model_path, load_encoder
from tests.conftest import Memx

HAN = ("\u3400", "\u4dbf"), ("\u4e00", "\u9fff"), ("\uf900", "\ufaff")


def _has_han(text: str) -> bool:
    return any(lo <= ch <= hi for ch in text for lo, hi in HAN)


def _tokens(text: str) -> list[str]:
    enc = load_encoder(None)
    assert isinstance(enc, StaticEncoder)
    return enc._tokenizer.encode(text, add_special_tokens=False).tokens


def test_a_chinese_run_is_cut_into_words() -> None:
    pieces = [t for t in _tokens("修复数据库迁移中的不稳定测试") if t != "\ue000"]
    assert pieces == ["##修复", "##数据库", "##迁移", "##中", "##的", "##不", "##稳定", "##测试"]


def test_mixed_text_keeps_english_words_whole() -> None:
    tokens = _tokens("修复flaky测试，用pytest")
    assert "[UNK]" not in tokens
    base = _base_tokenizer()
    english = [t for word in ("flaky", "，", "pytest") for t in base.encode(word, add_special_tokens=False).tokens]
    assert [t for t in tokens if not _has_han(t) and t != "\ue000"] == english


def _base_tokenizer() -> Tokenizer:
    """The bundled vocabulary with the plain BERT normalizer and pre-tokenizer it was distilled with."""
    tok = json.loads((bundled_model_path() / "tokenizer.json").read_text(encoding="utf-8"))
    bert = tok["normalizer"]["normalizers"][0]
    tok["normalizer"] = dict(bert, handle_chinese_chars=True)
    tok["pre_tokenizer"] = tok["pre_tokenizer"]["pretokenizers"][1]
    tok["model"]["max_input_chars_per_word"] = 100
    tokenizer = Tokenizer.from_str(json.dumps(tok))
    tokenizer.no_truncation()
    return tokenizer


def test_text_without_han_characters_tokenizes_as_before() -> None:
    from tests.test_embed import SAMPLE

    texts = [t for t in SAMPLE if not _has_han(t)] + ["データベースのいこう", "데이터베이스 마이그레이션", "〇 marker"]
    assert not any(_has_han(t) for t in texts) and len(texts) > 15
    base = _base_tokenizer()
    enc = load_encoder(None)
    assert isinstance(enc, StaticEncoder)
    enc._tokenizer.no_truncation()
    try:
        for text in texts:
            assert enc._tokenizer.encode(text, add_special_tokens=False).ids == \
                base.encode(text, add_special_tokens=False).ids, text
    finally:
        assert enc.max_length is not None
        enc._tokenizer.enable_truncation(enc.max_length)


def test_the_run_marker_has_a_zero_row() -> None:
    enc = load_encoder(None)
    assert isinstance(enc, StaticEncoder)
    marker = enc._tokenizer.token_to_id("\ue000")
    assert marker is not None and not enc._embedding[marker].any()


def test_chinese_meaning_without_shared_words() -> None:
    enc = load_encoder(None)
    memories = ["部署前必须先运行数据库迁移脚本", "图片上传的大小上限是十兆", "周五下午不允许发布到生产环境",
                "the deploy script runs database migrations first"]
    vecs = enc.encode(memories + ["上线之前要先更新表结构", "database schema changes before release"])
    sims = vecs[4:] @ vecs[:4].T
    # A Chinese paraphrase with no word in common, and the same meaning asked in English.
    assert sims[0, 0] > max(sims[0, 1], sims[0, 2])
    assert sims[1, 0] > max(sims[1, 1], sims[1, 2])


FACTS = ["数据库连接池大小设置为50，否则高峰期会超时", "前端使用pnpm安装依赖，不要用npm",
         "Logging goes through structlog; never call print in library code"]


def _zero_han_rows(model: Path) -> None:
    """Make ``model`` a copy whose Chinese rows are zero: Chinese texts get no meaning."""
    from safetensors.numpy import save_file

    tok = json.loads((model / "tokenizer.json").read_text(encoding="utf-8"))
    emb = np.array(_read_safetensors((model / "model.safetensors").read_bytes())["embeddings"])
    for token, row in tok["model"]["vocab"].items():
        if _has_han(token):
            emb[row] = 0
    save_file({"embeddings": emb}, str(model / "model.safetensors"))


def test_a_changed_model_re_embeds_the_store(memx: Memx, tmp_path: Path) -> None:
    model = tmp_path / "model"
    shutil.copytree(bundled_model_path(), model)
    _zero_han_rows(model)
    memx.ok("config", "set", "embedding.model", str(model), "--local")
    for text in FACTS:
        memx.ok("add", text)

    def semantic_layer() -> float:
        # A fresh process, as after an upgrade (this one keeps the model it loaded).
        proc = subprocess.run([sys.executable, "-m", "memx_cli", "search", "数据库连接超时", "--json", "--explain"],
                              cwd=memx.cwd, capture_output=True, text=True, check=True)
        out = json.loads(proc.stdout)
        assert out["results"][0]["content"] == FACTS[0]
        return float(out["results"][0]["explain"]["layers"]["semantic"] or 0.0)

    assert semantic_layer() == 0.0  # the old model gave Chinese no vector at all
    shutil.rmtree(model)
    shutil.copytree(bundled_model_path(), model)  # same path, same size: a new model all the same
    assert semantic_layer() > 0.5


def test_a_han_run_past_the_limit_or_with_an_unknown_character_is_dropped_alone() -> None:
    enc = load_encoder(None)
    assert isinstance(enc, StaticEncoder)
    rare = "\u4db5"
    assert enc._tokenizer.token_to_id("##" + rare) is None
    vecs = enc.encode(["修" * 300 + "，数据库", "测试" + rare + "，数据库", "，数据库"])
    assert vecs[2].any()
    assert np.array_equal(vecs[0], vecs[2]) and np.array_equal(vecs[1], vecs[2])


STORE = ["生产环境的密钥放在保险库里，不能写进代码仓库", "内存泄漏是因为事件监听器没有被移除",
         "所有时间戳都以UTC存储，只在显示时转换为本地时间", "前端使用pnpm安装依赖，不要用npm",
         "分支合并前至少需要两个人审查代码", "图片上传的大小上限是十兆",
         "The deploy script runs database migrations first", "Logging goes through structlog; never call print"]


def test_a_chinese_paraphrase_finds_its_memory_in_a_real_store(memx: Memx) -> None:
    for text in STORE:
        memx.ok("add", text)
    # Paraphrases that share no word with their memory: only the vectors can connect them.
    for query, wanted in (("密码和令牌应该保存在哪", STORE[0]), ("用户能传多大的照片", STORE[5])):
        out = json.loads(memx.ok("search", query, "--json", "--explain"))
        top = out["results"][0]
        assert top["content"] == wanted, query
        assert not top["explain"]["layers"]["keyword"], query
        assert top["explain"]["layers"]["semantic"] > 0, query
