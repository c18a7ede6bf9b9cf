"""Provider key formats beyond the ones patterns.py names, and the shapes that catch the
providers nobody listed (issue 12, second round).

Formats are public facts (a prefix, an alphabet, a length). The generic shapes carry the
weight for unknown vendors:

- a *prefixed token*: a short vendor prefix ending in ``_`` or ``-`` (``dckr_pat_``,
  ``figd_``, ``pscale_pw_``, ``sq0atp-``, ``NRAK-``) and a random body of 20+ characters
  (12+ when the prefix says live, secret, key, token, pat or pw). Hash names (``sha512-``)
  are not prefixes, and a lowercase-hex body needs an underscore or upper-case prefix (a
  ``cache-<hex>`` name is a digest);
- a *dotted token*: three random segments joined by dots (bot tokens, signed cookies);
- a *URL path token*: a random path segment of 32+ characters (webhook URLs carry their
  secret there); hex segments are commits and digests, and stay;
- a *long token*: 40+ random characters standing alone, unless a label says digest or
  public key (``sha256:``, ``integrity``, ``h1:``, ``ssh-ed25519``) or it is a path.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memx_cli.privacy import shape

Check = Callable[[re.Match[str]], bool]

_HASHES = frozenset(("sha1", "sha224", "sha256", "sha384", "sha512", "md5", "blake2b",
                     "blake3", "xxh64", "crc32", "h1"))
_SECRETISH = frozenset(("live", "prod", "secret", "sk", "rk", "key", "pat", "token", "tok",
                        "pw", "api", "priv", "sec", "auth"))


def _prefixed(match: re.Match[str]) -> bool:
    prefix, body = match.group(1), match.group(2)
    segments = [s for s in re.split(r"[_-]", prefix.lower()) if s]
    if not segments or segments[0] in _HASHES:
        return False
    hex_body = re.fullmatch(r"[0-9a-f]+", body) is not None
    if hex_body and not (prefix.endswith("_") or prefix[:-1].isupper()):
        return False
    shortest = 12 if _SECRETISH & set(segments) else 20
    return shape.looks_random(body, shortest, hex_ok=True)


def _dotted(match: re.Match[str]) -> bool:
    first, _, rest = match.group(0).partition(".")
    last = rest.rpartition(".")[2]
    return shape.looks_random(first, 20) and shape.looks_random(last, 20)


def _path_token(match: re.Match[str]) -> bool:
    return shape.looks_random(match.group(1), 32)


# what labels a long base64 run as a digest or a public key, not a secret
_LABELLED = re.compile(r"(?i)(?:sha\d*|md5|h1|integrity|ssh-\w+|ecdsa[\w-]*|base64|checksum|digest"
                       r"|fingerprint|hash|etag|nonce)[\s\"':=,-]{0,3}$")


def _long_token(match: re.Match[str]) -> bool:
    """40+ random characters standing alone: a key of a vendor nobody listed."""
    token = match.group(0)
    if re.search(r"(?:^|/)[a-z]{3,}(?:/|$)", token):
        return False  # a path: var/lib/docker/overlay2/<digest>/merged
    before = match.string[max(0, match.start() - 24):match.start()]
    return shape.looks_random(token, 40) and not _LABELLED.search(before)


# (kind, regex, group, check, guard)
MORE: tuple[tuple[str, str, int, Check | None, str], ...] = (
    ("discord_webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/"
                        r"\d+/[\w-]+", 0, None, "discord"),
    ("mapbox_token", r"\bsk\.eyJ[\w-]{20,}\.[\w-]{10,}", 0, None, "sk.eyj"),
    ("terraform_token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}", 0, None,
     ".atlasv1."),
    ("mailchimp_key", r"\b[0-9a-f]{32}-us\d{1,2}\b", 0, None, "-us"),
    ("bitbucket_token", r"\bATBB[A-Za-z0-9_=.-]{32,}", 0, None, "atbb"),
    ("braintree_token", r"\baccess_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}",
     0, None, "access_token$"),
    ("azure_client_secret", r"(?<![\w~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"
                            r"(?![\w~.-])", 0, None, "q~"),
    ("doppler_token", r"\bdp\.(?:st|ct|sa|scim|audit)\.[A-Za-z0-9_.-]{40,}", 0, None, "dp."),
    ("fcm_key", r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}", 0, None, ":apa91b"),
    ("nuget_key", r"\boy2[a-z0-9]{43}\b", 0, None, "oy2"),
    ("api_token", r"(?=[A-Za-z][A-Za-z0-9_-]{14})(?<![\w.-])([A-Za-z][A-Za-z0-9]{1,9}(?:[_-][A-Za-z0-9]{1,8}){0,2}[_-])"
                  r"([A-Za-z0-9][A-Za-z0-9_-]{11,})(?![\w-])", 0, _prefixed, "_|-"),
    ("token", r"(?=[A-Za-z0-9_-]{20})(?<![\w.-])[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}(?![\w.-])",
     0, _dotted, "."),
    ("url_token", r"\bhttps?://[^\s/?#]+/(?:[^\s/?#]+/)*?([A-Za-z0-9_-]{32,})"
                  r"(?=[/?#\s\"')]|$)", 1, _path_token, "://"),
)
# after every pattern that names a kind (bearer, password, ...): what is left of 40+
# random characters standing alone
LAST: tuple[tuple[str, str, int, Check | None, str], ...] = (
    ("token", r"(?=[A-Za-z0-9+/_-]{40})(?<![\w+=-])[A-Za-z0-9+/_-]{40,}={0,2}(?![\w+/=-])", 0,
     _long_token, "0"),
)
