"""The lean encoder reproduces model2vec on the bundled model, and fails in one way."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memx_cli import embed
from memx_cli.embed import StaticEncoder, bundled_model_path, load_encoder
from memx_cli.errors import ModelUnavailableError

SAMPLE = [
    "hello world",
    "The quick brown fox jumps over the lazy dog.",
    "How do I rebase a branch onto main without losing my local commits?",
    "def load_encoder(spec: str | None) -> Encoder:",
    "parseHttpResponseHeaders snake_case_identifier kebab-case-name",
    "memx_cli/embed.py:42: ModelUnavailableError",
    "SELECT id, title FROM memories WHERE score > 0.5 ORDER BY score DESC;",
    "我们在周一讨论了数据库迁移的计划",
    "修复 flaky 测试：等待异步任务完成后再断言，不要用sleep",  # Chinese words and English (issue 16)
    "\ue000 〇修\ue000复 \u4db5测试",  # the run marker and a character outside the vocabulary
    "数据库" * 100,  # a Han run past WordPiece's per-word limit
    "データベースの移行",
    "Ünïcödé àccents and ÉMOJI 🚀 mixed in",
    "",
    "   \t\n  ",
    "\u2603\u2603 \u2603",  # snowmen: unknown to the vocabulary, all dropped
    "[UNK]",
    "42 3.14159 0xdeadbeef 1e-9",
    "Use `git worktree add ../wt feature` to check out a second branch.",
    "a",
    "zzzzqqqqxxxx",
    # Long texts: past 512 tokens, and past model2vec's 512 * median-token-length character cut.
    "cache invalidation is hard " * 300,
    "internationalization " * 250,
    "x " * 600 + "database migration " * 200,  # the 512-token cut drops every word but "x"
    "\u2603 " * 510 + "alpha beta gamma delta",  # unknown tokens count toward the cut before being dropped
]


@pytest.fixture(scope="module")
def reference() -> object:
    """model2vec's own loader on the bundled model (the behaviour to reproduce)."""
    model2vec = pytest.importorskip("model2vec")
    return model2vec.StaticModel.from_pretrained(bundled_model_path())


def _unit_rows(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    return x / (np.linalg.norm(x, axis=1, keepdims=True) + 1e-32)


def _bundled() -> StaticEncoder:
    enc = load_encoder(None)
    assert isinstance(enc, StaticEncoder)
    return enc


def _copy_model(tmp_path: Path) -> Path:
    dest = tmp_path / "model"
    shutil.copytree(bundled_model_path(), dest)
    return dest


def _assert_unavailable(spec: str, match: str) -> None:
    embed._CACHE.clear()
    with pytest.raises(ModelUnavailableError) as info:
        load_encoder(spec)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("embedding model unavailable (")
    assert message.endswith("); searching by keyword only")
    assert re.search(match, message), message


def test_bundled_model_files_are_present() -> None:
    path = bundled_model_path()
    for name in ("config.json", "model.safetensors", "tokenizer.json", "README.md", "LICENSE"):
        assert (path / name).is_file(), name
    config = json.loads((path / "config.json").read_text())
    assert config["hidden_dim"] == 256
    assert config["embedding_dtype"] == "int8"
    assert config["normalize"] is True
    assert not re.search(r"/(work|home|root|tmp|usr)/|site-packages", (path / "config.json").read_text())


def test_matches_model2vec_on_bundled_model(reference: object) -> None:
    enc = load_encoder(None)
    ours = enc.encode(SAMPLE)
    theirs = _unit_rows(reference.encode(SAMPLE))  # type: ignore[attr-defined]
    assert ours.shape == theirs.shape == (len(SAMPLE), 256)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-5)


def test_sample_exercises_truncation_and_unknown_tokens(reference: object) -> None:
    """Guards the test above: the sample must hit the character cut, the token cut and unk dropping."""
    ref = reference
    enc = _bundled()
    for text in SAMPLE[-4:]:
        cut = ref.encode([text])  # type: ignore[attr-defined]
        uncut = ref.encode([text], max_length=None)  # type: ignore[attr-defined]
        assert not np.allclose(cut, uncut), text[:30]
    # the character cut alone changes "internationalization ..." (it has far fewer than 512 tokens)
    assert len(enc.tokenize(["internationalization " * 250])[0]) < 512
    # the token cut: 600 "x" tokens come first
    assert enc.tokenize([SAMPLE[-2]])[0] == [enc.tokenize(["x"])[0][0]] * 512
    # 510 unknown tokens use up the budget, so only "alpha beta" survive
    assert enc.tokenize([SAMPLE[-1]]) == enc.tokenize(["alpha beta"])
    # unknown-only and empty texts have no tokens left
    assert enc.tokenize(["\u2603\u2603 \u2603", "[UNK]", ""]) == [[], [], []]


