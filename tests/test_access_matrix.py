"""Role x tool x domain x read/write (issue 12): every CLI command and MCP tool that
reads or writes memories of a domain, for every role of one access.yaml.

The expected level of each role on each domain is written out by hand from GRANTS below
(not computed by the code under test; None where no grant speaks): a policy write, or any
write to the global store, succeeds exactly when the level is ``write``; a fact write also
succeeds where no grant speaks (SPEC 5: fact writes are not gated by default); a read shows
the domain's memories exactly when the level is not ``none``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import Memx, Result
from .test_mcp import run_session

GRANTS = """grants:
  lead: {"*": write}
  agent: {conventions: write, secrets: none}
  intern: {conventions: read, secrets: none}
"""
DOMAINS = ("conventions", "secrets", "general")  # general: a memory that names no domain
LEVEL: dict[str | None, dict[str, str | None]] = {
    "lead": {"conventions": "write", "secrets": "write", "general": "write"},
    "agent": {"conventions": "write", "secrets": "none", "general": None},
    "intern": {"conventions": "read", "secrets": "none", "general": None},
    None: {"conventions": "write", "secrets": "write", "general": "write"},  # no role
}
# The writes of a policy (and to the global store) need an explicit grant.
STRICT = {"add --kind policy", "policy add", "policy deactivate", "propose_policy",
          "supersede_policy", "propose_fact scope=global"}


def may_write(role: str | None, domain: str, tool: str) -> bool:
    level = LEVEL[role][domain]
    return level == "write" or (level is None and tool not in STRICT)


# Distinct texts per domain, so the Curator keeps every seed a memory of its own.
TEXTS = {
    "conventions": ("Zebra branch names use the ticket number as prefix",
                    "Always run the linter before pushing",
                    "Reviewers check the README greeting",
                    ("Indent Makefiles with tabs", "Python files are formatted by black"),
                    "The legacy style guide was retired in 2019"),
    "secrets": ("Zebra vault tokens rotate every ninety days",
                "Never paste credentials into chat",
                "The README must not list passwords",
                ("Keys live in the cloud KMS", "Certificates expire after one year"),
                "The HSM pilot ended in spring"),
    "general": ("Zebra builds cache wheels under the tmp directory",
                "Prefer small pull requests",
                "The README is the landing page of the project",
                ("CI runs on every push", "Nightly builds publish the docs site"),
                "The old Jenkins server was shut down"),
}


def _dom(domain: str) -> tuple[str, ...]:
    return () if domain == "general" else ("--domain", domain)


def _add(memx: Memx, *args: str) -> str:
    return str(json.loads(memx.ok("add", *args, "--json"))["memory"]["id"])


def seed(memx: Memx, repo: Path) -> dict[str, dict[str, str]]:
    """Per domain: a fact, a policy, an anchored fact, a recorded conflict, an archived
    fact (written without a role)."""
    from memx_cli.store.repo import Repo

    (repo / ".memx" / "access.yaml").write_text(GRANTS)
    store = Repo.discover(repo).store
    seeds: dict[str, dict[str, str]] = {}
    for domain, (fact, rule, anchored, (older, newer), old) in TEXTS.items():
        ids = {"fact": _add(memx, fact, *_dom(domain)),
               "policy": _add(memx, "--kind", "policy", rule, *_dom(domain)),
               "anchored": _add(memx, anchored, "--anchor", "README.md", *_dom(domain)),
               "older": _add(memx, older, *_dom(domain)),
               "newer": _add(memx, newer, *_dom(domain)),
               "archived": _add(memx, old, *_dom(domain))}
        mem = store.read_file(store.path_for(ids["newer"]))
        store.write(mem.replace(conflicts_with=(ids["older"],)))
        store.archive_dir.mkdir(exist_ok=True)
        store.path_for(ids["archived"]).rename(store.path_for(ids["archived"], archived=True))
        seeds[domain] = ids
    return seeds


Seeds = dict[str, dict[str, str]]
WriteTool = Callable[[Memx, Seeds, str], Result]
READ_TASK = "zebra tokens builds and branch names for the release"

WRITES: dict[str, WriteTool] = {
    "add": lambda m, s, d: m("add", f"Okapi {d} notes are kept in the wiki", *_dom(d)),
    "add --kind policy": lambda m, s, d: m("add", "--kind", "policy",
                                           f"Okapi {d} rule: ask before merging", *_dom(d)),
    "policy add": lambda m, s, d: m("policy", "add", f"Okapi {d} rule: tag releases",
                                    *_dom(d)),
    "import": lambda m, s, d: m("import", "-", input=json.dumps(
        [{"content": f"Okapi {d} imports are reviewed", **({} if d == "general"
                                                             else {"domain": d})}])),
    "rm": lambda m, s, d: m("rm", "-y", s[d]["fact"]),
    "policy deactivate": lambda m, s, d: m("policy", "deactivate", s[d]["policy"]),
    "anchor": lambda m, s, d: m("anchor", s[d]["fact"], "README.md"),
    "edit": lambda m, s, d: m("edit", s[d]["fact"]),
    "resolve": lambda m, s, d: m("resolve", s[d]["newer"], "--keep", s[d]["older"]),
    "restore": lambda m, s, d: m("restore", s[d]["archived"]),
}


def _ids(out: str, key: str) -> set[str]:
    return {item["id"] for item in json.loads(out)[key]}


def _conflict_ids(out: str) -> set[str]:
    return {c[side]["id"] for c in json.loads(out)["conflicts"] for side in ("older", "newer")}


# read tool -> (CLI call, the seed that should be visible, how to find ids in its output)
READS: dict[str, tuple[Callable[[Memx, Seeds, str], Result], str,
                       Callable[[str], set[str]] | None]] = {
    "search": (lambda m, s, d: m("search", "zebra", "--json", "-n", "50"), "fact",
               lambda out: _ids(out, "results")),
    "list": (lambda m, s, d: m("list", "--json"), "fact", lambda out: _ids(out, "memories")),
    "export": (lambda m, s, d: m("export"), "fact", lambda out: _ids(out, "memories")),
    "show": (lambda m, s, d: m("show", s[d]["fact"], "--json"), "fact", None),
    "feedback": (lambda m, s, d: m("feedback", s[d]["fact"], "--helpful"), "fact", None),
    "conflicts": (lambda m, s, d: m("conflicts", "--json", "--no-scan"), "newer",
                  _conflict_ids),
    "verify": (lambda m, s, d: m("verify", "--json"), "anchored",
               lambda out: _ids(out, "memories")),
    "context": (lambda m, s, d: m("context", READ_TASK), "fact",
                lambda out: {w.rstrip(")") for w in out.split() if len(w) == 27}),
}
ROLES = ["lead", "agent", "intern", None]


def _as(monkeypatch: pytest.MonkeyPatch, role: str | None) -> None:
    if role is None:
        monkeypatch.delenv("MEMX_ROLE", raising=False)
    else:
        monkeypatch.setenv("MEMX_ROLE", role)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("tool", list(WRITES))
def test_cli_write(memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch, tool: str,
                   role: str | None) -> None:
    seeds = seed(memx, repo)
    monkeypatch.setenv("EDITOR", "sed -i s/Zebra/Okapi/")
    _as(monkeypatch, role)
    outcome = {d: WRITES[tool](memx, seeds, d) for d in DOMAINS}
    for domain, result in outcome.items():
        level = LEVEL[role][domain] or "read"
        if may_write(role, domain, tool):
            assert result.code == 0, (domain, result.err)
        else:
            assert result.code == 2 and result.err.startswith(
                f"memx: error: role {role!r} has {level} access to domain {domain!r}; "), (
                domain, result.err)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("tool", list(READS))
def test_cli_read(memx: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch, tool: str,
                  role: str | None) -> None:
    seeds = seed(memx, repo)
    _as(monkeypatch, role)
    run, seed_kind, found = READS[tool]
    seen = {}
    for domain in DOMAINS:
        result = run(memx, seeds, domain)
        if found is None:
            seen[domain] = result.code == 0
        else:
            assert result.code == 0, result.err
            seen[domain] = seeds[domain][seed_kind] in found(result.out)
    assert seen == {d: LEVEL[role][d] != "none" for d in DOMAINS}


async def _mcp_matrix(client: Any, seeds: Seeds) -> dict[str, dict[str, bool]]:
    """tool -> domain -> whether the domain's seed was shown / the write succeeded
    (reads first: a supersede takes a fact out of the preamble)."""
    out: dict[str, dict[str, bool]] = {}

    async def ok(tool: str, **args: Any) -> tuple[bool, Any]:
        from mcp import MCPError

        try:
            result = await client.call_tool(tool, args)
        except MCPError as exc:
            assert "access to domain" in exc.message, exc.message
            return False, None
        return True, json.loads(result.content[0].text)

    reads = {
        "search_memory": (ok("search_memory", query="zebra", limit=50), "fact",
                          lambda d: {r["id"] for r in d["results"]}),
        "get_context": (ok("get_context", task=READ_TASK), "fact",
                        lambda d: {f["id"] for f in d["context"]["facts"]}),
        "list_memory_conflicts": (ok("list_memory_conflicts", scan=False), "newer",
                                  lambda d: {c["newer"]["id"] for c in d["conflicts"]}),
        "verify_memory": (ok("verify_memory"), "anchored",
                          lambda d: {m["id"] for m in d["memories"]}),
    }
    for tool, (pending, kind, ids_of) in reads.items():
        success, data = await pending
        assert success
        out[tool] = {d: seeds[d][kind] in ids_of(data) for d in DOMAINS}
    for domain in DOMAINS:
        name = None if domain == "general" else domain
        ids = seeds[domain]
        writes = {
            "propose_fact": ok("propose_fact", content=f"Okapi {domain} facts", domain=name),
            "propose_fact scope=global": ok("propose_fact", content=f"Okapi {domain} global",
                                            domain=name, scope="global"),
            "propose_policy": ok("propose_policy", rule=f"Okapi {domain} rule", domain=name),
            "supersede_fact": ok("supersede_fact", old_id=ids["fact"],
                                 content=f"Okapi {domain} replaced fact"),
            "supersede_policy": ok("supersede_policy", old_id=ids["policy"],
                                   rule=f"Okapi {domain} replaced rule"),
        }
        for tool, pending in writes.items():
            out.setdefault(tool, {})[domain] = (await pending)[0]
    return out


@pytest.mark.parametrize("role", ["lead", "agent", "intern"])
def test_mcp_tools(memx: Memx, repo: Path, role: str) -> None:
    seeds = seed(memx, repo)
    outcome = run_session(repo, lambda client: _mcp_matrix(client, seeds), "--role", role)
    expected: dict[str, dict[str, bool]] = {}
    for tool in ("propose_fact", "propose_fact scope=global", "propose_policy",
                 "supersede_fact", "supersede_policy"):
        expected[tool] = {d: may_write(role, d, tool) for d in DOMAINS}
    for tool in ("search_memory", "get_context", "list_memory_conflicts", "verify_memory"):
        expected[tool] = {d: LEVEL[role][d] != "none" for d in DOMAINS}
    assert outcome == expected
