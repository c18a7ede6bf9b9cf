"""Secrets by the name they are given: ``PASSWORD_PROD=…``, ``dbPass: …``,
``<password>…</password>``, ``ENV API_KEY …`` (issue 12, second round).

A key name is read as words (``X_API_KEY_OLD`` → x, api, key, old; ``webhookSecretV2`` →
webhook, secret, v2; ``PGPASSWORD`` → pgpassword, which ends in "password"), so the
credential word may stand anywhere, in any case style. Two kinds of word decide:

- a *credential* word (password, pass, pwd, secret, token, credentials, pin, auth, …)
  makes the value a secret if it is written out (``shape.literal``); ``key`` alone is
  weaker (primary key, cache key): its value must also look random;
- a *property* word says the setting is about the credential, not the credential itself
  (``PASSWORD_MIN_LENGTH``, ``token_ttl``, ``API_KEY_HEADER``, ``DB_PASSWORD_FILE``): no
  secret then, whatever the value.
"""

from __future__ import annotations

import functools
import re

from memx_cli.privacy import shape

CREDENTIAL = frozenset((
    "password", "passwords", "passwd", "pass", "pwd", "pw", "passphrase", "passcode", "secret",
    "secrets", "token", "tokens", "credential", "credentials", "creds", "apikey", "pin",
    "auth", "oauth", "privatekey", "secretkey", "accesskey", "sas"))
# a compound word ending in one of these is a credential word too (pgpassword, mytoken)
STEMS = ("password", "passwd", "passphrase", "secret", "token", "apikey", "pwd")
WEAK = frozenset(("key", "keys", "session", "sessionid", "cookie"))
# names under which a plain word is still a secret (``password: postgres``); a plain word
# given to ``secrets``, ``second_pass`` or ``tokens`` is a setting or a type
WORDS_OK = ("password", "passwd", "pwd", "passphrase", "passcode", "pin")
# words naming a property of the credential when they follow its word (PASSWORD_MIN_LENGTH,
# token_ttl, API_KEY_HEADER, DB_PASSWORD_FILE, auth_user) ...
PROPERTY = frozenset((
    "length", "len", "ttl", "expiry", "expires", "expiration", "exp", "lifetime", "timeout",
    "age", "rounds", "iterations", "cost", "days", "hours", "minutes", "seconds", "secs",
    "ms", "interval", "rotation", "policy", "strength", "complexity", "hashed", "hasher",
    "hashers", "algorithm", "algo", "alg", "type", "types", "kind", "method", "methods",
    "mode", "format", "required", "require", "enabled", "enable", "disabled", "disable",
    "allow", "allowed", "file", "files", "path", "dir", "env", "var", "name", "names",
    "header", "field", "param", "prefix", "suffix", "hint", "id", "ids", "url", "uri",
    "endpoint", "host", "port", "limit", "size", "bits", "version", "regex", "pattern",
    "label", "placeholder", "helper", "command", "cmd", "location", "user", "username",
    "login", "email", "issuer", "audience", "scope", "scopes", "realm", "provider",
    "backend", "strategy", "scheme", "encoding", "charset", "prompt", "stdin", "input",
    "validator", "validation", "error", "message", "text", "description", "help", "reset",
    "forgot", "flow", "page", "form", "route", "link", "usage", "used", "source", "store",
    "ref", "manager", "service", "vault", "meter", "check", "checker", "bucket", "limiter",
    "generator", "length"))
# ... and wherever they stand (max_tokens, public_key, cache_key, password_hash)
QUALITY = frozenset((
    "min", "max", "minimum", "maximum", "num", "number", "count", "public", "cache",
    "primary", "foreign", "sort", "partition", "idempotency", "lookup", "tokenizer", "hash",
    "csrf"))
# ENV/setx/set -x NAME VALUE; an XML element; a name="…" value="…" pair; auth=("u", "p")
_KEY = r"[A-Za-z_][A-Za-z0-9_.-]*"
# a bare value holds no "=" but its base64 padding: "Cookie: sid=X" is read at "sid"
# quoted (a Python b''/r'' prefix; backticks; quotes escaped inside JSON) or bare
_VALUE = (r"(?:[bru]{1,2})?\"([^\"\n]*)\"|(?:[bru]{1,2})?'([^'\n]*)'|`([^`\n]*)`"
          r"|\\\"([^\"\\\n]*)\\\"|([^\s\"',;&`)\]}\\=]+(?:=+(?=[\s\"',;&`)\]}]|$))?)")
# only names holding a credential word are read as keys, so a value that holds an
# assignment of its own ({"content": "DB_PASSWORD=..."}) is still read for it
_CANDIDATE = r"(?=[\w.-]*?(?i:pass|pwd|pw|secret|token|key|cred|auth|pin|sas|session|cookie))"
# (speed) a word start followed by a separator, before the slower scan for the word
# (a subscript's key too: app.config['SECRET_KEY'] = ..., ENV["API_TOKEN"] = ...)
_SEPARATED = r"(?=[\w$])(?<![\w.-])(?=(?:\$env:)?[\w.-]++[\"']?\]?[ \t]*(?::=|=>|=|:)(?![=:/]))"
ASSIGNMENT = re.compile(
    _SEPARATED + r"(?:\$env:)?" + _CANDIDATE + "(" + _KEY
    + r")[\"']?\]?[ \t]*(?::=|=>|=|:)(?![=:/])[ \t]*(?:"
    + _VALUE + r")")
