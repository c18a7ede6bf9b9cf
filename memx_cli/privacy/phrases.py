"""Secrets said in words: "the admin password is X", "le mot de passe est X",
"数据库密码是 X", "パスワードは X です", "비밀번호는 X 입니다" (issue 12).

One mechanism for every language rather than a list of sentences: a *credential noun*
(password, token, API key, mot de passe, 密码, パスワード, 비밀번호, ...), optionally a short
qualifier ("of the admin account", "de l'admin"), a *copula* (is, was changed to, :, =,
est, ist, es, 是, 为, は, 는, ...) and then one *value* that looks like a secret: at least
six characters mixing letters with digits or symbols, not a word, a version, a path, a
URL, a file name, a variable or a placeholder. "The password is required", "le mot de
passe est requis", "密码是必填项", "パスワードは必須です" stay as they are.
"""

from __future__ import annotations

import re

NOUNS = "|".join((
    # English
    r"pass(?:word|wd|phrase|code)s?|pwd|secret(?:\s+key)?|(?:api|access|auth|bearer)\s+token"
    r"|token|api[\s_-]?key|access\s+key|credentials?|pin(?:\s+code)?",
    # French, Spanish, German
    r"mots?\s+de\s+passe|mdp|phrase\s+secr[eè]te|jeton(?:\s+d['’]acc[eè]s)?"
    r"|cl[eé]\s+(?:d['’])?api|cl[eé]\s+secr[eè]te|contrase[nñ]a|clave(?:\s+de\s+api)?"
    r"|passwort|kennwort|schl[uü]ssel",
    # Chinese, Japanese, Korean (no word boundaries: the copula follows directly)
    r"密码|口令|密钥|秘钥|令牌|api\s*密钥|パスワード|暗証番号|トークン|api\s*キー|秘密鍵"
    r"|パスフレーズ|비밀번호|패스워드|암호|토큰|api\s*키|비밀\s*키",
))
# "of the admin account", "for staging", "de l'admin", "für den Server", "的", "の"
QUALIFIER = (r"(?:\s+(?:of|for|on|de|du|des|für|del|para)(?:\s+|\s*[dl]['’])"
             r"(?:[\w'’.-]+\s*){1,3}?|\s*(?:的|の))?")
COPULA = (r"(?:\s*(?:[:：=]|->|=>)"
          r"|\s+(?:(?:is|was|are|were|has\s+been|est|était|es|era|ist|war|lautet)"
          r"(?:\s+(?:now|still|currently|maintenant|toujours|ahora|jetzt))?"
          r"(?:\s+(?:set|changed|reset|updated|rotated)\s+to)?"
          r"|(?:set|changed|reset|updated|rotated)\s+to|vaut|devient)\b"
          r"|\s*(?:是|为|為|设为|改为|设置为|は|が|는|은|이|가))")
# one token, lazily, up to trailing punctuation and then a space, the end or non-ASCII text
VALUE = r"[\"'“「]?([!-~]+?)[\"'”」]?(?=[.,;:!?)]*(?:\s|$|[^!-~]))"

# Latin nouns start at a word boundary; CJK text has none ("数据库的密码", "本番のAPIキー").
PHRASE = re.compile(r"(?:(?<![\w-])|(?<=[^\x00-\u2fff]))(?:" + NOUNS + r")" + QUALIFIER + COPULA + r"\s*" + VALUE,
                    re.IGNORECASE)
GUARD = ("pass", "pwd", "secret", "token", "key", "cred", "pin", "mot", "mdp", "jeton", "cl",
         "contrase", "clave", "wort", "schl", "密码", "口令", "密钥", "秘钥", "令牌", "パス",
         "暗証", "トークン", "キー", "秘密鍵", "비밀", "패스워드", "암호", "토큰", "키")

_SYMBOL = re.compile(r"[!#$%&*+=?@^~|/\\]")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+][\w.]+)?", re.IGNORECASE)
_FILE = re.compile(r"[\w.-]+\.(?:json|ya?ml|txt|env|toml|ini|pem|key|crt|cfg|conf|py|js|ts|sh"
                   r"|md|gpg|asc|kdbx|p12|pfx)", re.IGNORECASE)
_NOT_LITERAL = ("$", "%", "<", "{", "[", "***", "...", "`")


def secret_value(match: re.Match[str]) -> bool:
    """The value after "password is" looks like a secret, not a word or a reference."""
    value = match.group(1).rstrip(".,;:!?)")
    if len(value) < 6 or value.startswith(_NOT_LITERAL) or len(set(value)) < 3:
        return False
    if "://" in value or value.startswith(("/", "./", "~")) or _VERSION.fullmatch(value) \
            or _FILE.fullmatch(value):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    if digits and not letters:
        return len(value) >= 6 and value.isdigit()  # a PIN or a numeric code
    if not letters:
        return False
    if digits:
        return True
    # letters only, perhaps joined by - _ . : a word or a name unless a real symbol is in
    return bool(_SYMBOL.search(value))
