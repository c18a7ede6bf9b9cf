"""The bundled model's tokenizer for ASCII text, without the tokenizers library (issue 29).

Building the bundled tokenizer with ``tokenizers.Tokenizer.from_str`` costs ~35 ms of
CPU, nearly all of it the 51,311-entry vocabulary, plus ~8 ms for the import: a fifth of
a cold ``memx add``, whose Curator embeds a few dozen short texts. For text made only of
printable ASCII, tabs and line breaks, that tokenizer (a Sequence of BertNormalizer with
lowercasing and a Replace that marks Han runs; a Split on those marks, then
BertPreTokenizer; WordPiece with ``##`` continuations) comes down to: lowercase, split
on whitespace, isolate each ASCII punctuation or symbol character, then WordPiece's
greedy longest match. That is what this module does, over the vocabulary's ASCII tokens
read from ``ascii.vocab`` (made from ``model/tokenizer.json`` by ``scripts/ascii_vocab.py``;
a sorted list searched by bisection, ~1 ms to load). Any other text (and text holding an added token such as ``[UNK]``, which the real
tokenizer matches before normalizing) goes to the real
tokenizer (``embed.StaticEncoder``), and the file is used only for a ``tokenizer.json``
whose size and sha256 its header names. tests/test_wordpiece.py compares both on
generated text.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from array import array
from bisect import bisect_left
from pathlib import Path
from typing import Any

MAGIC = b"memx-ascii-vocab-1\n"
VOCAB_FILE = Path(__file__).resolve().parent / "ascii.vocab"
# The shape of tokenizer.json this module reproduces (checked when the file is made).
NORMALIZER_PREFIX = {"type": "BertNormalizer", "clean_text": True, "lowercase": True}
# Printable ASCII, tab and line breaks: nothing BertNormalizer removes, maps or strips.
_PLAIN = re.compile(r"[\t\n\r\x20-\x7e]*")
# After lowercasing: runs of letters and digits, and each other non-space character
# (every printable ASCII character that is not a letter, digit or space is punctuation
# to BertPreTokenizer).
_PIECES = re.compile(r"[a-z0-9]+|[^a-z0-9\t\n\r ]")


def plain(text: str) -> bool:
    """Whether ``text`` is one this module tokenizes exactly as the real tokenizer."""
    return _PLAIN.fullmatch(text) is not None


class AsciiWordPiece:
    """Token ids of ASCII text, as the tokenizer the vocabulary file was made from."""

    def __init__(self, header: dict[str, Any], tokens: list[str], ids: array) -> None:
        self.vocab_size = int(header["vocab_size"])
        self.unk_id = int(header["unk_id"])
        self.median_token_length = int(header["median_token_length"])
        self._max_chars = int(header["max_input_chars_per_word"])
        self._prefix = str(header["prefix"])
        self._added = tuple(str(t) for t in header["added"])
        self._tokens = tokens
        self._ids = ids

    @classmethod
    def for_tokenizer(cls, tokenizer_json: bytes, path: Path = VOCAB_FILE) -> AsciiWordPiece | None:
        """The vocabulary file's tokenizer when it was made from ``tokenizer_json``, else
        None (another model, a changed file, no file, a damaged one)."""
        try:
            data = path.read_bytes()
            if not data.startswith(MAGIC):
                return None
            end = data.index(b"\n", len(MAGIC))
            header = json.loads(data[len(MAGIC):end])
            if (header.get("size") != len(tokenizer_json)
                    or header.get("sha256") != hashlib.sha256(tokenizer_json).hexdigest()):
                return None
            count = int(header["tokens"])
            start = end + 1
            ids = array("I")
            ids.frombytes(data[start:start + 4 * count])
            if sys.byteorder != "little":
                ids.byteswap()
            blob = data[start + 4 * count:]
            if len(blob) != int(header["length"]) or len(ids) != count:
                return None
            tokens = blob.decode("ascii").split("\n")
            if len(tokens) != count:
                return None
            return cls(header, tokens, ids)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def plain(self, text: str) -> bool:
        """Plain ASCII without an added token ("[UNK]" in the text is that token for
        the library, matched before any normalizing): tokenized here exactly."""
        return plain(text) and not any(token in text for token in self._added)

    def _id(self, piece: str) -> int | None:
        tokens = self._tokens
        at = bisect_left(tokens, piece)
        return self._ids[at] if at < len(tokens) and tokens[at] == piece else None

    def _word(self, word: str, out: list[int]) -> None:
        """WordPiece's greedy longest match; a word with a part no token covers (or
        longer than ``max_input_chars_per_word``) is one unknown token."""
        if len(word) > self._max_chars:
            out.append(self.unk_id)
            return
        found: list[int] = []
        start, size = 0, len(word)
        while start < size:
            end = size
            while end > start:
                piece = word[start:end] if start == 0 else self._prefix + word[start:end]
                token = self._id(piece)
                if token is not None:
                    found.append(token)
                    break
                end -= 1
            else:
                out.append(self.unk_id)
                return
            start = end
        out.extend(found)

    def encode(self, text: str) -> list[int]:
        """The ids of ``text`` (``plain`` text only), unknown tokens included."""
        out: list[int] = []
        for word in _PIECES.findall(text.lower()):
            self._word(word, out)
        return out


def build(tokenizer_json: bytes) -> bytes:
    """The vocabulary file for ``tokenizer_json`` (scripts/ascii_vocab.py writes it);
    ValueError when the tokenizer is not of the shape this module reproduces."""
    spec = json.loads(tokenizer_json)
    normalizers = spec["normalizer"]["normalizers"]
    bert = normalizers[0]
    if any(bert.get(k) != v for k, v in NORMALIZER_PREFIX.items()) or bert.get("strip_accents") not in (None, True):
        raise ValueError("not a lowercasing BertNormalizer")
    if spec["pre_tokenizer"]["pretokenizers"][-1] != {"type": "BertPreTokenizer"}:
        raise ValueError("not a BertPreTokenizer")
    model = spec["model"]
    if model["type"] != "WordPiece":
        raise ValueError("not a WordPiece model")
    vocab: dict[str, int] = model["vocab"]
    added = {t["content"]: t["id"] for t in spec.get("added_tokens", [])}
    everything = {**vocab, **added}
    lengths = sorted(len(token) for token in everything)
    mid = len(lengths) // 2
    median = lengths[mid] if len(lengths) % 2 else (lengths[mid - 1] + lengths[mid]) / 2
    ascii_tokens = sorted(t for t in vocab if plain(t) and "\n" not in t)
    header = {"size": len(tokenizer_json), "sha256": hashlib.sha256(tokenizer_json).hexdigest(),
              "vocab_size": len(everything), "unk_id": everything[model["unk_token"]],
              "median_token_length": int(median),
              "max_input_chars_per_word": int(model["max_input_chars_per_word"]),
              "prefix": model["continuing_subword_prefix"], "tokens": len(ascii_tokens),
              "added": sorted(added)}
    blob = "\n".join(ascii_tokens).encode("ascii")
    header["length"] = len(blob)
    ids = array("I", (vocab[t] for t in ascii_tokens))
    if sys.byteorder != "little":
        ids.byteswap()
    return MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + ids.tobytes() + blob
