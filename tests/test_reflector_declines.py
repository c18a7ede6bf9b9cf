"""An offer of the agent's next step that the user turns down is a Decision: what stays as
it is, and the user's words (declines.py, issue 24). Sessions are written in Claude Code's
record shapes and ingested with `memx ingest` in a real repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import Memx
from .test_reflector_replies import Replies, stored

FOUND = ("After the partial commit the carry-forward is skipped and returns early.\n\n"
         "You've found an edge case: stashed files fall out of `FilesTouched` when the "
         "carry-forward is skipped. The fix would be to set `state.FilesTouched = remaining` "
         "before the skip check. Something like:\n\n```go\nstate.FilesTouched = remaining\n"
         "if result.Skipped {\n\treturn\n}\n```\n\nWant me to look into fixing this?")
KEPT = ("Left as it is: You've found an edge case: stashed files fall out of `FilesTouched` "
        "when the carry-forward is skipped. The fix would be to set `state.FilesTouched = "
        "remaining` before the skip check. Offered: \"Want me to look into fixing this?\" "
        "The user: \"no, that has too much risk of false positives, it is fine as it is.\"")


def _decisions(repo: Path) -> list[str]:
    return [text for kind, text in stored(repo) if kind == "decision"]


def _offered(reply: str, offer: str = FOUND) -> Replies:
    return (Replies().user("what happens to stashed files after a partial commit?")
            .say(offer).user(reply))


def test_an_offer_the_user_turns_down_is_a_decision(memx: Memx, repo: Path) -> None:
    """The question points back ("fixing this"): what it offers is the prose before it,
    past the code block and the line that only introduces it."""
    memx.ok("ingest", _offered("no, that has too much risk of false positives, it is fine "
                               "as it is. what about renames?").write(repo))
    assert [text.removesuffix(".") for text in _decisions(repo)] == [KEPT]


def test_the_user_taking_the_step_declines_it(memx: Memx, repo: Path) -> None:
    offer = "All checks pass.\n\n**Ready to merge.** Want me to merge it and move to PR #90?"
    memx.ok("ingest", _offered("I'll do that manually. what's next in the stack?", offer)
            .write(repo))
    assert _decisions(repo) == [
        "Left as it is: All checks pass. Ready to merge. Offered: \"Want me to merge it and move to PR #90?\" "
        "The user: \"I'll do that manually.\"."]


@pytest.mark.parametrize("reply", [
    "yes",  # accepted
    "no worries, go ahead",  # accepts
    "no, just commit it",  # redirects to other work
    "no, use a flag instead",  # a correction
    "no, not for now",  # held to the moment
    "what would the fix change?",  # asks
])
def test_replies_that_do_not_turn_the_offer_down_decide_nothing(memx: Memx, repo: Path,
                                                               reply: str) -> None:
    memx.ok("ingest", _offered(reply).write(repo))
    assert not any(text.startswith("Left as it is") for text in _decisions(repo))


@pytest.mark.parametrize("offer", [
    FOUND.replace("Want me to look into fixing this?",
                  "Want me to fix it in this PR, or track it separately?"),  # two ways
    FOUND.replace("Want me to look into fixing this?", "Does that answer it?"),  # no offer
    FOUND.replace("\n\nWant me to look into fixing this?", ""),  # no question
])
def test_a_no_to_anything_but_an_offer_decides_nothing(memx: Memx, repo: Path,
                                                       offer: str) -> None:
    memx.ok("ingest", _offered("no, it is fine as it is", offer).write(repo))
    assert not any(text.startswith("Left as it is") for text in _decisions(repo))


def test_an_offer_followed_by_a_tool_call_waits_for_no_answer(memx: Memx, repo: Path) -> None:
    """The agent went on working after its question: the user's no answers the work."""
    session = (Replies().user("what happens to stashed files after a partial commit?")
               .say(FOUND).run("go test ./...", "ok  \texample.com/app\t0.2s", False)
               .user("no, it is fine as it is"))
    memx.ok("ingest", session.write(repo))
    assert not any(text.startswith("Left as it is") for text in _decisions(repo))
