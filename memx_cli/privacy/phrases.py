"""Secrets said in words: "the admin password is X", "le mot de passe est X",
"数据库密码是 X", "パスワードは X です", "a senha do banco é X", "пароль от сервера: X"
(issue 12).

One mechanism for every language rather than a list of sentences: a *credential noun*
(password, token, API key, mot de passe, senha, пароль, 密码, パスワード, 비밀번호, ...),
optionally a short qualifier ("of the admin account", "in the office", "de l'admin",
"do banco", "от сервера"), a *copula* (is, was changed to, :, =, —, est, ist, é, è, 是,
は, 는, ...) and then one *value* that looks like a secret (``secret_value``). Two more
shapes: a verb that hands the secret over with no copula ("use passphrase X", "set the
token to X", "(pwd X)"), and a login pair ("grafana login is admin / X"); with no verb or
copula at all ("token X was leaked", "пароль X") the value must look random.
"The password is required", "le mot de passe est requis", "密码是必填项" stay as they are.
"""

from __future__ import annotations

import re

from memx_cli.privacy import shape
from memx_cli.privacy.deferred import Deferred

NOUNS = "|".join((
    # English (a bare "key" needs a random-looking value: see secret_value)
    r"pass(?:word|wd|phrase|code)?s?|pwd|pw|secret(?:\s+key)?|(?:api|access|auth|bearer|session"
    r"|refresh)\s+token|token|api[\s_-]?key|access\s+key|credentials?|creds|pin(?:\s+code)?"
    r"|key|(?:one[\s-]time|otp|2fa|mfa|verification|recovery|backup)\s+codes?"
    r"|(?:otp|totp|2fa|mfa|recovery|wallet|seed)\s+(?:seed|secret|phrase)s?|otp",
    # French, Spanish, German, Portuguese, Italian
    r"mots?\s+de\s+passe|mdp|phrase\s+secr[eè]te|jeton(?:\s+d['’]acc[eè]s)?|code\s+pin"
    r"|cl[eé]\s+(?:d['’])?api|cl[eé]\s+secr[eè]te|contrase[nñ]a|clave(?:\s+de(?:\s+la)?\s+api)?"
    r"|passwort|kennwort|(?:api-)?schl[uü]ssel|pin-code|senha|chave(?:\s+d[aeo]\s+api)?"
    r"|chiave(?:\s+api)?|parola\s+d['’]ordine",
    # Russian
    r"пароль|токен(?:\s+доступа)?|ключ(?:\s+(?:api|доступа))?|пин-код",
    # a few more languages developers write in: Dutch, Swedish, Norwegian/Danish, Polish,
    # Czech, Turkish, Vietnamese, Indonesian, Finnish, Hungarian, Romanian
    r"wachtwoord|lösenord|passord|adgangskode|hasło|heslo|şifre|sifre|mật\s+khẩu"
    r"|kata\s+sandi|salasana|jelszó|parolă",
    # Chinese, Japanese, Korean (no word boundaries: the copula follows directly)
    r"密码|口令|密钥|秘钥|令牌|api\s*密钥|パスワード|暗証番号|トークン|api\s*キー|秘密鍵"
    r"|パスフレーズ|비밀번호|비번|패스워드|암호|토큰|api\s*키|비밀\s*키",
))
PIN = re.compile(r"(?i)pin|暗証|code|код")
# "of the admin account", "in the office", "de l'admin", "für den Server", "do banco"
QUALIFIER = (r"(?:\s+(?:of|for|on|in|at|to|de|du|des|für|del|della|dello|di|da|do|dos|das"
             r"|para|от|для|на)(?:\s+|\s*[dl]['’])(?:[\w'’.-]+\s*){1,6}?|\s*(?:的|の))?")
COPULA = (r"(?:\s*(?:[:：=]|->|=>|\s[—–-])"
          r"|\s+(?:(?:is|was|are|were|has\s+been|est|était|es|era|ist|war|lautet|é|è|foi"
          r"|sono|это|c['’]est|är|er|jest|là|adalah)"
          r"(?:\s+(?:now|still|currently|maintenant|toujours|ahora|jetzt|agora|ora))?"
          r"(?:\s+(?:set|changed|reset|updated|rotated)\s+to)?"
          r"|(?:(?:got|gets)\s+)?(?:set|changed|reset|updated|rotated)\s+to|became|vaut|devient)(?!\w)"
          r"|\s*(?:是|为|為|设为|改为|设置为|は|が|는|은|이|가))")
# one token, lazily, up to trailing punctuation and then a space, the end or non-ASCII text
VALUE = r"[\"'“「`]?([!-~]+?)[\"'”」`]?(?=[.,;:!?)]*(?:\s|$|[^!-~]))"
# (speed) the first letters of the nouns, tested before the slower look-behind
FIRST = r"(?=[pstabrckmjlzi(ov2whşmjlптку密口秘令パ暗トキ비패암토])"
# not inside a Latin or Cyrillic word; CJK text has no spaces, a CJK noun may follow anything
START = FIRST + r"(?<![A-Za-z0-9_\u00c0-\u024f\u0400-\u04ff-])"

