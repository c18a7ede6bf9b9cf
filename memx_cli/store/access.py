"""Access grants (SPEC 5): role x domain -> none | read | write, from `.memx/access.yaml`.

    # .memx/access.yaml
    grants:
      maintainer: {"*": write}          # "*" is any domain (or, as a role, any role)
      agent: {conventions: write, secrets: none}

Reads fail open, by design: a missing grant, a missing file or an unreadable one means
``read``. ``none`` keeps a domain's memories out of everything that role reads (search,
context, list, show, conflicts, verify, sweep reports); the memory files are in the
repository for anyone who can read it, so this is guidance for agents, not a security
boundary. Every write (a fact or a policy, in any store, a supersede, a deletion) is checked
against the domain it touches: a policy needs an explicit ``write``; a fact is refused
where a grant says ``read`` or ``none`` and allowed where no grant speaks (SPEC 5: fact
writes are not gated by default). A real sweep or consolidation, which moves memories of
every domain, needs ``write`` on ``*``. Roles are self-declared (``--role`` or
``MEMX_ROLE``); without a role nothing is checked (a person at a terminal). ``Guard`` is the one check;
memx_cli.api.Memx calls it for the CLI and the MCP server alike.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from memx_cli import external
from memx_cli.errors import MemxError, shown
from memx_cli.safeyaml import YamlInputError, loads, read_regular
from memx_cli.store.repo import Repo

log = logging.getLogger("memx")

LEVELS = ("none", "read", "write")
ANY = "*"
NO_DOMAIN = "general"  # the domain of a memory that names none
ACCESS_FILE = "access.yaml"
ROLE_RE = external.WORD_RE


class AccessDeniedError(MemxError):
    """A role lacks the grant a write needs."""


@dataclass(frozen=True)
class Grants:
    table: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def level(self, role: str | None, domain: str | None) -> str:
        """The permission of ``role`` on ``domain``; ``read`` when nothing says otherwise."""
        return self.granted(role, domain) or "read"

    def granted(self, role: str | None, domain: str | None) -> str | None:
        """The permission a grant gives ``role`` on ``domain``; None when no grant does."""
        if role is None:
            return None
        domain = domain or NO_DOMAIN
        for who, what in ((role, domain), (role, ANY), (ANY, domain), (ANY, ANY)):
            found = self.table.get(who, {}).get(what)
            if found is not None:
                return found
        return None

    def can_read(self, role: str | None, domain: str | None) -> bool:
        return self.level(role, domain) != "none"


def current_role(role: str | None = None) -> str | None:
    """``role`` (a flag), else ``MEMX_ROLE``, else None; checked to be one word."""
    value = role if role is not None else os.environ.get("MEMX_ROLE") or None
    if value is not None and not ROLE_RE.match(value):
        raise MemxError(f"invalid role {shown(value)}: use one word (letters, digits, . _ -)")
    return value


def load(repo: Repo) -> Grants:
    """The grants of ``.memx/access.yaml``; none (everything ``read``) when it is missing
    or unreadable (fail open: a warning, never an error)."""
    try:
        return read_grants(repo)
    except MemxError as exc:
        log.warning(f"{exc}; every grant is read")
    return Grants()


def read_grants(repo: Repo) -> Grants:
    """The grants of ``.memx/access.yaml`` (none when it is missing); MemxError naming
    the file (and line) when it is unreadable or malformed: what ``memx validate`` says."""
    path = repo.store.root / ACCESS_FILE
    shown = repo.store.display(path)
    try:
        text = read_regular(path, follow=False).decode("utf-8")
    except FileNotFoundError:
        return Grants()
    except OSError as exc:
        raise MemxError(f"{shown}: unreadable ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise MemxError(f"{shown}: unreadable (not UTF-8 text, byte {exc.start})") from None
    try:
        return Grants(_parse(loads(text) or {}))
    except YamlInputError as exc:
        raise MemxError(f"{exc.where(shown)}: {exc.message}") from None
    except ValueError as exc:
        raise MemxError(f"{shown}: {exc}") from None


def _parse(data: object) -> dict[str, dict[str, str]]:
    if not isinstance(data, dict) or not isinstance(data.get("grants", {}), dict):
        raise ValueError("expected grants: {ROLE: {DOMAIN: none|read|write}}")
    unknown = sorted(str(key) for key in data if key != "grants")
    if unknown:
        # a misspelt `grants:` (roles:, grant:) silently granted nothing (issue 27)
        raise ValueError(f"unknown key {unknown[0]!r}; expected grants: "
                         "{ROLE: {DOMAIN: none|read|write}}")
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


@dataclass(frozen=True)
class Guard:
    """One role's grants: the check every read and write of the facade goes through."""

    grants: Grants
    role: str | None

    def can_read(self, domain: str | None) -> bool:
        return self.grants.can_read(self.role, domain)

    def require_write(self, domain: str | None, what: str, *, kind: str = "policy") -> None:
        """``what`` (e.g. "writing a fact") needs ``write`` on ``domain``; fails loudly.

        SPEC 5: fact writes are not gated unless a grant says otherwise — with no grant for
        the domain a role may write facts there, and ``read`` or ``none`` refuses them.
        Policies and changes to every domain (``kind="policy"``, the default) always need
        an explicit ``write``."""
        if self.role is None:
            return
        granted = self.grants.granted(self.role, domain)
        if kind == "fact" and granted is None:
            return
        level = granted or "read"
        if level != "write":
            shown = domain if domain == ANY else domain or NO_DOMAIN
            raise AccessDeniedError(
                f"role {self.role!r} has {level} access to domain {shown!r}; {what} needs "
                "write (grant it in .memx/access.yaml)")

    def require_write_all(self, what: str) -> None:
        """A change to memories of every domain (a real sweep) needs ``write`` on ``*``."""
        self.require_write(ANY, what)


def guard(repo: Repo, role: str | None) -> Guard:
    """The grants of ``repo`` for ``role``, read now (an edit of access.yaml applies at once)."""
    return Guard(load(repo) if role is not None else Grants(), role)