# an environment variable's name (upper case), so "set password strict" stays prose
DECLARATION = re.compile(
    r"(?=[EAs])(?<![\w-])(?:ENV|ARG|setx|set(?:\s+-[A-Za-z]+)?)[ \t]+" + _CANDIDATE
    + r"([A-Z_][A-Z0-9_]*)[ \t]+(?:" + _VALUE + r")(?=\s|$)")
ELEMENT = re.compile(r"<(" + _KEY + r")>([^<\s]{1,500})</\1>")
# name="ApiKey" value="…" (XML), - name: DB_PASSWORD / value: … (k8s env), {"name": …,
# "value": …} (JSON): the name on one side, the value on the other
PAIR = re.compile(r"(?i)(?=[kn])\b(?:key|name)[\"']?\s*[=:]\s*[\"']?(" + _KEY
                  + r")[\"']?\s*,?\s*[\"']?value[\"']?\s*[=:][ \t]*(?:" + _VALUE + ")")
# "set JWT_SECRET to X", "rotated DB_PASSWORD to X": a key name in prose
PROSE = re.compile(r"(?=[scru])\b(?:set|changed?|rotated?|updated?|reset)\s+(?:the\s+)?" + _CANDIDATE
                   + r"([A-Za-z_][A-Za-z0-9_.-]*[_.-][A-Za-z0-9_.-]+)\s+to\s+(?:" + _VALUE + ")")
NETRC = re.compile(r"(?i)\b(?:login|user)\s+\S+\s+(password|passwd)\s+(\S+)")
AUTH_TUPLE = re.compile(r"(?i)\b((?:\w*auth|credentials))\s*(?:=\s*)?\(\s*([\"'])[^\"'\n]*\2"
                        r"\s*,\s*(?:\"([^\"\n]+)\"|'([^'\n]+)')")
_ASSIGNED = re.compile(r"[A-Za-z_][\w.-]*=(?=[^=])")
GUARD = ("pass", "pwd", "pw", "secret", "token", "key", "cred", "auth", "pin", "sas", "session",
         "cookie")


@functools.lru_cache(maxsize=2048)  # names repeat (every .env has DB_PASSWORD)
def words(key: str) -> tuple[str, ...]:
    """``X_API_KEY_OLD`` → [x, api, key, old]; ``webhookSecretV2`` → [webhook, secret, v2]."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return tuple(w for w in re.split(r"[\s_.\-:$]+", spaced.lower()) if w)


# a file's name is not a setting's: "next-auth.d.ts: `declare module ...`" (an edit shown
# after the file it changed), "auth.py: line 12"
_FILE_NAME = re.compile(r"\.(?:[cm]?[jt]sx?|py|pyi|json|ya?ml|toml|md|txt|go|rs|java|kt|rb"
                        r"|php|sh|cfg|ini|conf|lock|html|css|xml|sql|c|h|cc|cpp|hpp|swift)$",
                        re.IGNORECASE)


@functools.lru_cache(maxsize=2048)
def strength(key: str) -> int:
    """2: a credential's name; 1: a key's name (the value must look random); 0: neither."""
    if _FILE_NAME.search(key):
        return 0
    found = words(key)
    strong = [i for i, w in enumerate(found) if w in CREDENTIAL or w.endswith(STEMS)]
    weak = [i for i, w in enumerate(found) if w in WEAK]
    last = max(strong + weak, default=-1)
    if last < 0 or any(w in QUALITY for w in found) \
            or any(w in PROPERTY for w in found[last + 1:]):
        return 0
    return 2 if strong else 1


def secret_value(key: str, value: str) -> bool:
    """The value given to ``key`` is a secret worth masking."""
    level = strength(key)
    if not level or not shape.literal(value, words(key) + ("your", "my")) \
            or _ASSIGNED.match(value):
        return False  # an assignment inside the value is read on its own (rescan)
    if level == 1:
        return shape.looks_random(value, 12, hex_ok=True)
    says_password = any(w.endswith(WORDS_OK) for w in words(key))
    if shape.is_word(value) and not says_password:
        return False
    if value.isdigit():  # a PIN; the numbers of a setting (tokens: 12000) are not
        return len(value) >= 4 and says_password
    return True


def check_assignment(match: re.Match[str]) -> bool:
    """Key in group 1, the value in the last group that matched."""
    return secret_value(match.group(1), match.group(match.lastindex or 0))


def check_netrc(match: re.Match[str]) -> bool:
    return shape.literal(match.group(2), ("password", "passwd"))
