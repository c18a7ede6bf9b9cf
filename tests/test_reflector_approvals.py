"""A recommendation the user approves with a short "yes" and the agent carries out is a
Decision (approvals.py, issue 24). Sessions are written in Claude Code's record shapes and
ingested with `memx ingest` in a real repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import Memx
from .test_reflector_replies import Replies, stored

RECOMMENDED = ("Here is the layout I'd use.\n\n## Storage\n\n"
               "I recommend **SQLite in WAL mode** for the cache — readers never block the "
               "writer, and it needs no server.\n\nWant me to wire it into `cache/store.py`?")
DECIDED_WAL = ('Decided (the user answered "yes"): I recommend SQLite in WAL mode for the '
               "cache — readers never block the writer, and it needs no server.")

POINTS = """Here are my thoughts on each point of the review:

**1. `load_config()` docstring**

Agree it's misleading. Easy fix, I'll reword it.

**2. `RetryPolicy` stays a frozen dataclass**

A plain class would let callers mutate a shared policy between requests. I'd say it stays frozen.

**3. `parse_headers()` drops duplicate keys**

This is intended: the last value wins, like the HTTP client does. I think that is fine as-is.

Want me to fix the docstring and note the duplicate keys in a comment?"""


def _decisions(repo: Path) -> list[str]:
    return [text for kind, text in stored(repo) if kind == "decision"]


@pytest.mark.parametrize("then", [
    lambda s: s.user("thanks, commit it"),  # the user moves on
    lambda s: s,  # the session ends on the work
])
def test_a_recommendation_approved_and_carried_out_is_a_decision(memx: Memx, repo: Path,
                                                                  then) -> None:
    session = (Replies().user("where should the cache live?").say(RECOMMENDED).user("yes")
               .edit("/home/dev/app/cache/store.py", "x",
                     "conn.execute('PRAGMA journal_mode=WAL')  # SQLite in WAL mode"))
    memx.ok("ingest", then(session).write(repo))
    assert _decisions(repo) == [DECIDED_WAL]


def test_a_draft_built_on_the_recommendation_is_approved_later(memx: Memx, repo: Path) -> None:
    """The user asks on, then says yes to a draft that still names the recommendation."""
    session = (Replies().user("where should the cache live?").say(RECOMMENDED)
               .user("can you also check how big it gets?").say("About 40 MB per project.")
               .say("Draft of `cache/store.py`: opens SQLite in WAL mode. Create it?")
               .user("yep, do it")
               .edit("/home/dev/app/cache/store.py", "", "# SQLite in WAL mode\nopen_wal()"))
    memx.ok("ingest", session.write(repo))
    assert _decisions(repo) == [DECIDED_WAL.replace('"yes"', '"yep, do it"')]


def test_points_with_a_stance_approved_are_one_decision(memx: Memx, repo: Path) -> None:
    """Titled points, some holding the agent's stance: those are the decision, with the
    first sentences under each; the point with no stance (a chore) is left out."""
    session = (Replies().user("review feedback below, let's discuss").say(POINTS)
               .user("yep do it")
               .edit("/home/dev/app/config.py", '"""Loads it."""',
                     '"""load_config() reads the file; None when it is missing."""'))
    memx.ok("ingest", session.write(repo))
    assert _decisions(repo) == [
        'Decided (the user answered "yep do it"): RetryPolicy stays a frozen dataclass: A plain '
        "class would let callers mutate a shared policy between requests. I'd say it stays "
        "frozen. parse_headers() drops duplicate keys: This is intended: the last value wins, "
        "like the HTTP client does. I think that is fine as-is."]


@pytest.mark.parametrize("session", [
    # a yes to running a command: nothing was recommended
    Replies().user("is the suite green?").say("Want me to run `pytest -q` first?").user("yes")
    .run("pytest -q", "12 passed in 0.4s", failed=False)
    .edit("/home/dev/app/Makefile", "", "test:\n\tpytest -q"),
    # recommended and approved, but only a command follows, no edit that writes it
    Replies().user("where should the cache live?").say(RECOMMENDED).user("yes")
    .run("pytest -q", "12 passed in 0.4s", failed=False),
    # approved, then the edit writes something the recommendation does not name
    Replies().user("where should the cache live?").say(RECOMMENDED).user("yes")
    .edit("/home/dev/app/README.md", "x", "Install with pipx."),
    # recommended in a report that asks nothing: an "ok" only acknowledges it
    Replies().user("where should the cache live?")
    .say(RECOMMENDED.replace("Want me to wire it into `cache/store.py`?", "Done.")).user("ok")
    .edit("/home/dev/app/cache/store.py", "x", "open_wal()  # SQLite in WAL mode"),
    # a question offering nothing
    Replies().user("the cache is slow").say("Which platform are you on?").user("yes")
    .edit("/home/dev/app/cache/store.py", "x", "open_wal()  # SQLite in WAL mode"),
    # turned down, then a yes to something else
    Replies().user("where should the cache live?").say(RECOMMENDED)
    .user("no, keep it in memory").say("Should I also add a size limit?").user("yes")
    .edit("/home/dev/app/cache/store.py", "x", "# SQLite in WAL mode is not used"),
    # approved and carried out, then the work is turned down
    Replies().user("where should the cache live?").say(RECOMMENDED).user("yes")
    .edit("/home/dev/app/cache/store.py", "x", "open_wal()  # SQLite in WAL mode")
    .user("no, that's wrong, revert it"),
])
def test_no_decision_without_a_recommendation_approved_and_carried_out(
        memx: Memx, repo: Path, session: Replies) -> None:
    memx.ok("ingest", session.write(repo))
    assert not any("WAL" in text or "Decided" in text for text in _decisions(repo))


OFFER = ("**Option A — a config file**\n\nOne place.\n\n**Option C — flags**\n\nExplicit.\n\n"
         "**My recommendation:** go with **Option A**, it keeps the flags short.")


@pytest.mark.parametrize(("pick", "decided"), [
    ("I like Option C", False),  # another option picked: the recommended one turned down
    ("ok", True),  # control: a yes to the recommendation itself
])
def test_a_labelled_option_picked_turns_the_recommended_one_down(
        memx: Memx, repo: Path, pick: str, decided: bool) -> None:
    """A later yes to a draft that names Option A does not make A the decision once the
    user picked Option C."""
    session = (Replies().user("how should users set it?").say(OFFER).user(pick)
               .say("Draft notes: Option A, a config file. Write them?").user("yes")
               .edit("/home/dev/app/NOTES.md", "", "We use Option A: a config file."))
    memx.ok("ingest", session.write(repo))
    found = [text for text in _decisions(repo) if text.startswith("Decided")]
    assert found == ([
        'Decided (the user answered "yes"): My recommendation: go with Option A, it keeps the '
        "flags short."] if decided else [])


LISTED = """Two ways to keep the sessions:

