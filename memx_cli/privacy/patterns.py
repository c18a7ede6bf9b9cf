"""What the PrivacySanitizer masks (SPEC 3.1), one typed pattern per kind of secret.

Each pattern names the group to mask (0 = the whole match) and may carry a check that
rejects look-alikes: Luhn for card numbers, the official check digits of national IDs,
placeholders (``${DB_PASSWORD}``, ``<token>``, ``changeme``) for assignments. Ordinary
developer text — ``git@github.com:org/repo.git``, commit hashes, UUIDs, versions,
``localhost:8080`` — matches none of them; tests/test_sanitizer.py and
tests/data/privacy_census.json hold both corpora.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from memx_cli.privacy import commands, keys, phone, phrases, providers, shape
from memx_cli.privacy.deferred import Deferred

Check = Callable[[re.Match[str]], bool]


@dataclass(frozen=True)
class Pattern:
    kind: str
    regex: re.Pattern[str] | Deferred  # (compiled when its guard first lets text in)
    group: int = 0
    check: Check | None = None
    # lowercase substrings, one of which must be in the lowercased text (cheap to test);
    # "0" stands for "has a digit". Empty: always run.
    guard: tuple[str, ...] = ()
    # a refused match is read again from its value on ("Cookie: sessionid=X": the key
    # Cookie is refused, sessionid=X inside its value is not)
    rescan: bool = False


def _luhn(match: re.Match[str]) -> bool:
    digits = [int(c) for c in match.group(0) if c.isdigit()]
    if not 13 <= len(digits) <= 19 or len(set(digits)) < 2:
        return False
    head = "".join(map(str, digits[:4]))
    if not (head[0] in "46" or head[:2] in ("34", "37", "30", "36", "38", "35")
            or "51" <= head[:2] <= "55" or "2221" <= head <= "2720"):
        return False  # not an issuer prefix: a build number or a timestamp
    seps = {c for c in match.group(0) if not c.isdigit()}
    if len(seps) > 1:
        return False
    total = 0
    for i, digit in enumerate(reversed(digits)):
        if i % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def _cn_id(match: re.Match[str]) -> bool:
    text = match.group(0).upper()
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    total = sum(int(c) * w for c, w in zip(text[:17], weights))
    return "10X98765432"[total % 11] == text[17]


def _fr_nir(match: re.Match[str]) -> bool:
    text = re.sub(r"\s", "", match.group(0)).upper()
    body = text[:13].replace("2A", "19").replace("2B", "18")
    return body.isdigit() and 97 - int(body) % 97 == int(text[13:])


def _digits(low: int, high: int) -> Check:
    def check(match: re.Match[str]) -> bool:
        return low <= sum(c.isdigit() for c in match.group(0)) <= high
    return check


def _both(first: Check, second: Check) -> Check:
    def check(match: re.Match[str]) -> bool:
        return first(match) and second(match)
    return check


def _mixed(match: re.Match[str]) -> bool:
    """Provider keys are random: letters and digits mixed, not a word with dashes."""
    body = match.group(0)
    return any(c.isdigit() for c in body) and any(c.isupper() for c in body) \
        and any(c.islower() for c in body)


def _email(match: re.Match[str]) -> bool:
    local, _, domain = match.group(0).partition("@")
    text, end = match.string, match.end()
    if local.lower() == "git" or re.match(r"\d+\.\d+", domain) \
            or text[:match.start()].endswith("://"):
        return False  # git@host, a version, a URL's user name
    return not (end < len(text) and text[end] == ":" and text[end + 1:end + 2] not in ("", " "))


SERVICE_USERS = frozenset(["runner", "runneradmin", "ubuntu", "ec2-user", "vagrant", "user", "circleci", "node", "app", "jenkins", "travis", "gitlab-runner", "builder", "admin", "root", "vsts", "buildkite-agent", "docker", "shared", "public", "default", "username", "yourname", "your-name", "me", "you", "linuxbrew"])


def _home_user(match: re.Match[str]) -> bool:
    name = match.group(2)
    return name.lower() not in SERVICE_USERS and not name.startswith(("$", "<", "{", "%", "~"))


def _url_password(match: re.Match[str]) -> bool:
    value = match.group(3)
    return len(value) >= 3 and value[0] not in "$<{%[" and value.lower() not in shape.PLACEHOLDERS


def _p(kind: str, regex: str, group: int = 0, check: Check | None = None,
       flags: int = 0, guard: str = "", rescan: bool = False) -> Pattern:
    guards = tuple(guard.split("|")) if guard else ()
    return Pattern(kind, Deferred(regex, flags) if guards else re.compile(regex, flags), group,
                   check, guards, rescan)


_KEY_GUARD = "|".join(keys.GUARD)

PATTERNS: tuple[Pattern, ...] = (
    _p("private_key", r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
                      r"(?:-----END \1PRIVATE KEY(?: BLOCK)?-----|\Z)", guard="private key"),
    _p("jwt", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*", guard="eyj"),
    _p("anthropic_key", r"\bsk-ant-[A-Za-z0-9_-]{20,}", guard="sk-ant-"),
    _p("openai_key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", 0, _mixed,
       guard="sk-"),
    _p("aws_access_key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)"
                         r"[A-Z0-9]{16}\b",
       guard="akia|asia|abia|acca|agpa|aida|aroa|aipa|anpa|anva|apka"),
    _p("aws_secret_key", r"(?i)(aws_?secret_?(?:access_?)?key|secret_?access_?key)"
                         r"(\s*[\"']?\s*[:=]\s*[\"']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", 3,
       guard="key"),
    _p("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
       guard="gh|github_pat_"),
    _p("gitlab_token", r"\bgl(?:pat|ptt|dt|rt|cbt|oas|soat)-[A-Za-z0-9_-]{20,}", guard="gl"),
    _p("slack_webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[\w/-]+",
       guard="hooks.slack.com"),
    _p("slack_token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}", guard="xox"),
    _p("stripe_key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}",
       guard="_live_|_test_|whsec_"),
    _p("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}(?![\w-])", guard="aiza"),
    _p("google_oauth", r"\bya29\.[0-9A-Za-z_-]{20,}|\bGOCSPX-[A-Za-z0-9_-]{20,}",
       guard="ya29.|gocspx-"),
    _p("groq_key", r"\bgsk_[A-Za-z0-9]{40,}", guard="gsk_"),
    _p("huggingface_token", r"\bhf_[A-Za-z0-9]{30,}", guard="hf_"),
    _p("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b", guard="npm_"),
    _p("pypi_token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}", guard="pypi-"),
    _p("sendgrid_key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b", guard="sg."),
    _p("twilio_key", r"\bSK[0-9a-f]{32}\b", guard="sk"),
    _p("mailgun_key", r"\bkey-[0-9a-f]{32}\b", guard="key-"),
    _p("azure_key", r"(AccountKey=|SharedAccessKey=|[?&]sig=)([A-Za-z0-9+/=%]{30,})", 2,
       guard="accountkey=|sharedaccesskey=|sig="),
    _p("digitalocean_token", r"\bdo[por]_v1_[a-f0-9]{64}\b", guard="_v1_"),
    _p("shopify_token", r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b", guard="shp"),
    _p("telegram_token", r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b", guard=":aa"),
    _p("api_token", r"\b(?:dapi[a-f0-9]{32}|lin_api_[A-Za-z0-9]{40}|r8_[A-Za-z0-9]{37}|"
                    r"xai-[A-Za-z0-9]{60,}|pplx-[A-Za-z0-9]{40,}|hvs\.[A-Za-z0-9_-]{24,}|"
                    r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}|ATATT3[A-Za-z0-9_=-]{30,}|"
                    r"AGE-SECRET-KEY-1[0-9A-Z]{58}|dp\.pt\.[A-Za-z0-9]{40,}|ntn_[A-Za-z0-9]{40,})",
       guard="dapi|lin_api_|r8_|xai-|pplx-|hvs.|pmak-|atatt3|age-secret-key-|dp.pt.|ntn_"),
    *(_p(kind, regex, group, check, guard=guard)
      for kind, regex, group, check, guard in providers.MORE),
    # generic shapes after the providers, so a provider key gets its own kind
    _p("password", r"\b([a-zA-Z][a-zA-Z0-9+.-]{1,20}://)([^\s:/@'\"]*(?:@[^\s:/@'\"]+)?):"
                   r"([^\s@/'\"]+)@", 3,
       _url_password, guard="://"),
    _p("url_token", r"\bhttps?://([A-Za-z0-9_-]{20,})@", 1, guard="@"),
    _p("bearer_token", r"(?i)(\bbearer\s+|authorization:\s*(?:basic|token)\s+)"
                       r"([A-Za-z0-9._~+/=-]{16,})", 2, guard="bearer|authorization"),
    # a credential's name, in any position and case style (privacy/keys.py)
    _p("password", keys.ASSIGNMENT.pattern, -1, keys.check_assignment, guard=_KEY_GUARD,
       rescan=True),
    _p("password", keys.DECLARATION.pattern, -1, keys.check_assignment, guard=_KEY_GUARD),
    _p("password", keys.ELEMENT.pattern, -1, keys.check_assignment, guard=_KEY_GUARD),
    _p("password", keys.PAIR.pattern, -1, keys.check_assignment, re.IGNORECASE, guard="value"),
    _p("password", keys.PROSE.pattern, -1, keys.check_assignment, guard=_KEY_GUARD),
    _p("password", keys.NETRC.pattern, 2, keys.check_netrc, re.IGNORECASE, guard="pass"),
    _p("password", keys.AUTH_TUPLE.pattern, -1, keys.check_assignment, re.IGNORECASE,
       guard="auth(|auth=(|auth = (|credentials(|credentials=("),
    # command lines (privacy/commands.py)
    _p("password", commands.LONG_OPTION.pattern, -1, commands.check_long_option,
       re.IGNORECASE, guard="--"),
    _p("password", commands.USER_THEN_P.pattern, -1, commands.check_user_then_p, guard="-p"),
    *(_p("password", regex.pattern, -1, commands.check_password, guard=guard)
      for guard, regex in commands.TOOL_FLAGS),
    _p("password", commands.USER_PASS.pattern, 2, commands.check_password, guard="-u|--"),
    _p("password", commands.SMB_USER.pattern, 1, commands.check_password, guard="%"),
    _p("password", commands.PIPED.pattern, -1, commands.check_password, guard="stdin"),
    # "the admin password is X" in EN/FR/ES/DE/ZH/JA/KO (privacy/phrases.py)
    Pattern("password", phrases.PHRASE, -1, phrases.secret_value, phrases.GUARD),
    Pattern("password", phrases.HANDED, 2, phrases.secret_value, phrases.GUARD),
    Pattern("password", phrases.PAIR, 2, phrases.secret_value, phrases.PAIR_GUARD),
    *(_p(kind, regex, group, check, guard=guard)
      for kind, regex, group, check, guard in providers.LAST),
    _p("email", r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
                r"\.[A-Za-z]{2,24}(?![\w-])", 0, _email, guard="@"),
    _p("card_number", r"(?<![\w.-])(?:\d[ -]?){12,18}\d(?![\w.-])", 0, _luhn, guard="0"),
    _p("national_id", r"(?<![\w-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-])",
       guard="0"),
    _p("national_id", r"(?<!\w)[1-9]\d{5}(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"
                      r"\d{3}[\dXx](?!\w)", 0, _cn_id, guard="0"),
    _p("national_id", r"(?<!\w)[12]\s?\d\d\s?(?:0[1-9]|1[0-2]|[2-9]\d)\s?(?:\d\d|2[AB])\s?\d{3}"
                      r"\s?\d{3}\s?\d\d(?!\w)", 0, _fr_nir, guard="0"),
    _p("national_id", r"(?<![\w-])\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])-[1-8]\d{6}"
                      r"(?![\w-])", guard="0"),
    _p("national_id", r"(マイナンバー|個人番号|my ?number)\D{0,5}(\d{4}\s?\d{4}\s?\d{4})", 2,
       guard="マイナンバー|個人番号|my"),
    _p("phone", r"(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}(?![\w.])", 0,
       _both(_digits(8, 15), phone.international), guard="0"),
    _p("phone", r"(?<![\w.-])(?:\(\d{3}\)\s?\d{3}[-.\s]\d{4}|\d{3}-\d{3}-\d{4})(?![\w.-])",
       0, phone.national, guard="0"),
    _p("phone", r"(?<![\w.-])(?:1[3-9]\d{9}|0[1-9](?:[ .]\d\d){4}|01[016789]-\d{3,4}-\d{4}|"
                r"0\d{1,3}-\d{2,4}-\d{4})(?![\w.-])", 0, _both(_digits(10, 11), phone.national),
       guard="0"),
    _p("user", r"(/home/|/Users/|[A-Za-z]:\\Users\\|[A-Za-z]:/Users/)([^/\\\s'\"]+)", 2,
       _home_user, guard="/home/|/users/|\\users\\"),
)


def _random_looking(match: re.Match[str]) -> bool:
    # Keys mix cases and digits; identifiers, hex digests and kebab-case names do not.
    token = match.group(0)
    return (any(c.isdigit() for c in token) and any(c.isupper() for c in token)
            and any(c.islower() for c in token))


# Anchor snippets are previews of source files, which may hold credentials in shapes no
# provider pattern knows: after PATTERNS, mask these too (a preview can afford to lose a
# word; the passage itself is still checked by its hash).
SNIPPET_PATTERNS: tuple[Pattern, ...] = (
    _p("private_key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?"
                      r"(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", guard="private key"),
    _p("password", r"(?i)((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)"
                   r"[\"']?\s*[:=]\s*[\"']?)(?!\[REDACTED)([^\s\"',;)]{4,})", 2,
       guard="pass|pwd|secret|token|key"),
    _p("token", r"(?<![A-Za-z0-9+/-])[A-Za-z0-9+/-]{32,}={0,2}", 0, _random_looking),
    _p("email", r"\b(?!git@)[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b", guard="@"),
)
