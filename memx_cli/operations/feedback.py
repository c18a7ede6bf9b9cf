"""Helpful / harmful feedback on a memory (the ACE paper's playbook counters, SPEC 2).

The counts live in the memory file (``feedback: {helpful, harmful}``), so the team's
judgement travels with the memory through git. Search multiplies a memory's score by
``feedback_factor``: harmful-heavy memories rank lower; helpful votes offset harmful
ones but never lift a memory above one nobody has judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memx_cli.store.memory import Memory
from memx_cli.store.repo import Repo


def feedback_factor(counts: Mapping[str, int] | None) -> float:
    """(helpful + 1) / (helpful + harmful + 1): 1.0 without harmful votes, 0.5 after one
    harmful vote, back to 0.75 with two helpful ones."""
    helpful = int((counts or {}).get("helpful", 0))
    harmful = int((counts or {}).get("harmful", 0))
    return (helpful + 1) / (helpful + harmful + 1)


def harmful_heavy(mem: Memory) -> bool:
    return mem.feedback.get("harmful", 0) > mem.feedback.get("helpful", 0)


@dataclass(frozen=True)
class FeedbackResult:
    memory: Memory
    path: Path


def record(repo: Repo, prefix: str, helpful: bool) -> FeedbackResult:
    """Count one helpful (or harmful) vote in the memory's file.

    ``updated_at`` is left alone: a vote is about the memory, not a change of it, and
    must not renew its place on the forgetting curve.
    """
    from memx_cli.store.queries import find

    store, mem = find(repo, prefix)
    name = "helpful" if helpful else "harmful"

    def vote(current: Memory) -> Memory:
        counts = {"helpful": current.feedback.get("helpful", 0),
                  "harmful": current.feedback.get("harmful", 0)}
        counts[name] += 1
        return current.replace(feedback=counts)

    # Counted on the file as it is under the lock, not on the copy read above: 39
    # concurrent votes stored 23 before (issue 14).
    updated = store.update(mem.id, vote)
    return FeedbackResult(updated, store.path_for(mem.id))
