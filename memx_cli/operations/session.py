"""Session-scoped memory (SPEC 7: ``remember``, ``consolidate_memory``).

``remember`` keeps a short item in ``.memx/local/remembered.json`` (per clone, never
committed), tagged with the session that said it; saying the same thing again (same
words, Jaccard >= SAME_ITEM) counts on the existing item. ``consolidate`` then:
1. promotes to facts the items that recur (remembered in two or more sessions) or were
   marked — through the ACE write path, as facts inferred by an agent;
2. merges near-duplicate facts already in the store (the Curator's duplicate test on
   neighbouring pairs): the better text stays, the other is superseded by it;
3. prunes session items older than PRUNE_DAYS that were never promoted.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, replace
from datetime import timedelta

from memx_cli.clock import now, now_iso, parse_timestamp
from memx_cli.curator.similarity import jaccard, word_set
from memx_cli.errors import MemxError
from memx_cli.fsutil import write_text
from memx_cli.operations import write as ace
from memx_cli.privacy import dumps
from memx_cli.privacy.sanitizer import for_config
from memx_cli.store.ids import new_id
from memx_cli.store.memory import Memory
from memx_cli.store.records import WriteResult, build, check_content
from memx_cli.store.repo import Repo

ITEMS_FILE = "remembered.json"
SAME_ITEM = 0.8         # word-set Jaccard at which a remembered text is the same item
RECUR_SESSIONS = 2      # sessions that must say an item before it becomes a fact
PRUNE_DAYS = 14         # unpromoted items older than this are dropped
MAX_ITEM_CHARS = 2000   # a remembered item is a sentence or two, not a log


@dataclass(frozen=True)
class Item:
    id: str
    text: str
    sessions: tuple[str, ...]
    count: int
    marked: bool
    first: str
    last: str


@dataclass(frozen=True)
class Consolidation:
    promote: list[Item] = field(default_factory=list)        # items due for promotion
    written: list[WriteResult] = field(default_factory=list)  # what each became (not dry)
    merged: list[tuple[str, str]] = field(default_factory=list)  # (kept, superseded)
    pruned: list[Item] = field(default_factory=list)
    kept: int = 0
    dry_run: bool = False


def session_name(session: str | None = None) -> str:
    return session or os.environ.get("MEMX_SESSION") or "cli"


def load_items(repo: Repo) -> list[Item]:
    try:
        raw = json.loads((repo.store.local_dir / ITEMS_FILE).read_bytes())
        return [Item(**{**r, "sessions": tuple(r["sessions"])}) for r in raw["items"]]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise MemxError(f".memx/local/{ITEMS_FILE} is unreadable ({exc}); delete it to start "
                        "over (it holds only unpromoted session items)") from None


def _save(repo: Repo, items: list[Item]) -> None:
    data = {"items": [{**asdict(i), "sessions": list(i.sessions)} for i in items]}
    write_text(repo.store.local_dir / ITEMS_FILE,
               dumps(data, for_config(repo.config), ensure_ascii=False, indent=1))


def remember(repo: Repo, text: str, session: str | None = None, marked: bool = False) -> Item:
    """Keep ``text`` for this session; a repeat counts on the item it repeats."""
    repo.require_store()
    # Masked here, not only when saved: the item is also the reply (the MCP `remember`
    # tool, `memx remember`), which must not echo a secret back (issue 26).
    body = for_config(repo.config).sanitize(" ".join(check_content(text).split()))
    if len(body) > MAX_ITEM_CHARS:
        raise MemxError(f"remembered text is {len(body)} characters (limit {MAX_ITEM_CHARS}); "
                        "remember one point at a time")
    where, stamp, words = session_name(session), now_iso(), word_set(body)
    with repo.store.lock():
        items = load_items(repo)
        for at, item in enumerate(items):
            if jaccard(word_set(item.text), words) >= SAME_ITEM:
                sessions = item.sessions + (() if where in item.sessions else (where,))
                items[at] = replace(item, sessions=sessions, count=item.count + 1,
                                    marked=item.marked or marked, last=stamp)
                _save(repo, items)
                return items[at]
        item = Item(new_id(), body, (where,), 1, marked, stamp, stamp)
        _save(repo, items + [item])
    return item


def _due(item: Item) -> bool:
    return item.marked or len(item.sessions) >= RECUR_SESSIONS


def consolidate(repo: Repo, dry_run: bool = False) -> Consolidation:
    repo.require_store()
    cutoff = now() - timedelta(days=PRUNE_DAYS)
    with repo.store.lock():
        items = load_items(repo)
    promote = [i for i in items if _due(i)]
    pruned = [i for i in items if not _due(i) and parse_timestamp(i.last) < cutoff]
    kept = [i for i in items if i not in promote and i not in pruned]
    if dry_run:
        return Consolidation(promote, [], _duplicates(repo, apply=False), pruned, len(kept),
                             True)
    written = ace.write(repo, [_fact(i) for i in promote]) if promote else []
    with repo.store.lock():  # items remembered meanwhile are kept
        current = load_items(repo)
        gone = {i.id for i in promote + pruned}
        _save(repo, [i for i in current if i.id not in gone])
    merged = _duplicates(repo, apply=True)
    return Consolidation(promote, written, merged, pruned, len(kept), False)


def _fact(item: Item) -> Memory:
    return build(item.text, veracity="inferred",
                 source={"type": "agent", "session": item.sessions[0],
                         "sessions": list(item.sessions)})


def _duplicates(repo: Repo, apply: bool) -> list[tuple[str, str]]:
    """Pairs of current facts the Curator would have merged had they arrived together."""
    from memx_cli.curator import Settings, comparable, is_duplicate, load_similarity
    from memx_cli.curator.contradiction import detect
    from memx_cli.curator.merge import merge
    from memx_cli.curator.review import _candidates

    settings = Settings.from_config(repo.config)
    similarity = load_similarity(repo)
    pairs: list[tuple[str, str]] = []
    for store in repo.stores():
        live = [m for m in store.load_all().memories if not m.superseded_by and m.kind == "fact"]
        entries = {e.memory.id: e for e in similarity.entries(live)}
        spec = repo.config["embedding.model"]
        taken: set[str] = set()
        for a_id, b_id in sorted(_candidates(store, list(entries.values()), similarity, spec)):
            if a_id in taken or b_id in taken:
                continue
            a, b = entries[a_id].memory, entries[b_id].memory
            older, newer = sorted((a, b), key=lambda m: (m.created_at, m.id))
            sim = similarity.score(entries[a_id], entries[b_id])
            if (not comparable(newer, older) or detect(older.content, newer.content)
                    or not is_duplicate(older.content, newer.content, sim, similarity, settings)):
                continue
            taken |= {a_id, b_id}
            pairs.append((older.id, newer.id))
            if apply:
                stamp = now_iso()
                kept = merge(older, newer, settings.strategy, stamp)
                kept = kept.replace(supersedes=kept.supersedes + (newer.id,))
                store.write_many([kept, newer.replace(superseded_by=older.id, updated_at=stamp)])
    return pairs


def consolidation_json(report: Consolidation) -> dict[str, object]:
    """A Consolidation as `memx consolidate --json` and the MCP tool return it."""
    written: list[WriteResult | None] = (list(report.written)
                                         or [None] * len(report.promote))
    return {"dry_run": report.dry_run,
            "promoted": [{"text": item.text, "sessions": list(item.sessions),
                          "marked": item.marked,
                          "id": None if result is None else result.memory.id,
                          "action": None if result is None else result.action}
                         for item, result in zip(report.promote, written)],
            "merged": [{"kept": kept, "superseded": gone} for kept, gone in report.merged],
            "pruned": [item.text for item in report.pruned], "kept": report.kept}
