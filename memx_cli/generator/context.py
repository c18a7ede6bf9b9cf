"""The context preamble for an agent launch (SPEC 5, `memx context`, MCP `get_context`).

Three parts, in order: every active policy as ``- [domain] rule`` (pushed, unfiltered),
the agent's working notes verbatim, and up to five keyword-matched facts within about
1,200 characters, only for a task of at least 20 characters. It closes by telling the
agent to verify what it relies on with a full search. The fact shortlist is keyword
search on purpose: no model, no vectors, fast enough for every launch.

The text is safe to paste into a prompt: it is wrapped in ``<memx-context>`` and every
piece of memory text has ``&``, ``<`` and ``>`` escaped, so no memory or note can close
the wrapper or open markup of its own; policies and facts are flattened to one line so
none can fake another item.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memx_cli import external
from memx_cli.errors import MemxError
from memx_cli.index import StoreIndex
from memx_cli.store import access, notes, recall
from memx_cli.store.memory import Memory, from_data
from memx_cli.store.repo import Repo

MIN_TASK_CHARS = 20   # SPEC 5: shorter tasks get no facts
MAX_FACTS = 5
FACT_CHARS = 1200     # SPEC 5: "about 1,200 characters" of facts
SHORTLIST = 30        # keyword results looked at to find five facts
POLICY_CACHE = "policies.json"
OPEN = "<memx-context>"
CLOSE = "</memx-context>"
VERIFY_LINE = ("Verify load-bearing items with a full search (memx search, or the "
               "search_memory tool) before relying on them.")


@dataclass(frozen=True)
class ContextFact:
    id: str
    line: str
    score: float


@dataclass(frozen=True)
class Preamble:
    text: str
    agent: str
    role: str | None
    budget: int
    policies: tuple[str, ...]
    notes: str
    facts: tuple[ContextFact, ...]
    warnings: tuple[str, ...]


def policy_line(mem: Memory) -> str:
    """``- [domain] rule`` (SPEC 5), on one line; ``required_role`` is shown, not
    enforced (a policy reaches every agent)."""
    text = external.one_line(mem.content)
    # a role that is not one word is never shown (issue 26: a newline forged a line); the
    # file check refuses it, this keeps a record from an older index or cache out too
    role = f" (for role {mem.required_role})" if external.is_word(mem.required_role) else ""
    domain = external.one_line(mem.domain or access.NO_DOMAIN)  # a hand-edited file too
    return f"- [{domain}] {text}{role}{mem.scope_note}"


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _policies(index: StoreIndex) -> list[Memory]:
    """The store's current active policies, from the index (a small cache in cache/
    keyed by the index state, so a launch does not parse every memory file)."""
    try:
        state = index.state_path.read_text(encoding="utf-8")
    except OSError:
        state = None
    cache = index.dir / POLICY_CACHE
    docs: list[dict[str, Any]] | None = None
    if state is not None:
        try:
            cached = json.loads(cache.read_bytes())
            if cached.get("state") == state:
                docs = cached["policies"]
        except (OSError, ValueError, KeyError, AttributeError):
            docs = None
    if docs is None:
        from memx_cli.index.documents import stored_documents

        docs = [d.stored for d in stored_documents(index.lexical)
                if d.stored.get("kind") == "policy" and not d.stored.get("archived")]
        if state is not None:
            from memx_cli.fsutil import atomic_write

            atomic_write(cache, json.dumps({"state": state, "policies": docs}).encode())
    found = []
    for doc in docs:
        raw = {k: v for k, v in doc.items() if k not in ("path", "archived")}
        mem = from_data({"schema": 1, **raw})
        if mem.active and not mem.superseded_by:
            found.append(mem)
    return sorted(found, key=lambda m: (m.domain or "", m.created_at, m.id))


def build(repo: Repo, task: str, *, agent: str | None = None, role: str | None = None,
          budget: int | None = None, searcher: Any = None,
          can_read: Callable[[str | None], bool] | None = None) -> Preamble:
    """The preamble; ``can_read(domain)`` says which facts the role may see (the
    facade's grant check, memx_cli.api.Memx.context); everything without it."""
    from memx_cli.generator.search import Searcher

    if not task.strip():  # an unset "$TASK" in a launch script: say so, as search does
        raise MemxError("empty task; pass what the agent is about to work on")
    repo.require_store()
    name = notes.agent_name(agent)
    who = access.current_role(role)
    limit = budget or int(repo.config["ace.context.budget"])
    searcher = searcher or Searcher(repo)
    warnings: list[str] = []
    policies: list[str] = []
    hidden = unreviewed(repo)
    searcher.settle()
    for index in searcher.indexes:
        report = searcher.open_index(index, want_vectors=False)
        warnings.extend(f"{p} (skipped)" for p in report.problems)
        source = searcher.sources.get(index.store.label)
        for mem in _policies(index):
            if mem.id in hidden:
                continue
            if source is None:
                policies.append(escape(policy_line(mem)))
            elif not source.domains or mem.domain in source.domains:
                policies.append(escape(policy_line(mem)) + f" (from source {source.name})")
    note_text = notes.read(repo, name)
    head = [OPEN]
    if policies:
        head += ["Policies (rules every agent follows in this repository):", *policies, ""]
    if note_text.strip():
        head += [f"Your working notes (agent {name}):", "<notes>",
                 escape(note_text.rstrip("\n")), "</notes>", ""]
    tail = [VERIFY_LINE, CLOSE]
    used = sum(len(line) + 1 for line in head + tail)
    policy_chars = sum(len(line) + 1 for line in policies)
    if policy_chars > limit / 2:
        warnings.append(f"policies alone take {policy_chars} of the {limit}-character "
                        "context budget; deactivate or shorten some (memx policy list)")
    facts = _facts(repo, searcher, task, can_read or (lambda _domain: True),
                   min(FACT_CHARS, max(limit - used, 0)))
    body = head
    if facts:
        body += ["Facts that may matter for this task (keyword matches; memx show ID):",
                 *(f.line for f in facts), ""]
    text = "\n".join(body + tail) + "\n"
    if len(text) > limit:
        warnings.append(f"the preamble is {len(text)} characters, over the {limit}-character "
                        "budget (policies and notes are never cut)")
    return Preamble(text, name, who, limit, tuple(policies), note_text, tuple(facts),
                    tuple(warnings))


def unreviewed(repo: Repo) -> set[str]:
    """Ids to leave out with ace.context.reviewed_only: memories pending `memx review`."""
    if not repo.config["ace.context.reviewed_only"]:
        return set()
    from memx_cli.operations.review import unreviewed_ids

    return unreviewed_ids(repo)


def _facts(repo: Repo, searcher: Any, task: str, can_read: Callable[[str | None], bool],
           room: int) -> list[ContextFact]:
    """Up to MAX_FACTS keyword-matched current facts whose lines fit in ``room``."""
    if len(task.strip()) < MIN_TASK_CHARS or room <= 0:
        return []
    hidden = unreviewed(repo)
    result = searcher.search(task, mode="keyword", limit=SHORTLIST, budget=10**6,
                             record_recalls=False, closest=True,
                             allow=lambda doc: can_read(doc.get("domain")))
    chosen: list[ContextFact] = []
    used = len("Facts that may matter for this task (keyword matches; memx show ID):") + 2
    shown: dict[str, list[str]] = {}
    for hit in result.hits:
        doc = hit.doc
        if doc.get("kind", "fact") != "fact" or doc.get("superseded_by") or hit.id in hidden:
            continue
        if hit.verification is not None and hit.verification.status == "stale":
            continue  # a passage it describes has changed: not something to push
        text = " ".join(doc["content"].split())
        line = escape(f"- [{' '.join((doc.get('domain') or access.NO_DOMAIN).split())}] "
                      f"{text} (id {hit.id})")
        if used + len(line) + 1 > room:
            continue  # an oversized fact is skipped, not a reason to stop
        chosen.append(ContextFact(hit.id, line, hit.score))
        shown.setdefault(hit.store, []).append(hit.id)
        used += len(line) + 1
        if len(chosen) == MAX_FACTS:
            break
    for store in repo.stores():  # SPEC 3.3: a fact shown in a preamble is recalled
        recall.record(store, shown.get(store.label, []))
    return chosen


def to_json(pre: Preamble) -> dict[str, Any]:
    return {"text": pre.text, "agent": pre.agent, "role": pre.role, "budget": pre.budget,
            "chars": len(pre.text), "policies": list(pre.policies), "notes": pre.notes,
            "facts": [{"id": f.id, "line": f.line, "score": round(f.score, 4)}
                      for f in pre.facts],
            "warnings": list(pre.warnings)}
