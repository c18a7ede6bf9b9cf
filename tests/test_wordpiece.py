"""The bundled tokenizer's ASCII half in Python (memx_cli/wordpiece.py, issue 29): the
same token ids as the tokenizers library on plain ASCII text, the library for any other
text, and the vocabulary file used only for the tokenizer.json it was made from."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from memx_cli.embed import StaticEncoder, bundled_model_path
from memx_cli.wordpiece import VOCAB_FILE, AsciiWordPiece, build, plain

TOKENIZER_JSON = bundled_model_path() / "tokenizer.json"


@pytest.fixture(scope="module")
def library() -> Tokenizer:
    tok = Tokenizer.from_file(str(TOKENIZER_JSON))
    tok.no_padding()
    tok.no_truncation()
    return tok


@pytest.fixture(scope="module")
def fast() -> AsciiWordPiece:
    found = AsciiWordPiece.for_tokenizer(TOKENIZER_JSON.read_bytes())
    assert found is not None
    return found


def test_shipped_vocabulary_is_made_from_the_bundled_tokenizer() -> None:
    assert VOCAB_FILE.read_bytes() == build(TOKENIZER_JSON.read_bytes())


# Words of the vocabulary, pieces that split, symbols, whitespace of every kind
# BertNormalizer maps, and characters glued together the way commands and errors are.
ATOMS = st.sampled_from([
    "kubectl", "rollout", "restart", "deploy/billing", "ECONNREFUSED", "127.0.0.1:5432",
    "CrashLoopBackOff", "don't", "--prefer-offline", "pool_size=50", "v3.11", "~/.config",
    "x" * 300, "ab" * 140, "Q", "the", "##", "[UNK]", "[PAD]", "a#b", "C++", "e.g.", "AB",
])
CHARS = st.characters(min_codepoint=0x20, max_codepoint=0x7E) | st.sampled_from("\t\n\r ")
ASCII = st.lists(ATOMS | st.text(CHARS, max_size=12), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(ASCII)
def test_same_ids_as_the_library(library: Tokenizer, fast: AsciiWordPiece, text: str) -> None:
    assert plain(text)
    if fast.plain(text):
        assert fast.encode(text) == library.encode(text, add_special_tokens=False).ids
    else:  # an added token in the text: the library's own matching
        assert "[UNK]" in text or "[PAD]" in text


def test_the_encoder_never_builds_the_library_for_plain_text(library: Tokenizer) -> None:
    texts = ["When pytest reports OOMKilled, the cause is usually two workers racing.",
             "Run `make release VERSION=1.2.3` before pushing;\totherwise CI fails.\r\n",
             "a.b " * 600]  # past max_length: 1,800 tokens in the first 2,048 characters
    enc = StaticEncoder(bundled_model_path())
    got = enc.encode(texts)
    assert enc._built is None
    reference = StaticEncoder(bundled_model_path())
    reference._fast = None  # the library's path, as before issue 29
    assert reference.tokenize(texts) == enc.tokenize(texts)
    assert [len(ids) for ids in enc.tokenize(texts)][2] == 512
    assert np.array_equal(reference.encode(texts), got)
    assert reference._built is not None


@pytest.mark.parametrize("text", ["Straße is a street", "部署 billing 之前先运行测试",
                                  "tab\x0bvertical", "café au lait", "null\x00byte",
                                  "an [UNK] token", "x[PAD]"])
def test_other_text_goes_through_the_library(library: Tokenizer, fast: AsciiWordPiece,
                                             text: str) -> None:
    assert not fast.plain(text)
    enc = StaticEncoder(bundled_model_path())
    ids = enc.tokenize(["plain words", text])
    assert enc._built is not None
    unk = enc._unk_id
    assert ids[1] == [i for i in library.encode(text, add_special_tokens=False).ids if i != unk]


def test_a_large_batch_goes_through_the_library() -> None:
    enc = StaticEncoder(bundled_model_path())
    enc.tokenize(["short plain text"] * 64)
    assert enc._built is None
    enc.tokenize(["short plain text"] * 65)
    assert enc._built is not None


def test_another_tokenizer_does_not_use_the_file(tmp_path: Path) -> None:
    model = tmp_path / "model"
    shutil.copytree(bundled_model_path(), model)
    data = (model / "tokenizer.json").read_bytes()
    assert AsciiWordPiece.for_tokenizer(data) is not None
    (model / "tokenizer.json").write_bytes(data + b"\n")  # same tokenizer, other bytes
    enc = StaticEncoder(model)
    assert enc._fast is None and enc._built is not None
    assert enc.tokenize(["plain words"]) == StaticEncoder(bundled_model_path()).tokenize(
        ["plain words"])


def test_a_damaged_file_is_not_used(tmp_path: Path) -> None:
    data = TOKENIZER_JSON.read_bytes()
    good = VOCAB_FILE.read_bytes()
    for damaged in (b"", good[:40], good[:-3], b"other" + good[5:]):
        path = tmp_path / "ascii.vocab"
        path.write_bytes(damaged)
        assert AsciiWordPiece.for_tokenizer(data, path) is None
    path.write_bytes(good)
    assert AsciiWordPiece.for_tokenizer(data, path) is not None


@pytest.mark.parametrize(("text", "imported"), [("Run the migrations before deploy", False),
                                                ("部署之前先运行迁移", True)])
def test_a_process_embedding_plain_text_never_imports_tokenizers(text: str,
                                                                 imported: bool) -> None:
    import subprocess
    import sys

    code = ("import sys\nfrom memx_cli.embed import load_encoder\n"
            f"load_encoder(None).encode([{text!r}])\nprint('tokenizers' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == str(imported)
