"""JSON shapes shared by the CLI (``--json``) and the MCP server, so an agent gets the
same objects from either front end (SPEC 7: documented, stable shapes)."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from memx_cli.generator.candidates import voices
from memx_cli.store.memory import Memory
from memx_cli.store.records import WriteResult

if TYPE_CHECKING:
    from memx_cli.operations.attention import Attention
    from memx_cli.operations.diff import MemoryDiff


def memory_json(mem: Memory) -> dict[str, Any]:
    data = mem.to_dict()
    data.pop("schema", None)
    return data


def hit_json(hit: Any, explain: bool = False) -> dict[str, Any]:
    """One search result (generator.search.Hit)."""
    doc = dict(hit.doc)
    data: dict[str, Any] = {
        "id": hit.id,
        "content": doc.pop("content"),
        "score": round(hit.score, 4),
        "relevance": round(getattr(hit, "relevance", 0.0), 4),
        "kind": doc.pop("kind", "fact"),
        "scope": doc.pop("scope", "project"),
        "tags": doc.pop("tags", []),
        "source": doc.pop("source", {}),
        "verification": (hit.verification.to_json() if hit.verification is not None
                         else {"status": "unanchored", "anchors": []}),
        "store": hit.store,
        "path": doc.pop("path", None),
    }
    doc.pop("archived", None)
    data.update(doc)
    if explain:
        data["explain"] = {"layers": {k: round(v, 4) for k, v in hit.layers.items()},
                           "factors": {k: round(v, 4) for k, v in hit.factors.items()},
                           "composite": round(hit.composite, 4), "tokens": hit.tokens,
                           "voices": {k: None if v is None else round(v, 4)
                                      for k, v in voices(hit).items()}}
    return data


def search_json(result: Any, explain: bool = False) -> dict[str, Any]:
    """A whole result set (generator.search.SearchResult), as `memx search --json`."""
    out = {"query": result.query, "mode": result.mode, "scope": result.scope,
           "semantic": result.semantic_available,
           "relevant": getattr(result, "relevant", True),
           "results": [hit_json(h, explain) for h in result.hits]}
    when = getattr(result, "when", None)
    if explain and when is not None:  # the days the query names (generator/temporal.py)
        out["dates"] = {"from": when.start.date().isoformat(),
                        "until": (when.end - timedelta(days=1)).date().isoformat(),
                        "phrase": when.phrase}
    absent = getattr(result, "absent", None)
    if explain and absent is not None:  # a name no memory mentions (generator/relevance.py)
        out["absent"] = absent
    return out


def write_json(result: WriteResult) -> dict[str, Any]:
    """What a write did, as `memx add --json`."""
    return {"action": result.action, "other": result.other, "message": result.message,
            "memory": memory_json(result.memory), "path": str(result.path)}


def conflict_json(pair: Any) -> dict[str, Any]:
    """One curator.review.ConflictPair, as `memx conflicts --json`."""
    return {"older": {"id": pair.older.id, "content": pair.older.content},
            "newer": {"id": pair.newer.id, "content": pair.newer.content},
            "similarity": None if pair.similarity is None else round(pair.similarity, 4),
            "why": pair.why, "recorded": pair.recorded, "suggestion": pair.suggestion}


def sweep_json(report: Any) -> dict[str, Any]:
    """A sweep.SweepReport, as `memx sweep --json`."""
    return {"threshold": report.threshold, "checked": report.checked,
            "dry_run": report.dry_run,
            "archived": [{"id": w.memory.id, "store": w.store.label,
                          "weight": round(w.weight, 4), "age_days": round(w.age_days, 1),
                          "recalls": w.recalls, "expired": w.expired, "reason": w.reason,
                          "path": w.store.display(w.store.path_for(w.memory.id,
                                                                   archived=True))}
                         for w in report.moved]}


def verify_json(report: Any, stale_only: bool = False) -> dict[str, Any]:
    """A verify.Report: counts and every anchored memory with its status."""
    return {"counts": report.counts(), "memories": [
        {"id": c.memory.id, "store": c.store, "content": c.memory.content,
         "verification": c.verification.to_json()}
        for c in report.checked if not stale_only or c.verification.status == "stale"]}


def item_json(item: Any) -> dict[str, Any]:
    """A remembered session item (operations.session.Item), as `memx remember --json`."""
    return {"id": item.id, "text": item.text, "sessions": list(item.sessions),
            "count": item.count, "marked": item.marked}


def diff_json(result: MemoryDiff) -> dict[str, Any]:
    """``memx diff --format json``: what a range of commits does to memory."""
    return {
        "range": result.label,
        "attention": attention_json(result.attention),
        "counts": result.counts(),
        "added": [memory_json(m) for m in result.added],
        "changed": [{"id": c.after.id, "fields": list(c.fields), "content_diff": c.content_diff,
                     "before": memory_json(c.before), "after": memory_json(c.after)}
                    for c in result.changed],
        "superseded": [{"id": m.id, "by": m.superseded_by, "memory": memory_json(m)}
                       for m in result.superseded],
        "archived": [memory_json(m) for m in result.archived],
        "restored": [memory_json(m) for m in result.restored],
        "deleted": [memory_json(m) for m in result.deleted],
        "conflicts": [{"a": a, "b": b} for a, b in result.conflicts],
        "problems": [{"file": p.path, "line": p.line, "message": p.message}
                     for p in result.problems],
    }


def attention_json(attention: Attention | None) -> dict[str, Any] | None:
    """The "needs attention" block of ``memx diff`` (issue 17)."""
    if attention is None:
        return None
    return {
        "count": attention.count(),
        "policies": [{"action": p.action, "id": p.memory.id, "how": p.how,
                      "content_diff": list(p.diff), "memory": memory_json(p.memory)}
                     for p in attention.policies],
        "settings": [{"path": s.path, "what": s.what, "status": s.status, "diff": list(s.diff)}
                     for s in attention.settings],
        "anchors": [{"id": a.memory.id, "status": a.status, "anchors": list(a.where),
                     "content": a.memory.content} for a in attention.anchors],
        "secrets": [{"file": p.path, "line": p.line, "message": p.message}
                    for p in attention.secrets],
        "notes": list(attention.notes),
    }


def ingest_json(outcome: Any, dry_run: bool) -> dict[str, Any]:
    """``memx ingest --json``: the Reflector's candidates and what was stored."""
    candidates = []
    for item, mem in zip(outcome.items, outcome.memories):
        candidates.append({"rule": item.rule, "score": item.score, "section": item.section,
                           "type": item.type, "content": item.content, "tools": list(item.tools),
                           "entities": list(item.entities), "tags": list(item.tags),
                           "confidence": mem.confidence, "source": dict(mem.source)})
    if not outcome.items and outcome.memories:  # ACE off: the input itself
        candidates = [memory_json(outcome.memories[0])]
    stored = [{"id": r.memory.id, "action": r.message, "path": str(r.path)}
              for r in outcome.results]
    return {"dry_run": dry_run, "format": outcome.format, "candidates": candidates,
            "stored": stored, "already_ingested": outcome.already_seen,
            "stats": outcome.stats.as_dict()}


def instructions_json(found: Any, results: Any, dry_run: bool) -> dict[str, Any]:
    """``memx import --json`` of Markdown and agent instruction files: every item found
    (``present``: imported before) and what writing the new ones did."""
    return {"dry_run": dry_run, "items": [
        {"file": c.path, "line": c.item.line, "kind": c.kind, "domain": c.domain,
         "tags": list(c.tags), "block": c.item.kind, "content": c.item.text,
         "present": c.present} for c in found],
        "results": [{"id": r.memory.id, "action": r.action, "other": r.other,
                     "message": r.message} for r in results]}
