"""Secrets on a command line (issue 12, second round): the option grammar of the tools
developers paste, not a list of sentences.

- long options whose name holds a credential word, read like key names (keys.strength):
  ``--password x``, ``--db-password=x``, ``--s3-secret-access-key x``, ``--with-token <<< x``;
  ``--password-stdin`` and ``--password-file`` name a property, not a value;
- ``-p`` after ``-u USER`` (mysql ``-uroot -pX``, mongosh, docker/podman login, az login,
  twine): the user-then-password idiom; a port (``-p 8080:80``) is not a password, and a
  lone lowercase word after a spaced ``-p`` is mysql's database argument; a quoted value
  glued to ``-p`` (``-p"x"``) is a password whatever its letters;
- the MySQL/MariaDB clients' ``-pVALUE`` with no ``-u`` before it: their ``-p`` takes its
  value only glued, so a glued value is the password (a spaced word is the database);
- the tools whose password flag is not ``-p``: ``sshpass -p``, ``redis-cli -a``, LDAP's
  ``-w`` (with ``-D``), smbclient's ``-U user%pass``, OpenSSL's ``pass:``, htpasswd ``-b``,
  curl/wget ``-u user:pass``;
- a value piped into a command that reads its password from standard input
  (``echo X | docker login --password-stdin``).
"""

from __future__ import annotations

import re

from memx_cli.privacy import keys, shape

_VALUE = r"(?:\"([^\"\n]+)\"|'([^'\n]+)'|([^\s\"'|;&]+))"
LONG_OPTION = re.compile(r"(?=--)(?<![\w-])--([a-z0-9][a-z0-9-]*[a-z0-9])(?:=|[ \t]+(?:<<<[ \t]*)?)"
                         r"(?!-)" + _VALUE, re.IGNORECASE)
USER_THEN_P = re.compile(r"(?=-)(?<![\w-])(?:-u|--user(?:name)?)(?:[ \t]*|=)[^\s-]\S*"
                         r"(?:[ \t]+(?!-p)\S+){0,8}?[ \t]+-p(?:([^\s\"'-]\S*)|[ \t]*" + _VALUE + ")")
# (guard, the text up to the value): one regex per tool, each run only when its name is in
TOOL_FLAGS = tuple((guard, re.compile(before + _VALUE)) for guard, before in (
    ("sshpass", r"\bsshpass(?:[ \t]+-\w+)*?[ \t]+-p[ \t]*"),
    ("redis-cli", r"\bredis-cli\b[^\n|;]*?[ \t]-a[ \t]+"),
    ("ldap", r"\bldap\w+\b(?=[^\n|;]*[ \t]-D)[^\n|;]*?[ \t]-w[ \t]+"),
    ("pass:", r"[ \t]-pass(?:in|out)?[ \t]+pass:"),
    ("openssl", r"\bopenssl\b[^\n|;]*?[ \t]-k[ \t]+"),
    ("htpasswd", r"\bhtpasswd(?=(?:[ \t]+-\w+)*[ \t]+-\w*b)(?:[ \t]+-\w+)+[ \t]+\S+[ \t]+\S+[ \t]+"),
    ("vault", r"\bvault[ \t]+login[ \t]+"),
    ("-p", r"\b(?:mysql|mariadb)(?:dump|admin|import|check|-dump|-admin|-import|-check)?\b"
           r"[^\n|;]*?[ \t]-p(?=[^\s-])"),
))
USER_PASS = re.compile(r"(?=-)(?:(?<![\w-])-u|--user|--basic-auth)(?:[ \t]+|=)([\"']?)[^\s:\"'$]+:"
                       r"([^\s\"'@]+)\1(?=[\s\"']|$)")
SMB_USER = re.compile(r"(?<![\w-])(?:-U|--user)(?:[ \t]+|=)[^\s%]+%([^\s\"']+)")
PIPED = re.compile(r"\b(?:echo|printf)(?:[ \t]+-\w+)*[ \t]+" + _VALUE
                   + r"[ \t]*\|[^\n|]*?--password-stdin")


def _value(match: re.Match[str]) -> str:
    return match.group(match.lastindex or 0)


def check_long_option(match: re.Match[str]) -> bool:
    return keys.secret_value(match.group(1), _value(match))


def check_password(match: re.Match[str]) -> bool:
    """A password handed to a tool: written out, not a reference or a placeholder."""
    return shape.literal(_value(match), ("password", "pass"), min_len=3)


def check_user_then_p(match: re.Match[str]) -> bool:
    value = _value(match)
    if re.fullmatch(r"\d+(?::\d+)*(?:/\w+)?", value):
        return False  # a port
    if match.group(4) is not None and re.fullmatch(r"[a-z_]+", value):
        return False  # mysql -u root -p DBNAME: the password is prompted for
    return check_password(match)
