"""What a value looks like: random enough to be a key, a reference to one elsewhere, or a
placeholder that stands for one (issue 12, second round). Shared by the key-name, command
and phrase patterns, so "is this a secret?" has one answer whatever the context.

Random is measured, not listed: generated keys switch between upper case, lower case and
digits far more often than words and identifiers do (``kQ7vX2mZ`` against
``checkoutFlowV2``); hex needs 32 digits or more, and then only where a name or a prefix
says it is a key (a bare one is a commit or a digest).
"""

from __future__ import annotations

import base64
import binascii
import re
from itertools import pairwise

_CLASSES = (str.isupper, str.islower, str.isdigit)
# What stands for a value without being one.
PLACEHOLDERS = frozenset((
    "string", "str", "int", "bool", "bytes", "none", "null", "nil", "true", "false",
    "undefined", "optional", "required", "secretstr", "password", "passwd", "secret",
    "token", "changeme", "change_me", "example", "placeholder", "redacted", "hidden",
    "masked", "your_password", "your_token", "your_api_key", "yes", "no", "env", "value",
    "text", "bearer", "basic", "digest", "dummy", "sample", "todo", "tbd", "empty"))
# (Not "...", "…" or "***": a value that starts so and goes on is a secret's visible tail;
# a value of filler alone is a placeholder, below.)
REFERENCE_START = ("$", "%", "<", "{", "[", "(", "@", "#", "&", "!", "`",
                   "/", "./", "../", "~/")
_CODE = re.compile(r"[A-Za-z_][\w.]*[(\[]|(?:os|env|process|settings|config|self|this|import|"
                   r"ENV|secrets|vars|inputs)\.\S*|[a-z_]+(?:\.[a-z_][\w]*)+$", re.ASCII)
_WORD = re.compile(r"[A-Za-z][a-z]+")
_WORDLIKE = re.compile(r"[A-Z]?[a-z]{3,}")
_FILE = re.compile(r"[\w.-]+\.(?:json|ya?ml|txt|env|toml|ini|pem|key|crt|cer|cfg|conf|py|js|"
                   r"ts|sh|md|gpg|asc|kdbx|p12|pfx|jks|der|pub)", re.IGNORECASE)
# Whole values that stand for a key (issue 26: never a word found somewhere inside one,
# or "sk-EXAMPLEa8Kq..." and "prod-key-here-9f8Qz..." were kept in clear):
# filler alone, after at most a short prefix: xxxx, ****, ..., sk-xxxx, ghp_..., xxxx-xxxx
_FILL = r"(?:[xX]{3,}|\*{3,}|\.{3,}|…+|•+|#{3,}|_{3,}|-{3,}|0{6,}|1234(?:5678?)?9?0?)"
_FILLED = re.compile(r"(?:[A-Za-z0-9]{1,12}[-_.]){0,3}" + _FILL + r"(?:[-_.\s]*" + _FILL + ")*")
# an angle- or brace-wrapped name: <token>, <your api key>, {{API_KEY}}, [SECRET]
_WRAPPED = re.compile(r"<[^<>\n]{1,60}>|\{\{?[^{}\n]{1,60}\}?\}|\[[A-Za-z_ -]{1,40}\]")
# the words a written-out placeholder is made of (your_api_key_here, insert-token-here,
# REPLACE_WITH_YOUR_SECRET, my-password): a marker that says "put yours here", plus the
# names of what goes there
_MARKERS = frozenset(("your", "my", "here", "insert", "enter", "put", "paste", "replace",
                      "fill", "add", "example", "sample", "dummy", "fake", "placeholder",
                      "changeme", "change", "todo", "tbd", "redacted", "goes", "xxx"))
_NOUNS = frozenset(("api", "key", "keys", "token", "secret", "password", "passwd", "pass",
                    "pw", "pwd", "access", "auth", "client", "id", "app", "private",
                    "personal", "bearer", "credential", "credentials", "value", "string",
                    "with", "the", "a", "in", "me", "this", "it", "own", "real", "actual",
                    "new", "of", "to", "webhook", "account", "user", "username", "db",
                    "database", "service", "project", "org", "jwt", "session", "signing",
                    "encryption", "master", "admin", "root", "prod", "dev", "test"))


