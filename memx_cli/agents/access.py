"""Access grants (SPEC 5): role x domain -> none | read | write, from `.memx/access.yaml`.

    # .memx/access.yaml
    grants:
      maintainer: {"*": write}          # "*" is any domain (or, as a role, any role)
      agent: {conventions: write, secrets: none}

Reads fail open, by design: a missing grant, a missing file or an unreadable one means
``read``. ``none`` only keeps a domain's facts out of that role's search results and
context preamble; the memory files are in the repository for anyone who can read it, so
this is guidance for agents, not a security boundary. The one write that is checked is
proposing (or superseding) a policy: it needs ``write`` on the policy's domain. Roles are
self-declared (``--role`` or ``MEMX_ROLE``); without a role nothing is checked (a
person at a terminal), with one a missing grant is ``read`` and the policy is refused.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from memx_cli.errors import MemxError
from memx_cli.store.repo import Repo

log = logging.getLogger("memx")

LEVELS = ("none", "read", "write")
ANY = "*"
NO_DOMAIN = "general"  # the domain of a memory that names none
ACCESS_FILE = "access.yaml"
ROLE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class AccessDeniedError(MemxError):
    """A role lacks the grant a write needs."""


@dataclass(frozen=True)
class Grants:
    table: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def level(self, role: str | None, domain: str | None) -> str:
        """The permission of ``role`` on ``domain``; ``read`` when nothing says otherwise."""
        if role is None:
            return "read"
        domain = domain or NO_DOMAIN
        for who, what in ((role, domain), (role, ANY), (ANY, domain), (ANY, ANY)):
            found = self.table.get(who, {}).get(what)
            if found is not None:
                return found
        return "read"

    def can_read(self, role: str | None, domain: str | None) -> bool:
        return self.level(role, domain) != "none"


def current_role(role: str | None = None) -> str | None:
    """``role`` (a flag), else ``MEMX_ROLE``, else None; checked to be one word."""
    value = role if role is not None else os.environ.get("MEMX_ROLE") or None
    if value is not None and not ROLE_RE.match(value):
        raise MemxError(f"invalid role {value!r}: use one word (letters, digits, . _ -)")
    return value


def load(repo: Repo) -> Grants:
    """The grants of ``.memx/access.yaml``; none (everything ``read``) when it is missing
    or unreadable (fail open: a warning, never an error)."""
    path = repo.store.root / ACCESS_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Grants()
    except (OSError, UnicodeDecodeError) as exc:
        log.warning(f"{repo.store.display(path)}: unreadable ({exc}); every grant is read")
        return Grants()
    import yaml

    try:
        data = yaml.safe_load(text) or {}
        return Grants(_parse(data))
    except (yaml.YAMLError, ValueError) as exc:
        detail = str(exc).splitlines()[0]
        log.warning(f"{repo.store.display(path)}: {detail}; every grant is read")
        return Grants()


def _parse(data: object) -> dict[str, dict[str, str]]:
    if not isinstance(data, dict) or not isinstance(data.get("grants", {}), dict):
        raise ValueError("expected grants: {ROLE: {DOMAIN: none|read|write}}")
    table: dict[str, dict[str, str]] = {}
    for role, domains in (data.get("grants") or {}).items():
        if not isinstance(domains, dict):
            raise ValueError(f"role {role!r}: expected {{DOMAIN: none|read|write}}")
        for domain, level in domains.items():
            if level not in LEVELS:
                raise ValueError(f"role {role!r}, domain {domain!r}: expected none, read or "
                                 f"write, got {level!r}")
            table.setdefault(str(role), {})[str(domain)] = level
    return table


def require_policy_write(repo: Repo, role: str | None, domain: str | None) -> None:
    """Proposing a policy needs ``write`` on its domain (SPEC 5); fails loudly."""
    if role is None:
        return
    level = load(repo).level(role, domain)
    if level != "write":
        raise AccessDeniedError(
            f"role {role!r} has {level} access to domain {domain or NO_DOMAIN!r}; proposing "
            f"a policy needs write (grant it in .memx/access.yaml)")