1. Keep them in Redis with a TTL, so they expire on their own.
2. Write them to Postgres in a `sessions` table, so they survive restarts.

Which one do you want?"""
LETTERED = LISTED.replace("1. Keep", "A) Keep").replace("2. Write", "B) Write")
REDIS = "Decided (the user answered \"{}\"): Keep them in Redis with a TTL, so they expire on their own."
POSTGRES = ("Decided (the user answered \"{}\"): Write them to Postgres in a sessions table, so "
            "they survive restarts.")


@pytest.mark.parametrize(("offer", "reply", "written", "decided"), [
    (LISTED, "the second one", "CREATE TABLE sessions (id text)  -- Postgres", POSTGRES),
    (LISTED, "go with 1", "redis.set(key, value, ex=TTL)", REDIS),
    (LETTERED, "B", "CREATE TABLE sessions (id text)  -- Postgres", POSTGRES),
    (LISTED, "first", "redis.set(key, value, ex=TTL)", REDIS),
    # controls: the item picked is not what the edit writes (it writes the other one)
    (LISTED, "the second one", "redis.set(key, value, ex=TTL)", None),
    # a bare yes to a list that recommends nothing picks nothing
    (LISTED, "yes", "redis.set(key, value, ex=TTL)", None),
    # a letter the list does not offer
    (LETTERED, "D", "redis.set(key, value, ex=TTL)", None),
])
def test_an_item_picked_by_place_or_label_and_carried_out_is_a_decision(
        memx: Memx, repo: Path, offer: str, reply: str, written: str, decided: str | None) -> None:
    session = (Replies().user("where should sessions live?").say(offer).user(reply)
               .edit("/home/dev/app/store.py", "pass", written))
    memx.ok("ingest", session.write(repo))
    found = [text for text in _decisions(repo) if text.startswith("Decided")]
    assert found == ([decided.format(reply)] if decided else [])