def char_class(c: str) -> int:
    for i, test in enumerate(_CLASSES):
        if test(c):
            return i
    return 3


def switches(text: str) -> float:
    """How often adjacent characters change class (upper, lower, digit, other), 0..1."""
    if len(text) < 2:
        return 0.0
    classes = [char_class(c) for c in text]
    return sum(a != b for a, b in pairwise(classes)) / (len(text) - 1)


def _syllabic(run: str) -> bool:
    """A run of letters with vowels enough to be a word ("Handler"), not "Lczbtt"."""
    return sum(c in "aeiouy" for c in run.lower()) >= max(1, len(run) // 4)


def encodes_text(value: str) -> bool:
    """Base64 of readable text (``ZXhwb3J0LTIw…`` is "export-20…"): an encoded name, not
    a generated key, whose bytes would not decode to text. (A secret inside is the base64
    pass's business: sanitizer.Sanitizer._encoded.)"""
    if len(value) < 16 or not re.fullmatch(r"[A-Za-z0-9+/_-]+={0,2}", value):
        return False
    try:
        raw = base64.b64decode(value.replace("-", "+").replace("_", "/").rstrip("=")
                               + "=" * (-len(value.rstrip("=")) % 4), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return text.isprintable()


def looks_random(value: str, min_len: int = 16, hex_ok: bool = False) -> bool:
    """A generated key: long enough, mixed classes that switch often. Lowercase hex of 32+
    counts only when the caller knows it names a key (``hex_ok``)."""
    core = re.sub(r"[^A-Za-z0-9]", "", value)
    if len(core) < min_len or encodes_text(value):
        return False
    upper = sum(c.isupper() for c in core)
    lower = sum(c.islower() for c in core)
    digits = sum(c.isdigit() for c in core)
    if re.fullmatch(r"[0-9a-f]+|[0-9A-F]+", core):
        return hex_ok and len(core) >= 32 and digits >= 4 and len(core) - digits >= 4
    if digits == 0 and (upper == 0 or lower == 0):
        return False
    if sum(len(w) for w in _WORDLIKE.findall(core) if _syllabic(w)) > 0.55 * len(core):
        return False  # mostly words: UserLogin2FAflowHandlerV3 is a name
    if upper and lower and digits:
        return switches(core) >= 0.3
    if digits == 0:  # letters only: random case, not a CamelCase word
        return switches(core) >= 0.4 and len(core) >= 20
    return switches(core) >= 0.3 and len(core) >= 20


def is_reference(value: str) -> bool:
    """A variable, an expression (a call, a subscript, an attribute), a path or a file name
    that says where the secret is."""
    return value.startswith(REFERENCE_START) or bool(_CODE.match(value)) \
        or bool(_FILE.fullmatch(value)) or bool(re.match(r"[A-Za-z]:\\", value))


def is_placeholder(value: str, words: tuple[str, ...] = ()) -> bool:
    """The WHOLE value stands for a secret: changeme, xxxx, ****, sk-xxxx, <token>,
    YOUR_API_KEY_HERE, the key's own name (``password: "password"``) or one character
    repeated. A value that merely holds such a word (``sk-EXAMPLE9fQ...``) is not one."""
    low = value.lower()
    bare = re.sub(r"[^a-z0-9]", "", low)
    if low in PLACEHOLDERS or bare in PLACEHOLDERS or len(set(bare)) <= 1:
        return True
    if _FILLED.fullmatch(value) or _WRAPPED.fullmatch(value):
        return True
    if bool(words) and bare in words:
        return True
    parts = [w for w in re.split(r"[\s_.\-]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", value)
                                 .lower()) if w]
    return bool(parts) and any(p in _MARKERS for p in parts) and all(
        p in _MARKERS or p in _NOUNS or p in words or re.fullmatch(r"x{3,}", p)
        for p in parts)


def is_word(value: str) -> bool:
    """One plain word (``write``, ``object``, ``Only``): the value of a setting, a type or
    prose; a secret only where the name says password (see keys.secret_value)."""
    return bool(_WORD.fullmatch(value))


def literal(value: str, words: tuple[str, ...] = (), min_len: int = 4) -> bool:
    """A value written out, not a reference or a placeholder."""
    return len(value) >= min_len and not is_reference(value) \
        and not is_placeholder(value, words)