# CJK nouns need no boundary ("数据库的密码", "本番のAPIキー").
# No copula at all ("token X was leaked", "пароль X"): group 2 is None, the value must
# look random.
PHRASE = Deferred(START + "(" + NOUNS + r")(?:" + QUALIFIER + "(" + COPULA + r")\s*|\s+"
                  r"|(?=[「“]))" + VALUE, re.IGNORECASE)
# "use passphrase X", "set the token to X", "try the key X", "(pwd X)"
HANDED = Deferred(r"(?=[uwtesrc(])(?:\b(?:use|using|with|try|enter|type|set|change|reset)\s+(?:(?:the|a|an"
                  r"|my|our|this|your|that)\s+)?(?:[\w-]+\s+)?|\(\s*)(" + NOUNS
                  + r")\s+(?:(?:to|as)\s+)?" + VALUE, re.IGNORECASE)
# "grafana login is admin / X", "Zugangsdaten: admin / X", "creds: qa@acme / X"
PAIR = Deferred(START + r"(login|logins|creds|credentials|zugangsdaten|identifiants"
                r"|credenciales|credenciais|credenziali|учётные\s+данные|учетные\s+данные)"
                + QUALIFIER + r"(?:" + COPULA + r"|\s+(?:with|as|using))\s*\S+\s+/\s+" + VALUE,
                re.IGNORECASE)
PAIR_GUARD = ("login", "cred", "zugang", "identifiant", "учётн", "учетн")
GUARD = ("pass", "pwd", "pw", "secret", "token", "key", "cred", "pin ", "pin:", "pin-", " pin",
         "code", "otp", "mot de", "mots de", "mdp", "jeton", "clé", "cle ", "contrase", "clave",
         "wort", "schl", "senha", "chave", "chiave", "parola", "парол", "токен", "ключ", "пин",
         "login", "密码", "口令", "密钥", "秘钥", "令牌", "パス", "暗証", "トークン", "キー", "秘密鍵",
         "비밀", "비번", "패스워드", "암호", "토큰", "키", "wachtwoord", "lösenord", "passord",
         "adgangskode", "hasło", "heslo", "şifre", "sifre", "khẩu", "sandi", "salasana",
         "jelszó", "parolă")

_SYMBOL = re.compile(r"[!#$%&*+=?@^~|/\\]")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+][\w.]+)?", re.IGNORECASE)
_ASSIGNED = re.compile(r"[A-Za-z_][\w.-]*=(?=[^=])")
_PASSPHRASE = re.compile(r"[A-Za-z]{3,}(?:[-_.][A-Za-z]{3,}){2,}(?:[-_.]?\d+)?")
# nouns that name a password itself (not a token or a key, whose bare values must look
# random): password, passphrase, mot de passe, contraseña, Passwort, senha, пароль, 密码 ...
_PASSWORD_NOUN = re.compile(
    r"(?i)pass(?:word|phrase|code)|mots?\s+de\s+passe|contrase|passwort|kennwort|senha"
    r"|пароль|wachtwoord|lösenord|passord|hasło|heslo|şifre|salasana|jelszó|parol|密码|口令"
    r"|パスワード|비밀번호|패스워드|비번")


def secret_value(match: re.Match[str]) -> bool:
    """The value after "password is" looks like a secret, not a word or a reference."""
    noun = match.group(1).lower()
    value = match.group(match.lastindex or 0).rstrip(".,;:!?)")
    if match.re is PAIR.compiled():  # "login with GitHub / Google" names two ways in, not a password
        return shape.literal(value, ("password",)) and not shape.is_word(value)
    bare = match.re is PHRASE.compiled() and match.group(2) is None
    if bare and _PASSWORD_NOUN.match(noun) and _bare_password(value):
        return True
    if bare or noun == "key":  # "the key is rotated", "token bucket": random or nothing
        return shape.looks_random(value, 12) and not shape.is_reference(value)
    if len(value) < 4 or shape.is_reference(value) or shape.is_placeholder(value) \
            or "://" in value or _VERSION.fullmatch(value) or _ASSIGNED.match(value):
        return False  # an assignment is the key-name patterns' to judge
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    if digits and not letters:
        # a PIN or a numeric code
        return value.isdigit() and len(value) >= (4 if PIN.search(noun) else 6)
    if len(value) < 6 or not letters:
        return False
    if digits or _SYMBOL.search(value) or _PASSPHRASE.fullmatch(value):
        return True
    # letters only: a word or a name, unless its case switches like a generated key's
    return shape.switches(value) >= 0.4 and len(value) >= 8


def _bare_password(value: str) -> bool:
    """A value right after a password's own noun, with no copula ("passphrase
    purple-elephant-dances-42", "password hunter2"): digits, symbols or the shape of a
    passphrase; words ("the password reset flow", "password managers"), references,
    placeholders, versions, assignments and paths ("-field=password secret/db") stay."""
    if len(value) < 6 or not any(c.isalpha() for c in value) or any(c in value for c in "/\\"):
        return False
    if shape.is_reference(value) or shape.is_placeholder(value) or "://" in value \
            or _VERSION.fullmatch(value) or _ASSIGNED.match(value):
        return False
    return any(c.isdigit() for c in value) or bool(_SYMBOL.search(value)) \
        or bool(_PASSPHRASE.fullmatch(value))