def test_shape_dtype_and_norms() -> None:
    enc = load_encoder(None)
    out = enc.encode(SAMPLE)
    assert out.dtype == np.float32
    assert out.shape == (len(SAMPLE), enc.dim)
    norms = np.linalg.norm(out, axis=1)
    empty = {SAMPLE.index(t) for t in ("", "   \t\n  ", "\u2603\u2603 \u2603", "[UNK]", "数据库" * 100)}
    for i, norm in enumerate(norms):
        if i in empty:
            assert norm == 0.0, SAMPLE[i]
        else:
            assert abs(norm - 1.0) < 1e-5, SAMPLE[i]
    assert enc.encode([]).shape == (0, enc.dim)
    with pytest.raises(TypeError):
        enc.encode("not a list")


def test_batch_and_single_agree() -> None:
    enc = load_encoder(None)
    batch = enc.encode(SAMPLE)
    singles = np.vstack([enc.encode([t]) for t in SAMPLE])
    np.testing.assert_allclose(batch, singles, rtol=0, atol=1e-6)
    # similar texts are closer than unrelated ones
    a, b, c = enc.encode(["merge conflict in git", "resolving git merge conflicts", "chocolate cake recipe"])
    assert float(a @ b) > float(a @ c) + 0.2


def test_model_id_and_cache(tmp_path: Path) -> None:
    embed._CACHE.clear()
    bundled = load_encoder(None)
    assert load_encoder("bundled") is bundled
    assert load_encoder(None) is bundled
    assert re.fullmatch(r"bundled:[0-9a-f]{16}", bundled.model_id)

    copy = _copy_model(tmp_path)
    local = load_encoder(str(copy))
    assert local is not bundled
    assert local.model_id == "path:" + bundled.model_id.split(":")[1]

    config = json.loads((copy / "config.json").read_text())
    config["max_length"] = 8
    (copy / "config.json").write_text(json.dumps(config))
    changed = StaticEncoder(copy)
    assert changed.model_id != local.model_id
    assert changed.max_length == 8


def test_max_length_from_config(tmp_path: Path) -> None:
    model2vec = pytest.importorskip("model2vec")
    copy = _copy_model(tmp_path)
    config = json.loads((copy / "config.json").read_text())
    config["max_length"] = 8
    (copy / "config.json").write_text(json.dumps(config))
    ours = StaticEncoder(copy)
    assert max(len(ids) for ids in ours.tokenize(SAMPLE)) == 8
    theirs = model2vec.StaticModel.from_pretrained(copy)
    np.testing.assert_allclose(ours.encode(SAMPLE), _unit_rows(theirs.encode(SAMPLE)), rtol=0, atol=1e-5)


def test_local_model_with_mapping_weights_and_no_truncation(tmp_path: Path) -> None:
    """A float32 model with a token mapping and per-token weights (model2vec's vocabulary-quantized form)."""
    model2vec = pytest.importorskip("model2vec")
    from safetensors.numpy import save_file

    copy = _copy_model(tmp_path)
    vocab = json.loads((copy / "tokenizer.json").read_text())["model"]["vocab"]
    rng = np.random.default_rng(7)
    clusters = 300
    save_file(
        {
            "embeddings": rng.standard_normal((clusters, 32)).astype(np.float32),
            "mapping": rng.integers(0, clusters, size=len(vocab)).astype(np.int64),
            "weights": rng.uniform(0.1, 2.0, size=len(vocab)).astype(np.float64),
        },
        str(copy / "model.safetensors"),
    )
    config = json.loads((copy / "config.json").read_text())
    config.update(max_length=None, normalize=False, embedding_dtype="float32", hidden_dim=32)
    (copy / "config.json").write_text(json.dumps(config))

    ours = StaticEncoder(copy)
    assert ours.dim == 32 and ours.max_length is None
    theirs = model2vec.StaticModel.from_pretrained(copy)
    np.testing.assert_allclose(ours.encode(SAMPLE), _unit_rows(theirs.encode(SAMPLE)), rtol=0, atol=1e-5)


def test_special_tokens_are_not_added(tmp_path: Path, reference: object) -> None:
    """model2vec encodes without special tokens, even when the tokenizer's post-processor would add them."""
    copy = _copy_model(tmp_path)
    tok = json.loads((copy / "tokenizer.json").read_text())
    tok["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[PAD]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"[PAD]": {"id": "[PAD]", "ids": [0], "tokens": ["[PAD]"]}},
    }
    (copy / "tokenizer.json").write_text(json.dumps(tok))
    ours = StaticEncoder(copy)
    assert ours.tokenize(["hello"]) == _bundled().tokenize(["hello"])
    np.testing.assert_allclose(ours.encode(SAMPLE[:5]), _bundled().encode(SAMPLE[:5]), rtol=0, atol=1e-6)


