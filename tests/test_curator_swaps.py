"""One word swapped for another (curator/relations.py ``word_swap``): two values of one
closed set (a frequency, a weekday, a log level, a quote or indent style, an HTTP method,
a transport, a package manager ...) contradict; any other swap of unrelated words is two
facts, never one merged into the other; a shortened or misspelt word is still a copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from memx_cli.curator.contradiction import detect

from .conftest import Memx
from .test_curator_relations import add, stored


@pytest.mark.parametrize(
    ("old", "new", "said", "files"),
    [
        ("Wrap strings in single quotes", "Wrap strings in double quotes", "conflicts with", 2),
        ("Run the dependency audit weekly", "Run the dependency audit daily", "conflicts with", 2),
        ("The payments service logs at warning level", "The payments service logs at error level",
         "conflicts with", 2),
        ("Ship releases on Fridays", "Ship releases on Mondays", "conflicts with", 2),
        ("Webhooks arrive as POST requests", "Webhooks arrive as PUT requests",
         "conflicts with", 2),
        ("Indent YAML with spaces", "Indent YAML with tabs", "conflicts with", 2),
        ("Clone the repo over ssh", "Clone the repo over https", "conflicts with", 2),
        ("Install dependencies with yarn", "Install dependencies with pnpm", "conflicts with", 2),
        # unrelated words swapped: two facts, both kept, no conflict claimed
        ("Use feature flags for risky backend changes",
         "Use feature flags for risky frontend changes", "", 2),
        ("Get the signing key from vault", "Delete the signing key from vault", "", 2),
        ("Webhooks arrive as POST requests", "Webhooks arrive as GET requests",
         "conflicts with", 2),
        # the same word shortened or misspelt: still one memory
        ("The staging database is refreshed every night",
         "The staging db is refreshed every night", "merged into", 1),
        ("Release notes are written in English", "Release notes are writen in English",
         "merged into", 1),
    ],
)
def test_one_word_swapped_through_memx_add(memx: Memx, repo: Path, old: str, new: str,
                                           said: str, files: int) -> None:
    first, _ = add(memx, old)
    _, told = add(memx, new)
    assert told == (f"{said} {first}\n" if said else "")
    assert stored(repo) == files


def test_the_reason_names_the_two_values() -> None:
    found = detect("Rotate the access logs hourly", "Rotate the access logs nightly")
    assert found is not None
    assert (found.kind, found.why) == ("value", 'different frequencies: "hourly" vs "nightly"')


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Run lint before pushing", "Run tests before pushing"),
        ("Cache the npm folder in CI", "Cache the pip folder in CI"),
        ("Set the log level to info in staging", "Set the log level to debug in production"),
        ("Get the token from vault", "Put the token in vault"),  # lower case: verbs
    ],
)
def test_no_swap_contradiction(old: str, new: str) -> None:
    assert detect(old, new) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Rotate the logs nightly (see JIRA-1234)", "Rotate the logs nightly (see JIRA-5678)"),
        ("Fixed in PAY-12: retry the webhook", "Fixed in PAY-99: retry the webhook"),
        ("PR #123 adds caching to the search endpoint",
         "PR #456 adds caching to the search endpoint"),
    ],
)
def test_a_ticket_or_pull_request_number_is_a_name_not_a_value(old: str, new: str) -> None:
    assert detect(old, new) is None


def test_a_worded_unit_is_shown_apart_from_its_number() -> None:
    found = detect("The request timeout is 30 seconds", "The request timeout is 60 seconds")
    assert found is not None
    assert found.why == 'different values for "request timeout": 30 seconds vs 60 seconds'


def test_an_ordering_word_reads_a_few_words_on_each_side() -> None:
    """A long clause (a pasted log) must not make the order rule read it whole: each side
    of "over" is at most ``SIDE`` tokens, so the reading stays linear in the text."""
    from memx_cli.curator.relations import SIDE, ordered

    words = [f"w{i}x" for i in range(200)]
    text = " ".join([*words[:100], "over", *words[100:]])
    [(word, left, right)] = ordered(text)
    assert word == "over"
    assert 0 < len(left) <= SIDE and 0 < len(right) <= SIDE