def test_nonexistent_path(tmp_path: Path) -> None:
    _assert_unavailable(str(tmp_path / "missing"), r"missing: no such directory")
    _assert_unavailable("./definitely/not/here", r"no such directory")


def test_not_a_directory(tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    _assert_unavailable(str(f), r"not a directory")


def test_missing_files(tmp_path: Path) -> None:
    copy = _copy_model(tmp_path)
    (copy / "tokenizer.json").unlink()
    _assert_unavailable(str(copy), r"expected config\.json, model\.safetensors and tokenizer\.json")


@pytest.mark.parametrize(
    "damage, match",
    [
        (lambda b: b[: len(b) // 2], r"truncated"),
        (lambda b: b[:5], r"truncated"),
        (lambda b: b[:8] + b"\xff" * 32 + b[40:], r"header is not JSON"),
        (lambda b: b"", r"truncated"),
    ],
    ids=["half", "tiny", "garbled-header", "empty"],
)
def test_corrupt_safetensors(tmp_path: Path, damage: object, match: str) -> None:
    copy = _copy_model(tmp_path)
    data = (copy / "model.safetensors").read_bytes()
    (copy / "model.safetensors").write_bytes(damage(data))  # type: ignore[operator]
    _assert_unavailable(str(copy), match)


def test_corrupt_tokenizer_and_config(tmp_path: Path) -> None:
    copy = _copy_model(tmp_path)
    (copy / "tokenizer.json").write_text("{not json")
    _assert_unavailable(str(copy), r"model")
    copy2 = _copy_model(tmp_path / "b")
    (copy2 / "config.json").write_text("[]")
    _assert_unavailable(str(copy2), r"config\.json is not a JSON object")


def test_rows_must_match_vocabulary(tmp_path: Path) -> None:
    from safetensors.numpy import save_file

    copy = _copy_model(tmp_path)
    save_file({"embeddings": np.zeros((10, 256), dtype=np.int8)}, str(copy / "model.safetensors"))
    tokens = len(json.loads((copy / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"])
    _assert_unavailable(str(copy), rf"{tokens} tokens but 10 embedding rows")


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_unreadable_model_dir(tmp_path: Path) -> None:
    copy = _copy_model(tmp_path)
    (copy / "model.safetensors").chmod(0)
    try:
        try:
            (copy / "model.safetensors").read_bytes()
        except PermissionError:
            pass
        else:
            pytest.skip("running with privileges that ignore file permissions (root)")
        _assert_unavailable(str(copy), r"permission denied")
        copy.chmod(0)
        _assert_unavailable(str(copy), r"permission denied")
    finally:
        copy.chmod(0o755)
        (copy / "model.safetensors").chmod(0o644)


def test_hub_failure_is_model_unavailable(tmp_path: Path) -> None:
    """An id that is not a local path goes to model2vec's hub loader; offline, that fails cleanly."""
    pytest.importorskip("model2vec")
    code = (
        "from memx_cli.embed import load_encoder\n"
        "from memx_cli.errors import ModelUnavailableError\n"
        "try:\n"
        "    load_encoder('memx-test-nobody/no-such-model')\n"
        "except ModelUnavailableError as e:\n"
        "    print('UNAVAILABLE', e)\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True,
                          env=env, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("UNAVAILABLE embedding model unavailable (memx-test-nobody/no-such-model: ")


def test_import_is_lean() -> None:
    code = (
        "import sys\n"
        "import memx_cli.embed\n"
        "heavy = sorted(m for m in ('numpy', 'tokenizers', 'model2vec', 'safetensors') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_the_model_file_reader_matches_the_safetensors_package() -> None:
    """memx reads model.safetensors itself (faster on a cold start, see embed.py); it must
    read exactly what the reference implementation reads."""
    from safetensors.numpy import load_file

    from memx_cli.embed import _read_safetensors

    path = bundled_model_path() / "model.safetensors"
    ours = _read_safetensors(path.read_bytes())
    reference = load_file(str(path))
    assert sorted(ours) == sorted(reference)
    for name, tensor in reference.items():
        assert ours[name].dtype == tensor.dtype and ours[name].shape == tensor.shape, name
        assert np.array_equal(ours[name], tensor), name


def test_whole_counts_the_words_the_vocabulary_holds_as_one_token() -> None:
    enc = load_encoder(None)
    assert isinstance(enc, StaticEncoder)
    assert enc.whole(["battery", "drain", "overnight"]) == 3
    # controls: a word of a language the model has few tokens of, an identifier, and a
    # word of no token at all come apart or are dropped
    assert enc.whole(["menjalankan", "ConnectionTimeoutError", "\x00"]) == 0
    assert enc.whole([]) == 0
